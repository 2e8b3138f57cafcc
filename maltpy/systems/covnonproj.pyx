# cython: language_level=3
"""Covington's non-projective list-based system (Nivre 2008, Fig. 7), MaltParser's ``covnonproj``.

See :mod:`maltpy.systems.covington` for the moves. After every move but SHIFT,
``left`` steps left past every node it cannot link to Right[0]: nodes in
Right[0]'s tree (an arc would close a cycle) and, once Right[0] has a head,
nodes that have one too. When it passes ``leftstop`` the next word is shifted.
Any forest can be built; at most n(n+3)/2 transitions.
"""
from maltpy.systems.covington cimport Covington
from maltpy.systems.state cimport State, component_root


cdef class CovNonProj(Covington):
    name = "covnonproj"

    cdef void advance(self, State* s, int move) noexcept nogil:
        cdef int j = s.right
        cdef int cj = component_root(s, j)
        cdef bint j_headed = s.heads[j] != -1
        cdef int i = s.left - 1
        while i >= self.leftstop:
            if component_root(s, i) != cj and not (j_headed and s.heads[i] != -1):
                break
            i -= 1
        self.move_left_to(s, i)
