# cython: language_level=3
"""MaltParser's ``stackproj``: the stack system without SWAP (projective arc-standard
with arcs between the two top stack nodes; see :mod:`maltpy.systems.stack`).

Static oracle (MaltParser's): LEFT-ARC when Stack[1] is a gold dependent of
Stack[0]; RIGHT-ARC when Stack[0] is a gold dependent of Stack[1] and already has
its rightmost gold dependent; SHIFT otherwise. 2n transitions for a projective tree.
"""
from maltpy.systems.stack cimport StackSystem
from maltpy.systems.state cimport State, Gold, stack_at

cdef enum:
    SHIFT = 0
    RIGHT_ARC = 2
    LEFT_ARC = 3


cdef class StackProj(StackSystem):
    name = "stackproj"
    maltparser_features = "StackProjective"   # MaltParser's default feature model
    covers = builds = "projective"

    def max_transitions(self, int n):
        """2n + 1: every word is shifted once and attached once (and the root popped at the end)."""
        return 2 * n + 1

    def configure(self, pop_at_end=False):
        StackSystem.configure(self, pop_at_end)
        self.has_swap = False

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int s0, s1
        label[0] = -1
        if s.stack_len < 2:
            return SHIFT
        s0 = stack_at(s, 0)
        s1 = stack_at(s, 1)
        # MaltParser's conditions: on projective trees they equal "the dependent is complete",
        # and on non-projective training trees they keep building arcs instead of shifting
        # everything and popping it unattached at the end
        if s1 != 0 and g.heads[s1] == s0:
            label[0] = g.labels[s1]
            return LEFT_ARC
        if g.heads[s0] == s1 and s.rdep[s0] == g.rmost_right[s0]:
            label[0] = g.labels[s0]
            return RIGHT_ARC
        return SHIFT
