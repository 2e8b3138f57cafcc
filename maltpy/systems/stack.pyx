# cython: language_level=3
"""Shared part of MaltParser's stack systems (``stackproj``, ``stackeager``, ``stacklazy``).

Arc-standard with arcs between the two top stack nodes (Nivre 2009), plus
SWAP for the non-projective variants. Configuration: stack with the root 0 at
the bottom, buffer, arcs, and MaltParser's ``lookahead`` counter (number of
nodes swapped back to the buffer front and not yet shifted again).

Moves (MaltParser's names; SWAP only in the non-projective systems):

SHIFT (SH)
    Validity: the buffer is not empty. In training also with an empty buffer
    (option ``pop_at_end``): MaltParser's oracle then answers SHIFT for words
    of a non-projective tree it cannot attach, and applying SHIFT pops them.
    When parsing, MaltParser 1.9 refuses SHIFT on an empty buffer, so the words
    left on the stack are attached by RIGHT-ARC and LEFT-ARC.
    Action: push the buffer front; with an empty buffer pop the stack instead
    (the popped word is attached to the root afterwards, as in MaltParser).
SWAP (SW)
    Validity: at least two stack nodes, Stack[1] is not the root and precedes
    Stack[0] in the sentence (so every pair is swapped at most once).
    Action: move Stack[1] back to the buffer front.
RIGHT-ARC(l) (RA)
    Validity: at least two stack nodes.
    Action: add Stack[1] -l-> Stack[0], pop Stack[0].
LEFT-ARC(l) (LA)
    Validity: at least two stack nodes, Stack[1] is not the root.
    Action: add Stack[0] -l-> Stack[1], remove Stack[1].

Address functions (MaltParser's): Stack[i]; Input[i] = the i-th buffer node if
i < lookahead (swapped nodes only); Lookahead[i] = buffer node lookahead + i.
"""
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport State, add_arc, stack_at, buffer_at, init_root_stack

cdef enum:
    SHIFT = 0
    SWAP = 1
    RIGHT_ARC = 2
    LEFT_ARC = 3


cdef class StackSystem(TransitionSystem):
    move_names = ("SH", "SW", "RA", "LA")
    labeled_moves = (False, False, True, True)
    address_functions = ("Stack", "Input", "Lookahead")
    options = {"pop_at_end": False}
    #: training replays the oracle, which may pop words it cannot attach
    training_options = {"pop_at_end": True}
    reads_union_find = False    # its moves and features read neither (a beam copies less)
    reads_arc_log = False

    def configure(self, pop_at_end=False):
        self.has_swap = True
        self.pop_at_end = bool(pop_at_end)

    cdef void init_state(self, State* s) noexcept nogil:
        init_root_stack(s)

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        return s.buf_len == 0 and s.stack_len <= 1

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef bint two = s.stack_len >= 2
        cdef int s0 = stack_at(s, 0), s1 = stack_at(s, 1)
        out[SHIFT] = s.buf_len > 0 or (two and self.pop_at_end)
        out[SWAP] = self.has_swap and two and s1 != 0 and s1 < s0
        out[RIGHT_ARC] = two
        out[LEFT_ARC] = two and s1 != 0
        return out[SHIFT] + out[SWAP] + out[RIGHT_ARC] + out[LEFT_ARC]

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        cdef int dep = -1
        cdef int s0 = stack_at(s, 0), s1 = stack_at(s, 1)
        if move == SHIFT:
            if s.buf_len == 0:
                s.stack_len -= 1
            else:
                s.buf_len -= 1
                s.stack[s.stack_len] = s.buffer[s.buf_len]
                s.stack_len += 1
            if s.lookahead > 0:
                s.lookahead -= 1
        elif move == SWAP:
            s.buffer[s.buf_len] = s1
            s.buf_len += 1
            s.stack_len -= 1
            s.stack[s.stack_len - 1] = s0
            s.lookahead += 1
        elif move == RIGHT_ARC:
            dep = add_arc(s, s1, s0, label)
            s.stack_len -= 1
        elif move == LEFT_ARC:
            dep = add_arc(s, s0, s1, label)
            s.stack_len -= 1
            s.stack[s.stack_len - 1] = s0
        s.last_move = move
        s.n_transitions += 1
        return dep

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        if fn == 0:
            return stack_at(s, i)
        if fn == 1:
            return buffer_at(s, i) if i < s.lookahead else -1
        return buffer_at(s, s.lookahead + i)
