"""maltpy: MaltParser-style transition-based dependency parsing, compiled with Cython.

>>> import maltpy
>>> parser = maltpy.train("train.conll", algorithm="nivreeager")
>>> parser.save("model.mpz")
>>> trees = maltpy.load("model.mpz").parse(maltpy.read_conll("test.conll"))
>>> maltpy.draw(trees[:5])   # HTML (a Jupyter notebook shows the trees)
>>> for tree in parser.parse(maltpy.iter_conll("corpus.conll")): ...   # streaming, flat memory
"""
from maltpy.version import __version__  # noqa: F401


def _built(folder):
    """Whether the package folder ``folder`` holds its compiled extensions."""
    import os
    from importlib.machinery import EXTENSION_SUFFIXES
    return any(os.path.exists(os.path.join(folder, "search", "step" + suffix)) for suffix in EXTENSION_SUFFIXES)


def _installed_copy(here):
    """The folder of a built maltpy of this version further along ``sys.path`` (the one ``pip
    install .`` put in site-packages), or None."""
    import os
    import sys
    from maltpy.version import __version__ as version
    clone = os.path.dirname(here)
    for entry in sys.path:
        folder = os.path.join(os.path.abspath(entry or os.curdir), "maltpy")
        if os.path.dirname(folder) == clone or not _built(folder):
            continue
        try:
            with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
                same = f'__version__ = "{version}"' in f.read()
        except OSError:
            continue
        if same:
            return folder
    return None


def _check_build():
    """Python started in a clone of maltpy finds the source folder before the installed maltpy.
    When the source's compiled extensions were never built, the installed copy of the same
    version stands in for it (``import maltpy`` and ``python -m maltpy`` work there as anywhere
    else); without one, a clear message, as scikit-learn gives (without it, ``import maltpy``
    works and the first parse fails on a missing ``maltpy.features.extract``)."""
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    if _built(here):
        return
    installed = _installed_copy(here)
    if installed is not None:
        import importlib.util
        for name in [m for m in sys.modules if m.startswith("maltpy.")]:
            del sys.modules[name]      # what this folder's __init__ imported so far (maltpy.version)
        spec = importlib.util.spec_from_file_location("maltpy", os.path.join(installed, "__init__.py"),
                                                      submodule_search_locations=[installed])
        module = importlib.util.module_from_spec(spec)
        # the import system hands over what sys.modules holds once this __init__ ends: the installed copy
        sys.modules["maltpy"] = module
        spec.loader.exec_module(module)
        return
    message = (f"maltpy is being imported from its source folder ({here}), whose compiled extensions are not "
               "built: Python started in the clone's folder finds the source before the installed maltpy, "
               "and no built maltpy of this version is installed. Install it ('pip install .') or build the "
               "extensions here with 'python setup.py build_ext --inplace'.")
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
    A bracketed-tree file (``.mrg``, or ``input_format="ptb"``) trains a constituent parser, an
    ``.export`` or ``.discbracket`` file a discontinuous one (with ``tagger=``: behind a tagger
    learned from the trees' words and tags).
    ``tagger="upos,xpos,feats,lemma"`` trains a tagger and lemmatizer too and returns both as a
    :class:`~maltpy.components.Pipeline` (``tagger_folds=K``: the parser learns from jackknifed tags;
    a nivreeager parser whose learner, options, oracle, features and beam are left unset learns as
    its system's ``pipeline_settings`` say: the perceptron with the dynamic oracle and NivreEagerMorph);
    ``tokenizer=True`` (from CoNLL-U) a tokenizer in front of them, so that the pipeline's
    ``parse_text(str)`` reads raw text; ``parser=False`` with either: those alone, no parser."""
    from maltpy.formats.conll import detect_format, read_conll
    from maltpy.parsing.parser import Parser
    parser = Parser(**settings)
    if isinstance(treebank, (str, bytes)) or hasattr(treebank, "__fspath__"):
        fmt = parser.settings.input_format or detect_format(str(treebank))
        if fmt in ("ptb", "export", "discbracket"):      # trees: a constituent parser (and a tagger)
            from maltpy.components.training import tree_pipeline
            if parser.settings.tokenizer:
                from maltpy.errors import MaltpyError
                raise MaltpyError("tokenizer=True learns from a CoNLL-U treebank's text; trees have none")
            if fmt == "ptb":
                from maltpy.formats.ptb import read_ptb
                trees = read_ptb(treebank)
            else:
                from maltpy.formats.export import read_discbracket, read_export
                trees = (read_export if fmt == "export" else read_discbracket)(treebank).sentences
            return tree_pipeline(parser.settings, fmt, trees)
        from maltpy.parsing.training import takes_partial_trees
        sentences = read_conll(treebank, fmt, need_heads="partial" if takes_partial_trees(parser.settings) else True)
    else:
        sentences, fmt = list(treebank), parser.settings.input_format   # fit: else the sentences' format
    if not parser.settings.parser and not (parser.settings.tagger or parser.settings.tokenizer):
        from maltpy.errors import MaltpyError
        raise MaltpyError("parser=False learns no parser: give tagger= or tokenizer=True for something to learn")
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
