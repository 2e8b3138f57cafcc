"""The tagger and lemmatizer: UPOS, XPOS, FEATS and LEMMA learned from a treebank's own columns.

Columns are tagged in *groups*, one after another, each greedily left to right by an averaged
perceptron (:mod:`maltpy.tagging.perceptron`); a group predicts one column, or several jointly
(``upos+xpos+feats``: one class per combination seen in training). A group's templates read the
columns of the groups before it at any word and its own at earlier words. LEMMA's classes are
edit rules (:mod:`maltpy.tagging.lemma`); a (form, UPOS) seen with one lemma only in training
takes that lemma.

An *ensemble* (``ensemble`` K > 1) learns each group but the lemma's K times, the even members
reading each sentence left to right, the odd ones right to left, each pair with its own shuffling.
Tagging runs every member's greedy pass of a group and gives each word the class whose scores,
added up over the members, are highest; group by group, so that each group reads the tags the
ensemble gave the groups before. (On the EWT split two members with their scores added tag as well
as eight voting: docs/tagging.md, "Ensembles".)
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from maltpy.config import check_ensemble_margin
from maltpy.errors import MaltpyError, ModelFileError
from maltpy.tagging.templates import (ROW, TAG_COLUMNS, cluster_lengths, cluster_rows, compile_templates,
                                      lexicon_rows, load_templates, resolve_templates, templates_label,
                                      usable_templates)

#: columns a tagger may learn, in the order they are tagged
COLUMN_ORDER = ("upos", "xpos", "feats", "lemma")
#: passes over the training data (measured on EWT dev: docs/tagging.md)
DEFAULT_EPOCHS = 10
#: a word is tagged without the classifier when training saw its form, with the tags the groups
#: before gave it, this often and always with one class (the lemma has its own dictionary). On
#: the last 10 % of EWT train (trained on the first 90 %) the tags are the same to 0.01, and
#: tagging skips 23 % (UPOS) to 55 % (FEATS) of EWT dev's words (docs/tagging.md)
SURE_COUNT = 20
SURE_SHARE = 1.0
#: rows of the value table (one per tag column: LEMMA, UPOS, XPOS, FEATS)
N_ROWS = 4


#: a form's lexicon entry holds the values seen in at least this share of its occurrences ...
LEXICON_SHARE = 0.1
#: ... and forms seen fewer times than this have none (their entry would only repeat the gold tag)
LEXICON_MIN_COUNT = 3


#: the most taggers an ensemble may have (each is a model to learn and a pass to tag)
MAX_ENSEMBLE = 64


def reads_backwards(member: int) -> bool:
    """Whether ensemble member ``member`` reads sentences right to left (the odd ones)."""
    return member % 2 == 1


def member_seed(seed: int, member: int) -> int:
    """The shuffling seed of ensemble member ``member``: a pair of directions shares one."""
    return seed + member // 2


def reversed_order(sstart: np.ndarray) -> np.ndarray:
    """Each word's place when every sentence is read right to left (``sstart``: the sentences'
    first words and the end); the order is its own inverse."""
    sstart = np.asarray(sstart, dtype=np.int64)
    n = int(sstart[-1]) if len(sstart) else 0
    sentence = np.repeat(np.arange(len(sstart) - 1), np.diff(sstart))
    return sstart[sentence] + sstart[sentence + 1] - 1 - np.arange(n, dtype=np.int64)


def reversed_words(words, order: np.ndarray):
    """``words`` (:class:`~maltpy.tagging.words.Words`) with each sentence's words right to left
    (``order``: :func:`reversed_order`); each word's characters stay as they are."""
    lengths = np.diff(words.wstart)[order]
    wstart = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(lengths, out=wstart[1:])
    chars = np.repeat(words.wstart[:-1][order] - wstart[:-1], lengths) + np.arange(wstart[-1], dtype=np.int64)
    return type(words)(words.cps[chars], words.low[chars], words.shp[chars], wstart, words.sstart)


#: what :meth:`Tagger.describe` calls an ensemble's size
ENSEMBLE = "ensemble (taggers adding up their scores)"
#: ... and the margin above which the first tagger's class stands (--ensemble-margin)
ENSEMBLE_MARGIN = "ensemble margin (the first tagger settles the words it is this sure of)"
#: an ensemble adds its members' class scores up for this many (words x classes) at a time
ENSEMBLE_BLOCK_SCORES = 1 << 22


def sentence_blocks(sstart: np.ndarray, max_words: int) -> List[Tuple[int, int]]:
    """The sentences (``sstart``: their first words and the end) in runs [first, end) of at most
    ``max_words`` words each, a longer sentence a run of its own."""
    blocks, first, n = [], 0, len(sstart) - 1
    while first < n:
        end = int(np.searchsorted(sstart, sstart[first] + max(max_words, 1), side="right")) - 1
        end = min(max(end, first + 1), n)
        blocks.append((first, end))
        first = end
    return blocks


def _ensemble_block(values, fixed, known, views, form_keys, members, first, end, margin=None, buffer=None):
    """Tag sentences [first, end) with one group by every member of an ensemble (``members``:
    (group model, its runtime) each, the first member first), each reading them in its direction
    (``views``: per direction the words and what :meth:`Tagger._predict_groups` made of them, the
    reversed ones' order; ``form_keys``: the words' own): each word's values (where ``fixed``
    does not keep them) are those of the class whose scores, added up over the members, are
    highest. A word the group's sure words (the first member's, which every member shares)
    settle takes its class; so does, with a ``margin``, a word whose first member's best class
    beats its second by at least that much (the other members do not score it). ``buffer``:
    float32 memory for the scores, reused from block to block where it is large enough (fresh
    memory for every block costs its page faults). The first member writes the rows of the words
    it scores and the others add to them: the rows of the words no member scores are never read,
    so nothing is zeroed."""
    from maltpy.tagging import perceptron
    words = views[False][0]
    a, b = int(words.sstart[first]), int(words.sstart[end])
    group, sure = members[0][0], members[0][1][3]
    size = (b - a) * group.class_values.shape[0]
    if buffer is not None and buffer.shape[0] >= size:
        total = buffer[:size].reshape(b - a, group.class_values.shape[0])
    else:
        total = np.empty((b - a, group.class_values.shape[0]), dtype=np.float32)
    out = np.empty(b - a, dtype=np.int32)
    preset = preset_classes(form_keys[a:b], values[:, a:b], known, sure, group.sure_classes)
    for m, (g, (fm, compiled, dense, _)) in enumerate(members):
        # sentences keep their places when each is reversed: the block is words [a, b) either way
        w, fx, lex, atoms, order = views[reads_backwards(m)]
        block = _words_between(w, first, end)
        rows = order[a:b] - a if order is not None else None
        # a copy: each member's pass writes its own tags as it goes
        vals = np.array(values[:, a:b][:, rows] if rows is not None else values[:, a:b], order="C")
        perceptron.predict(block.cps, block.low, block.shp, block.wstart, block.sstart, vals,
                           np.ascontiguousarray(fx[:, a:b]), fm, g.indptr, g.classes, g.weights, g.class_values,
                           g.rows, compiled, out, None, np.ascontiguousarray(lex[:, a:b]) if lex is not None else None,
                           dense.rows if dense else None, -1,
                           preset[rows] if preset is not None and rows is not None else preset,
                           (atoms[0][a:b], *atoms[1:]), total, rows, dense.row_of if dense else None, m > 0)
        if m == 0 and margin is not None and len(members) > 1:
            if preset is None:
                preset = np.full(b - a, -1, dtype=np.int32)
            # total holds the first member's scores alone: the words it is sure of are settled
            perceptron.settle_confident(total, preset, margin)
    if preset is None:
        best = np.argmax(total, axis=1).astype(np.int32)
    else:   # only the words left open are looked at (with a margin, a few in twenty)
        best = preset.copy()
        open_words = np.flatnonzero(preset < 0)
        best[open_words] = np.argmax(total[open_words], axis=1)
    chosen = group.class_values[best]
    for k, row in enumerate(group.rows):
        values[row, a:b] = np.where(fixed[row, a:b] != 0, values[row, a:b], chosen[:, k])


def _words_between(words, first, end):
    """The words of sentences [first, end) as :class:`~maltpy.tagging.words.Words` of their own."""
    a, b = int(words.sstart[first]), int(words.sstart[end])
    c, d = int(words.wstart[a]), int(words.wstart[b])
    return type(words)(words.cps[c:d], words.low[c:d], words.shp[c:d], words.wstart[a:b + 1] - c,
                       words.sstart[first:end + 1] - a)


def unique_pairs(first: np.ndarray, second: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(the distinct (first, second) pairs as rows sorted by first, then second; how often each
    occurs): ``np.unique(np.stack([first, second], axis=1), axis=0, return_counts=True)`` for two
    uint64 columns, by a lexsort instead of np.unique's sort of whole rows (3 times as fast)."""
    order = np.lexsort((second, first))
    a, b = first[order], second[order]
    starts = np.flatnonzero(np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]) if len(a) else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, len(a)]).astype(np.int64)
    return np.stack([a[starts], b[starts]], axis=1), counts


def unique_rows(rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(the distinct rows sorted, each row's index among them) of a 2-D array of small
    non-negative-or--1 ints: ``np.unique(rows, axis=0, return_inverse=True)``, by one int64 key a
    row whose order is the rows' order, instead of np.unique's sort of whole rows."""
    shifted = rows.astype(np.int64) + 1
    bases = shifted.max(axis=0) + 1 if len(rows) else np.ones(rows.shape[1], np.int64)
    if float(np.prod(bases.astype(np.float64))) >= 2.0 ** 62:
        found, inverse = np.unique(rows, axis=0, return_inverse=True)
        return found, inverse.reshape(-1)
    key = np.zeros(len(rows), dtype=np.int64)
    for k in range(rows.shape[1]):
        key = key * bases[k] + shifted[:, k]
    distinct, inverse = np.unique(key, return_inverse=True)
    found = np.empty((len(distinct), rows.shape[1]), dtype=rows.dtype)
    for k in range(rows.shape[1] - 1, -1, -1):
        distinct, found[:, k] = np.divmod(distinct, bases[k])
    found = found - 1
    return found.astype(rows.dtype), inverse.reshape(-1)


def build_lexicon(hashes: np.ndarray, values: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(form keys, class of each): a form's class numbers the set of values it was seen with
    (:data:`LEXICON_SHARE`, :data:`LEXICON_MIN_COUNT`)."""
    pairs, counts = unique_pairs(hashes.astype(np.uint64), values.astype(np.uint64))
    forms, where = np.unique(pairs[:, 0], return_inverse=True)
    totals = np.bincount(where.reshape(-1), weights=counts)
    keep = (counts >= LEXICON_SHARE * totals[where.reshape(-1)]) & (totals[where.reshape(-1)] >= LEXICON_MIN_COUNT)
    sets: Dict[int, list] = {}
    for form, value in pairs[keep].tolist():
        sets.setdefault(form, []).append(value)
    numbered: Dict[tuple, int] = {}
    keys = np.array(sorted(sets), dtype=np.uint64)
    classes = np.array([numbered.setdefault(tuple(sets[k]), len(numbered)) for k in keys.tolist()], dtype=np.int32)
    return keys, classes


def sure_words(keys: np.ndarray, classes: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(keys, class) of the word keys (:func:`word_keys`) that training gave one class at least
    SURE_COUNT times and another less than (1 - SURE_SHARE) of the time: tagging gives a word
    with such a key that class unscored."""
    if not len(keys):
        return np.zeros(0, np.uint64), np.zeros(0, np.int32)
    pairs, counts = unique_pairs(keys.astype(np.uint64), classes.astype(np.uint64))
    first = np.flatnonzero(np.r_[True, pairs[1:, 0] != pairs[:-1, 0]])
    totals = np.add.reduceat(counts, first)
    # the most frequent class of each key: sorted by key, then by count, most first
    top = np.lexsort((-counts, pairs[:, 0]))[first]
    keep = (totals >= SURE_COUNT) & (counts[top] >= SURE_SHARE * totals)
    return np.ascontiguousarray(pairs[top[keep], 0]), pairs[top[keep], 1].astype(np.int32)


def word_keys(forms: np.ndarray, values: np.ndarray, rows) -> np.ndarray:
    """Each word's form key mixed with its values in ``rows`` (the tags the groups before a group
    gave it): what that group's sure words are looked up by."""
    from maltpy.tagging.chunks import pair_keys
    for r in rows:
        forms = pair_keys(forms, np.ascontiguousarray(values[r]))
    return forms


def preset_classes(forms: np.ndarray, values: np.ndarray, rows, sure, sure_classes) -> Optional[np.ndarray]:
    """Per word the class a group's sure words give it (-1: none), or None when the group has
    none; ``forms``: the words' form keys, ``rows``: the columns of the groups before it."""
    if sure is None:
        return None
    from maltpy.tagging.chunks import dictionary_entries
    entries = dictionary_entries(word_keys(forms, values, rows), sure)
    return np.where(entries >= 0, sure_classes[np.maximum(entries, 0)], -1).astype(np.int32)


def sorted_ids(strings: Sequence[str]) -> Tuple[Tuple[str, ...], np.ndarray]:
    """(the distinct strings sorted, each string's index among them): np.unique's answer, with a
    dictionary instead of sorting every string (a column of 200,000 words sorts in 0.3 s)."""
    index: Dict[str, int] = {}
    first = np.fromiter((index.setdefault(x, len(index)) for x in strings), dtype=np.int64, count=len(strings))
    found = tuple(sorted(index))
    rank = np.empty(len(found), dtype=np.int64)
    rank[[index[x] for x in found]] = np.arange(len(found))
    return found, rank[first]


#: groups of at most this many classes are scored with dense rows (features x classes floats:
#: EWT's UPOS and XPOS models take 8 and 7 MB so); larger ones entry by entry, but for the
#: features with at least HEAVY_MIN_ENTRIES entries (few and frequent: EWT's FEATS 443 of 34,430,
#: 0.4 MB), which have dense rows too. 24 by instruction counts of tagging EWT dev (8: +2.5 %,
#: 48: +0.5 %; docs/tagging.md)
DENSE_MAX_CLASSES = 64
HEAVY_MIN_ENTRIES = 24


class DenseRows(NamedTuple):
    """A group's weights as dense rows of all its classes: ``rows[row_of[f]]`` for feature f
    (``row_of`` None: ``rows[f]`` for every feature; -1: f has its CSR entries only)."""
    rows: np.ndarray
    row_of: Optional[np.ndarray]


def dense_weights(group) -> Optional[DenseRows]:
    """A group's weights as dense rows: every feature's for a group of few classes, the heavy
    features' for the others (None for a group without features)."""
    n_classes = group.class_values.shape[0]
    if not len(group.keys):
        return None
    from maltpy.tagging import perceptron
    if n_classes > DENSE_MAX_CLASSES:
        row_of, rows = perceptron.heavy_rows(group.indptr, group.classes, group.weights, n_classes, HEAVY_MIN_ENTRIES)
        return DenseRows(rows, row_of)
    return DenseRows(perceptron.dense_rows(group.indptr, group.classes, group.weights, n_classes), None)


def lexicon_array(lexicons, hashes: np.ndarray, maps=None) -> np.ndarray:
    """The lexicon class of every word per row (-1: none), as the compiled loops read it
    (``maps``: each row's feature map of its keys, when made already). The rows past the tag
    columns' are the word clusters' tables."""
    from maltpy.features.featmap import FeatMap
    from maltpy.tagging import perceptron
    out = np.full((max([N_ROWS - 1, *(lexicons or {})]) + 1, len(hashes)), -1, dtype=np.int32)
    rows_of_keys: Dict[int, list] = {}      # the cluster tables share their keys: looked up once
    for row, (keys, _) in (lexicons or {}).items():
        rows_of_keys.setdefault(id(keys), []).append(row)
    for rows in rows_of_keys.values():
        keys, classes = lexicons[rows[0]]
        table = maps[rows[0]] if maps else FeatMap.from_keys(keys)
        if len(rows) == 1:
            out[rows[0]] = perceptron.lexicon_classes(hashes, table, classes)
            continue
        found = perceptron.lexicon_classes(hashes, table, np.arange(len(keys), dtype=np.int32))
        for row in rows:
            out[row] = np.where(found >= 0, lexicons[row][1][found], -1)
    return out


def parse_columns(text) -> Tuple[Tuple[str, ...], ...]:
    """``"upos,xpos,feats,lemma"`` -> groups ``(("upos",), ("xpos",), ...)``; ``+`` joins columns
    predicted jointly (``"upos+xpos+feats,lemma"``). Groups are put in tagging order. ``"all"``:
    each of the four on its own (:meth:`Tagger.fit` then leaves out those the data lacks)."""
    if isinstance(text, (list, tuple)):
        text = ",".join(text)
    if isinstance(text, str) and text.strip().lower() == "all":
        return tuple((c,) for c in COLUMN_ORDER)
    if not isinstance(text, str) or not text.strip():
        raise MaltpyError(f"tagger: expected columns such as 'upos,xpos,feats,lemma', got {text!r}")
    groups, seen = [], set()
    for part in text.split(","):
        names = tuple(n.strip().lower() for n in part.split("+"))
        for n in names:
            if n not in TAG_COLUMNS:
                raise MaltpyError(f"tagger: {n!r} is not a column the tagger learns (it learns "
                                  f"{', '.join(COLUMN_ORDER)}; '+' joins columns tagged jointly)")
            if n in seen:
                raise MaltpyError(f"tagger: {n} is named twice in {text!r}")
            seen.add(n)
        if "lemma" in names and len(names) > 1:
            raise MaltpyError("tagger: lemma is learned on its own (its classes are edit rules), not joined with tags")
        groups.append(tuple(sorted(names, key=COLUMN_ORDER.index)))
    return tuple(sorted(groups, key=lambda g: COLUMN_ORDER.index(g[0])))


@dataclass(frozen=True)
class GroupModel:
    """One group's learned model: its columns, its classes (value ids per column) and its
    averaged weights as CSR rows over the feature keys."""
    columns: Tuple[str, ...]
    templates: Tuple[str, ...]
    class_values: np.ndarray   # int32 [n_classes, len(columns)]
    keys: np.ndarray           # uint64 feature keys, id order
    indptr: np.ndarray         # int64 [n_features + 1]
    classes: np.ndarray        # int32
    weights: np.ndarray        # float32
    accuracy: Tuple[float, ...] = ()   # training accuracy per epoch
    #: word keys (form and the earlier groups' tags, :func:`word_keys`) tagged unscored, and their class
    sure_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    sure_classes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    @property
    def rows(self) -> np.ndarray:
        return np.array([ROW[c] for c in self.columns], dtype=np.int32)


@dataclass(frozen=True)
class TaggerModel:
    """Everything a trained tagger is: the groups in order, each column's values, the lemma
    dictionary, and how it was trained."""
    groups: Tuple[GroupModel, ...]
    vocab: Dict[str, Tuple[str, ...]]            # column -> its values (LEMMA: edit rules)
    lemmas: Dict[Tuple[str, str], str]           # (form, upos) -> lemma seen unambiguously
    epochs: int
    seed: int
    statistics: Dict[str, float]
    #: row -> (lowercased form keys, class of each): what Lexicon(C, ...) templates read; the rows
    #: from N_ROWS on are the word clusters' tables, one per prefix length in ``cluster_lengths``
    lexicons: Dict[int, Tuple[np.ndarray, np.ndarray]] = None
    cluster_lengths: Tuple[int, ...] = ()
    #: where the clusters came from: {"file": its name, "words": how many it gave}
    clusters: Optional[Dict] = None
    #: an ensemble's members after the first (:func:`reads_backwards`, :func:`member_seed`): each
    #: the groups before the lemma's, learned again
    members: Tuple[Tuple[GroupModel, ...], ...] = ()
    #: the templates it learned with, for people (:func:`templates_label`; "" in older files)
    templates: str = ""

    @property
    def ensemble(self) -> int:
        """How many taggers add up their scores (1: no ensemble)."""
        return 1 + len(self.members)

    @property
    def cluster_rows(self) -> Dict[int, int]:
        """Cluster prefix length -> its lexicon row."""
        return cluster_rows(self.cluster_lengths, N_ROWS)

    @property
    def columns(self) -> Tuple[str, ...]:
        return tuple(c for g in self.groups for c in g.columns)


class Tagger:
    """A tagger and lemmatizer learned from a treebank (scikit-learn's habits: settings in
    ``__init__``, :meth:`fit` learns ``model_``).

    ``columns``: what to learn (``"upos,xpos,feats,lemma"``; ``+`` joins columns tagged jointly);
    ``templates``: a YAML file of templates per column (default: the shipped ones);
    ``epochs``, ``seed``: the perceptron's passes and its shuffling; ``jobs``: threads (groups
    train side by side). ``retag``: whether tagging replaces tags the input gives (default: a
    column a sentence gives whole is kept, and used by the columns tagged after it).
    ``clusters``: word clusters learned on unannotated text (a brown-cluster ``paths`` file or
    a :class:`~maltpy.formats.clusters.WordClusters`), read by the ``Cluster`` templates; the
    model keeps the tables it reads. ``ensemble``: how many taggers learn each column but the
    lemma and add up their scores, half of them reading right to left (the module's doc; K times
    the learning and tagging). ``ensemble_margin``: when given (> 0), a word whose first member's
    best class beats its second by at least this much takes that class, and the other members
    score only the rest (faster, nearly the same tags: docs/tagging.md, "The ensemble's sure
    words"); it is a tagging setting, kept with the model."""

    def __init__(self, columns="upos,xpos,feats,lemma", templates: Optional[str] = None,
                 epochs: int = DEFAULT_EPOCHS, seed: int = 1, jobs: int = 1, retag: bool = False,
                 skip_empty: bool = False, clusters=None, ensemble: int = 1,
                 ensemble_margin: Optional[float] = None):
        self.groups = parse_columns(columns)
        # "all", or skip_empty (a jackknifing fold's tagger, whose part of the data may leave a
        # column the whole data has empty): the groups whose columns the data leaves _ are not learned
        self.every_column = skip_empty or (isinstance(columns, str) and columns.strip().lower() == "all")
        if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
            raise MaltpyError(f"tagger epochs must be a positive integer, not {epochs!r}")
        if isinstance(ensemble, bool) or not isinstance(ensemble, int) or not 1 <= ensemble <= MAX_ENSEMBLE:
            raise MaltpyError(f"the tagger's ensemble is 1 to {MAX_ENSEMBLE} taggers, not {ensemble!r}")
        self.ensemble = ensemble
        self.ensemble_margin = check_ensemble_margin(ensemble_margin)
        self.templates_path = templates
        self.epochs, self.seed, self.jobs, self.retag = epochs, int(seed), max(1, int(jobs)), bool(retag)
        if isinstance(clusters, (str, os.PathLike)):
            from maltpy.formats.clusters import WordClusters
            clusters = WordClusters.read(os.fspath(clusters))
        self.clusters = clusters
        self.model_: Optional[TaggerModel] = None
        self._cache = None    # what tagging makes of model_ once (_runtime)

    def __repr__(self):
        more = f", ensemble={self.ensemble}" if self.ensemble > 1 else ""
        return f"Tagger({','.join('+'.join(g) for g in self.groups)!r}{more})"

    # ------------------------------------------------------------------ learning
    def _templates(self) -> Tuple[Dict[str, List[str]], str, bool]:
        """Column -> template strings, their file, and whether it is a shipped set
        (:func:`resolve_templates`)."""
        path, shipped = resolve_templates(self.templates_path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise MaltpyError(f"{path}: cannot read the tagger templates ({getattr(e, 'strerror', None) or e})") from None
        found = load_templates(text, path)
        for group in self.groups:
            if group[0] not in found:
                raise MaltpyError(f"{path}: no templates for {group[0]}")
        return found, path, shipped

    def groups_to_learn(self, rows, log=None):
        """The groups :meth:`fit` learns from training ``rows``: with "all" those whose columns the
        data fills (an error when none is); otherwise every group, and a column the data leaves _
        throughout is an error."""
        empty = {c for g in self.groups for c in g if all(r[TAG_COLUMNS[c]] == "_" for r in rows)}
        if not self.every_column:
            for c in COLUMN_ORDER:
                if c in empty:
                    raise MaltpyError(f"the training data's {c} column is empty (_): the tagger cannot learn it; "
                                      f"leave {c} out of the tagger's columns (or give 'all': the columns it has)")
            return self.groups
        groups = tuple(g for g in self.groups if g[0] not in empty)
        if not groups:
            raise MaltpyError("the training data's UPOS, XPOS, FEATS and LEMMA columns are all empty (_): "
                              "there is nothing to learn a tagger from")
        if empty and log is not None:
            log(f"tagger: the training data has no {', '.join(c for c in COLUMN_ORDER if c in empty)} "
                "(the column is _): not learned")
        return groups

    def fit(self, sentences: Sequence, log=None) -> "Tagger":
        """Learn every group from the gold columns of ``sentences``; returns self."""
        from maltpy.features.featmap import FeatMap
        from maltpy.tagging import perceptron
        from maltpy.tagging.lemma import lemma_rule, unambiguous_lemmas
        from maltpy.tagging.words import words_of
        t0 = time.perf_counter()
        sentences = [s for s in sentences if len(s)]
        if not sentences:
            raise MaltpyError("the tagger needs training sentences with words")
        templates, templates_path, shipped = self._templates()
        words = words_of(sentences)
        rows = [r for s in sentences for r in s.rows]
        groups = self.groups_to_learn(rows, log)
        columns = [c for g in groups for c in g]
        values = np.full((N_ROWS, len(rows)), -1, dtype=np.int32)
        vocab = {}
        for c in columns:
            strings = [r[TAG_COLUMNS[c]] for r in rows]
            if c == "lemma":
                rules = {}
                strings = [rules.setdefault((r[1], s), lemma_rule(r[1], s)) if s != "_" else "_"
                           for r, s in zip(rows, strings)]
            vocab[c], values[ROW[c]] = sorted_ids(strings)
        chosen = []
        known: List[int] = []
        for group in groups:
            own = [ROW[c] for c in group]
            texts = templates[group[0]]
            if shipped:   # a shipped set, for any choice of columns
                texts = usable_templates(texts, known, own, clusters=self.clusters is not None)
            chosen.append((group, tuple(texts), list(known), own))
            known += own
        lengths = tuple(cluster_lengths([t for _, texts, _, _ in chosen for t in texts])) \
            if self.clusters is not None else ()
        rows_of_lengths = cluster_rows(lengths, N_ROWS)
        tasks = []
        where = f"{self.templates_path}: templates" if self.templates_path else "templates"
        for group, texts, before, own in chosen:
            compiled = compile_templates(texts, before, own, f"{where} for {group[0]}", rows_of_lengths)
            class_values, gold = unique_rows(values[own].T)
            for member in range(self.ensemble if group != ("lemma",) else 1):
                tasks.append((group, texts, compiled, np.ascontiguousarray(class_values, dtype=np.int32),
                              gold.reshape(-1).astype(np.int32), before, member))

        hashes = perceptron.form_hashes(words.low, words.wstart)
        lexicons = {row: build_lexicon(hashes, values[row])
                    for row in lexicon_rows([t for task in tasks for t in task[1]])}
        cluster_info = None
        if lengths:
            from maltpy.tagging.clusters import cluster_tables
            keys, classes = cluster_tables(self.clusters, lengths)
            lexicons.update({rows_of_lengths[n]: (keys, c) for n, c in zip(lengths, classes)})
            cluster_info = {"file": self.clusters.source, "words": int(len(keys))}
        lexicon = lexicon_array(lexicons, hashes)

        exact = perceptron.form_hashes(words.cps, words.wstart)
        views = {False: (words, values, lexicon, None)}
        if self.ensemble > 1:     # the members that read right to left learn from reversed sentences
            order = reversed_order(words.sstart)
            views[True] = (reversed_words(words, order), np.ascontiguousarray(values[:, order]),
                           np.ascontiguousarray(lexicon[:, order]), order)

        # each group's sure words, which every member of an ensemble shares (the same words and tags
        # whichever way they are read); the lemma's dictionary does what sure words would
        sure = {}
        for group, _, _, _, gold, before, member in tasks:
            if member == 0:
                keys, classes = sure_words(word_keys(exact, values, before), gold) \
                    if group != ("lemma",) else (exact[:0], gold[:0])
                # the sure words take their class unscored when tagging, so they teach nothing here either
                sure[group] = keys, classes, preset_classes(exact, values, before, FeatMap.from_keys(keys),
                                                            classes) if len(keys) else None

        def train(task):
            group, texts, compiled, class_values, gold, before, member = task
            w, vals, lex, order = views[reads_backwards(member)]
            sure_keys, sure_classes, preset = sure[group]
            if order is not None:
                gold = gold[order]
                preset = preset[order] if preset is not None else None
            keys, indptr, classes, weights, correct = perceptron.train(
                w.cps, w.low, w.shp, w.wstart, w.sstart, vals.copy(), gold, class_values,
                np.array([ROW[c] for c in group], dtype=np.int32), compiled, self.epochs,
                member_seed(self.seed, member), lex, preset)
            return GroupModel(group, texts, class_values, keys, indptr, classes, weights,
                              tuple(float(c) / len(rows) for c in correct), sure_keys, sure_classes)

        from concurrent.futures import ThreadPoolExecutor    # learning only: not in tagging's start-up
        with ThreadPoolExecutor(min(self.jobs, len(tasks))) as pool:
            learned = list(pool.map(train, tasks))
        groups = tuple(g for g, task in zip(learned, tasks) if task[-1] == 0)
        # (a tagger of the lemma alone has nothing for an ensemble to score)
        members = tuple(tuple(g for g, task in zip(learned, tasks) if task[-1] == m) for m in range(1, self.ensemble)
                        if len(groups) > 1 or groups[0].columns != ("lemma",))
        lemmas = {}
        if "lemma" in columns:
            upos = [r[3] if "upos" in columns else "_" for r in rows]
            lemmas = unambiguous_lemmas((r[1], u, r[2]) for r, u in zip(rows, upos) if r[2] != "_")
        seconds = time.perf_counter() - t0
        self.model_ = TaggerModel(groups, vocab, lemmas, self.epochs, self.seed, lexicons=lexicons, statistics=
                                  {"sentences": len(sentences), "words": len(rows), "seconds": round(seconds, 2)},
                                  cluster_lengths=lengths, clusters=cluster_info, members=members,
                                  templates=templates_label(templates_path, shipped))
        if log is not None:
            log(self.describe_training())
        return self

    def describe_training(self) -> str:
        """One line: each group's accuracy on the training words in the last epoch, and the time."""
        model = self._fitted()
        return ("tagger: " + ", ".join(f"{'+'.join(g.columns)} {100 * g.accuracy[-1]:.2f} %" for g in model.groups)
                + " of the training words in the last epoch"
                + (f" (the first of {model.ensemble} taggers)" if model.members else "")
                + f"; {model.statistics.get('seconds', 0):.1f} s")

    # ------------------------------------------------------------------ tagging
    def tag(self, sentences: Sequence, retag: Optional[bool] = None) -> List:
        """Copies of ``sentences`` with the tagger's columns filled. A column a sentence gives
        whole (no ``_``; FEATS: any word's features) is kept unless ``retag`` (default: the
        tagger's setting)."""
        from maltpy.formats.conll import Sentence
        from maltpy.tagging.lemma import apply_rule
        from maltpy.tagging.words import words_of
        model = self._fitted()
        retag = self.retag if retag is None else retag
        sentences = list(sentences)
        if not sentences:
            return []
        words = words_of(sentences)
        n = words.n_words
        values = np.full((N_ROWS, n), -1, dtype=np.int32)
        fixed = np.zeros((N_ROWS, n), dtype=np.int8)
        columns = model.columns
        if not retag:
            self._given(sentences, words, values, fixed)
        forms = [r[1] for s in sentences for r in s.rows]
        lemmas = [None] * n

        def dictionary_words(form_keys):
            lemmas[:] = self._dictionary_lemmas(forms, values, fixed)
            return np.fromiter((x is not None for x in lemmas), dtype=np.int8, count=n)

        self._predict_groups(words, values, fixed, dictionary_words)
        written = [(TAG_COLUMNS[c], model.vocab[c], values[ROW[c]].tolist(), fixed[ROW[c]].tolist())
                   for c in columns if c != "lemma"]
        if "lemma" in columns:
            rules, lemma_ids, lemma_fixed = model.vocab["lemma"], values[ROW["lemma"]].tolist(), fixed[ROW["lemma"]].tolist()
        result, w = [], 0
        for s in sentences:
            rows = []
            for r in s.rows:
                r = list(r)
                for col, table, ids, kept in written:
                    if not kept[w]:
                        r[col] = table[ids[w]]
                if "lemma" in columns and not lemma_fixed[w]:
                    r[2] = lemmas[w] if lemmas[w] is not None else apply_rule(r[1], rules[lemma_ids[w]])
                rows.append(r)
                w += 1
            result.append(Sentence(rows, s.extra, s.first_line, s.source, s.format))
        return result

    def _predict_groups(self, words, values, fixed, lemma_skip, atom_buffer=None, score_buffer=None):
        """Tag ``words`` group by group into ``values`` (where ``fixed`` does not keep the input's),
        for :meth:`tag` and the compiled path alike. ``lemma_skip(form_keys)``, called when the
        groups before the lemma's are tagged, gives the words the lemma dictionary settles (their
        rule is left unscored); ``atom_buffer``: memory for the words' atoms, ``score_buffer``:
        for an ensemble's scores (:data:`ENSEMBLE_BLOCK_SCORES` float32), reused by the caller
        (without it, each block of sentences has memory of its own)."""
        from maltpy.tagging import perceptron
        model = self._fitted()
        groups, _, maps, kinds, member_groups = self._runtime()
        lexicon = lexicon_array(model.lexicons, perceptron.form_hashes(words.low, words.wstart), maps) \
            if model.lexicons else None
        form_keys = perceptron.form_hashes(words.cps, words.wstart)
        atoms = perceptron.word_atoms(words.cps, words.low, words.shp, words.wstart, kinds, atom_buffer)
        out = np.empty(words.n_words, dtype=np.int32)
        known, views = [], None
        for k, (g, runtime) in enumerate(zip(model.groups, groups)):
            skip = lemma_skip(form_keys) if g.columns == ("lemma",) else None
            if not model.members or k >= len(model.members[0]):
                fm, compiled, dense, sure = runtime
                perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values, fixed, fm,
                                   g.indptr, g.classes, g.weights, g.class_values, g.rows, compiled, out, skip,
                                   lexicon, dense.rows if dense else None, -1,
                                   preset_classes(form_keys, values, known, sure, g.sure_classes), atoms,
                                   dense_of=dense.row_of if dense else None)
            else:
                if views is None:    # the words as each direction reads them, once for every group
                    order = reversed_order(words.sstart)
                    views = {False: (words, fixed, lexicon, atoms, None),
                             True: (reversed_words(words, order), np.ascontiguousarray(fixed[:, order]),
                                    np.ascontiguousarray(lexicon[:, order]) if lexicon is not None else None,
                                    (np.ascontiguousarray(atoms[0][order]), *atoms[1:]), order)}
                members = [(g, runtime)] + [(m[k], rt[k]) for m, rt in zip(model.members, member_groups)]
                for first, end in sentence_blocks(words.sstart, ENSEMBLE_BLOCK_SCORES // g.class_values.shape[0]):
                    _ensemble_block(values, fixed, known, views, form_keys, members, first, end,
                                    self.ensemble_margin, score_buffer)
            known += [ROW[c] for c in g.columns]

    def _dictionary_lemmas(self, forms, values, fixed):
        """Per word the lemma the dictionary gives for its form and UPOS (None where it gives none)."""
        model = self.model_
        table = model.lemmas
        if "upos" not in model.vocab:
            return [table.get((f, "_")) for f in forms]
        upos, row, given = model.vocab["upos"], values[ROW["upos"]].tolist(), fixed[ROW["upos"]].tolist()
        # a UPOS the input gives may be one the tagger never saw (its id is past the known ones)
        return [table.get((f, upos[u] if u < len(upos) else None)) if not g or u < len(upos) else None
                for f, u, g in zip(forms, row, given)]

    def _given(self, sentences, words, values, fixed):
        """Mark the columns each sentence gives whole as fixed, with their value ids (a value the
        tagger never saw gets an id of its own, past the known ones). FEATS counts as given when
        any word of the sentence has features (_ is then an empty feature set)."""
        model, index = self.model_, self._runtime()[1]
        starts = words.sstart
        for k, s in enumerate(sentences):
            a, b = starts[k], starts[k + 1]
            for c in model.columns:
                col = TAG_COLUMNS[c]
                strings = [r[col] for r in s.rows]
                # FEATS _ is an empty feature set where other words of the sentence have features
                if not strings or (all(v == "_" for v in strings) if c == "feats" else "_" in strings):
                    continue
                unknown = len(model.vocab[c])
                fixed[ROW[c], a:b] = 1
                # a given lemma is kept as it is; as a feature it is a value of its own
                values[ROW[c], a:b] = [index[c].get(v, unknown) for v in strings] if c != "lemma" else unknown

    def _runtime(self):
        """What tagging needs besides the model, made once: per group its feature map, compiled
        templates, dense weights and sure words; per column a value -> id index; the lexicons'
        feature maps; the character atoms the groups' templates read."""
        if self._cache is None or self._cache[0] is not self.model_:
            from maltpy.features.featmap import FeatMap
            model = self._fitted()
            known, groups = [], []
            for g in model.groups:
                own = [ROW[c] for c in g.columns]
                groups.append((FeatMap.from_keys(g.keys),
                               compile_templates(g.templates, known, own, f"templates for {g.columns[0]}",
                                                 model.cluster_rows),
                               dense_weights(g),
                               FeatMap.from_keys(g.sure_keys) if len(g.sure_keys) else None))
                known += own
            # an ensemble's members compile the same templates and share the sure words: their own
            # maps and weights
            member_groups = [[(FeatMap.from_keys(g.keys), compiled, dense_weights(g), sure)
                              for g, (_, compiled, _, sure) in zip(member, groups)] for member in model.members]
            index = {c: {v: i for i, v in enumerate(model.vocab[c])} for c in model.columns}
            # the cluster tables share their keys: one map for them all
            made = {}
            maps = {row: made[id(keys)] if id(keys) in made else made.setdefault(id(keys), FeatMap.from_keys(keys))
                    for row, (keys, _) in (model.lexicons or {}).items()}
            from maltpy.tagging.perceptron import atom_kinds
            self._cache = (model, groups, index, maps, atom_kinds([g[1] for g in groups]), member_groups)
        return self._cache[1:]

    def _fitted(self) -> TaggerModel:
        if self.model_ is None:
            raise MaltpyError("this tagger is not trained: call fit() or load a model file that has a tagger")
        return self.model_

    # ------------------------------------------------------------------ bytes
    def to_bytes(self) -> bytes:
        """The trained tagger as bytes (a model file's JSON header and arrays; no pickle)."""
        from maltpy.parsing.modelfile import model_bytes
        from maltpy.version import __version__
        model = self._fitted()
        entries = [(f, u, l) for (f, u), l in sorted(model.lemmas.items())]
        arrays = {}
        # the first member's groups as g<k>_..., member m's as m<m>g<k>_... (the same classes)
        for prefix, groups in [("", model.groups)] + [(f"m{m}", member) for m, member in enumerate(model.members, 1)]:
            for k, g in enumerate(groups):
                name = f"{prefix}g{k}_"
                arrays.update({name + "keys": g.keys, name + "indptr": g.indptr, name + "classes": g.classes,
                               name + "weights": g.weights})
                if not prefix:    # a member's classes and sure words are the first member's
                    arrays[name + "class_values"] = g.class_values
                    if len(g.sure_keys):
                        arrays.update({name + "sure_keys": g.sure_keys, name + "sure_classes": g.sure_classes})
        header = {
            "maltpy_version": __version__, "component": "tagger",
            "groups": [{"columns": list(g.columns), "templates": list(g.templates), "accuracy": list(g.accuracy)}
                       for g in model.groups],
            **{f"vocab_{c}": list(v) for c, v in model.vocab.items()},
            # three columns of one line per entry: loads with three splits, not a list per entry
            "lemmas": {name: "\n".join(entry[k] for entry in entries)
                       for k, name in enumerate(("forms", "upos", "lemmas"))},
            "epochs": model.epochs, "seed": model.seed, "retag": self.retag, "statistics": model.statistics,
            "lexicons": sorted(r for r in (model.lexicons or {}) if r < N_ROWS),
        }
        if model.templates:
            header["templates"] = model.templates
        if model.members:
            header["ensemble"] = {"taggers": model.ensemble,
                                  "accuracy": [[list(g.accuracy) for g in member] for member in model.members]}
            if self.ensemble_margin is not None:
                header["ensemble"]["margin"] = self.ensemble_margin
        for row, (keys, classes) in (model.lexicons or {}).items():
            if row < N_ROWS:
                arrays.update({f"lex{row}_keys": keys, f"lex{row}_classes": classes})
        if model.cluster_lengths:
            # one key array for the tables of every prefix length
            header.update({"cluster_lengths": list(model.cluster_lengths), "clusters": model.clusters or {}})
            rows = model.cluster_rows
            arrays["cluster_keys"] = model.lexicons[rows[model.cluster_lengths[0]]][0]
            for k, n in enumerate(model.cluster_lengths):
                arrays[f"cluster{k}_classes"] = model.lexicons[rows[n]][1]
        return model_bytes(header, arrays)

    @classmethod
    def from_bytes(cls, data: bytes, path: str = "<tagger bytes>", retag: Optional[bool] = None,
                   ensemble_margin=None) -> "Tagger":
        """A tagger from :meth:`to_bytes`; everything is checked, nothing is run. ``retag``,
        ``ensemble_margin``: tagging settings instead of the model's (``"none"``: no margin)."""
        from maltpy.parsing.modelfile import HeaderReader, check_array, load_model
        header, arrays = load_model(path, data=bytes(data))
        h = HeaderReader(header, path)
        specs = h.get("groups")
        if not isinstance(specs, list) or not specs or not all(isinstance(g, dict) for g in specs):
            h.fail("the tagger's groups are damaged")
        try:
            groups = parse_columns(",".join("+".join(g.get("columns") or ()) for g in specs))
        except (MaltpyError, TypeError) as e:
            h.fail(f"the tagger's columns: {e}")
        vocab = {c: tuple(h.strings(f"vocab_{c}")) for group in groups for c in group}
        if not all(vocab.values()):
            h.fail("a tagged column has no values")
        table = h.mapping("lemmas")
        columns = [table.get(name) for name in ("forms", "upos", "lemmas")]
        if not all(isinstance(c, str) and "\t" not in c and "\r" not in c for c in columns):
            h.fail("the lemma dictionary is damaged")
        forms, upos, lemma_list = (c.split("\n") if c else [] for c in columns)
        if not len(forms) == len(upos) == len(lemma_list) or "" in forms or "" in upos or "" in lemma_list:
            h.fail("the lemma dictionary is damaged")
        lemmas = dict(zip(zip(forms, upos), lemma_list))
        models = []
        for k, (group, spec) in enumerate(zip(groups, specs)):
            texts = spec.get("templates")
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                h.fail(f"the templates of group {k + 1} are damaged")
            sizes = [len(vocab[c]) for c in group]
            cv = check_array(arrays, f"g{k}_class_values", path, "i", ndim=2, low=0, high=max(sizes) - 1)
            if cv.shape[1] != len(group) or not cv.shape[0] or (cv >= np.array(sizes)).any():
                h.fail(f"the classes of group {k + 1} do not fit its columns")
            models.append(_group_from_arrays(h, arrays, path, f"g{k}_", f"group {k + 1}", group, tuple(texts),
                                             np.ascontiguousarray(cv, dtype=np.int32), spec.get("accuracy")))
        ensemble = h.get("ensemble", optional=True)
        members = []
        if ensemble is not None:
            scored = [g for g in models if g.columns != ("lemma",)]
            accuracy = ensemble.get("accuracy") if isinstance(ensemble, dict) else None
            taggers = ensemble.get("taggers") if isinstance(ensemble, dict) else None
            if not isinstance(taggers, int) or isinstance(taggers, bool) or not 2 <= taggers <= MAX_ENSEMBLE \
                    or not scored or not isinstance(accuracy, list) or len(accuracy) != taggers - 1 \
                    or not all(isinstance(a, list) and len(a) == len(scored) for a in accuracy):
                h.fail("the tagger's ensemble is damaged")
            for m in range(1, taggers):
                members.append(tuple(
                    _group_from_arrays(h, arrays, path, f"m{m}g{k}_", f"group {k + 1} of tagger {m + 1}", g.columns,
                                       g.templates, g.class_values, accuracy[m - 1][k], (g.sure_keys, g.sure_classes))
                    for k, g in enumerate(scored)))
        lexicons = {}
        rows = h.get("lexicons", optional=True) or []
        if not isinstance(rows, list) or not all(isinstance(r, int) and not isinstance(r, bool) and 0 <= r < N_ROWS
                                                 for r in rows):
            h.fail("the lexicon list is damaged")
        for row in rows:
            keys = check_array(arrays, f"lex{row}_keys", path, "u")
            classes = check_array(arrays, f"lex{row}_classes", path, "i", length=len(keys), low=0)
            lexicons[row] = (np.ascontiguousarray(keys, dtype=np.uint64), np.ascontiguousarray(classes, dtype=np.int32))
        lengths = h.get("cluster_lengths", optional=True) or []
        if not isinstance(lengths, list) or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 64
                                                    for n in lengths) or lengths != sorted(set(lengths)):
            h.fail("the word clusters' prefix lengths are damaged")
        cluster_info = h.get("clusters", optional=True) if lengths else None
        if lengths:
            if not isinstance(cluster_info, dict) or not isinstance(cluster_info.get("file"), str) \
                    or not isinstance(cluster_info.get("words"), int) or isinstance(cluster_info.get("words"), bool):
                h.fail("the word clusters' description is damaged")
            cluster_info = {"file": cluster_info["file"], "words": cluster_info["words"]}
            keys = np.ascontiguousarray(check_array(arrays, "cluster_keys", path, "u"), dtype=np.uint64)
            if len(keys) and (keys[1:] <= keys[:-1]).any():
                h.fail("the word clusters' keys are damaged")
            for k, row in enumerate(cluster_rows(lengths, N_ROWS).values()):
                classes = check_array(arrays, f"cluster{k}_classes", path, "i", length=len(keys), low=0)
                lexicons[row] = (keys, np.ascontiguousarray(classes, dtype=np.int32))
        epochs = h.integer("epochs", 1, 1 << 30)
        seed = h.get("seed")
        tagger = cls(",".join("+".join(g) for g in groups), epochs=epochs,
                     seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else 1,
                     retag=bool(h.get("retag", optional=True)) if retag is None else retag, ensemble=1 + len(members))
        stored = ensemble.get("margin") if isinstance(ensemble, dict) else None
        try:
            tagger.ensemble_margin = check_ensemble_margin(stored if ensemble_margin is None else ensemble_margin)
        except MaltpyError as e:
            if ensemble_margin is not None:
                raise
            h.fail(f"the tagger's ensemble is damaged: {e}")
        label = h.get("templates", optional=True)    # for people only: a one-line text or nothing
        label = label[:200] if isinstance(label, str) and label.isprintable() else ""
        tagger.model_ = TaggerModel(tuple(models), vocab, lemmas, epochs, tagger.seed, h.figures("statistics"),
                                    lexicons, tuple(lengths), cluster_info, tuple(members), label)
        try:
            tagger._runtime()   # templates compile and feature keys are distinct, or the file is damaged
            if set(lexicon_rows([t for g in models for t in g.templates])) - set(lexicons):
                h.fail("a template reads a lexicon the file does not hold")
        except ModelFileError:
            raise
        except (MaltpyError, ValueError) as e:
            h.fail(str(e))
        return tagger

    def describe(self) -> dict:
        """What the tagger learned, as plain data (``maltpy info``)."""
        model = self._fitted()
        return {"columns": ",".join("+".join(g.columns) for g in model.groups),
                "classes": {"+".join(g.columns): int(g.class_values.shape[0]) for g in model.groups},
                "features": {"+".join(g.columns): int(len(g.keys)) for g in model.groups},
                "training accuracy (last epoch, %)": {"+".join(g.columns): round(100 * g.accuracy[-1], 2)
                                                      for g in model.groups if g.accuracy},
                "sure words (tagged unscored)": {"+".join(g.columns): int(len(g.sure_keys)) for g in model.groups
                                                 if len(g.sure_keys)},
                **({ENSEMBLE: model.ensemble} if model.members else {}),
                **({ENSEMBLE_MARGIN: self.ensemble_margin} if model.members and self.ensemble_margin else {}),
                "lemma dictionary": len(model.lemmas), "epochs": model.epochs, **model.statistics,
                **({"templates": model.templates} if model.templates else {}),
                **({"word clusters": {**model.clusters, "prefix lengths": list(model.cluster_lengths)}}
                   if model.cluster_lengths else {})}



def _group_from_arrays(h, arrays, path, prefix, name, columns, templates, class_values, accuracy,
                       sure=None) -> GroupModel:
    """One group's model from a model file's arrays ``prefix``keys, ...: checked, nothing run
    (``sure``: an ensemble member's sure words, the first member's, instead of its own arrays)."""
    from maltpy.parsing.modelfile import check_array
    keys = check_array(arrays, prefix + "keys", path, "u")
    indptr = check_array(arrays, prefix + "indptr", path, "i", length=len(keys) + 1, low=0)
    classes = check_array(arrays, prefix + "classes", path, "i", low=0, high=class_values.shape[0] - 1)
    weights = check_array(arrays, prefix + "weights", path, "f", length=len(classes))
    if indptr[0] != 0 or indptr[-1] != len(classes) or (np.diff(indptr) < 0).any():
        h.fail(f"the weights of {name} are damaged")
    sure_keys, sure_classes = sure or (np.zeros(0, np.uint64), np.zeros(0, np.int32))
    if sure is None and prefix + "sure_keys" in arrays:    # files before 2026-11-28 have none
        sure_keys = check_array(arrays, prefix + "sure_keys", path, "u")
        sure_classes = check_array(arrays, prefix + "sure_classes", path, "i", length=len(sure_keys), low=0,
                                   high=class_values.shape[0] - 1)
    return GroupModel(columns, templates, class_values,
                      np.ascontiguousarray(keys, dtype=np.uint64), np.ascontiguousarray(indptr, dtype=np.int64),
                      np.ascontiguousarray(classes, dtype=np.int32), np.ascontiguousarray(weights, dtype=np.float32),
                      tuple(float(a) for a in (accuracy if isinstance(accuracy, list) else [])
                            if isinstance(a, (int, float)) and not isinstance(a, bool)),
                      np.ascontiguousarray(sure_keys, dtype=np.uint64), np.ascontiguousarray(sure_classes, dtype=np.int32))
