# cython: language_level=3
from libc.stdint cimport int64_t, uint64_t
from maltpy.systems.state cimport State, Gold
from maltpy.systems.base cimport TransitionSystem, gold_alloc
from maltpy.features.extract cimport Extractor, Sent
from maltpy.search.decision cimport ClassTable, Corpus, Decision, Scorer
from maltpy.search.weights cimport Weights, WSlot


cdef struct Track:
    # what a parse records of one sentence besides its tree (NULL: nothing)
    signed char* end     # per word: where it was when the buffer first became empty
    bint recorded
    int* moves           # per word: the move that built its arc
    float* confidence    # per word, two values: the margin and the probability of the class that built its arc
    float margin         # those of the decision about to be applied
    float prob


cdef class Step:
    """The one decision step: permissible moves, features, scores, the arg-max, the move."""
    cdef readonly TransitionSystem system
    cdef readonly Extractor ex
    cdef readonly ClassTable classes
    cdef readonly Scorer scorer
    cdef Weights table          # the scorer when it is the parse-time table: called inline, not through the interface
    cdef int C
    cdef uint64_t* all_keys
    cdef double* exact
    # partial sums kept between decisions (a linear scorer, one sentence after the other)
    cdef bint keeping, caching, kept_valid, keep_scores
    cdef public bint score_all      # every move is a decision (and arc-eager pops its end): beam search
    cdef unsigned char* leave_out
    cdef const unsigned char* stable
    cdef const unsigned char* cached_tpl
    cdef object _parts, _cached
    cdef float* kept
    cdef uint64_t* other_keys
    cdef uint64_t* now_keys
    cdef int kept_context, kept_split, room
    cdef int* cache_sp
    cdef unsigned char* cache_victim   # per group and node: the way a miss overwrites next
    cdef int* cache_nk
    cdef uint64_t* cache_keys
    cdef float* cache_sum
    cdef Py_ssize_t n_nodes
    cdef int n_groups               # caches: one per cached address function
    # the Python-facing walk (begin, next_decision, ...): one sentence of a corpus
    cdef State py_state
    cdef Sent py_sent
    cdef Decision py_d
    cdef Corpus py_corpus
    cdef bint py_pending
    cdef Py_ssize_t py_k

    cdef bint decision_alloc(self, Decision* d) noexcept nogil
    cdef void start(self, State* s, const Sent* sent) noexcept nogil
    cdef bint next(self, State* s, Decision* d, bint training, Track* t) noexcept nogil
    cdef void features(self, const State* s, const Sent* sent, Decision* d) noexcept nogil
    cdef void add(self, int sp, const uint64_t* keys, int nk, const void** found, float* scores,
                  const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil
    cdef void score(self, const State* s, const Sent* sent, Decision* d) noexcept nogil
    cdef int best(self, const State* s, const Sent* sent, Decision* d) noexcept nogil
    cdef int restrict(self, const State* s, const Gold* g, Decision* d) noexcept nogil
    cdef void note_confidence(self, const Decision* d, int best, Track* t) noexcept nogil
    cdef void apply(self, State* s, int cls, Track* t) noexcept nogil
    cdef void finish(self, State* s, Track* t) noexcept nogil


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
