# cython: language_level=3
from libc.stdint cimport int32_t, int64_t
from maltpy.features.featmap cimport FeatMap
from maltpy.search.decision cimport Decision, Scorer


cdef class TrainableWeights(Scorer):
    cdef FeatMap fmap
    cdef bint grow
    cdef float* bw
    cdef double* bu
    # rows: per feature id, its entries arena[row_start .. row_start + row_len), room row_cap
    cdef int64_t* row_start
    cdef int32_t* row_len
    cdef int32_t* row_cap
    cdef Py_ssize_t rows_cap
    # the arena: per entry its class, current weight, and sum of step x change
    cdef int32_t* e_cls
    cdef float* e_w
    cdef double* e_u
    cdef int64_t arena_cap, arena_used, n_entries
    cdef int32_t* ids     # the rows of the last scored decision's keys
    cdef int n_ids, room
    cdef readonly bint failed

    cdef bint reserve_rows(self, Py_ssize_t n) noexcept nogil
    cdef bint reserve_entries(self, int64_t n) noexcept nogil
    cdef int64_t entry(self, int32_t f, int c) noexcept nogil
    cdef void update(self, int gold, int pred, Py_ssize_t t) noexcept nogil
