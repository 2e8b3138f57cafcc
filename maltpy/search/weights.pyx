# cython: language_level=3
"""The parse-time weight table (:class:`Weights`): per split model, feature key -> its weight for
each class, found by open addressing; the scorer of every linear model (LIBLINEAR, perceptron)."""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, free
from libc.stdint cimport uint64_t, int32_t, int64_t
from libc.math cimport fabs, INFINITY
from libc.float cimport FLT_EPSILON

from maltpy.features.featmap cimport mix64
from maltpy.search.decision cimport padded_classes, prefetch

cnp.import_array()


#: a weight row with more than this share of the classes is stored dense
DENSE_ROW = 0.125
#: rows ahead whose slot loading asks for while it fills the table
cdef enum:
    PREFETCH_AHEAD = 16


def _set_wide_tiles(bint wide):
    """Tests: this module's row sums (:meth:`Weights.scores`) by the AVX-512 version (True, where
    the processor has it) or the narrow one (False); returns whether the wide version now runs."""
    return bool(set_wide_tiles(wide))


def sparse_rows(W):
    """A dense (rows x classes) weight matrix as its non-zero entries per row:
    (indptr int64, class int32, weight float32, low part float32 or None), rows in order, classes
    ascending. The low part is what rounding a float64 matrix to float32 left of each weight
    (None for a float32 matrix): the parse loop scores in float32 and settles near ties with
    both parts, in double, as MaltParser's double weights would (:meth:`Weights.settle`)."""
    W = np.asarray(W)
    W32 = W.astype(np.float32)
    rows, cols = np.nonzero(W32)
    indptr = np.zeros(W.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=W.shape[0]), out=indptr[1:])
    high = W32[rows, cols]
    if W.dtype != np.float64:
        return indptr, cols.astype(np.int32), high, None
    low = (W[rows, cols] - high).astype(np.float32)
    return indptr, cols.astype(np.int32), high, (low if low.any() else None)


@cython.final
cdef class Weights(Scorer):
    """Per-split weight tables: feature key -> its weight for each class.

    A row with weight for many classes is kept dense and added over the permissible
    classes (vectorised); the others, most rows, as (class, weight) entries. Both give
    the same sums bit for bit as dense rows would, since each class receives the same
    additions in the same order. Key, position and length of a row share one hash slot,
    so that a feature costs one cache miss before its weights."""

    def __cinit__(self, list models, split_map, int default_split, int n_classes):
        """``models``: list of (feature keys (row i's key is keys[i]), weights, bias[n_classes] float32), the weights
        either a dense float32 (rows x n_classes) matrix or :func:`sparse_rows` of one."""
        self.n_splits = len(models)
        self.n_classes = n_classes
        self.stride = padded_classes(n_classes)
        self._keep = []
        self.linear = True
        self.split = <WSplit*>calloc(max(self.n_splits, 1), sizeof(WSplit))
        if self.split == NULL:
            raise MemoryError()
        cdef cnp.ndarray slots, entries, dense, b, entries_low, dense_low
        for k, (keys_obj, w_obj, b_obj) in enumerate(models):
            keys = np.ascontiguousarray(keys_obj, dtype=np.uint64)
            if isinstance(w_obj, tuple):
                indptr = np.ascontiguousarray(w_obj[0], dtype=np.int64)
                cols, w = w_obj[1], w_obj[2]
                low = np.ascontiguousarray(w_obj[3], dtype=np.float32) \
                    if len(w_obj) > 3 and w_obj[3] is not None else None
            else:
                if np.ndim(w_obj) != 2 or np.shape(w_obj)[1] != n_classes:
                    raise ValueError("weight matrix shape does not match the model")
                indptr, cols, w, low = sparse_rows(w_obj)
            if len(cols) != len(w):
                raise ValueError("sparse weight rows are inconsistent")
            # the (class, weight) records as a model file's loading read them (the classes and
            # weights handed on as views of them): a rich model's are tens of megabytes, not
            # copied again
            entries = _shared_entries(cols, w)
            if entries is None:
                entries = row_entries(cols, w)
            n_rows = len(indptr) - 1
            n_entries = len(cols)
            b = np.ascontiguousarray(b_obj, dtype=np.float32)
            if n_rows != len(keys) or b.ndim != 1 or b.shape[0] != n_classes:
                raise ValueError("weight matrix shape does not match the model")
            if n_entries >= 2 ** 31:
                raise ValueError("too many weights in one split model")
            if low is not None and len(low) != n_entries:
                raise ValueError("sparse weight rows are inconsistent")
            if not _classes_below(entries, n_entries, n_classes):
                raise ValueError("sparse weight rows are inconsistent")
            slots, dense_rows = _slot_table(keys, indptr, n_entries, <int>(DENSE_ROW * n_classes))
            # the rows of the most frequent feature values, dense
            dense = _aligned_rows(max(len(dense_rows), 1), self.stride)
            _fill_dense(dense, entries, indptr, dense_rows, None)
            dense_low = None
            if low is not None:
                dense_low = _aligned_rows(max(len(dense_rows), 1), self.stride)
                _fill_dense(dense_low, entries, indptr, dense_rows, low)
            entries_low = low     # parallel to the entries as it is (None, or as many as they)
            self._keep.append((slots, entries, dense, b, entries_low, dense_low))
            self.split[k].slots = <WSlot*>cnp.PyArray_DATA(slots)
            self.split[k].mask = len(slots) - 1
            self.split[k].entries = <WEntry*>cnp.PyArray_DATA(entries)
            self.split[k].dense = <float*>cnp.PyArray_DATA(dense)
            self.split[k].bias = <float*>cnp.PyArray_DATA(b)
            self.split[k].entries_low = <float*>cnp.PyArray_DATA(entries_low) if low is not None else NULL
            self.split[k].dense_low = <float*>cnp.PyArray_DATA(dense_low) if low is not None else NULL
            self.near_ties = self.near_ties or low is not None
        self.set_split_map(split_map, default_split)

    def __dealloc__(self):
        free(self.split)

    def scores(self, keys, int split=0, runs=None):
        """The scores under split model ``split`` for a decision with these feature keys (in
        this order): bias + their rows, float32, as the parse loops add them, exact for the
        classes of ``runs`` (ascending (first, end) pairs; default: every class), the others
        unspecified (tests, inspection)."""
        if not 0 <= split < self.n_splits:
            raise ValueError(f"split model {split} is not one of the {self.n_splits}")
        runs = [(0, self.n_classes)] if runs is None else list(runs)
        if not runs or any(not 0 <= a < b <= self.n_classes for a, b in runs):
            raise ValueError(f"runs must be non-empty ranges of the {self.n_classes} classes")
        lo_np = np.array([a for a, _ in runs], dtype=np.int32)
        end_np = np.array([b for _, b in runs], dtype=np.int32)
        cdef int[::1] lo = lo_np
        cdef int[::1] end = end_np
        cdef uint64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.uint64)
        cdef Py_ssize_t nk = kv.shape[0]
        out = np.zeros(padded_classes(self.n_classes + 1), dtype=np.float32)
        found = np.zeros(max(nk, 1), dtype=np.uintp)
        cdef float[::1] ov = out
        cdef size_t[::1] fv = found
        self.add_inline(split, &kv[0] if nk else NULL, <int>nk, <const WSlot**>&fv[0], &ov[0], &lo[0], &end[0],
                        <int>len(runs), True)
        return out[:self.n_classes].copy()

    cdef void add(self, int sp, const uint64_t* keys, int nk, const void** found, float* scores,
                  const int* run_lo, const int* run_end, int n_runs, bint from_bias) noexcept nogil:
        self.add_inline(sp, keys, nk, <const WSlot**>found, scores, run_lo, run_end, n_runs, from_bias)

    cdef const float* bias_of(self, int sp) noexcept nogil:
        return self.split[sp].bias

    cdef float near_tie_floor(self, float top, int n_terms) noexcept nogil:
        return tie_floor(top, n_terms)

    cdef int settle(self, int sp, const uint64_t* keys, int nk, const float* scores, float floor,
                    const int* run_lo, const int* run_end, int n_runs, int best, double* exact) noexcept nogil:
        """The permissible class with the highest score in double precision, among those whose
        float32 score (``scores``, from :meth:`score`) is at least ``floor`` (the best one's less
        float32's rounding, :func:`tie_floor`): MaltParser's LIBLINEAR scores with double weights,
        so where float32 sums tie or nearly tie, its choice is the double sums' (the first class
        of equal ones). The weights are their float32 part plus the low part the model keeps;
        ``keys``: all the decision's features."""
        cdef const WSplit* m = &self.split[sp]
        cdef int r, c, i, j
        cdef const WSlot* slot
        cdef const WEntry* e
        cdef const float* w
        cdef const float* wl
        for c in range(self.n_classes):
            exact[c] = -INFINITY
        for r in range(n_runs):
            for c in range(run_lo[r], run_end[r]):
                if scores[c] >= floor:
                    exact[c] = m.bias[c]
        for i in range(nk):
            slot = find_slot(m, keys[i], &m.slots[mix64(keys[i]) & m.mask])
            if slot == NULL:
                continue
            if slot.count == SLOT_DENSE:
                w = m.dense + <Py_ssize_t>slot.start * self.stride
                wl = m.dense_low + <Py_ssize_t>slot.start * self.stride if m.dense_low != NULL else NULL
                for c in range(self.n_classes):
                    if exact[c] != -INFINITY:
                        exact[c] += <double>w[c] + (<double>wl[c] if wl != NULL else 0.0)
            else:
                e = m.entries + slot.start
                for j in range(slot.count):
                    if exact[e[j].cls] != -INFINITY:
                        exact[e[j].cls] += <double>e[j].w + (
                            <double>m.entries_low[slot.start + j] if m.entries_low != NULL else 0.0)
        for r in range(n_runs):
            for c in range(run_lo[r], run_end[r]):
                if exact[c] > exact[best] or (exact[c] == exact[best] and c < best):
                    best = c
        return best


cdef inline float tie_floor(float top, int n_terms) noexcept nogil:
    """The lowest float32 sum of ``n_terms`` weights that double sums could still put above a
    float32 sum of ``top``: each addition rounds by at most 2^-24 of a partial sum (generously
    bounded)."""
    return <float>(top - 8.0 * (n_terms + 1) * FLT_EPSILON * (1.0 + fabs(top)))


def _aligned_rows(Py_ssize_t n_rows, Py_ssize_t stride):
    """A zeroed float32 (n_rows x stride) array that starts on a 64-byte cache line, so that a row
    of a multiple of 16 floats spans no more lines than it fills."""
    raw = np.zeros(n_rows * stride + 16, dtype=np.float32)
    skip = (-raw.__array_interface__["data"][0] % 64) // 4
    return raw[skip:skip + n_rows * stride].reshape(n_rows, stride)


ENTRY = np.dtype([("cls", np.int32), ("w", np.float32)])


def row_entries(cols, vals):
    """The (class, weight) records of :class:`Weights`' sparse rows, from the classes and weights
    of :func:`sparse_rows` (at least one record: an empty model still has a table)."""
    entries = np.empty(max(len(cols), 1), dtype=ENTRY)
    if len(cols):
        entries["cls"] = cols
        entries["w"] = vals
    else:
        entries[0] = (0, 0.0)
    return entries


def _shared_entries(cols, vals):
    """The :func:`row_entries` array that ``cols`` and ``vals`` are the two fields of, or None."""
    base = getattr(cols, "base", None)
    if isinstance(base, np.ndarray) and getattr(vals, "base", None) is base and base.dtype == ENTRY \
            and base.ndim == 1 and base.flags.c_contiguous and len(base) == max(len(cols), 1) \
            and len(cols) == len(vals) and cols.strides == vals.strides == (ENTRY.itemsize,) \
            and cols.__array_interface__["data"][0] == base.__array_interface__["data"][0] \
            and vals.__array_interface__["data"][0] == base.__array_interface__["data"][0] + 4:
        return base
    return None


def _classes_below(entries, Py_ssize_t n, int n_classes):
    """Whether the first ``n`` (class, weight) records all have a class in 0 .. n_classes - 1."""
    cdef const WEntry* e = <const WEntry*>cnp.PyArray_DATA(entries)
    cdef Py_ssize_t i
    cdef int bad = 0
    if n > len(entries):
        return False
    with nogil:
        for i in range(n):
            bad |= (e[i].cls < 0) | (e[i].cls >= n_classes)
    return not bad


def _fill_dense(float[:, ::1] dense, entries, const int64_t[::1] indptr, const int64_t[::1] dense_rows, low):
    """Write the sparse rows ``dense_rows`` (their records: ``entries``, classes checked) into the
    rows of ``dense``, in order: their weights, or with ``low`` the low parts of them."""
    cdef const WEntry* e = <const WEntry*>cnp.PyArray_DATA(entries)
    cdef const float[::1] lv = low if low is not None else np.zeros(1, dtype=np.float32)
    cdef bint lows = low is not None
    cdef Py_ssize_t j, k, row
    with nogil:
        for j in range(dense_rows.shape[0]):
            row = dense_rows[j]
            for k in range(indptr[row], indptr[row + 1]):
                dense[j, e[k].cls] = lv[k] if lows else e[k].w


def _slot_table(const uint64_t[::1] keys, const int64_t[::1] indptr, int64_t n_entries, int dense_above):
    """The open-addressing table of :class:`Weights` (load at most one half), as WSlot records, and
    the rows kept dense (more than ``dense_above`` entries), in order. ``indptr``: each row's
    entries, checked here (rising from 0 to ``n_entries``)."""
    cdef Py_ssize_t n = keys.shape[0], cap = 16, i, n_dense = 0
    cdef int64_t cnt
    if indptr.shape[0] != n + 1 or indptr[0] != 0 or indptr[n] != n_entries:
        raise ValueError("sparse weight rows are inconsistent")
    with nogil:
        for i in range(n):
            cnt = indptr[i + 1] - indptr[i]
            if cnt < 0:
                with gil:
                    raise ValueError("sparse weight rows are inconsistent")
            n_dense += cnt > dense_above
    dense_rows = np.empty(n_dense, dtype=np.int64)
    cdef int64_t[::1] dr = dense_rows
    while cap < 2 * n + 2:
        cap *= 2
    table = np.empty(cap, dtype=[("key", np.uint64), ("start", np.int32), ("count", np.int32)])
    cdef WSlot* slots = <WSlot*>cnp.PyArray_DATA(table)
    cdef uint64_t mask = cap - 1, h
    n_dense = 0
    with nogil:
        for i in range(cap):
            slots[i].key = 0
            slots[i].start = 0
            slots[i].count = SLOT_EMPTY
        for i in range(n):
            if i + PREFETCH_AHEAD < n:      # the writes land at random in tens of megabytes
                prefetch(&slots[mix64(keys[i + PREFETCH_AHEAD]) & mask])
            h = mix64(keys[i]) & mask
            while slots[h].count != SLOT_EMPTY:
                if slots[h].key == keys[i]:
                    with gil:
                        raise ValueError("feature keys are not distinct: the model file is corrupt")
                h = (h + 1) & mask
            slots[h].key = keys[i]
            cnt = indptr[i + 1] - indptr[i]
            if cnt > dense_above:
                dr[n_dense] = i
                slots[h].start = <int32_t>n_dense
                slots[h].count = SLOT_DENSE
                n_dense += 1
            else:
                slots[h].start = <int32_t>indptr[i]
                slots[h].count = <int32_t>cnt
    return table, dense_rows
