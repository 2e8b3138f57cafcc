# cython: language_level=3
"""The one decision step under every search strategy.

A strategy walks a sentence with four calls, all in C without the GIL:

- :meth:`Step.next` applies the moves that need no decision (the only permissible move when it
  takes no label; in training, the system's deterministic move, as MaltParser) and stops at a
  decision: its permissible moves and classes (``Decision.mask``, the runs).
- :meth:`Step.features` extracts the decision's feature keys and split value; :meth:`Step.score`
  extracts and scores them through the :class:`~maltpy.search.decision.Scorer` interface. For a
  linear scorer walking one sentence after the other it keeps partial sums where they pay:
  the features of the system's stable addresses (Covington's Right[i]) while its context stays
  and no arc is added, and those of its cached addresses (Covington's Left[i]) per node, with
  their keys compared, so every sum is that of this decision's features, in the same order.
- :meth:`Step.best` is THE arg-max (``argmax_runs``: the first class of the highest score),
  with near ties settled in the model's own arithmetic where the scorer asks for it.
- :meth:`Step.apply` takes a class.

The same walk is open to Python (:meth:`Step.begin`, :meth:`Step.next_decision`,
:meth:`Step.scores`, :meth:`Step.take`, :meth:`Step.tree`), slowly, for strategies written in
Python (tests, prototypes).
"""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport uint64_t, int64_t
from libc.math cimport exp, INFINITY

from maltpy.systems.state cimport State, state_alloc, state_free, state_reset
from maltpy.systems.base cimport TransitionSystem, gold_free
from maltpy.features.extract cimport Extractor, Sent, TEMPLATE_SHIFT
from maltpy.search.decision cimport (ClassTable, Corpus, Decision, Scorer, MAX_MOVES, add_runs, argmax_runs,
                                     count_at_least, max_transitions, padded_classes)

cnp.import_array()


cdef void decision_free(Decision* d) noexcept nogil:
    free(d.keys)
    free(d.scores)
    free(d.found)
    free(d.nodes)
    free(d.values)
    d.keys = NULL
    d.scores = NULL
    d.found = NULL
    d.nodes = NULL
    d.values = NULL


cdef enum:
    # configurations that meet at a node with other keys each keep their scores, up to this many
    CACHE_WAYS = 2


cdef inline int split_keys(uint64_t* keys, int nk, const unsigned char* by_template, unsigned char mark,
                           uint64_t* picked, uint64_t* rest, int* n_rest) noexcept nogil:
    """The keys of the templates ``by_template`` marks with ``mark`` to ``picked``, the others to
    ``rest``, each in their order; either may be ``keys`` itself. Returns how many were picked."""
    cdef int i, n_picked = 0
    n_rest[0] = 0
    for i in range(nk):
        if by_template[keys[i] >> TEMPLATE_SHIFT] == mark:
            picked[n_picked] = keys[i]
            n_picked += 1
        else:
            rest[n_rest[0]] = keys[i]
            n_rest[0] += 1
    return n_picked


cdef inline void record_stack(const State* s, signed char* out) noexcept nogil:
    """Mark the words on the stack: 1 without a head (left fragmented), 2 with one."""
    cdef int i, w
    for i in range(s.stack_len):
        w = s.stack[i]
        if w > 0:
            out[w] = 1 if s.heads[w] == -1 else 2


@cython.final
cdef class Step:
    """The decision step of one system, feature model, class table and scorer (``None`` for a
    strategy that only reads features, such as the static oracle's instance collection).

    ``max_n``: the longest sentence it will walk (sizes the per-node sums). ``keep_scores``
    False: partial sums are computed afresh at every decision instead of kept (the same sums,
    added in the same order; tests). ``plain``: no kept sums, each decision's keys added over
    its permissible classes only, in extraction order, but for the per-node cache of the
    system's ``cached_address_functions`` (beam search, whose consecutive decisions belong to
    different configurations: kept sums cover every class, a waste where they cannot be reused;
    the cached ones serve every item of the beam with the same node). A step whose scorer keeps
    no sums and settles no ties (``Step.shareable``) may walk sentences on many threads at once,
    each with its own Decision and State; otherwise one thread at a time."""

    def __cinit__(self, TransitionSystem system, Extractor ex, ClassTable classes, Scorer scorer=None,
                  int max_n=0, bint keep_scores=True, bint plain=False):
        self.system, self.ex, self.classes, self.scorer = system, ex, classes, scorer
        self.table = scorer if isinstance(scorer, Weights) else None
        self.C = classes.n_classes
        self.all_keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
        self.exact = <double*>malloc(sizeof(double) * (self.C + 1))
        self.py_state.block = NULL
        self.py_d.keys = NULL
        self.py_d.scores = NULL
        self.py_d.found = NULL
        self.py_d.nodes = NULL
        self.py_d.values = NULL
        if self.all_keys == NULL or self.exact == NULL:
            raise MemoryError()
        linear = scorer is not None and scorer.linear
        self.keep_scores = keep_scores
        parts_np = ex.stable_parts(system)
        self._parts = parts_np
        self.keeping = linear and not plain and bool(parts_np[ex.n_addr + ex.n_atoms:].any())
        cdef unsigned char[::1] parts = parts_np
        self.leave_out = &parts[0] if self.keeping else NULL
        self.stable = self.leave_out + ex.n_addr + ex.n_atoms if self.keeping else NULL   # by template
        cached_np = ex.cached_templates(system)
        self.n_nodes = max_n + 1
        self.room = ex.max_keys + 1     # cached keys per node, at most
        self.n_groups = len(type(system).cached_address_functions)
        self.caching = linear and (plain or type(system).greedy_cache) and bool(cached_np.any()) and \
            CACHE_WAYS * self.n_groups * self.n_nodes * (self.C * sizeof(float)
                                                         + self.room * sizeof(uint64_t)) < (1 << 28)
        self._cached = np.append(cached_np, np.uint8(0))
        cdef const unsigned char[::1] cached_view = self._cached
        self.cached_tpl = &cached_view[0]
        if self.keeping:
            self.kept = <float*>calloc(padded_classes(self.C + 1), sizeof(float))
            self.other_keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
            if self.kept == NULL or self.other_keys == NULL:
                raise MemoryError()
        cdef Py_ssize_t n_slots = CACHE_WAYS * self.n_groups * self.n_nodes
        if self.caching:
            self.cache_victim = <unsigned char*>calloc(self.n_groups * self.n_nodes, 1)
            self.now_keys = <uint64_t*>malloc(sizeof(uint64_t) * self.room)
            self.cache_sp = <int*>malloc(sizeof(int) * n_slots)
            self.cache_nk = <int*>malloc(sizeof(int) * n_slots)
            self.cache_keys = <uint64_t*>malloc(sizeof(uint64_t) * n_slots * self.room)
            self.cache_sum = <float*>calloc(n_slots * padded_classes(self.C), sizeof(float))
            if self.now_keys == NULL or self.cache_sp == NULL or self.cache_nk == NULL \
                    or self.cache_keys == NULL or self.cache_sum == NULL or self.cache_victim == NULL:
                raise MemoryError()

    @property
    def caches(self):
        """How many per-node score caches this step keeps (0: none)."""
        return self.n_groups if self.caching else 0

    @property
    def shareable(self):
        """Whether threads may walk sentences with this step at once (no kept sums, no ties to
        settle with the step's scratch)."""
        return not (self.keeping or self.caching or (self.scorer is not None and self.scorer.near_ties))

    def __dealloc__(self):
        free(self.all_keys)
        free(self.exact)
        free(self.kept)
        free(self.other_keys)
        free(self.now_keys)
        free(self.cache_sp)
        free(self.cache_victim)
        free(self.cache_nk)
        free(self.cache_keys)
        free(self.cache_sum)
        state_free(&self.py_state)
        decision_free(&self.py_d)

    cdef bint decision_alloc(self, Decision* d) noexcept nogil:
        """Room in ``d`` for this step's decisions (free it with decision_free); False when memory
        runs out."""
        d.keys = <uint64_t*>malloc(sizeof(uint64_t) * (self.ex.max_keys + 1))
        d.scores = <float*>calloc(padded_classes(self.C + 1), sizeof(float))
        d.found = <const void**>malloc(sizeof(void*) * (self.ex.max_keys + 1))
        d.nodes = <int*>malloc(sizeof(int) * (self.ex.n_addr + 1))
        d.values = <int64_t*>malloc(sizeof(int64_t) * (self.ex.n_atoms + 1))
        d.nk = 0
        d.split = 0
        d.split_value = 0
        d.complete = True
        if d.keys == NULL or d.scores == NULL or d.found == NULL or d.nodes == NULL or d.values == NULL:
            decision_free(d)
            return False
        return True

    cdef void start(self, State* s, const Sent* sent) noexcept nogil:
        """``s``: the initial configuration of ``sent`` (room for it allocated); forgets the
        partial sums of the sentence before."""
        cdef int i, g
        s.n = sent.n
        state_reset(s)
        s.scored_end = self.score_all
        self.system.init_state(s)
        self.kept_valid = False
        if self.caching:
            for g in range(self.n_groups):
                for i in range(CACHE_WAYS * (sent.n + 1)):
                    self.cache_sp[CACHE_WAYS * g * self.n_nodes + i] = -1

    cdef bint next(self, State* s, Decision* d, bint training, Track* t) noexcept nogil:
        """Apply the moves that need no decision; True with ``d``'s permissible moves and class
        runs set when a decision is due, False when the sentence is done (terminal, no move
        permissible, or the transition bound reached). ``training``: the system's deterministic
        move is applied instead of asking (MaltParser records no instance for it, but does for
        every other decision, even when only one move is permissible); parsing applies the only
        permissible move when it takes no label, unless ``score_all`` (beam search: every move is
        scored, so that the sequences an agenda compares have the same number of terms where the
        system allows it)."""
        cdef int only, m
        cdef int64_t max_steps = max_transitions(s.n)
        while not self.system.is_terminal(s) and s.n_transitions < max_steps:
            if t != NULL and t.end != NULL and not t.recorded and s.end_seen:
                t.recorded = True
                record_stack(s, t.end)
            d.n_valid = self.system.valid_moves(s, d.mask)
            if d.n_valid == 0:
                return False
            if training:
                only = self.system.deterministic_move(s)
                if only >= 0 and d.mask[only]:
                    self.system.apply(s, only, -1)
                    continue
            elif d.n_valid == 1 and not self.score_all:
                only = 0
                while not d.mask[only]:
                    only += 1
                if not self.classes.labeled[only]:
                    s.last_dep = -1
                    self.system.apply(s, only, -1)
                    if s.last_dep >= 0 and self.keeping:
                        self.kept_valid = False
                    continue
            # the permissible classes are runs of adjacent classes
            d.n_runs = 0
            for m in range(self.classes.n_moves):
                if d.mask[m]:
                    if d.n_runs and d.run_end[d.n_runs - 1] == self.classes.first[m]:
                        d.run_end[d.n_runs - 1] = self.classes.end[m]
                    else:
                        d.run_lo[d.n_runs] = self.classes.first[m]
                        d.run_end[d.n_runs] = self.classes.end[m]
                        d.n_runs += 1
            return True
        return False

    cdef void features(self, const State* s, const Sent* sent, Decision* d) noexcept nogil:
        """All of the decision's feature keys, its split value and (with a scorer) split model."""
        d.nk = self.ex.extract(self.system, s, sent, d.nodes, d.values, d.keys)
        d.complete = True
        d.split_value = self.ex.split_value(self.system, s, sent, d.nodes) if self.ex.split_atom >= 0 else 0
        d.split = self.scorer.split_of(d.split_value) if self.scorer is not None and self.ex.split_atom >= 0 else 0

    cdef inline void add(self, int sp, const uint64_t* keys, int nk, const void** found, float* scores,
                         const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil:
        """The scorer's :meth:`Scorer.add`, inline for the parse-time table (the parse loop's
        hottest call)."""
        if self.table is not None:
            self.table.add_inline(sp, keys, nk, <const WSlot**>found, scores, run_lo, run_end, n_runs, from_bias)
        else:
            self.scorer.add(sp, keys, nk, found, scores, run_lo, run_end, n_runs, from_bias)

    cdef void score(self, const State* s, const Sent* sent, Decision* d) noexcept nogil:
        """Extract ``d``'s features and score its permissible classes."""
        cdef int C = self.C, sp, nk, n_stable, n_other, node, n_cached, g
        cdef Py_ssize_t slot, way, w
        cdef bint from_bias
        cdef uint64_t* to_add
        cdef float* node_sum
        cdef int all_lo[1]
        cdef int all_end[1]
        if not (self.keeping or self.caching):
            self.features(s, sent, d)
            if self.table is not None:
                self.table.add_inline(d.split, d.keys, d.nk, <const WSlot**>d.found, d.scores, d.run_lo, d.run_end,
                                      d.n_runs, True)
            else:
                self.scorer.score(d)
            return
        all_lo[0] = 0
        all_end[0] = C
        d.complete = False     # the keys the scorer gets are only those the kept sums lack
        if self.keeping and self.kept_valid and self.keep_scores and self.system.context(s) == self.kept_context:
            # the kept features' keys are known: extract the others only
            nk = self.ex.extract_others(self.system, s, sent, d.nodes, d.values, d.keys, self.leave_out)
        else:
            self.kept_valid = False
            nk = self.ex.extract(self.system, s, sent, d.nodes, d.values, d.keys)
        d.split_value = self.ex.split_value(self.system, s, sent, d.nodes) if self.ex.split_atom >= 0 else 0
        sp = self.scorer.split_of(d.split_value) if self.ex.split_atom >= 0 else 0
        if self.kept_valid and sp != self.kept_split:    # another split model: extract everything
            self.kept_valid = False
            nk = self.ex.extract(self.system, s, sent, d.nodes, d.values, d.keys)
        d.split = sp
        to_add = d.keys
        if self.keeping:
            if not self.kept_valid:
                # split the keys: the kept features' first, the others' after them
                n_stable = split_keys(d.keys, nk, self.stable, 1, d.keys, self.other_keys, &n_other)
                # bias + the kept features, over every class
                self.add(sp, d.keys, n_stable, d.found, self.kept, all_lo, all_end, 1, True)
                self.kept_valid, self.kept_context, self.kept_split = True, self.system.context(s), sp
                to_add, nk = self.other_keys, n_other
            memcpy(d.scores, self.kept, sizeof(float) * C)
        from_bias = not self.keeping
        if self.caching:
            for g in range(self.n_groups):
                node = self.system.cache_node(s, g)
                if not 0 <= node <= sent.n:
                    continue
                # the group's keys apart; the others stay in to_add, in order
                n_cached = split_keys(to_add, nk, self.cached_tpl, g + 1, self.now_keys, to_add, &nk)
                way = g * self.n_nodes + node
                slot = -1
                if self.keep_scores:
                    for w in range(CACHE_WAYS * way, CACHE_WAYS * (way + 1)):
                        if self.cache_sp[w] == sp and self.cache_nk[w] == n_cached and memcmp(
                                self.cache_keys + w * self.room, self.now_keys, sizeof(uint64_t) * n_cached) == 0:
                            slot = w
                            break
                if slot < 0:    # a miss: the node's least recently filled way takes these scores
                    slot = CACHE_WAYS * way + self.cache_victim[way]
                    self.cache_victim[way] = (self.cache_victim[way] + 1) % CACHE_WAYS
                    node_sum = self.cache_sum + slot * padded_classes(C)
                    memset(node_sum, 0, sizeof(float) * C)
                    self.add(sp, self.now_keys, n_cached, d.found, node_sum, all_lo, all_end, 1, False)
                    memcpy(self.cache_keys + slot * self.room, self.now_keys, sizeof(uint64_t) * n_cached)
                    self.cache_nk[slot] = n_cached
                    self.cache_sp[slot] = sp
                node_sum = self.cache_sum + slot * padded_classes(C)
                if from_bias:
                    memcpy(d.scores, self.scorer.bias_of(sp), sizeof(float) * C)
                    from_bias = False
                add_runs(d.scores, node_sum, d.run_lo, d.run_end, d.n_runs)
        self.add(sp, to_add, nk, d.found, d.scores, d.run_lo, d.run_end, d.n_runs, from_bias)
        d.nk = nk       # keys: unspecified beyond what the kept sums lacked (complete is False)

    cdef int best(self, const State* s, const Sent* sent, Decision* d) noexcept nogil:
        """The arg-max over ``d``'s permissible classes; where the scorer's float32 scores
        nearly tie, the model's own arithmetic settles it (over all the decision's features)."""
        cdef int best = argmax_runs(d.scores, d.run_lo, d.run_end, d.n_runs)
        cdef float floor
        cdef int n_all
        if best >= 0 and self.scorer is not None and self.scorer.near_ties:
            floor = self.scorer.near_tie_floor(d.scores[best], self.ex.max_keys)
            if count_at_least(d.scores, d.run_lo, d.run_end, d.n_runs, floor) > 1:    # a near tie
                if d.complete:
                    return self.scorer.settle(d.split, d.keys, d.nk, d.scores, floor, d.run_lo, d.run_end,
                                              d.n_runs, best, self.exact)
                n_all = self.ex.extract(self.system, s, sent, d.nodes, d.values, self.all_keys)
                return self.scorer.settle(d.split, self.all_keys, n_all, d.scores, floor, d.run_lo, d.run_end,
                                          d.n_runs, best, self.exact)
        return best

    cdef int restrict(self, const State* s, const Gold* g, Decision* d) noexcept nogil:
        """Keep, of ``d``'s permissible classes, those that lose the fewest of the arcs ``g``
        gives (a partial tree: head -1 where none is given, label -1 where any will do), by the
        system's dynamic oracle (:meth:`TransitionSystem.move_costs`); return that least cost
        (0: every given arc still reachable), or -1 when the system has no costs here (the
        classes are left as they are)."""
        cdef int cost[MAX_MOVES]
        cdef int zero[MAX_MOVES]
        cdef int m, best = -1, c, n_runs = 0, lo, hi
        cdef int run_lo[MAX_MOVES]
        cdef int run_end[MAX_MOVES]
        if not self.system.move_costs(s, g, cost, zero):
            return -1
        for m in range(self.classes.n_moves):      # a class costs its move's cost, +1 for a wrong label
            if d.mask[m] and (best < 0 or cost[m] < best):
                best = cost[m]
        if best < 0:
            return -1
        for m in range(self.classes.n_moves):
            if not d.mask[m] or cost[m] != best:
                d.mask[m] = False
                continue
            lo, hi = self.classes.first[m], self.classes.end[m]
            if self.classes.labeled[m] and zero[m] >= 0:
                lo = lo + zero[m]
                hi = lo + 1
            if n_runs and run_end[n_runs - 1] == lo:
                run_end[n_runs - 1] = hi
            else:
                run_lo[n_runs] = lo
                run_end[n_runs] = hi
                n_runs += 1
        d.n_runs = n_runs
        d.n_valid = 0
        for c in range(n_runs):
            d.run_lo[c] = run_lo[c]
            d.run_end[c] = run_end[c]
        for m in range(self.classes.n_moves):
            d.n_valid += d.mask[m]
        return best

    cdef void note_confidence(self, const Decision* d, int best, Track* t) noexcept nogil:
        """With ``t.confidence``: how sure the decision is of class ``best`` (kept for the arc it
        builds): the margin over the second-best permissible class (infinite when it is the only
        one), and its softmax probability over the permissible classes."""
        cdef int r, c
        cdef float second = -INFINITY, top
        cdef double z = 0
        if t == NULL or t.confidence == NULL or best < 0:
            return
        top = d.scores[best]
        for r in range(d.n_runs):
            for c in range(d.run_lo[r], d.run_end[r]):
                if c != best and d.scores[c] > second:
                    second = d.scores[c]
                z += exp(<double>d.scores[c] - top)
        t.margin = top - second
        t.prob = <float>(1.0 / z)

    cdef void apply(self, State* s, int cls, Track* t) noexcept nogil:
        """Take class ``cls`` (a permissible one); an arc it adds ends the kept sums and, with
        ``t.moves``, records the move at its dependent."""
        cdef int move = self.classes.class_move[cls]
        s.last_dep = -1
        self.system.apply(s, move, self.classes.class_label[cls])
        if s.last_dep >= 0:
            if self.keeping:
                self.kept_valid = False
            if t != NULL and t.moves != NULL:
                t.moves[s.last_dep] = move
            if t != NULL and t.confidence != NULL:
                t.confidence[2 * s.last_dep] = t.margin
                t.confidence[2 * s.last_dep + 1] = t.prob

    cdef void finish(self, State* s, Track* t) noexcept nogil:
        """The sentence's walk is over: record the stack if the buffer never emptied, and let the
        system attach what is left (its heads and labels are then the tree)."""
        if t != NULL and t.end != NULL and not t.recorded:
            record_stack(s, t.end)
        self.system.finish(s)

    # ------------------------------------------------------------ the walk from Python
    def begin(self, Corpus corpus, Py_ssize_t k):
        """Start walking sentence ``k`` of ``corpus``."""
        if not 0 <= k < corpus.n_sentences:
            raise IndexError(f"sentence {k} out of range (the corpus has {corpus.n_sentences})")
        corpus.sentence(k, &self.py_sent)
        if self.py_d.keys == NULL and not self.decision_alloc(&self.py_d):
            raise MemoryError()
        state_free(&self.py_state)
        if not state_alloc(&self.py_state, self.py_sent.n):
            raise MemoryError()
        self.py_corpus = corpus      # keeps the arrays py_sent points into
        self.py_k = k
        self.start(&self.py_state, &self.py_sent)
        self.py_pending = False

    def next_decision(self, bint training=False):
        """Go to the next decision; False when the sentence is done."""
        self._walking()
        self.py_pending = self.next(&self.py_state, &self.py_d, training, NULL)
        return self.py_pending

    def scores(self):
        """The pending decision's permissible classes and their scores (two arrays)."""
        self._deciding()
        if self.scorer is None:
            raise ValueError("this step has no scorer")
        self.score(&self.py_state, &self.py_sent, &self.py_d)
        classes = self.permissible()
        return classes, np.array([self.py_d.scores[c] for c in classes], dtype=np.float32)

    def permissible(self):
        """The pending decision's permissible classes, ascending."""
        self._deciding()
        return np.concatenate([np.arange(self.py_d.run_lo[r], self.py_d.run_end[r], dtype=np.int32)
                               for r in range(self.py_d.n_runs)] or [np.zeros(0, dtype=np.int32)])

    def keep_least_cost(self, gold_heads, gold_labels):
        """Keep, of the pending decision's permissible classes, those that lose the fewest arcs of
        the gold tree (``gold_heads``/``gold_labels``: one entry per corpus row), by the system's
        dynamic oracle (:meth:`restrict`); return that cost, or -1 when the system has no costs."""
        self._deciding()
        cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
        cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
        if gh.shape[0] != self.py_corpus.n_rows or gl.shape[0] != self.py_corpus.n_rows:
            raise ValueError("gold arrays must have one entry per corpus row")
        cdef Gold g
        memset(&g, 0, sizeof(Gold))
        try:
            if not load_gold(self.system, self.py_corpus, self.py_k, &g, &gh[0], &gl[0]):
                raise MemoryError()
            return self.restrict(&self.py_state, &g, &self.py_d)
        finally:
            gold_free(&g)

    def best_class(self):
        """What :meth:`best` chooses for the pending decision (after :meth:`scores`)."""
        self._deciding()
        return self.best(&self.py_state, &self.py_sent, &self.py_d)

    def take(self, int cls):
        """Apply class ``cls``, which must be permissible."""
        self._deciding()
        if cls not in self.permissible():
            raise ValueError(f"class {cls} is not permissible here")
        self.apply(&self.py_state, cls, NULL)
        self.py_pending = False

    def tree(self):
        """The finished sentence's (heads, label ids), one entry per word."""
        self._walking()
        self.finish(&self.py_state, NULL)
        n = self.py_sent.n
        heads = [self.py_state.heads[i] for i in range(1, n + 1)]
        labels = [self.py_state.labels[i] for i in range(1, n + 1)]
        return heads, labels

    def _walking(self):
        if self.py_corpus is None:
            raise ValueError("call begin(corpus, k) first")

    def _deciding(self):
        self._walking()
        if not self.py_pending:
            raise ValueError("no decision is pending: call next_decision() first")
