# cython: language_level=3
"""Gómez-Rodríguez & Nivre's 2-planar system, MaltParser's ``2planar``.

Two stacks, both starting as [0]; ``s.stack`` is the active one and ``s.aux``
the inactive one (SWITCH swaps the two pointers). a = active top, t = inactive
top, j = buffer front.

SHIFT (SH)
    Validity: buffer not empty.  Action: push j on both stacks.
SWITCH (SW)
    Validity: the previous move was not SWITCH; with ``reduceonswitch``, instead
    t != 0 (and t has a head under ``no_covered_roots``).
    Action: swap the stacks; with ``reduceonswitch``, pop the new active stack.
REDUCE (RE)
    Validity: a != 0 (and a has a head under ``no_covered_roots``).
    Action: pop the active stack only.
RIGHT-ARC(l) / LEFT-ARC(l) (RA / LA)
    As in :mod:`maltpy.systems.planar`, between a and j.

Arcs built while one stack is active never cross, so the output is 2-planar.
Terminal when the buffer is empty. At most n SHIFTs, 2n REDUCEs, n arcs and,
with no two SWITCHes in a row, at most 3n + 1 SWITCHes.

Undirected (``-ud``): as in :mod:`maltpy.systems.planar`, RIGHT-ARC is ARC and LEFT-ARC is
never permissible.

Static oracle (MaltParser's): arcs between a and j are built in the active
plane, and the plane of every gold arc crossing them is fixed to the other one
(0 any, 1 first, 2 second, 3 none, per dependent); a gold arc between t and j,
or a pending arc that has to be built in the inactive plane, switches; a pending
arc in the active plane reduces.

The oracle is a function of the configuration and the gold tree: the planes
follow from the arcs built so far and the plane each was built in, which the
configuration records (``s.arc_log``, in building order). ``g.plane`` only
caches them: it holds the planes after the first arcs of the log it last saw
(``g.scratch``), and is brought up to date, or rebuilt, from the configuration
at every call, so any configuration may be asked in any order.
"""
from maltpy.systems.state cimport (
    State, Gold, add_arc, log_arc, stack_top, buffer_front, stack_at, buffer_at, init_root_stack,
)
from maltpy.systems.planar cimport PlanarFamily
from maltpy.systems.planar_arcs cimport arc_validity, gold_arc, NO_GOLD_ARC, GOLD_LEFT, GOLD_RIGHT

cdef enum:
    SHIFT = 0
    SWITCH = 1
    REDUCE = 2
    RIGHT_ARC = 3
    LEFT_ARC = 4

cdef enum:
    ANY_PLANE = 0
    NO_PLANE = 3


cdef inline bint crosses(int a1, int a2, int b1, int b2) noexcept nogil:
    cdef int x1 = a1 if a1 < a2 else a2, x2 = a2 if a1 < a2 else a1
    cdef int y1 = b1 if b1 < b2 else b2, y2 = b2 if b1 < b2 else b1
    return (x1 < y1 < x2 < y2) or (y1 < x1 < y2 < x2)


cdef void propagate(const Gold* g, int n, int dep, int plane) noexcept nogil:
    """Fix the plane of the gold arc into ``dep`` and push crossing arcs to the other plane.

    The crossing arcs are visited in the order of MaltParser's crossings lists, which decides
    the planes when the gold tree is not 2-planar (a conflict fixes whichever arc it reaches
    first): MaltParser pairs the arcs in dependent order, each pair once, as (the arc with the
    lower head, the other), and appends each to the other's list. So arc e's list holds the arcs
    with a lower head and a lower dependent, then those with a higher head, then those with a
    lower head and a higher dependent, each part in dependent order."""
    cdef int f, part, h = g.heads[dep]
    g.plane[dep] = plane
    if plane == ANY_PLANE or plane == NO_PLANE:
        return
    for part in range(3):
        for f in range(1, n + 1):
            if f == dep or g.heads[f] < 0 or g.heads[f] == h:
                continue
            if part == 0 and not (g.heads[f] < h and f < dep):
                continue
            if part == 1 and not g.heads[f] > h:
                continue
            if part == 2 and not (g.heads[f] < h and f > dep):
                continue
            if crosses(h, dep, g.heads[f], f):
                if g.plane[f] == ANY_PLANE:
                    propagate(g, n, f, 3 - plane)
                elif g.plane[f] == plane:
                    propagate(g, n, f, NO_PLANE)


cdef class TwoPlanar(PlanarFamily):
    name = "2planar"
    maltparser_features = "2PlanarEager"   # MaltParser's default feature model
    covers = builds = "2planar"

    def max_transitions(self, int n):
        """6n + 2: planar's moves on either stack, with a switch between any two."""
        return 6 * n + 2
    move_names = ("SH", "SW", "RE", "RA", "LA")
    labeled_moves = (False, False, False, True, True)
    address_functions = ("ActiveStack", "InactiveStack", "Input")
    options = {"reduceonswitch": False, "acyclicity": True, "no_covered_roots": False,
               "planar_root_handling": "normal", "undirected": "none"}

    cdef bint reduce_on_switch

    def configure(self, reduceonswitch=False, acyclicity=True, no_covered_roots=False,
                  planar_root_handling="normal", undirected="none"):
        self.reduce_on_switch = bool(reduceonswitch)
        self.set_constraints(acyclicity, no_covered_roots, planar_root_handling)

    cdef void init_state(self, State* s) noexcept nogil:
        init_root_stack(s)
        s.aux[0] = 0
        s.aux_len = 1

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        return s.buf_len == 0

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef int a = stack_top(s), j = buffer_front(s)
        cdef int t = s.aux[s.aux_len - 1]
        out[SHIFT] = True
        if self.relaxed_root and a == 0:
            out[SWITCH] = out[REDUCE] = out[RIGHT_ARC] = out[LEFT_ARC] = False
            return 1
        if self.reduce_on_switch:
            out[SWITCH] = t != 0 and not (self.no_covered_roots and s.heads[t] == -1)
        else:
            out[SWITCH] = s.last_move != SWITCH
        out[REDUCE] = a != 0 and not (self.no_covered_roots and s.heads[a] == -1)
        arc_validity(s, a, j, self.acyclicity, &out[RIGHT_ARC], &out[LEFT_ARC], self.undirected != 0)
        return out[SHIFT] + out[SWITCH] + out[REDUCE] + out[RIGHT_ARC] + out[LEFT_ARC]

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        cdef int dep = -1
        cdef int a = stack_top(s), j = buffer_front(s)
        cdef int* tmp
        cdef int tmp_len
        if move == SHIFT:
            s.buf_len -= 1
            s.stack[s.stack_len] = j
            s.stack_len += 1
            s.aux[s.aux_len] = j
            s.aux_len += 1
        elif move == SWITCH:
            tmp, tmp_len = s.stack, s.stack_len
            s.stack, s.stack_len = s.aux, s.aux_len
            s.aux, s.aux_len = tmp, tmp_len
            s.active = 1 - s.active
            if self.reduce_on_switch:
                s.stack_len -= 1
        elif move == REDUCE:
            s.stack_len -= 1
        elif move == RIGHT_ARC:
            if self.undirected:
                dep = self.link(s, a, j, label)    # ARC
            else:
                dep = add_arc(s, a, j, label)
            log_arc(s, a, j, 1 + s.active)
        elif move == LEFT_ARC:
            dep = add_arc(s, j, a, label)
            log_arc(s, a, j, 1 + s.active)
        s.last_move = move
        s.n_transitions += 1
        return dep

    cdef int decision(self, const State* s, const Gold* g, int dep) noexcept nogil:
        return g.plane[dep] if g.plane[dep] != ANY_PLANE else 1 + s.active

    cdef bint pending(self, const State* s, const Gold* g, int plane, int limit) noexcept nogil:
        """A gold arc between j and a node k < limit that is to be built in ``plane``."""
        cdef int j = buffer_front(s), k
        cdef int lowest = 0 if self.relaxed_root else -1
        k = g.lmost_left[j]
        if k != -1:
            while k < limit and k < j:
                if k > lowest and g.heads[k] == j and self.decision(s, g, k) == plane:
                    return True
                k += 1
        return lowest < g.heads[j] < limit and self.decision(s, g, j) == plane

    cdef void prepare_gold(self, Gold* g, int n) noexcept nogil:
        g.scratch[0] = 0     # no arc replayed into g.plane yet

    cdef void sync_planes(self, const State* s, const Gold* g) noexcept nogil:
        """Bring g.plane to the planes that the arcs of ``s`` fix, in the order they were built.
        ``g.scratch`` = [number of arcs replayed, then their (a, b, plane) triples]: when the
        log of ``s`` starts with them, only its new arcs are replayed, otherwise all."""
        cdef int* seen = g.scratch
        cdef int k, e, x, y, dep
        cdef int replayed = seen[0]
        if replayed > s.n_logged:
            replayed = 0
        for k in range(3 * replayed):
            if seen[1 + k] != s.arc_log[k]:
                replayed = 0
                break
        if replayed == 0:
            for k in range(s.n + 1):
                g.plane[k] = ANY_PLANE
        for e in range(replayed, s.n_logged):
            x, y = s.arc_log[3 * e], s.arc_log[3 * e + 1]
            dep = x if g.heads[x] == y else (y if g.heads[y] == x else -1)
            if dep != -1:      # an arc outside the gold tree fixes no gold arc's plane
                propagate(g, s.n, dep, s.arc_log[3 * e + 2])
            for k in range(3):
                seen[1 + 3 * e + k] = s.arc_log[3 * e + k]
        seen[0] = s.n_logged

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int a = stack_top(s), j = buffer_front(s)
        cdef int t = s.aux[s.aux_len - 1]
        cdef int active_plane = 1 + s.active
        label[0] = -1
        cdef int arc = gold_arc(s, g, a, j, label, self.undirected != 0)
        if arc == GOLD_LEFT:
            return RIGHT_ARC if self.undirected else LEFT_ARC
        if arc == GOLD_RIGHT:
            return RIGHT_ARC
        self.sync_planes(s, g)
        cdef int unused
        if gold_arc(s, g, t, j, &unused, self.undirected != 0) != NO_GOLD_ARC:
            return SWITCH                           # the arc belongs to the other plane
        if self.pending(s, g, active_plane, a):
            return REDUCE
        if self.pending(s, g, 3 - active_plane, t):
            return SWITCH
        return SHIFT

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        if fn == 0:
            return stack_at(s, i)
        if fn == 1:
            return s.aux[s.aux_len - 1 - i] if 0 <= i < s.aux_len else -1
        return buffer_at(s, i)
