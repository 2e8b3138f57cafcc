# cython: language_level=3
"""Declarations shared by the parse loops (loop.pyx: one decision at a time; kernel.pyx: batched)."""
cimport cython
from libc.stdint cimport int64_t, int32_t, uint64_t
from maltpy.systems.state cimport State, Gold, state_reset
from maltpy.systems.base cimport TransitionSystem, gold_alloc
from maltpy.features.extract cimport Sent
from maltpy.features.featmap cimport mix64
from libc.string cimport memcpy

cdef enum:
    MAX_MOVES = 64


@cython.final
cdef class ClassTable:
    cdef readonly int n_classes
    cdef int* first
    cdef int* end          # classes of move m are first[m] .. end[m]-1
    cdef bint* labeled
    cdef int* class_move
    cdef int* class_label
    cdef int n_moves

    cdef inline int class_of(self, int move, int label) noexcept nogil:
        return self.first[move] + (label if self.labeled[move] else 0)


cdef class SplitModels:
    """Base of the per-split scoring tables: which model scores a data-split value."""
    cdef int n_splits
    cdef int* split_map
    cdef int split_map_len
    cdef int default_split
    cdef object _split_map_array

    cdef set_split_map(self, split_map, int default_split)

    cdef inline int split_of(self, int64_t value) noexcept nogil:
        if 0 <= value < self.split_map_len:
            return self.split_map[value]
        return self.default_split


cdef extern from "maltpy/simd.h":
    void prefetch "MALTPY_PREFETCH"(const void* p) nogil


cdef extern from *:
    """
    /* a dense weight row added over the runs of permissible classes; compiled twice where
       the compiler can choose at load time (AVX2 adds 8 floats at once, SSE2 4): the sums
       are the same, element by element */
    MALTPY_CLONES
    static void maltpy_add_runs(float* scores, const float* w, const int* lo, const int* hi, int n) {
        for (int r = 0; r < n; r++)
            for (int c = lo[r]; c < hi[r]; c++)
                scores[c] += w[c];
    }
    """
    void add_runs "maltpy_add_runs"(float* scores, const float* w, const int* lo, const int* hi, int n) nogil


cdef extern from *:
    """
    /* the first class of the highest score over the runs of permissible classes (what a scan
       that keeps the first of equal scores finds): the maximum, then the first class that has
       it, four classes at a time where SSE2 is there (every x86-64); without a branch per class
       that a new maximum mispredicts. A NaN score (never from finite weights) cannot make it
       return a class outside the runs. -1 when the runs are empty. */
    #include <math.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static int maltpy_argmax_runs(const float* s, const int* lo, const int* hi, int n) {
        float m = -INFINITY;
        int r, c;
    #if defined(__SSE2__)
        __m128 vm = _mm_set1_ps(-INFINITY);
        float part[4];
        for (r = 0; r < n; r++) {
            for (c = lo[r]; c + 4 <= hi[r]; c += 4)
                vm = _mm_max_ps(vm, _mm_loadu_ps(s + c));
            for (; c < hi[r]; c++)
                if (s[c] > m) m = s[c];
        }
        _mm_storeu_ps(part, vm);
        for (c = 0; c < 4; c++)
            if (part[c] > m) m = part[c];
        vm = _mm_set1_ps(m);
        for (r = 0; r < n; r++) {
            for (c = lo[r]; c + 4 <= hi[r]; c += 4) {
                int hit = _mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(s + c), vm));
                if (hit) return c + __builtin_ctz(hit);
            }
            for (; c < hi[r]; c++)
                if (s[c] == m) return c;
        }
    #else
        for (r = 0; r < n; r++)
            for (c = lo[r]; c < hi[r]; c++)
                if (s[c] > m) m = s[c];
        for (r = 0; r < n; r++)
            for (c = lo[r]; c < hi[r]; c++)
                if (s[c] == m) return c;
    #endif
        for (r = 0; r < n; r++)
            if (lo[r] < hi[r]) return lo[r];
        return -1;
    }
    """
    int argmax_runs "maltpy_argmax_runs"(const float* scores, const int* lo, const int* hi, int n) nogil


cdef extern from *:
    """
    /* how many classes over the runs score at least t: a loop the compiler vectorises, compiled
       for AVX2 and the baseline where it can choose at load time (MALTPY_CLONES) */
    MALTPY_CLONES
    static int maltpy_count_at_least(const float* s, const int* lo, const int* hi, int n, float t) {
        int r, c, count = 0;
        for (r = 0; r < n; r++)
            for (c = lo[r]; c < hi[r]; c++)
                count += s[c] >= t;
        return count;
    }
    """
    int count_at_least "maltpy_count_at_least"(const float* scores, const int* lo, const int* hi, int n,
                                               float t) nogil


cdef enum:
    SLOT_EMPTY = -2
    SLOT_DENSE = -1


cdef struct WSlot:
    # one slot of a split model's hash table: a feature key and where its weights are
    uint64_t key
    int32_t start     # sparse row: its first entry; dense row: its index among the dense rows
    int32_t count     # sparse row: its entries; SLOT_DENSE; SLOT_EMPTY


cdef struct WEntry:
    int32_t cls
    float w


cdef struct WSplit:
    WSlot* slots
    uint64_t mask
    WEntry* entries
    float* dense
    float* bias
    # what float32 rounding left of each weight (w - float(w)), parallel to entries and dense;
    # NULL when the model has none (a learner that trains in float32)
    float* entries_low
    float* dense_low


@cython.final
cdef inline const WSlot* find_slot(const WSplit* m, uint64_t key, const WSlot* slot) noexcept nogil:
    """The slot of ``key`` in split model ``m``'s table, probing from ``slot`` (its home slot),
    or NULL when the model has no weights for it."""
    cdef uint64_t h = <uint64_t>(slot - m.slots)
    while slot.count != SLOT_EMPTY and slot.key != key:
        h = (h + 1) & m.mask
        slot = &m.slots[h]
    return NULL if slot.count == SLOT_EMPTY else slot


cdef class Weights(SplitModels):
    cdef int n_classes
    cdef WSplit* split
    cdef list _keep
    #: some split model keeps its weights' low parts (float64-trained): near ties are settled in double
    cdef readonly bint exact_ties

    cdef int exact_best(self, int sp, const uint64_t* keys, int nk, const float* scores, float floor,
                        const int* run_lo, const int* run_end, int n_runs, int best, double* exact) noexcept nogil

    cdef inline void score(self, int sp, const uint64_t* keys, int nk, const WSlot** found, float* scores,
                           const int* run_lo, const int* run_end, int n_runs, bint from_bias=True) noexcept nogil:
        """``scores`` = bias + the weights of the features ``keys`` (in their order) under split
        model ``sp``, exact for the permissible classes (the runs), unspecified for the others.
        ``from_bias`` False: the weights are added to ``scores`` as they are.

        The table look-ups miss the cache; they are issued for every key before any is
        used (``found``: room for nk slots), so that the misses overlap."""
        cdef const WSplit* m = &self.split[sp]
        cdef const WSlot* slot
        cdef const WEntry* e
        cdef const float* w
        cdef int i, r, c, j
        for i in range(nk):
            found[i] = &m.slots[mix64(keys[i]) & m.mask]
            prefetch(found[i])
        for i in range(nk):
            slot = found[i] = find_slot(m, keys[i], found[i])
            if slot != NULL:
                # the row's cache lines that will be read: a dense row's permissible runs
                if slot.count == SLOT_DENSE:
                    w = m.dense + <Py_ssize_t>slot.start * self.n_classes
                    for r in range(n_runs):
                        for c in range(run_lo[r], run_end[r], 16):
                            prefetch(w + c)
                        prefetch(w + run_end[r] - 1)
                else:
                    for j in range(0, slot.count, 8):
                        prefetch(m.entries + slot.start + j)
        if from_bias:
            memcpy(scores, m.bias, sizeof(float) * self.n_classes)
        for i in range(nk):
            slot = found[i]
            if slot == NULL:
                continue
            if slot.count == SLOT_DENSE:
                add_runs(scores, m.dense + <Py_ssize_t>slot.start * self.n_classes, run_lo, run_end, n_runs)
            else:
                e = m.entries + slot.start
                for j in range(slot.count):
                    scores[e[j].cls] += e[j].w


cdef class Corpus:
    cdef readonly object offsets, tok, ints, rag_off, rag_ids
    cdef int64_t* off_p
    cdef int* tok_p
    cdef int* ints_p
    cdef int* rag_off_p
    cdef int* rag_ids_p
    cdef readonly int n_tok, n_int, n_rag
    cdef readonly Py_ssize_t n_rows, n_sentences
    cdef int max_n

    cdef inline void sentence(self, Py_ssize_t k, Sent* sent) noexcept nogil:
        cdef int64_t r0 = self.off_p[k]
        sent.n = <int>(self.off_p[k + 1] - r0 - 1)
        sent.tok = self.tok_p + r0 * self.n_tok
        sent.ints = self.ints_p + r0 * self.n_int
        sent.rag_off = self.rag_off_p + r0
        sent.rag_stride = <int>(self.n_rows + 1)
        sent.rag_ids = self.rag_ids_p


cdef inline int max_transitions(int n) noexcept nogil:
    """A bound no system reaches on n words: a loop that gets there is cut off, not hung."""
    return 4 * (n + 1) * (n + 2) + 16


cdef inline bint start_training_sentence(TransitionSystem system, Corpus corpus, Py_ssize_t k, State* s,
                                         Sent* sent, Gold* g, const int* gold_heads,
                                         const int* gold_labels) noexcept nogil:
    """Sentence k's initial configuration and gold tree (from the corpus-row gold arrays), for the
    training loops; False when memory runs out."""
    cdef int64_t r0 = corpus.off_p[k]
    corpus.sentence(k, sent)
    s.n = sent.n
    state_reset(s)
    if not gold_alloc(g, gold_heads + r0, gold_labels + r0, sent.n):
        return False
    system.prepare_gold(g, sent.n)
    system.init_state(s)
    return True


cdef inline int training_decision(TransitionSystem system, State* s, bint* mask) noexcept nogil:
    """Before a training decision: -1 when no move is permissible (stop the sentence); 0 when the
    system's deterministic move was applied instead (MaltParser records no instance for it, but
    does for every other decision, even when only one move is permissible); 1 when ``mask`` now
    holds the permissible moves of a decision to learn from."""
    if system.valid_moves(s, mask) == 0:
        return -1
    cdef int only = system.deterministic_move(s)
    if only >= 0 and mask[only]:
        system.apply(s, only, -1)
        return 0
    return 1


cdef inline int oracle_move(TransitionSystem system, ClassTable classes, const State* s, const Gold* g,
                            const bint* mask, int* label) noexcept nogil:
    """The static oracle's move (and label), or the first permissible move when the oracle has no
    permissible answer (a non-projective gold tree for a projective system)."""
    cdef int move = system.oracle(s, g, label)
    if move < 0 or not mask[move] or (classes.labeled[move] and label[0] < 0):
        move = 0
        while not mask[move]:
            move += 1
        label[0] = 0
    return move


cdef inline int best_class(ClassTable classes, const bint* mask, const float* scores) noexcept nogil:
    """The highest-scoring class of a permissible move (the first one on a tie), -1 if none."""
    cdef int m, c, best = -1
    cdef float best_score = 0
    for m in range(classes.n_moves):
        if mask[m]:
            for c in range(classes.first[m], classes.end[m]):
                if best < 0 or scores[c] > best_score:
                    best = c
                    best_score = scores[c]
    return best


cdef inline int forced_move(ClassTable classes, const bint* mask, int n_valid) noexcept nogil:
    """The move to apply without asking the classifier: the only permissible one, if unlabeled."""
    cdef int m = 0
    if n_valid != 1:
        return -1
    while not mask[m]:
        m += 1
    return -1 if classes.labeled[m] else m


cdef inline void record_stack(const State* s, signed char* out) noexcept nogil:
    """Mark the words on the stack: 1 without a head (left fragmented), 2 with one."""
    cdef int i, w
    for i in range(s.stack_len):
        w = s.stack[i]
        if w > 0:
            out[w] = 1 if s.heads[w] == -1 else 2
