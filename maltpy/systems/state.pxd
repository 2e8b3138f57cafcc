# cython: language_level=3
"""The parser configuration as a plain C struct, shared by every transition system.

Nodes are 0..n with 0 the artificial root. Lists are int arrays; the buffer is
stored reversed so that its front (Input[0]) is the last element and popping
or pushing the front is O(1).
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.stdint cimport int64_t


cdef enum:
    # the most moves a transition system may have (the decision's masks and the oracles' cost
    # arrays are this long)
    MAX_MOVES = 64
    # ints per node in a state's single allocation: the lists, arcs, summaries, union-find,
    # undirected links (two entries each for next/to/label) and the arc log (three per arc)
    STATE_INTS_PER_NODE = 23
    # ints per node of a gold tree's allocation: six summaries and the dynamic oracles' scratch
    GOLD_SCRATCH_PER_NODE = 11
    GOLD_INTS_PER_NODE = 6 + GOLD_SCRATCH_PER_NODE


cdef enum:
    # what the label of an undirected link says (label-based parsing: X_l / X_r)
    DIR_NONE = 0
    DIR_LEFT = 1       # X_l: the head is the right node (a leftward arc)
    DIR_RIGHT = 2      # X_r: the head is the left node


cdef struct State:
    int n                 # number of words; nodes are 0..n
    int* stack            # stack[0] is the bottom, stack[stack_len-1] the top
    int stack_len
    int* buffer           # reversed: buffer[buf_len-1] is the front
    int buf_len
    int* aux              # a second list for systems that need one (lambda2, inactive stack)
    int aux_len
    int* heads            # -1 = no head yet
    int* labels           # -1 = no label yet
    int* ldep             # leftmost left dependent, -1 if none
    int* rdep             # rightmost right dependent, -1 if none
    int* n_ldeps
    int* n_rdeps
    bint end_seen         # tree constraint: an empty buffer has been seen
    bint scored_end       # beam search: systems with end pops (arc-eager) pop the words left at the
                          # end of the input by moves the model scores, instead of finish()
    int64_t n_transitions # 64-bit: quadratic systems make ~n^2/2 moves
    int left              # list-based systems: position of Left[0] in 0..n
    int right             # list-based systems: position of Right[0] in 0..n
    int lookahead         # stack (swap) systems: swapped-back nodes at the buffer front
    int last_move         # move applied last, -1 at the start
    int active            # 2-planar: which stack is active (0 = first plane, 1 = second)
    int cap               # allocated for cap words
    int* block            # the single allocation behind all arrays (systems may swap list pointers)
    int* uf               # union-find over the weak components of the arcs or links built
    int* uf_size
    # undirected systems (-ud): the links built, as adjacency lists (link_first[x], then link_next)
    int* link_first
    int* link_next
    int* link_to
    int* link_label
    int n_links
    int* thead            # label-based links: the closest node a link's label makes x's head, -1 if none
    int* thead_label      # that link's label
    # arcs and links in the order they were built, as (a, b, tag) triples; the tag is the
    # system's (2-planar: the plane), for oracles that depend on how the arcs were built
    int* arc_log
    int n_logged


cdef struct Gold:
    const int* heads      # gold head of each node, -1 for the root
    const int* labels     # gold label id
    int* n_children       # gold number of dependents
    int* lmost_left       # gold leftmost left dependent, -1 if none
    int* rmost_right      # gold rightmost right dependent, -1 if none
    int* order            # per-system scratch filled by prepare_gold (e.g. projective order)
    int* group            # per-system scratch (e.g. maximal projective components)
    int* plane            # per-system oracle cache (2-planar: the planes the built arcs fix)
    int* scratch          # GOLD_SCRATCH_PER_NODE * (n + 1) ints for dynamic oracles, allocated once per sentence


cdef inline bint state_alloc(State* s, int n) noexcept nogil:
    """Allocate all arrays of a state for n words. Returns False on out-of-memory."""
    cdef int m = n + 1
    cdef int* block = <int*>malloc(sizeof(int) * m * STATE_INTS_PER_NODE)
    if block == NULL:
        return False
    s.n = n
    s.cap = n
    s.block = block
    s.stack = block
    s.buffer = block + m
    s.aux = block + 2 * m
    s.heads = block + 3 * m
    s.labels = block + 4 * m
    s.ldep = block + 5 * m
    s.rdep = block + 6 * m
    s.n_ldeps = block + 7 * m
    s.n_rdeps = block + 8 * m
    s.uf = block + 9 * m
    s.uf_size = block + 10 * m
    s.link_first = block + 11 * m
    s.link_next = block + 12 * m        # 2m: two entries per link
    s.link_to = block + 14 * m
    s.link_label = block + 16 * m
    s.arc_log = block + 18 * m          # 3m: three entries per arc
    s.thead = block + 21 * m
    s.thead_label = block + 22 * m
    state_reset(s)
    return True


cdef inline void state_reset(State* s) noexcept nogil:
    """Empty lists, no arcs: the system's init then fills stack and buffer."""
    cdef int i
    cdef int m = s.n + 1
    s.stack_len = 0
    s.buf_len = 0
    s.aux_len = 0
    for i in range(m):
        s.heads[i] = -1
        s.labels[i] = -1
        s.ldep[i] = -1
        s.rdep[i] = -1
        s.n_ldeps[i] = 0
        s.n_rdeps[i] = 0
        s.uf[i] = i
        s.uf_size[i] = 1
        s.link_first[i] = -1
        s.thead[i] = -1
    s.n_links = 0
    s.n_logged = 0
    s.end_seen = False
    s.scored_end = False
    s.n_transitions = 0
    s.left = 0
    s.right = 0
    s.lookahead = 0
    s.last_move = -1
    s.active = 0
    s.stack = s.block
    s.aux = s.block + 2 * (s.cap + 1)


cdef inline void copy_tree(State* dst, const State* src) noexcept nogil:
    """The arcs of ``src`` (heads, labels, the dependent summaries) into ``dst``'s arrays, for its
    ``src.n + 1`` nodes."""
    cdef int m1 = src.n + 1
    memcpy(dst.heads, src.heads, sizeof(int) * m1)
    memcpy(dst.labels, src.labels, sizeof(int) * m1)
    memcpy(dst.ldep, src.ldep, sizeof(int) * m1)
    memcpy(dst.rdep, src.rdep, sizeof(int) * m1)
    memcpy(dst.n_ldeps, src.n_ldeps, sizeof(int) * m1)
    memcpy(dst.n_rdeps, src.n_rdeps, sizeof(int) * m1)


cdef inline void copy_arcs(State* dst, const State* src) noexcept nogil:
    """The arcs of ``src`` and what follows from them (:func:`copy_tree`, the union-find) into
    ``dst``'s arrays: part of :func:`state_copy`, and all that a dynamic oracle's trial move on
    scratch arrays needs."""
    copy_tree(dst, src)
    memcpy(dst.uf, src.uf, sizeof(int) * (src.n + 1))
    memcpy(dst.uf_size, src.uf_size, sizeof(int) * (src.n + 1))


cdef inline bint state_copy(State* dst, const State* src) noexcept nogil:
    """Make ``dst`` (allocated by :func:`state_alloc` for at least ``src.n`` words) the same
    configuration as ``src``, for every system: the lists, arcs, links, union-find and log, the
    scalars, and which of the two list areas is the stack (2-planar swaps the stack and aux
    pointers at SWITCH). Only the used part of each array is copied (``dst`` may have room for
    longer sentences, and the layout then differs). False when ``dst`` is too small."""
    return state_copy_parts(dst, src, True, True)


cdef inline bint state_copy_parts(State* dst, const State* src, bint links_and_union_find,
                                  bint arc_log) noexcept nogil:
    """:func:`state_copy` of what a system reads: without ``links_and_union_find`` the undirected
    links, tentative heads and union-find are left as ``dst`` has them, without ``arc_log`` the
    log of arcs (a beam copies the configurations it keeps at every move; a system that never
    reads those arrays need not pay for them, half of what a copy moves)."""
    cdef int m1 = src.n + 1
    cdef int dst_m = dst.cap + 1
    if dst.block == NULL or dst.cap < src.n:
        return False
    cdef bint swapped = src.stack != src.block
    dst.n = src.n
    dst.stack = dst.block + (2 * dst_m if swapped else 0)
    dst.aux = dst.block + (0 if swapped else 2 * dst_m)
    memcpy(dst.stack, src.stack, sizeof(int) * src.stack_len)
    memcpy(dst.buffer, src.buffer, sizeof(int) * src.buf_len)
    memcpy(dst.aux, src.aux, sizeof(int) * src.aux_len)
    if links_and_union_find:
        copy_arcs(dst, src)
        memcpy(dst.link_first, src.link_first, sizeof(int) * m1)
        memcpy(dst.link_next, src.link_next, sizeof(int) * 2 * src.n_links)
        memcpy(dst.link_to, src.link_to, sizeof(int) * 2 * src.n_links)
        memcpy(dst.link_label, src.link_label, sizeof(int) * 2 * src.n_links)
        memcpy(dst.thead, src.thead, sizeof(int) * m1)
        memcpy(dst.thead_label, src.thead_label, sizeof(int) * m1)
    else:
        copy_tree(dst, src)
    if arc_log:
        memcpy(dst.arc_log, src.arc_log, sizeof(int) * 3 * src.n_logged)
    dst.stack_len, dst.buf_len, dst.aux_len = src.stack_len, src.buf_len, src.aux_len
    dst.end_seen, dst.n_transitions = src.end_seen, src.n_transitions
    dst.scored_end = src.scored_end
    dst.left, dst.right, dst.lookahead = src.left, src.right, src.lookahead
    dst.last_move, dst.active = src.last_move, src.active
    dst.n_links, dst.n_logged = src.n_links, src.n_logged
    return True


cdef inline void state_free(State* s) noexcept nogil:
    if s.block != NULL:
        free(s.block)
        s.block = NULL
        s.stack = NULL


cdef inline void note_dependent(State* s, int head, int dep) noexcept nogil:
    """Count dep among head's left or right dependents, and keep the outermost of each side."""
    if dep < head:
        s.n_ldeps[head] += 1
        if s.ldep[head] == -1 or dep < s.ldep[head]:
            s.ldep[head] = dep
    else:
        s.n_rdeps[head] += 1
        if dep > s.rdep[head]:
            s.rdep[head] = dep


cdef inline int add_arc(State* s, int head, int dep, int label) noexcept nogil:
    """Add head -> dep with a label and keep the dependent summaries current; returns dep."""
    s.heads[dep] = head
    s.labels[dep] = label
    note_dependent(s, head, dep)
    uf_union(s, head, dep)
    return dep


cdef inline void log_arc(State* s, int a, int b, int tag) noexcept nogil:
    """Record an arc or link between a and b (with the system's tag) in building order."""
    cdef int k = 3 * s.n_logged
    s.arc_log[k] = a
    s.arc_log[k + 1] = b
    s.arc_log[k + 2] = tag
    s.n_logged += 1


cdef inline int uf_find(const State* s, int i) noexcept nogil:
    """The representative of i's weak component (path halving: amortised near-constant).
    Compressing paths changes no answer, so a const state may do it."""
    cdef int* uf = (<State*>s).uf
    while uf[i] != i:
        uf[i] = uf[uf[i]]
        i = uf[i]
    return i


cdef inline void uf_union(State* s, int a, int b) noexcept nogil:
    a = uf_find(s, a)
    b = uf_find(s, b)
    if a == b:
        return
    if s.uf_size[a] < s.uf_size[b]:
        a, b = b, a
    s.uf[b] = a
    s.uf_size[a] += s.uf_size[b]


cdef inline int add_link(State* s, int a, int b, int label, const int* label_dir, int n_label_dir) noexcept nogil:
    """Undirected systems: link a and b. The dependent summaries become their undirected
    counterparts (Gómez-Rodríguez & Fernández-González 2012), so that feature models read them
    as they read a directed tree: ``heads[x]`` is the closest node linked to x (the left one on
    a tie) and ``labels[x]`` that link's label, ``ldep[x]`` / ``rdep[x]`` the leftmost /
    rightmost node linked to x on its left / right, ``n_ldeps`` / ``n_rdeps`` their numbers.
    With each label's direction (``label_dir``, label-based parsing; NULL otherwise) it also
    keeps ``thead`` / ``thead_label``: links are only ever added, so the closest head so far is
    exact. Returns b (what a move reports as the node it attached)."""
    cdef int d, x, y
    cdef int k = 2 * s.n_links
    s.n_links += 1
    s.link_to[k] = b
    s.link_label[k] = label
    s.link_next[k] = s.link_first[a]
    s.link_first[a] = k
    s.link_to[k + 1] = a
    s.link_label[k + 1] = label
    s.link_next[k + 1] = s.link_first[b]
    s.link_first[b] = k + 1
    _link_summary(s, a, b, label)
    _link_summary(s, b, a, label)
    uf_union(s, a, b)
    if label_dir != NULL and 0 <= label < n_label_dir:
        d = label_dir[label]
        x = a if a < b else b
        y = a + b - x
        if d == DIR_LEFT:       # y is x's head
            _tentative_head(s, x, y, label)
        elif d == DIR_RIGHT:    # x is y's head
            _tentative_head(s, y, x, label)
    return b


cdef inline bint _closer(int x, int y, int h) noexcept nogil:
    """Whether y is closer to x than h is (the left one on a tie; any y when h is -1)."""
    cdef int d = y - x if y > x else x - y
    cdef int dh = h - x if h > x else x - h
    return h == -1 or d < dh or (d == dh and y < h)


cdef inline void _tentative_head(State* s, int dep, int head, int label) noexcept nogil:
    """Keep the closest head (the left one on a tie) that a link's label gives dep."""
    if _closer(dep, head, s.thead[dep]):
        s.thead[dep] = head
        s.thead_label[dep] = label


cdef inline void _link_summary(State* s, int x, int y, int label) noexcept nogil:
    if _closer(x, y, s.heads[x]):
        s.heads[x] = y
        s.labels[x] = label
    note_dependent(s, x, y)


cdef inline int link_index(const State* s, int a, int b) noexcept nogil:
    """The entry of the link between a and b in a's adjacency list (undirected systems), -1 if none."""
    cdef int k = s.link_first[a]
    while k != -1:
        if s.link_to[k] == b:
            return k
        k = s.link_next[k]
    return -1


cdef inline bint linked(const State* s, int a, int b) noexcept nogil:
    """Whether a and b are linked (undirected systems)."""
    return link_index(s, a, b) != -1


cdef inline int stack_top(const State* s) noexcept nogil:
    return s.stack[s.stack_len - 1] if s.stack_len > 0 else -1


cdef inline int buffer_front(const State* s) noexcept nogil:
    return s.buffer[s.buf_len - 1] if s.buf_len > 0 else -1


cdef inline int stack_at(const State* s, int i) noexcept nogil:
    return s.stack[s.stack_len - 1 - i] if 0 <= i < s.stack_len else -1


cdef inline int buffer_at(const State* s, int i) noexcept nogil:
    return s.buffer[s.buf_len - 1 - i] if 0 <= i < s.buf_len else -1


cdef inline int stack_or_buffer_at(const State* s, int fn, int i) noexcept nogil:
    """Address functions of the single-stack systems: fn 0 = Stack[i], otherwise Input[i]."""
    return stack_at(s, i) if fn == 0 else buffer_at(s, i)


cdef inline int stack_buffer_cache_node(const State* s, int group) noexcept nogil:
    """The cache nodes of the single-stack systems that remember Input, Stack and their pair
    (``cached_address_functions = ("Input", "Stack", ("Stack", "Input"))``): the buffer front, the
    stack top, and a hash of the two into 0..n."""
    if group == 0:
        return buffer_at(s, 0)
    if group == 1:
        return stack_at(s, 0)
    return <int>((<unsigned int>stack_at(s, 0) * 2654435761u + <unsigned int>buffer_at(s, 0)) % <unsigned int>(s.n + 1))


cdef inline void init_root_stack(State* s) noexcept nogil:
    """The usual start: stack [0] (the root), buffer [1 .. n]."""
    s.stack[0] = 0
    s.stack_len = 1
    fill_buffer(s, 1, s.n)


cdef inline void fill_buffer(State* s, int first, int last) noexcept nogil:
    """Buffer = [first .. last] in order (front = first)."""
    cdef int i
    s.buf_len = 0
    i = last
    while i >= first:
        s.buffer[s.buf_len] = i
        s.buf_len += 1
        i -= 1


cdef inline int component_root(const State* s, int i) noexcept nogil:
    """A representative of i's weak component in the arcs (or links) built: two nodes are
    connected exactly when their representatives are equal."""
    return uf_find(s, i)
