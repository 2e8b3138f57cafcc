# cython: language_level=3
"""Covington's projective list-based system (Nivre 2008, Fig. 9), MaltParser's ``covproj``.

See :mod:`maltpy.systems.covington` for the moves. λ1 is implicit: NO-ARC moves
``left`` to the head of Left[0] (the words between are covered), or shifts when
Left[0] has no head; LEFT-ARC steps left past Right[0]'s new tree; RIGHT-ARC
shifts (Right[0] joins λ1). Output is a projective forest in at most n(n+3)/2
transitions.
"""
from maltpy.systems.covington cimport NO_ARC, RIGHT_ARC, Covington
from maltpy.systems.state cimport State, component_root


cdef class CovProj(Covington):
    name = "covproj"
    maltparser_features = "CovingtonProjective"   # MaltParser's default feature model
    # no undirected variant (-ud): its advance reads heads, which an undirected parse does not have
    options = {"allow_root": True, "allow_shift": False}
    covers = builds = "projective"

    def max_transitions(self, int n):
        """n (n + 3) / 2: each pair of words is compared at most once, each word shifted once."""
        return n * (n + 3) // 2

    cdef void advance(self, State* s, int move) noexcept nogil:
        cdef int i, cj
        if move == RIGHT_ARC:
            self.move_left_to(s, -1)      # RIGHT-ARC shifts: Right[0] joins λ1
            return
        if move == NO_ARC:
            i = s.heads[s.left] if s.heads[s.left] != -1 else self.leftstop - 1
        else:
            cj = component_root(s, s.right)
            i = s.left - 1
            while i >= self.leftstop and component_root(s, i) == cj:
                i -= 1
        self.move_left_to(s, i)
