"""maltpy: MaltParser-style transition-based dependency parsing, compiled with Cython.

>>> import maltpy
>>> parser = maltpy.train("train.conll", algorithm="nivreeager")
>>> parser.save("model.mpz")
>>> trees = maltpy.load("model.mpz").parse(maltpy.read_conll("test.conll"))
>>> maltpy.draw(trees[:5])   # HTML (a Jupyter notebook shows the trees)
>>> for tree in parser.parse(maltpy.iter_conll("corpus.conll")): ...   # streaming, flat memory
"""
from maltpy.version import __version__  # noqa: F401


def _check_build():
    """A clear message, as scikit-learn gives, when Python finds this package's source folder (it
    was started in a clone of maltpy) whose compiled extensions were never built: without it,
    ``import maltpy`` works and the first parse fails on a missing ``maltpy.features.extract``."""
    import os
    import sys
    from importlib.machinery import EXTENSION_SUFFIXES
    here = os.path.dirname(os.path.abspath(__file__))
    if any(os.path.exists(os.path.join(here, "search", "step" + suffix)) for suffix in EXTENSION_SUFFIXES):
        return
    message = (f"maltpy is being imported from its source folder ({here}), whose compiled extensions are not "
               "built: Python started in the clone's folder finds the source before the installed maltpy. "
               "Start Python in another folder (the maltpy command works anywhere), or build the extensions here "
               "with 'python setup.py build_ext --inplace'.")
    if sys.argv[:1] == ["-m"]:   # python -m maltpy: one line, as the command's errors are
        print(f"maltpy: error: {message}", file=sys.stderr)
        raise SystemExit(1)
    raise ImportError(message)


_check_build()


def load(path, **overrides):
    """Load a model file: a parser's (see :meth:`maltpy.parsing.parser.Parser.load`) gives its
    :class:`~maltpy.parsing.parser.Parser`, one of several components a
    :class:`~maltpy.components.Pipeline` that runs them in order (both have ``parse`` and
    ``parse_file``). ``overrides``: parse-time settings."""
    from maltpy.components import load as load_pipeline
    pipeline = load_pipeline(path, **overrides)
    if len(pipeline.components) == 1 and pipeline.parser is not None:
        return pipeline.parser
    return pipeline


def train(treebank, **settings):
    """Train a parser on a CoNLL file (path) or a list of gold sentences, with the YAML settings.
    A bracketed-tree file (``.mrg``, or ``input_format="ptb"``) trains a constituent parser.
    ``tagger="upos,xpos,feats,lemma"`` trains a tagger and lemmatizer too and returns both as a
    :class:`~maltpy.components.Pipeline` (``tagger_folds=K``: the parser learns from jackknifed tags;
    a nivreeager parser whose learner, options, oracle, features and beam are left unset learns as
    its system's ``pipeline_settings`` say: the perceptron with the dynamic oracle and NivreEagerMorph);
    ``tokenizer=True`` (from CoNLL-U) a tokenizer in front of them, so that the pipeline's
    ``parse_text(str)`` reads raw text."""
    from maltpy.formats.conll import detect_format, read_conll
    from maltpy.parsing.parser import Parser
    parser = Parser(**settings)
    if isinstance(treebank, (str, bytes)) or hasattr(treebank, "__fspath__"):
        fmt = parser.settings.input_format or detect_format(str(treebank))
        if fmt == "ptb":
            from maltpy.formats.ptb import read_ptb
            from maltpy.parsing.constituent import fit_constituent_parser
            return fit_constituent_parser(parser, read_ptb(treebank))
        from maltpy.parsing.training import takes_partial_trees
        sentences = read_conll(treebank, fmt, need_heads="partial" if takes_partial_trees(parser.settings) else True)
    else:
        sentences, fmt = list(treebank), parser.settings.input_format   # fit: else the sentences' format
    if parser.settings.tagger or parser.settings.tokenizer:
        if parser.settings.tokenizer and (fmt or "conllu") != "conllu":
            from maltpy.errors import MaltpyError
            raise MaltpyError("tokenizer=True learns from a CoNLL-U treebank's text (# text, SpaceAfter=No)")
        from maltpy.components.training import train_pipeline
        from maltpy.config import pipeline_parser
        fmt = fmt or next((s.format for s in sentences if getattr(s, "format", None)), None) or "conllx"
        return train_pipeline(pipeline_parser(parser.settings, settings), sentences, fmt)
    return parser.fit(sentences, fmt=fmt)


def __getattr__(name):
    # light top-level names without importing the compiled modules at import time
    if name in ("read_conll", "iter_conll", "write_conll", "Sentence"):
        from maltpy.formats import conll
        return getattr(conll, name)
    if name == "draw":
        from maltpy.visual.trees import draw
        return draw
    if name == "Parser":
        from maltpy.parsing.parser import Parser
        return Parser
    raise AttributeError(f"module 'maltpy' has no attribute {name!r}")
