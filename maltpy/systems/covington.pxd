# cython: language_level=3
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport State, Gold


# the moves, in MaltParser's order (covington.pyx documents them)
cdef enum:
    SHIFT = 0
    NO_ARC = 1
    RIGHT_ARC = 2
    LEFT_ARC = 3


cdef class Covington(TransitionSystem):
    cdef bint allow_root
    cdef bint allow_shift
    cdef int leftstop
    cdef void advance(self, State* s, int move) noexcept nogil
    cdef void move_left_to(self, State* s, int i) noexcept nogil
