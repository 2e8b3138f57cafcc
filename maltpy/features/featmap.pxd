# cython: language_level=3
cimport cython
from libc.stdint cimport uint64_t, int32_t


@cython.final
cdef class FeatMap:
    """Open-addressing hash map from 64-bit feature keys to dense int32 ids."""
    cdef uint64_t* keys
    cdef int32_t* vals
    cdef Py_ssize_t cap       # power of two
    cdef Py_ssize_t size

    cdef int32_t get(self, uint64_t key) noexcept nogil
    cdef int32_t add(self, uint64_t key) noexcept nogil
    cdef bint _grow(self) noexcept nogil


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    """splitmix64's finalizer: a bijection that spreads key bits over the slot index."""
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111eb
    x ^= x >> 31
    return x


cdef inline int32_t probe(const uint64_t* keys, const int32_t* vals, Py_ssize_t mask,
                          uint64_t key) noexcept nogil:
    """Linear probing over a table of capacity mask + 1 (empty slots hold -1): id of key or -1."""
    return probe_from(keys, vals, mask, key, <Py_ssize_t>(mix64(key) & mask))


cdef inline int32_t probe_from(const uint64_t* keys, const int32_t* vals, Py_ssize_t mask, uint64_t key,
                               Py_ssize_t slot) noexcept nogil:
    """:func:`probe` from the key's home slot, made already (``mix64(key) & mask``: a caller that
    prefetched it)."""
    while vals[slot] != -1:
        if keys[slot] == key:
            return vals[slot]
        slot = (slot + 1) & mask
    return -1
