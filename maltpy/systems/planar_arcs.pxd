# cython: language_level=3
"""Arc transitions shared by the planar and 2-planar systems: arcs link the top a of the
(active) stack and the buffer front j, and move nothing."""
from maltpy.systems.state cimport State, Gold, component_root, uf_find

cdef enum:
    NO_GOLD_ARC = 0
    GOLD_LEFT = 1
    GOLD_RIGHT = 2


cdef inline void arc_validity(const State* s, int a, int j, bint acyclicity,
                              bint* right_arc, bint* left_arc, bint undirected=False) noexcept nogil:
    """RIGHT-ARC: j has no head; LEFT-ARC: a is a word without a head; with
    ``acyclicity``, neither when a and j are already connected. Undirected: RIGHT-ARC is
    ARC, permissible when a and j are not connected (a may be the root), LEFT-ARC never."""
    if undirected:
        right_arc[0] = uf_find(s, a) != uf_find(s, j)
        left_arc[0] = False
        return
    cdef bint linked = acyclicity and component_root(s, a) == component_root(s, j)
    right_arc[0] = s.heads[j] == -1 and not linked
    left_arc[0] = a != 0 and s.heads[a] == -1 and not linked


cdef inline int gold_arc(const State* s, const Gold* g, int a, int j, int* label,
                         bint undirected=False) noexcept nogil:
    """The gold arc between a and j not built yet (MaltParser's oracles), with its label.
    Undirected: the gold edge between a and j while they are not connected."""
    if undirected and uf_find(s, a) == uf_find(s, j):
        return NO_GOLD_ARC
    if undirected:
        if a != 0 and g.heads[a] == j:
            label[0] = g.labels[a]
            return GOLD_LEFT
        if g.heads[j] == a:
            label[0] = g.labels[j]
            return GOLD_RIGHT
        return NO_GOLD_ARC
    if a != 0 and g.heads[a] == j and s.heads[a] != j:
        label[0] = g.labels[a]
        return GOLD_LEFT
    if g.heads[j] == a and s.heads[j] != a:
        label[0] = g.labels[j]
        return GOLD_RIGHT
    return NO_GOLD_ARC
