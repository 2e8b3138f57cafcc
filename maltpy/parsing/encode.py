"""Sentences -> flat integer arrays (:class:`~maltpy.features.corpus.Corpus`) through symbol tables.

All string work happens here, once per token: column values, suffixes and
prefixes are mapped to ids; Split columns become multi-valued id lists. The parse
loop then never sees a string.
"""
from __future__ import annotations

import re
import threading
from typing import Dict, List, Optional, Sequence

import numpy as np

from maltpy.formats.clusters import prefix_ids
from maltpy.formats.columns import ColumnBatch  # noqa: F401 (here too: callers import it from encode)
from maltpy.errors import MaltpyError
from maltpy.features.corpus import Corpus


class SymbolTable:
    """Strings -> ids 1, 2, ... (0 is MaltParser's null value, -1 an unknown string)."""

    def __init__(self, symbols: Sequence[str] = ()):
        self.ids: Dict[str, int] = {s: k + 1 for k, s in enumerate(symbols)}

    def __len__(self):
        return len(self.ids)

    def symbols(self) -> List[str]:
        return list(self.ids)

    def encode(self, values, grow: bool) -> List[int]:
        ids = self.ids
        if grow:
            out = []
            for v in values:
                i = ids.get(v)
                if i is None:
                    i = ids[v] = len(ids) + 1
                out.append(i)
            return out
        get = ids.get
        return [get(v, -1) for v in values]


#: a cluster column's ids: 1 is the root rows' (as every table's first symbol), 2 a word the
#: clusters do not hold, 3 and on the clusters (or their prefixes)
NO_CLUSTER = 2


class ClusterTable(SymbolTable):
    """A cluster column's table (``Cluster``, ``Prefix(Cluster(...), n)`` features): each
    spelling of the clusters file's words -> the id of its cluster (or of the cluster's first n
    characters); made from the file when the parser learns, kept in its model file, never grown.
    A word it does not hold has the id :data:`NO_CLUSTER`, a value of its own."""

    def __init__(self, lines, ids: np.ndarray):
        """``lines``: the spellings in UTF-8, one a line (no line empty: bytes, or a model file's
        uint8 array, used where it lies); ``ids``: int32, the id of
        each (> NO_CLUSTER). Kept as they are: the compiled encoder reads them without a Python
        object per spelling (loading a model is most of a short run; the columns of one clusters
        file share their ``lines`` object and one byte table), and the dictionary of the Python
        encoder is made when it is first needed."""
        self.lines, self.id_array = lines, np.ascontiguousarray(ids, dtype=np.int32)
        self._ids = None

    @classmethod
    def from_clusters(cls, clusters, length: int) -> "ClusterTable":
        """The table of ``clusters`` (:class:`~maltpy.formats.clusters.WordClusters`) for prefix
        ``length`` (0: the whole cluster)."""
        spellings, paths = clusters.spellings()
        lines = clusters.made("parser lines", lambda: "\n".join(spellings).encode("utf-8", "surrogatepass"))
        return cls(lines, np.array(prefix_ids(paths, length, NO_CLUSTER + 1), dtype=np.int32))

    @property
    def ids(self) -> Dict[str, int]:
        if self._ids is None:
            # bytes that are not UTF-8 (a damaged file) as the readers keep them: they match only alike
            words = bytes(self.lines).decode("utf-8", "surrogateescape").split("\n") if len(self.lines) else []
            self._ids = dict(zip(words, self.id_array.tolist()))
        return self._ids

    def __len__(self):
        return len(self.id_array)

    def symbols(self) -> List[str]:
        raise TypeError("a cluster table is kept as spellings and ids (storage)")

    def encode(self, values, grow: bool) -> List[int]:
        get = self.ids.get
        return [get(v, NO_CLUSTER) for v in values]


def _transform(transform: str, length: int):
    if transform == "suffix":
        return lambda v: v[-length:]
    if transform == "prefix":
        return lambda v: v[:length]
    return None


def literal_separator(sep: str):
    """The one character a Split separator stands for (a single, maybe escaped, character such
    as the usual ``\\|``), or None for a real regular expression."""
    return sep[-1] if re.fullmatch(r"\\?[^\w\s]|\w", sep) else None


def _splitter(sep: str):
    """MaltParser's Split separator is a regular expression; a single character splits with
    str.split."""
    literal = literal_separator(sep)
    if literal is not None:
        return lambda v: v.split(literal)
    return re.compile(sep).split


def column_values(sentences, ci: int) -> List[str]:
    """Column ``ci`` of every word of a list of :class:`Sentence` or a :class:`ColumnBatch`."""
    return _column_source(sentences)[1](ci)


def _column_source(sentences):
    """(words per sentence, ci -> that column's values for all words in order)."""
    if isinstance(sentences, ColumnBatch):
        return sentences.lengths, sentences.column
    return [len(s) for s in sentences], lambda ci: [r[ci] for s in sentences for r in s.rows]


def encode(sentences, compiled, token_tables: List[SymbolTable], multi_tables: List[SymbolTable],
           grow: bool = False, root_value: int = 0) -> Corpus:
    """Encode sentences (a list of :class:`Sentence` or a :class:`ColumnBatch`) for the loop.
    With ``grow``, unseen strings get new ids (training).

    ``root_value``: the value of the root row in every input column (the
    extractor's ``root_value``, which depends on MaltParser's -nv).
    """
    lengths, column = _column_source(sentences)
    sizes = np.asarray(lengths, dtype=np.int64) + 1
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n_rows = int(offsets[-1])
    word = np.ones(n_rows, dtype=bool)   # every row but the sentences' root rows
    word[offsets[:-1]] = False
    tok = np.zeros((n_rows, max(len(compiled.token_columns), 1)), dtype=np.int32)
    for j, (ci, transform, length) in enumerate(compiled.token_columns):
        fn = _transform(transform, length)
        values = column(ci)
        if fn is not None:
            values = [fn(v) for v in values]
        table = token_tables[j]
        if grow:
            # the root rows once took part in the encoding as None, the first value seen, and
            # so hold symbol 1 of every column table: keep that numbering
            table.encode([None], grow=True)
        col = tok[:, j]
        col[word] = table.encode(values, grow)
        col[~word] = root_value
    ints = np.full((n_rows, max(len(compiled.int_columns), 1)), -1, dtype=np.int32)
    for j, ci in enumerate(compiled.int_columns):
        # an unchecked column (PHEAD) may hold anything: what is not a node number counts as none
        ints[word, j] = [int(v) if v.isascii() and v.isdigit() and len(v) < 10 else -1 for v in column(ci)]
    n_multi = len(compiled.multi_columns)
    multi_off = np.zeros((n_multi, n_rows + 1), dtype=np.int32)
    multi_ids_parts = []
    total = 0
    for q, (ci, transform, length, sep) in enumerate(compiled.multi_columns):
        fn = _transform(transform, length)
        split = _splitter(sep)
        word_counts, flat = [], []
        for v in column(ci):
            if fn is not None:
                v = fn(v)
            parts = [p for p in split(v) if p != ""] or [v]
            word_counts.append(len(parts))
            flat.extend(parts)
        ids = multi_tables[q].encode(flat, grow)
        counts = np.zeros(n_rows, dtype=np.int64)
        counts[word] = word_counts
        multi_off[q, 0] = total
        multi_off[q, 1:] = total + np.cumsum(counts)
        total += len(ids)
        multi_ids_parts.append(np.array(ids, dtype=np.int32))
    multi_ids = np.concatenate(multi_ids_parts) if multi_ids_parts else np.zeros(1, dtype=np.int32)
    return Corpus(offsets, tok, ints, multi_off, multi_ids)


def gold_arrays(sentences, label_ids: Dict[str, int]):
    """Gold heads and label ids per corpus row (root rows -1; -1 too for a word of a partial tree
    whose HEAD is ``_``)."""
    heads, labels = [], []
    for s in sentences:
        heads.append(-1)
        labels.append(-1)
        for r in s.rows:
            if r[6] == "_":
                heads.append(-1)
                labels.append(-1)
                continue
            heads.append(int(r[6]))
            labels.append(label_ids.get(r[7], -1))
    return np.array(heads, dtype=np.int32), np.array(labels, dtype=np.int32)


#: sentences longer than this draw a warning from a system whose decisions grow quadratically
LONG_SENTENCE = 2000
#: ... and longer than this are refused by such a system: about n^2/2 = 800 million decisions
#: (some 5 minutes for covnonproj on EWT), and the beam's histories of that many moves still fit
#: its int counters
QUADRATIC_MAX_WORDS = 40_000
#: a beam copies each configuration it keeps at every step, which costs B * n per move and so
#: grows with the square of a sentence's length (EWT's beam model, 2026-11-29: 10,000 words in
#: 7 s at B = 64, 50,000 in 15 s at B = 8, most of it copying)
BEAM_MAX_WORDS = 100_000
#: ... and a sentence longer than this draws a warning from a beam, as from a quadratic system
BEAM_LONG_SENTENCE = 5_000
#: ... and with a quadratic system the histories it copies are themselves quadratic
BEAM_QUADRATIC_MAX_WORDS = 4_000


def max_words(system_cls, beam_width: int = 1) -> Optional[int]:
    """The longest sentence ``system_cls`` parses (with a beam of ``beam_width``) in reasonable
    time and memory; None where only memory bounds it (a linear system, greedy)."""
    limits = []
    if system_cls.quadratic:
        limits.append(QUADRATIC_MAX_WORDS)
    if beam_width > 1:
        limits.append(BEAM_QUADRATIC_MAX_WORDS if system_cls.quadratic else BEAM_MAX_WORDS)
    return min(limits) if limits else None


def check_sentence_lengths(offsets, system_cls, training: bool, beam_width: int = 1, where=None,
                        warn: bool = True) -> bool:
    """Refuse (:class:`~maltpy.errors.MaltpyError`, naming the sentence by ``where(k)``) a
    sentence longer than :func:`max_words`, and warn (:class:`~maltpy.errors.MaltpyWarning`)
    when one has more than :data:`LONG_SENTENCE` words and ``system_cls`` makes quadratically
    many decisions, or more than :data:`BEAM_LONG_SENTENCE` under a beam (unless not ``warn``);
    True when it warned (once per input is enough)."""
    lengths = np.diff(np.asarray(offsets)) - 1
    if not len(lengths):
        return False
    k = int(np.argmax(lengths))
    n = int(lengths[k])
    what = f"training sentence {k + 1}" if training else "a sentence of the input"
    if where is not None:
        what = f"{where(k)}: {'training sentence' if training else 'a sentence'}"
    limit = max_words(system_cls, beam_width)
    if limit is not None and n > limit:
        why = (f"{system_cls.name} compares each word with every word before it" if system_cls.quadratic
               and (beam_width == 1 or limit == BEAM_QUADRATIC_MAX_WORDS) else
               f"a beam of {beam_width} copies what it keeps at every move")
        raise MaltpyError(
            f"{what} has {n:,} words, more than the {limit:,} that {system_cls.name}"
            f"{f' with -b {beam_width}' if beam_width > 1 else ''} parses ({why}): split it into sentences "
            "(were the blank lines between them lost?) or use a linear system greedily (nivreeager, stacklazy, 2planar)")
    quadratic = system_cls.quadratic and n > LONG_SENTENCE
    if not warn or not (quadratic or (beam_width > 1 and n > BEAM_LONG_SENTENCE)):
        return False
    import warnings
    from maltpy.errors import MaltpyWarning
    if quadratic:
        why = (f"{system_cls.name} compares each word with every word before it, up to {n * (n + 1) // 2:,} "
               "decisions for this sentence alone, which can take minutes and gigabytes")
        cure = "nivreeager, stacklazy or 2planar are linear"
    else:
        why = (f"a beam of {beam_width} copies each configuration it keeps, of all {n:,} words, at every "
               "move, which grows with the square of the sentence's length and can take minutes")
        cure = "greedy search (-b 1) is linear"
    warnings.warn(MaltpyWarning(
        f"{what} has {n:,} words: {why} (an input whose blank lines between sentences were lost?); {cure}"),
        stacklevel=4)
    return True


#: the tag columns (CPOSTAG/POSTAG in CoNLL-X, UPOSTAG/XPOSTAG in CoNLL-U) and the mix-up each hints at
_TAG_COLUMNS = {3: "language-specific tags (XPOS) where universal ones (UPOS) are expected, or another tagset?",
                4: "universal tags (UPOS) where language-specific ones (XPOS) are expected, or another tagset?"}


class UnseenTags:
    """Warns once when most of the tag values a parser reads were never seen in training: a model
    trained on UPOS given XPOS (``Sentence.from_words(postags=...)`` fills both columns), or a
    CoNLL-X model given a CoNLL-U file, parses without error but badly. Counts the unknown ids of
    the encoded input (-1) in each plain tag column the feature model reads, over the first
    ``enough`` words parsed; warns as soon as the share unseen passes ``share`` (at least
    ``least`` words in: a closed tag set leaves few values unseen in good input)."""

    def __init__(self, compiled, fmt: str, least: int = 3, enough: int = 1000, share: float = 0.5):
        from maltpy.formats.conll import COLUMNS
        self.columns = [(j, ci, COLUMNS[fmt][ci]) for j, (ci, transform, _) in enumerate(compiled.token_columns)
                        if ci in _TAG_COLUMNS and transform == "plain"]
        self.least, self.enough, self.share = least, enough, share
        self.unseen = [0] * len(self.columns)
        self.words = 0
        self.done = not self.columns
        self._lock = threading.Lock()   # chunks are parsed on several threads

    def check(self, corpus, examples) -> None:
        """Count a parse's encoded rows (``corpus.tok``); ``examples(ci)`` gives a few of the input's
        values of column ci for the message (called only when it warns)."""
        if self.done:
            return
        with self._lock:
            self._check(corpus, examples)

    def _check(self, corpus, examples) -> None:
        if self.done:
            return
        tok = np.asarray(corpus.tok)
        self.words += len(tok) - (len(corpus.offsets) - 1)   # every row but the sentences' root rows
        for k, (j, _, _) in enumerate(self.columns):
            self.unseen[k] += int(np.count_nonzero(tok[:, j] == -1))
        self.done = self.words >= self.enough
        if self.words < self.least:
            return
        for k, (_, ci, name) in enumerate(self.columns):
            if self.unseen[k] > self.share * self.words:
                import warnings
                from maltpy.errors import MaltpyWarning
                self.done = True
                values = examples(ci)
                if set(values) <= {"_", ""}:    # no tags at all: no mix-up to suspect
                    warnings.warn(MaltpyWarning(
                        f"the {name} column of this input is empty (_), and this model reads {name}: it parses "
                        f"untagged words badly. Learn a model that tags them itself (-m learn --tagger all), "
                        f"give the words their tags (in spaCy, a pipeline that tags, such as en_core_web_sm, not "
                        f"spacy.blank), or train a model whose features read no tags"), stacklevel=4)
                    return
                shown = ", ".join(values[:5])
                warnings.warn(MaltpyWarning(
                    f"{100 * self.unseen[k] / self.words:.0f}% of the {name} values of this input ({shown}, ...) "
                    f"never occurred in the training data, so the parses will be poor. This model reads {name}: "
                    f"{_TAG_COLUMNS[ci]} (Sentence.from_words: give upos= and xpos=; postags= fills both "
                    "columns)"), stacklevel=4)
                return
