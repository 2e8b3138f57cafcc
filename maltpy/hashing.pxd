"""Hashes shared by the compiled modules (cimport them; there is no .pyx)."""
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    #define MALTPY_FNV_OFFSET 1469598103934665603ULL
    #define MALTPY_FNV_PRIME 1099511628211ULL
    """
    #: FNV-1a's (64 bits) start and multiplier, for the modules that hash as they go
    const uint64_t FNV_OFFSET "MALTPY_FNV_OFFSET"
    const uint64_t FNV_PRIME "MALTPY_FNV_PRIME"


cdef inline uint64_t fnv1a(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """FNV-1a (64 bits) of n bytes: symbol tables (intern.pyx) and hashed features (reduce.pyx)."""
    cdef uint64_t h = FNV_OFFSET
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * FNV_PRIME
    return h
