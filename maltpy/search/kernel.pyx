# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernel (LIBSVM) models as a scorer.

A kernel model scores a decision against every support vector of its split, so one decision
costs (k-1) x nSV multiply-adds for k classes. Done one decision at a time (as MaltParser does)
that is slow; :meth:`KernelModels.score_many` scores many pending decisions together (the
greedy strategy's batched walk, :mod:`maltpy.search.greedy`): it groups them by split model and
scores each group with one matrix product per class (BLAS ``sgemm``), the groups in parallel
(OpenMP on Linux builds), each thread with its own scratch.

Per decision x and split model:
  dots[sv] = |x & sv| through an inverted index (feature -> support vectors;
    a feature most SVs have is stored as the list of SVs without it, and
    counts +1 for all minus 1 for those, which halves the work on EWT),
  K[sv] = kernel(dots[sv]) (a table look-up: dots are small integers),
  P[c][r] = sum over the SVs of class c of coef[r][sv] * K[sv]   (the sgemm),
  decision(i, j) = P[i][j-1] + P[j][i] + intercept(i, j) > 0 votes i, else j,
and the classes are ranked by votes as MaltParser ranks them (MaltLibsvmModel.predict:
a selection sort with swaps over the classes in LIBSVM's order, which is not stable,
so it decides ties). The first permissible class in that ranking scores its place from the end
and the other permissible classes -inf, so the step's arg-max takes it, as MaltParser does (when
the split model knows none of the permissible classes, all score -inf and the arg-max takes the
first permissible one). The ranking stops there: sorting the rest costs time and changes nothing
for a greedy search.
"""
cimport cython
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset
from libc.math cimport exp, tanh, INFINITY
from libc.stdint cimport uint64_t, int64_t, int32_t
from scipy.linalg.cython_blas cimport sgemm
from cython.parallel cimport prange, threadid

from maltpy.features.featmap cimport FeatMap, probe
from maltpy.search.decision cimport Decision, Scorer

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
cdef class KernelModels(Scorer):
    """Per-split kernel models in the layout the batched loop reads."""
    cdef SvmC* m
    cdef int kind, degree
    cdef float gamma, coef0
    cdef readonly int max_k, max_sv
    #: decisions scored in one matrix product (0: from the largest model's size); any value
    #: gives the same scores
    cdef public int batch
    cdef list _keep

    def __cinit__(self, list models, split_map, int default_split, kernel, int n_classes, left_out=None):
        """``models``: list of (feature keys uint64[n_feat], SvmModel over local ids 0..n_feat-1)
        whose classes are among the parser's ``n_classes``;
        ``left_out``: per model, how many of a decision's keys its vectors leave out (a split
        model leaves out the split feature, as MaltParser does), for the RBF kernel's norm."""
        self.n_splits = len(models)
        self.n_classes = n_classes
        self.batched = True
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
            if len(classes) and (classes.min() < 0 or classes.max() >= n_classes):
                raise ValueError("SVM classes out of range")
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

    cdef void* work_new(self, int n_threads, int batch) noexcept nogil:
        return kernel_work_new(self, n_threads, batch)

    cdef void work_free(self, void* work) noexcept nogil:
        kernel_work_free(<KernelWork*>work)

    cdef void score(self, Decision* d) noexcept nogil:
        """One decision alone (the batched strategy scores many at once: :meth:`score_many`)."""
        cdef void* work = kernel_work_new(self, 1, 1)
        if work == NULL:
            fill_lowest(d, self.n_classes)
            return
        self.score_many(&d, 1, 1, work)
        kernel_work_free(<KernelWork*>work)

    cdef void score_many(self, Decision** ds, int n, int n_threads, void* work) noexcept nogil:
        """The decisions grouped by split model, each group's kernel values scored with one
        matrix product per class, groups on ``n_threads`` threads. Scores: the first permissible
        class of MaltParser's ranking of the votes scores its place from the end, the other
        permissible classes -inf (the module's docstring)."""
        cdef KernelWork* w = <KernelWork*>work
        cdef int q, sp, lo_b, nb, n_work, wi, t, T = max(1, min(n_threads, w.n_threads if w != NULL else 1))
        cdef int B = w.batch if w != NULL else 1
        cdef int64_t total = 0
        cdef int max_nk = 0
        if w == NULL or n > w.cap:
            for q in range(n):
                fill_lowest(ds[q], self.n_classes)
            return
        # each decision's features that its split model knows, as the model's local ids
        for q in range(n):
            total += ds[q].nk
            max_nk = max(max_nk, ds[q].nk)
        if not (ensure_feats(w, total) and ensure_ktab(self, w, max_nk)):
            for q in range(n):
                fill_lowest(ds[q], self.n_classes)
            return
        total = 0
        for q in range(n):      # each decision's room: as many ids as it has keys
            w.feat0[q] = total
            total += ds[q].nk
        for q in prange(n, num_threads=T, schedule="static"):
            probe_features(self, ds[q], w, q)
        # group by split model; a work item is up to B decisions of one model
        memset(w.split_count, 0, sizeof(int) * (self.n_splits + 1))
        for q in range(n):
            w.split_count[ds[q].split + 1] += 1
        for sp in range(self.n_splits):
            w.split_count[sp + 1] += w.split_count[sp]
            w.split_pos[sp] = w.split_count[sp]
        for q in range(n):
            sp = ds[q].split
            w.by_split[w.split_pos[sp]] = q
            w.split_pos[sp] += 1
        n_work = 0
        for sp in range(self.n_splits):
            lo_b = w.split_count[sp]
            while lo_b < w.split_count[sp + 1]:
                nb = min(B, w.split_count[sp + 1] - lo_b)
                w.work_sp[n_work], w.work_lo[n_work], w.work_nb[n_work] = sp, lo_b, nb
                n_work += 1
                lo_b += nb
        # each work item writes its own decisions' scores and its thread's scratch
        for wi in prange(n_work, num_threads=T, schedule="dynamic"):
            t = threadid()
            score_group(self, &self.m[w.work_sp[wi]], ds, w, w.by_split + w.work_lo[wi], w.work_nb[wi],
                        w.cnt + t * self.max_sv, w.kv + <Py_ssize_t>t * B * self.max_sv,
                        w.P + <Py_ssize_t>t * B * self.max_k * self.max_k, w.votes + t * 2 * self.max_k)



cdef void probe_features(KernelModels km, const Decision* d, KernelWork* w, int q) noexcept nogil:
    """Decision q's features that its split model knows, as the model's local ids, at w.feat0[q]."""
    cdef const SvmC* m = &km.m[d.split]
    cdef int a, fid, n_feat = 0
    w.n_all[q] = d.nk - m.n_left_out
    for a in range(d.nk):
        fid = probe(m.keys, m.vals, m.mask, d.keys[a])
        if fid >= 0:
            w.feats[w.feat0[q] + n_feat] = fid
            n_feat += 1
    w.n_feat[q] = n_feat


cdef inline bint permissible(const Decision* d, int c) noexcept nogil:
    cdef int r
    for r in range(d.n_runs):
        if d.run_lo[r] <= c < d.run_end[r]:
            return True
    return False


cdef void fill_lowest(Decision* d, int n_classes) noexcept nogil:
    """Scores that leave the choice to the arg-max's rule for equal scores (out of memory)."""
    cdef int c
    for c in range(n_classes):
        d.scores[c] = -INFINITY


cdef struct KernelWork:
    # scratch of score_many: per decision, per work item, per thread
    int n_threads, batch, cap
    int32_t* feats
    int64_t feat_cap
    int64_t* feat0
    int* n_feat
    int* n_all
    int* by_split
    int* split_count
    int* split_pos
    int* work_sp
    int* work_lo
    int* work_nb
    short* cnt
    float* kv
    float* P
    int* votes
    float* ktab
    int ktab_len


cdef KernelWork* kernel_work_new(KernelModels km, int n_threads, int cap) noexcept nogil:
    """Scratch for up to ``cap`` decisions a call on ``n_threads`` threads; NULL when memory runs out."""
    cdef KernelWork* w = <KernelWork*>calloc(1, sizeof(KernelWork))
    cdef int T = max(1, n_threads), i
    cdef int K = km.max_k
    cdef Py_ssize_t max_sv = km.max_sv
    if w == NULL:
        return NULL
    w.n_threads = T
    w.cap = max(1, cap)
    # about 32 MB of kernel values per product, unless the models say (tests)
    w.batch = km.batch if km.batch > 0 else max(8, min(512, (8 << 20) // km.max_sv))
    w.batch = min(w.batch, w.cap)
    w.feat0 = <int64_t*>malloc(sizeof(int64_t) * w.cap)
    w.n_feat = <int*>malloc(sizeof(int) * w.cap)
    w.n_all = <int*>malloc(sizeof(int) * w.cap)
    w.by_split = <int*>malloc(sizeof(int) * w.cap)
    w.split_count = <int*>calloc(km.n_splits + 1, sizeof(int))
    w.split_pos = <int*>calloc(km.n_splits + 1, sizeof(int))
    w.work_sp = <int*>malloc(sizeof(int) * w.cap)
    w.work_lo = <int*>malloc(sizeof(int) * w.cap)
    w.work_nb = <int*>malloc(sizeof(int) * w.cap)
    w.cnt = <short*>malloc(sizeof(short) * max_sv * T)
    w.kv = <float*>malloc(sizeof(float) * w.batch * max_sv * T)
    w.P = <float*>malloc(sizeof(float) * w.batch * <Py_ssize_t>K * K * T)
    w.votes = <int*>malloc(sizeof(int) * 2 * K * T)    # votes and ranking, per thread
    if (w.feat0 == NULL or w.n_feat == NULL or w.n_all == NULL or w.by_split == NULL or w.split_count == NULL
            or w.split_pos == NULL or w.work_sp == NULL or w.work_lo == NULL or w.work_nb == NULL
            or w.cnt == NULL or w.kv == NULL or w.P == NULL or w.votes == NULL):
        kernel_work_free(w)
        return NULL
    return w


cdef bint ensure_ktab(KernelModels km, KernelWork* w, int n) noexcept nogil:
    """The kernel of every dot product up to n (a decision's features) in ``w.ktab``."""
    cdef float* p
    cdef int i
    if n < w.ktab_len:
        return True
    p = <float*>realloc(w.ktab, sizeof(float) * (n + 1))
    if p == NULL:
        return False
    w.ktab = p
    for i in range(w.ktab_len, n + 1):
        w.ktab[i] = km.kernel(i, 0, 0)
    w.ktab_len = n + 1
    return True


cdef bint ensure_feats(KernelWork* w, int64_t n) noexcept nogil:
    cdef int32_t* p
    if n <= w.feat_cap:
        return True
    p = <int32_t*>realloc(w.feats, sizeof(int32_t) * max(n, 2 * w.feat_cap))
    if p == NULL:
        return False
    w.feats = p
    w.feat_cap = max(n, 2 * w.feat_cap)
    return True


cdef void kernel_work_free(KernelWork* w) noexcept nogil:
    if w == NULL:
        return
    free(w.feats); free(w.feat0); free(w.n_feat); free(w.n_all); free(w.by_split)
    free(w.split_count); free(w.split_pos); free(w.work_sp); free(w.work_lo); free(w.work_nb)
    free(w.cnt); free(w.kv); free(w.P); free(w.votes); free(w.ktab)
    free(w)


cdef void score_group(KernelModels km, const SvmC* m, Decision** ds, const KernelWork* w, const int* idx,
                      int nb, short* cnt, float* kv, float* P, int* votes) noexcept nogil:
    """Score each of nb decisions of split model m (``idx`` into ``ds``).

    ``cnt``: scratch of max_sv counts; ``w.ktab[d]``: kernel value of dot product d
    (every kernel but RBF depends on the dot product alone).
    """
    cdef int b, f, c, i, j, p, r, k = m.k, n_sv = m.n_sv, km1 = m.k - 1, ldc, n_c, g, off, imax, q
    cdef int* rank
    cdef int64_t t
    cdef float* row
    cdef float* pb
    cdef float alpha = 1, beta = 0, dec
    cdef const float* ktab
    cdef Decision* d
    if k > 1 and n_sv > 0:
        for b in range(nb):
            q = idx[b]
            row = kv + <Py_ssize_t>b * n_sv
            memset(cnt, 0, sizeof(short) * n_sv)
            off = 0
            for f in range(w.n_feat[q]):
                g = w.feats[w.feat0[q] + f]
                if m.inv_neg[g]:  # listed: the SVs without g
                    off += 1
                    for t in range(m.inv_ptr[g], m.inv_ptr[g + 1]):
                        cnt[m.inv_sv[t]] -= 1
                else:
                    for t in range(m.inv_ptr[g], m.inv_ptr[g + 1]):
                        cnt[m.inv_sv[t]] += 1
            if km.kind == 2:
                for i in range(n_sv):
                    row[i] = km.kernel(cnt[i] + off, w.n_all[q], m.sv_norm[i])
            else:
                ktab = w.ktab + off
                for i in range(n_sv):
                    row[i] = ktab[cnt[i]]
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
        d = ds[idx[b]]
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
        # MaltParser's ranking: selection sort by votes, swapping votes and classes alike (not
        # stable, so it decides ties), as far as the first permissible class, which scores its
        # place from the end; the other permissible classes score -inf
        rank = votes + k
        for c in range(k):
            rank[c] = c
        for r in range(d.n_runs):
            for c in range(d.run_lo[r], d.run_end[r]):
                d.scores[c] = -INFINITY
        for i in range(k):
            if i < k - 1:
                imax = i
                for j in range(i + 1, k):
                    if votes[j] > votes[imax]:
                        imax = j
                if imax != i:
                    votes[i], votes[imax] = votes[imax], votes[i]
                    rank[i], rank[imax] = rank[imax], rank[i]
            c = m.classes[rank[i]]
            if permissible(d, c):
                d.scores[c] = <float>(k - i)
                break
