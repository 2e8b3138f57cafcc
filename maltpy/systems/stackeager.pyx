# cython: language_level=3
"""MaltParser's ``stackeager``: the stack system with SWAP and the eager static
oracle of Nivre (2009) (see :mod:`maltpy.systems.stack`).

The oracle swaps as soon as Stack[1] follows Stack[0] in the projective order
of the gold tree (an in-order traversal), otherwise builds a gold arc whose
dependent is complete, otherwise shifts. It reproduces every tree, projective
or not, in O(n^2) transitions (worst case), n + #SWAP shifts.
"""
from maltpy.systems.stack cimport StackSystem
from maltpy.systems.state cimport State, Gold, stack_at, buffer_at
from libc.stdlib cimport malloc, free

cdef enum:
    SHIFT = 0
    SWAP = 1
    RIGHT_ARC = 2
    LEFT_ARC = 3


cdef inline bint complete(const State* s, const Gold* g, int i) noexcept nogil:
    return s.n_ldeps[i] + s.n_rdeps[i] == g.n_children[i]


cdef int inorder(int node, const int* first, const int* kids, int pos, int* order) noexcept nogil:
    """Number the subtree of node in projective order; kids are sorted by position."""
    cdef int k = first[node]
    while k < first[node + 1] and kids[k] < node:
        pos = inorder(kids[k], first, kids, pos, order)
        k += 1
    order[node] = pos
    pos += 1
    while k < first[node + 1]:
        pos = inorder(kids[k], first, kids, pos, order)
        k += 1
    return pos


cdef void projective_order(const Gold* g, int n) noexcept nogil:
    """g.order[i] = position of node i in the gold tree's projective order."""
    cdef int m = n + 1, i, h
    cdef int* first = <int*>malloc(sizeof(int) * (2 * m + 1))
    if first == NULL:
        return      # order stays the identity: the oracle then never swaps
    cdef int* kids = first + m + 1
    cdef int* fill = g.group   # scratch, overwritten by the lazy oracle afterwards
    for i in range(m + 1):
        first[i] = 0
    for i in range(1, m):
        h = g.heads[i]
        if 0 <= h < m:
            first[h + 1] += 1
    for i in range(m):
        first[i + 1] += first[i]
        fill[i] = first[i]
    for i in range(1, m):
        h = g.heads[i]
        if 0 <= h < m:
            kids[fill[h]] = i
            fill[h] += 1
    inorder(0, first, kids, 0, g.order)
    free(first)


cdef class StackEager(StackSystem):
    name = "stackeager"
    maltparser_features = "StackSwap"   # MaltParser's default feature model
    covers = builds = "any"

    def max_transitions(self, int n):
        """n^2 + 2n + 1: at most n (n - 1) / 2 swaps, each returning a word to be shifted again."""
        return n * n + 2 * n + 1

    cdef void prepare_gold(self, Gold* g, int n) noexcept nogil:
        projective_order(g, n)

    cdef bint should_swap(self, const State* s, const Gold* g, int s0, int s1) noexcept nogil:
        return g.order[s1] > g.order[s0]

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int s0, s1
        label[0] = -1
        if s.stack_len < 2:
            return SHIFT
        s0 = stack_at(s, 0)
        s1 = stack_at(s, 1)
        if s1 != 0 and self.should_swap(s, g, s0, s1):
            return SWAP
        if s1 != 0 and g.heads[s1] == s0 and complete(s, g, s1):
            label[0] = g.labels[s1]
            return LEFT_ARC
        if g.heads[s0] == s1 and complete(s, g, s0):
            label[0] = g.labels[s0]
            return RIGHT_ARC
        return SHIFT
