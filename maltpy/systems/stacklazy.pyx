# cython: language_level=3
"""MaltParser's ``stacklazy``: the stack system with SWAP and the lazy static oracle
of Nivre, Kuhlmann & Hall (2009) (see :mod:`maltpy.systems.stack`).

Like the eager oracle, but a swap is delayed while Stack[0] and the buffer
front belong to the same maximal projective component of the gold tree (the
subtrees an arc-standard oracle can build without swapping), which keeps
the number of swaps small.
"""
from libc.stdlib cimport malloc, free

from maltpy.systems.stackeager cimport StackEager, projective_order
from maltpy.systems.state cimport State, Gold, buffer_at


cdef void projective_components(const Gold* g, int n) noexcept nogil:
    """g.group[i] = the top of i's maximal projective component: run the
    arc-standard oracle in surface order (an arc only once the dependent is
    complete) until it is stuck, and read off the trees it built."""
    cdef int m = n + 1, top = 0, nxt = 1, s0, s1, i
    cdef int* block = <int*>malloc(sizeof(int) * 3 * m)
    if block == NULL:
        for i in range(m):
            g.group[i] = -1 - i   # no components known: swap whenever the order says so
        return
    cdef int* stack = block
    cdef int* head = block + m
    cdef int* done = block + 2 * m
    for i in range(m):
        head[i] = -1
        done[i] = 0
    stack[0] = 0
    top = 1
    while True:
        if top >= 2:
            s0 = stack[top - 1]
            s1 = stack[top - 2]
            if s1 != 0 and g.heads[s1] == s0 and done[s1] == g.n_children[s1]:
                head[s1] = s0
                done[s0] += 1
                stack[top - 2] = s0
                top -= 1
                continue
            if g.heads[s0] == s1 and done[s0] == g.n_children[s0]:
                head[s0] = s1
                done[s1] += 1
                top -= 1
                continue
        if nxt > n:
            break
        stack[top] = nxt
        top += 1
        nxt += 1
    for i in range(m):
        s0 = i
        while head[s0] != -1:
            s0 = head[s0]
        g.group[i] = s0
    free(block)


cdef class StackLazy(StackEager):
    name = "stacklazy"
    maltparser_features = "StackSwap"   # MaltParser's default feature model

    cdef void prepare_gold(self, Gold* g, int n) noexcept nogil:
        projective_order(g, n)
        projective_components(g, n)

    cdef bint should_swap(self, const State* s, const Gold* g, int s0, int s1) noexcept nogil:
        cdef int b0 = buffer_at(s, 0)
        return g.order[s1] > g.order[s0] and (b0 == -1 or g.group[s0] != g.group[b0])
