# cython: language_level=3
"""Covington's non-projective list-based system (Nivre 2008, Fig. 7), MaltParser's ``covnonproj``.

See :mod:`maltpy.systems.covington` for the moves. After every move but SHIFT,
``left`` steps left past every node it cannot link to Right[0]: nodes in
Right[0]'s tree (an arc would close a cycle) and, once Right[0] has a head,
nodes that have one too. When it passes ``leftstop`` the next word is shifted.
Any forest can be built; at most n(n+3)/2 transitions.

The dynamic oracle (:meth:`move_costs`) is the thesis's (Fernández-González & Gómez-Rodríguez,
spec A.3-A.5, with its corrections): the loss of a configuration is the number of gold arcs
no longer reachable one by one plus the number of cycles the reachable ones form with the
arcs built, computed in O(n); a move costs the loss of the configuration it leads to minus
this one's. MaltParser's conventions are kept: the root in Left with ``allow_root`` (explicit
root arcs), and words left without a head attached to the root with the root label, so a
root arc with another label needs a RIGHT-ARC from the root.
"""

from maltpy.systems.covington cimport LEFT_ARC, RIGHT_ARC, SHIFT, Covington
from maltpy.systems.state cimport Gold, State, component_root, copy_arcs


cdef class CovNonProj(Covington):
    name = "covnonproj"
    maltparser_features = "CovingtonNonProjective"   # MaltParser's default feature model
    covers = builds = costs_exact_on = "any"

    def max_transitions(self, int n):
        """n (n + 3) / 2: each pair of words is compared at most once, each word shifted once
        (undirected links: n more)."""
        return n * (n + 3) // 2 + (n if self.undirected else 0)
    #: compute the simple cases' costs directly (quick_costs); False: always through copies of
    #: the configuration (tests compare the two)
    cdef public bint quick

    def __cinit__(self, *args, **kwargs):
        self.quick = True

    cdef void advance(self, State* s, int move) noexcept nogil:
        cdef int j = s.right
        cdef int cj = component_root(s, j)
        cdef bint j_headed = s.heads[j] != -1 and not self.undirected
        cdef int i = s.left - 1
        while i >= self.leftstop:
            if component_root(s, i) != cj and not (j_headed and s.heads[i] != -1):
                break
            i -= 1
        self.move_left_to(s, i)


    cdef int loss(self, const State* s, const Gold* g, int* comp, int* par, int* colour) noexcept nogil:
        """Wrong heads and labels of the best tree reachable from s (spec A.4.4, labelled); a
        partial gold tree (head -1: none given, label -1: any) loses only the arcs it gives."""
        cdef int n = s.n, y, x, lo, hi, a, k, lost = 0
        cdef int i = s.left
        cdef int j = s.right if s.right <= n else n + 1
        cdef bint out
        # weak components of the arcs built: the headless top of each word's tree
        for y in range(n + 1):
            comp[y] = -1
        for y in range(n + 1):
            a = y
            while comp[a] == -1 and s.heads[a] != -1:
                a = s.heads[a]
            k = comp[a] if comp[a] != -1 else a
            a = y
            while comp[a] == -1:
                comp[a] = k
                if s.heads[a] == -1:
                    break
                a = s.heads[a]
        for y in range(1, n + 1):
            x = g.heads[y]
            par[y] = -1
            if x < 0:           # a partial gold tree gives no head here: nothing to lose
                if s.heads[y] > 0:
                    par[y] = s.heads[y]
                continue
            if s.heads[y] == x:
                lost += g.labels[y] >= 0 and s.labels[y] != g.labels[y]
                if x > 0:
                    par[y] = x
                continue
            if s.heads[y] != -1:
                lost += 1            # another head already: the gold arc is gone
                if s.heads[y] > 0:
                    par[y] = s.heads[y]
                continue
            if x == 0:
                # the end of parsing builds it with the root label; another label needs a
                # RIGHT-ARC from the root, possible while y is ahead (root in Left)
                out = g.labels[y] >= 0 and g.labels[y] != self.root_label and (not self.allow_root or j > y)
            else:
                lo = x if x < y else y
                hi = y if x < y else x
                out = j > hi or (j == hi and i < lo) or comp[x] == comp[y]
            if out:
                lost += 1
            elif x > 0:
                par[y] = x
        # cycles of the arcs built with the reachable gold arcs (in-degree at most one)
        for y in range(n + 1):
            colour[y] = 0
        for y in range(1, n + 1):
            if colour[y]:
                continue
            a = y
            while a > 0 and colour[a] == 0:
                colour[a] = 1
                a = par[a]
            if a > 0 and colour[a] == 1:
                lost += 1
            a = y
            while a > 0 and colour[a] == 1:
                colour[a] = 2
                a = par[a]
        return lost

    @property
    def has_costs(self):
        return not self.undirected

    @property
    def no_costs_reason(self):
        return "Covington's dynamic oracle is for directed parsing, not -ud" if self.undirected else None

    cdef bint quick_costs(self, const State* s, const Gold* g, int* cost, int* zero_label) noexcept nogil:
        """:meth:`move_costs` without copying the configuration, where a gold arc still to build
        is at stake only in the simple ways (False when it is not: the caller computes them).
        At (i, j) = (Left[0], Right[0]), with no gold arc between i and j to build and no cycle a
        LEFT-ARC or RIGHT-ARC could close with the built arcs and the gold arcs to build:

        - j's gold head h still to build and reachable (j headless; h < i or h > j; or the root,
          when the end of parsing builds the arc: the root label or none given, or with the
          root in Left): RIGHT-ARC gives j another (+1); SHIFT leaves the pair
          (h, j) behind when h < i, or the root's when only a RIGHT-ARC from it can build it (+1);
        - i's gold head h still to build and reachable (h > j, or the root with the root label
          or none given): LEFT-ARC gives i another (+1);
        - words x < i whose gold head is j, headless: SHIFT leaves the pair (x, j) behind (+1
          each).

        An arc at stake that lies on a cycle of the arcs built and the gold arcs still to build
        takes the exact path: the loss counts such cycles, and a move can break one.

        NO-ARC costs nothing: the pairs it passes are visited later or skipped because an arc
        between them would close a cycle (already lost)."""
        cdef int i = s.left, j = s.right, x, h, m
        if i < 0 or j > s.n:
            return False
        if (g.heads[i] == j and s.heads[i] == -1) or (g.heads[j] == i and s.heads[j] == -1):
            return False
        if self.reaches(s, g, j, i) or self.reaches(s, g, i, j):
            return False
        for m in range(4):
            cost[m] = 0
            zero_label[m] = -1
        # an arc at stake that closes a cycle with the arcs built and the gold arcs to build counts
        # in the loss's cycles, which a move can break: those take the exact path
        h = g.heads[j]
        if h > 0 and s.heads[j] == -1 and self.reaches(s, g, h, j):
            return False
        h = g.heads[i] if i > 0 else -1
        if h > 0 and s.heads[i] == -1 and self.reaches(s, g, h, i):
            return False
        for x in range(1, i):
            if g.heads[x] == j and s.heads[x] == -1 and self.reaches(s, g, j, x):
                return False
        h = g.heads[j]
        if h > 0 and s.heads[j] == -1 and (h < i or h > j):
            cost[RIGHT_ARC] += 1      # reachable (a pair still to visit, no cycle) and lost
            if h < i:
                cost[SHIFT] += 1
        elif h == 0 and s.heads[j] == -1:
            if g.labels[j] < 0 or g.labels[j] == self.root_label:
                cost[RIGHT_ARC] += 1  # the end of parsing would build it
            elif self.allow_root:     # a RIGHT-ARC from the root still could, until j is shifted
                cost[RIGHT_ARC] += 1
                cost[SHIFT] += 1
        h = g.heads[i] if i > 0 else -1
        if h >= 0 and s.heads[i] == -1 and (h > j or (h == 0 and (g.labels[i] < 0 or g.labels[i] == self.root_label))):
            cost[LEFT_ARC] += 1
        for x in range(1, i):
            if g.heads[x] == j and s.heads[x] == -1:
                cost[SHIFT] += 1
        return True

    cdef bint reaches(self, const State* s, const Gold* g, int start, int target) noexcept nogil:
        """Whether walking up from ``start`` meets ``target``: by the built heads, else (``g`` not
        NULL) the gold heads still to build; at most n steps (a cycle elsewhere stops the walk)."""
        cdef int x = start, k
        for k in range(s.n + 1):
            if x == target:
                return True
            if x <= 0:
                return False
            x = s.heads[x] if s.heads[x] != -1 or g == NULL else g.heads[x]
            if x < 0:
                return False
        return False

    cdef bint move_costs(self, const State* s, const Gold* g, int* cost, int* zero_label) noexcept nogil:
        """Each permissible move applied to a copy of the configuration (in the sentence's
        scratch space: no allocation per decision), and the loss there; in the simple cases
        without the copies (:meth:`quick_costs`)."""
        if self.quick and self.quick_costs(s, g, cost, zero_label):
            return True
        cdef State t
        cdef int n = s.n, m, here, dep, head, label
        cdef int m1 = n + 1
        cdef bint mask[4]
        cdef int* work = g.scratch + 6 * m1
        t.block = NULL
        t.stack = t.buffer = t.aux = NULL
        t.n = t.cap = n
        t.heads, t.labels, t.ldep = g.scratch, g.scratch + m1, g.scratch + 2 * m1
        t.rdep, t.n_ldeps, t.n_rdeps = g.scratch + 3 * m1, g.scratch + 4 * m1, g.scratch + 5 * m1
        t.uf, t.uf_size = g.scratch + 9 * m1, g.scratch + 10 * m1
        here = self.loss(s, g, work, work + m1, work + 2 * m1)
        self.valid_moves(s, mask)
        for m in range(4):
            zero_label[m] = -1
            cost[m] = 0
            if not mask[m]:
                continue
            label = 0
            if m == LEFT_ARC or m == RIGHT_ARC:
                dep = s.left if m == LEFT_ARC else s.right
                head = s.right if m == LEFT_ARC else s.left
                if g.heads[dep] == head:
                    zero_label[m] = g.labels[dep]        # -1: a partial tree gives no label
                    label = max(g.labels[dep], 0)
            # the move on a copy of the arcs (s may have room for longer sentences: array by array)
            copy_arcs(&t, s)
            t.left, t.right, t.n_transitions, t.last_move = s.left, s.right, s.n_transitions, s.last_move
            self.apply(&t, m, label)
            cost[m] = self.loss(&t, g, work, work + m1, work + 2 * m1) - here
        return True
