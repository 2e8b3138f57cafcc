"""The Parser: training (fit), parsing, and model files, in the spirit of scikit-learn estimators.

A facade: the parts are built from the settings in :mod:`maltpy.parsing.assemble`, trained in
:mod:`maltpy.parsing.training`, searched with :mod:`maltpy.search`, read and written by
:mod:`maltpy.parsing.storage`; the model's view of a sentence is one pipeline of transforms
(:mod:`maltpy.transform.pipeline`).
"""
from __future__ import annotations

from typing import Iterable, Iterator, Optional, Sequence

import numpy as np

from maltpy.chunks import chunked
from maltpy.config import coerce, threads
from maltpy.errors import MaltpyError
from maltpy.formats.conll import Sentence
from maltpy.formats.validate import check_sentences
from maltpy.parsing.base import ParserBase
from maltpy.parsing.constraints import mode as constraint_mode, scored_sentences, searched_rows
from maltpy.parsing.encode import column_values
from maltpy.parsing.storage import describe_parser, load_parser, parser_bytes, save_parser
from maltpy.parsing.tail import output_rows, split_trees
from maltpy.progress import progress_bar as _progress_bar
from maltpy.transform.reverse import both_ways


PARSE_OPTIONS = ("constraints", "arc_scores", "nbest", "confidence")   # Parser.parse's, each a setting


class Parser(ParserBase):
    """A MaltParser-style transition-based dependency parser.

    >>> p = Parser(algorithm="nivreeager").fit(read_conll("train.conll", need_heads=True))
    >>> trees = p.parse(read_conll("test.conll"))
    >>> p.save("model.mpz"); p = maltpy.load("model.mpz")

    Settings are those of :class:`maltpy.config.Settings` (the YAML keys).
    """

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
        self._take(_training().fit(self.settings, sentences, fmt, log, parser_type=type(self)))
        return self

    def describe(self) -> dict:
        """What this trained parser is, as plain data (``maltpy info`` prints it): the training
        settings that differ from the defaults, learner, feature model, labels, the training data's
        figures, and with ``-dir both`` the combination chosen and the right-to-left parser."""
        return describe_parser(self)

    # ------------------------------------------------------------------ parsing
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

    def parse_trees(self, sentences, progress: bool = False, one_root: Optional[bool] = None, constraints=None):
        """Parse sentences (a list of :class:`Sentence`, or a
        :class:`~maltpy.parsing.encode.ColumnBatch`) and return each one's tree as (heads, labels):
        two lists with one entry per word (head 0 = the root), decoded from the model's view,
        both directions combined for ``-dir both``, and one word on the root when ``one_root``
        (default: :meth:`one_root` of the model's format): the output tail the compiled path runs
        too (:mod:`maltpy.parsing.tail`). ``constraints``: see :meth:`parse`."""
        if not len(sentences):
            return []
        return split_trees(*self.parse_rows(sentences, progress, one_root, constraints))

    def parse_rows(self, sentences, progress: bool = False, one_root: Optional[bool] = None, constraints=None):
        """:meth:`parse_trees` as corpus rows (each sentence's first row is the root's): (offsets,
        heads, label ids, label names)."""
        mode = constraint_mode(self, constraints)
        roots = one_root if one_root is not None else self.one_root()
        given = None
        if mode == "false":
            offsets, heads, labels = self._raw_rows(sentences, progress)
        else:
            offsets, heads, labels, _, given = searched_rows(self, sentences, progress, mode, False, roots)
        other = self.reverse_parser._raw_rows(sentences)[1:] if self.reverse_parser is not None else None
        return (offsets,) + tuple(output_rows(self, offsets, heads, labels, roots, given, other))

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
        _refuse_one(sentences)
        if not isinstance(sentences, (list, tuple)):
            return self.iter_parse(sentences, progress=progress, one_root=one_root, **options)
        if set(options) - set(PARSE_OPTIONS):
            raise MaltpyError(f"parse takes no option {sorted(set(options) - set(PARSE_OPTIONS))[0]!r}")
        self.check_fitted()
        # checked as the settings are (nbest=0 or '5' is refused in one line, as -nbest 0 is)
        options = {k: v if k == "constraints" else coerce(k, v, "parse") for k, v in options.items()}
        sentences = [_as_sentence(s) for s in sentences]     # one text or Sentence was refused above
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
        model's); ``output_format``: conllx turns CoNLL-U input into CoNLL-X
        (:func:`maltpy.parsing.stream.parse_file`)."""
        from maltpy.parsing.stream import parse_file
        return parse_file(self, source, target, input_format, output_format, jobs, progress)

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


def _refuse_one(sentences) -> None:
    """Refuse one text or one Sentence where a list of sentences is expected, saying what to give."""
    if isinstance(sentences, Sentence):
        raise MaltpyError("parse and tag take a list of sentences, not one Sentence: give [sentence]")
    if isinstance(sentences, (str, bytes)):
        raise MaltpyError("parse and tag take a list of sentences (Sentence objects or lists of words), not one "
                          "str: give [text.split()] for the words of one sentence, or parse_text(text) for raw "
                          "text (a model learned with --tokenizer)")


def _as_sentences(sentences) -> list:
    """The sentences of a parse or tag call as Sentence objects (:func:`_refuse_one`)."""
    _refuse_one(sentences)
    return [_as_sentence(s) for s in sentences]


def _as_sentence(s) -> Sentence:
    """A Sentence, or a list of words made into one; anything else is refused."""
    if isinstance(s, Sentence):
        return s
    if isinstance(s, str) or not hasattr(s, "__iter__"):
        raise MaltpyError(f"each sentence must be a Sentence or a list of words, not {type(s).__name__} "
                          f"{str(s)[:40]!r}" + (" (text.split() gives its words)" if isinstance(s, str) else ""))
    return Sentence.from_words(list(s))


def load(path: str, **overrides) -> Parser:
    """Load a trained parser from a model file: ``maltpy.load("en.mpz").parse(sentences)``."""
    return Parser.load(path, **overrides)
