"""Hashes shared by the compiled modules (cimport them; there is no .pyx)."""
from libc.stdint cimport uint64_t


cdef inline uint64_t fnv1a(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """FNV-1a (64 bits) of n bytes: symbol tables (intern.pyx) and hashed features (reduce.pyx)."""
    cdef uint64_t h = 1469598103934665603ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * 1099511628211ULL
    return h
