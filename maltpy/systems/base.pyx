# cython: language_level=3
"""The interface shared by all transition systems.

A system is a ``cdef class`` whose C-level methods run without the GIL on a
:c:type:`State`. The parse loop only ever talks to this interface, so a new
system is one new module plus a registry entry in :mod:`maltpy.systems`.

Moves and classes: a system names its *moves* (``move_names``); moves listed
in ``labeled_moves`` take an arc label. The classifier predicts *classes*,
one per unlabeled move and one per (labeled move, label) pair; the mapping is
built once by :class:`maltpy.systems.classes.ClassTable`.

Python-level attributes every subclass defines:

``name``
    the MaltParser algorithm name (``-a``).
``move_names``
    tuple of move names, index = move id.
``labeled_moves``
    tuple of bools, same order.

An instance's moves are ``moves``/``labeled``, from :meth:`move_table`: the class
attributes, plus what its options add (arc-eager's buffer transitions).
``address_functions``
    names of the algorithm's address functions (``Stack``, ``Input`` ...), index
    = ``fn`` argument of :meth:`address`.
``stable_address_functions``
    names of address functions whose nodes stay the same while :meth:`context` returns the
    same value and no arc is added (Covington's ``Right`` during a walk over λ1): the parse
    loop keeps the scores of the features that read only those nodes instead of recomputing
    them at every decision. Empty (the default): nothing is kept.
``cached_address_functions``
    names of address functions whose nodes follow from one node, :meth:`cache_node`
    (Covington's ``Left[i]`` = Left[0] - i), each with a cache of its own: the parse loop
    remembers, per sentence node, the scores of the features that read only that function's
    nodes, and reuses them at a later decision with the same node while those features' keys are
    the same (which it checks, so the choice of functions only decides how often the remembered
    scores serve). An entry may be a tuple of names: one cache for the features that read nodes
    of those functions only (and of no earlier entry), its node any of 0..n, such as a hash of
    two nodes (two configurations that meet there with other keys only replace each other's
    scores). Empty (the default): none.
``greedy_cache``
    whether greedy search uses that cache too (default True); a beam always does, its items
    sharing nodes. False where one configuration's next decision rarely meets the same keys again
    (arc-eager's buffer front mostly gains a left dependent in between; the figures are in
    docs/benchmarks.md, "Figures behind choices in the code").
``options``
    dict of option name -> default value the system accepts.
``training_options``
    option values training always uses, whatever the settings: options that only
    matter when parsing (MaltParser's "process" usage, e.g. arc-eager's
    ``enforce_tree``) and moves only the oracle may take (the stack systems'
    ``pop_at_end``).
"""
from libc.stdlib cimport malloc, free

import numpy as np

from maltpy.systems.undirected cimport reconstruct, UD_LABEL

from maltpy.systems.state cimport (
    State, Gold, state_alloc, state_copy, state_free, state_reset, stack_at, buffer_at, add_arc, add_link, uf_find,
    GOLD_INTS_PER_NODE, MAX_MOVES,
)


#: values of the ``undirected`` option (``-ud``), in the order of the C constants
UNDIRECTED = ("none", "naive", "label")


def reconstruct_forest(int n, links, directions, str mode, int root_label):
    """The dependency tree the end of an undirected parse makes of ``links`` ((a, b, label)
    triples over nodes 0..n) with ``mode`` naive or label and each label's direction
    (:mod:`maltpy.systems.undirected`): (heads, labels), index 0 unused. For tests and tools."""
    if mode not in UNDIRECTED[1:]:
        raise ValueError(f"mode must be naive or label, not {mode!r}")
    dirs = np.ascontiguousarray(directions if len(directions) else [0], dtype=np.int32)
    cdef const int[::1] dv = dirs
    cdef State st
    if not state_alloc(&st, n):
        raise MemoryError()
    try:
        for a, b, label in links:
            if not (0 <= a <= n and 0 <= b <= n) or a == b or uf_find(&st, a) == uf_find(&st, b):
                raise ValueError(f"link {a}-{b} would close a cycle or leaves the sentence")
            add_link(&st, a, b, label, NULL, 0)
        reconstruct(&st, UNDIRECTED.index(mode), &dv[0], len(dirs), root_label)
        return [st.heads[i] for i in range(n + 1)], [st.labels[i] for i in range(n + 1)]
    finally:
        state_free(&st)


cdef bint gold_alloc(Gold* g, const int* heads, const int* labels, int n) noexcept nogil:
    """Fill the oracle's view of a gold tree over nodes 0..n (heads[0] = -1)."""
    cdef int i, h
    cdef int m = n + 1
    cdef int* block = <int*>malloc(sizeof(int) * GOLD_INTS_PER_NODE * m)
    if block == NULL:
        return False
    g.heads = heads
    g.labels = labels
    g.n_children = block
    g.lmost_left = block + m
    g.rmost_right = block + 2 * m
    g.order = block + 3 * m
    g.group = block + 4 * m
    g.plane = block + 5 * m
    g.scratch = block + 6 * m
    for i in range(m):
        g.n_children[i] = 0
        g.lmost_left[i] = -1
        g.rmost_right[i] = -1
        g.order[i] = i
        g.group[i] = i
        g.plane[i] = 0
    for i in range(1, m):
        h = heads[i]
        if h >= 0:
            g.n_children[h] += 1
            if i < h and (g.lmost_left[h] == -1 or i < g.lmost_left[h]):
                g.lmost_left[h] = i
            if i > h and i > g.rmost_right[h]:
                g.rmost_right[h] = i
    return True


cdef void gold_free(Gold* g) noexcept nogil:
    if g.n_children != NULL:
        free(g.n_children)
        g.n_children = NULL


cdef class TransitionSystem:
    """Base class. Subclasses override every ``cdef`` method.

    Contract:

    * ``init_state(s)``: set the initial configuration (arrays already reset).
    * ``is_terminal(s)``: True when parsing is over.
    * ``valid_moves(s, out)``: ``out[m]`` = whether move m is permissible;
      returns the number of permissible moves.
    * ``apply(s, move, label)``: perform a permissible move; return the node it attached (the
      dependent of the arc it added, the later node of an undirected link), -1 if none.
    * ``prepare_gold(gold, n)``: per-sentence oracle preparation (fills the
      scratch arrays of :c:type:`Gold`); called once before the oracle runs.
    * ``oracle(s, gold, &label)``: the static oracle's move (and its label).
    * ``move_costs(s, gold, cost, zero_label)``: a dynamic oracle, for systems that have one
      (returns False otherwise): ``cost[m]`` = how many more words end with a wrong head if
      move m is taken than the best tree still reachable now has; for a labeled move, its
      label ``zero_label[m]`` adds nothing and any other label adds one when the move builds
      a gold arc (``zero_label[m]`` = -1: every label costs the same). Values for moves that
      are not permissible are unspecified.
    * ``deterministic_move(s)``: the move MaltParser's ``getDeterministicAction``
      takes without asking the oracle or the classifier, or -1. Training records an
      instance for every other decision, even when only one move is permissible,
      as MaltParser does; the default is -1 (no such move).
    * ``address(s, fn, i)``: node of address function ``fn`` at offset i, -1 if none.
    * ``finish(s)``: post-processing once terminal; the default attaches every
      headless word to the root with ``root_label`` (MaltParser's behaviour).
    """
    name = "base"
    #: the file name of MaltParser's default feature model for the system (feature_models/)
    maltparser_features = None
    move_names = ()
    labeled_moves = ()
    address_functions = ()
    stable_address_functions = ()
    cached_address_functions = ()
    greedy_cache = True
    options = {}
    #: option -> its allowed values, for the options with a fixed set (the settings check them)
    option_choices = {}
    #: option -> the function that reads (checks and normalises) its value, where one is needed
    option_parsers = {}
    #: options that no system without them may be given (the registry refuses them there in one
    #: line); other options of other systems are ignored, as in MaltParser
    exclusive_options = ()
    #: option values that training always uses (e.g. moves only the oracle may take); a value may
    #: be a function of the parse's options (:meth:`training_configuration`)
    training_options = {}
    #: the settings a parser of this system learns with behind a tagger (on predicted tags), where
    #: the user chooses none of config.PIPELINE_PARSER_CHOICES; empty: MaltParser's defaults
    pipeline_settings = {}
    #: the features of pipeline_settings when the training has word clusters (--clusters): the
    #: same and features of the clusters; None: those of pipeline_settings
    pipeline_cluster_features = None
    #: whether the decisions grow with the square of the sentence length (Covington's lists)
    quadratic = False
    #: whether the system's moves, oracles or features read the union-find of the arcs built
    #: (Covington's and the planar systems' acyclicity) and the log of arcs in building order
    #: (2-planar's oracle): a beam's copies of a system's configurations leave out what it does
    #: not read (undirected parsing reads the union-find and links whatever the system)
    reads_union_find = True
    reads_arc_log = True
    #: the trees whose every arc the static oracle builds ("projective", "planar", "2planar",
    #: "any"), the graphs any permissible moves build, and the trees on which the dynamic
    #: oracle's costs are exact (maltpy.systems.checks tests all three)
    covers = "any"
    builds = "any"
    costs_exact_on = "any"

    def max_transitions(self, int n):
        """A proven bound on the moves of a complete sequence on ``n`` words (this system, these
        options); :func:`maltpy.systems.checks.check_transition_system` holds a system to it."""
        raise NotImplementedError(f"{self.name} does not declare its bound on moves")

    def __init__(self, int n_labels, int root_label, **options):
        unknown = set(options) - set(type(self).options)
        if unknown:
            raise ValueError(
                f"{self.name} does not accept option(s) {', '.join(sorted(unknown))}; "
                f"it accepts {', '.join(sorted(type(self).options)) or 'none'}"
            )
        self.n_labels = n_labels
        self.root_label = root_label
        self.settings = dict(type(self).options)
        self.settings.update(options)
        mode = self.settings.get("undirected", "none")
        if mode not in UNDIRECTED:
            raise ValueError(f"undirected (-ud) must be one of {', '.join(UNDIRECTED)}, not {mode!r}")
        self.undirected = UNDIRECTED.index(mode)
        self.copy_links_and_union_find = bool(type(self).reads_union_find) or self.undirected != 0
        self.copy_arc_log = bool(type(self).reads_arc_log)
        self.set_label_directions(np.zeros(max(n_labels, 1), dtype=np.int32))
        self.moves, self.labeled = self.move_table(**self.settings)
        self.n_moves = len(self.moves)
        if self.n_moves > MAX_MOVES:
            raise ValueError(f"{self.name}: at most {MAX_MOVES} moves")
        self.configure(**self.settings)

    @classmethod
    def training_configuration(cls, options):
        """The options of a system for training: the parse's ``options`` with
        :attr:`training_options` over them (a callable value computed from the parse's options)."""
        return {**options, **{k: v(options) if callable(v) else v for k, v in cls.training_options.items()}}

    @property
    def end_attaches_root(self):
        """Whether the dynamic oracle counts on the end of parsing to attach the words left
        without a head to the root with the root label, as MaltParser's end does
        (:func:`maltpy.systems.checks.tree_loss` scores trees the same way)."""
        return True

    @property
    def has_costs(self):
        """Whether this system (with its options) has a dynamic oracle (:meth:`move_costs`)."""
        return False

    @property
    def no_costs_reason(self):
        """Why :attr:`has_costs` is False, for the user (None when it is True): a system with a
        dynamic oracle that some option switches off overrides this to name the option."""
        return None if self.has_costs else f"{self.name} has no dynamic oracle yet"

    def set_label_directions(self, directions):
        """Label-based undirected parsing: per label id, the direction its name carries
        (0 none, 1 ``_l``: the head is the right node, 2 ``_r``: the left one)."""
        arr = np.ascontiguousarray(directions, dtype=np.int32)
        if arr.ndim != 1 or len(arr) < self.n_labels or (len(arr) and (arr.min() < 0 or arr.max() > 2)):
            raise ValueError("one direction (0, 1 or 2) per label")
        if not len(arr):
            arr = np.zeros(1, dtype=np.int32)
        cdef const int[::1] view = arr
        self._label_dir = arr
        self.label_dir = &view[0]
        self.n_label_dir = len(arr)

    def move_table(self, **options):
        """(move names, labeled flags) of a system with these options; the class's by default.
        Undirected: RIGHT-ARC is ARC and LEFT-ARC (the last move) is left out, so that the
        classifier has no classes that can never be chosen."""
        names, labeled = tuple(self.move_names), tuple(self.labeled_moves)
        if options.get("undirected", "none") != "none":
            last = len(names) - 1      # (no negative indices: this module has wraparound off)
            assert names[last] == "LA", "undirected systems keep LEFT-ARC as their last move"
            names = tuple("ARC" if m == "RA" else m for m in names[:last])
            labeled = labeled[:last]
        return names, labeled

    @classmethod
    def default_feature_model(cls, maltparser_name=None, undirected="none", **options):
        """The shipped feature model a system with these options uses when no ``-F`` is given:
        MaltParser's (``maltparser_name``, default :attr:`maltparser_features`), or for undirected
        parsing its counterpart, U + that name. Subclasses whose options read more than
        MaltParser's model sees override this."""
        maltparser_name = maltparser_name or cls.maltparser_features or cls.name
        return maltparser_name if undirected == "none" else "U" + maltparser_name

    @classmethod
    def check_options(cls, values, flag):
        """Raise a one-line error (:class:`~maltpy.errors.MaltpyError`) for a combination of this
        system's option ``values`` (name -> value) it cannot take; ``flag(name)``: the flag a
        user types for an option. The registry (:func:`maltpy.systems.check_settings`) has
        already refused options of other systems."""

    def configure(self, **options):
        """Hook for subclasses: copy option values into C fields."""

    cdef void init_state(self, State* s) noexcept nogil:
        pass

    cdef bint is_terminal(self, const State* s) noexcept nogil:
        return True

    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil:
        return 0

    cdef int apply(self, State* s, int move, int label) noexcept nogil:
        return -1

    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil:
        return -1

    cdef int deterministic_move(self, const State* s) noexcept nogil:
        return -1

    cdef bint move_costs(self, const State* s, const Gold* g, int* cost, int* zero_label) noexcept nogil:
        return False

    cdef int address(self, const State* s, int fn, int i) noexcept nogil:
        return -1

    cdef int context(self, const State* s) noexcept nogil:
        """While this value stays the same and no arc is added, the ``stable_address_functions``
        address the same nodes (see the class docstring)."""
        return -1

    cdef int cache_node(self, const State* s, int group) noexcept nogil:
        """The node the ``group``-th of the ``cached_address_functions`` follows from at this
        configuration, -1 if none (see the class docstring)."""
        return -1

    cdef void prepare_gold(self, Gold* g, int n) noexcept nogil:
        pass

    cdef void finish(self, State* s) noexcept nogil:
        cdef int i
        if self.undirected:
            reconstruct(s, self.undirected, self.label_dir, self.n_label_dir, self.root_label)
            return
        for i in range(1, s.n + 1):
            if s.heads[i] == -1:
                add_arc(s, 0, i, self.root_label)

    def address_index(self, str name):
        """Index of an address function by name, or raise a ValueError that says which exist."""
        try:
            return self.address_functions.index(name)
        except ValueError:
            raise ValueError(
                f"address function {name}[i] does not exist for {self.name}; "
                f"use one of {', '.join(f'{a}[i]' for a in self.address_functions)}"
            ) from None

    def new_configuration(self, int n):
        """A Python-driven configuration over n words, for tests and inspection."""
        return Configuration(self, n)


cdef class Configuration:
    """A :c:type:`State` wrapped for Python: one Python call per transition.

    The parse loop never uses this; it exists so that tests and users can step
    through a system by hand.
    """
    def __cinit__(self, TransitionSystem system, int n):
        self.system = system
        self.state.block = NULL
        self.gold.n_children = NULL
        if not state_alloc(&self.state, n):
            raise MemoryError()
        system.init_state(&self.state)

    def __dealloc__(self):
        state_free(&self.state)
        gold_free(&self.gold)

    @property
    def n(self):
        return self.state.n

    @property
    def stack(self):
        """Stack, bottom first."""
        return [self.state.stack[i] for i in range(self.state.stack_len)]

    @property
    def buffer(self):
        """Buffer, front first."""
        return [self.state.buffer[self.state.buf_len - 1 - i] for i in range(self.state.buf_len)]

    @property
    def aux(self):
        return [self.state.aux[i] for i in range(self.state.aux_len)]

    @property
    def heads(self):
        return [self.state.heads[i] for i in range(self.state.n + 1)]

    @property
    def labels(self):
        return [self.state.labels[i] for i in range(self.state.n + 1)]

    @property
    def left(self):
        """List-based systems: position of Left[0]."""
        return self.state.left

    @property
    def right(self):
        """List-based systems: position of Right[0]."""
        return self.state.right

    @property
    def lookahead(self):
        return self.state.lookahead

    @property
    def end_seen(self):
        return bool(self.state.end_seen)

    @property
    def n_transitions(self):
        return self.state.n_transitions

    @property
    def links(self):
        """Undirected systems: the links built, as (smaller node, larger node, label)."""
        cdef int k
        return [(min(self.state.link_to[2 * k], self.state.link_to[2 * k + 1]),
                 max(self.state.link_to[2 * k], self.state.link_to[2 * k + 1]), self.state.link_label[2 * k])
                for k in range(self.state.n_links)]

    def is_terminal(self):
        return bool(self.system.is_terminal(&self.state))

    def copy(self, int room=0):
        """A configuration of the same system in the same state (:c:func:`state_copy`), which
        goes on independently of this one; the gold tree is not copied. ``room``: allocate for
        that many more words (another memory layout; tests)."""
        cdef Configuration other = Configuration(self.system, self.state.n + max(room, 0))
        if not state_copy(&other.state, &self.state):
            raise MemoryError()
        return other

    def valid_moves(self):
        """List of permissible move ids."""
        cdef bint mask[MAX_MOVES]
        self.system.valid_moves(&self.state, mask)
        return [m for m in range(self.system.n_moves) if mask[m]]

    def apply(self, int move, int label=-1):
        if move not in self.valid_moves():
            raise ValueError(f"move {self.system.moves[move]} is not permissible here")
        self.system.apply(&self.state, move, label)

    def address(self, str fn, int i):
        return self.system.address(&self.state, self.system.address_index(fn), i)

    def set_gold(self, heads, labels):
        """Gold tree for :meth:`oracle`: heads[0] and labels[0] belong to the root."""
        import numpy as np
        h = np.ascontiguousarray(heads, dtype=np.int32)
        l = np.ascontiguousarray(labels, dtype=np.int32)
        if len(h) != self.state.n + 1 or len(l) != self.state.n + 1:
            raise ValueError("gold arrays must have n+1 entries")
        self._gold_arrays = (h, l)
        cdef int[::1] hv = h
        cdef int[::1] lv = l
        gold_free(&self.gold)
        if not gold_alloc(&self.gold, &hv[0], &lv[0], self.state.n):
            raise MemoryError()
        self.system.prepare_gold(&self.gold, self.state.n)

    def oracle(self):
        """(move, label) the static oracle chooses; move is -1 if it has none."""
        cdef int label = -1
        if self._gold_arrays is None:
            raise ValueError("call set_gold first")
        cdef int move = self.system.oracle(&self.state, &self.gold, &label)
        return move, label

    def costs(self):
        """The dynamic oracle's {move: (cost, label that costs nothing or -1)} over the permissible
        moves; None for a system without one."""
        cdef int cost[MAX_MOVES]
        cdef int zero[MAX_MOVES]
        if self._gold_arrays is None:
            raise ValueError("call set_gold first")
        if not self.system.move_costs(&self.state, &self.gold, cost, zero):
            return None
        return {m: (cost[m], zero[m] if self.system.labeled[m] else -1) for m in self.valid_moves()}

    def finish(self):
        self.system.finish(&self.state)
