# cython: language_level=3
from maltpy.systems.stack cimport StackSystem
from maltpy.systems.state cimport State, Gold

cdef void projective_order(const Gold* g, int n) noexcept nogil


cdef class StackEager(StackSystem):
    cdef bint should_swap(self, const State* s, const Gold* g, int s0, int s1) noexcept nogil
