"""Labelled brackets of discontinuous constituent trees, as disco-dop's ``discodop eval`` counts
them with its ``proper.prm`` (or any EVALB-style parameter file).

A bracket is a constituent's label and the *set* of terminal positions it dominates (not a
span), so a discontinuous constituent is one bracket. Per sentence, as disco-dop does it:

- labels are the export file's categories and tags with ``(`` and ``)`` written ``[`` and ``]``,
  cut at a ``-`` or ``=`` after their first character (function tags removed);
- terminals whose *gold* tag is a ``DELETE_LABEL`` or whose word is a ``DELETE_WORD``
  (punctuation) are removed from both trees, and the rest renumbered;
- ``EQ_LABEL`` classes are merged; a phrasal node with a ``DELETE_LABEL`` (the root: ``ROOT``,
  ``VROOT``, ``TOP``) is no bracket, nor is a node left without terminals; unary chains count
  each node;
- brackets are multisets; recall, precision and F1 are over all sentences' brackets, exact
  match over sentences, POS accuracy over the kept terminals; ``CUTOFF_LEN`` (40) keeps the
  sentences of at most that many tokens, punctuation included;
- ``DISC_ONLY`` (``--disc-only``) keeps only discontinuous brackets (their terminals, renumbered,
  are not one run), and counts only sentences with one.

The figures are computed in ``decimal.Decimal`` and printed as disco-dop prints them, so that
they agree to the last digit (checked against disco-dop on the Alpino treebank).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Dict, FrozenSet, List, Optional, Tuple

from maltpy.errors import MaltpyError

#: disco-dop's proper.prm: root labels, punctuation tags of NEGRA/TIGER, Alpino and the Penn
#: Treebank, punctuation words, and ADVP = PRT
PROPER_DELETE_LABELS = frozenset({
    "NOPARSE", "TOP", "ROOT", "VROOT", "$,", "$(", "$[", "$.", "PUNCT", "punct", "LET[]", "LET()", "LET", "let[]",
    "let()", "let", ",", ":", "``", "''", ".", "-NONE-"})
PROPER_DELETE_WORDS = frozenset({
    ".", ",", ":", ";", "'", "`", '"', "``", "''", "-", "(", ")", "/", "&", "$", "!", "!!!", "?", "??", "???", "..",
    "...", "«", "»"})


@dataclass
class BracketParams:
    """What an EVALB-style parameter file says (the keys disco-dop reads)."""
    delete_labels: FrozenSet[str] = PROPER_DELETE_LABELS
    delete_words: FrozenSet[str] = PROPER_DELETE_WORDS
    delete_labels_for_length: FrozenSet[str] = frozenset()
    eq_labels: Dict[str, str] = field(default_factory=lambda: _classes([("ADVP", "PRT")]))
    eq_words: Dict[str, str] = field(default_factory=lambda: _classes([("-LRB-", "("), ("-RRB-", ")")]))
    cutoff: Optional[int] = 40
    labeled: bool = True
    disc_only: bool = False


def _classes(pairs) -> Dict[str, str]:
    """Each member of the equivalence classes the pairs make -> the class's smallest member."""
    parent: Dict[str, str] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {x: find(x) for x in parent}


def read_params(path: str) -> BracketParams:
    """An EVALB/disco-dop parameter file (``proper.prm``): DELETE_LABEL, DELETE_WORD,
    DELETE_LABEL_FOR_LENGTH, EQ_LABEL, EQ_WORD, CUTOFF_LEN, LABELED, DISC_ONLY; the other keys
    of those files (DEBUG, MAX_ERROR, ...) are read and left. An unknown key is an error."""
    sets = {"DELETE_LABEL": set(), "DELETE_WORD": set(), "DELETE_LABEL_FOR_LENGTH": set()}
    pairs = {"EQ_LABEL": [], "EQ_WORD": []}
    numbers = {"CUTOFF_LEN": 40, "LABELED": 1, "DISC_ONLY": 0}
    ignored = {"DEBUG", "MAX_ERROR", "LA", "TED", "DEP", "DELETE_ROOT_PRETERMS"}
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise MaltpyError(f"{path}: cannot read the parameter file ({e.strerror or e})") from None
    try:
        lines = raw.decode("utf-8-sig").splitlines()     # a byte-order mark dropped
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise MaltpyError(f"{path}:{line}: the parameter file is not UTF-8 (byte 0x{raw[e.start]:02x})") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.strip().partition(" ")
        value = value.strip()
        if key in sets:
            sets[key].add(value)
        elif key in pairs:
            both = value.split()
            if len(both) != 2:
                raise MaltpyError(f"{path}:{lineno}: {key} takes two values")
            pairs[key].append(tuple(both))
        elif key in numbers:
            try:
                numbers[key] = int(value)
            except ValueError:
                raise MaltpyError(f"{path}:{lineno}: {key} takes a whole number, not {value!r}") from None
        elif key not in ignored:
            raise MaltpyError(f"{path}:{lineno}: unknown parameter {key}")
    return BracketParams(frozenset(sets["DELETE_LABEL"]), frozenset(sets["DELETE_WORD"]),
                         frozenset(sets["DELETE_LABEL_FOR_LENGTH"]), _classes(pairs["EQ_LABEL"]),
                         _classes(pairs["EQ_WORD"]), numbers["CUTOFF_LEN"], bool(numbers["LABELED"]),
                         bool(numbers["DISC_ONLY"]))


def plain_label(tag: str) -> str:
    """A label as disco-dop reads it with its function tags removed."""
    label = tag.replace("(", "[").replace(")", "]")
    for char in "-=":
        x = label.find(char)
        if x > 0:
            label = label[:x]
    return label


def is_discontinuous(runs) -> bool:
    """Whether a bracket's terminals (its runs, as :func:`brackets` gives them) are more than one run."""
    return len(runs) > 1


def _node_runs(sentence, kept: Dict[int, int]) -> list:
    """The runs ((start, end), ... in order, ``end`` past the run's last position) of the kept
    terminals under each phrasal node of a tree, in the order of its nodes, built bottom-up from
    the children's runs: time in the number of runs, where sets of positions take time in the
    nodes' sizes (quadratic in a deep tree)."""
    ids = sentence.node_ids()
    at = {i: j for j, i in enumerate(ids)}
    pieces = [[] for _ in ids]
    for k, t in enumerate(sentence.tokens):
        if k in kept and t.parent in at:
            pieces[at[t.parent]].append((kept[k], kept[k] + 1))
    kids, tops = [[] for _ in ids], []
    for j, n in enumerate(sentence.nodes):
        (kids[at[n.parent]] if n.parent in at and at[n.parent] != j else tops).append(j)
    runs = [()] * len(ids)
    stack = [(j, False) for j in tops]
    while stack:            # children before their parent, without recursion (trees may be deep)
        j, ready = stack.pop()
        if not ready:
            stack.append((j, True))
            stack.extend((c, False) for c in kids[j])
            continue
        merged = []
        for a, b in sorted(pieces[j] + [r for c in kids[j] for r in runs[c]]):
            if merged and merged[-1][1] == a:
                merged[-1][1] = b
            else:
                merged.append([a, b])
        runs[j] = tuple((a, b) for a, b in merged)
    return runs


def brackets(sentence, kept: Dict[int, int], params: BracketParams) -> Counter:
    """The multiset of (label, runs of kept terminal positions, renumbered: ((start, end), ...)) of
    a tree's phrasal nodes (an :class:`~maltpy.formats.export.ExportSentence`); the same
    brackets as sets of positions, which disco-dop compares."""
    out = Counter()
    for node, runs in zip(sentence.nodes, _node_runs(sentence, kept)):
        label = plain_label(node.tag)
        label = params.eq_labels.get(label, label)
        if not runs or label in params.delete_labels:
            continue
        if params.disc_only and not is_discontinuous(runs):
            continue
        out[(label if params.labeled else "", runs)] += 1
    return out


@dataclass
class _Totals:
    sentences: int = 0
    longest: int = 0
    exact: int = 0
    gold: Counter = field(default_factory=Counter)
    system: Counter = field(default_factory=Counter)
    gold_tags: List[str] = field(default_factory=list)
    system_tags: List[str] = field(default_factory=list)

    def add(self, key, gold: Counter, system: Counter, length: int, tags: Tuple[list, list], disc_only: bool):
        counted = not disc_only or bool(gold) or bool(system)
        self.sentences += counted
        self.longest = max(self.longest, length)
        self.exact += counted and gold == system
        self.gold.update((key, b) for b in gold.elements())
        self.system.update((key, b) for b in system.elements())
        self.gold_tags.extend(tags[0])
        self.system_tags.extend(tags[1])

    def matched(self) -> int:
        return sum((self.gold & self.system).values())

    def recall(self):
        return Decimal(self.matched()) / sum(self.gold.values()) if self.gold else Decimal("NaN")

    def precision(self):
        return Decimal(self.matched()) / sum(self.system.values()) if self.system else Decimal("NaN")

    def f1(self):
        p, r = self.precision(), self.recall()
        if p == 0 or r == 0:
            return Decimal("NaN")
        half = Decimal(0.5)
        return Decimal(1) / (half / p + (1 - half) / r)

    def exact_match(self):
        return Decimal(self.exact) / self.sentences

    def tagging(self):
        return Decimal(sum(a == b for a, b in zip(self.gold_tags, self.system_tags))) / len(self.gold_tags)

    def discontinuous(self, which: Counter) -> int:
        return sum(n for (_, (_, positions)), n in which.items() if is_discontinuous(positions))


def _shown(figure) -> str:
    """A figure as disco-dop prints it (``%6.2f`` of a percentage; ``0DIV!`` where undefined)."""
    try:
        value = figure()
    except (ZeroDivisionError, InvalidOperation):
        return " 0DIV!"
    return "%6.2f" % (100 * value)


@dataclass
class BracketScores:
    """All sentences' and the short ones' totals (``cutoff``: their length bound)."""
    all: _Totals
    short: _Totals
    cutoff: Optional[int]

    def f1(self) -> float:
        return float(self.all.f1()) * 100

    def summary(self) -> str:
        """disco-dop's summary table."""
        a, s = self.all, self.short
        disc_sys, disc_gold = a.discontinuous(a.system), a.discontinuous(a.gold)
        if self.cutoff is None or a.longest <= self.cutoff:
            lines = [" Summary (ALL) ".center(35, "_"), "number of sentences:       %6d" % a.sentences,
                     "longest sentence:          %6d" % a.longest]
            if disc_gold or disc_sys:
                lines += ["gold brackets (disc.):     %6d (%d)" % (len(a.gold), disc_gold),
                          "cand. brackets (disc.):    %6d (%d)" % (len(a.system), disc_sys)]
            else:
                lines += ["gold brackets:             %6d" % len(a.gold), "cand. brackets:            %6d" % len(a.system)]
            lines += ["labeled recall:            %s" % _shown(a.recall),
                      "labeled precision:         %s" % _shown(a.precision),
                      "labeled f-measure:         %s" % _shown(a.f1),
                      "exact match:               %s" % _shown(a.exact_match),
                      "pos accuracy:              %s" % _shown(a.tagging)]
            return "\n".join(lines)
        lines = ["%s <= %d ______ ALL" % (" Summary ".center(27, "_"), self.cutoff),
                 "number of sentences:       %6d     %6d" % (s.sentences, a.sentences),
                 "longest sentence:          %6d     %6d" % (s.longest, a.longest),
                 "gold brackets:             %6d     %6d" % (len(s.gold), len(a.gold)),
                 "cand. brackets:            %6d     %6d" % (len(s.system), len(a.system))]
        if disc_gold or disc_sys:
            lines += ["disc. gold brackets:       %6d     %6d" % (s.discontinuous(s.gold), disc_gold),
                      "disc. cand. brackets:      %6d     %6d" % (s.discontinuous(s.system), disc_sys)]
        for name, figure in (("labeled recall:", _Totals.recall), ("labeled precision:", _Totals.precision),
                             ("labeled f-measure:", _Totals.f1), ("exact match:", _Totals.exact_match),
                             ("pos accuracy:", _Totals.tagging)):
            lines.append("%-27s%s     %s" % (name, _shown(lambda: figure(s)), _shown(lambda: figure(a))))
        return "\n".join(lines)


def evaluate_brackets(gold_file, system_file, params: Optional[BracketParams] = None,
                      names=("<gold>", "<system>")) -> BracketScores:
    """disco-dop's bracket scores of the system's trees against the gold ones (two
    :class:`~maltpy.formats.export.ExportFile`, sentences matched by their ``#BOS`` keys; every
    system sentence must be in the gold file with the same words)."""
    params = params or BracketParams()
    gold = {s.key: s for s in gold_file.sentences}
    all_, short = _Totals(), _Totals()
    for sentence in system_file.sentences:
        reference = gold.get(sentence.key)
        if reference is None:
            raise MaltpyError(f"{names[1]}: sentence {sentence.key} is not in {names[0]}")
        gold_tags = [plain_label(t.tag) for t in reference.tokens]
        system_tags = [plain_label(t.tag) for t in sentence.tokens]
        words = reference.words
        kept_positions = [k for k, (w, t) in enumerate(zip(words, gold_tags))
                          if t not in params.delete_labels and w not in params.delete_words]
        kept = {k: n for n, k in enumerate(kept_positions)}

        def words_of(s):
            ws = s.words        # made once: a property that lists every word
            return [params.eq_words.get(ws[k], ws[k]) for k in kept_positions] if len(ws) == len(words) else ws
        system_words = sentence.words
        if len(system_words) != len(words) or words_of(sentence) != words_of(reference):
            raise MaltpyError(f"{names[1]}: sentence {sentence.key} has other words than in {names[0]}: "
                              f"{' '.join(system_words)[:80]!r}")
        g, c = brackets(reference, kept, params), brackets(sentence, kept, params)
        length = sum(t not in params.delete_labels_for_length for t in gold_tags)
        tags = ([gold_tags[k] for k in kept_positions], [system_tags[k] for k in kept_positions])
        all_.add(sentence.key, g, c, length, tags, params.disc_only)
        if params.cutoff is not None and length <= params.cutoff:
            short.add(sentence.key, g, c, length, tags, params.disc_only)
    return BracketScores(all_, short, params.cutoff)
