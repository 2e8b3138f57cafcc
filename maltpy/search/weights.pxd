# cython: language_level=3
"""The parse-time weight table: a linear model per split, rows found by open addressing."""
cimport cython
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memcpy
from maltpy.features.featmap cimport mix64
from maltpy.search.decision cimport Scorer, add_runs, prefetch


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


@cython.final
cdef class Weights(Scorer):
    cdef WSplit* split
    cdef list _keep

    cdef inline void add_inline(self, int sp, const uint64_t* keys, int nk, const WSlot** found, float* scores,
                                const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil:
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
