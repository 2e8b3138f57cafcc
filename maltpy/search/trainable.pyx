# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Trainable weights: the perceptron's weights while it learns inside the transition loop
(:mod:`maltpy.search.online`), a scorer like the parse-time table.

A feature key gets a row id from a :class:`~maltpy.features.featmap.FeatMap` the first time it
is scored; each row holds the current weight of every class and, for the average over all steps,
the sum of step x change (the averaged perceptron's usual trick: the average is w - u / t).
The rows change after every mistake, so a step keeps no partial sums of them (``linear`` is
False: :meth:`score` is its own).
"""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

from maltpy.search.decision cimport Decision, add_runs

cnp.import_array()


@cython.final
cdef class TrainableWeights(Scorer):
    """Weights of ``n_classes`` classes over the keys of ``fmap`` (which grows); one split model.
    ``max_keys``: the most features a decision has."""

    def __cinit__(self, FeatMap fmap, int n_classes, int max_keys):
        self.fmap = fmap
        self.n_classes = n_classes
        self.n_splits = 1
        self.set_split_map(np.zeros(0, dtype=np.int32), 0)
        self.room = max_keys + 1
        self.bw = <float*>calloc(max(n_classes, 1), sizeof(float))
        self.bu = <double*>calloc(max(n_classes, 1), sizeof(double))
        self.ids = <int32_t*>malloc(sizeof(int32_t) * self.room)
        if self.bw == NULL or self.bu == NULL or self.ids == NULL or not self.reserve(1024):
            raise MemoryError()

    def __dealloc__(self):
        free(self.w)
        free(self.u)
        free(self.bw)
        free(self.bu)
        free(self.ids)

    cdef bint reserve(self, Py_ssize_t n) noexcept nogil:
        """Room for row ids below n (new rows are zero)."""
        cdef Py_ssize_t cap = self.cap if self.cap else 1024
        cdef int C = self.n_classes
        cdef float* w
        cdef double* u
        if n <= self.cap:
            return True
        while cap < n:
            cap *= 2
        w = <float*>realloc(self.w, sizeof(float) * cap * C)
        if w == NULL:
            return False
        self.w = w
        u = <double*>realloc(self.u, sizeof(double) * cap * C)
        if u == NULL:
            return False
        self.u = u
        memset(self.w + self.cap * C, 0, sizeof(float) * (cap - self.cap) * C)
        memset(self.u + self.cap * C, 0, sizeof(double) * (cap - self.cap) * C)
        self.cap = cap
        return True

    cdef void score(self, Decision* d) noexcept nogil:
        """Bias + the rows of d's keys (made where new), over the permissible classes."""
        cdef int i, r, c
        cdef int C = self.n_classes
        self.n_ids = d.nk if d.nk < self.room else self.room
        for i in range(self.n_ids):
            self.ids[i] = self.fmap.add(d.keys[i])
            if self.ids[i] < 0 or not self.reserve(self.ids[i] + 1):
                self.failed = True
                self.n_ids = i
                break
        for r in range(d.n_runs):
            for c in range(d.run_lo[r], d.run_end[r]):
                d.scores[c] = self.bw[c]
        for i in range(self.n_ids):
            add_runs(d.scores, self.w + <Py_ssize_t>self.ids[i] * C, d.run_lo, d.run_end, d.n_runs)

    cdef void update(self, int gold, int pred, Py_ssize_t t) noexcept nogil:
        """The perceptron's update at step ``t`` for the last scored decision: weight moves from
        the predicted class to the one to learn."""
        cdef int i
        cdef int C = self.n_classes
        cdef Py_ssize_t f
        self.bw[gold] += 1
        self.bw[pred] -= 1
        self.bu[gold] += t
        self.bu[pred] -= t
        for i in range(self.n_ids):
            f = <Py_ssize_t>self.ids[i] * C
            self.w[f + gold] += 1
            self.w[f + pred] -= 1
            self.u[f + gold] += t
            self.u[f + pred] -= t

    def average(self, Py_ssize_t t):
        """The weights averaged over ``t`` steps: (W float32 [rows x classes], bias float32),
        rows in the feature map's id order."""
        cdef Py_ssize_t n = len(self.fmap), f
        cdef int c, C = self.n_classes
        W = np.empty((n, C), dtype=np.float32)
        bias = np.empty(C, dtype=np.float32)
        cdef float[:, ::1] Wv = W
        cdef float[::1] bv = bias
        with nogil:
            for f in range(n):
                for c in range(C):
                    Wv[f, c] = <float>(self.w[f * C + c] - self.u[f * C + c] / t)
            for c in range(C):
                bv[c] = <float>(self.bw[c] - self.bu[c] / t)
        return W, bias
