# cython: language_level=3
"""Undirected parsing (Gómez-Rodríguez & Fernández-González 2012; Gómez-Rodríguez,
Fernández-González & Darriba 2015): the planar, 2-planar and Covington systems with LEFT-ARC
and RIGHT-ARC merged into one ARC that links two nodes without a direction (``add_link`` in
state.pxd), and the reconstruction of a dependency tree from the undirected forest once the
parse ends (:func:`reconstruct`, spec §3.3: the O(n) equivalent of Chu-Liu-Edmonds on D(U)).

Cost schemes (``-ud``):

``naive``
    every link costs 1, a new root arc 2: the component that holds node 0 is oriented away
    from 0, every other component is rooted at its leftmost word.
``label`` (the papers' label-based v2)
    links are trained with their direction in the label (``X_l``: the head is the right
    node, ``X_r``: the left one); a link costs 1 oriented as its label says and 2 against it,
    any root arc 2n. So the parser's links to 0 are not trusted: every component of the links
    among words is rooted where the fewest labels are contradicted, ties going to a word the
    parser linked to 0, then to the leftmost word.
"""
from maltpy.systems.state cimport State, note_dependent, DIR_NONE, DIR_LEFT, DIR_RIGHT

cdef enum:
    UD_NONE = 0
    UD_NAIVE = 1
    UD_LABEL = 2


cdef inline bint agrees(const int* label_dir, int n_labels, int label, int head, int dep) noexcept nogil:
    """Whether the arc head -> dep goes the way its link's label says (unannotated: both ways)."""
    cdef int d = label_dir[label] if 0 <= label < n_labels else DIR_NONE
    if d == DIR_LEFT:
        return head > dep
    if d == DIR_RIGHT:
        return head < dep
    return True


cdef inline int _spread(State* s, int root, int* queue, int* mark, int stamp, bint skip_root_node,
                        int* parent, int* plabel) noexcept nogil:
    """Breadth-first over the links from ``root`` to the nodes not yet marked ``stamp`` (with
    ``skip_root_node``, never into node 0), marking them; ``parent[y]`` / ``plabel[y]`` = the
    node and the link label y was reached by. Returns the number of nodes reached, which are
    ``queue[0:count]`` in visiting order."""
    cdef int qh = 0, qt = 1, x, k, y
    queue[0] = root
    mark[root] = stamp
    while qh < qt:
        x = queue[qh]
        qh += 1
        k = s.link_first[x]
        while k != -1:
            y = s.link_to[k]
            if mark[y] != stamp and not (skip_root_node and y == 0):
                mark[y] = stamp
                parent[y] = x
                plabel[y] = s.link_label[k]
                queue[qt] = y
                qt += 1
            k = s.link_next[k]
    return qt


cdef inline void reconstruct(State* s, int mode, const int* label_dir, int n_labels, int root_label) noexcept nogil:
    """The minimum-cost dependency tree over the links built (see the module docstring);
    writes heads and labels, and rebuilds the dependent summaries from them. The lists of
    the terminal configuration serve as scratch space."""
    cdef int n = s.n, x, y, k, qh, qt, best, c, p
    cdef int* par = s.stack
    cdef int* plab = s.ldep
    cdef int* queue = s.buffer
    cdef int* cost = s.aux
    cdef int* mark = s.n_ldeps          # 0 unseen, 1 seen in the costing pass, 2 oriented
    cdef int* rootlab = s.n_rdeps       # label of the parser's link to 0, -1 if none
    for x in range(n + 1):
        mark[x] = 0
        rootlab[x] = -1
        s.heads[x] = -1
        s.labels[x] = -1
    k = s.link_first[0]
    while k != -1:
        rootlab[s.link_to[k]] = s.link_label[k]
        k = s.link_next[k]
    if mode == UD_NAIVE:
        _spread(s, 0, queue, mark, 2, False, s.heads, s.labels)   # away from node 0
        for x in range(1, n + 1):
            if mark[x] != 2:
                s.heads[x] = 0
                s.labels[x] = root_label
                _spread(s, x, queue, mark, 2, True, s.heads, s.labels)
    else:
        for x in range(1, n + 1):
            if mark[x] != 0:
                continue
            # the component of x among the words: a BFS tree and the cost of rooting it at x
            qt = _spread(s, x, queue, mark, 1, True, par, plab)
            par[x] = -1
            cost[x] = 0
            for qh in range(1, qt):
                c = queue[qh]
                cost[x] += not agrees(label_dir, n_labels, plab[c], par[c], c)
            # re-rooting across one link changes the cost by that link's agreement only
            best = x
            for qh in range(1, qt):
                c = queue[qh]
                p = par[c]
                cost[c] = (cost[p] - (not agrees(label_dir, n_labels, plab[c], p, c))
                           + (not agrees(label_dir, n_labels, plab[c], c, p)))
                if (cost[c] < cost[best] or (cost[c] == cost[best] and (
                        (rootlab[c] >= 0 and rootlab[best] < 0)
                        or ((rootlab[c] >= 0) == (rootlab[best] >= 0) and c < best)))):
                    best = c
            s.heads[best] = 0
            s.labels[best] = rootlab[best] if rootlab[best] >= 0 else root_label
            _spread(s, best, queue, mark, 2, True, s.heads, s.labels)
    # the dependent summaries of the tree
    for x in range(n + 1):
        s.ldep[x] = -1
        s.rdep[x] = -1
        s.n_ldeps[x] = 0
        s.n_rdeps[x] = 0
    for y in range(1, n + 1):
        note_dependent(s, s.heads[y], y)
