# cython: language_level=3
"""The parse-time weight table: a linear model per split, rows found by open addressing."""
cimport cython
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memcpy
from maltpy.features.featmap cimport mix64
from maltpy.search.decision cimport Scorer, prefetch


cdef extern from "maltpy/search/table.h":
    enum:
        SLOT_EMPTY "MP_SLOT_EMPTY"
        SLOT_DENSE "MP_SLOT_DENSE"
    # one slot of a split model's hash table: a feature key and where its weights are
    ctypedef struct WSlot "mp_slot":
        uint64_t key
        int32_t start     # sparse row: its first entry; dense row: its index among the dense rows
        int32_t count     # sparse row: its entries; SLOT_DENSE; SLOT_EMPTY
    ctypedef struct WEntry "mp_entry":
        int32_t cls
        float w
    # the rows found (NULL: none) added to the scores in their order, every class in [lo, hi)
    # tests: the narrow (0) or the wide (1) version of add_rows where both run; whether the wide runs
    int set_wide_tiles "maltpy_set_wide_tiles"(int wide) nogil
    void add_rows "maltpy_add_rows"(float* scores, const WSlot** found, int nk, const float* dense, int stride,
                                    const WEntry* entries, int lo, int hi) nogil


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
    #: floats per dense row: the classes rounded up to a multiple of 8 (padded_classes)
    cdef int stride

    cdef inline void add_inline(self, int sp, const uint64_t* keys, int nk, const WSlot** found, float* scores,
                                const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil:
        """``scores`` = bias + the weights of the features ``keys`` (in their order) under split
        model ``sp``, exact for the permissible classes (the runs), unspecified for the others
        (the 8-class blocks from the first permissible class to the last are added: ``scores``
        has room for padded_classes(n_classes) floats, the padding zero). ``from_bias`` False: the
        weights are added to ``scores`` as they are.

        The table look-ups miss the cache; they are issued for every key before any is
        used (``found``: room for nk slots), so that the misses overlap."""
        cdef const WSplit* m = &self.split[sp]
        cdef const WSlot* slot
        cdef const WEntry* e
        cdef const float* w
        cdef int i, c, lo = self.n_classes, hi = 0
        if n_runs <= 0:
            return
        for i in range(n_runs):     # the classes from the first permissible to the last
            if run_lo[i] < run_end[i]:
                lo = min(lo, run_lo[i])
                hi = max(hi, run_end[i])
        if lo >= hi:
            return
        for i in range(nk):
            found[i] = &m.slots[mix64(keys[i]) & m.mask]
            prefetch(found[i])
        for i in range(nk):
            slot = found[i] = find_slot(m, keys[i], found[i])
            if slot != NULL:
                # the row's cache lines that will be read
                if slot.count == SLOT_DENSE:
                    w = m.dense + <Py_ssize_t>slot.start * self.stride
                    for c in range(lo & ~15, hi, 16):
                        prefetch(w + c)
                else:
                    e = m.entries + slot.start
                    for c in range(0, slot.count, 8):
                        prefetch(e + c)
        if from_bias:
            memcpy(scores, m.bias, sizeof(float) * self.n_classes)
        add_rows(scores, found, nk, m.dense, self.stride, m.entries, lo, hi)
