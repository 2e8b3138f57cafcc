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

Buffer transitions (Fernández-González & Gómez-Rodríguez 2012), each an option
(``buffer_transitions``: ``lba``, ``rba``, ``lnba``, ``rnba`` or a ``+``-joined set;
b0, b1 = the first two buffer words, which never have a head):

LEFT-BUFFER-ARC(l) (LBA)
    Validity: at least two buffer words; not in the tree constraint's repair phase.
    Action: add b1 -l-> b0, remove b0 from the buffer.
RIGHT-BUFFER-ARC(l) (RBA)
    Validity: as LBA.
    Action: add b0 -l-> b1, remove b1 from the buffer.
LEFT-NONPROJ-BUFFER-ARC(l) (LNBA)
    Validity: as LBA, and i != 0 and i has no head.
    Action: add b1 -l-> i, pop i (b0 is skipped).
RIGHT-NONPROJ-BUFFER-ARC(l) (RNBA)
    Validity: as LBA (i may be the root).
    Action: add i -l-> b1, remove b1 from the buffer (b0 is skipped).

The oracle takes a buffer transition first when it builds a gold arc without losing
another (LBA/RBA for arcs of length 1 only, the paper's policy, or with
``buffer_arc_length = any`` for any arc between b0 and b1, which gaps that RBA and RNBA leave
in the buffer allow; the dependent leaving
the buffer or the stack has all its gold dependents; RBA's and RNBA's dependent has
none), in the order LBA, RBA, LNBA, RNBA, and MaltParser's arc-eager oracle otherwise
(with LNBA on, its REDUCE for a left dependent of b0 below the top counts only dependents
still without a head, since LNBA gives b1 left dependents before it reaches the front, and does
not pop a top still owed buffer words' arcs for a dependent that a headless word hides from b0).
With ``buffer_oracle = needed`` (maltpy's, not the paper's) LNBA and RNBA are taken only
where b0 is not a gold dependent of the arc's head: where arc-eager could not build the
arc next by attaching b0 first (their non-projective uses, and those across b0's own arc).

Without ``allow_root`` the root on top of the stack forces SHIFT (MaltParser).
Once the end was seen with an empty buffer, REDUCE or UNSHIFT is forced and the
classifier is not asked; parsing ends with only the root on the stack, so the
output is a projective tree in at most 2n + 2k - 2 <= 4n transitions.
Without ``enforce_tree`` parsing ends when the buffer is empty and
:meth:`finish` attaches leftover words to the root (the "old" heuristic).

Scored end pops (``State.scored_end``, set by beam search; spec beam.md §1.1 (a)): with the
buffer empty, REDUCE pops every word left on the stack, a headless one with an arc from the root
(the root label), and parsing ends with only the root on the stack. Every word is then pushed once
(SHIFT or RIGHT-ARC) and popped once (REDUCE or LEFT-ARC): every complete sequence has 2n moves,
and the beam scores each of them.
"""
from maltpy.systems.base cimport TransitionSystem
from maltpy.systems.state cimport (
    State, Gold, add_arc, stack_or_buffer_at, stack_buffer_cache_node, stack_top, buffer_front, init_root_stack,
)

from maltpy.errors import MaltpyError

cdef enum:
    SHIFT = 0
    REDUCE = 1
    UNSHIFT = 2
    RIGHT_ARC = 3
    LEFT_ARC = 4
    LBA = 5          # buffer transitions: moves 5.. in this order, those switched on
    RBA = 6
    LNBA = 7
    RNBA = 8
    N_KINDS = 9

#: the buffer transitions, in move (and oracle priority) order
BUFFER_TRANSITIONS = ("lba", "rba", "lnba", "rnba")
#: when the oracle takes LNBA and RNBA: whenever possible (the paper), or only where arc-eager
#: could not build the arc next (b0 is not a gold dependent of its head)
BUFFER_ORACLES = ("always", "needed")
#: which gold arcs the oracle builds with LBA and RBA: those of length 1 only (the paper's policy),
#: or any that links the first two buffer words (the paper's "whatever the length", which a buffer
#: with gaps left by RBA or RNBA allows)
BUFFER_ARC_LENGTHS = ("one", "any")


def parse_buffer_transitions(value) -> str:
    """A ``buffer_transitions`` value in canonical form (``none``, or names joined by ``+`` in the
    order lba, rba, lnba, rnba); MaltpyError for anything else."""
    text = "none" if value is None else str(value).strip().lower()
    if text in ("", "none"):
        return "none"
    parts = [p.strip() for p in text.split("+")]
    unknown = [p for p in parts if p not in BUFFER_TRANSITIONS]
    if unknown:
        raise MaltpyError(f"buffer_transitions (-bt) {value!r}: {unknown[0]!r} is not one of "
                          f"{', '.join(BUFFER_TRANSITIONS)} (join several with +, or none)")
    return "+".join(t for t in BUFFER_TRANSITIONS if t in parts)


#: the oracle's options and the buffer transitions each one is about
ORACLE_OPTION_MOVES = {"buffer_oracle": ("lnba", "rnba"), "buffer_arc_length": ("lba", "rba")}


def oracle_options_taken(buffer_transitions) -> tuple:
    """The options of :data:`ORACLE_OPTION_MOVES` that a ``buffer_transitions`` value has moves for."""
    moves = set(parse_buffer_transitions(buffer_transitions).split("+"))
    return tuple(option for option, about in ORACLE_OPTION_MOVES.items() if moves & set(about))


cdef class NivreEager(TransitionSystem):
    name = "nivreeager"
    reads_union_find = False    # its moves and features read neither (a beam copies less)
    reads_arc_log = False
    maltparser_features = "NivreEager"   # MaltParser's default feature model
    move_names = ("SH", "RE", "USH", "RA", "LA")
    labeled_moves = (False, False, False, True, True)
    address_functions = ("Stack", "Input", "Lookahead")
    # a beam's items share buffer fronts and stack tops: the scores of the features of Input[i]
    # (and the nodes found from them) are remembered per front word, those of Stack[i] per top
    cached_address_functions = ("Input", "Stack", ("Stack", "Input"))
    greedy_cache = False
    options = {"allow_root": True, "allow_reduce": False, "enforce_tree": False, "buffer_transitions": "none",
               "buffer_oracle": "always", "buffer_arc_length": "one", "root_at_end": True}
    option_choices = {"buffer_oracle": BUFFER_ORACLES, "buffer_arc_length": BUFFER_ARC_LENGTHS}
    option_parsers = {"buffer_transitions": parse_buffer_transitions}
    # the tree constraint is a parse-time repair; a parser that will repair learns no root arcs
    # from the end of parsing (which then attaches nothing), but each as a move of its own
    training_options = {"enforce_tree": False, "root_at_end": lambda parse: not parse.get("enforce_tree", False)}
    # on predicted tags 2.6 LAS above MaltParser's defaults on EWT dev, 4.5 on gold ones; 5 % slower than
    # LeanWords and as good on EWT's predicted tags, 0.9 better on the 13 small treebanks' (docs/tagging.md)
    # and it learns from 10-fold jackknifed tags, which it reads better than LeanWords did (EWT's
    # training split +0.41 LAS, the 13 small treebanks +0.28 on average)
    pipeline_settings = {"learner": "perceptron", "oracle": "dynamic", "features": "NivreEagerMorph",
                         "enforce_tree": True, "tagger_folds": 10}
    pipeline_cluster_features = "NivreEagerMorphClusters"
    exclusive_options = ("buffer_transitions",)
    covers = costs_exact_on = "projective"

    @property
    def builds(self):
        """Projective graphs, except with allow_reduce: a word reduced without a head leaves a gap
        that later arcs may cross."""
        return "any" if self.allow_reduce else "projective"

    def max_transitions(self, int n):
        """2n: every word is shifted once and reduced or attached once; the tree constraint's
        repairs (UNSHIFT, REDUCE) add at most 2n, buffer transitions at most 2."""
        return 4 * n if self.enforce_tree else 2 * n + (2 if self.any_buffer else 0)

    cdef bint allow_root
    cdef bint allow_reduce
    cdef bint enforce_tree
    cdef bint root_at_end          # the dynamic oracle counts on the end of parsing for root arcs
    cdef int kind_of[N_KINDS]     # move id -> kind (SHIFT ... RNBA)
    cdef int move_of[N_KINDS]     # kind -> move id, -1 when switched off
    cdef bint any_buffer
    cdef bint nonproj_when_needed  # buffer_oracle = needed
    cdef bint buffer_any_length    # buffer_arc_length = any

    def move_table(self, buffer_transitions="none", **options):
        extra = [t for t in parse_buffer_transitions(buffer_transitions).split("+") if t != "none"]
        return (tuple(self.move_names) + tuple(t.upper() for t in extra),
                tuple(self.labeled_moves) + (True,) * len(extra))

    @classmethod
    def default_feature_model(cls, maltparser_name=None, buffer_transitions="none", **options):
        """With RIGHT-BUFFER-ARC, ``NivreEagerBuffer``: buffer words then have right dependents,
        which MaltParser's model never reads (docs/buffer-transitions.md)."""
        if "rba" in parse_buffer_transitions(buffer_transitions).split("+"):
            return "NivreEagerBuffer"
        return super().default_feature_model(maltparser_name, **options)

    @classmethod
    def check_options(cls, values, flag):
        """The oracle's options for buffer moves need those moves."""
        buffer_transitions = values.get("buffer_transitions", "none")
        taken = oracle_options_taken(buffer_transitions)
        for option, moves in ORACLE_OPTION_MOVES.items():
            value = values.get(option, cls.options[option])
            if value != cls.options[option] and option not in taken:
                raise MaltpyError(f"{flag(option)} {value} is about the oracle's "
                                  f"{' and '.join(m.upper() for m in moves)}: "
                                  f"use it with -bt {' or '.join(moves)} (here -bt {buffer_transitions})")

    @property
    def end_attaches_root(self):
        return self.root_at_end

    @property
    def has_costs(self):
        """A dynamic oracle, except with buffer transitions or the tree constraint."""
        return not (self.any_buffer or self.enforce_tree)

    @property
    def no_costs_reason(self):
        if self.any_buffer:
            return "arc-eager's dynamic oracle does not cover buffer transitions (-bt)"
        if self.enforce_tree:
            return "arc-eager's dynamic oracle does not cover the tree constraint (-nt true)"
        return None

    def configure(self, allow_root=True, allow_reduce=False, enforce_tree=False, buffer_transitions="none",
                  buffer_oracle="always", buffer_arc_length="one", root_at_end=True):
        if buffer_oracle not in BUFFER_ORACLES:
            raise MaltpyError(f"buffer_oracle (-bo) {buffer_oracle!r}: use one of {', '.join(BUFFER_ORACLES)}")
        if buffer_arc_length not in BUFFER_ARC_LENGTHS:
            raise MaltpyError(f"buffer_arc_length (-bal) {buffer_arc_length!r}: use one of "
                              f"{', '.join(BUFFER_ARC_LENGTHS)}")
        self.nonproj_when_needed = buffer_oracle == "needed"
        self.buffer_any_length = buffer_arc_length == "any"
        self.allow_root = bool(allow_root)
        self.allow_reduce = bool(allow_reduce)
        self.enforce_tree = bool(enforce_tree)
        # without allow_root the root takes no arcs by moves: the end of parsing makes them all
        self.root_at_end = bool(root_at_end) or not self.allow_root
        cdef int k
        for k in range(N_KINDS):
            self.move_of[k] = -1
        for k, name in enumerate(self.moves):
            kind = list(self.move_names).index(name) if name in self.move_names \
                else LBA + BUFFER_TRANSITIONS.index(name.lower())
            self.kind_of[k] = kind
            self.move_of[kind] = k
        self.any_buffer = self.n_moves > LBA     # moves from LBA on are buffer transitions

    cdef void init_state(self, State* s) noexcept nogil:
        init_root_stack(s)
        s.end_seen = s.n == 0

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        if s.buf_len > 0:
            return False
        if self.enforce_tree or s.scored_end:
            return s.stack_len <= 1
        return True

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        cdef int i = stack_top(s)
        cdef bint has_buffer = s.buf_len > 0
        cdef bint tree_phase = self.enforce_tree and s.end_seen
        cdef int count = 0
        cdef int m
        cdef bint two
        # after the end with an empty buffer exactly one of REDUCE / UNSHIFT applies,
        # decided by whether the top has a head, so allow_reduce does not count there
        cdef bint forced_phase = tree_phase and not has_buffer
        out[SHIFT] = has_buffer and not tree_phase
        # scored end pops: with the buffer empty REDUCE pops every word (a headless one to the root)
        out[REDUCE] = i > 0 and (s.heads[i] != -1 or (self.allow_reduce and not forced_phase)
                                 or (s.scored_end and not has_buffer and not self.enforce_tree))
        out[UNSHIFT] = forced_phase and i > 0 and s.heads[i] == -1
        out[RIGHT_ARC] = has_buffer and (i > 0 or self.allow_root or tree_phase)
        out[LEFT_ARC] = has_buffer and i > 0 and s.heads[i] == -1
        if self.any_buffer:
            # two buffer words; never in the repair phase, which keeps its proven bound
            two = (s.buf_len >= 2) and not tree_phase
            if self.move_of[LBA] >= 0:
                out[self.move_of[LBA]] = two
            if self.move_of[RBA] >= 0:
                out[self.move_of[RBA]] = two
            if self.move_of[LNBA] >= 0:
                out[self.move_of[LNBA]] = two and i > 0 and s.heads[i] == -1
            if self.move_of[RNBA] >= 0:
                out[self.move_of[RNBA]] = two and i >= 0
        for m in range(self.n_moves):
            count += out[m]
        return count

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        cdef int dep = -1
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        cdef int k
        move = self.kind_of[move]
        if move >= LBA:
            k = s.buffer[s.buf_len - 2]        # b1 (the buffer is stored reversed)
            if move == LBA:
                dep = add_arc(s, k, j, label)
                s.buf_len -= 1
            elif move == RBA:
                dep = add_arc(s, j, k, label)
                s.buffer[s.buf_len - 2] = j
                s.buf_len -= 1
            elif move == LNBA:
                dep = add_arc(s, k, i, label)
                s.stack_len -= 1
            else:
                dep = add_arc(s, i, k, label)
                s.buffer[s.buf_len - 2] = j
                s.buf_len -= 1
        elif move == SHIFT:
            s.stack[s.stack_len] = j
            s.stack_len += 1
            s.buf_len -= 1
        elif move == REDUCE:
            if s.scored_end and s.buf_len == 0 and s.heads[i] == -1:
                dep = add_arc(s, 0, i, self.root_label)    # what finish() would give it, as a scored move
            s.stack_len -= 1
        elif move == UNSHIFT:
            s.stack_len -= 1
            s.buffer[s.buf_len] = i
            s.buf_len += 1
        elif move == RIGHT_ARC:
            dep = add_arc(s, i, j, label)
            s.stack[s.stack_len] = j
            s.stack_len += 1
            s.buf_len -= 1
        elif move == LEFT_ARC:
            dep = add_arc(s, j, i, label)
            s.stack_len -= 1
        s.n_transitions += 1
        if s.buf_len == 0:
            s.end_seen = True
        return dep

    cdef int deterministic_move(self, const State* s) noexcept nogil:
        # MaltParser's ArcEager.getDeterministicAction without the tree constraint's
        # moves: only training asks, and training never runs with enforce_tree
        return SHIFT if not self.allow_root and stack_top(s) == 0 and not self.any_buffer else -1

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        cdef int k
        label[0] = -1
        if j == -1:
            # the tree constraint's forced phase, or a scored end pop
            if self.enforce_tree:
                return self.move_of[REDUCE] if (i > 0 and s.heads[i] != -1) else self.move_of[UNSHIFT]
            return self.move_of[REDUCE]
        if self.any_buffer and s.buf_len >= 2:
            k = s.buffer[s.buf_len - 2]
            # a gold arc whose dependent leaves for good: it must have all its gold dependents
            if self.move_of[LBA] >= 0 and g.heads[j] == k and (k - j == 1 or self.buffer_any_length) \
                    and s.n_ldeps[j] + s.n_rdeps[j] == g.n_children[j]:
                label[0] = g.labels[j]
                return self.move_of[LBA]
            if self.move_of[RBA] >= 0 and g.heads[k] == j and (k - j == 1 or self.buffer_any_length) \
                    and g.n_children[k] == 0:
                label[0] = g.labels[k]
                return self.move_of[RBA]
            if self.move_of[LNBA] >= 0 and i > 0 and s.heads[i] == -1 and g.heads[i] == k \
                    and s.n_ldeps[i] + s.n_rdeps[i] == g.n_children[i] \
                    and not (self.nonproj_when_needed and g.heads[j] == k):
                label[0] = g.labels[i]
                return self.move_of[LNBA]
            if self.move_of[RNBA] >= 0 and i >= 0 and g.heads[k] == i and g.n_children[k] == 0 \
                    and not (self.nonproj_when_needed and g.heads[j] == i):
                label[0] = g.labels[k]
                return self.move_of[RNBA]
        return self.move_of[self.base_oracle(s, g, label)]

    cdef int base_oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        """MaltParser's ArcEagerOracle: the kind (SHIFT ... LEFT_ARC) of the move."""
        cdef int i = stack_top(s)
        cdef int j = buffer_front(s)
        if i > 0 and g.heads[i] == j:
            label[0] = g.labels[i]
            return LEFT_ARC
        if g.heads[j] == i and (i > 0 or self.allow_root):
            label[0] = g.labels[j]
            return RIGHT_ARC
        if s.heads[i] == -1 and not self.allow_reduce:
            return SHIFT
        if i > 0 and g.lmost_left[j] != -1 and g.lmost_left[j] < i \
                and (self.move_of[LNBA] < 0 or self.reduce_reaches_left_dep(s, g, j)):
            return REDUCE
        if i > 0 and g.heads[j] < i and (g.heads[j] != 0 or self.allow_root):
            return REDUCE
        return SHIFT

    cdef bint reduce_reaches_left_dep(self, const State* s, const Gold* g, int j) noexcept nogil:
        """MaltParser's rule (REDUCE when j's leftmost gold dependent is left of the top), as it
        must read once LNBA is on: a gold dependent of j still without its head lies on the stack
        below the top, and no word without a head stands between, unless the top has no gold
        dependent left in the buffer. In plain arc-eager, j's left dependents get their head only
        from j at the front, and the rule is kept as MaltParser has it (so that LBA, RBA and RNBA
        alone recover exactly arc-eager's heads). LNBA gives stack words a head earlier, from b1,
        and pops them early, exposing tops that are still owed arcs: popping such a top for a
        dependent that a headless word hides from j loses the top's arcs for nothing."""
        cdef int k, d
        cdef int owed = -1     # whether the top has a gold dependent in the buffer, once asked
        for k in range(s.stack_len - 2, -1, -1):
            d = s.stack[k]
            if d < g.lmost_left[j]:
                break
            if s.heads[d] == -1:
                if g.heads[d] == j:
                    return True
                if owed == -1:
                    owed = self.owed_in_buffer(s, g, s.stack[s.stack_len - 1])
                if owed:
                    return False
        return False

    cdef bint owed_in_buffer(self, const State* s, const Gold* g, int i) noexcept nogil:
        """Whether a gold dependent of i is still in the buffer (popping i would lose its arc)."""
        cdef int k
        if g.rmost_right[i] < buffer_front(s):
            return False
        for k in range(s.buf_len):
            if g.heads[s.buffer[k]] == i:
                return True
        return False

    cdef bint move_costs(self, const State* s, const Gold* g, int* cost, int* zero_label) noexcept nogil:
        """Goldberg & Nivre's dynamic oracle for arc-eager, with MaltParser's end of parsing
        (words left without a head are attached to the root with the root label): a gold arc
        (h, d) stays reachable while d has no head and either d is in the buffer, or d is on the
        stack and h in the buffer, or h is the root and the arc's label is the root label (the
        end of parsing builds it; not with ``root_at_end`` False, as for a parser that will
        parse with the tree constraint, whose end attaches nothing). A move costs the gold arcs
        it makes unreachable, a wrong label counting as a lost arc: exact for projective gold
        trees (the reachable arcs are then reachable together). O(n). Not for buffer transitions or the tree constraint's
        repair phase (returns False). A partial gold tree (head -1: none given; label -1: any
        label) costs only the arcs it gives."""
        cdef int i = stack_top(s)
        cdef int b = buffer_front(s)
        cdef int k, d, gi, gb
        cdef int deps_of_s_in_buffer = 0, headless_deps_of_b_on_stack = 0
        cdef bint gi_in_buffer = False, gb_on_stack = False, gb_in_buffer = False
        if self.any_buffer or self.enforce_tree or b < 0:
            return False
        gi = g.heads[i] if i > 0 else -1
        gb = g.heads[b]
        for k in range(s.buf_len):
            d = s.buffer[k]
            if i >= 0 and g.heads[d] == i:
                deps_of_s_in_buffer += 1
            if d == gi:
                gi_in_buffer = True
            if d == gb:
                gb_in_buffer = True
        for k in range(s.stack_len):
            d = s.stack[k]
            if d > 0 and s.heads[d] == -1 and g.heads[d] == b:
                headless_deps_of_b_on_stack += 1
            if d == gb and d > 0:
                gb_on_stack = True
        for k in range(self.n_moves):
            zero_label[k] = -1
        # SHIFT: b joins the stack headless: its head on the stack and its headless dependents
        # there are lost; so is a root arc the end of parsing would label wrongly
        cost[SHIFT] = gb_on_stack + headless_deps_of_b_on_stack + (
            gb == 0 and self.allow_root
            and not (self.root_at_end and (g.labels[b] < 0 or g.labels[b] == self.root_label)))
        # REDUCE: i's dependents in the buffer are lost (and, with allow_reduce, a head of i
        # there when i has none: the root still comes at the end)
        cost[REDUCE] = deps_of_s_in_buffer + (s.heads[i] == -1 and gi > 0 and gi_in_buffer) if i > 0 else 0
        cost[UNSHIFT] = 0
        # LEFT-ARC: i gets head b (its own gold head lost unless on the stack, already lost),
        # its dependents in the buffer are lost
        cost[LEFT_ARC] = ((gi != b and ((gi == 0 and self.root_at_end
                                          and (g.labels[i] < 0 or g.labels[i] == self.root_label))
                                         or gi_in_buffer))
                          + deps_of_s_in_buffer) if i > 0 else 0
        if i > 0 and gi == b:
            zero_label[LEFT_ARC] = g.labels[i]
        # RIGHT-ARC: b gets head i (its own gold head lost otherwise, if it was still there to
        # take), and its headless dependents on the stack are lost
        cost[RIGHT_ARC] = (gb != i and (gb_on_stack or gb_in_buffer or (
            gb == 0 and (self.allow_root or g.labels[b] < 0 or g.labels[b] == self.root_label)))) \
            + headless_deps_of_b_on_stack
        if gb == i:
            zero_label[RIGHT_ARC] = g.labels[b]
        return True

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        return stack_or_buffer_at(s, fn, i)

    cdef int cache_node(self, const State* s, int group) noexcept nogil:
        return stack_buffer_cache_node(s, group)
