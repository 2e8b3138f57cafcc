# cython: language_level=3
"""The transition loop, for training (the oracle decides) and parsing (the weights decide).

Both loops run without the GIL and without Python calls per transition:
configuration, validity, feature extraction, weight look-up, scoring and the
arg-max all happen in C. The corpus comes in as flat arrays (see
:mod:`maltpy.parsing.encode`): sentence k owns rows ``offsets[k]..offsets[k+1]``,
row 0 of each sentence being the root.

Forced decisions (exactly one permissible move, and it takes no label) are
applied without asking the classifier, in training and parsing alike.
"""
cimport cython
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport uint64_t, int64_t, int32_t
from libc.math cimport fabs, INFINITY
from libc.float cimport FLT_EPSILON

from maltpy.systems.state cimport State, Gold, state_alloc, state_free, state_reset
from maltpy.systems.base cimport TransitionSystem, gold_alloc, gold_free
from maltpy.features.extract cimport Extractor, Sent
from maltpy.features.featmap cimport FeatMap, probe

cnp.import_array()

cdef struct Vec:
    char* data
    Py_ssize_t size
    Py_ssize_t cap
    Py_ssize_t item


cdef bint vec_init(Vec* v, Py_ssize_t item, Py_ssize_t cap) noexcept nogil:
    v.item = item
    v.size = 0
    v.cap = cap
    v.data = <char*>malloc(item * cap)
    return v.data != NULL


cdef bint vec_reserve(Vec* v, Py_ssize_t extra) noexcept nogil:
    cdef Py_ssize_t cap = v.cap
    cdef char* p
    if v.size + extra <= v.cap:
        return True
    while cap < v.size + extra:
        cap *= 2
    p = <char*>realloc(v.data, v.item * cap)
    if p == NULL:
        return False
    v.data, v.cap = p, cap
    return True


cdef void _free_buffer(object capsule) noexcept:
    free(PyCapsule_GetPointer(capsule, NULL))


cdef object vec_to_numpy(Vec* v, dtype):
    """The vector's items as a numpy array that takes over its buffer (trimmed to size): no
    copy, so that the instances of a long training corpus are in memory once, not twice."""
    cdef void* data
    cdef cnp.npy_intp n = v.size
    if v.size == 0:
        free(v.data)
        v.data = NULL
        return np.empty(0, dtype=dtype)
    data = realloc(v.data, v.size * v.item)
    if data == NULL:
        data = v.data
    v.data = NULL
    out = cnp.PyArray_SimpleNewFromData(1, &n, np.dtype(dtype).num, data)
    cnp.set_array_base(out, PyCapsule_New(data, NULL, &_free_buffer))
    return out


@cython.final
cdef class ClassTable:
    """Classes = unlabeled moves plus (labeled move, label) pairs."""

    def __cinit__(self, labeled_moves, int n_labels):
        self.n_moves = len(labeled_moves)
        if self.n_moves > MAX_MOVES:
            raise ValueError("too many moves")
        self.first = <int*>malloc(sizeof(int) * self.n_moves)
        self.end = <int*>malloc(sizeof(int) * self.n_moves)
        self.labeled = <bint*>malloc(sizeof(bint) * self.n_moves)
        n = 0
        for m, lab in enumerate(labeled_moves):
            self.first[m] = n
            self.labeled[m] = bool(lab)
            n += n_labels if lab else 1
            self.end[m] = n
        self.n_classes = n
        self.class_move = <int*>malloc(sizeof(int) * max(n, 1))
        self.class_label = <int*>malloc(sizeof(int) * max(n, 1))
        c = 0
        for m, lab in enumerate(labeled_moves):
            for l in range(n_labels if lab else 1):
                self.class_move[c] = m
                self.class_label[c] = l if lab else -1
                c += 1

    def __dealloc__(self):
        free(self.first)
        free(self.end)
        free(self.labeled)
        free(self.class_move)
        free(self.class_label)

    def move_and_label(self, int c):
        return self.class_move[c], self.class_label[c]


cdef class SplitModels:
    cdef set_split_map(self, split_map, int default_split):
        """Model of each split value (-d/-s/-T); values outside the map use ``default_split``."""
        sm = np.ascontiguousarray(split_map, dtype=np.int32)
        if sm.ndim != 1 or not 0 <= default_split < self.n_splits or (
                len(sm) and (sm.min() < 0 or sm.max() >= self.n_splits)):
            raise ValueError("split map refers to a missing model")
        self._split_map_array = sm
        self.split_map_len = len(sm)
        self.split_map = <int*>cnp.PyArray_DATA(sm)
        self.default_split = default_split


#: a weight row with more than this share of the classes is stored dense
DENSE_ROW = 0.125


def sparse_rows(W):
    """A dense (rows x classes) weight matrix as its non-zero entries per row:
    (indptr int64, class int32, weight float32, low part float32 or None), rows in order, classes
    ascending. The low part is what rounding a float64 matrix to float32 left of each weight
    (None for a float32 matrix): the parse loop scores in float32 and settles near ties with
    both parts, in double, as MaltParser's double weights would (:meth:`Weights.exact_best`)."""
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
cdef class Weights(SplitModels):
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
        self._keep = []
        self.split = <WSplit*>calloc(max(self.n_splits, 1), sizeof(WSplit))
        if self.split == NULL:
            raise MemoryError()
        cdef cnp.ndarray slots, entries, dense, b, entries_low, dense_low
        for k, (keys_obj, w_obj, b_obj) in enumerate(models):
            keys = np.ascontiguousarray(keys_obj, dtype=np.uint64)
            if isinstance(w_obj, tuple):
                indptr, cols, w = [np.ascontiguousarray(a, dtype=t) for a, t in
                                   zip(w_obj[:3], (np.int64, np.int32, np.float32))]
                low = np.ascontiguousarray(w_obj[3], dtype=np.float32) \
                    if len(w_obj) > 3 and w_obj[3] is not None else None
                n_rows = len(indptr) - 1
                if len(cols) != len(w) or indptr[0] != 0 or indptr[n_rows] != len(cols) \
                        or np.any(np.diff(indptr) < 0) or (len(cols) and (cols.min() < 0 or cols.max() >= n_classes)) \
                        or (low is not None and len(low) != len(w)):
                    raise ValueError("sparse weight rows are inconsistent")
            else:
                if np.ndim(w_obj) != 2 or np.shape(w_obj)[1] != n_classes:
                    raise ValueError("weight matrix shape does not match the model")
                n_rows = np.shape(w_obj)[0]
                indptr, cols, w, low = sparse_rows(w_obj)
            b = np.ascontiguousarray(b_obj, dtype=np.float32)
            if n_rows != len(keys) or b.ndim != 1 or b.shape[0] != n_classes:
                raise ValueError("weight matrix shape does not match the model")
            if len(cols) >= 2 ** 31:
                raise ValueError("too many weights in one split model")
            nnz = np.diff(indptr)
            dense_rows = np.flatnonzero(nnz > DENSE_ROW * n_classes)
            dense = np.zeros((max(len(dense_rows), 1), n_classes), dtype=np.float32)
            dense_low = np.zeros_like(dense) if low is not None else None
            if len(dense_rows):
                counts = nnz[dense_rows]
                entry = np.repeat(indptr[dense_rows], counts) + (
                    np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
                dense[np.repeat(np.arange(len(dense_rows)), counts), cols[entry]] = w[entry]
                if low is not None:
                    dense_low[np.repeat(np.arange(len(dense_rows)), counts), cols[entry]] = low[entry]
            entries = np.empty(max(len(cols), 1), dtype=[("cls", np.int32), ("w", np.float32)])
            entries["cls"][:len(cols)] = cols
            entries["w"][:len(cols)] = w
            entries_low = low     # parallel to the entries as it is (None, or as many as they)
            starts = indptr[:n_rows].astype(np.int32)
            row_counts = nnz.astype(np.int32)
            starts[dense_rows] = np.arange(len(dense_rows), dtype=np.int32)
            row_counts[dense_rows] = SLOT_DENSE
            slots = _slot_table(keys, starts, row_counts)
            self._keep.append((slots, entries, dense, b, entries_low, dense_low))
            self.split[k].slots = <WSlot*>cnp.PyArray_DATA(slots)
            self.split[k].mask = len(slots) - 1
            self.split[k].entries = <WEntry*>cnp.PyArray_DATA(entries)
            self.split[k].dense = <float*>cnp.PyArray_DATA(dense)
            self.split[k].bias = <float*>cnp.PyArray_DATA(b)
            self.split[k].entries_low = <float*>cnp.PyArray_DATA(entries_low) if low is not None else NULL
            self.split[k].dense_low = <float*>cnp.PyArray_DATA(dense_low) if low is not None else NULL
            self.exact_ties = self.exact_ties or low is not None
        self.set_split_map(split_map, default_split)

    def __dealloc__(self):
        free(self.split)

    cdef int exact_best(self, int sp, const uint64_t* keys, int nk, const float* scores, float floor,
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
                w = m.dense + <Py_ssize_t>slot.start * self.n_classes
                wl = m.dense_low + <Py_ssize_t>slot.start * self.n_classes if m.dense_low != NULL else NULL
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


def _slot_table(const uint64_t[::1] keys, const int32_t[::1] starts, const int32_t[::1] counts):
    """The open-addressing table of :class:`Weights` (load at most one half), as WSlot records."""
    cdef Py_ssize_t n = keys.shape[0], cap = 16, i
    while cap < 2 * n + 2:
        cap *= 2
    table = np.empty(cap, dtype=[("key", np.uint64), ("start", np.int32), ("count", np.int32)])
    cdef WSlot* slots = <WSlot*>cnp.PyArray_DATA(table)
    cdef uint64_t mask = cap - 1, h
    with nogil:
        for i in range(cap):
            slots[i].key = 0
            slots[i].start = 0
            slots[i].count = SLOT_EMPTY
        for i in range(n):
            h = mix64(keys[i]) & mask
            while slots[h].count != SLOT_EMPTY:
                if slots[h].key == keys[i]:
                    with gil:
                        raise ValueError("feature keys are not distinct: the model file is corrupt")
                h = (h + 1) & mask
            slots[h].key = keys[i]
            slots[h].start = starts[i]
            slots[h].count = counts[i]
    return table


cdef class Corpus:
    """Flat encoded sentences; built by :func:`maltpy.parsing.encode.encode`."""

    def __cinit__(self, offsets, tok, ints, rag_off, rag_ids):
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.tok = np.ascontiguousarray(tok, dtype=np.int32)
        self.ints = np.ascontiguousarray(ints, dtype=np.int32)
        self.rag_off = np.ascontiguousarray(rag_off, dtype=np.int32)
        self.rag_ids = np.ascontiguousarray(rag_ids, dtype=np.int32)
        self.n_sentences = len(self.offsets) - 1
        self.n_rows = int(self.offsets[len(self.offsets) - 1])
        self.n_tok = self.tok.shape[1]
        self.n_int = self.ints.shape[1]
        self.n_rag = self.rag_off.shape[0]
        if self.tok.shape[0] != self.n_rows or self.ints.shape[0] != self.n_rows:
            raise ValueError("corpus arrays disagree on the number of rows")
        if self.rag_off.shape[1] != self.n_rows + 1:
            raise ValueError("rag offsets must have n_rows + 1 columns")
        self.off_p = <int64_t*>cnp.PyArray_DATA(self.offsets)
        self.tok_p = <int*>cnp.PyArray_DATA(self.tok)
        self.ints_p = <int*>cnp.PyArray_DATA(self.ints)
        self.rag_off_p = <int*>cnp.PyArray_DATA(self.rag_off)
        self.rag_ids_p = <int*>cnp.PyArray_DATA(self.rag_ids)
        sizes = np.diff(self.offsets)
        self.max_n = int(sizes.max()) - 1 if len(sizes) else 0



def collect_instances(TransitionSystem system, Extractor ex, FeatMap fmap, ClassTable classes,
                      Corpus corpus, gold_heads, gold_labels, progress=None):
    """Run the static oracle over a corpus and record one training instance per decision.

    Returns a dict with CSR parts ``indptr``/``indices`` (feature ids from
    ``fmap``, which grows), ``y`` (class ids), ``split`` (data-split value per
    instance) and ``oracle_errors`` (sentences whose oracle output differs from
    the gold tree, e.g. non-projective trees for a projective system).
    """
    cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
    cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
    if gh.shape[0] != corpus.n_rows or gl.shape[0] != corpus.n_rows:
        raise ValueError("gold arrays must have one entry per corpus row")
    cdef State s
    cdef Gold g
    cdef Sent sent
    cdef Vec indptr, indices, ys, splits
    cdef bint mask[MAX_MOVES]
    cdef int* nodes = <int*>malloc(sizeof(int) * (ex.n_addr + 1))
    cdef int64_t* values = <int64_t*>malloc(sizeof(int64_t) * (ex.n_atoms + 1))
    cdef uint64_t* keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
    cdef Py_ssize_t k, n_sent = corpus.n_sentences, r0
    cdef int step, move, label, m, i, nk, fid, n_errors = 0, max_steps
    cdef bint ok = True, wrong
    s.block = NULL
    g.n_children = NULL
    if (nodes == NULL or values == NULL or keys == NULL or not state_alloc(&s, corpus.max_n)
            or not vec_init(&indptr, sizeof(int64_t), 1024) or not vec_init(&indices, sizeof(int32_t), 8192)
            or not vec_init(&ys, sizeof(int32_t), 1024) or not vec_init(&splits, sizeof(int64_t), 1024)):
        raise MemoryError()
    (<int64_t*>indptr.data)[0] = 0
    indptr.size = 1
    step = max(1, n_sent // 100)
    try:
        for k in range(n_sent):
            with nogil:
                r0 = corpus.off_p[k]
                ok = start_training_sentence(system, corpus, k, &s, &sent, &g, &gh[0], &gl[0])
                max_steps = max_transitions(sent.n)
                while ok and not system.is_terminal(&s) and s.n_transitions < max_steps:
                    step = training_decision(system, &s, mask)
                    if step < 0:
                        break
                    if step == 0:
                        continue
                    move = oracle_move(system, classes, &s, &g, mask, &label)
                    nk = ex.extract(system, &s, &sent, nodes, values, keys)
                    if not (vec_reserve(&indices, nk) and vec_reserve(&indptr, 1)
                            and vec_reserve(&ys, 1) and vec_reserve(&splits, 1)):
                        ok = False
                        break
                    for i in range(nk):
                        fid = fmap.add(keys[i])
                        if fid < 0:
                            ok = False
                        (<int32_t*>indices.data)[indices.size] = fid
                        indices.size += 1
                    (<int64_t*>indptr.data)[indptr.size] = indices.size
                    indptr.size += 1
                    (<int32_t*>ys.data)[ys.size] = classes.class_of(move, label)
                    ys.size += 1
                    (<int64_t*>splits.data)[splits.size] = (
                        ex.split_value(system, &s, &sent, nodes) if ex.split_atom >= 0 else 0)
                    splits.size += 1
                    system.apply(&s, move, label)
                system.finish(&s)
                wrong = False
                for i in range(1, sent.n + 1):
                    if s.heads[i] != gh[r0 + i] or s.labels[i] != gl[r0 + i]:
                        wrong = True
                n_errors += wrong
                gold_free(&g)
            if not ok:
                raise MemoryError("out of memory while collecting training instances")
            if progress is not None and (k + 1) % step == 0:
                progress(step)
    finally:
        state_free(&s)
        gold_free(&g)
        free(nodes)
        free(values)
        free(keys)
    return {
        "indptr": vec_to_numpy(&indptr, np.int64),
        "indices": vec_to_numpy(&indices, np.int32),
        "y": vec_to_numpy(&ys, np.int32),
        "split": vec_to_numpy(&splits, np.int64),
        "oracle_errors": n_errors,
    }


cdef inline int split_keys(uint64_t* keys, int nk, const unsigned char* by_template, uint64_t* picked,
                           uint64_t* rest, int* n_rest) noexcept nogil:
    """The keys of the templates ``by_template`` marks to ``picked``, the others to ``rest``, each
    in their order; either may be ``keys`` itself. Returns how many were picked."""
    cdef int i, n_picked = 0
    n_rest[0] = 0
    for i in range(nk):
        if by_template[keys[i] >> 50]:
            picked[n_picked] = keys[i]
            n_picked += 1
        else:
            rest[n_rest[0]] = keys[i]
            n_rest[0] += 1
    return n_picked


def best_of_runs(scores, run_lo, run_end):
    """The parse loop's arg-max (tests): the first class with the highest of ``scores`` over the
    runs ``run_lo[r]`` .. ``run_end[r]``-1, -1 if they are empty."""
    cdef const float[::1] sv = np.ascontiguousarray(scores, dtype=np.float32)
    cdef const int[::1] lv = np.ascontiguousarray(run_lo, dtype=np.int32)
    cdef const int[::1] ev = np.ascontiguousarray(run_end, dtype=np.int32)
    if lv.shape[0] != ev.shape[0] or any(not 0 <= a <= b <= sv.shape[0] for a, b in zip(lv, ev)):
        raise ValueError("runs must lie within the scores")
    if lv.shape[0] == 0 or sv.shape[0] == 0:
        return -1
    return argmax_runs(&sv[0], &lv[0], &ev[0], lv.shape[0])


def parse_corpus(TransitionSystem system, Extractor ex, Weights weights, ClassTable classes,
                 Corpus corpus, progress=None, bint record_end=False, moves_out=None, bint keep_scores=True):
    """Parse every sentence; return heads and labels per corpus row (root rows -1).

    With ``record_end``, also return per row where that word was when the buffer
    first became empty (fragmentation diagnostics), as a third int8 array:
    1 = on the stack without a head, 2 = on the stack with a head, 0 = elsewhere.
    ``moves_out``: an int32 array (one entry per row) that receives the move that built each
    word's arc (-1: attached to the root when parsing ended).
    ``keep_scores`` False: the scores of the features of the system's stable addresses are
    computed afresh at every decision instead of kept over a context, and those of its cached
    addresses instead of taken from the node's remembered sum (the same sums; tests).
    """
    heads_out = np.full(corpus.n_rows, -1, dtype=np.int32)
    cdef int[::1] mo
    cdef bint record_moves = moves_out is not None
    if record_moves:
        mo = moves_out
        if mo.shape[0] < corpus.n_rows:
            raise ValueError("moves_out needs one entry per corpus row")
        mo[:] = -1
    labels_out = np.full(corpus.n_rows, -1, dtype=np.int32)
    end_out = np.zeros(corpus.n_rows if record_end else 0, dtype=np.int8)
    cdef int[::1] ho = heads_out
    cdef int[::1] lo = labels_out
    cdef signed char[::1] eo = end_out
    cdef State s
    cdef Sent sent
    cdef bint mask[MAX_MOVES]
    cdef int C = classes.n_classes
    cdef int* nodes = <int*>malloc(sizeof(int) * (ex.n_addr + 1))
    cdef int64_t* values = <int64_t*>malloc(sizeof(int64_t) * (ex.n_atoms + 1))
    cdef uint64_t* keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
    cdef float* scores = <float*>malloc(sizeof(float) * (C + 1))
    cdef const WSlot** found = <const WSlot**>malloc(sizeof(void*) * (ex.max_keys + 1))
    cdef Py_ssize_t k, n_sent = corpus.n_sentences, r0
    cdef int n_valid, only, nk, i, c, m, sp, best, max_steps, n_runs
    cdef int run_lo[MAX_MOVES]
    cdef int run_end[MAX_MOVES]
    cdef bint recorded
    # Kept scores: the features that read only the system's stable addresses (Covington's
    # Right[i]) keep their keys while its context stays and no arc is added, so their sum
    # over all classes (with the bias) is kept and only the other features are added at each
    # decision. The sum is the same, in the same order, whether it was kept or not.
    parts_np = ex.stable_parts(system)
    cdef bint keeping = bool(parts_np[ex.n_addr + ex.n_atoms:].any())
    cdef const unsigned char[::1] parts = parts_np
    cdef const unsigned char* leave_out = &parts[0] if keeping else NULL
    cdef const unsigned char* stable = leave_out + ex.n_addr + ex.n_atoms if keeping else NULL  # by template
    cdef float* kept = <float*>malloc(sizeof(float) * (C + 1))
    cdef uint64_t* other_keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
    cdef uint64_t* to_add
    cdef bint kept_valid = False
    cdef int kept_context = -1, kept_split = -1, n_stable, n_other
    cdef int all_lo[1]
    cdef int all_end[1]
    all_lo[0] = 0
    all_end[0] = C
    # Cached scores: the features that read only the system's cached addresses (Covington's
    # Left[i]) are functions of one node (Left[0]) and its arcs, and Covington visits each word
    # as Left[0] once for every later word whose walk passes it. Their sum over every class is
    # remembered per node, with their keys and split model, and serves again while these are
    # the same; the keys are compared, so the sum is always that of this decision's features.
    # Order: bias, kept features, cached features (summed from zero), the others.
    cached_np = ex.cached_templates(system)
    cdef Py_ssize_t n_nodes = corpus.max_n + 1
    cdef int room = ex.max_keys + 1    # cached keys per node, at most
    cdef bint caching = bool(cached_np.any()) and n_nodes * (C * sizeof(float) + room * sizeof(uint64_t)) < (1 << 28)
    cdef const unsigned char[::1] cached_view = np.append(cached_np, np.uint8(0))
    cdef const unsigned char* cached_tpl = &cached_view[0]
    cdef int* cache_sp = <int*>malloc(sizeof(int) * n_nodes) if caching else NULL
    cdef int* cache_nk = <int*>malloc(sizeof(int) * n_nodes) if caching else NULL
    cdef uint64_t* cache_keys = <uint64_t*>malloc(sizeof(uint64_t) * n_nodes * room) if caching else NULL
    cdef float* cache_sum = <float*>malloc(sizeof(float) * n_nodes * C) if caching else NULL
    cdef uint64_t* now_keys = <uint64_t*>malloc(sizeof(uint64_t) * room)
    cdef float* node_sum
    cdef int node, n_cached
    # near ties settled in double with the weights' low parts (models trained in float64)
    cdef bint exact_ties = weights.exact_ties
    cdef float floor
    cdef double* exact = <double*>malloc(sizeof(double) * (C + 1))
    cdef uint64_t* all_keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
    cdef int n_all
    s.block = NULL
    cdef Py_ssize_t step = max(1, n_sent // 100)
    cdef bint report = progress is not None
    try:
        if nodes == NULL or values == NULL or keys == NULL or scores == NULL or found == NULL \
                or exact == NULL or all_keys == NULL or kept == NULL or other_keys == NULL or now_keys == NULL or not state_alloc(&s, corpus.max_n) \
                or (caching and (cache_sp == NULL or cache_nk == NULL or cache_keys == NULL or cache_sum == NULL)):
            raise MemoryError()     # the finally clause frees what was allocated
        # one nogil block for the whole corpus: threads parsing other chunks never wait for
        # the GIL (it is taken back only to report progress)
        with nogil:
            for k in range(n_sent):
                corpus.sentence(k, &sent)
                r0 = corpus.off_p[k]
                s.n = sent.n
                state_reset(&s)
                system.init_state(&s)
                recorded = False
                kept_valid = False
                if caching:
                    for i in range(sent.n + 1):
                        cache_sp[i] = -1
                max_steps = max_transitions(sent.n)
                while not system.is_terminal(&s) and s.n_transitions < max_steps:
                    if record_end and not recorded and s.end_seen:
                        recorded = True
                        record_stack(&s, &eo[r0])
                    n_valid = system.valid_moves(&s, mask)
                    if n_valid == 0:
                        break
                    only = forced_move(classes, mask, n_valid)
                    if only >= 0:
                        s.last_dep = -1
                        system.apply(&s, only, -1)
                        if s.last_dep >= 0:
                            kept_valid = False
                        continue
                    if keeping and kept_valid and keep_scores and system.context(&s) == kept_context:
                        # the kept features' keys are known: extract the others only
                        nk = ex.extract_others(system, &s, &sent, nodes, values, keys, leave_out)
                    else:
                        kept_valid = False
                        nk = ex.extract(system, &s, &sent, nodes, values, keys)
                    sp = weights.split_of(ex.split_value(system, &s, &sent, nodes)) if ex.split_atom >= 0 else 0
                    if kept_valid and sp != kept_split:    # another split model: extract everything
                        kept_valid = False
                        nk = ex.extract(system, &s, &sent, nodes, values, keys)
                    # the permissible classes are runs of adjacent classes; every class starts
                    # at its bias (invalid ones too: never chosen below)
                    n_runs = 0
                    for m in range(classes.n_moves):
                        if mask[m]:
                            if n_runs and run_end[n_runs - 1] == classes.first[m]:
                                run_end[n_runs - 1] = classes.end[m]
                            else:
                                run_lo[n_runs] = classes.first[m]
                                run_end[n_runs] = classes.end[m]
                                n_runs += 1
                    to_add = keys
                    if keeping:
                        if not kept_valid:
                            # split the keys: the kept features' first, the others' after them
                            n_stable = split_keys(keys, nk, stable, keys, other_keys, &n_other)
                            # bias + the kept features, over every class
                            weights.score(sp, keys, n_stable, found, kept, all_lo, all_end, 1)
                            kept_valid, kept_context, kept_split = True, system.context(&s), sp
                            to_add, nk = other_keys, n_other
                        memcpy(scores, kept, sizeof(float) * C)
                    node = system.cache_node(&s) if caching else -1
                    if 0 <= node <= sent.n:
                        # the cached features' keys apart; the others stay in to_add, in order
                        n_cached = split_keys(to_add, nk, cached_tpl, now_keys, to_add, &nk)
                        node_sum = cache_sum + node * C
                        if not (keep_scores and cache_sp[node] == sp and cache_nk[node] == n_cached
                                and memcmp(cache_keys + node * room, now_keys, sizeof(uint64_t) * n_cached) == 0):
                            memset(node_sum, 0, sizeof(float) * C)
                            weights.score(sp, now_keys, n_cached, found, node_sum, all_lo, all_end, 1, 0)
                            memcpy(cache_keys + node * room, now_keys, sizeof(uint64_t) * n_cached)
                            cache_nk[node] = n_cached
                            cache_sp[node] = sp
                        if not keeping:
                            memcpy(scores, weights.split[sp].bias, sizeof(float) * C)
                        add_runs(scores, node_sum, run_lo, run_end, n_runs)
                        weights.score(sp, to_add, nk, found, scores, run_lo, run_end, n_runs, 0)
                    else:
                        weights.score(sp, to_add, nk, found, scores, run_lo, run_end, n_runs, not keeping)
                    best = argmax_runs(scores, run_lo, run_end, n_runs)
                    if exact_ties:
                        floor = tie_floor(scores[best], ex.max_keys)
                        if count_at_least(scores, run_lo, run_end, n_runs, floor) > 1:    # a near tie
                            if keeping or caching:   # keys holds only some of the features now
                                n_all = ex.extract(system, &s, &sent, nodes, values, all_keys)
                                best = weights.exact_best(sp, all_keys, n_all, scores, floor, run_lo, run_end,
                                                          n_runs, best, exact)
                            else:
                                best = weights.exact_best(sp, keys, nk, scores, floor, run_lo, run_end, n_runs,
                                                          best, exact)
                    s.last_dep = -1
                    system.apply(&s, classes.class_move[best], classes.class_label[best])
                    if s.last_dep >= 0:
                        kept_valid = False
                    if record_moves and s.last_dep >= 0:
                        mo[r0 + s.last_dep] = classes.class_move[best]
                if record_end and not recorded:
                    record_stack(&s, &eo[r0])
                system.finish(&s)
                for i in range(1, sent.n + 1):
                    ho[r0 + i] = s.heads[i]
                    lo[r0 + i] = s.labels[i]
                if report and (k + 1) % step == 0:
                    with gil:
                        progress(step)
                elif (k & 255) == 255:
                    with gil:      # Ctrl-C stops a long parse (in the main thread)
                        PyErr_CheckSignals()
    finally:
        state_free(&s)
        free(nodes)
        free(values)
        free(keys)
        free(scores)
        free(found)
        free(exact)
        free(all_keys)
        free(kept)
        free(other_keys)
        free(now_keys)
        free(cache_sp)
        free(cache_nk)
        free(cache_keys)
        free(cache_sum)
    if record_end:
        return heads_out, labels_out, end_out
    return heads_out, labels_out
