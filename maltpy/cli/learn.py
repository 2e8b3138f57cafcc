"""``maltpy -m learn``: train a parser (or a constituent parser on bracketed trees) and save it."""
from __future__ import annotations

import os
import time

from maltpy.cli.common import _detect, _input, _read_for_good
from maltpy.errors import MaltpyError


def run_learn(settings, log, chosen=frozenset()):
    """-m learn with ``settings``; ``chosen``: the names of the settings the user gave (flags or the
    configuration file), which a pipeline's parser defaults leave as they are."""
    from maltpy.formats.conll import read_conll
    from maltpy.parsing.parser import Parser
    if not settings.model:
        raise MaltpyError("no model file: give -c MODEL or 'model:' in the configuration")
    if not settings.parser and not (settings.tagger or settings.tokenizer):
        raise MaltpyError("--parser false learns no parser: give --tagger or --tokenizer for something to learn")
    given = _jackknife_flags(chosen)
    if not settings.parser and given:   # a user who typed it should know
        import sys
        print(f"maltpy: note: {given} jackknifes the parser's training tags; with --parser false there is "
              "no parser, and the tagger learns from every sentence", file=sys.stderr, flush=True)
    from maltpy.output import check_output_path
    from maltpy.parsing.modelfile import make_parent_directory
    # a model that cannot be saved is found out before training, not after
    make_parent_directory(settings.model)
    check_output_path(settings.model)
    fmt = _detect(settings.input, settings.input_format) or "conllx"
    from maltpy.formats.export import DISCONTINUOUS_FORMATS
    from maltpy.formats.plain import PLAIN_FORMATS
    if fmt in DISCONTINUOUS_FORMATS:      # discontinuous trees: a dependency parser of their encodings
        if settings.tokenizer:
            raise MaltpyError("--tokenizer learns from a CoNLL-U treebank's text; discontinuous trees have none")
        from maltpy.formats.export import read_discbracket, read_export
        t0 = time.perf_counter()
        doc = _read_for_good(read_export if fmt == "export" else read_discbracket, _input(settings))
        log(f"read {len(doc.sentences)} trees ({fmt}) from {settings.input or 'stdin'}")
        _tree_parser_model(settings, fmt, doc.sentences, chosen, log).save(settings.model)
        log(f"model saved to {settings.model} ({os.path.getsize(settings.model) / 1e6:.1f} MB); "
            f"learning took {time.perf_counter() - t0:.1f} s")
        return
    if fmt in PLAIN_FORMATS:
        raise MaltpyError(f"-m learn reads a treebank (conllu, conllx or ptb); {fmt} input has words only, "
                          "for -m parse and -m tag")
    t0 = time.perf_counter()
    if fmt == "ptb" and settings.tokenizer:
        raise MaltpyError("--tokenizer learns from a CoNLL-U treebank's text; bracketed trees (.mrg) have none")
    if fmt == "ptb":   # bracketed trees: a constituent parser (parsing as reduction)
        from maltpy.formats.ptb import read_ptb
        trees = _read_for_good(read_ptb, _input(settings))
        log(f"read {len(trees)} trees (ptb) from {settings.input or 'stdin'}")
        _tree_parser_model(settings, fmt, trees, chosen, log).save(settings.model)
        log(f"model saved to {settings.model} ({os.path.getsize(settings.model) / 1e6:.1f} MB); "
            f"learning took {time.perf_counter() - t0:.1f} s")
        return
    from maltpy.parsing.training import takes_partial_trees
    sentences = _read_for_good(read_conll, _input(settings), fmt,
                               need_heads="partial" if takes_partial_trees(settings) else True)
    log(f"read {len(sentences)} sentences ({fmt}) from {settings.input or 'stdin'}")
    if settings.tokenizer and fmt != "conllu":
        raise MaltpyError(f"--tokenizer learns from a CoNLL-U treebank's text (# text, SpaceAfter=No); "
                          f"{settings.input or 'the input'} is {fmt}")
    if settings.tagger or settings.tokenizer:
        _learn_pipeline(settings, sentences, fmt, log, chosen)
    else:
        Parser(settings).fit(sentences, fmt=fmt, log=log).save(settings.model)
    log(f"model saved to {settings.model} ({os.path.getsize(settings.model) / 1e6:.1f} MB); "
        f"learning took {time.perf_counter() - t0:.1f} s")



def _jackknife_flags(chosen) -> str:
    """The jackknifing flags among ``chosen`` (setting names), as a user typed them ("" for none)."""
    return " and ".join(f for name, f in (("tagger_folds", "--tagger-folds"),
                                          ("tagger_fold_ensemble", "--tagger-fold-ensemble")) if name in chosen)


def _tree_parser_model(settings, fmt, trees, chosen, log):
    """:func:`~maltpy.components.training.tree_pipeline`, with a note where ``--tagger-folds`` was
    given, which a parser of trees does not use."""
    from maltpy.components.training import tree_pipeline
    given = _jackknife_flags(chosen if settings.tagger_folds > 1 else set(chosen) - {"tagger_folds"})
    if settings.tagger and given:
        import sys
        print(f"maltpy: note: {given}: a parser of trees learns from the trees' own tags (jackknifing is for "
              "dependency treebanks)", file=sys.stderr, flush=True)
    return tree_pipeline(settings, fmt, trees, log)


def _learn_pipeline(settings, sentences, fmt, log, chosen):
    """A tokenizer, a tagger and a parser (those asked for) in one model file (the parser learns
    from gold or jackknifed tags; behind a tagger with the pipeline's parser defaults)."""
    from maltpy.components.training import train_pipeline
    from maltpy.config import flag_of, pipeline_parser
    from maltpy.systems import pipeline_settings
    parser_settings = pipeline_parser(settings, chosen)
    if parser_settings is not settings:
        shown = {k: getattr(parser_settings, k) for k in pipeline_settings(settings.algorithm)}
        log("the parser behind the tagger: " + " ".join(f"{flag_of(k)} {str(v).lower() if isinstance(v, bool) else v}"
                                                        for k, v in shown.items())
            + " (the default behind a tagger; -l liblinear gives MaltParser's)")
    if "tagger_fold_ensemble" in chosen and settings.parser and settings.tagger and parser_settings.tagger_folds <= 1:
        import sys
        print("maltpy: note: --tagger-fold-ensemble: the parser learns from the gold tags here (--tagger-folds 1), "
              "so there are no fold taggers", file=sys.stderr, flush=True)
    train_pipeline(parser_settings, sentences, fmt, log).save(settings.model)
