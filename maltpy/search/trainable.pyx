# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Trainable weights: the perceptron's weights while it learns inside the transition loop
(:mod:`maltpy.search.online`), a scorer like the parse-time table.

A feature key gets a row id from a :class:`~maltpy.features.featmap.FeatMap` the first time it
is scored (or, with a closed map, only if the map has it: a frequency cut-off). A row holds an
entry only for the classes whose weight an update ever touched: its class, the current weight
and, for the average over all steps, the sum of step x change (the averaged perceptron's usual
trick: the average is w - u / t). Memory grows with the (feature, class) pairs that were ever
updated, not with features x classes. Rows live in one arena: a row that fills up moves to twice
its room at the arena's end (the room it leaves is not reused; at most the arena's half).

Scores are the bias plus each row's entries, in key order: the sums a dense row would give bit
for bit, since the classes a row lacks would add zero. The rows change after every mistake, so a
step keeps no partial sums of them (``linear`` is False: :meth:`score` is its own).
"""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from maltpy.features.featmap cimport mix64
from maltpy.search.decision cimport Decision, prefetch

cnp.import_array()


cdef bint grow(void** data, int64_t* cap, int64_t n, size_t item, int64_t first) noexcept nogil:
    """Room for ``n`` items of ``item`` bytes in ``*data`` (``*cap`` of them so far): doubled from
    ``first`` until it fits, the new room zeroed; False when memory runs out (nothing changed)."""
    cdef int64_t room = cap[0] if cap[0] else first
    cdef char* grown
    if n <= cap[0]:
        return True
    while room < n:
        room *= 2
    grown = <char*>realloc(data[0], item * room)
    if grown == NULL:
        return False
    memset(grown + item * cap[0], 0, item * (room - cap[0]))
    data[0] = grown
    cap[0] = room
    return True


@cython.final
cdef class TrainableWeights(Scorer):
    """Weights of ``n_classes`` classes over the keys of ``fmap``; one split model. ``max_keys``:
    the most features a decision has. ``grow`` False: keys the map lacks get no weights (the
    map holds the features that passed a frequency cut-off)."""

    def __cinit__(self, FeatMap fmap, int n_classes, int max_keys, bint grow=True):
        self.fmap = fmap
        self.grow = grow
        self.n_classes = n_classes
        self.n_splits = 1
        self.set_split_map(np.zeros(0, dtype=np.int32), 0)
        self.room = max_keys + 1
        self.bw = <float*>calloc(max(n_classes, 1), sizeof(float))
        self.bu = <double*>calloc(max(n_classes, 1), sizeof(double))
        self.ids = <int32_t*>malloc(sizeof(int32_t) * self.room)
        if self.bw == NULL or self.bu == NULL or self.ids == NULL or not self.reserve_rows(1024) \
                or not self.reserve_entries(4096):
            raise MemoryError()

    def __dealloc__(self):
        free(self.bw)
        free(self.bu)
        free(self.ids)
        free(self.rows)
        free(self.arena)

    cdef bint reserve_rows(self, Py_ssize_t n) noexcept nogil:
        """Room for row ids below n (new rows are empty)."""
        return grow(<void**>&self.rows, &self.rows_cap, n, sizeof(Row), 1024)

    cdef bint reserve_entries(self, int64_t n) noexcept nogil:
        """Room for n entries in the arena."""
        return grow(<void**>&self.arena, &self.arena_cap, n, sizeof(Entry), 4096)

    cdef inline int64_t entry(self, int32_t f, int c) noexcept nogil:
        """The arena index of row f's entry for class c, made (zero) where missing; -1 when
        memory runs out."""
        cdef Row* row = &self.rows[f]
        cdef int64_t j, start = row.start, new_start
        cdef int32_t room
        for j in range(start, start + row.n):
            if self.arena[j].cls == c:
                return j
        if row.n == row.cap:     # full: move the row to twice its room at the arena's end
            room = 2 * row.n if row.n else 2
            new_start = self.arena_used
            if not self.reserve_entries(new_start + room):
                return -1
            memcpy(self.arena + new_start, self.arena + start, sizeof(Entry) * row.n)
            self.arena_used += room
            row.start = start = new_start
            row.cap = room
        j = start + row.n
        self.arena[j].cls = c
        self.arena[j].w = 0
        self.arena[j].u = 0
        row.n += 1
        self.n_entries += 1
        return j

    cdef void score(self, Decision* d) noexcept nogil:
        """Bias + the rows of d's keys (made where new; with ``read_only`` none is made and
        nothing is kept, so threads may score at once), over every class. The look-ups miss the
        cache (a map of millions of keys): each stage is asked for ahead for every key."""
        cdef int i, i0, m, n = d.nk if d.nk < self.room else self.room
        cdef int32_t f
        cdef int32_t local_ids[256]
        cdef int64_t j, end
        cdef const Row* row
        cdef uint64_t mask = self.fmap.cap - 1, h
        memcpy(d.scores, self.bw, sizeof(float) * self.n_classes)
        for i in range(n):
            h = mix64(d.keys[i]) & mask
            prefetch(&self.fmap.keys[h])
            prefetch(&self.fmap.vals[h])
        if self.read_only:
            # no rows made, nothing kept: a key without a row has no weights to add (only
            # updates make them), so the sums are the same
            for i0 in range(0, n, 256):
                m = 0
                for i in range(i0, min(n, i0 + 256)):
                    f = self.fmap.get(d.keys[i])
                    if 0 <= f < self.rows_cap:
                        local_ids[m] = f
                        m += 1
                        prefetch(&self.rows[f])
                for i in range(m):
                    prefetch(&self.arena[self.rows[local_ids[i]].start])
                for i in range(m):
                    row = &self.rows[local_ids[i]]
                    for j in range(row.start, row.start + row.n):
                        d.scores[self.arena[j].cls] += self.arena[j].w
            return
        self.n_ids = 0
        for i in range(n):
            f = self.fmap.add(d.keys[i]) if self.grow else self.fmap.get(d.keys[i])
            if f < 0:
                if self.grow:
                    self.failed = True
                    return
                continue         # cut off: no weights
            if not self.reserve_rows(f + 1):
                self.failed = True
                return
            self.ids[self.n_ids] = f
            self.n_ids += 1
            prefetch(&self.rows[f])
        for i in range(self.n_ids):
            prefetch(&self.arena[self.rows[self.ids[i]].start])
        for i in range(self.n_ids):
            row = &self.rows[self.ids[i]]
            end = row.start + row.n
            for j in range(row.start, end):
                d.scores[self.arena[j].cls] += self.arena[j].w

    cdef void update(self, int gold, int pred, Py_ssize_t t) noexcept nogil:
        """The perceptron's update at step ``t`` for the last scored decision: weight moves from
        the predicted class to the one to learn."""
        cdef int i
        cdef int64_t g, p
        self.bw[gold] += 1
        self.bw[pred] -= 1
        self.bu[gold] += t
        self.bu[pred] -= t
        for i in range(self.n_ids):
            # both entries made first: making the second may move the row
            if self.entry(self.ids[i], gold) < 0 or self.entry(self.ids[i], pred) < 0:
                self.failed = True
                return
            g = self.entry(self.ids[i], gold)
            p = self.entry(self.ids[i], pred)
            self.arena[g].w += 1
            self.arena[g].u += t
            self.arena[p].w -= 1
            self.arena[p].u -= t

    cdef bint update_keys(self, const uint64_t* keys, int nk, int cls, float delta, Py_ssize_t t) noexcept nogil:
        """Add ``delta`` to class ``cls``'s weight of each key's row (made where new) and of the
        bias, at step ``t``; False when memory runs out (global training's updates)."""
        cdef int i
        cdef int32_t f
        cdef int64_t j
        self.bw[cls] += delta
        self.bu[cls] += delta * t
        for i in range(nk):
            f = self.fmap.add(keys[i]) if self.grow else self.fmap.get(keys[i])
            if f < 0:
                if self.grow:
                    return False
                continue
            if not self.reserve_rows(f + 1):
                return False
            j = self.entry(f, cls)
            if j < 0:
                return False
            self.arena[j].w += delta
            self.arena[j].u += delta * t
        return True

    @property
    def entries(self):
        """How many (feature, class) weights exist."""
        return self.n_entries

    @property
    def arena_bytes(self):
        """The bytes the rows' arena holds (entries and the room moved rows left)."""
        return self.arena_cap * sizeof(Entry)

    def average(self, Py_ssize_t t):
        """The weights averaged over ``t`` steps, as sparse rows in the feature map's id order:
        (kept row ids int64, (indptr int64, classes int32, weights float32), bias float32). A
        weight whose average is zero is dropped, and so is a row left with none."""
        cdef Py_ssize_t n = min(len(self.fmap), self.rows_cap), f
        cdef int64_t j, k = 0, total = 0
        cdef int c
        cdef float v
        for f in range(n):
            total += self.rows[f].n
        row_of = np.empty(total, dtype=np.int64)
        cls = np.empty(total, dtype=np.int32)
        val = np.empty(total, dtype=np.float32)
        cdef int64_t[::1] rv = row_of
        cdef int32_t[::1] cv = cls
        cdef float[::1] vv = val
        with nogil:
            for f in range(n):
                for j in range(self.rows[f].start, self.rows[f].start + self.rows[f].n):
                    v = <float>(self.arena[j].w - self.arena[j].u / t)
                    if v != 0:
                        rv[k] = f
                        cv[k] = self.arena[j].cls
                        vv[k] = v
                        k += 1
        row_of, cls, val = row_of[:k], cls[:k], val[:k]
        order = np.lexsort((cls, row_of))        # rows in id order, classes ascending
        row_of, cls, val = row_of[order], cls[order], val[order]
        rows, counts = np.unique(row_of, return_counts=True)
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        bias = np.empty(self.n_classes, dtype=np.float32)
        for c in range(self.n_classes):
            bias[c] = <float>(self.bw[c] - self.bu[c] / t)
        return rows, (indptr, cls, val), bias
