"""LIBLINEAR's solvers, with MaltParser's defaults (``-s 4 -c 0.1 -e 0.1 -B -1``).

The default, Crammer and Singer's multi-class SVM (``-s 4``), is maltpy's own
Cython solver for 0/1 features (:mod:`maltpy.learners.mcsvm`); the other
solvers run through scikit-learn's LIBLINEAR.

Training gets a CSR matrix of one-hot feature ids and class ids; the result is
exported as a dense float32 (features x classes) matrix over the classes of
the whole parser, with a bias row, so that scoring is row additions in C.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.learners.base import Learner
from maltpy.learners.mcsvm import train_crammer_singer
from maltpy.learners.options import parse_flags, require_positive

#: Score of a class a model never saw in training: never chosen while a seen class is valid.
UNSEEN = np.float32(-1e30)

_SOLVERS = {
    0: "L2-regularized logistic regression (primal)",
    1: "L2-regularized L2-loss SVC (dual)",
    2: "L2-regularized L2-loss SVC (primal)",
    3: "L2-regularized L1-loss SVC (dual)",
    4: "multi-class SVM by Crammer and Singer",
    5: "L1-regularized L2-loss SVC",
    6: "L1-regularized logistic regression",
    7: "L2-regularized logistic regression (dual)",
}


def physical_memory() -> int:
    """The machine's memory in bytes (0 where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0


def check_dense_weights(n_features: int, n_classes: int, itemsize: int) -> None:
    """Refuse, before asking for it, a weight matrix (features x classes, held twice while the
    solver's copy is merged) larger than the machine's memory: thousands of labels make tens of
    thousands of classes, and the allocation would only say "out of memory"."""
    need = 2 * n_features * n_classes * itemsize
    memory = physical_memory()
    if memory and need > memory:
        raise MaltpyError(
            f"LIBLINEAR's weights are a dense matrix of {n_features:,} features x {n_classes:,} transition "
            f"classes ({need / 2**30:.1f} GiB while training, more than this machine's {memory / 2**30:.1f} GiB): "
            "there are too many labels for it. Use -l perceptron (sparse weights), fewer labels, or a data split "
            "(-d POSTAG -s Input[0] -T 50: smaller models)")


def parse_liblinear_options(text: str) -> dict:
    """``"-s 4 -c 0.1 -e 0.1 -B -1"`` (MaltParser's ``-lo``, underscores allowed for spaces)."""
    opts = parse_flags(text, {"s": 4, "c": 0.1, "e": 0.1, "B": -1.0, "f": 1},
                       {"s": int, "c": float, "e": float, "B": float, "f": int}, "liblinear")
    if not 1 <= opts["f"] < 2 ** 31:
        raise MaltpyError(f"liblinear option -f {opts['f']}: a feature value needs at least 1 occurrence")
    if opts["s"] not in _SOLVERS:
        raise MaltpyError(f"liblinear solver -s {opts['s']} is not available; use one of "
                          + "; ".join(f"{k}: {v}" for k, v in _SOLVERS.items()))
    require_positive(opts, ("c", "e"), "liblinear")
    return opts


def liblinear_order(X, y):
    """The instances as LIBLINEAR hands them to its solver: grouped by class.

    Classes are numbered in the order they first occur, instances keep their
    order within a class and each row's features are in ascending order (X's
    rows are sorted in place). With the same generator and seed the solver then
    visits instances and sums gradients in the order MaltParser's LIBLINEAR does.
    Returns ``(classes, rows, y_grouped)``: ``classes[k]`` is the class id of
    solver class k, ``rows[i]`` the row of X that is grouped instance i (the
    solver reads them in place: no copy of the instances), ``y_grouped`` int32
    solver classes.
    """
    classes, yk = first_appearance_order(y)
    rows = np.argsort(yk, kind="stable")
    X.sort_indices()
    return classes, rows, yk[rows]


def first_appearance_order(y):
    """Classes numbered in the order they first occur, as LIBLINEAR and LIBSVM number them
    (``svm_group_classes``). Returns ``(classes, y_local)``: ``classes[k]`` is the class id of
    local class k, ``y_local`` (int32) each instance's local class."""
    seen, first, inverse = np.unique(np.asarray(y), return_index=True, return_inverse=True)
    by_first = np.argsort(first)
    rank = np.empty(len(seen), dtype=np.int32)
    rank[by_first] = np.arange(len(seen), dtype=np.int32)
    return seen[by_first], rank[inverse.ravel()]


@dataclass
class LiblinearLearner(Learner):
    """A LIBLINEAR model type with its parameters (C, tolerance, bias)."""
    local_temperature = 3.0
    solver: int = 4
    C: float = 0.1
    eps: float = 0.1
    bias: float = -1.0
    max_iter: int = 1000
    #: LIBLINEAR visits instances in random order. For ``-s 4`` this seeds
    #: java.util.Random as MaltParser's LIBLINEAR does (seed 0), so a fixed seed
    #: makes training reproducible and the same as MaltParser's.
    random_state: int = 0
    #: -f: occurrences in the model's instances a feature value needs for weights (maltpy's own option)
    min_count: int = 1
    #: threads for one model of Crammer and Singer's solver: a second one sums gradients ahead
    #: of the solver (same weights, bit for bit); the parser sets it from -j for a model
    #: trained alone
    n_threads: int = 1

    #: the parse loop adds weight rows (see maltpy.search.weights)
    kind = "linear"
    threaded = True

    @property
    def reports_passes(self) -> bool:
        """Whether :meth:`fit` calls ``progress(n_passes, violation)`` (maltpy's own solver does)."""
        return self.solver == 4

    @classmethod
    def from_options(cls, text: str) -> "LiblinearLearner":
        o = parse_liblinear_options(text)
        return cls(solver=o["s"], C=o["c"], eps=o["e"], bias=o["B"], min_count=o["f"])

    def options_string(self) -> str:
        cut = f" -f {self.min_count}" if self.min_count > 1 else ""
        return f"-s {self.solver} -c {self.C:g} -e {self.eps:g} -B {self.bias:g}{cut}"

    def pass_note(self, n_passes: int, violation: float) -> str:
        """What the progress bar shows after a pass of the solver."""
        return f"KKT violation {max(violation, 0.0):.3g}, stops below {self.eps:g}"

    def import_estimator(self):
        """Import the scikit-learn estimators (slow the first time), e.g. ahead of :meth:`fit`.

        Crammer and Singer's solver (``-s 4``) is maltpy's own and needs none.
        """
        if self.solver == 4:
            return None
        from sklearn.linear_model import LogisticRegression
        from sklearn.svm import LinearSVC
        return LogisticRegression, LinearSVC

    def _estimator(self):
        LogisticRegression, LinearSVC = self.import_estimator()
        fit_intercept = self.bias > 0
        common = dict(C=self.C, tol=self.eps, fit_intercept=fit_intercept, max_iter=self.max_iter,
                      random_state=self.random_state)
        if fit_intercept:
            common["intercept_scaling"] = self.bias
        s = self.solver
        if s in (1, 2, 3):
            return LinearSVC(loss="hinge" if s == 3 else "squared_hinge", dual=s != 2, **common)
        if s == 5:
            return LinearSVC(penalty="l1", dual=False, **common)
        penalty = "l1" if s == 6 else "l2"
        return LogisticRegression(solver="liblinear", penalty=penalty, dual=s == 7, **common)

    def fit(self, X, y, n_classes: int, progress=None):
        """Train on X (CSR, n x features), y (class ids in 0..n_classes-1).

        X must hold 0/1 values: Crammer and Singer's solver reads only its pattern.
        ``progress(n_passes, violation)`` follows that solver's passes over the data.
        Returns ``(W, bias)``: W (features x n_classes), float64 from Crammer and Singer's solver
        (the parser scores in float32 and settles near ties with the rest, as MaltParser's double
        weights would), float32 from the others; bias float32 (n_classes); classes absent from y
        score :data:`UNSEEN`.
        """
        n_features = X.shape[1]
        seen = np.unique(y)
        dtype = np.float64 if self.solver == 4 else np.float32
        check_dense_weights(n_features, n_classes, np.dtype(dtype).itemsize)
        W = np.zeros((n_features, n_classes), dtype=dtype)
        bias = np.full(n_classes, UNSEEN, dtype=np.float32)
        bias[seen] = 0.0
        if len(seen) < 2:
            return W, bias  # one class: it always wins among the valid ones
        if self.solver == 4:
            if len(seen) > 65535:
                raise MaltpyError(f"{len(seen)} transition classes in the training data; the Crammer-Singer "
                                  "solver takes at most 65535 (use another -lo \"-s ...\" solver or fewer labels)")
            # maltpy's own solver for 0/1 features (maltpy.learners.mcsvm), over the seen classes only
            classes, rows, yg = liblinear_order(X, y)
            W_seen, b_seen, _ = train_crammer_singer(
                X.indptr.astype(np.int32, copy=False), X.indices.astype(np.int32, copy=False), yg,
                n_features, len(classes), C=self.C, eps=self.eps, bias=self.bias, max_iter=self.max_iter,
                seed=self.random_state, progress=progress, n_threads=self.n_threads, rows=rows)
            W[:, classes] = W_seen
            bias[classes] = b_seen
            return W, bias
        est = self._estimator()
        one_vs_rest = self.solver in (0, 6, 7) and len(seen) > 2
        if one_vs_rest:
            # LIBLINEAR trains logistic regression one class against the rest; scikit-learn's
            # liblinear solver does that only inside OneVsRestClassifier
            from sklearn.multiclass import OneVsRestClassifier
            est = OneVsRestClassifier(est)
        with warnings.catch_warnings():
            # LIBLINEAR stops at max_iter like the original; MaltParser does not warn either
            warnings.simplefilter("ignore")
            est.fit(X, y)
        classes = est.classes_
        if one_vs_rest:
            coef = np.vstack([e.coef_ for e in est.estimators_]).astype(np.float32)
            intercept = (np.concatenate([np.ravel(e.intercept_) for e in est.estimators_]).astype(np.float32)
                         if self.bias > 0 else None)
        else:
            coef = np.asarray(est.coef_, dtype=np.float32)
            intercept = np.asarray(est.intercept_, dtype=np.float32).ravel() if est.fit_intercept else None
        if coef.shape[0] == 1 and len(classes) == 2:
            W[:, classes[1]] = coef[0]
            W[:, classes[0]] = -coef[0]
            if intercept is not None:
                bias[classes[1]] += intercept[0]
                bias[classes[0]] -= intercept[0]
        else:
            W[:, classes] = coef.T
            if intercept is not None:
                bias[classes] += intercept
        return W, bias
