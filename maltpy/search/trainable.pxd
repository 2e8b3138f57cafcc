# cython: language_level=3
from libc.stdint cimport int32_t, int64_t, uint64_t
from maltpy.features.featmap cimport FeatMap
from maltpy.search.decision cimport Decision, Scorer


cdef struct Row:
    # a feature's entries: arena[start .. start + n), room for cap
    int64_t start
    int32_t n
    int32_t cap


cdef struct Entry:
    int32_t cls
    float w          # the current weight
    double u         # the sum over steps of step x change, for the average


cdef class TrainableWeights(Scorer):
    cdef FeatMap fmap
    cdef bint grow
    cdef float* bw
    cdef double* bu
    cdef Row* rows           # per feature id
    cdef int64_t rows_cap
    cdef Entry* arena
    cdef int64_t arena_cap, arena_used, n_entries
    cdef int32_t* ids     # the rows of the last scored decision's keys
    cdef int n_ids, room
    cdef readonly bint failed
    cdef public bint read_only    # score() only reads (threads may score at once; updates come after)

    cdef bint reserve_rows(self, Py_ssize_t n) noexcept nogil
    cdef bint reserve_entries(self, int64_t n) noexcept nogil
    cdef int64_t entry(self, int32_t f, int c) noexcept nogil
    cdef void update(self, int gold, int pred, Py_ssize_t t) noexcept nogil
    cdef bint update_keys(self, const uint64_t* keys, int nk, int cls, float delta, Py_ssize_t t) noexcept nogil
