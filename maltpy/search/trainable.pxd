# cython: language_level=3
from libc.stdint cimport int32_t
from maltpy.features.featmap cimport FeatMap
from maltpy.search.decision cimport Decision, Scorer


cdef class TrainableWeights(Scorer):
    cdef FeatMap fmap
    cdef float* w
    cdef double* u
    cdef float* bw
    cdef double* bu
    cdef Py_ssize_t cap
    cdef int32_t* ids
    cdef int n_ids, room
    cdef readonly bint failed

    cdef bint reserve(self, Py_ssize_t n) noexcept nogil
    cdef void update(self, int gold, int pred, Py_ssize_t t) noexcept nogil
