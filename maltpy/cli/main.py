"""The ``maltpy`` command: MaltParser's flags for learning and parsing, plus sub-commands.

    maltpy -c config.yaml -m learn            train (settings from the YAML file)
    maltpy -c model.mpz -i test.conll -m parse   parse (stdin/stdout when -i/-o are absent or -)
    maltpy -m convert -i in.conllu -o out.conll  CoNLL-U -> CoNLL-X (trees.mrg <-> trees.conll: constituents)
    maltpy -c ptb.yaml -m learn -i train.mrg  a constituent parser (parsing as reduction)
    maltpy eval GOLD SYSTEM                   LAS, UAS, LA (--report FILE.html: grouped figures, plots)
    maltpy eval --constituents GOLD.mrg OUT.mrg   EVALB's figures (COLLINS.prm)
    maltpy draw FILE -o trees.html            trees as pictures (--gold GOLD marks the errors)
    maltpy combine LTR RTL --param P          combine left-to-right and right-to-left parses
    maltpy convert-features MODEL.xml         MaltParser XML feature model -> YAML
    maltpy info MODEL                         what a model file holds (--features, --json)
"""
from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import threading
import time
import warnings

from maltpy.config import PARSE_SETTINGS, RUN_SETTINGS, Settings, cli_flags, coerce, flag_of, load_config
from maltpy.errors import MaltpyError

MODES = ("learn", "parse", "convert", "proj", "deproj")


def _log(enabled):
    def log(msg):
        if enabled:
            print(f"maltpy: {msg}", file=sys.stderr, flush=True)
    return log


def _main_parser():
    p = argparse.ArgumentParser(
        prog="maltpy",
        description="MaltParser-style transition-based dependency parsing. Settings come from a "
                    "YAML file (-c config.yaml) and MaltParser's flags, which override it.",
        epilog="sub-commands: 'maltpy eval GOLD SYSTEM [--compare SYSTEM_B] [--report FILE.html]' prints "
               "LAS/UAS/LA (and a permutation test, and writes a MaltEval-style report), 'maltpy eval --constituents "
               "GOLD.mrg OUT.mrg' EVALB's figures; 'maltpy draw FILE "
               "[--gold GOLD] -o trees.html' draws the trees; 'maltpy fragmentation MODEL GOLD' reports what is left on "
               "the stack at the end of the input; 'maltpy combine LTR RTL --param P' combines a left-to-right "
               "and a right-to-left parse; 'maltpy experiment TRAIN...' runs multilingual "
               "experiments; "
               "'maltpy convert-features MODEL.xml' converts a MaltParser feature model to YAML; 'maltpy info "
               "MODEL' shows what a model file holds (its settings, learner, labels, training figures). "
               "Run 'maltpy eval -h' for their options.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from maltpy import __version__
    p.add_argument("--version", action="version", version=f"maltpy {__version__}")
    p.add_argument("-c", metavar="CONFIG|MODEL",
                   help="YAML configuration file (.yaml/.yml), or the model file itself (.mpz is "
                        "added when there is no extension), like MaltParser's configuration name")
    p.add_argument("-m", choices=MODES, default=None,
                   help="learn (a .mrg file of bracketed trees trains a constituent parser), parse (default), "
                        "convert (CoNLL-U to CoNLL-X; bracketed trees to their dependency encoding and back), "
                        "proj (projectivize a treebank with -pp/-pcr/-plo) or deproj (undo it on a parsed file)")
    g = p.add_argument_group("MaltParser options (override the YAML file)")
    for _, flag in cli_flags():
        # no argparse choices: the setting checks its values (coerce), one line for any bad one
        g.add_argument(*filter(None, (flag.flag, flag.long)), dest=flag.dest, metavar=flag.metavar, help=flag.help)
    p.add_argument("--dask", metavar="ADDRESS", help="-m parse on a Dask cluster: a scheduler address "
                   "(tcp://host:8786) or local:N (N worker processes here); with -i 'corpus/*.conllu' "
                   "-o outdir/ every file is parsed into outdir under its own name (pip install \"maltpy[dask]\")")
    p.add_argument("-v", "--verbose", action="store_true", help="print progress messages even in pipes")
    p.add_argument("-q", "--quiet", action="store_true", help="no messages or progress bars")
    # read by main() before parsing (it works with the sub-commands too); listed here for --help
    p.add_argument("--debug", action="store_true", help="show Python tracebacks instead of one-line errors")
    return p


def _settings_from_args(args):
    """(settings, the configuration file read or None, the settings given by flags)."""
    values = {}
    explicit = set()
    config_path = None
    if args.c:
        if args.c.endswith((".yaml", ".yml")):
            config_path = args.c
            values.update(load_config(args.c))
        else:
            values["model"] = _model_path(args.c)
    for name, flag in cli_flags():
        value = getattr(args, flag.dest)
        if value is not None:
            values[name] = coerce(name, value, f"option {flag.flag}")
            explicit.add(name)
    settings = Settings(**values)
    return settings, config_path, explicit


def _model_path(name):
    """A model name as MaltParser's -c: ``.mpz`` is added when there is no extension."""
    return name if os.path.splitext(name)[1] else name + ".mpz"


def _detect(path, given):
    from maltpy.formats.conll import detect_format
    if given:
        return given
    return detect_format(path) if path not in (None, "-") else None


def _input(settings):
    """What the readers read: the input path (or ``-``), or a UTF-8 stream decoded from it with
    -ic's charset."""
    from maltpy.formats.charset import TranscodedInput, is_utf8
    if is_utf8(settings.input_charset):
        return settings.input
    return TranscodedInput(settings.input, settings.input_charset)


def _read_for_good(read, *args, **kwargs):
    """``read(*args, **kwargs)`` for objects that live until the command ends (a treebank read
    whole): the cyclic garbage collector is paused while they are made and exempts them
    afterwards (``gc.freeze``). Otherwise the allocations set it off again and again, and every
    collection walks them all and frees nothing (EWT train: 0.4 s of an 11 s learn; evaluating
    EWT dev x10: 1.5 s of 3.1 s). They hold no reference cycles, so there is nothing for it to
    collect."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return read(*args, **kwargs)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def run_learn(settings, log):
    from maltpy.formats.conll import read_conll
    from maltpy.parsing.parser import Parser
    if not settings.model:
        raise MaltpyError("no model file: give -c MODEL or 'model:' in the configuration")
    from maltpy.output import check_output_path
    from maltpy.parsing.modelfile import make_parent_directory
    # a model that cannot be saved is found out before training, not after
    make_parent_directory(settings.model)
    check_output_path(settings.model)
    fmt = _detect(settings.input, settings.input_format) or "conllx"
    t0 = time.perf_counter()
    if fmt == "ptb":   # bracketed trees: a constituent parser (parsing as reduction)
        from maltpy.formats.ptb import read_ptb
        from maltpy.parsing.constituent import fit_constituent_parser
        trees = _read_for_good(read_ptb, settings.input)
        log(f"read {len(trees)} trees (ptb) from {settings.input or 'stdin'}")
        parser = fit_constituent_parser(Parser(settings), trees, log)
        parser.save(settings.model)
        log(f"model saved to {settings.model} ({os.path.getsize(settings.model) / 1e6:.1f} MB); "
            f"learning took {time.perf_counter() - t0:.1f} s")
        return
    sentences = _read_for_good(read_conll, _input(settings), fmt, need_heads=True)
    log(f"read {len(sentences)} sentences ({fmt}) from {settings.input or 'stdin'}")
    parser = Parser(settings).fit(sentences, fmt=fmt, log=log)
    parser.save(settings.model)
    log(f"model saved to {settings.model} ({os.path.getsize(settings.model) / 1e6:.1f} MB); "
        f"learning took {time.perf_counter() - t0:.1f} s")


def run_parse(settings, log, explicit, dask=None):
    from maltpy.parsing.parser import Parser
    if not settings.model:
        raise MaltpyError("no model file: give -c MODEL or 'model:' in the configuration")
    overrides = {k: getattr(settings, k) for k in PARSE_SETTINGS + ("verbose", "jobs")}
    ignored = sorted(k for k in explicit if k not in overrides and k not in RUN_SETTINGS
                     and k not in ("input_format", "output_format"))
    if ignored:
        log(f"note: {', '.join(ignored)} are fixed when learning; the model's values are used")
    pairs = _file_pairs(settings.input, settings.output, dask)
    from maltpy.formats.charset import is_utf8
    out_charset = settings.output_charset or settings.input_charset
    if pairs is not None:
        if not (is_utf8(settings.input_charset) and is_utf8(out_charset)):
            raise MaltpyError("-ic/-oc other than UTF-8 take one input and one output file")
        return _parse_files(settings, pairs, dask, log)
    from maltpy.output import check_output_path
    check_output_path(settings.output)
    t0 = time.perf_counter()
    parser = Parser.load(settings.model, **overrides)
    fmt = _detect(settings.input, settings.input_format) or parser.format
    # read, parsed and written chunk by chunk: memory stays flat, a pipe sees output early,
    # and a file appears only when everything is written
    out_fmt = settings.output_format or _output_format(settings.output, parser)
    if is_utf8(out_charset):
        n_sentences, n_tokens = parser.parse_file(_input(settings), settings.output, fmt, out_fmt,
                                                  progress=settings.verbose)
    else:   # parsed to UTF-8, then written in -oc's encoding (whole or not at all, as always)
        import tempfile
        from maltpy.formats.charset import write_transcoded
        with tempfile.TemporaryDirectory(prefix="maltpy-") as tmp:
            utf8 = os.path.join(tmp, "out")
            n_sentences, n_tokens = parser.parse_file(_input(settings), utf8, fmt, out_fmt,
                                                      progress=settings.verbose)
            write_transcoded(utf8, settings.output, out_charset)
    wall = time.perf_counter() - t0
    log(f"parsed {n_sentences} sentences, {n_tokens} tokens in {wall:.2f} s "
        f"({n_tokens / max(wall, 1e-9):,.0f} tokens/s, loading the model included)")


def _output_format(output, parser):
    """-of when it is not given: a constituent parser writes bracketed trees unless the output is
    named .conll/.conllu; a dependency parser cannot write them."""
    named = output not in (None, "-") and str(output).lower().endswith((".mrg", ".ptb", ".conll", ".conllu"))
    fmt = _detect(output, None) if named else None
    if parser.reduction is not None:
        return fmt or "ptb"
    if fmt == "ptb":
        raise MaltpyError(f"{output}: this model parses dependencies; bracketed trees come from a constituent "
                          "parser (trained on a .mrg file)")
    return None


def _file_pairs(pattern, output, dask):
    """(input, output) paths when -m parse parses several files (a glob pattern, an output
    directory, or --dask); None for one input and one output."""
    import glob
    many = pattern is not None and glob.has_magic(pattern)
    # a directory: named with a trailing slash, or an existing one for several inputs or --dask
    # (one input and an existing directory without the slash stays the usual "is a directory" error)
    to_dir = output not in (None, "-") and output.endswith(("/", os.sep))
    if not (many or to_dir or dask):
        return None
    to_dir = to_dir or (output not in (None, "-") and os.path.isdir(output))
    if pattern in (None, "-"):
        raise MaltpyError("--dask and output directories parse files: give them with -i 'corpus/*.conllu'")
    inputs = sorted(glob.glob(pattern)) if many else [pattern]
    if not inputs:
        raise MaltpyError(f"-i {pattern}: no files match")
    if dask is not None and output in (None, "-"):
        raise MaltpyError("--dask writes files: give an output directory with -o outdir/")
    if not to_dir and len(inputs) == 1 and output not in (None, "-"):
        return [(inputs[0], output)]
    if output in (None, "-"):
        raise MaltpyError(f"-i {pattern} matches {len(inputs)} files: give an output directory with -o outdir/")
    try:
        os.makedirs(output, exist_ok=True)
    except OSError as e:   # an empty name, a file in the way, no permission
        raise MaltpyError(f"-o {output!r}: cannot make the output directory ({e.strerror or e})") from None
    pairs = [(src, os.path.join(output, os.path.basename(src))) for src in inputs]
    names = [os.path.basename(src) for src in inputs]
    for src, dst in pairs:
        if os.path.exists(dst) and os.path.samefile(src, dst):
            raise MaltpyError(f"{dst}: the output would replace its input; choose another output directory")
    if len(set(names)) < len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise MaltpyError(f"several inputs are named {', '.join(twice)}: their outputs would collide in {output}")
    return pairs


def _parse_files(settings, pairs, dask, log):
    t0 = time.perf_counter()
    if dask is not None:
        from maltpy.integrations.dask import dask_client, parse_files
        with dask_client(dask) as client:
            log(f"parsing {len(pairs)} file(s) on {dask} ({len(client.scheduler_info()['workers'])} workers)")
            results = parse_files(client, settings.model, pairs, settings.input_format, settings.output_format,
                                  log=log, **{k: getattr(settings, k) for k in PARSE_SETTINGS})
    else:
        from maltpy.parsing.parser import Parser
        parser = Parser.load(settings.model, verbose=settings.verbose, jobs=settings.jobs,
                             **{k: getattr(settings, k) for k in PARSE_SETTINGS})
        results = []
        for src, dst in pairs:
            n_sentences, n_tokens = parser.parse_file(src, dst, settings.input_format, settings.output_format,
                                                      progress=settings.verbose)
            results.append((src, dst, n_sentences, n_tokens))
            log(f"{src} -> {dst}: {n_sentences} sentences, {n_tokens} tokens")
    wall = time.perf_counter() - t0
    n_tokens = sum(r[3] for r in results)
    log(f"parsed {len(results)} file(s), {sum(r[2] for r in results)} sentences, {n_tokens} tokens in {wall:.2f} s "
        f"({n_tokens / max(wall, 1e-9):,.0f} tokens/s)")


def run_convert(settings, log):
    from maltpy.formats.conll import read_conll, to_conllx, write_conll
    fmt = _detect(settings.input, settings.input_format) or "conllu"
    out_fmt = settings.output_format or ("ptb" if _detect(settings.output, None) == "ptb" else "conllx")
    if fmt == "ptb" or out_fmt == "ptb":
        return _convert_constituents(settings, log, fmt, out_fmt)
    sentences = _read_for_good(read_conll, settings.input, fmt)
    if out_fmt == "conllx":
        sentences = [to_conllx(s) for s in sentences]
    write_conll(sentences, settings.output)
    log(f"converted {len(sentences)} sentences from {fmt} to {out_fmt}")


def _convert_constituents(settings, log, fmt, out_fmt):
    """-m convert between bracketed trees and their head-ordered dependency encoding."""
    from maltpy.formats.conll import read_conll, write_conll
    from maltpy.formats.ptb import read_ptb, write_ptb
    from maltpy.parsing.constituent import convert_conll_to_trees, convert_trees_to_conll
    from maltpy.transform.headrules import HeadRules
    if fmt == "ptb" and out_fmt == "ptb":
        trees = _read_for_good(read_ptb, settings.input)
        write_ptb(trees, settings.output)
        log(f"cleaned {len(trees)} trees (-NONE- elements and function tags removed)")
    elif fmt == "ptb":
        trees = _read_for_good(read_ptb, settings.input)
        sentences = convert_trees_to_conll(trees, HeadRules.load(settings.head_rules), settings.constituent_encoding)
        write_conll(sentences, settings.output)
        log(f"encoded {len(trees)} trees as dependency trees ({settings.constituent_encoding} encoding, "
            f"{settings.head_rules} head rules; unary chains in the last column)")
    else:
        trees = convert_conll_to_trees(_read_for_good(read_conll, settings.input, fmt, need_heads=True),
                                       settings.constituent_encoding)
        write_ptb(trees, settings.output)
        log(f"decoded {len(trees)} dependency trees into bracketed trees ({settings.constituent_encoding} encoding)")


def run_pseudo_projective(settings, log, mode):
    """-m proj / -m deproj: MaltParser's pseudo-projective transformation on a file."""
    from maltpy.formats.conll import read_conll, write_conll
    from maltpy.transform import PseudoProjective
    pp = PseudoProjective(settings.marking_strategy, settings.covered_root, settings.lifting_order)
    if not pp.active:
        raise MaltpyError(f"-m {mode} needs a marking strategy, e.g. -pp head (or -pcr)")
    fmt = _detect(settings.input, settings.input_format) or "conllx"
    sentences = _read_for_good(read_conll, settings.input, fmt, need_heads=True)
    fn = pp.projectivize if mode == "proj" else pp.deprojectivize
    out, lifted = [], 0
    for sent in sentences:
        new = pp.apply(fn, sent)
        lifted += sum(a != b for a, b in zip(new.heads, sent.heads))
        out.append(new)
    write_conll(out, settings.output)
    log(f"{'projectivized' if mode == 'proj' else 'deprojectivized'} {len(sentences)} sentences "
        f"({settings.marking_strategy}): {lifted} arcs moved")


def cmd_eval(argv):
    from maltpy.evaluation.scores import evaluate, format_scores
    from maltpy.formats.conll import detect_format, read_conll
    p = argparse.ArgumentParser(
        prog="maltpy eval",
        description="Attachment scores of SYSTEM against GOLD (LAS, UAS, LA; with all tokens and without "
                    "punctuation, as eval.pl), optionally a MaltEval-style HTML report with plots.",
        epilog="example: maltpy eval gold.conll out.conll --compare out2.conll --report report.html "
               "--plots plots/")
    p.add_argument("gold")
    p.add_argument("system")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of both files")
    p.add_argument("-ic", dest="charset", default="UTF-8", metavar="CHARSET",
                   help="character encoding of the files (default UTF-8; e.g. ISO-8859-1)")
    p.add_argument("--undirected", action="store_true",
                   help="also ULAS and UUAS (a gold arc found in either direction, with / without its label) "
                        "and the direction errors LDE = ULAS - LAS and UDE = UUAS - UAS")
    p.add_argument("--constituents", action="store_true",
                   help="bracketed trees (.mrg): EVALB's labelled recall, precision, F-measure, complete match, "
                        "crossing brackets and tagging accuracy with COLLINS.prm, for all sentences and those of "
                        "at most 40 words (the default for .mrg and .ptb files)")
    p.add_argument("--ignore-wrapper", action="store_true",
                   help="with --constituents: do not count the unlabelled outer bracket '( ... )' of treebank files, "
                        "which EVALB counts (and always matches); gives the figures of trees written with TOP")
    p.add_argument("--compare", metavar="SYSTEM_B",
                   help="a second system output: print both systems' LAS/UAS (all tokens) and the "
                        "p-values of a randomized permutation test on the difference")
    p.add_argument("--rounds", type=int, default=10000, help="permutation test rounds (default 10000)")
    p.add_argument("--report", metavar="FILE.html",
                   help="write an HTML report: accuracy by arc length, sentence length, distance to root, "
                        "label and POS (both systems side by side with --compare, and the sentences where "
                        "they differ most, drawn); plots when matplotlib is installed")
    p.add_argument("--plots", metavar="DIR", help="write the report's plots as PNG and SVG files into DIR "
                                                  "(needs matplotlib: pip install 'maltpy[plots]')")
    p.add_argument("--no-plots", action="store_true", help="tables only in the report")
    p.add_argument("--no-punct", action="store_true",
                   help="the report's grouped figures leave out punctuation tokens (default: all tokens)")
    p.add_argument("--differing", type=int, default=10, metavar="N",
                   help="with --compare and --report: draw the N sentences where the systems differ most "
                        "(default 10)")
    a = p.parse_args(argv)
    if a.rounds < 1 or a.differing < 0:
        p.error("--rounds must be at least 1 and --differing at least 0")
    from maltpy.formats.ptb import is_ptb_path
    if a.constituents or (is_ptb_path(a.gold) and is_ptb_path(a.system)):
        return _eval_constituents(a)
    from maltpy.formats.charset import TranscodedInput, is_utf8
    fmt = a.fmt or detect_format(a.gold)

    def read(path):
        source = path if is_utf8(a.charset) else TranscodedInput(path, a.charset)
        return _read_for_good(read_conll, source, fmt, need_heads=True)
    gold = read(a.gold)
    systems = [(os.path.basename(a.system), read(a.system))]
    if a.compare:
        systems.append((os.path.basename(a.compare), read(a.compare)))
        if systems[0][0] == systems[1][0]:
            systems = [(a.system, systems[0][1]), (a.compare, systems[1][1])]
    # scores first: a mismatch between the files stops here with its message
    scores = [evaluate(gold, s, a.gold, name) for name, s in systems]
    comparison = None
    if a.compare:
        from maltpy.evaluation.significance import compare, format_comparison
        comparison = compare(gold, systems[0][1], systems[1][1], a.rounds)
        print(format_comparison(comparison, systems[0][0], systems[1][0]))
    else:
        print(format_scores(scores[0], undirected=a.undirected))
    if fmt == "conllu":
        from maltpy.evaluation.official import format_official, official_scores
        print("(above: maltpy's figures, whole labels as written, nsubj:pass apart from nsubj)")
        for name, system in systems:
            if len(systems) > 1:
                print(name)
            print(format_official(official_scores(gold, system)))
    if a.report or a.plots:
        # the report's test counts the same tokens as its tables: reuse the printed one only then
        _write_report(a, gold, systems, comparison if not a.no_punct else None)


def _eval_constituents(a):
    from maltpy.evaluation.evalb import evalb, format_evalb
    from maltpy.formats.ptb import read_ptb
    result = evalb(_read_for_good(read_ptb, a.gold, clean=False), _read_for_good(read_ptb, a.system, clean=False),
                   a.ignore_wrapper, names=(a.gold, a.system))
    for message in result.messages[:10]:
        print(f"maltpy: {message}", file=sys.stderr)
    if len(result.messages) > 10:
        print(f"maltpy: ... and {len(result.messages) - 10} more error sentences", file=sys.stderr)
    print(format_evalb(result), end="")


def _write_report(a, gold, systems, comparison=None):
    from maltpy.evaluation.breakdown import breakdown
    from maltpy.formats.conll import atomic_output
    figs = None
    results = [breakdown(gold, s, not a.no_punct, a.gold, name) for name, s in systems]
    if a.plots or (a.report and not a.no_plots):
        try:
            from maltpy.visual.plots import figures
            figs = figures([(name, b) for (name, _), b in zip(systems, results)])
        except MaltpyError:
            if a.plots:
                raise
            print("maltpy: note: the report has tables only; for plots: pip install 'maltpy[plots]'",
                  file=sys.stderr)
    if a.plots:
        from maltpy.visual.plots import save_figures
        paths = save_figures(figs, a.plots)
        print(f"maltpy: {len(paths)} plot files written to {a.plots}", file=sys.stderr)
    if a.report:
        from maltpy.visual.report import report_html
        page = report_html(gold, systems, punctuation=not a.no_punct, plots=False, rounds=a.rounds,
                           differing=a.differing, figures=figs, comparison=comparison, breakdowns=results)
        with atomic_output(a.report) as out:
            out.write(page)
        print(f"maltpy: report written to {a.report}", file=sys.stderr)


def cmd_draw(argv):
    import html
    from maltpy.formats.conll import atomic_output, read_conll
    from maltpy.visual.trees import LEGEND, html_page, sentence_block, sentence_svg
    p = argparse.ArgumentParser(
        prog="maltpy draw",
        description="Draw dependency trees: arcs over the words with labels and POS, as one self-contained "
                    "HTML page (any browser, no network) or, for one sentence, an SVG file. With --gold, "
                    "wrong heads are red with the gold arc drawn in green below the words, wrong labels "
                    "orange with the gold label beside them.",
        epilog="examples: maltpy draw out.conll --gold gold.conll -o trees.html; "
               "maltpy draw out.conll --sentence 12 -o tree.svg")
    p.add_argument("input", help="CoNLL file to draw ('-' for standard input)")
    p.add_argument("-o", metavar="FILE", help="output: .html (default, standard output when absent) or .svg "
                                              "(one sentence)")
    p.add_argument("--gold", metavar="GOLD", help="gold CoNLL file of the same sentences: mark the errors")
    p.add_argument("--sentence", type=int, metavar="N", help="only sentence N (1 = the first)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N sentences")
    p.add_argument("--errors", action="store_true", help="with --gold: only sentences with an error")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of the input files")
    a = p.parse_args(argv)
    if a.sentence is not None and a.sentence < 1:
        p.error("--sentence counts from 1")
    if a.limit is not None and a.limit < 1:
        p.error("--limit must be at least 1")
    if a.errors and not a.gold:
        p.error("--errors needs --gold")
    sentences = _read_for_good(read_conll, a.input, a.fmt)
    gold = _read_for_good(read_conll, a.gold, a.fmt, need_heads=True) if a.gold else None
    if gold is not None:
        from maltpy.evaluation.scores import evaluate
        evaluate(gold, sentences, a.gold, a.input)   # the same words, sentence by sentence
    index = list(range(len(sentences)))
    if a.sentence is not None:
        if a.sentence > len(sentences):
            raise MaltpyError(f"{a.input} has {len(sentences)} sentences; there is no sentence {a.sentence}")
        index = [a.sentence - 1]
    if a.errors:
        index = [k for k in index if sentences[k].heads != gold[k].heads or sentences[k].labels != gold[k].labels]
    if a.limit is not None:
        index = index[:a.limit]
    svg = str(a.o or "").lower().endswith(".svg")
    if svg and len(index) != 1:
        raise MaltpyError(f"an SVG file holds one sentence but {len(index)} are selected; "
                          "give --sentence N, or write .html")
    if not index:
        raise MaltpyError("no sentence to draw (every sentence is right)" if a.errors else "no sentence to draw")
    if svg:
        k = index[0]
        text = sentence_svg(sentences[k], gold[k] if gold else None, standalone=True)
    else:
        title = f"maltpy draw: {'standard input' if a.input == '-' else os.path.basename(a.input)}"
        body = [f"<h2>{html.escape(title)}</h2>"] + ([LEGEND] if gold else [])
        body += [sentence_block(sentences[k], k, gold[k] if gold else None) for k in index]
        text = html_page(title, body)
    with atomic_output(a.o) as out:
        out.write(text)


def cmd_fragmentation(argv):
    from maltpy.evaluation.fragmentation import diagnose
    from maltpy.evaluation.scores import evaluate
    from maltpy.formats.conll import read_conll, write_conll
    from maltpy.parsing.parser import Parser
    p = argparse.ArgumentParser(
        prog="maltpy fragmentation",
        description="Fragmentation diagnostics (Nivre & Fernandez-Gonzalez 2014, Table 1): parse GOLD once "
                    "with an arc-eager MODEL and the tree constraint, report the words left on the stack "
                    "when the input ends and how the old heuristic and the tree constraint attach them.")
    p.add_argument("model", help="a nivreeager model file")
    p.add_argument("gold", help="gold CoNLL file (HEAD and DEPREL filled)")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of GOLD")
    p.add_argument("--old", metavar="FILE", help="write the old-heuristic parse here")
    p.add_argument("--new", metavar="FILE", help="write the tree-constrained parse here")
    a = p.parse_args(argv)
    parser = Parser.load(_model_path(a.model))
    gold = _read_for_good(read_conll, a.gold, a.fmt or parser.format, need_heads=True)
    stats, old, new = diagnose(parser, gold)
    for path, sents in ((a.old, old), (a.new, new)):
        if path:
            write_conll(sents, path)
    print(stats.format())
    print("UAS / LAS (all tokens):")
    for name, sents in (("old", old), ("new", new)):
        s = evaluate(gold, sents)["all"]
        print(f"  {name}  UAS {s.uas:6.2f}  LAS {s.las:6.2f}")


def cmd_convert_features(argv):
    from maltpy.features.spec import convert_maltparser_xml
    from maltpy.formats.conll import atomic_output
    p = argparse.ArgumentParser(prog="maltpy convert-features",
                                description="Convert a MaltParser XML feature model to maltpy YAML.")
    p.add_argument("xml", help="MaltParser feature model (.xml)")
    p.add_argument("-o", help="output YAML file (default: standard output)")
    a = p.parse_args(argv)
    try:
        with open(a.xml, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MaltpyError(f"{a.xml}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise MaltpyError(f"{a.xml}: not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start}); "
                          "expected a MaltParser XML feature model") from None
    models = convert_maltparser_xml(text, a.xml)
    with atomic_output(a.o) as out:
        for k, m in enumerate(models):
            if k:
                out.write("---\n")
            out.write(m.to_yaml(f"converted from {os.path.basename(a.xml)} by maltpy convert-features"))


def cmd_experiment(argv):
    from maltpy.experiments.runner import (markdown_tables, parse_experiment_args, parse_treebank_args,
                                           run_experiments)
    p = argparse.ArgumentParser(
        prog="maltpy experiment",
        description="Train and evaluate every configuration on every treebank; print (or write) "
                    "Markdown tables shaped like Nivre (2008) Tables 3 and 4.",
        epilog="example: maltpy experiment ../shared/data/ud/*/train.conllu -a nivreeager covnonproj "
               "--config PP-E='-a nivreeager -pp head' -o docs/results.md")
    p.add_argument("train", nargs="+", help="training files; the language is the directory name")
    p.add_argument("-a", "--algorithms", nargs="*", default=[], help="configurations '-a NAME' (name = algorithm)")
    p.add_argument("--config", action="append", default=[], metavar="NAME=FLAGS",
                   help="a named configuration of MaltParser flags, e.g. PP-E='-a nivreeager -pp head'")
    p.add_argument("--test", action="append", default=[], metavar="LANG=FILE",
                   help="explicit test file for a language (default: hold out the last --holdout of train)")
    p.add_argument("--holdout", type=float, default=0.1, help="held-out fraction (default 0.1)")
    p.add_argument("--no-punct", action="store_true", help="score without punctuation tokens")
    p.add_argument("-j", "--jobs", type=int, default=0, help="threads for split models")
    p.add_argument("-o", metavar="FILE", help="write the Markdown tables here (default: standard output)")
    p.add_argument("--outputs", metavar="DIR", help="keep every parsed test file in DIR")
    p.add_argument("--dask", metavar="ADDRESS", help="run the (treebank x configuration) grid on a Dask cluster: "
                   "a scheduler address (tcp://host:8786) or local:N for N local worker processes; "
                   "the workers must see the treebank files (pip install \"maltpy[dask]\")")
    a = p.parse_args(argv)
    from maltpy.formats.conll import atomic_output
    a.jobs = coerce("jobs", a.jobs, "option -j")
    treebanks = parse_treebank_args(a.train, a.test)
    experiments = parse_experiment_args(a.config, a.algorithms)
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    if a.dask:
        from maltpy.integrations.dask import dask_client
        with dask_client(a.dask) as client:
            results = run_experiments(treebanks, experiments, a.holdout, a.jobs, log=log, outdir=a.outputs,
                                      client=client)
    else:
        results = run_experiments(treebanks, experiments, a.holdout, a.jobs, log=log, outdir=a.outputs)
    text = markdown_tables(results, experiments, punctuation=not a.no_punct)
    with atomic_output(a.o) as out:
        out.write(text)


def cmd_combine(argv):
    from maltpy.formats.conll import detect_format, read_conll, write_conll
    from maltpy.transform.combine import CRITERIA, combine_sentences
    p = argparse.ArgumentParser(
        prog="maltpy combine",
        description="Combine a left-to-right and a right-to-left parse of the same file (Fernández-González, "
                    "Gómez-Rodríguez & Vilares): each word takes its head and label from the first parser "
                    "when its position (or the first parser's arc length) is at most PARAM, else from the "
                    "second; a sentence whose result has a cycle keeps the left-to-right parse.",
        epilog="example: maltpy combine ltr.conll rtl.conll --criterion position --param 7 -o combined.conll")
    p.add_argument("ltr", help="the left-to-right parse")
    p.add_argument("rtl", help="the right-to-left parse (-dir rtl) of the same text")
    p.add_argument("--criterion", choices=CRITERIA, default="position",
                   help="position: the word's position; length: the first parser's arc length (default position)")
    p.add_argument("--param", type=_non_negative_int, required=True,
                   help="the largest position/length the first parser decides (0: the second parser everywhere)")
    p.add_argument("--first", choices=("ltr", "rtl"), default="ltr",
                   help="which parse is the first parser (default ltr: ARC+REV in the paper; rtl: REV+ARC)")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of both files")
    p.add_argument("-ic", dest="charset", default="UTF-8", metavar="CHARSET",
                   help="character encoding of the files (default UTF-8; e.g. ISO-8859-1)")
    p.add_argument("-o", metavar="FILE", help="output file (default: standard output)")
    a = p.parse_args(argv)
    fmt = a.fmt or detect_format(a.ltr)
    ltr = _read_for_good(read_conll, a.ltr, fmt, need_heads=True)
    rtl = _read_for_good(read_conll, a.rtl, a.fmt or detect_format(a.rtl), need_heads=True)
    out, fallbacks = combine_sentences(ltr, rtl, a.criterion, a.param, a.first, source=(a.ltr, a.rtl))
    write_conll(out, a.o)
    print(f"maltpy: combined {len(out)} sentences ({a.criterion} <= {a.param}, {a.first} first); "
          f"{fallbacks} kept the left-to-right parse because of a cycle", file=sys.stderr)


def cmd_info(argv):
    p = argparse.ArgumentParser(
        prog="maltpy info",
        description="What a model file holds: the settings it was trained with (those that differ from "
                    "the defaults, as flags), learner, feature model, labels, the training data's figures, "
                    "and with -dir both the combination the cross-validation chose. Loading checks the "
                    "whole file, so this also tells whether it is intact.",
        epilog="example: maltpy info model.mpz; maltpy info model.mpz --features > features.yaml")
    p.add_argument("model", help="a model file (.mpz is added when there is no extension)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--features", action="store_true",
                      help="print the feature model (YAML, usable with -F; with -dir both, the left-to-right "
                           "parser's)")
    what.add_argument("--json", action="store_true", help="print everything as JSON")
    a = p.parse_args(argv)
    from maltpy.parsing.parser import Parser
    path = _model_path(a.model)
    parser = Parser.load(path)
    if a.features:
        sys.stdout.write(parser.feature_text)
        return
    info = parser.describe()
    if a.json:
        import json
        print(json.dumps(info, indent=2, ensure_ascii=False))
        return
    print(f"model        {path}"
          + (f" (written by maltpy {info['written_by']})" if info["written_by"] else ""))
    _print_description(info)


def _print_description(info, indent=""):
    """``maltpy info``'s lines for one parser (and its right-to-left parser with -dir both)."""
    changed = " ".join(f"{flag_of(k)} {str(v).lower() if isinstance(v, bool) else v}"
                       for k, v in info["settings"].items())
    t = info["training"]
    lines = [
        ("parser", f"{info['algorithm']}" + (" (constituent parser: bracketed trees out)" if info["constituents"] else "")),
        ("settings", changed or "the defaults"),
        ("format", info["format"]),
        ("learner", f"{info['learner']} {info['learner_options']}".strip()),
        ("features", f"{info['feature_model']['name']}: {info['feature_model']['features']} features"
                     + ("" if indent else " (maltpy info --features prints them)")),
        ("labels", f"{len(info['labels'])}: {' '.join(info['labels'][:12])}{' ...' if len(info['labels']) > 12 else ''}"),
        ("classes", f"{info['classes']} in {info['split_models']} split model(s)"),
    ]
    # the figures a model file keeps for people: any of them may be absent (older files)
    trained = [f"{t[k]:,.0f} {what}" for k, what in (("sentences", "sentences"), ("tokens", "tokens"),
                                                      ("instances", "decisions"), ("features", "distinct features"),
                                                      ("oracle_errors", "trees the oracle could not rebuild"))
               if t.get(k)]
    if "seconds" in t:
        trained.append(f"{t['seconds']:.1f} s")
    if trained:
        lines.append(("training", ", ".join(trained)))
    c = info.get("combination")
    if c:
        chosen = f"{c['criterion']} <= {c['param']}, {c['first']} first"
        if {"sentences", "las", "las_ltr", "las_rtl"} <= set(c):
            chosen += (f", chosen by cross-validation on {c['sentences']:,.0f} sentences: LAS {c['las']:.2f} "
                       f"(left to right {c['las_ltr']:.2f}, right to left {c['las_rtl']:.2f})")
        if "combination_seconds" in t:
            chosen += f"; {t['combination_seconds']:.1f} s"
        lines.append(("combination", chosen))
    for key, value in lines:
        print(f"{indent}{key:<12} {value}")
    if c:
        print(f"{indent}right-to-left parser:")
        _print_description(info["right_to_left"], indent + "  ")


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value}: use 0 or more (positions and arc lengths start at 1)")
    return value


SUBCOMMANDS = {"eval": cmd_eval, "combine": cmd_combine, "draw": cmd_draw, "convert-features": cmd_convert_features,
               "fragmentation": cmd_fragmentation, "experiment": cmd_experiment, "info": cmd_info}


def _choose_input(settings, mode, given_input, config_path):
    """Which file a mode reads: -i, else the configuration's learn_input/parse_input. A plain
    ``input:`` in a configuration is a learning input for -m learn (and the file tools) but
    never read by -m parse, so that parsing cannot read a training file by accident."""
    if given_input:
        return
    if mode == "learn":
        settings.input = settings.learn_input or settings.input
    elif mode == "parse":
        if settings.parse_input:
            settings.input = settings.parse_input
        elif settings.input:
            raise MaltpyError(f"{config_path}: 'input: {settings.input}' is ambiguous for parsing (it is "
                              "usually the training file): give -i FILE, '-i -' for standard input, or "
                              "'parse_input:' in the configuration")


#: Flags whose value may itself start with '-' (learner options are svm-train/train flags).
DASH_VALUE_FLAGS = ("-lo",)
NEGATIVE_NUMBER = re.compile(r"-[0-9]+(\.[0-9]*)?")


def _attach_dash_values(argv):
    """``-lo "-s 0"`` as MaltParser takes it: argparse would read "-s 0" as a flag, so the
    value is attached (``-lo=-s 0``). So is a negative number after a setting's flag (``-j -2``),
    which argparse would take for a flag too (there is a ``-2pr``), so that the setting says
    what is wrong with it."""
    value_flags = {name for _, flag in cli_flags() for name in (flag.flag, flag.long) if name}
    out, k = [], 0
    while k < len(argv):
        if k + 1 < len(argv) and (argv[k] in DASH_VALUE_FLAGS or (
                argv[k] in value_flags and NEGATIVE_NUMBER.fullmatch(argv[k + 1]))):
            out.append(f"{argv[k]}={argv[k + 1]}")
            k += 2
        else:
            out.append(argv[k])
            k += 1
    return out


#: the variables OpenBLAS reads for its thread count, in its order
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _single_threaded_blas():
    """One BLAS thread for the command, unless the user chose a number. maltpy runs its own threads
    and calls BLAS only on small products; numpy's OpenBLAS otherwise starts a thread per core at
    import, each busy-waiting about 0.1 s of CPU time, which on a two-core machine competes with the
    parsing and learning threads (docs/benchmarks.md). Must run before numpy is imported."""
    if not any(name in os.environ for name in BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """maltpy's warnings (:class:`~maltpy.errors.MaltpyWarning`) as one line on stderr, like its
    errors, shown even with -q (they say the output is likely not what was meant); others as
    Python shows them."""
    from maltpy.errors import MaltpyWarning
    if issubclass(category, MaltpyWarning):
        print(f"maltpy: warning: {message}", file=sys.stderr, flush=True)
    else:
        _PYTHON_SHOWWARNING(message, category, filename, lineno, file, line)


_PYTHON_SHOWWARNING = warnings.showwarning


def main(argv=None):
    """The maltpy command. Every error a user can cause is one line on stderr and exit status 1
    (2 for usage errors, from argparse); ``--debug`` (anywhere) shows tracebacks instead."""
    if "numpy" not in sys.modules:
        _single_threaded_blas()
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    warnings.showwarning = _show_warning
    try:
        if argv and argv[0] in SUBCOMMANDS:
            SUBCOMMANDS[argv[0]](argv[1:])
            return 0
        args = _main_parser().parse_args(_attach_dash_values(argv))
        settings, config_path, explicit = _settings_from_args(args)
        settings.verbose = not args.quiet and (args.verbose or sys.stderr.isatty())
        log = _log(settings.verbose)
        mode = args.m or "parse"
        if args.dask and mode != "parse":
            raise MaltpyError(f"--dask runs -m parse (and 'maltpy experiment'), not -m {mode}")
        _choose_input(settings, mode, given_input=args.i is not None, config_path=config_path)
        if mode == "learn":
            if args.o is not None:
                raise MaltpyError(f"-m learn writes the model that -c names ({settings.model}); -o is the "
                                  "output of -m parse, -m convert, -m proj and -m deproj")
            run_learn(settings, log)
        elif mode == "parse":
            run_parse(settings, log, explicit, dask=args.dask)
        elif mode in ("proj", "deproj"):
            run_pseudo_projective(settings, log, mode)
        else:
            run_convert(settings, log)
        return 0
    except MaltpyError as e:
        if debug:
            raise
        print(f"maltpy: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("maltpy: interrupted", file=sys.stderr)
        if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
            # a scikit-learn solver that cannot be stopped: exit now rather than wait for it at
            # interpreter shutdown (no model file has been written; outputs were cleaned up)
            sys.stderr.flush()
            os._exit(130)
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = None
        except Exception:
            pass
        return 141
    except MemoryError:
        print("maltpy: error: out of memory", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug in maltpy, not the user's doing
        if debug:
            raise
        what = " ".join(f"{type(e).__name__}: {e}".split())[:300]
        print(f"maltpy: internal error ({what}); please report it with the command that caused it "
              "(--debug shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
