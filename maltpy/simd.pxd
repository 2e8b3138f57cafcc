"""What the compiled modules cimport of maltpy/simd.h (there is no .pyx)."""

cdef extern from "maltpy/simd.h":
    #: ask for the cache line of p ahead of its use
    void prefetch "MALTPY_PREFETCH"(const void* p) nogil
