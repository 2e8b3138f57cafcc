# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The batched parse loop for kernel (LIBSVM) models.

A kernel model scores a decision against every support vector of its split,
so one decision costs (k-1) x nSV multiply-adds for k classes. Done one
decision at a time (as MaltParser does) that is slow; here many sentences are
parsed together: each round advances every unfinished sentence to its next
decision, groups the pending decisions by split model and scores each group
with one matrix product per class (BLAS ``sgemm``), then applies the chosen
moves. Everything runs in C without the GIL; with ``n_threads`` > 1 (OpenMP on
Linux builds) the sentences of a round advance in parallel and the groups are
scored in parallel, each thread with its own scratch buffers.

Per decision x and split model:
  dots[sv] = |x & sv| through an inverted index (feature -> support vectors;
    a feature most SVs have is stored as the list of SVs without it, and
    counts +1 for all minus 1 for those, which halves the work on EWT),
  K[sv] = kernel(dots[sv]) (a table look-up: dots are small integers),
  P[c][r] = sum over the SVs of class c of coef[r][sv] * K[sv]   (the sgemm),
  decision(i, j) = P[i][j-1] + P[j][i] + intercept(i, j) > 0 votes i, else j,
and the classes are ranked by votes as MaltParser ranks them (MaltLibsvmModel.predict:
a selection sort with swaps over the classes in LIBSVM's order, which is not stable,
so it decides ties); the first permissible class in that ranking wins.
"""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from libc.math cimport exp, tanh
from libc.stdint cimport uint64_t, int64_t, int32_t
from scipy.linalg.cython_blas cimport sgemm
from cython.parallel cimport prange, threadid

from maltpy.systems.state cimport State, state_alloc, state_free, state_reset
from maltpy.systems.base cimport TransitionSystem
from maltpy.features.extract cimport Extractor, Sent
from maltpy.features.featmap cimport FeatMap, probe
from maltpy.parsing.loop cimport ClassTable, Corpus, SplitModels, MAX_MOVES, forced_move, max_transitions, record_stack

cnp.import_array()


cdef struct SvmC:
    int k                    # local classes
    int n_sv
    const int64_t* inv_ptr   # local feature f -> support vectors inv_sv[inv_ptr[f] .. inv_ptr[f+1]-1]
    const int32_t* inv_sv
    const char* inv_neg      # the list of f holds the SVs *without* f
    const float* sv_norm     # squared norm of each SV (active features), for the RBF kernel
    const float* coef        # (k-1) x n_sv, row-major
    const float* intercept   # k(k-1)/2, pairs (0,1), (0,2) .. (k-2,k-1)
    const int* start         # k+1: SVs of local class c are start[c] .. start[c+1]-1
    const int* classes       # parser class id of each local class
    int n_left_out           # keys of each decision this model's vectors leave out (the split feature)
    const uint64_t* keys     # feature key -> local feature id (open addressing)
    const int32_t* vals
    Py_ssize_t mask


def _inverted_index(indptr, sv_idx, int n_feat, int n_sv):
    """Feature -> SVs with it, or -> SVs without it when more than half have it.

    Returns (offsets int64[n_feat + 1], SV ids int32, int8[n_feat] "list holds the SVs without").
    """
    import scipy.sparse as sp
    by_feature = sp.csr_matrix((np.ones(len(sv_idx), dtype=np.int8), sv_idx, indptr),
                               shape=(n_sv, n_feat)).tocsc()  # column f = the SVs with feature f
    by_feature.sort_indices()
    counts = np.diff(by_feature.indptr)
    neg = counts * 2 > n_sv
    everyone = np.arange(n_sv, dtype=np.int32)
    lists = [np.setdiff1d(everyone, by_feature.indices[by_feature.indptr[f]:by_feature.indptr[f + 1]],
                          assume_unique=True) if neg[f]
             else by_feature.indices[by_feature.indptr[f]:by_feature.indptr[f + 1]]
             for f in range(n_feat)]
    inv_ptr = np.zeros(n_feat + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=inv_ptr[1:])
    inv_sv = np.ascontiguousarray(np.concatenate(lists) if lists else np.zeros(0), dtype=np.int32)
    return inv_ptr, inv_sv, np.ascontiguousarray(neg, dtype=np.int8)


@cython.final
cdef class KernelModels(SplitModels):
    """Per-split kernel models in the layout the batched loop reads."""
    cdef SvmC* m
    cdef int kind, degree
    cdef float gamma, coef0
    cdef readonly int max_k, max_sv
    cdef list _keep

    def __cinit__(self, list models, split_map, int default_split, kernel, left_out=None):
        """``models``: list of (feature keys uint64[n_feat], SvmModel over local ids 0..n_feat-1);
        ``left_out``: per model, how many of a decision's keys its vectors leave out (a split
        model leaves out the split feature, as MaltParser does), for the RBF kernel's norm."""
        self.n_splits = len(models)
        self.m = <SvmC*>calloc(max(self.n_splits, 1), sizeof(SvmC))
        if self.m == NULL:
            raise MemoryError()
        self._keep = []
        self.kind, self.degree = kernel.kind, kernel.degree
        self.gamma, self.coef0 = kernel.gamma, kernel.coef0
        self.max_k, self.max_sv = 1, 1
        cdef FeatMap fm
        cdef SvmC* c
        for i, (keys, svm) in enumerate(models):
            c = &self.m[i]
            keys = np.ascontiguousarray(keys, dtype=np.uint64)
            fm = FeatMap.from_keys(keys)
            n_feat, n_sv, k = len(keys), svm.n_sv, len(svm.classes)
            sv_idx = np.asarray(svm.sv_indices, dtype=np.int64)
            indptr = np.asarray(svm.sv_indptr, dtype=np.int64)
            if (indptr.ndim != 1 or len(indptr) < 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0)
                    or indptr[len(indptr) - 1] != len(sv_idx)):
                raise ValueError("malformed support vector offsets")
            if len(sv_idx) and (sv_idx.min() < 0 or sv_idx.max() >= n_feat):
                raise ValueError("support vector feature out of range")
            if (n_sv and svm.coef.shape != (k - 1, n_sv)) or len(svm.intercept) != k * (k - 1) // 2:
                raise ValueError("SVM coefficient shapes do not match its classes")
            if int(np.sum(svm.n_support)) != n_sv or len(svm.n_support) != k:
                raise ValueError("SVM support counts do not match its support vectors")
            inv_ptr, inv_sv, inv_neg = _inverted_index(indptr, sv_idx, n_feat, n_sv)
            sv_norm = np.ascontiguousarray(np.diff(svm.sv_indptr), dtype=np.float32)
            coef = np.ascontiguousarray(svm.coef if n_sv else np.zeros((max(k - 1, 1), 1)), dtype=np.float32)
            intercept = np.ascontiguousarray(svm.intercept if len(svm.intercept) else np.zeros(1), dtype=np.float32)
            start = np.zeros(k + 1, dtype=np.int32)
            np.cumsum(svm.n_support, out=start[1:])
            classes = np.ascontiguousarray(svm.classes, dtype=np.int32)
            self._keep.append((fm, inv_ptr, inv_sv, inv_neg, sv_norm, coef, intercept, start, classes))
            c.k, c.n_sv = k, n_sv
            c.n_left_out = int(left_out[i]) if left_out is not None else 0
            c.inv_ptr = <int64_t*>cnp.PyArray_DATA(inv_ptr)
            c.inv_sv = <int32_t*>cnp.PyArray_DATA(inv_sv)
            c.inv_neg = <char*>cnp.PyArray_DATA(inv_neg)
            c.sv_norm = <float*>cnp.PyArray_DATA(sv_norm)
            c.coef = <float*>cnp.PyArray_DATA(coef)
            c.intercept = <float*>cnp.PyArray_DATA(intercept)
            c.start = <int*>cnp.PyArray_DATA(start)
            c.classes = <int*>cnp.PyArray_DATA(classes)
            c.keys, c.vals, c.mask = fm.keys, fm.vals, fm.cap - 1
            self.max_k = max(self.max_k, k)
            self.max_sv = max(self.max_sv, n_sv)
        self.set_split_map(split_map, default_split)

    def __dealloc__(self):
        free(self.m)

    cdef inline float kernel(self, float dot, float xnorm, float svnorm) noexcept nogil:
        cdef float base, r
        cdef int t
        if self.kind == 0:
            return dot
        if self.kind == 1:
            base = self.gamma * dot + self.coef0
            r = 1
            for t in range(self.degree):
                r *= base
            return r
        if self.kind == 2:
            return <float>exp(-self.gamma * (xnorm + svnorm - 2 * dot))
        return <float>tanh(self.gamma * dot + self.coef0)


cdef struct Pending:
    int sent          # index of the sentence in the window
    int split
    uint64_t moves    # bit m set = move m permissible
    int n_feat        # features of this decision known to the split model
    int n_all         # all features of the decision (its squared norm, for RBF)
    int64_t feat0     # offset of its feature ids in the shared buffer


cdef void score_group(KernelModels km, const SvmC* m, ClassTable classes, Pending* pend, const int* idx,
                      int nb, const int32_t* feats, short* cnt, const float* ktab, float* kv, float* P,
                      int* votes, int* chosen) noexcept nogil:
    """Choose a class for each of nb pending decisions of split model m.

    ``cnt``: scratch of max_sv counts; ``ktab[d]``: kernel value of dot product d
    (every kernel but RBF depends on the dot product alone).
    """
    cdef int b, f, c, i, j, p, k = m.k, n_sv = m.n_sv, km1 = m.k - 1, ldc, n_c, best, g, off, imax
    cdef int* rank
    cdef int64_t t
    cdef float* row
    cdef float* pb
    cdef float alpha = 1, beta = 0, dec
    cdef const Pending* e
    if k > 1 and n_sv > 0:
        for b in range(nb):
            e = &pend[idx[b]]
            row = kv + <Py_ssize_t>b * n_sv
            memset(cnt, 0, sizeof(short) * n_sv)
            off = 0
            for f in range(e.n_feat):
                g = feats[e.feat0 + f]
                if m.inv_neg[g]:  # listed: the SVs without g
                    off += 1
                    for t in range(m.inv_ptr[g], m.inv_ptr[g + 1]):
                        cnt[m.inv_sv[t]] -= 1
                else:
                    for t in range(m.inv_ptr[g], m.inv_ptr[g + 1]):
                        cnt[m.inv_sv[t]] += 1
            if km.kind == 2:
                for i in range(n_sv):
                    row[i] = km.kernel(cnt[i] + off, e.n_all, m.sv_norm[i])
            else:
                ktab += off
                for i in range(n_sv):
                    row[i] = ktab[cnt[i]]
                ktab -= off
        ldc = k * km1
        for c in range(k):
            n_c = m.start[c + 1] - m.start[c]
            if n_c == 0:
                for b in range(nb):
                    memset(P + <Py_ssize_t>b * ldc + c * km1, 0, sizeof(float) * km1)
                continue
            sgemm(b"T", b"N", &km1, &nb, &n_c, &alpha, <float*>m.coef + m.start[c], &n_sv,
                  kv + m.start[c], &n_sv, &beta, P + c * km1, &ldc)
    for b in range(nb):
        e = &pend[idx[b]]
        pb = P + <Py_ssize_t>b * k * km1
        memset(votes, 0, sizeof(int) * k)
        if n_sv > 0:
            p = 0
            for i in range(k):
                for j in range(i + 1, k):
                    dec = pb[i * km1 + j - 1] + pb[j * km1 + i] + m.intercept[p]
                    if dec > 0:
                        votes[i] += 1
                    else:
                        votes[j] += 1
                    p += 1
        # MaltParser's ranking: selection sort by votes, swapping votes and classes alike
        rank = votes + k
        for c in range(k):
            rank[c] = c
        best = -1
        for i in range(k):
            if i < k - 1:
                imax = i
                for j in range(i + 1, k):
                    if votes[j] > votes[imax]:
                        imax = j
                if imax != i:
                    votes[i], votes[imax] = votes[imax], votes[i]
                    rank[i], rank[imax] = rank[imax], rank[i]
            if (e.moves >> classes.class_move[m.classes[rank[i]]]) & 1:
                best = rank[i]
                break
        if best >= 0:
            chosen[b] = m.classes[best]
        else:  # no class this model knows is permissible: the first permissible move
            g = 0
            while not (e.moves >> g) & 1:
                g += 1
            chosen[b] = classes.first[g]


cdef void apply_chosen(TransitionSystem system, ClassTable classes, State* states, const Pending* pend,
                       const int* idx, int nb, const int* chosen, int* mo, const int64_t* row0) noexcept nogil:
    """Apply each decision's chosen class; with ``mo``, record the move that built an arc at the
    dependent's corpus row (``row0``: first row of each window sentence)."""
    cdef int q, move
    cdef const Pending* e
    cdef State* s
    for q in range(nb):
        e = &pend[idx[q]]
        s = &states[e.sent]
        move = classes.class_move[chosen[q]]
        s.last_dep = -1
        system.apply(s, move, classes.class_label[chosen[q]])
        if mo != NULL and s.last_dep >= 0:
            mo[row0[e.sent] + s.last_dep] = move


cdef struct Scratch:
    # per-thread buffers of the advance step
    Sent sent
    bint mask[MAX_MOVES]
    int* nodes
    int64_t* values
    uint64_t* keys


cdef bint advance(TransitionSystem system, Extractor ex, KernelModels km, ClassTable classes, Corpus corpus,
                  State* s, int i, Py_ssize_t k, Scratch* w, Pending* e, int32_t* feats, bint record_end,
                  bint* recorded, signed char* eo, int* ho, int* lo) noexcept nogil:
    """Apply forced moves to sentence k (window slot i) until the classifier must decide.

    Returns True with the decision described in ``e`` (features in ``feats``), or
    False when the sentence is finished (its heads and labels written out).
    """
    cdef int n_valid, only, nk, sp, a, fid
    cdef int64_t r0 = corpus.off_p[k]
    cdef uint64_t moves = 0
    cdef const SvmC* m
    corpus.sentence(k, &w.sent)
    cdef int max_steps = max_transitions(w.sent.n)
    while True:
        if record_end and not recorded[i] and s.end_seen:
            recorded[i] = True
            record_stack(s, &eo[r0])
        n_valid = 0
        if not system.is_terminal(s) and s.n_transitions < max_steps:
            n_valid = system.valid_moves(s, w.mask)
        if n_valid == 0:
            if record_end and not recorded[i]:
                record_stack(s, &eo[r0])
            system.finish(s)
            for a in range(1, w.sent.n + 1):
                ho[r0 + a] = s.heads[a]
                lo[r0 + a] = s.labels[a]
            state_free(s)
            return False
        only = forced_move(classes, w.mask, n_valid)
        if only < 0:
            break
        system.apply(s, only, -1)
    nk = ex.extract(system, s, &w.sent, w.nodes, w.values, w.keys)
    sp = km.split_of(ex.split_value(system, s, &w.sent, w.nodes)) if ex.split_atom >= 0 else 0
    m = &km.m[sp]
    e.sent, e.split, e.n_all, e.n_feat = i, sp, nk - m.n_left_out, 0
    for a in range(nk):
        fid = probe(m.keys, m.vals, m.mask, w.keys[a])
        if fid >= 0:
            feats[e.feat0 + e.n_feat] = fid
            e.n_feat += 1
    for a in range(classes.n_moves):
        if w.mask[a]:
            moves |= (<uint64_t>1) << a
    e.moves = moves
    return True


def parse_corpus_kernel(TransitionSystem system, Extractor ex, KernelModels km, ClassTable classes,
                        Corpus corpus, progress=None, bint record_end=False, int window=8192,
                        int batch=0, int n_threads=1, moves_out=None):
    """Parse every sentence with kernel models, many sentences at a time.

    Same result arrays as :func:`maltpy.parsing.loop.parse_corpus`, and ``moves_out`` as there. ``window``
    sentences are in flight together; ``batch`` bounds the decisions scored
    in one matrix product (0: from the largest model's size); ``n_threads``
    threads advance the sentences and score the groups of each round (keep
    BLAS itself at one thread, as :meth:`maltpy.parsing.parser.Parser.parse_arrays`
    does). The result does not depend on any of the three.
    """
    heads_out = np.full(corpus.n_rows, -1, dtype=np.int32)
    labels_out = np.full(corpus.n_rows, -1, dtype=np.int32)
    end_out = np.zeros(max(corpus.n_rows, 1) if record_end else 1, dtype=np.int8)
    cdef int[::1] ho = heads_out
    cdef int[::1] lo = labels_out
    cdef signed char[::1] eo = end_out
    cdef int[::1] mo_view
    cdef int* mo = NULL
    if moves_out is not None:
        mo_view = moves_out
        if mo_view.shape[0] < corpus.n_rows:
            raise ValueError("moves_out needs one entry per corpus row")
        mo_view[:] = -1
        if corpus.n_rows:
            mo = &mo_view[0]
    cdef Py_ssize_t n_sent = corpus.n_sentences
    if classes.n_moves > 64:
        raise ValueError("the batched loop supports at most 64 moves")
    if batch <= 0:  # about 32 MB of kernel values per product
        batch = max(8, min(512, (8 << 20) // km.max_sv))
    window = max(1, min(window, n_sent if n_sent else 1))
    n_threads = max(1, n_threads)
    cdef int W = window, B = batch, K = km.max_k, MK = ex.max_keys + 1, T = n_threads
    cdef Py_ssize_t max_sv = km.max_sv
    cdef State* states = <State*>calloc(W, sizeof(State))
    cdef int* active = <int*>malloc(sizeof(int) * W)
    cdef bint* recorded = <bint*>calloc(W, sizeof(bint))
    cdef bint* pending = <bint*>malloc(sizeof(bint) * W)
    cdef Pending* pend = <Pending*>malloc(sizeof(Pending) * W)
    cdef int32_t* feats = <int32_t*>malloc(sizeof(int32_t) * W * MK)
    cdef int* by_split = <int*>malloc(sizeof(int) * W)
    cdef int* split_count = <int*>calloc(km.n_splits + 1, sizeof(int))
    cdef int* split_pos = <int*>calloc(km.n_splits + 1, sizeof(int))
    # scratch per thread
    cdef Scratch* scratch = <Scratch*>calloc(T, sizeof(Scratch))
    cdef int* nodes = <int*>malloc(sizeof(int) * (ex.n_addr + 1) * T)
    cdef int64_t* values = <int64_t*>malloc(sizeof(int64_t) * (ex.n_atoms + 1) * T)
    cdef uint64_t* keys = <uint64_t*>malloc(sizeof(uint64_t) * MK * T)
    cdef int* chosen = <int*>malloc(sizeof(int) * B * T)
    cdef int* votes = <int*>malloc(sizeof(int) * 2 * K * T)   # votes and ranking, per thread
    cdef float* kv = <float*>malloc(sizeof(float) * B * max_sv * T)
    cdef short* cnt = <short*>malloc(sizeof(short) * max_sv * T)
    cdef float* P = <float*>malloc(sizeof(float) * B * <Py_ssize_t>K * K * T)
    cdef float* ktab = <float*>malloc(sizeof(float) * (MK + 1))
    # one work item = up to B pending decisions of one split model
    cdef int* work_sp = <int*>malloc(sizeof(int) * W)
    cdef int* work_lo = <int*>malloc(sizeof(int) * W)
    cdef int* work_nb = <int*>malloc(sizeof(int) * W)
    cdef Sent sent
    cdef Py_ssize_t w0
    cdef int n, n_active, n_next, n_done, i, q, sp, lo_b, nb, n_work, wi, t
    cdef bint ok = True
    if (states == NULL or active == NULL or recorded == NULL or pending == NULL or pend == NULL
            or feats == NULL or by_split == NULL or split_count == NULL or split_pos == NULL
            or scratch == NULL or nodes == NULL or values == NULL or keys == NULL or chosen == NULL
            or votes == NULL or kv == NULL or cnt == NULL or P == NULL or ktab == NULL
            or work_sp == NULL or work_lo == NULL or work_nb == NULL):
        ok = False
    else:
        for i in range(MK + 1):
            ktab[i] = km.kernel(i, 0, 0)
        for t in range(T):
            scratch[t].nodes = nodes + t * (ex.n_addr + 1)
            scratch[t].values = values + t * (ex.n_atoms + 1)
            scratch[t].keys = keys + t * MK
        for q in range(W):
            pend[q].feat0 = <int64_t>q * MK
    try:
        if not ok:
            raise MemoryError("out of memory for the batched parse")
        w0 = 0
        while w0 < n_sent:
            n = <int>min(W, n_sent - w0)
            with nogil:
                for i in range(n):
                    corpus.sentence(w0 + i, &sent)
                    if not state_alloc(&states[i], sent.n):
                        ok = False
                        break
                    system.init_state(&states[i])
                    active[i] = i
                    recorded[i] = False
            if not ok:
                raise MemoryError("out of memory for the batched parse")
            n_active = n
            while n_active > 0:
                n_done = 0
                with nogil:
                    # 1. advance every unfinished sentence to its next classifier decision;
                    #    slot q of pend/feats belongs to the q-th active sentence
                    for q in prange(n_active, num_threads=T, schedule="dynamic", chunksize=32):
                        t = threadid()
                        i = active[q]
                        pending[q] = advance(system, ex, km, classes, corpus, &states[i], i, w0 + i,
                                             &scratch[t], &pend[q], feats, record_end, recorded,
                                             &eo[0], &ho[0], &lo[0])
                        if not pending[q]:
                            n_done += 1
                    n_next = 0
                    for q in range(n_active):
                        if pending[q]:
                            pend[n_next] = pend[q]   # keeps feat0: the features stay where they are
                            active[n_next] = active[q]
                            n_next += 1
                    n_active = n_next
                    # 2. group the pending decisions by split model, score, apply
                    memset(split_count, 0, sizeof(int) * (km.n_splits + 1))
                    for q in range(n_active):
                        split_count[pend[q].split + 1] += 1
                    for sp in range(km.n_splits):
                        split_count[sp + 1] += split_count[sp]
                        split_pos[sp] = split_count[sp]
                    for q in range(n_active):
                        sp = pend[q].split
                        by_split[split_pos[sp]] = q
                        split_pos[sp] += 1
                    n_work = 0
                    for sp in range(km.n_splits):
                        lo_b = split_count[sp]
                        while lo_b < split_count[sp + 1]:
                            nb = min(B, split_count[sp + 1] - lo_b)
                            work_sp[n_work], work_lo[n_work], work_nb[n_work] = sp, lo_b, nb
                            n_work += 1
                            lo_b += nb
                    # each work item touches its own sentences' states and its thread's scratch
                    for wi in prange(n_work, num_threads=T, schedule="dynamic"):
                        t = threadid()
                        score_group(km, &km.m[work_sp[wi]], classes, pend, by_split + work_lo[wi], work_nb[wi],
                                    feats, cnt + t * max_sv, ktab, kv + t * B * max_sv,
                                    P + t * B * K * K, votes + t * 2 * K, chosen + t * B)
                        apply_chosen(system, classes, states, pend, by_split + work_lo[wi], work_nb[wi],
                                     chosen + t * B, mo, corpus.off_p + w0)
                    # the compaction moved entries: restore each slot's own feature offset
                    for q in range(W):
                        pend[q].feat0 = <int64_t>q * MK
                if progress is not None and n_done:
                    progress(n_done)
            w0 += n
    finally:
        if states != NULL:
            for i in range(W):
                state_free(&states[i])
        free(states)
        free(active)
        free(recorded)
        free(pending)
        free(pend)
        free(feats)
        free(by_split)
        free(split_count)
        free(split_pos)
        free(scratch)
        free(nodes)
        free(values)
        free(keys)
        free(chosen)
        free(votes)
        free(kv)
        free(cnt)
        free(P)
        free(ktab)
        free(work_sp)
        free(work_lo)
        free(work_nb)
    if record_end:
        return heads_out, labels_out, end_out[:corpus.n_rows]
    return heads_out, labels_out
