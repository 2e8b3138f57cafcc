"""LIBSVM's C-SVC, with MaltParser's settings.

Defaults are MaltParser 1.9's (``LibSvm.getDefaultLibOptions``): ``svm-train -s 0 -t 1 -d 2
-g 0.2 -r 0 -c 1 -e 1.0``; the experiments of Nivre (2008) used ``-c 0.5`` (``-lo "-c 0.5"``).
Trained on the same instances, the models are Java LIBSVM's (MaltParser's): see
:meth:`LibsvmLearner.fit`. LIBSVM's solver runs in :mod:`maltpy.learners.svc`;
:meth:`LibsvmLearner.fit` returns the support vectors, their coefficients and the
intercepts as plain arrays, which the batched parse loop (:mod:`maltpy.search.kernel`)
scores in C.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.learners.base import Learner
from maltpy.learners.liblinear import first_appearance_order
from maltpy.learners.options import parse_flags, require_positive

#: LIBSVM kernel types (-t) that maltpy can score.
KERNELS = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid"}

_FLAGS = {"s": int, "t": int, "d": int, "g": float, "r": float, "c": float, "e": float, "m": float}


def parse_libsvm_options(text: str) -> dict:
    """``"-s 0 -t 1 -d 2 -g 0.2 -r 0 -c 1 -e 1.0"`` (svm-train flags; underscores allowed for spaces).
    The cache (-m, MB) only changes the speed; maltpy's default is larger than MaltParser's 100."""
    opts = parse_flags(text, {"s": 0, "t": 1, "d": 2, "g": 0.2, "r": 0.0, "c": 1.0, "e": 1.0, "m": 1000.0},
                       _FLAGS, "libsvm")
    if opts["s"] != 0:
        raise MaltpyError(f"libsvm -s {opts['s']}: only C-SVC (-s 0) makes a parser's classifier")
    require_positive(opts, ("c", "e", "m"), "libsvm")
    if opts["d"] < 1:
        raise MaltpyError(f"libsvm option -d (degree) must be at least 1, got {opts['d']}")
    if opts["t"] not in KERNELS:
        raise MaltpyError(f"libsvm kernel -t {opts['t']} is not available; use one of "
                          + ", ".join(f"{k}: {v}" for k, v in KERNELS.items()))
    return opts


@dataclass
class SvmModel:
    """One multi-class (one-vs-one) SVM as arrays.

    Support vectors are binary rows of local feature ids (``sv_indptr``/``sv_indices``);
    ``coef`` is LIBSVM's ``sv_coef`` ((k-1) x nSV), ``intercept`` the pairwise
    constants (-rho, pairs (0,1), (0,2) .. (k-2,k-1)), ``n_support`` the SVs of
    each local class and ``classes`` the parser's class id of each local class.
    The decision for pair (i, j) is positive when class i wins the vote.
    """
    sv_indptr: np.ndarray
    sv_indices: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    n_support: np.ndarray
    classes: np.ndarray

    ARRAYS = ("sv_indptr", "sv_indices", "coef", "intercept", "n_support", "classes")

    @property
    def n_sv(self) -> int:
        return len(self.sv_indptr) - 1

    def used_features(self) -> np.ndarray:
        return np.unique(self.sv_indices)

    def remap_features(self, remap: np.ndarray) -> None:
        self.sv_indices = remap[self.sv_indices].astype(np.int32)

    def decision(self, X, kernel, xnorm=None) -> np.ndarray:
        """Pairwise decision values for rows of X (numpy, for tests and checks).

        ``xnorm``: squared norms of the rows when they have features outside X's columns
        (features unseen in training still count in the RBF kernel's distance).
        """
        import scipy.sparse as sp
        S = sp.csr_matrix((np.ones(len(self.sv_indices)), self.sv_indices, self.sv_indptr),
                          shape=(self.n_sv, X.shape[1]))
        dots = np.asarray((X @ S.T).todense(), dtype=np.float64)
        xn = np.asarray(X.multiply(X).sum(axis=1) if xnorm is None else xnorm, dtype=np.float64).reshape(-1, 1)
        K = kernel.apply(dots, xn, np.diff(self.sv_indptr)[None, :])
        start = np.concatenate([[0], np.cumsum(self.n_support)])
        k = len(self.classes)
        out = []
        for i in range(k):
            for j in range(i + 1, k):
                si, sj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
                out.append(K[:, si] @ self.coef[j - 1, si] + K[:, sj] @ self.coef[i, sj])
        return np.stack(out, axis=1) + self.intercept[None, :] if out else np.zeros((X.shape[0], 0))


@dataclass
class Kernel:
    """K(x, y) from the dot product and the squared norms of binary vectors."""
    kind: int = 1
    degree: int = 2
    gamma: float = 0.2
    coef0: float = 0.0

    def apply(self, dots, xnorm, ynorm):
        if self.kind == 0:
            return dots
        if self.kind == 1:
            return (self.gamma * dots + self.coef0) ** self.degree
        if self.kind == 2:
            return np.exp(-self.gamma * (xnorm + ynorm - 2 * dots))
        return np.tanh(self.gamma * dots + self.coef0)


@dataclass
class LibsvmLearner(Learner):
    """C-SVC with a kernel; one-vs-one multi-class as LIBSVM does it."""
    kernel: int = 1
    degree: int = 2
    gamma: float = 0.2
    coef0: float = 0.0
    C: float = 1.0
    eps: float = 1.0
    cache_mb: float = 1000.0
    #: threads for the one-against-one problems of one model (the parser sets its -j)
    n_threads: int = 1

    #: the parse loop scores this learner's models in batches (see maltpy.search.kernel)
    kind = "kernel"
    #: the solver reports no passes
    reports_passes = False
    threaded = True

    @classmethod
    def from_options(cls, text: str) -> "LibsvmLearner":
        o = parse_libsvm_options(text)
        return cls(kernel=o["t"], degree=o["d"], gamma=o["g"], coef0=o["r"], C=o["c"], eps=o["e"],
                   cache_mb=o["m"])

    def options_string(self) -> str:
        return (f"-s 0 -t {self.kernel} -d {self.degree} -g {self.gamma:g} -r {self.coef0:g} "
                f"-c {self.C:g} -e {self.eps:g}")

    @staticmethod
    def import_estimator():
        """Import the solver, e.g. ahead of :meth:`fit` (the learners share this hook)."""
        from maltpy.learners.svc import train_one_vs_one
        return train_one_vs_one

    def kernel_function(self) -> Kernel:
        return Kernel(self.kernel, self.degree, self.gamma, self.coef0)

    def fit(self, X, y, n_classes: int) -> SvmModel:
        """Train on X (binary CSR, n x features) and y (class ids); return the model as arrays.

        The solver is LIBSVM's, run by :mod:`maltpy.learners.svc` on ``n_threads`` threads:
        the same support vectors, coefficients and intercepts as Java LIBSVM (MaltParser's) and
        scikit-learn's copy of it, several times faster on a parser's 0/1 rows."""
        seen = np.unique(y).astype(np.int32)
        if len(seen) < 2:  # one class: no support vectors, it wins every vote
            return SvmModel(np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros((0, 0), np.float32),
                            np.zeros(0, np.float32), np.zeros(1, np.int32), seen)
        # LIBSVM numbers the classes by first appearance in the data (svm_group_classes); that
        # order decides which class of a pair is +1 and which instances come first in each
        # one-vs-one problem, and so the solution (docs/benchmarks.md)
        first_seen, y_local = first_appearance_order(y)
        sv_rows, coef, intercept, n_support = self.one_vs_one(X, y_local)
        S = X[sv_rows].tocsr()
        S.sort_indices()
        return SvmModel(
            sv_indptr=S.indptr.astype(np.int64), sv_indices=S.indices.astype(np.int32),
            coef=np.ascontiguousarray(coef, dtype=np.float32),
            intercept=intercept.astype(np.float32), n_support=n_support, classes=first_seen.astype(np.int32))

    def one_vs_one(self, X, y_local):
        """LIBSVM's one-against-one training and model assembly (``svm_train``) for classes
        0..k-1 numbered by first appearance. Returns ``(sv_rows, coef, intercept, n_support)``:
        the rows of X that are support vectors (grouped by class, in data order), LIBSVM's
        ``sv_coef`` ((k-1) x nSV, float64), the intercepts (-rho per pair (0,1), (0,2) ..) and
        the support vectors per class."""
        from maltpy.learners.svc import train_one_vs_one
        X = X.tocsr()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        if X.nnz and not np.all(X.data == 1):
            raise ValueError("the LIBSVM solver takes 0/1 feature vectors")
        y_local = np.asarray(y_local, dtype=np.int64)
        k = int(y_local.max()) + 1
        counts = np.bincount(y_local, minlength=k)
        start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        grouped = np.argsort(y_local, kind="stable").astype(np.int32)
        indices = X.indices.astype(np.int32) if X.nnz else np.zeros(1, np.int32)
        alpha, offsets, rho = train_one_vs_one(
            X.indptr.astype(np.int64), indices, X.shape[1], grouped, start,
            kernel_type=self.kernel, degree=self.degree, gamma=self.gamma, coef0=self.coef0, C=self.C,
            eps=self.eps, cache_mb=self.cache_mb, shrinking=True, n_threads=self.n_threads)
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        nonzero = np.zeros(len(y_local), dtype=bool)   # over the grouped positions
        for p, (i, j) in enumerate(pairs):
            a = alpha[offsets[p]:offsets[p + 1]]
            ci = counts[i]
            nonzero[start[i]:start[i + 1]] |= a[:ci] != 0
            nonzero[start[j]:start[j + 1]] |= a[ci:] != 0
        sv_index = np.cumsum(nonzero) - 1   # position -> column of sv_coef
        coef = np.zeros((k - 1, int(nonzero.sum())), dtype=np.float64)
        for p, (i, j) in enumerate(pairs):
            a = alpha[offsets[p]:offsets[p + 1]]
            ci = counts[i]
            # classifier (i, j): class i's coefficients in row j-1, class j's in row i
            keep = nonzero[start[i]:start[i + 1]]
            coef[j - 1, sv_index[start[i]:start[i + 1]][keep]] = a[:ci][keep]
            keep = nonzero[start[j]:start[j + 1]]
            coef[i, sv_index[start[j]:start[j + 1]][keep]] = a[ci:][keep]
        n_support = np.add.reduceat(nonzero, start[:-1]).astype(np.int32)
        intercept = np.where(rho != 0, -rho, 0.0)
        return grouped[nonzero], coef, intercept, n_support
