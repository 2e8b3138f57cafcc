# cython: language_level=3
"""Gómez-Rodríguez & Nivre's planar system, MaltParser's ``planar``.

Arc-eager in which arcs move nothing: configuration = stack (root 0 at the
bottom), buffer, arcs. i = stack top, j = buffer front.

SHIFT (SH)
    Validity: buffer not empty; with ``connectedness=full``, the last word only
    once it is connected to word 1 (or when no other move is permissible:
    MaltParser's default action).
    Action: push j.
REDUCE (RE)
    Validity: i != 0; with ``no_covered_roots``, i has a head; with
    ``connectedness`` reduceonly or full, i is connected to j or to Stack[1].
    Action: pop i.
RIGHT-ARC(l) (RA)
    Validity: j has no head; with ``acyclicity``, i and j are not connected.
    Action: add i -l-> j.
LEFT-ARC(l) (LA)
    Validity: i != 0, i has no head; with ``acyclicity``, i and j are not connected.
    Action: add j -l-> i.

Terminal when the buffer is empty. Output: a planar forest (no two arcs
cross), every word shifted once and reduced at most once: at most 3n
transitions. ``planar_root_handling=relaxed`` never attaches root dependents
during parsing (SHIFT is forced while the root is on top); they get the root
afterwards, like every other headless word.

Static oracle (MaltParser's): LA / RA for a gold arc between i and j not yet
built; REDUCE if j has a gold neighbour left of i; else SHIFT.

Undirected (``-ud naive|label``, :mod:`maltpy.systems.undirected`): RIGHT-ARC is ARC(l), which
links i and j without a direction and is permissible when they are not connected (i may be
the root); LEFT-ARC is never permissible. The oracle builds the gold edge between i and j
with ARC. The output is an undirected forest, turned into a tree when the parse ends.
"""
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.base import UNDIRECTED
from maltpy.systems.planar_arcs cimport arc_validity, gold_arc, NO_GOLD_ARC, GOLD_LEFT
from maltpy.systems.state cimport (
    State, Gold, add_arc, stack_or_buffer_at, stack_top, buffer_front, stack_at, component_root,
    init_root_stack,
)

cdef enum:
    SHIFT = 0
    REDUCE = 1
    RIGHT_ARC = 2
    LEFT_ARC = 3

CONNECTEDNESS = ("none", "reduceonly", "full")
ROOT_HANDLING = ("normal", "relaxed")


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return choices.index(value)


cdef class PlanarFamily(TransitionSystem):
    def set_constraints(self, acyclicity, no_covered_roots, planar_root_handling):
        self.acyclicity = bool(acyclicity)
        self.no_covered_roots = bool(no_covered_roots)
        self.relaxed_root = check_choice("planar_root_handling (-prh)", planar_root_handling,
                                         ROOT_HANDLING) == 1

    cdef int deterministic_move(self, const State* s) noexcept nogil:
        # MaltParser's getDeterministicAction (planar and 2-planar): relaxed root
        # handling shifts past the root (SHIFT is move 0 in both systems)
        return SHIFT if self.relaxed_root and stack_top(s) == 0 else -1


cdef class Planar(PlanarFamily):
    name = "planar"
    maltparser_features = "PlanarEager"   # MaltParser's default feature model
    move_names = ("SH", "RE", "RA", "LA")
    labeled_moves = (False, False, True, True)
    address_functions = ("Stack", "Input")
    options = {"connectedness": "none", "acyclicity": True, "no_covered_roots": False,
               "planar_root_handling": "normal", "undirected": "none"}
    option_choices = {"connectedness": CONNECTEDNESS, "planar_root_handling": ROOT_HANDLING, "undirected": UNDIRECTED}
    exclusive_options = ("undirected",)
    covers = builds = "planar"

    def max_transitions(self, int n):
        """3n: every word is shifted and reduced once, with at most one arc move between."""
        return 3 * n

    cdef int connectedness

    def configure(self, connectedness="none", acyclicity=True, no_covered_roots=False,
                  planar_root_handling="normal", undirected="none"):
        self.connectedness = check_choice("connectedness (-pcon)", connectedness, CONNECTEDNESS)
        self.set_constraints(acyclicity, no_covered_roots, planar_root_handling)

    cdef void init_state(self, State* s) noexcept nogil:
        init_root_stack(s)

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        return s.buf_len == 0

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef int i = stack_top(s), j = buffer_front(s), k
        if self.relaxed_root and i == 0:
            out[SHIFT] = True
            out[REDUCE] = out[RIGHT_ARC] = out[LEFT_ARC] = False
            return 1
        out[SHIFT] = True
        if self.connectedness == 2 and s.buf_len == 1:
            out[SHIFT] = component_root(s, 1) == component_root(s, j)
        out[REDUCE] = i != 0 and not (self.no_covered_roots and s.heads[i] == -1)
        if out[REDUCE] and self.connectedness > 0:
            k = stack_at(s, 1)
            out[REDUCE] = (component_root(s, i) == component_root(s, j)
                           or (k != -1 and component_root(s, k) == component_root(s, i)))
        arc_validity(s, i, j, self.acyclicity, &out[RIGHT_ARC], &out[LEFT_ARC], self.undirected != 0)
        k = out[SHIFT] + out[REDUCE] + out[RIGHT_ARC] + out[LEFT_ARC]
        if k == 0:
            # full connectedness can leave nothing: MaltParser's default action, SHIFT
            out[SHIFT] = True
            k = 1
        return k

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        cdef int dep = -1
        cdef int i = stack_top(s), j = buffer_front(s)
        if move == SHIFT:
            s.buf_len -= 1
            s.stack[s.stack_len] = j
            s.stack_len += 1
        elif move == REDUCE:
            s.stack_len -= 1
        elif move == RIGHT_ARC:
            if self.undirected:
                dep = self.link(s, i, j, label)    # ARC
            else:
                dep = add_arc(s, i, j, label)
        elif move == LEFT_ARC:
            dep = add_arc(s, j, i, label)
        s.last_move = move
        s.n_transitions += 1
        return dep

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int i = stack_top(s), j = buffer_front(s), k
        label[0] = -1
        k = gold_arc(s, g, i, j, label, self.undirected != 0)
        if k != NO_GOLD_ARC:
            return LEFT_ARC if k == GOLD_LEFT and not self.undirected else RIGHT_ARC
        if (g.lmost_left[j] != -1 and g.lmost_left[j] < i) or g.heads[j] < i:
            return REDUCE
        return SHIFT

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        return stack_or_buffer_at(s, fn, i)
