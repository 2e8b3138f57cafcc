# cython: language_level=3
"""The scorer interface (see decision.pxd for the Decision record)."""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t, int64_t

cnp.import_array()


cdef class Scorer:
    """Base of the scorers. A subclass serves :meth:`score` (the scores of one decision's
    permissible classes, from its features and split model); the others have defaults:
    :meth:`score_many` scores one decision after the other, and a linear scorer's
    :meth:`score` is its bias plus :meth:`add`. Nothing here takes the GIL."""

    cdef set_split_map(self, split_map, int default_split):
        """Model of each split value (-d/-s/-T); values outside the map use ``default_split``."""
        sm = np.ascontiguousarray(split_map, dtype=np.int32)
        if sm.ndim != 1 or not 0 <= default_split < self.n_splits or (
                len(sm) and (sm.min() < 0 or sm.max() >= self.n_splits)):
            raise ValueError("split map refers to a missing model")
        self._split_map_array = sm
        self.split_map_len = len(sm)
        self.split_map = <int*>cnp.PyArray_DATA(sm)
        self.default_split = default_split

    cdef void score(self, Decision* d) noexcept nogil:
        """``d.scores`` over d's runs: by default (linear scorers) the bias plus the rows of
        d's keys."""
        self.add(d.split, d.keys, d.nk, d.found, d.scores, d.run_lo, d.run_end, d.n_runs, True)

    cdef void* work_new(self, int n_threads, int batch) noexcept nogil:
        """Scratch for :meth:`score_many` over up to ``batch`` decisions per thread (NULL: none
        needed, or out of memory where one is: score_many then scores none)."""
        return NULL

    cdef void work_free(self, void* work) noexcept nogil:
        pass

    cdef void score_many(self, Decision** ds, int n, int n_threads, void* work) noexcept nogil:
        """Score ``n`` decisions (each as :meth:`score` would)."""
        cdef int i
        for i in range(n):
            self.score(ds[i])

    cdef void add(self, int sp, const uint64_t* keys, int nk, const void** found, float* scores,
                  const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil:
        """Linear scorers: ``scores`` (over the runs) = bias of split model ``sp`` (``from_bias``;
        else ``scores`` as they are) + the rows of ``keys`` in their order. ``scores`` has room for
        padded_classes(n_classes) floats, the padding zero: a scorer may add zeros there."""
        pass

    cdef const float* bias_of(self, int sp) noexcept nogil:
        """Linear scorers: the bias row of split model ``sp``."""
        return NULL

    cdef float near_tie_floor(self, float top, int n_terms) noexcept nogil:
        """Scorers with ``near_ties``: the lowest float32 score that the model's own arithmetic
        could still put above one of ``top`` (a sum of ``n_terms`` weights)."""
        return top

    cdef int settle(self, int sp, const uint64_t* keys, int nk, const float* scores, float floor,
                    const int* run_lo, const int* run_end, int n_runs, int best, double* exact) noexcept nogil:
        """Scorers with ``near_ties``: the best permissible class in the model's own arithmetic
        among those scoring at least ``floor`` (``keys``: all the decision's features;
        ``exact``: scratch of one double per class)."""
        return best


def _runs_checked(scores, run_lo, run_end):
    """``scores``, ``run_lo`` and ``run_end`` as the compiled functions read them (float32 and
    int32, contiguous), the runs checked to lie within the scores."""
    sv = np.ascontiguousarray(scores, dtype=np.float32)
    lv = np.ascontiguousarray(run_lo, dtype=np.int32)
    ev = np.ascontiguousarray(run_end, dtype=np.int32)
    if lv.shape[0] != ev.shape[0] or any(not 0 <= a <= b <= sv.shape[0] for a, b in zip(lv, ev)):
        raise ValueError("runs must lie within the scores")
    return sv, lv, ev


def max_of_runs(scores, run_lo, run_end) -> float:
    """The highest of ``scores`` over the runs (for tests; -inf when they are empty): a beam
    step's best class score."""
    sv, lv, ev = _runs_checked(scores, run_lo, run_end)
    cdef const float[::1] s = sv if sv.shape[0] else np.zeros(1, dtype=np.float32)
    cdef const int[::1] lo = lv if lv.shape[0] else np.zeros(1, dtype=np.int32)
    cdef const int[::1] hi = ev if ev.shape[0] else np.zeros(1, dtype=np.int32)
    return max_runs(&s[0], &lo[0], &hi[0], lv.shape[0])


def classes_reaching(scores, run_lo, run_end, float floor):
    """The classes over the runs that score at least ``floor``, in ascending order (for tests):
    the candidates a beam step considers."""
    sv, lv, ev = _runs_checked(scores, run_lo, run_end)
    cdef const float[::1] s = sv if sv.shape[0] else np.zeros(1, dtype=np.float32)
    cdef const int[::1] lo = lv if lv.shape[0] else np.zeros(1, dtype=np.int32)
    cdef const int[::1] hi = ev if ev.shape[0] else np.zeros(1, dtype=np.int32)
    out_array = np.zeros(max(int(np.sum(ev - lv)) if lv.shape[0] else 0, 1), dtype=np.int32)
    cdef int[::1] out = out_array
    cdef int k = classes_at_least(&s[0], &lo[0], &hi[0], lv.shape[0], floor, &out[0])
    return out_array[:k].tolist()


def best_of_runs(scores, run_lo, run_end):
    """The arg-max of every search strategy (for tests): the first class with the highest of
    ``scores`` over the runs ``run_lo[r]`` .. ``run_end[r]``-1, -1 if they are empty."""
    cdef const float[::1] sv = np.ascontiguousarray(scores, dtype=np.float32)
    cdef const int[::1] lv = np.ascontiguousarray(run_lo, dtype=np.int32)
    cdef const int[::1] ev = np.ascontiguousarray(run_end, dtype=np.int32)
    if lv.shape[0] != ev.shape[0] or any(not 0 <= a <= b <= sv.shape[0] for a, b in zip(lv, ev)):
        raise ValueError("runs must lie within the scores")
    if lv.shape[0] == 0 or sv.shape[0] == 0:
        return -1
    return argmax_runs(&sv[0], &lv[0], &ev[0], lv.shape[0])
