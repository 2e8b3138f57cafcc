# cython: language_level=3
from libc.stdint cimport int64_t, uint64_t
from maltpy.systems.state cimport State, Gold
from maltpy.systems.base cimport TransitionSystem, gold_alloc
from maltpy.features.extract cimport Extractor, Sent
from maltpy.features.corpus cimport Corpus
from maltpy.systems.classes cimport ClassTable
from maltpy.search.decision cimport Decision, Scorer
from maltpy.search.weights cimport Weights, WSlot


cpdef enum Scoring:
    # how a step adds up a decision's scores (each AFRESH mode makes its pair's additions, in the
    # same order, without reusing any: the same float sums)
    FRESH = 0          # every feature of the decision over its permissible classes, from the bias up
    KEPT = 1           # greedy parsing: the stable features' sums (bias first) kept while the context
                       # stays and no arc is added; per-node caches where the system asks for them
    KEPT_AFRESH = 2    # the tests that check KEPT's reuse (and k-best's CACHED_AFRESH: sums made afresh)
    CACHED = 3         # beam parsing: per-node caches only, which the agenda's items at a node share
    CACHED_AFRESH = 4


cpdef enum Walk:
    # which configurations are decisions
    PARSE = 0          # those with a choice or a label to make (the only permissible unlabeled move is applied)
    TRAIN = 1          # all but those of the system's deterministic move (MaltParser records no instance there)
    EVERY_MOVE = 2     # all, and arc-eager pops its end (beam search: the sequences an agenda compares
                       # have the same number of terms)


cdef struct Record:
    # what a parse records of one sentence besides its tree (NULL: nothing)
    signed char* end     # per word: where it was when the buffer first became empty
    bint recorded
    int* moves           # per word: the move that built its arc
    float* confidence    # per word, two values: the margin and the probability of the class that built its arc
    float margin         # those of the decision about to be applied
    float prob


cdef struct Workspace:
    # one walk's partial sums and scratch (one per thread; the step itself never changes)
    uint64_t* all_keys      # every key of a decision whose near tie is settled
    double* exact           # the settled classes' exact sums
    bint kept_valid         # kept holds the sums of the configuration's stable features
    int kept_context
    int kept_split
    float* kept             # bias + the stable features' weights, over every class
    uint64_t* other_keys
    uint64_t* now_keys
    int* cache_sp           # per cache way: its split model (-1: empty), key count, keys and sums
    unsigned char* cache_victim   # per group and node: the way a miss overwrites next
    int* cache_nk
    uint64_t* cache_keys
    float* cache_sum


cdef class Step:
    """The one decision step: permissible moves, features, scores, the arg-max, the move. Built
    once, read only: what a walk keeps between decisions is in its :c:type:`Workspace`."""
    cdef readonly TransitionSystem system
    cdef readonly Extractor ex
    cdef readonly ClassTable classes
    cdef readonly Scorer scorer
    cdef readonly Scoring scoring   # the mode the step runs in (FRESH where the scorer is not linear
                                    # or the system has nothing to keep)
    cdef Weights table          # the scorer when it is the parse-time table: called inline, not through the interface
    cdef int C
    cdef const unsigned char* leave_out     # with kept sums (else NULL): the parts they cover
    cdef const unsigned char* stable        # ... by template
    cdef const unsigned char* cached_tpl    # per template: its cache group + 1 (0: none)
    cdef object _parts, _cached
    cdef int n_cache_groups         # per-node caches (0: none)
    cdef readonly bint keys_first   # score() is features() and then score_features(), with the
                                    # parse-time table: a decision's scores follow from its keys
    cdef int room                   # keys per cache way, at most
    cdef Py_ssize_t n_nodes

    cdef bint workspace_alloc(self, Workspace* w) noexcept nogil
    cdef bint decision_alloc(self, Decision* d) noexcept nogil
    cdef void start(self, State* s, const Sent* sent, Workspace* w, Walk walk) noexcept nogil
    cdef bint next(self, State* s, Decision* d, Walk walk, Record* r, Workspace* w) noexcept nogil
    cdef void features(self, const State* s, const Sent* sent, Decision* d) noexcept nogil
    cdef void add(self, int sp, const uint64_t* keys, int nk, const void** found, float* scores,
                  const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil
    cdef void score(self, const State* s, const Sent* sent, Decision* d, Workspace* w) noexcept nogil
    cdef void score_features(self, const State* s, const Sent* sent, Decision* d, Workspace* w) noexcept nogil
    cdef void add_cached(self, const State* s, const Sent* sent, Decision* d, Workspace* w, int sp,
                         uint64_t* to_add, int nk, bint from_bias) noexcept nogil
    cdef int best(self, const State* s, const Sent* sent, Decision* d, Workspace* w) noexcept nogil
    cdef int restrict(self, const State* s, const Gold* g, Decision* d) noexcept nogil
    cdef void note_confidence(self, const Decision* d, int best, Record* r) noexcept nogil
    cdef int apply(self, State* s, int cls, Record* r, Workspace* w) noexcept nogil
    cdef void finish(self, State* s, Record* r) noexcept nogil


cdef void workspace_free(Workspace* w) noexcept nogil
cdef void decision_free(Decision* d) noexcept nogil


cdef inline bint load_gold(TransitionSystem system, Corpus corpus, Py_ssize_t k, Gold* g, const int* gold_heads,
                           const int* gold_labels) noexcept nogil:
    """Sentence k's gold tree from the corpus-row gold arrays, for the training strategies;
    False when memory runs out."""
    cdef int64_t r0 = corpus.off_p[k]
    cdef int n = <int>(corpus.off_p[k + 1] - r0 - 1)
    if not gold_alloc(g, gold_heads + r0, gold_labels + r0, n):
        return False
    system.prepare_gold(g, n)
    return True


cdef inline int oracle_class(TransitionSystem system, ClassTable classes, const State* s, const Gold* g,
                             const Decision* d) noexcept nogil:
    """The static oracle's class, or the first permissible move's when the oracle has no
    permissible answer (a non-projective gold tree for a projective system)."""
    cdef int label = -1
    cdef int move = system.oracle(s, g, &label)
    if move < 0 or not d.mask[move] or (classes.labeled[move] and label < 0):
        move = 0
        while not d.mask[move]:
            move += 1
        label = 0
    return classes.class_of(move, label)
