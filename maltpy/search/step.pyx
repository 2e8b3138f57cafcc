# cython: language_level=3
"""The one decision step under every search strategy.

A strategy walks a sentence with four calls, all in C without the GIL:

- :meth:`Step.next` applies the moves that need no decision (which: the :c:type:`Walk`) and
  stops at a decision: its permissible moves and classes (``Decision.mask``, the runs).
- :meth:`Step.features` extracts the decision's feature keys and split value; :meth:`Step.score`
  extracts and scores them through the :class:`~maltpy.search.decision.Scorer` interface. With
  a linear scorer it keeps partial sums where they pay (the :c:type:`Scoring` mode): the
  features of the system's stable addresses (Covington's Right[i]) while its context stays and
  no arc is added, and those of its cached addresses (Covington's Left[i]) per node, with their
  keys compared, so every sum is that of this decision's features, in the same order.
- :meth:`Step.best` is THE arg-max (``argmax_runs``: the first class of the highest score),
  with near ties settled in the model's own arithmetic where the scorer asks for it.
- :meth:`Step.apply` takes a class and returns the node it attached.

The step itself is read only; the sums a walk keeps and its scratch are in its
:c:type:`Workspace`, one per thread. The same walk is open to Python through a
:class:`Walker` (:meth:`Step.walker`), slowly, for strategies written in Python (tests,
prototypes).
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
from maltpy.features.corpus cimport Corpus
from maltpy.systems.classes cimport ClassTable
from maltpy.search.decision cimport (Decision, Scorer, MAX_MOVES, add_runs, argmax_runs,
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


cdef void workspace_free(Workspace* w) noexcept nogil:
    free(w.all_keys)
    free(w.exact)
    free(w.kept)
    free(w.other_keys)
    free(w.now_keys)
    free(w.cache_sp)
    free(w.cache_victim)
    free(w.cache_nk)
    free(w.cache_keys)
    free(w.cache_sum)
    memset(w, 0, sizeof(Workspace))


@cython.final
cdef class Step:
    """The decision step of one system, feature model, class table and scorer (``None`` for a
    strategy that only reads features, such as the static oracle's instance collection).

    ``max_n``: the longest sentence it will walk (sizes the per-node sums). ``scoring``: how it
    adds up scores (:c:type:`Scoring`): KEPT for greedy parsing, CACHED for beam search (whose
    consecutive decisions belong to different configurations: kept sums cover every class, a
    waste where they cannot be reused; the per-node caches of the system's
    ``cached_address_functions`` serve every item of the beam at that node), their AFRESH
    variants to make the same sums without reusing any (the tests of the reuse; k-best parsing).
    A linear scorer is needed to keep anything; otherwise the step scores FRESH (training's
    :class:`~maltpy.search.trainable.TrainableWeights`, whose weights change as they are walked,
    is not linear: it scores every decision whole).

    The step is read only: many threads may walk with it at once, each with its own
    :c:type:`Workspace` (``workspace_alloc``), Decision and State."""

    def __cinit__(self, TransitionSystem system, Extractor ex, ClassTable classes, Scorer scorer=None,
                  int max_n=0, Scoring scoring=KEPT):
        self.system, self.ex, self.classes, self.scorer = system, ex, classes, scorer
        self.table = scorer if isinstance(scorer, Weights) else None
        self.C = classes.n_classes
        linear = scorer is not None and scorer.linear
        kept_family = scoring == KEPT or scoring == KEPT_AFRESH
        parts_np = ex.stable_parts(system)
        self._parts = parts_np
        keeping = linear and kept_family and bool(parts_np[ex.n_addr + ex.n_atoms:].any())
        cdef const unsigned char[::1] parts = parts_np
        self.leave_out = &parts[0] if keeping else NULL
        self.stable = self.leave_out + ex.n_addr + ex.n_atoms if keeping else NULL   # by template
        cached_np = ex.cached_templates(system)
        self.n_nodes = max_n + 1
        self.room = ex.max_keys + 1     # cached keys per node, at most
        n_groups = len(type(system).cached_address_functions)
        caching = linear and (not kept_family or type(system).greedy_cache) and scoring != FRESH \
            and bool(cached_np.any()) and CACHE_WAYS * n_groups * self.n_nodes * (
                self.C * sizeof(float) + self.room * sizeof(uint64_t)) < (1 << 28)
        self.n_cache_groups = n_groups if caching else 0
        self._cached = np.append(cached_np, np.uint8(0))
        cdef const unsigned char[::1] cached_view = self._cached
        self.cached_tpl = &cached_view[0]
        self.scoring = scoring if keeping or caching else FRESH
        self.keys_first = self.stable == NULL and self.table is not None

    @property
    def caches(self):
        """How many per-node score caches this step keeps (0: none)."""
        return self.n_cache_groups

    cdef bint workspace_alloc(self, Workspace* w) noexcept nogil:
        """Room in ``w`` (zeroed before) for a walk with this step (free it with workspace_free);
        False when memory runs out."""
        cdef Py_ssize_t n_slots = CACHE_WAYS * self.n_cache_groups * self.n_nodes
        w.all_keys = <uint64_t*>malloc(sizeof(uint64_t) * (self.ex.max_keys + 1))
        w.exact = <double*>malloc(sizeof(double) * (self.C + 1))
        if w.all_keys == NULL or w.exact == NULL:
            return False
        w.kept_valid = False
        if self.stable != NULL:
            w.kept = <float*>calloc(padded_classes(self.C + 1), sizeof(float))
            w.other_keys = <uint64_t*>malloc(sizeof(uint64_t) * (self.ex.max_keys + 1))
            if w.kept == NULL or w.other_keys == NULL:
                return False
        if n_slots:
            w.cache_victim = <unsigned char*>calloc(self.n_cache_groups * self.n_nodes, 1)
            w.now_keys = <uint64_t*>malloc(sizeof(uint64_t) * self.room)
            w.cache_sp = <int*>malloc(sizeof(int) * n_slots)
            w.cache_nk = <int*>malloc(sizeof(int) * n_slots)
            w.cache_keys = <uint64_t*>malloc(sizeof(uint64_t) * n_slots * self.room)
            w.cache_sum = <float*>calloc(n_slots * padded_classes(self.C), sizeof(float))
            if w.now_keys == NULL or w.cache_sp == NULL or w.cache_nk == NULL \
                    or w.cache_keys == NULL or w.cache_sum == NULL or w.cache_victim == NULL:
                return False
        return True

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

    cdef void start(self, State* s, const Sent* sent, Workspace* w, Walk walk) noexcept nogil:
        """``s``: the initial configuration of ``sent`` (room for it allocated); ``w`` forgets
        the partial sums of the sentence before (NULL: a walk that scores nothing)."""
        cdef int i, g
        s.n = sent.n
        state_reset(s)
        s.scored_end = walk == EVERY_MOVE
        self.system.init_state(s)
        if w == NULL:
            return
        w.kept_valid = False
        for g in range(self.n_cache_groups):
            for i in range(CACHE_WAYS * (sent.n + 1)):
                w.cache_sp[CACHE_WAYS * g * self.n_nodes + i] = -1

    cdef bint next(self, State* s, Decision* d, Walk walk, Record* r, Workspace* w) noexcept nogil:
        """Apply the moves that need no decision (see :c:type:`Walk`); True with ``d``'s
        permissible moves and class runs set when a decision is due, False when the sentence is
        done (terminal, no move permissible, or the transition bound reached)."""
        cdef int only, m
        cdef int64_t max_steps = max_transitions(s.n)
        while not self.system.is_terminal(s) and s.n_transitions < max_steps:
            if r != NULL and r.end != NULL and not r.recorded and s.end_seen:
                r.recorded = True
                record_stack(s, r.end)
            d.n_valid = self.system.valid_moves(s, d.mask)
            if d.n_valid == 0:
                return False
            if walk == TRAIN:
                only = self.system.deterministic_move(s)
                if only >= 0 and d.mask[only]:
                    self.system.apply(s, only, -1)
                    continue
            elif d.n_valid == 1 and walk == PARSE:
                only = 0
                while not d.mask[only]:
                    only += 1
                if not self.classes.labeled[only]:
                    if self.system.apply(s, only, -1) >= 0 and w != NULL:
                        w.kept_valid = False
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

    cdef void score(self, const State* s, const Sent* sent, Decision* d, Workspace* w) noexcept nogil:
        """Extract ``d``'s features and score its permissible classes."""
        cdef int C = self.C, sp, nk, n_stable, n_other
        cdef bint reuse = self.scoring == KEPT or self.scoring == CACHED     # not AFRESH
        cdef uint64_t* to_add
        cdef int all_lo[1]
        cdef int all_end[1]
        if self.stable == NULL:     # no sums kept across decisions: every key, then their scores
            self.features(s, sent, d)
            self.score_features(s, sent, d, w)
            return
        all_lo[0] = 0
        all_end[0] = C
        d.complete = False     # the keys the scorer gets are only those the kept sums lack
        if w.kept_valid and reuse and self.system.context(s) == w.kept_context:
            # the kept features' keys are known: extract the others only
            nk = self.ex.extract_others(self.system, s, sent, d.nodes, d.values, d.keys, self.leave_out)
        else:
            w.kept_valid = False
            nk = self.ex.extract(self.system, s, sent, d.nodes, d.values, d.keys)
        d.split_value = self.ex.split_value(self.system, s, sent, d.nodes) if self.ex.split_atom >= 0 else 0
        sp = self.scorer.split_of(d.split_value) if self.ex.split_atom >= 0 else 0
        if w.kept_valid and sp != w.kept_split:    # another split model: extract everything
            w.kept_valid = False
            nk = self.ex.extract(self.system, s, sent, d.nodes, d.values, d.keys)
        d.split = sp
        to_add = d.keys
        if not w.kept_valid:
            # split the keys: the kept features' first, the others' after them
            n_stable = split_keys(d.keys, nk, self.stable, 1, d.keys, w.other_keys, &n_other)
            # bias + the kept features, over every class
            self.add(sp, d.keys, n_stable, d.found, w.kept, all_lo, all_end, 1, True)
            w.kept_valid, w.kept_context, w.kept_split = True, self.system.context(s), sp
            to_add, nk = w.other_keys, n_other
        memcpy(d.scores, w.kept, sizeof(float) * C)
        self.add_cached(s, sent, d, w, sp, to_add, nk, False)

    cdef void score_features(self, const State* s, const Sent* sent, Decision* d, Workspace* w) noexcept nogil:
        """Score ``d``'s permissible classes from the keys :meth:`features` gave it, for a step
        that keeps no sums across decisions (its :meth:`score` is :meth:`features` and then
        this): a decision's scores follow from its keys, split model and permissible classes."""
        if self.scoring == FRESH:
            if self.table is not None:
                self.table.add_inline(d.split, d.keys, d.nk, <const WSlot**>d.found, d.scores, d.run_lo, d.run_end,
                                      d.n_runs, True)
            else:
                self.scorer.score(d)
            return
        w.kept_valid = False
        d.complete = False     # the keys are rearranged by the node caches' groups
        self.add_cached(s, sent, d, w, d.split, d.keys, d.nk, True)

    cdef void add_cached(self, const State* s, const Sent* sent, Decision* d, Workspace* w, int sp,
                         uint64_t* to_add, int nk, bint from_bias) noexcept nogil:
        """Add to ``d.scores`` (from the bias with ``from_bias``, else from what they hold) the
        per-node caches' sums of their groups of ``to_add`` and the rows of the other keys."""
        cdef int C = self.C, node, n_cached, g
        cdef Py_ssize_t slot, way, x
        cdef bint reuse = self.scoring == KEPT or self.scoring == CACHED     # not AFRESH
        cdef float* node_sum
        cdef int all_lo[1]
        cdef int all_end[1]
        all_lo[0] = 0
        all_end[0] = C
        for g in range(self.n_cache_groups):
            node = self.system.cache_node(s, g)
            if not 0 <= node <= sent.n:
                continue
            # the group's keys apart; the others stay in to_add, in order
            n_cached = split_keys(to_add, nk, self.cached_tpl, g + 1, w.now_keys, to_add, &nk)
            way = g * self.n_nodes + node
            slot = -1
            if reuse:
                for x in range(CACHE_WAYS * way, CACHE_WAYS * (way + 1)):
                    if w.cache_sp[x] == sp and w.cache_nk[x] == n_cached and memcmp(
                            w.cache_keys + x * self.room, w.now_keys, sizeof(uint64_t) * n_cached) == 0:
                        slot = x
                        break
            if slot < 0:    # a miss: the node's least recently filled way takes these scores
                slot = CACHE_WAYS * way + w.cache_victim[way]
                w.cache_victim[way] = (w.cache_victim[way] + 1) % CACHE_WAYS
                node_sum = w.cache_sum + slot * padded_classes(C)
                memset(node_sum, 0, sizeof(float) * C)
                self.add(sp, w.now_keys, n_cached, d.found, node_sum, all_lo, all_end, 1, False)
                memcpy(w.cache_keys + slot * self.room, w.now_keys, sizeof(uint64_t) * n_cached)
                w.cache_nk[slot] = n_cached
                w.cache_sp[slot] = sp
            node_sum = w.cache_sum + slot * padded_classes(C)
            if from_bias:
                memcpy(d.scores, self.scorer.bias_of(sp), sizeof(float) * C)
                from_bias = False
            add_runs(d.scores, node_sum, d.run_lo, d.run_end, d.n_runs)
        self.add(sp, to_add, nk, d.found, d.scores, d.run_lo, d.run_end, d.n_runs, from_bias)
        d.nk = nk       # keys: unspecified beyond what the kept sums lacked (complete is False)

    cdef int best(self, const State* s, const Sent* sent, Decision* d, Workspace* w) noexcept nogil:
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
                                              d.n_runs, best, w.exact)
                n_all = self.ex.extract(self.system, s, sent, d.nodes, d.values, w.all_keys)
                return self.scorer.settle(d.split, w.all_keys, n_all, d.scores, floor, d.run_lo, d.run_end,
                                          d.n_runs, best, w.exact)
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

    cdef void note_confidence(self, const Decision* d, int best, Record* r) noexcept nogil:
        """With ``r.confidence``: how sure the decision is of class ``best`` (kept for the arc it
        builds): the margin over the second-best permissible class (infinite when it is the only
        one), and its softmax probability over the permissible classes."""
        cdef int q, c
        cdef float second = -INFINITY, top
        cdef double z = 0
        if r == NULL or r.confidence == NULL or best < 0:
            return
        top = d.scores[best]
        for q in range(d.n_runs):
            for c in range(d.run_lo[q], d.run_end[q]):
                if c != best and d.scores[c] > second:
                    second = d.scores[c]
                z += exp(<double>d.scores[c] - top)
        r.margin = top - second
        r.prob = <float>(1.0 / z)

    cdef int apply(self, State* s, int cls, Record* r, Workspace* w) noexcept nogil:
        """Take class ``cls`` (a permissible one); return the node it attached (-1: none). An
        arc ends ``w``'s kept sums and, with ``r.moves``, records the move at its dependent."""
        cdef int move = self.classes.class_move[cls]
        cdef int dep = self.system.apply(s, move, self.classes.class_label[cls])
        if dep >= 0:
            if w != NULL:
                w.kept_valid = False
            if r != NULL and r.moves != NULL:
                r.moves[dep] = move
            if r != NULL and r.confidence != NULL:
                r.confidence[2 * dep] = r.margin
                r.confidence[2 * dep + 1] = r.prob
        return dep

    cdef void finish(self, State* s, Record* r) noexcept nogil:
        """The sentence's walk is over: record the stack if the buffer never emptied, and let the
        system attach what is left (its heads and labels are then the tree)."""
        if r != NULL and r.end != NULL and not r.recorded:
            record_stack(s, r.end)
        self.system.finish(s)

    def walker(self, Walk walk=PARSE):
        """A :class:`Walker`: this step's walk, one decision at a time, from Python."""
        return Walker(self, walk)


@cython.final
cdef class Walker:
    """A step's walk from Python (:meth:`begin`, :meth:`next_decision`, :meth:`scores`,
    :meth:`take`, :meth:`tree`), slowly, for strategies written in Python (tests, prototypes).
    ``walk``: which configurations are decisions (:c:type:`Walk`)."""
    cdef readonly Step step
    cdef Walk walk
    cdef State state
    cdef Sent sent
    cdef Decision d
    cdef Workspace w
    cdef Corpus corpus
    cdef bint pending
    cdef Py_ssize_t k

    def __cinit__(self, Step step, Walk walk=PARSE):
        self.step = step
        self.walk = walk
        memset(&self.state, 0, sizeof(State))
        memset(&self.d, 0, sizeof(Decision))
        memset(&self.w, 0, sizeof(Workspace))
        if not (step.decision_alloc(&self.d) and step.workspace_alloc(&self.w)):
            raise MemoryError()

    def __dealloc__(self):
        state_free(&self.state)
        decision_free(&self.d)
        workspace_free(&self.w)

    def begin(self, Corpus corpus, Py_ssize_t k):
        """Start walking sentence ``k`` of ``corpus``."""
        if not 0 <= k < corpus.n_sentences:
            raise IndexError(f"sentence {k} out of range (the corpus has {corpus.n_sentences})")
        corpus.sentence(k, &self.sent)
        state_free(&self.state)
        if not state_alloc(&self.state, self.sent.n):
            raise MemoryError()
        self.corpus = corpus      # keeps the arrays sent points into
        self.k = k
        self.step.start(&self.state, &self.sent, &self.w, self.walk)
        self.pending = False

    def next_decision(self):
        """Go to the next decision; False when the sentence is done."""
        self._walking()
        self.pending = self.step.next(&self.state, &self.d, self.walk, NULL, &self.w)
        return self.pending

    def scores(self):
        """The pending decision's permissible classes and their scores (two arrays)."""
        self._deciding()
        if self.step.scorer is None:
            raise ValueError("this step has no scorer")
        self.step.score(&self.state, &self.sent, &self.d, &self.w)
        classes = self.permissible()
        return classes, np.array([self.d.scores[c] for c in classes], dtype=np.float32)

    def permissible(self):
        """The pending decision's permissible classes, ascending."""
        self._deciding()
        return np.concatenate([np.arange(self.d.run_lo[r], self.d.run_end[r], dtype=np.int32)
                               for r in range(self.d.n_runs)] or [np.zeros(0, dtype=np.int32)])

    def keep_least_cost(self, gold_heads, gold_labels):
        """Keep, of the pending decision's permissible classes, those that lose the fewest arcs of
        the gold tree (``gold_heads``/``gold_labels``: one entry per corpus row), by the system's
        dynamic oracle (:meth:`Step.restrict`); return that cost, or -1 when the system has no costs."""
        self._deciding()
        cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
        cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
        if gh.shape[0] != self.corpus.n_rows or gl.shape[0] != self.corpus.n_rows:
            raise ValueError("gold arrays must have one entry per corpus row")
        cdef Gold g
        memset(&g, 0, sizeof(Gold))
        try:
            if not load_gold(self.step.system, self.corpus, self.k, &g, &gh[0], &gl[0]):
                raise MemoryError()
            return self.step.restrict(&self.state, &g, &self.d)
        finally:
            gold_free(&g)

    def best_class(self):
        """What :meth:`Step.best` chooses for the pending decision (after :meth:`scores`)."""
        self._deciding()
        return self.step.best(&self.state, &self.sent, &self.d, &self.w)

    def take(self, int cls):
        """Apply class ``cls``, which must be permissible; return the node it attached (-1: none)."""
        self._deciding()
        if cls not in self.permissible():
            raise ValueError(f"class {cls} is not permissible here")
        self.pending = False
        return self.step.apply(&self.state, cls, NULL, &self.w)

    def tree(self):
        """The finished sentence's (heads, label ids), one entry per word."""
        self._walking()
        self.step.finish(&self.state, NULL)
        n = self.sent.n
        heads = [self.state.heads[i] for i in range(1, n + 1)]
        labels = [self.state.labels[i] for i in range(1, n + 1)]
        return heads, labels

    def _walking(self):
        if self.corpus is None:
            raise ValueError("call begin(corpus, k) first")

    def _deciding(self):
        self._walking()
        if not self.pending:
            raise ValueError("no decision is pending: call next_decision() first")
