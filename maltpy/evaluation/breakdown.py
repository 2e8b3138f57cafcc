"""Accuracy broken down MaltEval-style: by arc length, sentence length, depth, label and POS.

Every figure is a count of tokens, so two systems on the same gold data can be
set side by side and summed over files. A token's arc is *correct* (unlabelled)
when its predicted head equals the gold head, and *labelled correct* when the
label matches too. Grouping by a property of the gold tree gives recall (of
the gold arcs in that group, how many the system found); grouping by the same
property of the system's tree gives precision (of the arcs the system put in
that group, how many are right). That is the error analysis of McDonald &
Nivre (2007) and of the thesis: labelled precision by predicted arc length,
labelled recall by gold arc length.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from maltpy.errors import MaltpyError
from maltpy.evaluation.scores import Scores, is_punctuation

#: Arc lengths 1..14 have a bin each; longer arcs share the last one. Root arcs (head 0) are "root".
MAX_ARC_LENGTH = 15
#: Depths (arcs from the token up to the root) 1..7 have a bin each; deeper tokens share the last one.
MAX_DEPTH = 8
#: Sentence-length bins of 10 words; longer sentences share the last one.
SENTENCE_BIN = 10
MAX_SENTENCE_BIN = 6


def arc_length_bin(head: int, dependent: int) -> str:
    """The arc-length group of an arc: ``"root"``, ``"1"`` .. ``"14"``, ``"15+"``."""
    if head == 0:
        return "root"
    length = abs(head - dependent)
    return f"{MAX_ARC_LENGTH}+" if length >= MAX_ARC_LENGTH else str(length)


def arc_length_bins() -> List[str]:
    return ["root"] + [str(k) for k in range(1, MAX_ARC_LENGTH)] + [f"{MAX_ARC_LENGTH}+"]


def depth_bin(depth: int) -> str:
    return f"{MAX_DEPTH}+" if depth >= MAX_DEPTH else str(depth)


def depth_bins() -> List[str]:
    return [str(k) for k in range(1, MAX_DEPTH)] + [f"{MAX_DEPTH}+"]


def sentence_length_bin(n: int) -> str:
    k = (n - 1) // SENTENCE_BIN
    if k >= MAX_SENTENCE_BIN - 1:
        return f"{(MAX_SENTENCE_BIN - 1) * SENTENCE_BIN + 1}+"
    return f"{k * SENTENCE_BIN + 1}-{(k + 1) * SENTENCE_BIN}"


def sentence_length_bins() -> List[str]:
    return [sentence_length_bin(k * SENTENCE_BIN + 1) for k in range(MAX_SENTENCE_BIN)]


def depths(heads: Sequence[int]) -> List[int]:
    """Arcs from each word up to the root; ``heads[k]`` is word k+1's head (a tree)."""
    n = len(heads)
    out = [0] * (n + 1)
    for start in range(1, n + 1):
        path, node = [], start
        while node and not out[node]:
            path.append(node)
            node = heads[node - 1]
            if len(path) > n:
                raise MaltpyError("the heads contain a cycle")
        d = out[node] if node else 0
        for p in reversed(path):
            d += 1
            out[p] = d
    return out[1:]


@dataclass
class LabelCounts:
    """One dependency label: gold and system counts and how many of each are right (head and label)."""
    gold: int = 0
    system: int = 0
    correct: int = 0          # gold label, system label and head all agree
    label_correct: int = 0    # gold and system label agree (head may differ)

    @property
    def precision(self) -> float:
        return 100.0 * self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def _groups(keys):
    return field(default_factory=lambda: {k: Scores() for k in keys()})


@dataclass
class Breakdown:
    """Grouped accuracy of one system against gold (build with :func:`breakdown`)."""
    overall: Scores = field(default_factory=Scores)
    gold_arc_length: Dict[str, Scores] = _groups(arc_length_bins)     # recall
    system_arc_length: Dict[str, Scores] = _groups(arc_length_bins)   # precision
    gold_depth: Dict[str, Scores] = _groups(depth_bins)               # recall
    system_depth: Dict[str, Scores] = _groups(depth_bins)             # precision
    sentence_length: Dict[str, Scores] = field(
        default_factory=lambda: {k: Scores() for k in sentence_length_bins()})
    sentences_per_length: Counter = field(default_factory=Counter)
    labels: Dict[str, LabelCounts] = field(default_factory=dict)
    confusions: Counter = field(default_factory=Counter)   # (gold label, system label) -> tokens
    pos: Dict[str, Scores] = field(default_factory=dict)
    sentence_correct: List[int] = field(default_factory=list)   # per sentence: head and label right
    sentence_tokens: List[int] = field(default_factory=list)

    def add_sentence(self, gold, system, punctuation: bool = True):
        """Add one sentence pair (gold and system :class:`Sentence` of the same words)."""
        g_heads, s_heads = gold.heads, system.heads
        g_depth, s_depth = depths(g_heads), depths(s_heads)
        length_bin = sentence_length_bin(len(gold))
        self.sentences_per_length[length_bin] += 1
        correct = tokens = 0
        for k, (rg, rs) in enumerate(zip(gold.rows, system.rows)):
            if not punctuation and is_punctuation(rg[1]):
                continue
            dep = k + 1
            gh, sh = g_heads[k], s_heads[k]
            gl, sl = rg[7], rs[7]
            head_ok, label_ok = gh == sh, gl == sl
            both_ok = head_ok and label_ok
            tokens += 1
            correct += both_ok
            self.overall.add(head_ok, label_ok)
            self.sentence_length[length_bin].add(head_ok, label_ok)
            self.gold_arc_length[arc_length_bin(gh, dep)].add(head_ok, label_ok)
            self.system_arc_length[arc_length_bin(sh, dep)].add(head_ok, label_ok)
            self.gold_depth[depth_bin(g_depth[k])].add(head_ok, label_ok)
            self.system_depth[depth_bin(s_depth[k])].add(head_ok, label_ok)
            labels = self.labels
            (labels.get(gl) or labels.setdefault(gl, LabelCounts())).gold += 1
            sc = labels.get(sl) or labels.setdefault(sl, LabelCounts())
            sc.system += 1
            if label_ok:
                sc.label_correct += 1
                sc.correct += head_ok
            else:
                self.confusions[(gl, sl)] += 1
            pos = rg[3] if rg[3] != "_" else rg[4]
            (self.pos.get(pos) or self.pos.setdefault(pos, Scores())).add(head_ok, label_ok)
        self.sentence_correct.append(correct)
        self.sentence_tokens.append(tokens)


def breakdown(gold: Sequence, system: Sequence, punctuation: bool = True,
              gold_name: str = "gold", system_name: str = "system") -> Breakdown:
    """Grouped accuracy of ``system`` against ``gold`` (aligned lists of sentences).

    ``punctuation=False`` leaves out tokens whose FORM is punctuation, as ``eval.pl`` does by
    default; they still count as words for arc lengths, depths and sentence lengths.
    """
    if len(gold) != len(system):
        raise MaltpyError(f"{gold_name} has {len(gold)} sentences but {system_name} has {len(system)}")
    result = Breakdown()
    for k, (g, s) in enumerate(zip(gold, system)):
        if len(g) != len(s):
            raise MaltpyError(f"sentence {k + 1} (line {g.first_line} of {gold_name}) has {len(g)} tokens "
                              f"in {gold_name} but {len(s)} in {system_name}")
        result.add_sentence(g, s, punctuation)
    return result


def most_different(a: Breakdown, b: Breakdown, limit: int = 10) -> List[Tuple[int, int]]:
    """Indices of the sentences where two systems' labelled-correct counts differ most,
    as (sentence index, B's count minus A's), the largest differences first."""
    diffs = [(k, cb - ca) for k, (ca, cb) in enumerate(zip(a.sentence_correct, b.sentence_correct)) if ca != cb]
    diffs.sort(key=lambda kd: (-abs(kd[1]), kd[0]))
    return diffs[:limit]
