"""Constituent scores as EVALB computes them with ``COLLINS.prm`` (Sekine & Collins 1997).

The figures are EVALB's to the last digit on the same files (``tests/transform/test_reduction.py``,
``docs/reduction.md``): labelled bracketing recall, precision and F-measure, complete match,
crossing brackets and tagging accuracy, for all sentences and for those of at most 40 words.
EVALB's rules, followed here:

* pre-terminals tagged ``-NONE-`` or as punctuation (``, : `` '' .``) are removed before
  anything is counted; constituents left without words are not counted;
* phrase labels lose their function tags (``NP-SBJ`` is ``NP``), ``TOP`` is not counted, and
  ``ADVP`` equals ``PRT``;
* a sentence's length, for the 40-word cut, counts every word but ``-NONE-`` (punctuation too);
* the unlabelled wrapper ``( ... )`` of treebank files is a bracket like any other (both files
  have it, so it always matches); ``ignore_wrapper=True`` leaves it out, which gives the figures
  of files written with ``TOP`` or without a wrapper, as most published results are;
* a sentence whose words differ from the gold sentence's is an error sentence and a test
  sentence without words is skipped; both are left out of the scores.

Where EVALB stops (more than 10 errors) or misreads (lines over 5,000 bytes, its repair of
quote tokens tagged differently in the two files), this module goes on and reports.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import List, Sequence, Tuple

from maltpy.errors import MaltpyError
from maltpy.formats.ptb import PtbTree, Tree

DELETE_LABELS = frozenset({"TOP", "-NONE-", ",", ":", "``", "''", "."})
DELETE_FOR_LENGTH = frozenset({"-NONE-"})
EQUAL_LABELS = {"PRT": "ADVP"}
CUTOFF = 40


def _modify_label(label: str) -> str:
    """EVALB's modify_label: the label up to its first '-' or '='."""
    for k, c in enumerate(label):
        if c in "-=":
            return label[:k]
    return label


def _canonical(label: str) -> str:
    return EQUAL_LABELS.get(label, label)


def sentence_items(item: PtbTree, ignore_wrapper: bool = False):
    """(terminals as (word, tag), brackets as (label, start, end), length for the cut-off) of
    one tree, as EVALB's read_line and massage_data make them."""
    terminals: List[Tuple[str, str]] = []
    brackets = []
    length = 0
    stack: List[Tuple[Tree, bool]] = [(item.tree, False)]
    open_at: List[int] = []
    while stack:
        t, done = stack.pop()
        if t.word is not None:
            if t.label not in DELETE_FOR_LENGTH:
                length += 1
            if t.label not in DELETE_LABELS:
                terminals.append((t.word, t.label))
            continue
        if done:
            start = open_at.pop()
            label = _modify_label(t.label)
            if start != len(terminals) and label not in DELETE_LABELS:
                brackets.append((_canonical(label), start, len(terminals)))
            continue
        open_at.append(len(terminals))
        stack.append((t, True))
        stack.extend((c, False) for c in reversed(t.children))
    if item.wrapped and not ignore_wrapper and terminals:
        brackets.append(("", 0, len(terminals)))
    return terminals, brackets, length


@dataclass
class Totals:
    sentences: int = 0
    errors: int = 0
    skipped: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    matched: int = 0
    complete: int = 0
    words: int = 0
    crossing: int = 0
    no_crossing: int = 0
    two_or_less: int = 0
    correct_tags: int = 0

    @property
    def valid(self) -> int:
        return self.sentences - self.errors - self.skipped

    @property
    def recall(self) -> float:
        return 100.0 * self.matched / self.gold_brackets if self.gold_brackets else 0.0

    @property
    def precision(self) -> float:
        return 100.0 * self.matched / self.test_brackets if self.test_brackets else 0.0

    @property
    def f1(self) -> float:
        r, p = self.recall, self.precision
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, bn1, bn2, match, words, crossing, tags):
        self.gold_brackets += bn1
        self.test_brackets += bn2
        self.matched += match
        self.complete += bn1 == bn2 == match
        self.words += words
        self.crossing += crossing
        self.no_crossing += crossing == 0
        self.two_or_less += crossing <= 2
        self.correct_tags += tags


@dataclass
class EvalbResult:
    all: Totals = field(default_factory=Totals)
    short: Totals = field(default_factory=Totals)
    messages: List[str] = field(default_factory=list)
    cutoff: int = CUTOFF


def _crossing(gold, test) -> int:
    """The test brackets that cross a gold bracket, as EVALB counts them: pair by pair, or for
    long sentences by :func:`_crossing_sweep` (pairs are quadratic in a sentence's brackets)."""
    if len(gold) * len(test) > 4096:
        return _crossing_sweep(gold, test)
    n = 0
    for _, s2, e2 in test:
        for _, s1, e1 in gold:
            if (s1 < s2 < e1 < e2) or (s2 < s1 < e2 < e1):
                n += 1
                break
    return n


def _crossing_sweep(gold, test) -> int:
    """:func:`_crossing` in O(b log b): a gold bracket crosses (s2, e2) where it starts before s2
    and ends strictly inside, or ends after e2 and starts strictly inside; each kind found by a
    sweep that counts the gold brackets' ends (starts) passed so far in a Fenwick tree."""
    size = max([e for _, _, e in gold] + [e for _, _, e in test] + [0]) + 2
    crosses = [False] * len(test)

    def sweep(gold_key, test_key, point, inside):
        tree = [0] * (size + 1)

        def add(x):
            x += 1
            while x <= size:
                tree[x] += 1
                x += x & -x

        def count_below(x):        # points < x
            total = 0
            while x > 0:
                total += tree[x]
                x -= x & -x
            return total
        golds = sorted(gold, key=gold_key)
        j = 0
        for t in sorted(range(len(test)), key=lambda i: test_key(test[i])):
            while j < len(golds) and inside(golds[j], test[t]):
                add(point(golds[j]))
                j += 1
            _, s2, e2 = test[t]
            if e2 - s2 > 1 and count_below(e2) - count_below(s2 + 1) > 0:
                crosses[t] = True
    # gold starting before s2 (sweep by start), its end strictly between s2 and e2
    sweep(lambda g: g[1], lambda b: b[1], lambda g: g[2], lambda g, b: g[1] < b[1])
    # gold ending after e2 (sweep by end, from the right), its start strictly between s2 and e2
    sweep(lambda g: -g[2], lambda b: -b[2], lambda g: g[1], lambda g, b: g[2] > b[2])
    return sum(crosses)


def evalb(gold: Sequence[PtbTree], test: Sequence[PtbTree], ignore_wrapper: bool = False,
          cutoff: int = CUTOFF, names=("gold", "test")) -> EvalbResult:
    """EVALB (``COLLINS.prm``) over two sequences or iterables of trees read with
    ``read_ptb(path, clean=False)`` or ``iter_ptb`` (a tree of each at a time: flat memory)."""
    if hasattr(gold, "__len__") and hasattr(test, "__len__"):
        _same_count(len(gold), len(test), names)
    result = EvalbResult(cutoff=cutoff)
    n_gold = n_test = 0
    for g, t in zip_longest(gold, test):
        n_gold += g is not None
        n_test += t is not None
        if g is None or t is None:
            continue
        k = n_gold
        w1, b1, length = sentence_items(g, ignore_wrapper)
        w2, b2, _ = sentence_items(t, ignore_wrapper)
        buckets = [result.all] + ([result.short] if length <= cutoff else [])
        status = 0
        if not w2:
            status = 2
        elif len(w1) != len(w2):
            status = 1
            result.messages.append(f"sentence {k}: length unmatch ({len(w1)}|{len(w2)})")
        else:
            diff = next((i for i, (a, b) in enumerate(zip(w1, w2)) if a[0] != b[0]), None)
            if diff is not None:
                status = 1
                result.messages.append(f"sentence {k}: words unmatch ({w1[diff][0]}|{w2[diff][0]})")
        for bucket in buckets:
            bucket.sentences += 1
            bucket.errors += status == 1
            bucket.skipped += status == 2
        if status:
            continue
        match = sum((Counter(b1) & Counter(b2)).values())
        tags = sum(_canonical(a[1]) == _canonical(b[1]) for a, b in zip(w1, w2))
        crossing = _crossing(b1, b2)
        for bucket in buckets:
            bucket.add(len(b1), len(b2), match, len(w1), crossing, tags)
    _same_count(n_gold, n_test, names)
    return result


def _same_count(n_gold: int, n_test: int, names) -> None:
    if n_gold != n_test:
        raise MaltpyError(f"{names[0]} has {n_gold} trees and {names[1]} has {n_test}: "
                          "the files must hold the same sentences")


def format_evalb(result: EvalbResult) -> str:
    """The summary as EVALB prints it."""
    lines = []
    for title, s in (("-- All --", result.all), (f"-- len<={result.cutoff} --", result.short)):
        valid = s.valid
        lines += ["", title,
                  f"Number of sentence        = {s.sentences:6d}",
                  f"Number of Error sentence  = {s.errors:6d}",
                  f"Number of Skip  sentence  = {s.skipped:6d}",
                  f"Number of Valid sentence  = {valid:6d}",
                  f"Bracketing Recall         = {s.recall:6.2f}",
                  f"Bracketing Precision      = {s.precision:6.2f}",
                  f"Bracketing FMeasure       = {s.f1:6.2f}",
                  f"Complete match            = {100.0 * s.complete / valid if valid else 0.0:6.2f}",
                  f"Average crossing          = {s.crossing / valid if valid else 0.0:6.2f}",
                  f"No crossing               = {100.0 * s.no_crossing / valid if valid else 0.0:6.2f}",
                  f"2 or less crossing        = {100.0 * s.two_or_less / valid if valid else 0.0:6.2f}",
                  f"Tagging accuracy          = {100.0 * s.correct_tags / s.words if s.words else 0.0:6.2f}"]
    return "=== Summary ===\n" + "\n".join(lines) + "\n"
