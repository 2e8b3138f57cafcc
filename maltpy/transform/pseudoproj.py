"""Pseudo-projective parsing (Nivre & Nilsson 2005) as MaltParser's ``-pp/-pcr/-plo``.

Projectivize: while the tree has a non-projective arc, lift one (h -> d becomes
head(h) -> d), choosing the shortest arc (by its original length; ties left to
right) or the deepest dependent. The lifts are encoded in the labels with
MaltParser's spelling:

============ ==================== =========================
strategy     lifted arc d         arcs on the lift path p
============ ==================== =========================
baseline     d                    p
head         ``d|h``              p
path         ``d|`` (``d|%`` if   ``p%``
             also on a path)
head+path    ``d|h`` (``d|h%``)   ``p%``
============ ==================== =========================

where h is the label of the arc into the original (syntactic) head. Covered
roots (``-pcr left|right|head``) are attached to an end of the arc covering
them and marked ``|null``; ``ignore`` attaches them only while lifting.

Deprojectivize (parse output): visit nodes top-down; a lifted node goes to the
first node, breadth first below its current head (its own subtree excluded),
that matches its encoding: label h (head), the end of a ``%`` path (path), or
label h along ``%`` arcs, preferring a node where the path ends, and no move when
no node on the path has label h (head+path, as MaltParser 1.9.2). Siblings are
visited in order of distance to the lifted node, as MaltParser does
(``search_order="distance"``), or left to right as in Nivre (2008).
"""
from __future__ import annotations

import sys
from collections import deque
from typing import List, Optional, Sequence, Tuple

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.transform.base import Transform

MARKING_STRATEGIES = ("none", "baseline", "head", "path", "head+path")
COVERED_ROOT = ("none", "ignore", "left", "right", "head")
LIFTING_ORDERS = ("shortest", "deepest")


def _children(heads: Sequence[int]) -> List[List[int]]:
    kids = [[] for _ in heads]
    for d in range(1, len(heads)):
        if heads[d] >= 0:
            kids[heads[d]].append(d)
    return kids


def _euler(heads: Sequence[int]):
    """Entry/exit times of a DFS from 0, for O(1) dominance tests."""
    kids = _children(heads)
    tin = [0] * len(heads)
    tout = [0] * len(heads)
    t = 0
    stack = [(0, False)]
    while stack:
        node, done = stack.pop()
        if done:
            tout[node] = t
            t += 1
            continue
        tin[node] = t
        t += 1
        stack.append((node, True))
        for c in reversed(kids[node]):
            stack.append((c, False))
    return tin, tout


def nonprojective_arcs(heads: Sequence[int]) -> List[int]:
    """Dependents whose incoming arc is non-projective (a word between its ends is
    not dominated by its head). ``heads[0]`` is -1; the graph must be a tree."""
    tin, tout = _euler(heads)
    out = []
    for d in range(1, len(heads)):
        h = heads[d]
        lo, hi = (h, d) if h < d else (d, h)
        for k in range(lo + 1, hi):
            if not (tin[h] <= tin[k] and tout[k] <= tout[h]):
                out.append(d)
                break
    return out


def _is_tree(heads: Sequence[int]) -> bool:
    n = len(heads) - 1
    for d in range(1, n + 1):
        seen, a = 0, d
        while a != 0:
            if not (0 <= heads[a] <= n) or seen > n:
                return False
            a = heads[a]
            seen += 1
    return True


def _depth(heads, d):
    k = 0
    while d != 0:
        d = heads[d]
        k += 1
    return k


class PseudoProjective(Transform):
    """MaltParser's pseudo-projective transformation with its three options; the pipeline step of
    ``-pp``/``-pcr`` (gold trees projectivized, parses deprojectivized)."""

    @classmethod
    def from_settings(cls, settings):
        """The step the settings ask for, None when the encoding is off."""
        pp = cls(settings.marking_strategy, settings.covered_root, settings.lifting_order)
        return pp if pp.active else None

    def encode_gold(self, sentences, conllu: bool):
        return [self.apply(self.projectivize, s) for s in sentences]

    def feature_values(self, labels):
        return self.deprel_feature_values(labels)

    def decode(self, heads, labels):
        return self.deprojectivize(heads, labels)

    def decode_rows(self, offsets, heads, labels, names):
        """Decode the sentences that hold a marked label, in place; the labels they end up with
        are appended to a copy of ``names``."""
        marked = np.array(["|" in n or "%" in n for n in names] + [False], dtype=bool)
        rows = np.flatnonzero(marked[labels])
        if not len(rows):
            return heads, labels, names
        extra, index = [], {}
        for k in np.unique(np.searchsorted(offsets, rows, side="right") - 1).tolist():
            r0, r1 = int(offsets[k]), int(offsets[k + 1])
            h, l = self.deprojectivize([-1] + heads[r0 + 1:r1].tolist(),
                                       ["_"] + [names[x] for x in labels[r0 + 1:r1].tolist()])
            heads[r0 + 1:r1] = h[1:]
            for r, label in zip(range(r0 + 1, r1), l[1:]):
                code = index.get(label)
                if code is None:
                    code = index[label] = len(names) + len(extra)
                    extra.append(label)
                labels[r] = code
        return heads, labels, list(names) + extra

    def __init__(self, marking_strategy: str = "none", covered_root: str = "none",
                 lifting_order: str = "shortest", search_order: str = "distance"):
        for name, value, choices in (("marking_strategy (-pp)", marking_strategy, MARKING_STRATEGIES),
                                     ("covered_root (-pcr)", covered_root, COVERED_ROOT),
                                     ("lifting_order (-plo)", lifting_order, LIFTING_ORDERS),
                                     ("search_order", search_order, ("distance", "left-to-right"))):
            if value not in choices:
                raise MaltpyError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
        self.strategy = marking_strategy
        self.covered_root = covered_root
        self.lifting_order = lifting_order
        self.search_order = search_order

    @staticmethod
    def apply(fn, sentence):
        """``fn`` (projectivize or deprojectivize) on a :class:`~maltpy.formats.conll.Sentence`; a copy."""
        heads, labels = fn([-1] + sentence.heads, ["_"] + sentence.column(7))
        return sentence._with_tree(heads[1:], labels[1:])

    @property
    def active(self) -> bool:
        return self.strategy != "none" or self.covered_root != "none"

    # ------------------------------------------------------------------ projectivize
    def _attach_covered_roots(self, heads, lifted, covered, d) -> bool:
        """Attach root children covered by the arc into d to one of its ends."""
        h = heads[d]
        if h == 0:
            return False
        lo, hi = (h, d) if h < d else (d, h)
        found = False
        spans = None
        for i in range(lo + 1, hi):
            if heads[i] != 0 or lifted[i]:
                continue
            if spans is None:
                spans = self._yields(heads)
            left, right = spans[i]
            if lo < left and right < hi:
                if self.covered_root == "left":
                    new = h if h < d else d
                elif self.covered_root == "right":
                    new = h if d < h else d
                else:
                    new = h
                heads[i] = new
                covered[i] = True
                found = True
                spans = None
        return found

    @staticmethod
    def _yields(heads):
        """(leftmost, rightmost) node dominated by each node."""
        n = len(heads) - 1
        lo = list(range(n + 1))
        hi = list(range(n + 1))
        order = sorted(range(1, n + 1), key=lambda d: -_depth(heads, d))
        for d in order:
            h = heads[d]
            if h >= 0:
                lo[h] = min(lo[h], lo[d])
                hi[h] = max(hi[h], hi[d])
        return list(zip(lo, hi))

    def projectivize(self, heads: Sequence[int], labels: Sequence[str]) -> Tuple[List[int], List[str]]:
        """Projective heads and encoded labels for one gold tree (index 0 = root, ignored).

        Graphs that are not trees are returned unchanged, as MaltParser does."""
        heads = list(heads)
        labels = list(labels)
        n = len(heads) - 1
        if not self.active or n == 0 or not _is_tree(heads):
            return heads, labels
        original_length = [0] + [abs(d - heads[d]) for d in range(1, n + 1)]
        lifted = [False] * (n + 1)
        syntactic_head = [-1] * (n + 1)
        on_path = [False] * (n + 1)
        covered = [False] * (n + 1)
        cr = self.covered_root
        if cr not in ("none", "ignore"):
            for d in range(1, n + 1):
                self._attach_covered_roots(heads, lifted, covered, d)
        if self.strategy != "none":
            while True:
                bad = nonprojective_arcs(heads)
                if not bad:
                    break
                if self.lifting_order == "deepest":
                    depth = {d: _depth(heads, d) for d in bad}
                    d = max(bad, key=lambda x: (depth[x], -x))
                else:
                    d = min(bad, key=lambda x: (original_length[x], x))
                if cr == "ignore" and self._attach_covered_roots(heads, lifted, covered, d):
                    continue
                h = heads[d]
                lifted[d] = True
                if syntactic_head[d] < 0:
                    syntactic_head[d] = h
                on_path[h] = True
                heads[d] = heads[h]
            if cr == "ignore":
                for i in range(1, n + 1):
                    if covered[i]:
                        heads[i] = 0
                        covered[i] = False
        original = list(labels)
        s = self.strategy
        for d in range(1, n + 1):
            if covered[d]:
                if cr not in ("none", "ignore"):
                    labels[d] = original[d] + "|null"
                continue
            h_label = original[syntactic_head[d]] if lifted[d] else ""
            if s == "head" and lifted[d]:
                labels[d] = f"{original[d]}|{h_label}"
            elif s == "path":
                if lifted[d]:
                    labels[d] = original[d] + ("|%" if on_path[d] else "|")
                elif on_path[d]:
                    labels[d] = original[d] + "%"
            elif s == "head+path":
                if lifted[d]:
                    labels[d] = f"{original[d]}|{h_label}" + ("%" if on_path[d] else "")
                elif on_path[d]:
                    labels[d] = original[d] + "%"
        return heads, labels

    @staticmethod
    def plain_label(label: str) -> str:
        """The dependency label without the encoding's marks: ``obj|xcomp%`` -> ``obj``."""
        cut = min((k for k in (label.find("|"), label.find("%")) if k > 0), default=len(label))
        return label[:cut]

    def deprel_feature_values(self, labels: Sequence[str]) -> Optional[List[int]]:
        """For each label id, the value OutputColumn(DEPREL) features give it (1, 2, ...): the
        same for every label with the same plain label, as in MaltParser, whose DEPREL column
        holds only the plain label (the marks live in its PPLIFTED, PPPATH and PPCOVERED columns).
        None when the encoding is off (a label's value is then its id + 1)."""
        if not self.active:
            return None
        ids = {l: k for k, l in enumerate(labels)}
        extra = {}
        values = []
        for label in labels:
            plain = self.plain_label(label)
            k = ids.get(plain)
            if k is None:
                k = extra.setdefault(plain, len(labels) + len(extra))
            values.append(k + 1)
        return values

    # ------------------------------------------------------------------ deprojectivize
    def _dependents(self, kids, governor, avoid, path_only, on_path):
        """Children of governor except avoid, in search order (distance to avoid, or left to right)."""
        cands = [c for c in kids[governor] if c != avoid and (not path_only or on_path[c])]
        if self.search_order == "distance":
            # MaltParser sorts with a selection sort, which is not stable, but on children in
            # ascending order by distance to one position it gives this order (checked by brute force)
            cands.sort(key=lambda c: (abs(c - avoid), c))
        return cands

    def _search(self, labels, kids, start, avoid, target, on_path):
        """Breadth-first search below start (avoid's subtree excluded) for the new head."""
        mode = self.strategy
        path_only = mode != "head"
        queue = deque(self._dependents(kids, start, avoid, path_only, on_path))
        second_choice = None
        while queue:
            node = queue.popleft()
            below = self._dependents(kids, node, avoid, path_only, on_path)
            if mode == "head":
                if target is not None and labels[node] == target:
                    return node
            elif mode == "path":
                if not below:
                    return node
            elif target is not None and labels[node] == target:
                # head+path as MaltParser: the first node with the label where the path ends,
                # else the first with the label anywhere on it; no label, no move
                if not below:
                    return node
                if second_choice is None:
                    second_choice = node
            queue.extend(below)
        return second_choice

    def deprojectivize(self, heads: Sequence[int], labels: Sequence[str]) -> Tuple[List[int], List[str]]:
        """Undo the encoding on a parsed tree: move lifted words back, strip the marks."""
        heads = list(heads)
        labels = list(labels)
        n = len(heads) - 1
        if not self.active or n == 0:
            return heads, labels
        lifted = [False] * (n + 1)
        on_path = [False] * (n + 1)
        target = [None] * (n + 1)
        for d in range(1, n + 1):
            lab = labels[d]
            if lab is None:
                continue
            k = lab.find("%")
            if k != -1:
                lab = lab[:k]
                on_path[d] = True
            k = lab.find("|")
            if k != -1 and "|null" not in lab:
                lifted[d] = True
                rest = lab[k + 1:]
                target[d] = rest if rest else None
                lab = lab[:k]
            if lab.endswith("|null"):
                lab = lab[:-5]
                heads[d] = 0
            labels[d] = lab
        if self.strategy in ("none", "baseline") or not any(lifted):
            return heads, labels
        kids = _children(heads)

        def move(d, new):
            kids[heads[d]].remove(d)
            heads[d] = new
            kids[new].append(d)
            kids[new].sort()

        def visit(node) -> bool:
            ok = True
            if lifted[node] and heads[node] >= 0:
                new = self._search(labels, kids, heads[node], node, target[node], on_path)
                if new is not None:
                    move(node, new)
                    lifted[node] = False
                else:
                    ok = False
            child_ok = False
            for _ in range(2):       # a second pass picks up heads that moved into place
                child_ok = True
                for c in list(kids[node]):
                    if not visit(c):
                        child_ok = False
                if child_ok:
                    break
            return ok and child_ok

        if n + 50 > sys.getrecursionlimit():    # visit() recurses once per tree level
            sys.setrecursionlimit(n + 100)
        visit(0)
        return heads, labels
