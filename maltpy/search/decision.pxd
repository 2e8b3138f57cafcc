# cython: language_level=3
"""What one decision is made of: the permissible classes as runs (of a
:class:`~maltpy.systems.classes.ClassTable`), the features, the scores, and the interface every
scorer serves (Scorer)."""
cimport cython
from libc.stdint cimport int64_t, int32_t, uint64_t
from maltpy.systems.state cimport MAX_MOVES, State
from maltpy.features.extract cimport Sent
from maltpy.systems.classes cimport ClassTable
from maltpy.features.corpus cimport Corpus
from maltpy.simd cimport prefetch


cdef struct Decision:
    # one decision of the classifier: filled by the step (maltpy.search.step), scored by a Scorer
    int n_valid
    bint mask[MAX_MOVES]     # the permissible moves
    int run_lo[MAX_MOVES]    # the permissible classes: runs run_lo[r] .. run_end[r]-1
    int run_end[MAX_MOVES]
    int n_runs
    uint64_t* keys           # the features' keys (room for the extractor's max_keys + 1)
    int nk
    bint complete            # keys holds all the decision's features (else: unspecified)
    int64_t split_value      # the data-split feature's value (0 without a split)
    int split                # the split model that scores the decision
    float* scores            # one per class: exact over the runs once scored
    const void** found       # scratch of max_keys + 1 pointers for the scorer's table look-ups
    int* nodes               # the extractor's scratch: addresses and atom values
    int64_t* values


cdef class Scorer:
    """The interface of everything that scores decisions: the parse-time weight table
    (maltpy.search.weights), the trainable weights (maltpy.search.trainable) and kernel models
    (maltpy.search.kernel). A scorer holds one model per data-split value (-d/-s/-T)."""
    cdef int n_splits
    cdef int* split_map
    cdef int split_map_len
    cdef int default_split
    cdef object _split_map_array
    cdef readonly int n_classes
    #: scores are a bias plus one row per feature key: add() and bias_of() are served, and a
    #: step may keep partial sums
    cdef readonly bint linear
    #: scoring many decisions at once (score_many) pays: a strategy should batch
    cdef readonly bint batched
    #: float32 scores may misorder near ties that the model's own arithmetic separates:
    #: near_tie_floor() and settle() are served
    cdef readonly bint near_ties

    cdef set_split_map(self, split_map, int default_split)

    cdef inline int split_of(self, int64_t value) noexcept nogil:
        if 0 <= value < self.split_map_len:
            return self.split_map[value]
        return self.default_split

    cdef void score(self, Decision* d) noexcept nogil
    cdef void* work_new(self, int n_threads, int batch) noexcept nogil
    cdef void work_free(self, void* work) noexcept nogil
    cdef void score_many(self, Decision** ds, int n, int n_threads, void* work) noexcept nogil
    cdef void add(self, int sp, const uint64_t* keys, int nk, const void** found, float* scores,
                  const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil
    cdef const float* bias_of(self, int sp) noexcept nogil
    cdef float near_tie_floor(self, float top, int n_terms) noexcept nogil
    cdef int settle(self, int sp, const uint64_t* keys, int nk, const float* scores, float floor,
                    const int* run_lo, const int* run_end, int n_runs, int best, double* exact) noexcept nogil



cdef extern from "maltpy/scores.h":
    # a dense weight row added over the runs of permissible classes
    void add_runs "maltpy_add_runs"(float* scores, const float* w, const int* lo, const int* hi, int n) nogil
    # THE arg-max of every search: the first class of the highest score over the runs (-1: none)
    int argmax_runs "maltpy_argmax_runs"(const float* scores, const int* lo, const int* hi, int n) nogil
    # the highest score over the runs (-INFINITY: none)
    float max_runs "maltpy_max_runs"(const float* scores, const int* lo, const int* hi, int n) nogil
    # the classes over the runs that score at least t, ascending, into out; how many
    int classes_at_least "maltpy_classes_at_least"(const float* scores, const int* lo, const int* hi, int n,
                                                   float t, int* out) nogil
    # how many classes over the runs score at least t
    int count_at_least "maltpy_count_at_least"(const float* scores, const int* lo, const int* hi, int n,
                                               float t) nogil


cdef inline int padded_classes(int n_classes) noexcept nogil:
    """The room a decision's scores take: the classes rounded up to a multiple of 8, so that the
    parse-time table adds its dense rows 8 classes at a time (the padding stays zero)."""
    return (n_classes + 7) & ~7


cdef inline int64_t max_transitions(int n) noexcept nogil:
    """A bound no system reaches on n words: a loop that gets there is cut off, not hung.
    Quadratic in n, so 64-bit: in C int it wrapped past 23,168 words and the loop never ran."""
    return 4 * (<int64_t>n + 1) * (<int64_t>n + 2) + 16
