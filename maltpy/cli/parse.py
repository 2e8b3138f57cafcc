"""``maltpy -m parse``: parse a file, a stream, several files or a Dask cluster's share with a model."""
from __future__ import annotations

import os
import time

from maltpy.cli.common import _detect, _in_output_charset, _input, _read_for_good
from maltpy.config import PARSE_SETTINGS, READ_WRITE_SETTINGS, RUN_SETTINGS, flag_of
from maltpy.errors import InputFormatError, MaltpyError


#: parse-time settings a model keeps unless the command line names them: its beam (width, scores,
#: margin), and its tree constraint (MaltParser keeps a model's process options when it parses;
#: -nt false turns it off)
MODEL_DEFAULTS = ("beam_width", "beam_scores", "beam_margin", "enforce_tree")


def parse_overrides(settings, explicit) -> dict:
    """The parse-time settings a parse gives the model: every one, except those the model keeps
    unless the command line names them (a model trained with a beam parses with its width, one
    learned with -nt true with the tree constraint)."""
    return {k: getattr(settings, k) for k in PARSE_SETTINGS if k not in MODEL_DEFAULTS or k in explicit}


def run_parse(settings, log, explicit, dask=None, mode="parse"):
    """``-m parse`` (``-m tag``: a model file's tokenizer and taggers only; ``-m tokenize``: its
    tokenizer only), on one input or on several files (``-i 'glob' -o outdir/``, ``--dask``)."""
    if not settings.model:
        raise MaltpyError("no model file: give -c MODEL or 'model:' in the configuration")
    # what the model's components take at parse time (-j and progress apart)
    taken = {**parse_overrides(settings, explicit), "retag": settings.retag,
             **({"ensemble_margin": settings.ensemble_margin} if "ensemble_margin" in explicit else {})}
    overrides = {**taken, "verbose": settings.verbose, "jobs": settings.jobs}
    ignored = sorted(k for k in explicit if k not in overrides and k not in RUN_SETTINGS
                     and k not in READ_WRITE_SETTINGS)
    if ignored:   # MaltParser ignores them silently; a user who typed them should know
        import sys
        flags = ", ".join(flag_of(k) for k in ignored)
        print(f"maltpy: note: {flags} {'is' if len(ignored) == 1 else 'are'} fixed when learning: the model's "
              f"{'value is' if len(ignored) == 1 else 'values are'} used", file=sys.stderr, flush=True)
    if mode == "tokenize" and settings.input_format not in (None, "text"):
        raise MaltpyError(f"-m tokenize reads raw text (-if text), not {settings.input_format}")

    def output_extensions():
        # trees written (-of, else a parser of trees' own): each output named for them (.export,
        # .mrg); words a line (-of horizontal, vertical) as .txt
        from maltpy.formats.plain import PLAIN_FORMATS
        if settings.output_format in PLAIN_FORMATS:
            return (".txt",)
        if mode != "parse" or settings.output_format not in (None,) + tuple(TREE_EXTENSIONS):
            return None
        return TREE_EXTENSIONS.get(settings.output_format or _tree_kind(settings.model))
    pairs = _file_pairs(settings.input, settings.output, dask, output_extensions)
    from maltpy.formats.charset import is_utf8
    out_charset = settings.output_charset or settings.input_charset
    if pairs is not None:
        if not (is_utf8(settings.input_charset) and is_utf8(out_charset)):
            raise MaltpyError("-ic/-oc other than UTF-8 take one input and one output file")
        return _parse_files(settings, pairs, dask, log, taken, mode)
    from maltpy.output import check_output_path
    check_output_path(settings.output)
    t0 = time.perf_counter()
    from maltpy.components import COMPONENTS, TokenizerComponent, load as load_pipeline
    from maltpy.components.pipeline import MODE_COMPONENTS
    # what the model file holds, run in order (-m tag leaves its parser unread; -m tag and -m parse
    # leave its tokenizer unread where the input is not raw text; -m tokenize all but its tokenizer)
    text = _may_be_text(settings)
    only = MODE_COMPONENTS[mode]
    if not text and mode != "tokenize":
        only = tuple(name for name in (only or COMPONENTS) if name != TokenizerComponent.name)
    # lives until the command ends
    pipeline = _read_for_good(load_pipeline, settings.model, only, **overrides).for_mode(mode, settings.model)
    if mode == "parse" and pipeline.parser is None:
        _note_no_parser(settings.model, pipeline)
    _note_idle_margin(settings.model, pipeline, overrides)
    from maltpy.formats.plain import PLAIN_FORMATS
    from maltpy.formats.text import TEXT_FORMATS
    given_format = "text" if mode == "tokenize" else settings.input_format
    if len(pipeline.components) > 1 or pipeline.parser is None or given_format in PLAIN_FORMATS + TEXT_FORMATS \
            or settings.output_format in PLAIN_FORMATS:
        from maltpy.config import threads
        # by the file's name, not by the stream -ic may make of it
        fmt = given_format or (pipeline.format_of(settings.input) if settings.input not in (None, "-") else None)

        out_fmt = settings.output_format
        if out_fmt is None and pipeline.parser is not None and pipeline.parser.reduction is not None:
            out_fmt = _output_format(settings.output, pipeline.parser)     # trees, by the output's name

        def run(target):
            return pipeline.parse_file(_input(settings), target, fmt, out_fmt,
                                       progress=settings.verbose, jobs=threads(settings.jobs),
                                       lines=settings.presegmented)
        try:
            n_sentences, n_tokens = _in_output_charset(settings, run)
        except InputFormatError as e:
            # an input with no name (standard input) that says it is raw text was read as CoNLL
            if fmt is None and pipeline.tokenizer is not None:
                raise InputFormatError(e.path, e.line, e.reason + "; read as CoNLL: for raw text, give -if text") \
                    from None
            raise _text_read_as_conll(settings, pipeline, e) from None
        wall = time.perf_counter() - t0
        log(f"ran {len(pipeline.components)} components ({', '.join(c.name for c in pipeline.components)}) on "
            f"{n_sentences} sentences, {n_tokens} tokens in {wall:.2f} s")
        return
    parser = pipeline.parser
    fmt = _detect(settings.input, settings.input_format) or parser.format
    # read, parsed and written chunk by chunk: memory stays flat, a pipe sees output early,
    # and a file appears only when everything is written
    out_fmt = settings.output_format or _output_format(settings.output, parser)
    try:
        n_sentences, n_tokens = _in_output_charset(
            settings, lambda target: parser.parse_file(_input(settings), target, fmt, out_fmt,
                                                       progress=settings.verbose))
    except InputFormatError as e:
        raise _text_read_as_conll(settings, pipeline, e) from None
    wall = time.perf_counter() - t0
    log(f"parsed {n_sentences} sentences, {n_tokens} tokens in {wall:.2f} s "
        f"({n_tokens / max(wall, 1e-9):,.0f} tokens/s, loading the model included)")


def _text_read_as_conll(settings, pipeline, error):
    """``error`` with what to give where a .txt file, read as CoNLL since the model has no
    tokenizer, is not CoNLL (words a line, or raw text)."""
    from maltpy.components.pipeline import names_text
    if settings.input_format is not None or pipeline.tokenizer is not None or settings.input in (None, "-") \
            or not names_text(settings.input) or "tab-separated columns" not in error.reason:
        return error
    return InputFormatError(error.path, error.line, error.reason + "; a .txt file is read as CoNLL by a model "
                            "without a tokenizer: give -if horizontal for words between spaces, a sentence a line "
                            "(-if vertical: a word a line); raw text needs a model learned with --tokenizer")


def _note_no_parser(model, pipeline):
    """Say that -m parse of a model learned with --parser false writes no trees."""
    import sys
    print(f"maltpy: note: {model} has no parser (learned with --parser false): -m parse runs its "
          f"{' and '.join(c.name for c in pipeline.components)} only, and writes no trees", file=sys.stderr, flush=True)


def _note_idle_margin(model, pipeline, overrides):
    """Say that --ensemble-margin does nothing where no tagger of the model is an ensemble."""
    from maltpy.components import TaggerComponent
    if "ensemble_margin" in overrides and not any(isinstance(c, TaggerComponent) and c.tagger.ensemble > 1
                                                  for c in pipeline.components):
        import sys
        print(f"maltpy: note: --ensemble-margin does nothing here: {model} has no tagger ensemble (learned with "
              f"--tagger-ensemble K)", file=sys.stderr, flush=True)


def _may_be_text(settings) -> bool:
    """Whether the input may be raw text for a tokenizer: ``-if text``, or no ``-if`` and a .txt
    file or standard input (as :meth:`Pipeline.format_of` decides)."""
    from maltpy.components.pipeline import names_text
    if settings.input_format is not None:
        return settings.input_format == "text"
    return settings.input in (None, "-") or names_text(settings.input)


def _output_format(output, parser):
    """-of when it is not given: a constituent parser writes bracketed trees unless the output is
    named .conll/.conllu; a dependency parser cannot write them."""
    named = output not in (None, "-") and str(output).lower().endswith(
        (".mrg", ".ptb", ".conll", ".conllu", ".export", ".discbracket"))
    fmt = _detect(output, None) if named else None
    if parser.reduction is not None:
        discontinuous = parser.reduction.kind == "discontinuous"
        if (fmt == "ptb") if discontinuous else (fmt in ("export", "discbracket")):
            raise MaltpyError(f"{output}: this model parses {'discontinuous' if discontinuous else 'bracketed'} "
                              f"trees; write {'.export or .discbracket' if discontinuous else '.mrg'} (or CoNLL)")
        return fmt or ("export" if discontinuous else "ptb")
    if fmt in ("ptb", "export", "discbracket"):
        raise MaltpyError(f"{output}: this model parses dependencies; constituent trees come from a constituent "
                          "parser (trained on a .mrg or .export file)")
    return None


def _file_pairs(pattern, output, dask, output_extensions=None):
    """(input, output) paths when -m parse (tag, tokenize) runs on several files (a glob pattern, an output
    directory, or --dask); None for one input and one output. ``output_extensions()``: the
    extensions of what is written (trees, words a line), which name the outputs in a directory
    (:func:`_output_name`), or None: CoNLL."""
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
    extensions = output_extensions() if output_extensions is not None else None
    names = [_output_name(os.path.basename(src), extensions) for src in inputs]
    pairs = [(src, os.path.join(output, name)) for src, name in zip(inputs, names)]
    for src, dst in pairs:
        if os.path.exists(dst) and os.path.samefile(src, dst):
            raise MaltpyError(f"{dst}: the output would replace its input; choose another output directory")
    if len(set(names)) < len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise MaltpyError(f"several inputs would be written as {', '.join(twice)}: their outputs would collide "
                          f"in {output}")
    return pairs


#: the extensions of files of trees, by output format and by a parser's kind of trees (a
#: reduction's ``kind``): the names an output keeps (the first is given to any other input's name)
TREE_EXTENSIONS = {"export": (".export",), "discbracket": (".discbracket",), "ptb": (".mrg", ".ptb"),
                   "discontinuous": (".export", ".discbracket"), "constituent": (".mrg", ".ptb")}


def _output_name(name: str, extensions=None) -> str:
    """An output file's name in an output directory: the input's, but a text file's (.txt: raw
    text or words a line) is written as the CoNLL-U it becomes (.conllu); trees and words a line
    (``extensions``: :data:`TREE_EXTENSIONS`, ``.txt``) are named .export (.mrg, .txt, ...)
    unless the input's name already says them."""
    from maltpy.components.pipeline import names_text
    stem, ext = os.path.splitext(name)
    if extensions is not None:
        return name if ext.lower() in extensions else stem + extensions[0]
    return stem + ".conllu" if names_text(name) else name


def _tree_kind(model):
    """"discontinuous" or "constituent" for a model whose parser writes trees, else None."""
    from maltpy.components.pipeline import Pipeline
    parser = _read_for_good(Pipeline.load, model, ("parser",)).parser
    return parser.reduction.kind if parser is not None and parser.reduction is not None else None


def _parse_files(settings, pairs, dask, log, overrides, mode="parse"):
    t0 = time.perf_counter()
    from maltpy.components.pipeline import MODE_COMPONENTS
    # -m tokenize reads every file as raw text, whatever its name
    input_format = "text" if mode == "tokenize" else settings.input_format
    if dask is not None:
        from maltpy.integrations.dask import dask_client, parse_files
        with dask_client(dask) as client:
            log(f"running -m {mode} on {len(pairs)} file(s) on {dask} "
                f"({len(client.scheduler_info()['workers'])} workers)")
            results = parse_files(client, settings.model, [(src, dst, _written_format(settings, dst))
                                                           for src, dst in pairs], input_format,
                                  settings.output_format, log=log, on_error=_failed if len(pairs) > 1 else None,
                                  mode=mode, **overrides)
    else:
        from maltpy.components import load as load_pipeline
        pipeline = _read_for_good(load_pipeline, settings.model, MODE_COMPONENTS[mode], verbose=settings.verbose,
                                  jobs=settings.jobs, **overrides).for_mode(mode, settings.model)
        if mode == "parse" and pipeline.parser is None:
            _note_no_parser(settings.model, pipeline)
        _note_idle_margin(settings.model, pipeline, overrides)
        from maltpy.config import threads
        results = []
        for src, dst in pairs:
            try:
                n_sentences, n_tokens = pipeline.parse_file(src, dst, input_format, _written_format(settings, dst),
                                                            progress=settings.verbose, jobs=threads(settings.jobs),
                                                            lines=settings.presegmented)
            except InputFormatError as e:    # a bad input file is reported, and the others go on
                if len(pairs) == 1:
                    raise
                results.append(_failed(src, e))
                continue
            results.append((src, dst, n_sentences, n_tokens))
            log(f"{src} -> {dst}: {n_sentences} sentences, {n_tokens} tokens")
    failed = [r for r in results if r[1] is None]
    results = [r for r in results if r[1] is not None]
    wall = time.perf_counter() - t0
    n_tokens = sum(r[3] for r in results)
    done = {"parse": "parsed", "tag": "tagged", "tokenize": "tokenized"}[mode]
    log(f"{done} {len(results)} file(s), {sum(r[2] for r in results)} sentences, {n_tokens} tokens in {wall:.2f} s "
        f"({n_tokens / max(wall, 1e-9):,.0f} tokens/s)")
    if failed:
        raise MaltpyError(f"{len(failed)} of {len(failed) + len(results)} files could not be {done} "
                          f"({', '.join(r[0] for r in failed[:3])}{', ...' if len(failed) > 3 else ''}: see above); "
                          "the others were written")


def _written_format(settings, dst):
    """The format an output file of several is written in: -of, else trees by the name a parser
    of trees gave it (:func:`_output_name`), else the input's (None)."""
    from maltpy.formats.conll import detect_format
    if settings.output_format is not None:
        return settings.output_format
    fmt = detect_format(dst)
    return fmt if fmt in TREE_EXTENSIONS else None


def _failed(src, error):
    """A file of a batch that could not be parsed: said on one line now (the batch goes on, and
    its exit status says that a file failed); its result row has no output."""
    import sys
    print(f"maltpy: error: {error} (no output for {src}; the other files go on)", file=sys.stderr, flush=True)
    return (src, None, 0, 0)
