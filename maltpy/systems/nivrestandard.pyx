# cython: language_level=3
"""Nivre's arc-standard system (Nivre 2008, Fig. 3), MaltParser's ``nivrestandard``.

Configuration: stack with the root 0 at the bottom, buffer, arcs.
Transitions (i = stack top, j = buffer front):

SHIFT
    Validity: buffer not empty.
    Action: push j.
RIGHT-ARC(l)
    Validity: buffer not empty; i != 0 unless ``allow_root``.
    Action: add i -l-> j, remove j; i moves back to the front of the buffer,
    except the root, which stays on the stack (as in MaltParser: the paper's
    RIGHT-ARC from 0 followed by the forced SHIFT, in one step).
LEFT-ARC(l)
    Validity: buffer not empty, i != 0.
    Action: add j -l-> i, pop i.

Stack words never have heads, so the sequence has n SHIFTs plus one arc per
attached word: at most 2n transitions.
"""
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport (
    State, Gold, add_arc, stack_or_buffer_at, stack_buffer_cache_node, stack_top, buffer_front, init_root_stack,
)

cdef enum:
    SHIFT = 0
    RIGHT_ARC = 1
    LEFT_ARC = 2


cdef class NivreStandard(TransitionSystem):
    name = "nivrestandard"
    reads_union_find = False    # its moves and features read neither (a beam copies less)
    reads_arc_log = False
    maltparser_features = "NivreStandard"   # MaltParser's default feature model
    move_names = ("SH", "RA", "LA")
    labeled_moves = (False, True, True)
    address_functions = ("Stack", "Input", "Lookahead")
    # a beam's items share buffer fronts and stack tops: the scores of the features of Input[i]
    # (and the nodes found from them) are remembered per front word, those of Stack[i] per top,
    # those of both per (top, front) pair. ZN at B = 8 on EWT: 64 %, 48 % and 68 % of look-ups hit
    cached_address_functions = ("Input", "Stack", ("Stack", "Input"))
    greedy_cache = False
    options = {"allow_root": True}
    covers = builds = "projective"

    def max_transitions(self, int n):
        """2n: every word is shifted once and attached once."""
        return 2 * n

    cdef bint allow_root

    def configure(self, allow_root=True):
        self.allow_root = bool(allow_root)

    cdef void init_state(self, State* s) noexcept nogil:
        init_root_stack(s)

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        return s.buf_len == 0

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef int i = stack_top(s)
        cdef bint has_buffer = s.buf_len > 0
        out[SHIFT] = has_buffer
        out[RIGHT_ARC] = has_buffer and i >= 0 and (i > 0 or self.allow_root)
        out[LEFT_ARC] = has_buffer and i > 0
        return out[SHIFT] + out[RIGHT_ARC] + out[LEFT_ARC]

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        cdef int dep = -1
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        if move == SHIFT:
            s.stack[s.stack_len] = j
            s.stack_len += 1
            s.buf_len -= 1
        elif move == RIGHT_ARC:
            dep = add_arc(s, i, j, label)
            s.buf_len -= 1
            if i != 0:
                s.stack_len -= 1
                s.buffer[s.buf_len] = i
                s.buf_len += 1
        elif move == LEFT_ARC:
            dep = add_arc(s, j, i, label)
            s.stack_len -= 1
        s.n_transitions += 1
        return dep

    cdef int deterministic_move(self, const State* s) noexcept nogil:
        # MaltParser's ArcStandard.getDeterministicAction
        return SHIFT if not self.allow_root and stack_top(s) == 0 else -1

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        label[0] = -1
        if i > 0 and g.heads[i] == j:
            label[0] = g.labels[i]
            return LEFT_ARC
        # MaltParser's test: j already has its rightmost gold dependent (on projective trees the
        # same as "j is complete"; on non-projective ones it keeps arcs coming instead of shifts)
        if (g.heads[j] == i and (i > 0 or self.allow_root)
                and s.rdep[j] == g.rmost_right[j]):
            label[0] = g.labels[j]
            return RIGHT_ARC
        return SHIFT

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        return stack_or_buffer_at(s, fn, i)

    cdef int cache_node(self, const State* s, int group) noexcept nogil:
        return stack_buffer_cache_node(s, group)
