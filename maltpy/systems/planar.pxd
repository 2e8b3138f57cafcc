# cython: language_level=3
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport State


cdef class PlanarFamily(TransitionSystem):
    """Constraints that planar and 2planar share (MaltParser's -pacy, -pcov, -prh)."""
    cdef bint acyclicity
    cdef bint no_covered_roots
    cdef bint relaxed_root
    cdef int deterministic_move(self, const State* s) noexcept nogil
