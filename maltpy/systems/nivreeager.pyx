# cython: language_level=3
"""Nivre's arc-eager system (Nivre 2008, Fig. 5), MaltParser's ``nivreeager``,
with the tree constraint of Nivre & Fernández-González (2014) as ``enforce_tree``.

Configuration: stack with the root 0 at the bottom, buffer, arcs, and the flag
``end_seen`` (e: an empty buffer has been seen).

Transitions (i = stack top, j = buffer front):

SHIFT
    Validity: buffer not empty; with ``enforce_tree``, not after the end was seen.
    Action: push j.
REDUCE
    Validity: i != 0 and i has a head (or ``allow_reduce``).
    Action: pop i.
UNSHIFT (only with ``enforce_tree``)
    Validity: end seen, buffer empty, i != 0, i has no head.
    Action: move i back to the buffer.
RIGHT-ARC(l)
    Validity: buffer not empty; i != 0 unless ``allow_root`` (always allowed once
    the end was seen, or a tree could not be finished).
    Action: add i -l-> j, push j.
LEFT-ARC(l)
    Validity: buffer not empty, i != 0, i has no head.
    Action: add j -l-> i, pop i.

Without ``allow_root`` the root on top of the stack forces SHIFT (MaltParser).
Once the end was seen with an empty buffer, REDUCE or UNSHIFT is forced and the
classifier is not asked; parsing ends with only the root on the stack, so the
output is a projective tree in at most 2n + 2k - 2 <= 4n transitions.
Without ``enforce_tree`` parsing ends when the buffer is empty and
:meth:`finish` attaches leftover words to the root (the "old" heuristic).
"""
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport (
    State, Gold, add_arc, stack_or_buffer_at, stack_top, buffer_front, init_root_stack,
)

cdef enum:
    SHIFT = 0
    REDUCE = 1
    UNSHIFT = 2
    RIGHT_ARC = 3
    LEFT_ARC = 4


cdef class NivreEager(TransitionSystem):
    name = "nivreeager"
    move_names = ("SH", "RE", "USH", "RA", "LA")
    labeled_moves = (False, False, False, True, True)
    address_functions = ("Stack", "Input", "Lookahead")
    options = {"allow_root": True, "allow_reduce": False, "enforce_tree": False}
    training_options = {"enforce_tree": False}  # the tree constraint is a parse-time repair

    cdef bint allow_root
    cdef bint allow_reduce
    cdef bint enforce_tree

    def configure(self, allow_root=True, allow_reduce=False, enforce_tree=False):
        self.allow_root = bool(allow_root)
        self.allow_reduce = bool(allow_reduce)
        self.enforce_tree = bool(enforce_tree)

    cdef void init_state(self, State* s) noexcept nogil:
        init_root_stack(s)
        s.end_seen = s.n == 0

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        if s.buf_len > 0:
            return False
        if self.enforce_tree:
            return s.stack_len <= 1
        return True

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef int i = stack_top(s)
        cdef bint has_buffer = s.buf_len > 0
        cdef bint tree_phase = self.enforce_tree and s.end_seen
        cdef int count = 0
        cdef int m
        # after the end with an empty buffer exactly one of REDUCE / UNSHIFT applies,
        # decided by whether the top has a head, so allow_reduce does not count there
        cdef bint forced_phase = tree_phase and not has_buffer
        out[SHIFT] = has_buffer and not tree_phase
        out[REDUCE] = i > 0 and (s.heads[i] != -1 or (self.allow_reduce and not forced_phase))
        out[UNSHIFT] = forced_phase and i > 0 and s.heads[i] == -1
        out[RIGHT_ARC] = has_buffer and (i > 0 or self.allow_root or tree_phase)
        out[LEFT_ARC] = has_buffer and i > 0 and s.heads[i] == -1
        for m in range(5):
            count += out[m]
        return count

    cdef void apply(self, State* s, int move, int label) noexcept nogil:
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        if move == SHIFT:
            s.stack[s.stack_len] = j
            s.stack_len += 1
            s.buf_len -= 1
        elif move == REDUCE:
            s.stack_len -= 1
        elif move == UNSHIFT:
            s.stack_len -= 1
            s.buffer[s.buf_len] = i
            s.buf_len += 1
        elif move == RIGHT_ARC:
            add_arc(s, i, j, label)
            s.stack[s.stack_len] = j
            s.stack_len += 1
            s.buf_len -= 1
        elif move == LEFT_ARC:
            add_arc(s, j, i, label)
            s.stack_len -= 1
        s.n_transitions += 1
        if s.buf_len == 0:
            s.end_seen = True

    cdef int deterministic_move(self, const State* s) noexcept nogil:
        # MaltParser's ArcEager.getDeterministicAction without the tree constraint's
        # moves: only training asks, and training never runs with enforce_tree
        return SHIFT if not self.allow_root and stack_top(s) == 0 else -1

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        label[0] = -1
        if j == -1:
            # only reachable with enforce_tree: the forced phase
            return REDUCE if (i > 0 and s.heads[i] != -1) else UNSHIFT
        if i > 0 and g.heads[i] == j:
            label[0] = g.labels[i]
            return LEFT_ARC
        if g.heads[j] == i and (i > 0 or self.allow_root):
            label[0] = g.labels[j]
            return RIGHT_ARC
        if s.heads[i] == -1 and not self.allow_reduce:
            return SHIFT
        if i > 0 and g.lmost_left[j] != -1 and g.lmost_left[j] < i:
            return REDUCE
        if i > 0 and g.heads[j] < i and (g.heads[j] != 0 or self.allow_root):
            return REDUCE
        return SHIFT

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        return stack_or_buffer_at(s, fn, i)
