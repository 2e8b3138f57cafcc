# cython: language_level=3
"""Shared part of Covington's list-based systems (Nivre 2008, §5), as in MaltParser.

The configuration (λ1, λ2, β, A) is kept as MaltParser keeps it: two positions
over the nodes 0..n. ``left`` is the head of λ1 (Left[0]) and ``right`` the
front of the buffer (Right[0]); λ2 is everything strictly between them. After
each transition the parser moves ``left`` to the next node that can still be
linked to ``right`` (the subclass's :meth:`advance`) and shifts automatically
when none is left, so with ``allow_shift`` off (MaltParser's default) SHIFT is
never a classifier decision.

Moves (MaltParser's names and order):

SHIFT (SH)
    Validity: ``allow_shift``.
    Action: right += 1, left = right - 1.
NO-ARC (NA)
    Validity: always.
    Action: move ``left`` on (see the subclass).
RIGHT-ARC(l) (RA)
    Validity: Right[0] has no head.
    Action: add left -l-> right, then as NO-ARC.
LEFT-ARC(l) (LA)
    Validity: Left[0] is not the root and has no head.
    Action: add right -l-> left, then as NO-ARC.

Acyclicity needs no test: ``advance`` never stops at a node of Right[0]'s tree.

Undirected (``-ud``, covnonproj only): RIGHT-ARC is ARC(l), linking Left[0] and Right[0]
without a direction (Left[0] may be the root); LEFT-ARC is never permissible, and ``advance``
skips only the nodes connected to Right[0].
With ``allow_root`` off the root is never in λ1 (``leftstop`` = 1).

Address functions: Left[i] = left - i, Right[i] = right + i, LeftContext[i] /
RightContext[i] = the i-th node strictly between left and right, from the left /
right, whose head is not within [left, right].
"""
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.base import UNDIRECTED
from maltpy.systems.state cimport State, Gold, add_arc, uf_find


cdef class Covington(TransitionSystem):
    move_names = ("SH", "NA", "RA", "LA")
    labeled_moves = (False, False, True, True)
    address_functions = ("Left", "Right", "LeftContext", "RightContext")
    # most decisions walk Left[0] over λ1 with NO-ARC and Right[0] fixed: the scores of the
    # features of Right[0] and the words after it are kept over the walk (see context)
    stable_address_functions = ("Right",)
    # Left[0] is each word of λ1 again and again (once per later Right[0] that walks past it),
    # mostly with the same arcs: the scores of the features of Left[i] are remembered per word
    cached_address_functions = ("Left",)
    options = {"allow_root": True, "allow_shift": False, "undirected": "none"}
    option_choices = {"undirected": UNDIRECTED}
    exclusive_options = ("undirected",)
    # each word is compared with every word before it: up to n(n+1)/2 decisions
    quadratic = True

    def configure(self, allow_root=True, allow_shift=False, undirected="none"):
        self.allow_root = bool(allow_root)
        self.allow_shift = bool(allow_shift)
        self.leftstop = 0 if self.allow_root else 1

    cdef void init_state(self, State* s) noexcept nogil:
        s.left = self.leftstop
        s.right = self.leftstop + 1

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        return s.right > s.n

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef int i = s.left, j = s.right
        out[SHIFT] = self.allow_shift
        out[NO_ARC] = True
        if self.undirected:     # RIGHT-ARC is ARC: i and j not connected
            out[RIGHT_ARC] = uf_find(s, i) != uf_find(s, j)
            out[LEFT_ARC] = False
            return out[SHIFT] + out[NO_ARC] + out[RIGHT_ARC]
        out[RIGHT_ARC] = s.heads[j] == -1
        out[LEFT_ARC] = i != 0 and s.heads[i] == -1
        return out[SHIFT] + out[NO_ARC] + out[RIGHT_ARC] + out[LEFT_ARC]

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        cdef int dep = -1
        if move == LEFT_ARC:
            dep = add_arc(s, s.right, s.left, label)
        elif move == RIGHT_ARC:
            if self.undirected:
                dep = self.link(s, s.left, s.right, label)    # ARC
            else:
                dep = add_arc(s, s.left, s.right, label)
        if move == SHIFT:
            self.move_left_to(s, -1)
        else:
            self.advance(s, move)
        s.last_move = move
        s.n_transitions += 1
        return dep

    cdef void advance(self, State* s, int move) noexcept nogil:
        pass

    cdef void move_left_to(self, State* s, int i) noexcept nogil:
        """Left[0] becomes i, or the next word is shifted when i is past ``leftstop``."""
        if i < self.leftstop:
            s.right += 1
            s.left = s.right - 1
        else:
            s.left = i

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int i = s.left, j = s.right
        cdef int hj = g.heads[j]
        label[0] = -1
        if i != 0 and g.heads[i] == j:
            label[0] = g.labels[i]
            return RIGHT_ARC if self.undirected else LEFT_ARC
        if hj == i:
            label[0] = g.labels[j]
            return RIGHT_ARC
        # nothing left for j further left: skip the rest of λ1 (only if SHIFT is a move)
        if self.allow_shift and not (g.lmost_left[j] != -1 and g.lmost_left[j] < i) \
                and not (hj < i and (hj != 0 or self.leftstop == 0)):
            return SHIFT
        return NO_ARC

    cdef int context(self, const State* s) noexcept nogil:
        return s.right

    cdef int cache_node(self, const State* s, int group) noexcept nogil:
        return s.left

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        cdef int k, seen = 0
        if fn == 0:
            return s.left - i if s.left - i >= 0 else -1
        if fn == 1:
            return s.right + i if s.right + i <= s.n else -1
        if fn == 2:
            k = s.left + 1
            while k < s.right:
                if not (s.left <= s.heads[k] <= s.right):
                    if seen == i:
                        return k
                    seen += 1
                k += 1
            return -1
        k = s.right - 1
        while k > s.left:
            if not (s.left <= s.heads[k] <= s.right):
                if seen == i:
                    return k
                seen += 1
            k -= 1
        return -1
