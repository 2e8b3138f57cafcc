"""Fragmentation diagnostics of Nivre & Fernández-González (2014), Table 1.

One parse per sentence with the tree constraint (``enforce_tree``) records
the stack at the moment the buffer first becomes empty. Up to that moment the
old and the new arc-eager systems are identical, so:

* the new (tree-constrained) output is the parse itself;
* the old output is the same parse with every word that was on the stack
  without a head re-attached to the root with the default label, which is
  what the old heuristic does at that point.

Counts (summed over sentences): Stack-Token = headless words on the stack
(the root not counted); Stack-Head = those whose gold head is also on the
stack (the root included); Correct-old / Correct-new = those that end up
with their gold head; Recall = Correct / Stack-Head, also split into words
whose gold head is the root and the others.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from maltpy.errors import MaltpyError


@dataclass
class Fragmentation:
    stack_token: int = 0
    stack_head: int = 0
    correct_old: int = 0
    correct_new: int = 0
    root_head: int = 0            # Stack-Head words whose gold head is the root
    root_correct_old: int = 0
    root_correct_new: int = 0

    def _pct(self, a, b):
        return 100.0 * a / b if b else float("nan")

    @property
    def recall_old(self):
        return self._pct(self.correct_old, self.stack_head)

    @property
    def recall_new(self):
        return self._pct(self.correct_new, self.stack_head)

    @property
    def recall_root_old(self):
        return self._pct(self.root_correct_old, self.root_head)

    @property
    def recall_root_new(self):
        return self._pct(self.root_correct_new, self.root_head)

    @property
    def recall_nonroot_old(self):
        return self._pct(self.correct_old - self.root_correct_old, self.stack_head - self.root_head)

    @property
    def recall_nonroot_new(self):
        return self._pct(self.correct_new - self.root_correct_new, self.stack_head - self.root_head)

    def format(self) -> str:
        f = lambda x: "  n/a" if x != x else f"{x:6.2f}"
        return "\n".join([
            f"Stack-Token {self.stack_token:6d}   Stack-Head {self.stack_head:6d}",
            f"Correct     old {self.correct_old:6d}   new {self.correct_new:6d}",
            f"Recall      old {f(self.recall_old)}   new {f(self.recall_new)}",
            f"  gold head = root ({self.root_head:d}):  old {f(self.recall_root_old)}   new {f(self.recall_root_new)}",
            f"  other heads ({self.stack_head - self.root_head:d}):      old {f(self.recall_nonroot_old)}   "
            f"new {f(self.recall_nonroot_new)}",
        ])


def diagnose(parser, gold: Sequence, progress: bool = False):
    """Parse ``gold`` once with the tree constraint; return (Fragmentation, old sentences, new sentences).

    ``parser`` must be an arc-eager (``nivreeager``) model; its output is
    deprojectivized as in :meth:`Parser.parse` when it was trained with ``-pp``.
    """
    if "enforce_tree" not in parser.system_cls.options:
        raise MaltpyError(f"fragmentation diagnostics need a nivreeager model, not {parser.settings.algorithm}")
    if parser.view.reverses_words or parser.reverse_parser is not None:
        raise MaltpyError(f"fragmentation diagnostics read a left-to-right parse; this model parses "
                          f"{'right to left' if parser.view.reverses_words else 'both ways'}")
    saved = parser.settings.enforce_tree
    parser.settings.enforce_tree = True
    try:
        offsets, heads, labels, where = parser.parse_arrays(gold, progress, record_end=True)
    finally:
        parser.settings.enforce_tree = saved
    names = parser.output_labels
    root_label = parser.settings.root_label
    stats = Fragmentation()
    old_out, new_out = [], []
    for k, sent in enumerate(gold):
        r0, n = offsets[k], len(sent)
        new_h = heads[r0 + 1:r0 + n + 1].tolist()
        new_l = [names[x] for x in labels[r0 + 1:r0 + n + 1].tolist()]
        flags = where[r0 + 1:r0 + n + 1].tolist()
        left = [i + 1 for i, f in enumerate(flags) if f == 1]
        old_h, old_l = list(new_h), list(new_l)
        for w in left:
            old_h[w - 1], old_l[w - 1] = 0, root_label
        new_h, new_l = parser.view.decode(new_h, new_l)
        old_h, old_l = parser.view.decode(old_h, old_l)
        gold_h = sent.heads
        on_stack = {0} | {i + 1 for i, f in enumerate(flags) if f}
        stats.stack_token += len(left)
        for w in left:
            g = gold_h[w - 1]
            if g not in on_stack:
                continue
            stats.stack_head += 1
            ok_old = old_h[w - 1] == g
            ok_new = new_h[w - 1] == g
            stats.correct_old += ok_old
            stats.correct_new += ok_new
            if g == 0:
                stats.root_head += 1
                stats.root_correct_old += ok_old
                stats.root_correct_new += ok_new
        old_out.append(sent.with_tree(old_h, old_l))
        new_out.append(sent.with_tree(new_h, new_l))
    return stats, old_out, new_out
