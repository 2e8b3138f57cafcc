"""The two kinds of trained models a learner makes (its ``kind``), each in one class: how a split
model is trained from its instances, which scorer parses with it (:mod:`maltpy.search`), and
how it is written to and read from a model file. :func:`models_of` is the one place a learner's
kind is looked up."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from maltpy.errors import ModelFileError
from maltpy.parsing.modelfile import check_array


class LinearSplit(NamedTuple):
    """One split model of a linear learner: the feature key of each weight row, the weights (a
    dense rows x classes matrix from training, or sparse rows ``(row pointers, classes, weights,
    low parts or None)`` as a model file is read) and one bias per class."""
    keys: np.ndarray
    weights: Any
    bias: np.ndarray


class KernelSplit(NamedTuple):
    """One split model of a kernel learner: the feature keys its support vectors use, and the
    :class:`~maltpy.learners.SvmModel` over them."""
    keys: np.ndarray
    svm: Any


class LinearModels:
    """Weights per feature and class, added by the parse-time table
    (:class:`maltpy.search.weights.Weights`): LIBLINEAR, the perceptron, scikit-learn's."""

    #: split models may train side by side (LIBLINEAR releases the GIL)
    side_by_side = True

    @staticmethod
    def train(learner, X, y, n_classes, keys, progress=None):
        """One split model from its instances (``keys``: each column's feature key): (keys, W, bias),
        the rows that stayed zero dropped."""
        W, bias = learner.fit(X, y, n_classes, progress=progress)
        keep = np.flatnonzero(np.any(W != 0, axis=1))
        return LinearSplit(keys[keep], W[keep], bias)

    @staticmethod
    def scorer(splits, split_map, default_split, n_classes, learner, left_out):
        from maltpy.search.weights import Weights
        return Weights([(k, W, b) for k, W, b in splits], split_map, default_split, n_classes)

    @staticmethod
    def save(splits, arrays: dict, n_classes: int) -> None:
        from maltpy.search.weights import sparse_rows
        col_dtype = np.uint16 if n_classes < 65536 else np.int32
        for k, (keys, W, bias) in enumerate(splits):
            parts = W if isinstance(W, tuple) else sparse_rows(W)
            indptr, cols, vals = parts[:3]
            low = parts[3] if len(parts) > 3 else None
            arrays[f"keys{k}"] = keys
            arrays[f"bias{k}"] = bias
            arrays[f"w{k}_indptr"] = np.asarray(indptr, dtype=np.int64)
            arrays[f"w{k}_cols"] = np.asarray(cols).astype(col_dtype)
            arrays[f"w{k}_vals"] = np.asarray(vals, dtype=np.float32)
            if low is not None:   # what float32 left of the solver's float64 weights (near ties)
                arrays[f"w{k}_low"] = np.asarray(low, dtype=np.float32)

    @staticmethod
    def records(names) -> dict:
        """What :func:`~maltpy.parsing.modelfile.load_model` reads straight into the parse-time
        table's (class, weight) records: each split model's classes and weights (a rich model's
        are tens of megabytes; neither is ever held apart)."""
        from maltpy.search.weights import ENTRY
        names = set(names)
        return {f"w{k}_entries": (ENTRY, {"cls": f"w{k}_cols", "w": f"w{k}_vals"})
                for k in range(len(names)) if f"w{k}_cols" in names and f"w{k}_vals" in names}

    @staticmethod
    def load(arrays: dict, k: int, n_classes: int, path: str):
        """Split model ``k`` of a model file, every array checked against the others (the classes
        against the class count when the table is built)."""
        from maltpy.search.weights import row_entries
        C = n_classes
        keys = check_array(arrays, f"keys{k}", path, "u").astype(np.uint64, copy=False)
        indptr = check_array(arrays, f"w{k}_indptr", path, "iu", length=len(keys) + 1, low=0)
        entries = arrays.pop(f"w{k}_entries", None)
        if entries is None:     # the arrays as stored (read without records)
            cols = check_array(arrays, f"w{k}_cols", path, "iu", low=0, high=C - 1)
            vals = check_array(arrays, f"w{k}_vals", path, "f", length=len(cols))
            entries = row_entries(cols, vals)[:len(cols)]
            for name in (f"w{k}_cols", f"w{k}_vals"):
                arrays.pop(name, None)
            del cols, vals
        n = len(entries)
        bias = check_array(arrays, f"bias{k}", path, "f", length=C)
        # optional (models since the near-tie rule): the low parts of float64 weights
        low = check_array(arrays, f"w{k}_low", path, "f", length=n).astype(np.float32, copy=False) \
            if f"w{k}_low" in arrays else None
        # rows that run backwards are refused by the table (maltpy.search.weights), which every
        # loaded model builds
        if indptr[0] != 0 or indptr[-1] != n:
            raise ModelFileError(f"{path}: inconsistent model file (weight rows of split model {k})")
        if n == 0:     # the table takes at least one record
            entries = row_entries(np.zeros(0, np.int32), np.zeros(0, np.float32))
        # the classes and weights handed on as views of the records, which the table takes as
        # they are
        return LinearSplit(keys, (indptr.astype(np.int64, copy=False), entries["cls"][:n], entries["w"][:n], low),
                           bias.astype(np.float32, copy=False))


class KernelModelSet:
    """LIBSVM-style models (support vectors, coefficients), scored in batches
    (:class:`maltpy.search.kernel.KernelModels`)."""

    #: one model at a time: a model's one-against-one problems run on the jobs threads (the
    #: solver's own), which balances better than a thread per model
    side_by_side = False

    @staticmethod
    def train(learner, X, y, n_classes, keys, progress=None):
        """One split model: (keys of the features some support vector has, SvmModel over them)."""
        svm = learner.fit(X, y, n_classes)
        used = svm.used_features()
        remap = np.full(X.shape[1], -1, dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        svm.remap_features(remap)
        return KernelSplit(keys[used], svm)

    @staticmethod
    def scorer(splits, split_map, default_split, n_classes, learner, left_out):
        from maltpy.search.kernel import KernelModels   # BLAS through scipy: kernel models only
        return KernelModels(splits, split_map, default_split, learner.kernel_function(), n_classes, left_out)

    @staticmethod
    def save(splits, arrays: dict, n_classes: int) -> None:
        from maltpy.learners import SvmModel
        for k, (keys, svm) in enumerate(splits):
            arrays[f"keys{k}"] = keys
            for name in SvmModel.ARRAYS:
                arrays[f"svm{k}_{name}"] = getattr(svm, name)

    @staticmethod
    def load(arrays: dict, k: int, n_classes: int, path: str):
        from maltpy.learners import SvmModel
        keys = check_array(arrays, f"keys{k}", path, "u").astype(np.uint64, copy=False)
        n = len(keys)
        indptr = check_array(arrays, f"svm{k}_sv_indptr", path, "iu", low=0)
        n_sv = len(indptr) - 1
        classes = check_array(arrays, f"svm{k}_classes", path, "iu", low=0, high=n_classes - 1)
        m = len(classes)
        svm = SvmModel(
            indptr,
            check_array(arrays, f"svm{k}_sv_indices", path, "iu", low=0, high=n - 1),
            check_array(arrays, f"svm{k}_coef", path, "f", ndim=2),
            check_array(arrays, f"svm{k}_intercept", path, "f", length=m * (m - 1) // 2),
            check_array(arrays, f"svm{k}_n_support", path, "iu", length=m, low=0, high=max(n_sv, 0)),
            classes)
        if n_sv < 0 or len(np.unique(classes)) != m:
            raise ModelFileError(f"{path}: inconsistent model file (SVM {k} classes or support vectors)")
        return KernelSplit(keys, svm)


#: learner kind -> its models
MODEL_KINDS = {"linear": LinearModels, "kernel": KernelModelSet}


def models_of(learner):
    """The model kind a learner trains (:attr:`maltpy.learners.base.Learner.kind`)."""
    return MODEL_KINDS[learner.kind]
