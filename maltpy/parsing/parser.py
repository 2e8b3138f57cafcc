"""The Parser: training (fit), parsing, and model files, in the spirit of scikit-learn estimators.

A facade: the parts are built from the settings in :mod:`maltpy.parsing.assemble`, trained in
:mod:`maltpy.parsing.training`, searched with :mod:`maltpy.search`, read and written by
:mod:`maltpy.parsing.storage`; the model's view of a sentence is one pipeline of transforms
(:mod:`maltpy.transform.pipeline`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Iterator, Optional, Sequence

import numpy as np

from maltpy.chunks import chunked
from maltpy.config import Settings, coerce, make_settings, threads
from maltpy.errors import MaltpyError
from maltpy.formats.conll import FORMATS, Sentence
from maltpy.formats.validate import check_sentences
from maltpy.parsing.assemble import assemble
from maltpy.parsing.encode import UnseenTags
from maltpy.parsing.model import ParserModel, Parts
from maltpy.parsing.constraints import mode as constraint_mode, scored_sentences, searched_rows
from maltpy.parsing.encode import column_values, encode, warn_long_sentences
from maltpy.parsing.storage import describe_parser, load_parser, parser_bytes, save_parser
from maltpy.parsing.models import models_of
from maltpy.parsing.tail import output_rows, split_trees
from maltpy.progress import progress_bar as _progress_bar
from maltpy.search import SearchModel, for_settings as search_strategy
from maltpy.transform.reverse import both_ways
from maltpy.version import __version__
from maltpy.transform.single_root import wants_one_root


PARSE_OPTIONS = ("constraints", "arc_scores", "nbest", "confidence")   # Parser.parse's, each a setting


class Parser:
    """A MaltParser-style transition-based dependency parser.

    >>> p = Parser(algorithm="nivreeager").fit(read_conll("train.conll", need_heads=True))
    >>> trees = p.parse(read_conll("test.conll"))
    >>> p.save("model.mpz"); p = maltpy.load("model.mpz")

    Settings are those of :class:`maltpy.config.Settings` (the YAML keys).
    """

    def __init__(self, settings: Optional[Settings] = None, **kwargs):
        if settings is not None and kwargs:
            settings = make_settings(**{**settings.__dict__, **kwargs})
        self.settings = settings or make_settings(**kwargs)
        #: what the settings build (maltpy.parsing.model.Parts) and what training produced
        #: (ParserModel): two frozen values, replaced whole by training and loading
        self.parts: Optional[Parts] = None
        self.model: Optional[ParserModel] = None
        self._weights = None
        self.unseen_tags = None     # warns once when most input tags were never seen in training
        self.warned_long = False    # a long sentence for a quadratic system: warned once

    # ------------------------------------------------------------------ parts
    def _setup(self, fmt: str, feature_text: Optional[str] = None):
        """Build the parts for this format (``feature_text``: a model file's feature model)."""
        self.parts = assemble(self.settings, fmt, feature_text)
        self.model = None
        self._weights = None
        self.unseen_tags = UnseenTags(self.parts.compiled, fmt)
        self.warned_long = False

    def _set_model(self, model: ParserModel):
        """Take ``model`` (training's or a model file's) as what this parser has learned."""
        self.model = model
        self._weights = None
        self.parts.extractor.set_deprel_values(model.deprel_values)

    def _adopt(self, other: "Parser", **changes):
        """Take another parser's parts and model (``changes``: to the model), keeping this
        parser's settings: -dir both's left-to-right parser becomes this one."""
        self.parts = other.parts
        self.unseen_tags = other.unseen_tags
        self._set_model(replace(other.model, **changes))

    @property
    def _fitted(self) -> bool:
        return self.model is not None and self.model.trained

    # the parts and the model, read only (a parser is changed only through the methods above)
    format = property(lambda self: self.parts.format)
    system_cls = property(lambda self: self.parts.system_cls)
    feature_model = property(lambda self: self.parts.feature_model)
    feature_text = property(lambda self: self.parts.feature_text)
    compiled = property(lambda self: self.parts.compiled)
    extractor = property(lambda self: self.parts.extractor)
    view = property(lambda self: self.parts.view)
    labels = property(lambda self: self.model.labels)
    label_ids = property(lambda self: self.model.label_ids)
    deprel_values = property(lambda self: self.model.deprel_values)
    token_tables = property(lambda self: self.model.token_tables)
    rag_tables = property(lambda self: self.model.rag_tables)
    classes = property(lambda self: self.model.classes)
    splits = property(lambda self: self.model.splits)
    split_map = property(lambda self: self.model.split_map)
    default_split = property(lambda self: self.model.default_split)
    learner = property(lambda self: self.model.learner)
    train_stats = property(lambda self: self.model.train_stats if self.model is not None else {})
    written_by = property(lambda self: self.model.written_by if self.model is not None else __version__)
    combination = property(lambda self: self.model.combination)
    reverse_parser = property(lambda self: self.model.reverse_parser if self.model is not None else None)
    reduction = property(lambda self: self.model.reduction if self.model is not None else None)

    def encode(self, sentences, grow: bool = False):
        """Sentences -> the C loops' :class:`~maltpy.search.decision.Corpus`, through this parser's symbol tables."""
        return encode(sentences, self.compiled, self.token_tables, self.rag_tables, grow=grow,
                      root_value=self.extractor.root_value)

    def system(self, training: bool):
        """A transition system for this parser's settings and labels (``training``: with the
        options only the oracle uses)."""
        opts = self.settings.system_options(self.system_cls)
        if training:
            opts.update(self.system_cls.training_options)
        root = self.label_ids.get(self.settings.root_label, 0)
        root = self.label_ids.get(self.view.root_label(self.settings.root_label), root)
        system = self.system_cls(len(self.labels), root, **opts)
        self.view.setup_system(system, self.labels)
        return system

    @property
    def output_labels(self):
        """The label names the output carries (label-based undirected models drop the direction)."""
        return self.view.output_labels(self.labels)

    def weights(self):
        """The scorer of the parse loops (:mod:`maltpy.search`): the parse-time weight table of a
        linear model, or kernel models."""
        if self._weights is None:
            left_out = [0 if k == self.default_split else len(self.compiled.split_templates)
                        for k in range(len(self.splits))]
            self._weights = models_of(self.learner).scorer(self.splits, self.split_map, self.default_split,
                                                           self.classes.n_classes, self.learner, left_out)
        return self._weights

    def search_model(self) -> SearchModel:
        """What a search strategy parses with: system, feature extractor, classes and scorer."""
        return SearchModel(self.system(training=False), self.extractor, self.classes, self.weights())

    def strategy(self):
        """The search strategy of the ``search`` setting (:mod:`maltpy.search`)."""
        return search_strategy(self.settings)

    # ------------------------------------------------------------------ training
    def training_instances(self, sentences: Sequence[Sentence], fmt: Optional[str] = None, log=None,
                           checked: bool = False):
        """The static oracle's classifier instances for gold sentences, as the learner gets them:
        ``(X, y, split_values, feature_keys)``, X a 0/1 CSR matrix (instances x features), y the
        class ids, the split feature's value per instance and the key of each feature column.
        Sets up the symbol tables and classes as :meth:`fit` does. ``checked``: the sentences
        are known to be valid gold trees."""
        fmt = fmt or self.settings.input_format or "conllx"
        if not checked:
            _training().check_training_sentences(sentences, fmt)
        return _training().training_instances(self, sentences, fmt, log or (lambda msg: None))

    def fit(self, sentences: Sequence[Sentence], fmt: Optional[str] = None, log=None):
        """Train on gold sentences (HEAD and DEPREL filled; with ``-l perceptron -or dynamic``,
        partial trees too: HEAD ``_`` where a head is unknown). Returns self.

        ``fmt``: the columns' format (default: the ``input_format`` setting, else the format the
        sentences were read in, else conllx)."""
        s = self.settings
        fmt = fmt or s.input_format or _training().format_read(sentences)
        if s.reverse_features and not both_ways(s):
            raise MaltpyError(f"-Frtl {s.reverse_features} names the right-to-left feature model of -dir both; "
                              f"with -dir {s.direction}, give the feature model with -F")
        _training().check_training_sentences(sentences, fmt or "conllx", partial=_training().takes_partial_trees(s))
        return self._fit(sentences, fmt or "conllx", log or (lambda msg: None))

    def _fit(self, sentences, fmt, log):
        """:meth:`fit` on sentences already checked (a cross-validation's folds come here)."""
        _training().fit(self, sentences, fmt, log)
        return self

    def describe(self) -> dict:
        """What this trained parser is, as plain data (``maltpy info`` prints it): the training
        settings that differ from the defaults, learner, feature model, labels, the training data's
        figures, and with ``-dir both`` the combination chosen and the right-to-left parser."""
        return describe_parser(self)

    # ------------------------------------------------------------------ parsing
    def check_fitted(self):
        """Raise a one-line error unless the parser is trained or loaded."""
        if not self._fitted:
            raise MaltpyError("this parser is not trained: call fit() or load a model file")

    def parse_arrays(self, sentences: Sequence[Sentence], progress: bool = False, record_end: bool = False,
                     record_moves: bool = False, given=None, record_confidence: bool = False):
        """Parse and return (corpus offsets, heads, label ids[, end flags][, moves]) per corpus row, as
        the model reads the sentences (:meth:`parse_trees` encodes them for the model's view and
        decodes the trees; here they are taken as given). ``record_moves``: also the move (an index
        into the system's ``moves``) that built each word's arc, -1 where the end of parsing did.
        ``given``: the arcs to keep, per corpus row (:mod:`maltpy.parsing.constraints`).
        ``record_confidence``: last, how sure the search was of each arc (rows x 2: margin,
        probability; :meth:`maltpy.search.strategy.Strategy.parse`)."""
        self.check_fitted()
        corpus = self.encode(sentences)
        self.check_input(corpus, lambda ci: list(dict.fromkeys(column_values(sentences, ci))),
                         lambda k: _place(sentences, k))
        moves = np.empty(corpus.n_rows, dtype=np.int32) if record_moves else None
        conf = np.empty((corpus.n_rows, 2), dtype=np.float32) if record_confidence else None
        extra = {k: v for k, v in (("given", given), ("confidence_out", conf)) if v is not None}
        bar = _progress_bar(len(sentences), "parsing", progress)
        try:
            out = self.strategy().parse(self.search_model(), corpus, progress=bar.update if bar else None,
                                        record_end=record_end, moves_out=moves,
                                        n_threads=threads(self.settings.jobs), **extra)
        finally:
            if bar:
                bar.close()
        return (corpus.offsets,) + tuple(out) + ((moves,) if record_moves else ()) + ((conf,) if record_confidence else ())

    def check_input(self, corpus, examples, where=None) -> None:
        """The warnings about an encoded input (``examples(ci)``: a few values of column ci):
        tags never seen in training, sentences long for a quadratic system; and the error for
        a sentence too long for the system and beam (``where(k)``: where sentence k is)."""
        self.unseen_tags.check(corpus, examples)
        warned = warn_long_sentences(corpus.offsets, self.system_cls, training=False,
                                     beam_width=self.settings.beam_width, where=where, warn=not self.warned_long)
        self.warned_long = self.warned_long or warned

    @property
    def decodes_output(self) -> bool:
        """Whether :meth:`parse_trees` rewrites the C loop's trees (the view decodes them, or two
        parsers' trees are combined); when it does not, the heads and label ids of
        :meth:`parse_arrays` are the output."""
        return self.view.changes_trees or self.reverse_parser is not None

    def one_root(self, output_format: Optional[str] = None) -> bool:
        """Whether output in this format (default: the model's) gets one word on the root (``-ro``;
        :mod:`maltpy.transform.single_root`)."""
        return wants_one_root(self.settings.roots, output_format or self.format)

    def parse_trees(self, sentences, progress: bool = False, one_root: Optional[bool] = None, constraints=None):
        """Parse sentences (a list of :class:`Sentence`, or a
        :class:`~maltpy.parsing.encode.ColumnBatch`) and return each one's tree as (heads, labels):
        two lists with one entry per word (head 0 = the root), decoded from the model's view,
        both directions combined for ``-dir both``, and one word on the root when ``one_root``
        (default: :meth:`one_root` of the model's format): the output tail the compiled path runs
        too (:mod:`maltpy.parsing.tail`). ``constraints``: see :meth:`parse`."""
        mode = constraint_mode(self, constraints)
        roots = one_root if one_root is not None else self.one_root()
        if not len(sentences):
            return []
        given = None
        if mode == "false":
            offsets, heads, labels = self._raw_rows(sentences, progress)
        else:
            offsets, heads, labels, _, given = searched_rows(self, sentences, progress, mode, False, roots)
        other = self.reverse_parser._raw_rows(sentences)[1:] if self.reverse_parser is not None else None
        return split_trees(offsets, *output_rows(self, offsets, heads, labels, roots, given, other))

    def _raw_rows(self, sentences, progress: bool = False):
        """(offsets, heads, label ids) of the C loop's parses, in the model's view."""
        return self.parse_arrays(self.view.encode(sentences, self.format == "conllu"), progress)[:3]

    def parse(self, sentences, progress: bool = False, one_root: Optional[bool] = None, **options):
        """Parse sentences; return copies with HEAD and DEPREL filled.

        A list (or tuple) gives a list. Any other iterable, such as :func:`maltpy.iter_conll`
        or a generator, gives an iterator that parses as it reads (see :meth:`iter_parse`).
        ``one_root``: see :meth:`parse_trees`. ``options`` (each defaults to its setting):
        ``constraints`` False, HEAD and DEPREL are ignored; True, the arcs they give are kept where
        the system can (:mod:`maltpy.parsing.constraints`; a warning for each one it cannot);
        "strict", an error instead. ``arc_scores``: each arc's score, how sure the parser was, in
        MISC as ``Score=`` (CoNLL-U). With a beam (``beam_width`` > 1): ``nbest`` K, a list of up
        to K parses per sentence, best first, each with ``# nbest`` and ``# score`` comments;
        ``confidence``, each arc's confidence in MISC as ``Conf=`` (:mod:`maltpy.parsing.kbest`)."""
        if isinstance(sentences, (str, Sentence)):
            raise MaltpyError("parse takes a list of sentences (Sentence objects or lists of words); "
                              "for one text: parser.parse([text.split()])")
        if not isinstance(sentences, (list, tuple)):
            return self.iter_parse(sentences, progress=progress, one_root=one_root, **options)
        if set(options) - set(PARSE_OPTIONS):
            raise MaltpyError(f"parse takes no option {sorted(set(options) - set(PARSE_OPTIONS))[0]!r}")
        self.check_fitted()
        # checked as the settings are (nbest=0 or '5' is refused in one line, as -nbest 0 is)
        options = {k: v if k == "constraints" else coerce(k, v, "parse") for k, v in options.items()}
        sentences = [_as_sentence(s) for s in sentences]
        check_sentences(sentences, self.format, need_heads=False)
        want = {k: options.get(k, getattr(self.settings, k)) for k in ("arc_scores", "nbest", "confidence")}
        if want["nbest"] > 1 or want["confidence"]:
            from maltpy.parsing.kbest import beam_sentences
            return beam_sentences(self, sentences, progress, one_root, want["nbest"], want["confidence"])
        if want["arc_scores"]:
            return scored_sentences(self, sentences, progress, one_root, options.get("constraints"))
        trees = self.parse_trees(sentences, progress, one_root, options.get("constraints"))
        return [sent._with_tree(h, l) for sent, (h, l) in zip(sentences, trees)]

    def iter_parse(self, sentences: Iterable, chunk_size: int = 1000, progress: bool = False,
                   one_root: Optional[bool] = None, **options) -> Iterator[Sentence]:
        """Parse any iterable of sentences ``chunk_size`` at a time, yielding each parse in
        input order (with ``nbest``, each sentence's parses one after the other); memory stays
        that of one chunk however long the input is. ``options``: see :meth:`parse`."""
        self.check_fitted()
        bar = _progress_bar(None, "parsing", progress)
        try:
            for chunk in chunked(sentences, chunk_size):
                for parsed in self.parse(chunk, one_root=one_root, **options):
                    yield from parsed if isinstance(parsed, list) else (parsed,)
                if bar:
                    bar.update(len(chunk))
        finally:
            if bar:
                bar.close()

    def parse_file(self, source, target, input_format: Optional[str] = None,
                   output_format: Optional[str] = None, jobs: Optional[int] = None,
                   progress: bool = False):
        """Parse a CoNLL file (a path, or ``-`` for stdin) into ``target`` (a path, ``-`` for
        stdout); return (sentences, tokens).

        Reading, parsing and writing run chunk by chunk in compiled code on ``jobs`` threads
        (default: the ``jobs`` setting; 0 = all cores): memory stays flat, the output is the same
        bytes as :meth:`parse` and :func:`~maltpy.formats.conll.write_conll` give, a file appears
        only whole. ``input_format``: conllx or conllu (default: from the file name, else the
        model's); ``output_format``: conllx turns CoNLL-U input into CoNLL-X."""
        from maltpy.formats.conll import detect_format, iter_conll, to_conllx, write_conll
        from maltpy.output import open_output
        from maltpy.parsing.stream import parse_stream, unsupported
        self.check_fitted()
        fmt = input_format or (detect_format(source) if source not in ("-", None) else self.format)
        if self.reduction is not None:   # a constituent parser: bracketed trees out
            return self.reduction.parse_file(self, source, target, fmt, output_format, progress)
        if fmt == "ptb":
            raise MaltpyError(f"{source}: bracketed trees (.mrg) are parsed by a constituent parser; this model "
                              "parses CoNLL (train one on a .mrg file for constituents)")
        if fmt not in FORMATS or (output_format or fmt) not in FORMATS:
            raise MaltpyError(f"unknown format {input_format if fmt not in FORMATS else output_format!r}; "
                              f"use one of {', '.join(FORMATS)}")
        drop_extra = (output_format or fmt) == "conllx" and fmt == "conllu"
        jobs = self.settings.jobs if jobs is None else coerce("jobs", jobs, "parse_file")
        bar = _progress_bar(None, "parsing", progress, unit="tok")
        try:
            if unsupported(self) is None:
                with open_output(target, binary=True, stream=True) as out:
                    return parse_stream(self, source, out, fmt, drop_extra, jobs,
                                        progress=(lambda n_sent, n_tok: bar.update(n_tok)) if bar else None)
            counts = [0, 0]   # the Python path: a Split with a regular-expression separator

            def counted(parsed):
                for sentence in parsed:
                    counts[0] += 1
                    counts[1] += len(sentence)
                    if bar:
                        bar.update(len(sentence))
                    yield to_conllx(sentence) if drop_extra else sentence

            parsed = self.iter_parse(iter_conll(source, fmt), one_root=self.one_root(output_format or fmt))
            write_conll(counted(parsed), target)
            return counts[0], counts[1]
        finally:
            if bar:
                bar.close()

    # ------------------------------------------------------------------ files
    def save(self, path: str) -> None:
        """Write the trained parser to one model file (:mod:`maltpy.parsing.storage`)."""
        save_parser(self, path)

    def to_bytes(self) -> bytes:
        """This parser's model file as bytes, made in memory (no file is written)."""
        return parser_bytes(self)

    #: the name earlier versions gave :meth:`to_bytes`
    model_bytes = to_bytes

    @classmethod
    def from_bytes(cls, data: bytes, **overrides) -> "Parser":
        """A parser from a model file's bytes (:meth:`to_bytes`), checked as :meth:`load` checks a
        file. ``overrides``: parse-time settings."""
        return load_parser(cls, "<model bytes>", data=bytes(data), **overrides)

    @classmethod
    def load(cls, path: str, **overrides) -> "Parser":
        """Load a model file. ``overrides``: parse-time settings (e.g. ``enforce_tree=True``).

        Every header value and array is checked, so that a model either loads completely or is
        refused with :class:`~maltpy.errors.ModelFileError`; nothing damaged reaches the C loops
        (:mod:`maltpy.parsing.storage`)."""
        return load_parser(cls, path, **overrides)


def _training():
    """maltpy.parsing.training, imported when a parser learns (parsing never needs it: start-up)."""
    from maltpy.parsing import training
    return training


def _place(sentences, k: int) -> str:
    """Where sentence ``k`` of a parse's input is (``file:line``), for an error message."""
    s = sentences[k] if isinstance(sentences, (list, tuple)) else None
    if isinstance(s, Sentence):
        return f"{s.source}:{s.first_line}" if s.first_line else s.source
    return f"sentence {k + 1}"


def _as_sentence(s) -> Sentence:
    """A Sentence, or a list of words made into one; anything else is refused."""
    if isinstance(s, Sentence):
        return s
    if isinstance(s, str) or not hasattr(s, "__iter__"):
        raise MaltpyError(f"each sentence must be a Sentence or a list of words, not {type(s).__name__} "
                          f"{str(s)[:40]!r}")
    return Sentence.from_words(list(s))


def load(path: str, **overrides) -> Parser:
    """Load a trained parser from a model file: ``maltpy.load("en.mpz").parse(sentences)``."""
    return Parser.load(path, **overrides)
