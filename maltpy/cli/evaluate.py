"""``maltpy eval``: attachment scores (and UD's for CoNLL-U), EVALB's for bracketed trees, reports."""
from __future__ import annotations

import io
import os
import sys

from maltpy.cli.common import ArgumentParser, _decoded, _read_for_good
from maltpy.errors import MaltpyError


#: the line between maltpy's figures and eval.py's in the report of CoNLL-U files
OFFICIAL_NOTE = "(above: maltpy's figures, whole labels as written, nsubj:pass apart from nsubj)"


def cmd_eval(argv):
    from maltpy.evaluation.scores import evaluate, format_scores
    from maltpy.formats.conll import detect_format, read_conll
    p = ArgumentParser(
        prog="maltpy eval",
        description="Attachment scores of SYSTEM against GOLD (LAS, UAS, LA; with all tokens and without "
                    "punctuation, as eval.pl); for CoNLL-U also the CoNLL 2018 shared task's figures (UD's "
                    "eval.py: LAS on universal relations, CLAS, MLAS, BLEX; words aligned by their characters "
                    "where they differ, as from raw text, with Tokens, Sentences and Words); EVALB's figures for "
                    "bracketed trees and disco-dop's for discontinuous ones (.export, .discbracket); optionally "
                    "a MaltEval-style HTML report with plots.",
        epilog="example: maltpy eval gold.conll out.conll --compare out2.conll --report report.html "
               "--plots plots/")
    p.add_argument("gold")
    p.add_argument("system")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu", "export", "discbracket"),
                   help="format of both files (default: by their names; .export and .discbracket files are "
                        "discontinuous trees, scored as disco-dop scores them)")
    p.add_argument("-ic", dest="charset", default="UTF-8", metavar="CHARSET",
                   help="character encoding of the files (default UTF-8; e.g. ISO-8859-1)")
    p.add_argument("--undirected", action="store_true",
                   help="also ULAS and UUAS (a gold arc found in either direction, with / without its label) "
                        "and the direction errors LDE = ULAS - LAS and UDE = UUAS - UAS")
    p.add_argument("--constituents", action="store_true",
                   help="bracketed trees (.mrg): EVALB's labelled recall, precision, F-measure, complete match, "
                        "crossing brackets and tagging accuracy with COLLINS.prm, for all sentences and those of "
                        "at most 40 words (the default for .mrg and .ptb files)")
    p.add_argument("--param", metavar="FILE.prm",
                   help="with --constituents on discontinuous trees (.export, .discbracket): an EVALB-style "
                        "parameter file as disco-dop reads it (default: disco-dop's proper.prm: root, punctuation "
                        "and function tags left out, ADVP = PRT)")
    p.add_argument("--disc-only", action="store_true",
                   help="with discontinuous trees: score the discontinuous constituents only (disco-dop's "
                        "--disconly)")
    p.add_argument("--cutoff-len", type=int, metavar="N",
                   help="with discontinuous trees: the second column's length bound (default 40, the "
                        "parameter file's CUTOFF_LEN)")
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
    a.stdin = None      # standard input's bytes, once read (a file named - may be read twice)
    from maltpy.formats.export import DISCONTINUOUS_FORMATS
    from maltpy.formats.ptb import is_ptb_path
    discontinuous = a.fmt in DISCONTINUOUS_FORMATS or any(
        detect_format(path) in DISCONTINUOUS_FORMATS for path in (a.gold, a.system))
    if discontinuous:
        return _eval_discontinuous(a)
    if a.param or a.disc_only or a.cutoff_len is not None:
        p.error("--param, --disc-only and --cutoff-len score discontinuous trees (.export, .discbracket)")
    if a.constituents or (is_ptb_path(a.gold) and is_ptb_path(a.system)):
        return _eval_constituents(a)
    fmt = a.fmt or detect_format(a.gold if a.gold != "-" else a.system)    # standard input has no name
    if not (a.compare or a.report or a.plots) and _eval_streamed(a, fmt):
        return

    def read(path, need_heads=True):
        return _read_for_good(read_conll, _decoded(_source(a, path), a.charset), fmt, need_heads=need_heads)
    if fmt == "conllu":     # a system's words may differ from the gold's (from raw text): eval.py aligns them
        gold, system = read(a.gold, False), read(a.system, False)
        # the same words with trees: word k against word k (and maltpy's own figures); else eval.py's way
        if not _same_words(gold, system) or any(r[6] == "_" for s in system for r in s.rows):
            return _eval_aligned(a, gold, system)
    gold = read(a.gold)
    systems = [(os.path.basename(a.system), read(a.system))]
    if a.compare:
        systems.append((os.path.basename(a.compare), read(a.compare)))
        if systems[0][0] == systems[1][0]:
            systems = [(a.system, systems[0][1]), (a.compare, systems[1][1])]
    # scores first: a mismatch between the files stops here with its message
    scores = [evaluate(gold, s, _shown(a.gold), _shown(name)) for name, s in systems]
    comparison = None
    if a.compare:
        from maltpy.evaluation.significance import compare, format_comparison
        comparison = compare(gold, systems[0][1], systems[1][1], a.rounds)
        print(format_comparison(comparison, systems[0][0], systems[1][0]))
    else:
        print(format_scores(scores[0], undirected=a.undirected))
    if fmt == "conllu":
        from maltpy.evaluation.official import format_official, official_scores, official_tag_scores
        print(OFFICIAL_NOTE)
        for name, system in systems:
            if len(systems) > 1:
                print(name)
            print(format_official(official_scores(gold, system), official_tag_scores(gold, system)))
    if a.report or a.plots:
        # the report's test counts the same tokens as its tables: reuse the printed one only then
        _write_report(a, gold, systems, comparison if not a.no_punct else None)


def _shown(path: str) -> str:
    """A file's name in messages: standard input's is ``<stdin>``, as the readers call it."""
    return "<stdin>" if path == "-" else path


def _source(a, path):
    """What a reader reads for ``path``: the path, or for ``-`` standard input's bytes, read once
    and kept, since a file may be read twice (CoNLL-U: its words, then its trees)."""
    if path != "-":
        return path
    if a.stdin is None:
        from maltpy.formats.conll import standard_input
        a.stdin = standard_input().read()
    stream = io.BytesIO(a.stdin)
    stream.name = "<stdin>"
    return stream


def _eval_streamed(a, fmt) -> bool:
    """The figures of two files of the same words with trees, read side by side a thousand
    sentences at a time (flat memory, each file read once), printed as the whole files' are.
    False, having printed nothing, at anything else (words that differ, a tree missing, a damaged
    line): the whole files are then read as before, which scores them another way or says what is
    wrong and where."""
    from itertools import zip_longest

    from maltpy.acyclic import acyclic
    from maltpy.chunks import chunked
    from maltpy.evaluation.official import format_official, official_scores, official_tag_scores
    from maltpy.evaluation.scores import evaluate, format_scores
    from maltpy.formats.conll import iter_conll
    from maltpy.progress import progress_bar
    totals = None       # maltpy's figures, and for CoNLL-U eval.py's and its tag figures: name -> counts
    bar = progress_bar(None, "scoring", True)       # in a terminal only
    try:
        with acyclic():
            pairs = zip_longest(iter_conll(_decoded(_source(a, a.gold), a.charset), fmt, need_heads=True),
                                iter_conll(_decoded(_source(a, a.system), a.charset), fmt, need_heads=True))
            for part in chunked(pairs, 1000):
                gold, system = [g for g, _ in part], [s for _, s in part]
                if None in gold or None in system or (fmt == "conllu" and not _same_words(gold, system)):
                    return False
                if bar:
                    bar.update(len(part))
                figures = [evaluate(gold, system)]
                if fmt == "conllu":
                    figures += [official_scores(gold, system), official_tag_scores(gold, system)]
                if totals is None:
                    totals = figures
                    continue
                for total, more in zip(totals, figures):
                    for name, counts in more.items():
                        total[name] += counts
    except MaltpyError:
        return False
    finally:
        if bar:
            bar.close()
    if totals is None:
        return False
    print(format_scores(totals[0], undirected=a.undirected))
    if fmt == "conllu":
        print(OFFICIAL_NOTE)
        print(format_official(totals[1], totals[2]))
    return True


def _same_words(gold, system) -> bool:
    """Whether two CoNLL-U files have the same sentences of the same words (a parser's output
    of the gold file's words), so that word k is scored against word k."""
    return len(gold) == len(system) and all(
        len(g) == len(s) and all(x[1] == y[1] for x, y in zip(g.rows, s.rows)) for g, s in zip(gold, system))


def _eval_aligned(a, gold, system):
    """eval.py's figures for a system whose tokens differ from the gold's (its output from raw text)."""
    if a.compare or a.report or a.plots or a.undirected:
        raise MaltpyError(f"{a.system}: its words differ from {a.gold}'s (tokenized from text?); --compare, "
                          "--report, --plots and --undirected need the gold file's words")
    from maltpy.evaluation.aligned import aligned_scores, format_aligned
    print(f"CoNLL 2018 shared task (UD's eval.py: the two files' words aligned by their characters)")
    print(format_aligned(aligned_scores(gold, system, _shown(a.gold), _shown(a.system))))


def _eval_discontinuous(a):
    """disco-dop's bracket scores (``proper.prm`` unless --param) of discontinuous trees."""
    import dataclasses

    from maltpy.evaluation.discontinuous import BracketParams, evaluate_brackets, read_params
    from maltpy.formats.conll import detect_format
    from maltpy.formats.export import read_discbracket, read_export

    def read(path):
        fmt = a.fmt if a.fmt in ("export", "discbracket") else detect_format(path)
        reader = read_discbracket if fmt == "discbracket" else read_export
        return _read_for_good(reader, _decoded(_source(a, path), a.charset))
    params = read_params(a.param) if a.param else BracketParams()
    if a.disc_only:
        params = dataclasses.replace(params, disc_only=True)
    if a.cutoff_len is not None:
        params = dataclasses.replace(params, cutoff=a.cutoff_len)
    scores = evaluate_brackets(read(a.gold), read(a.system), params, (_shown(a.gold), _shown(a.system)))
    print(scores.summary())


def _eval_constituents(a):
    from maltpy.acyclic import acyclic
    from maltpy.evaluation.evalb import evalb, format_evalb
    from maltpy.formats.ptb import iter_ptb
    with acyclic():       # both files a piece at a time, side by side: flat memory
        result = evalb(iter_ptb(_decoded(_source(a, a.gold), a.charset), clean=False),
                       iter_ptb(_decoded(_source(a, a.system), a.charset), clean=False),
                       a.ignore_wrapper, names=(_shown(a.gold), _shown(a.system)))
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
