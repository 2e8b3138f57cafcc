# cython: language_level=3
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport State, Gold


cdef class StackSystem(TransitionSystem):
    cdef bint has_swap
    cdef bint pop_at_end
