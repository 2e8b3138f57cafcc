# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""A multi-class averaged perceptron (Collins 2002) over 0/1 feature instances, without the GIL.

Instances are CSR rows of feature ids with a class each, as the static oracle collects
them (:func:`maltpy.search.oracle.collect_instances`). Each epoch visits them in a seeded
random order; a wrong prediction adds the instance's features to the gold class and
subtracts them from the predicted one. The returned weights are the average over every
step, computed with the usual timestamp trick (``w - u / t``).
"""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

cnp.import_array()


cdef extern from "maltpy/scores.h":
    # the sums and the arg-max of the search's scorers (maltpy/search/decision.pxd), over one run
    # of all the classes
    void add_runs "maltpy_add_runs"(float* scores, const float* w, const int* lo, const int* hi, int n) nogil
    int argmax_runs "maltpy_argmax_runs"(const float* scores, const int* lo, const int* hi, int n) nogil


def train_averaged_perceptron(const int64_t[::1] indptr, const int32_t[::1] indices, const int32_t[::1] y,
                              int n_features, int n_classes, int epochs, int seed, progress=None):
    """Return (W float32 [n_features x n_classes], bias float32 [n_classes]), the averaged weights.

    ``progress(epoch, accuracy, seconds)`` is called after each epoch (training accuracy of
    that epoch's predictions, before its updates)."""
    import time
    cdef Py_ssize_t n = y.shape[0], i, r, best, f, C = n_classes, t = 1
    cdef int64_t j
    if n_classes < 1 or n_features < 0:
        raise ValueError("no classes")
    w_arr = np.zeros((max(n_features, 1), C), dtype=np.float32)
    u_arr = np.zeros((max(n_features, 1), C), dtype=np.float64)
    bw_arr = np.zeros(C, dtype=np.float32)
    bu_arr = np.zeros(C, dtype=np.float64)
    cdef float[:, ::1] w = w_arr
    cdef double[:, ::1] u = u_arr
    cdef float[::1] bw = bw_arr
    cdef double[::1] bu = bu_arr
    cdef float* scores = <float*>malloc(sizeof(float) * C)
    if scores == NULL:
        raise MemoryError()
    rng = np.random.default_rng(seed)
    cdef int64_t[::1] order
    cdef Py_ssize_t correct
    cdef int gold
    cdef int all_lo = 0
    cdef int all_hi = n_classes
    try:
        for epoch in range(epochs):
            t0 = time.perf_counter()
            order = rng.permutation(n).astype(np.int64)
            correct = 0
            with nogil:
                for i in range(n):
                    r = order[i]
                    gold = y[r]
                    memcpy(scores, &bw[0], sizeof(float) * C)
                    for j in range(indptr[r], indptr[r + 1]):
                        add_runs(scores, &w[indices[j], 0], &all_lo, &all_hi, 1)
                    best = argmax_runs(scores, &all_lo, &all_hi, 1)
                    if best == gold:
                        correct += 1
                    else:
                        bw[gold] += 1
                        bw[best] -= 1
                        bu[gold] += t
                        bu[best] -= t
                        for j in range(indptr[r], indptr[r + 1]):
                            f = indices[j]
                            w[f, gold] += 1
                            w[f, best] -= 1
                            u[f, gold] += t
                            u[f, best] -= t
                    t += 1
            PyErr_CheckSignals()   # Ctrl-C between epochs
            if progress is not None:
                progress(epoch + 1, correct / <double>max(n, 1), time.perf_counter() - t0)
    finally:
        free(scores)
    # the average over all t steps: w_avg = w - u / t
    W = (w_arr - u_arr / t).astype(np.float32)
    bias = (bw_arr - bu_arr / t).astype(np.float32)
    return W[:n_features], bias
