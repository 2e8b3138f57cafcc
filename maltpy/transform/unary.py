"""Unary recovery (Fernández-González & Martins 2015, §4.4): a linear classifier run at every
node of a decoded, unaryless constituent tree, pre-terminals included, that predicts the chain
of unary constituents to insert above it (class 0: none).

Its candidates at a node are the chains seen above nodes of the same label (and kind:
pre-terminal or phrase) in training. The features (13 templates, computed in compiled code by
:mod:`maltpy.transform.reduce`, each conjoined with the pre-terminal flag and, by the linear
model, with the class): the node's label alone and with its parent's and its siblings' labels,
the productions above and beneath the node, the first and last word and tag of its yield, that
label with both tags, and the words under pre-terminal siblings. Features are 64-bit hashes of
the labels' and words' bytes, so the model holds no vocabulary.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.transform.constituents import CHAIN_SEP


class UnaryClassifier:
    """Class 0 is "no unary"; ``classes[c]`` is the chain (top-down labels) of class c."""

    def __init__(self):
        self.classes: List[Tuple[str, ...]] = [()]
        self.keys = np.zeros(0, dtype=np.uint64)               # feature hashes, one per weight row
        self.W = np.zeros((0, 1), dtype=np.float32)            # rows x classes
        self.bias = np.zeros(1, dtype=np.float32)
        self.cand_keys = np.zeros(0, dtype=np.uint64)          # (label hash, flag) keys
        self.cand = np.zeros((0, 1), dtype=np.uint8)           # their allowed classes

    def fit(self, info: np.ndarray, keys: np.ndarray, chains: Sequence[Tuple[str, ...]], learner, log=None):
        """Train on the nodes of decoded gold trees: ``info`` and ``keys`` as
        :meth:`maltpy.transform.reduce.Decoder.decode` gives them with ``features=True``, and
        each node's gold chain. Returns self."""
        import scipy.sparse as sp
        from maltpy.transform.reduce import candidate_key
        class_ids: Dict[Tuple[str, ...], int] = {(): 0}
        y = np.fromiter((class_ids.setdefault(tuple(c), len(class_ids)) for c in chains), dtype=np.int32,
                        count=len(chains))
        if not len(y):
            raise MaltpyError("no constituents to train unary recovery on")
        self.classes = [()] * len(class_ids)
        for chain, c in class_ids.items():
            self.classes[c] = chain
        C = len(self.classes)
        # candidates: the classes seen with each (label, kind)
        pairs = np.ascontiguousarray(info[:, [4, 3]])
        uniq, inverse = np.unique(pairs, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        cand = np.zeros((len(uniq), C), dtype=np.uint8)
        cand[inverse, y] = 1
        cand[:, 0] = 1
        self.cand_keys = np.array([candidate_key(h & 0xFFFFFFFFFFFFFFFF, int(f)) for h, f in uniq.tolist()],
                                  dtype=np.uint64)
        self.cand = cand
        # one column per distinct feature hash
        flat = keys.ravel()
        present = flat != 0
        columns, col_of = np.unique(flat[present], return_inverse=True)
        row_of = np.repeat(np.arange(len(keys)), keys.shape[1])[present]
        X = sp.csr_matrix((np.ones(len(col_of)), (row_of, col_of)), shape=(len(keys), len(columns)))
        X.data[:] = 1.0
        X.sort_indices()
        W, bias = learner.fit(X, y, C)
        kept = np.flatnonzero(np.any(W != 0, axis=1))
        self.keys = columns[kept].astype(np.uint64)
        self.W = np.ascontiguousarray(W[kept], dtype=np.float32)
        self.bias = np.asarray(bias, dtype=np.float32)
        if log:
            log(f"unary recovery: {len(y)} nodes, {C - 1} chains, {len(kept)} features")
        return self

    def tables(self, symbol_id) -> tuple:
        """The compiled decoder's tables; ``symbol_id(label)`` numbers the chains' labels."""
        from maltpy.features.featmap import FeatMap
        off = np.zeros(len(self.classes) + 1, dtype=np.int32)
        np.cumsum([len(c) for c in self.classes], out=off[1:])
        syms = np.array([symbol_id(x) for c in self.classes for x in c], dtype=np.int32)
        return (FeatMap.from_keys(self.keys), self.W, self.bias, FeatMap.from_keys(self.cand_keys),
                np.ascontiguousarray(self.cand),
                off, syms if len(syms) else np.zeros(1, dtype=np.int32))

    # ------------------------------------------------------------------ model files
    def header(self) -> dict:
        return {"classes": [CHAIN_SEP.join(c) for c in self.classes]}

    def arrays(self) -> dict:
        return {"unary_keys": self.keys, "unary_W": self.W, "unary_bias": self.bias,
                "unary_cand_keys": self.cand_keys, "unary_cand": self.cand}

    @classmethod
    def from_model(cls, header: dict, arrays: dict, fail) -> "UnaryClassifier":
        """Rebuild from :meth:`header` and :meth:`arrays` of a model file; ``fail(message)``
        raises the model-file error for anything inconsistent."""
        self = cls()
        classes = header.get("classes") if isinstance(header, dict) else None
        if not (isinstance(classes, list) and classes and classes[0] == ""
                and all(isinstance(c, str) and (c == "" or "" not in c.split(CHAIN_SEP)) for c in classes[1:])
                and len(classes) <= 4096):
            fail("its unary-recovery classes are damaged")
        C = len(classes)
        try:
            keys = np.asarray(arrays["unary_keys"])
            W = np.asarray(arrays["unary_W"])
            bias = np.asarray(arrays["unary_bias"])
            cand_keys = np.asarray(arrays["unary_cand_keys"])
            cand = np.asarray(arrays["unary_cand"])
        except KeyError:
            fail("its unary-recovery weights are missing")
        if (keys.dtype != np.uint64 or keys.ndim != 1 or W.dtype != np.float32 or W.shape != (len(keys), C)
                or bias.dtype != np.float32 or bias.shape != (C,) or cand_keys.dtype != np.uint64
                or cand_keys.ndim != 1 or cand.dtype != np.uint8 or cand.shape != (len(cand_keys), C)
                or np.any(keys == 0) or np.any(cand_keys == 0) or len(np.unique(keys)) != len(keys)
                or len(np.unique(cand_keys)) != len(cand_keys) or not np.all(np.isfinite(W))
                or np.any(np.isnan(bias))):
            fail("its unary-recovery weights are damaged")
        self.classes = [tuple(c.split(CHAIN_SEP)) if c else () for c in classes]
        self.keys, self.W, self.bias = keys, np.ascontiguousarray(W), bias
        self.cand_keys, self.cand = cand_keys, np.ascontiguousarray(cand)
        return self
