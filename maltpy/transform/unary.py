"""Unary recovery (Fernández-González & Martins 2015, §4.4): a linear classifier run at every
node of a decoded, unaryless constituent tree, pre-terminals included, that predicts the chain
of unary constituents to insert above it (``NULL`` for none).

Its candidates at a node are the chains seen above nodes of the same label (and kind:
pre-terminal or phrase) in training. Features, each conjoined with the class by the linear
model and with the pre-terminal flag here: the node's label alone and with its parent's and
its siblings' labels, the productions above and beneath the node, the first and last word and
tag of its yield, and the words under pre-terminal siblings.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.transform.constituents import CHAIN_SEP, Decoded

NONE = "<none>"


def node_features(decoded: Decoded) -> Tuple[List[List[str]], List[str]]:
    """Feature strings of every node of ``decoded.nodes``, and each node's candidate key."""
    nodes = [n for n, _, _ in decoded.nodes]
    parent: Dict[int, object] = {}
    position: Dict[int, int] = {}
    first: Dict[int, object] = {}
    last: Dict[int, object] = {}
    for node in nodes:   # bottom-up: children before parents
        if node.word is None:
            kids = node.children
            for k, c in enumerate(kids):
                parent[id(c)] = node
                position[id(c)] = k
            first[id(node)] = first[id(kids[0])]
            last[id(node)] = last[id(kids[-1])]
        else:
            first[id(node)] = last[id(node)] = node
    feats, keys = [], []
    for node in nodes:
        label = node.label
        flag = "T" if node.word is not None else "P"
        up = parent.get(id(node))
        if up is not None:
            k = position[id(node)]
            sibs = up.children
            left = sibs[k - 1] if k > 0 else None
            right = sibs[k + 1] if k + 1 < len(sibs) else None
            above = up.label + ">" + " ".join(("*" + c.label) if i == k else c.label for i, c in enumerate(sibs))
            parent_label = up.label
        else:
            left = right = None
            above = parent_label = NONE
        beneath = label + ">" + (node.word if node.word is not None else " ".join(c.label for c in node.children))
        lo, hi = first[id(node)], last[id(node)]
        f = [f"{flag}l={label}", f"{flag}p={label}|{parent_label}",
             f"{flag}ls={label}|{left.label if left is not None else NONE}",
             f"{flag}rs={label}|{right.label if right is not None else NONE}",
             f"{flag}up={above}", f"{flag}dn={beneath}",
             f"{flag}fw={lo.word}", f"{flag}ft={lo.label}", f"{flag}lw={hi.word}", f"{flag}lt={hi.label}",
             f"{flag}fl={label}|{lo.label}|{hi.label}"]
        if left is not None and left.word is not None:
            f.append(f"{flag}lsw={left.word}")
        if right is not None and right.word is not None:
            f.append(f"{flag}rsw={right.word}")
        feats.append(f)
        keys.append(flag + label)
    return feats, keys


class UnaryClassifier:
    """Predicts the unary chain above every node of a decoded tree (see the module docstring)."""

    def __init__(self):
        self.classes: List[Tuple[str, ...]] = [()]     # class 0: no unary
        self.features: Dict[str, int] = {}
        self.candidates: Dict[str, List[int]] = {}
        self.W = None
        self.bias = None

    # ------------------------------------------------------------------ training
    def fit(self, examples: Sequence[Tuple[Decoded, Sequence[Tuple[str, ...]]]], learner, log=None):
        """Train on (decoded gold tree, gold chain per node) pairs with a linear ``learner``
        (``maltpy.learners``: liblinear or perceptron). Returns self."""
        import scipy.sparse as sp
        class_ids = {(): 0}
        rows, cols, y = [], [], []
        candidates: Dict[str, set] = {}
        for decoded, chains in examples:
            feats, keys = node_features(decoded)
            for f, key, chain in zip(feats, keys, chains):
                c = class_ids.setdefault(tuple(chain), len(class_ids))
                candidates.setdefault(key, {0}).add(c)
                y.append(c)
                ids = [self.features.setdefault(s, len(self.features)) for s in f]
                cols.extend(ids)
                rows.append(len(ids))
        if not y:
            raise MaltpyError("no constituents to train unary recovery on")
        self.classes = [None] * len(class_ids)
        for chain, c in class_ids.items():
            self.classes[c] = chain
        self.candidates = {k: sorted(v) for k, v in candidates.items()}
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(rows, out=indptr[1:])
        X = sp.csr_matrix((np.ones(len(cols), dtype=np.float64), np.asarray(cols, dtype=np.int32), indptr),
                          shape=(len(y), len(self.features)))
        X.sum_duplicates()
        X.data[:] = 1.0
        W, bias = learner.fit(X, np.asarray(y, dtype=np.int32), len(self.classes))
        self._set_weights(W, bias)
        if log:
            log(f"unary recovery: {len(y)} nodes, {len(self.classes) - 1} chains, {len(self.features)} features")
        return self

    def _set_weights(self, W, bias):
        import scipy.sparse as sp
        keep = np.flatnonzero(np.any(W != 0, axis=1))
        remap = np.full(len(self.features), -1, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        self.features = {s: int(remap[i]) for s, i in self.features.items() if remap[i] >= 0}
        self.W = sp.csr_matrix(np.asarray(W[keep], dtype=np.float32))
        self.bias = np.asarray(bias, dtype=np.float32)

    # ------------------------------------------------------------------ prediction
    def predict_many(self, decoded_trees: Sequence[Decoded]) -> List[List[Tuple[str, ...]]]:
        """The predicted chain of every node, per tree (one matrix product for the whole batch)."""
        import scipy.sparse as sp
        get = self.features.get
        cols, sizes, keys, per_tree = [], [], [], []
        for decoded in decoded_trees:
            feats, k = node_features(decoded)
            per_tree.append(len(k))
            keys.extend(k)
            for f in feats:
                ids = [i for i in map(get, f) if i is not None]
                cols.extend(ids)
                sizes.append(len(ids))
        if not keys:
            return [[] for _ in decoded_trees]
        indptr = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        X = sp.csr_matrix((np.ones(len(cols), dtype=np.float32), np.asarray(cols, dtype=np.int32), indptr),
                          shape=(len(sizes), self.W.shape[0]))
        scores = np.asarray((X @ self.W).todense()) + self.bias
        allowed = np.zeros_like(scores, dtype=bool)
        allowed[:, 0] = True
        for r, key in enumerate(keys):
            cand = self.candidates.get(key)
            if cand:
                allowed[r, cand] = True
        scores[~allowed] = -np.inf
        best = scores.argmax(axis=1)
        out, r = [], 0
        for n in per_tree:
            out.append([self.classes[c] for c in best[r:r + n]])
            r += n
        return out

    # ------------------------------------------------------------------ model files
    def header(self) -> dict:
        names = [None] * len(self.features)
        for s, i in self.features.items():
            names[i] = s
        return {"classes": [CHAIN_SEP.join(c) for c in self.classes], "features": names,
                "candidates": self.candidates}

    def arrays(self) -> dict:
        W = self.W.tocsr()
        return {"unary_indptr": W.indptr.astype(np.int64), "unary_cols": W.indices.astype(np.int32),
                "unary_vals": W.data.astype(np.float32), "unary_bias": self.bias}

    @classmethod
    def from_model(cls, header: dict, arrays: dict, fail) -> "UnaryClassifier":
        """Rebuild from :meth:`header` and :meth:`arrays` of a model file; ``fail(message)``
        raises the model-file error for anything inconsistent."""
        import scipy.sparse as sp
        self = cls()
        classes, names, candidates = header.get("classes"), header.get("features"), header.get("candidates")
        if not (isinstance(classes, list) and classes and classes[0] == "" and all(isinstance(c, str) for c in classes)
                and isinstance(names, list) and all(isinstance(s, str) for s in names)
                and isinstance(candidates, dict)):
            fail("its unary-recovery classifier is damaged")
        C = len(classes)
        for key, ids in candidates.items():
            if not (isinstance(ids, list) and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < C
                                                  for i in ids)):
                fail("its unary-recovery candidates are damaged")
        self.classes = [tuple(c.split(CHAIN_SEP)) if c else () for c in classes]
        self.features = {s: i for i, s in enumerate(names)}
        self.candidates = candidates
        try:
            indptr = np.asarray(arrays["unary_indptr"], dtype=np.int64)
            cols = np.asarray(arrays["unary_cols"], dtype=np.int64)
            vals = np.asarray(arrays["unary_vals"], dtype=np.float32)
            bias = np.asarray(arrays["unary_bias"], dtype=np.float32)
        except (KeyError, ValueError, TypeError):
            fail("its unary-recovery weights are missing or damaged")
        if (indptr.ndim != 1 or len(indptr) != len(names) + 1 or indptr[0] != 0 or indptr[-1] != len(cols)
                or np.any(np.diff(indptr) < 0) or len(vals) != len(cols) or bias.shape != (C,)
                or (len(cols) and (cols.min() < 0 or cols.max() >= C)) or not np.all(np.isfinite(vals))):
            fail("its unary-recovery weights are damaged")
        self.W = sp.csr_matrix((vals, cols.astype(np.int32), indptr), shape=(len(names), C))
        self.bias = bias
        return self
