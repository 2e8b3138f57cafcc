"""Crammer and Singer's multi-class linear SVM for 0/1 features (LIBLINEAR's ``-s 4``).

The dual is solved by sequential coordinate descent over instances with
shrinking of classes and instances (Keerthi et al., KDD 2008: "A sequential
dual method for large scale multi-class linear SVMs"), the method LIBLINEAR
and so MaltParser use. maltpy has its own copy because its feature vectors are
0/1 and the default learner is this one: it skips the value products, the copy
into LIBLINEAR's (index, value) nodes and LIBLINEAR's per-instance full sort of
the sub-problem (as fast as scikit-learn's LIBLINEAR on the EWT instances, up to
1.9 times as fast on a loaded machine; see docs/benchmarks.md), it trains
without the GIL, so split models train in parallel threads, a model trained
alone can have a second thread sum gradients ahead of it (checked, so the
weights do not change), and it visits instances in the order MaltParser's
LIBLINEAR does.

Where LIBLINEAR leaves a choice, the solver makes the one of the Java port of
LIBLINEAR that MaltParser trains with: instances are shuffled with
java.util.Random's numbers (seed 0 by default, as there) and gradients are
summed in the same order, so given instances grouped as LIBLINEAR groups them
(:func:`maltpy.learners.liblinear.liblinear_order`) it visits the same
instances in the same order as MaltParser's LIBLINEAR would. (MaltParser's
generator runs on from one split model to the next; maltpy seeds every model
afresh, so that split models can train in parallel.)

Problem (w_m: the weights of class m, e_i^m = 0 if m = y_i else 1)::

    min_alpha  1/2 sum_m |w_m|^2 + sum_i sum_m e_i^m alpha_i^m,   w_m = sum_i alpha_i^m x_i
    s.t.       sum_m alpha_i^m = 0,   alpha_i^m <= C if m = y_i else 0
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport fabs, INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from maltpy.simd cimport prefetch

cnp.import_array()


cdef extern from "maltpy/learners/mcsvm_helper.h":
    int MCSVM_HELPER, MCSVM_IDLE, MCSVM_FULL
    ctypedef struct mcsvm_helper:
        pass
    void gradient "mcsvm_gradient"(double* g, const double* w, const int32_t* indices, int64_t start,
                                   int64_t end, int64_t stride, int nc, int y) nogil
    mcsvm_helper* helper_start "mcsvm_helper_start"(const int64_t* row_lo, const int64_t* row_hi,
                                                     const int32_t* indices,
                                                     const int32_t* y, const double* w, int64_t stride,
                                                     int nc, int64_t l, int64_t n_rows,
                                                     const int64_t* index) nogil
    void helper_mode "mcsvm_helper_mode"(mcsvm_helper* h, int mode) nogil
    void helper_stop "mcsvm_helper_stop"(mcsvm_helper* h, int64_t* used, int64_t* summed) nogil
    void helper_at "mcsvm_helper_at"(mcsvm_helper* h, int64_t s, int64_t active) nogil
    void helper_updated "mcsvm_helper_updated"(mcsvm_helper* h, int64_t i) nogil
    bint helper_take "mcsvm_helper_take"(mcsvm_helper* h, int64_t i, double* g) nogil


#: problems smaller than this are solved without the helper thread (starting it costs more)
DEF HELPER_MIN_INSTANCES = 20000
#: an update below this size is dropped, as in LIBLINEAR
DEF TINY = 1e-12


cdef inline uint64_t _java_seed(uint64_t seed) noexcept nogil:
    """The generator state of ``new java.util.Random(seed)``."""
    return (seed ^ 0x5DEECE66DULL) & ((1ULL << 48) - 1)


cdef inline int64_t _java_next31(uint64_t* state) noexcept nogil:
    """The next 31 random bits of java.util.Random (a 48-bit linear congruential generator)."""
    state[0] = (state[0] * 0x5DEECE66DULL + 0xBULL) & ((1ULL << 48) - 1)
    return <int64_t>(state[0] >> 17)


cdef inline int64_t _java_below(uint64_t* state, int64_t bound) noexcept nogil:
    """java.util.Random.nextInt(bound) for 0 < bound < 2**31, draw for draw.

    LIBLINEAR's Java port, which MaltParser trains with, shuffles instances with
    it; drawing the same numbers makes maltpy visit instances in the same order.
    """
    cdef int64_t bits, val
    if (bound & -bound) == bound:  # a power of two: the high bits
        return (bound * _java_next31(state)) >> 31
    while True:
        bits = _java_next31(state)
        val = bits % bound
        # Java rejects draws whose 32-bit sum overflows (the last, partial block of bound values)
        if bits - val + (bound - 1) < (1LL << 31):
            return val


def java_random_ints(unsigned long long seed, bounds):
    """``new java.util.Random(seed)``'s ``nextInt(b)`` for each b in bounds, in order (for tests)."""
    cdef uint64_t state = _java_seed(seed)
    return [int(_java_below(&state, b)) for b in bounds]


cdef inline void _sift_down(double* heap, int n, int k) noexcept nogil:
    cdef int child
    cdef double v = heap[k]
    while True:
        child = 2 * k + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1] > heap[child]:
            child += 1
        if heap[child] <= v:
            break
        heap[k] = heap[child]
        k = child
    heap[k] = v


cdef inline double _pop_max(double* heap, int* n) noexcept nogil:
    cdef double top = heap[0]
    n[0] -= 1
    if n[0] > 0:
        heap[0] = heap[n[0]]
        _sift_down(heap, n[0], 0)
    return top


cdef void _solve_sub_problem(double A, int y_pos, double C, int k, const double* B,
                             double* D, double* alpha_new) noexcept nogil:
    """The optimal alpha_i over its k active classes, given B_m = G_m - A alpha_i^m.

    alpha_m = min(bound_m, (beta - B_m) / A), where beta is found by walking the
    values D_m = B_m + A bound_m in descending order. The walk usually stops after
    a few values, so they come off a heap instead of a full sort.
    """
    cdef int m, r, n = k
    cdef double beta, d
    for m in range(k):
        D[m] = B[m]
    if y_pos < k:
        D[y_pos] += A * C
    for m in range(k // 2 - 1, -1, -1):
        _sift_down(D, n, m)
    beta = _pop_max(D, &n) - A * C
    r = 1
    while r < k:
        d = D[0]  # the next largest value
        if not beta < r * d:
            break
        beta += _pop_max(D, &n)
        r += 1
    beta /= r
    for m in range(k):
        d = (beta - B[m]) / A
        if m == y_pos:
            alpha_new[m] = d if d < C else C
        else:
            alpha_new[m] = d if d < 0 else 0.0


cdef struct _Data:   # the solver's arrays, for the prefetches
    const int64_t* row_lo
    const int64_t* row_hi
    const int32_t* indices
    const int32_t* y
    const int32_t* n_active
    const uint64_t* bits
    const _Block* blocks
    const _Alpha* pool
    const double* w
    int nc
    int words
    int64_t stride


cdef extern from *:
    """
    #define maltpy_ctzll(x) __builtin_ctzll(x)
    /* a side effect for the compiler: a function of prefetches and loads only is pure to GCC,
       and a pure function's call whose result is unused is dropped, prefetches and all */
    #if defined(__GNUC__) || defined(__clang__)
    #define maltpy_keep() __asm__ __volatile__("")
    #else
    #define maltpy_keep() ((void)0)
    #endif
    """
    int __builtin_ctzll "maltpy_ctzll"(uint64_t x) nogil
    void keep_prefetches "maltpy_keep"() nogil


cdef inline void _prefetch_ahead(const _Data* d, int64_t i, int stage) noexcept nogil:
    """Ask for instance i's data in three stages, each needing the one before in cache:
    0: its entries in the per-instance arrays; 1: its feature ids, active classes and alphas;
    2: the weight rows of its features (whole rows when every class is active, whose first
    lines start the hardware's prefetch; else the active classes')."""
    cdef int c, b
    cdef int64_t p
    cdef uint64_t word
    if stage == 0:
        prefetch(&d.row_lo[i])
        prefetch(&d.row_hi[i])
        prefetch(&d.n_active[i])
        prefetch(&d.y[i])
        prefetch(&d.blocks[i])
    elif stage == 1:
        prefetch(&d.indices[d.row_lo[i]])
        prefetch(&d.bits[i * d.words])
        if d.blocks[i].len:
            prefetch(&d.pool[d.blocks[i].off])
    elif d.n_active[i] == d.nc:
        for p in range(d.row_lo[i], d.row_hi[i]):
            prefetch(&d.w[d.indices[p] * d.stride])
    else:
        for b in range(d.words):
            word = d.bits[i * d.words + b]
            while word:
                c = 64 * b + __builtin_ctzll(word)
                word &= word - 1
                for p in range(d.row_lo[i], d.row_hi[i]):
                    prefetch(&d.w[d.indices[p] * d.stride + c])
    keep_prefetches()


cdef struct _Alpha:
    double val
    int32_t cls


cdef struct _Block:
    int64_t off
    int32_t len
    int32_t cap


cdef struct _Alphas:
    # every instance's non-zero alphas, (value, class) pairs in one growing pool: instance i's
    # are pool[blocks[i].off .. + blocks[i].len), with room for blocks[i].cap. Most alphas stay
    # zero (a class's is non-zero only while it is a support class of the instance), so the
    # pool holds a few per instance where a dense l x classes table held every one.
    _Block* blocks
    _Alpha* pool
    int64_t used, size


cdef bint _alphas_init(_Alphas* a, int64_t l) noexcept nogil:
    a.blocks = <_Block*>calloc(l, sizeof(_Block))
    a.size = 2 * l + 16
    a.used = 0
    a.pool = <_Alpha*>malloc(a.size * sizeof(_Alpha))
    return a.blocks != NULL and a.pool != NULL


cdef void _alphas_free(_Alphas* a) noexcept nogil:
    free(a.blocks)
    free(a.pool)


cdef inline void _alphas_expand(const _Alphas* a, int64_t i, double* dense) noexcept nogil:
    """Instance i's alphas into ``dense`` (all zeros before)."""
    cdef const _Alpha* e = a.pool + a.blocks[i].off
    cdef int q
    for q in range(a.blocks[i].len):
        dense[e[q].cls] = e[q].val


cdef bint _alphas_store(_Alphas* a, int64_t i, double* dense, unsigned char* is_act, const int* act, int k,
                        _Alpha* tmp) noexcept nogil:
    """Put back instance i's alphas from ``dense``, where only the active classes ``act[:k]``
    can have changed, and leave ``dense`` all zeros again. False when memory runs out."""
    cdef _Block* blk = &a.blocks[i]
    cdef _Alpha* e = a.pool + blk.off
    cdef int q, m, c, n = 0
    cdef int64_t need, grown
    cdef _Alpha* new_pool
    for m in range(k):
        is_act[act[m]] = 1
    for q in range(blk.len):           # the other non-zero ones keep their values
        c = e[q].cls
        if not is_act[c]:
            tmp[n] = e[q]
            n += 1
            dense[c] = 0.0
    for m in range(k):
        c = act[m]
        if dense[c] != 0.0:
            tmp[n].cls = c
            tmp[n].val = dense[c]
            n += 1
        dense[c] = 0.0
        is_act[c] = 0
    if n > blk.cap:                    # a larger block at the end of the pool (the old one is left)
        need = 2 * n if n > 2 else 4
        if a.used + need > a.size:
            grown = 2 * a.size if 2 * a.size > a.used + need else a.used + need
            new_pool = <_Alpha*>realloc(a.pool, grown * sizeof(_Alpha))
            if new_pool == NULL:
                return False
            a.pool = new_pool
            a.size = grown
        blk.off = a.used
        blk.cap = <int32_t>need
        a.used += need
        e = a.pool + blk.off
    for m in range(n):
        e[m] = tmp[m]
    blk.len = n
    return True


cdef inline bint _shrinkable(int m, int y_pos, double alpha, double C, double G, double min_G) noexcept nogil:
    """A class at its bound whose gradient is below every free class's leaves the active set."""
    return alpha == (C if m == y_pos else 0.0) and G < min_G


# Set from the main thread on Ctrl-C; read by every running solver between instances, so that
# training stops within a fraction of a second instead of at the end of the solve.
cdef volatile int _stop_requested = 0


def request_stop(bint stop=True):
    """Ask every running solver to stop at its next instance (``stop=False`` clears the request)."""
    global _stop_requested
    _stop_requested = stop


def train_crammer_singer(const int32_t[::1] indptr, const int32_t[::1] indices, const int32_t[::1] y,
                         int n_features, int n_classes, double C=0.1, double eps=0.1, double bias=-1.0,
                         int max_iter=1000, unsigned long long seed=0, progress=None, int n_threads=1,
                         stats=None, rows=None):
    """Train on 0/1 instances in CSR form (``indptr``, ``indices``) with classes ``y`` in 0..n_classes-1.

    ``rows``: instance i is CSR row ``rows[i]`` (a permutation or selection of the rows, so that
    the instances can be grouped by class without copying them); default: row i.
    ``bias > 0`` adds a constant feature of that value (LIBLINEAR's ``-B``).
    ``progress(n_passes, violation)``, if given, is called after every pass; the
    solver stops when a pass over all instances finds the largest KKT violation below eps.
    Returns ``(W, b, n_iter)``: W float64 (n_features x n_classes), b the bias
    term per class (zeros without bias), n_iter the passes over the data.
    With ``n_threads`` > 1 a helper thread sums gradients ahead of the solver in the passes over
    every instance; the solver checks each sum (maltpy/learners/mcsvm_helper.h), so the result is
    the same, bit for bit. ``stats``, a dict, receives how many of its sums were made and used.

    Memory per instance is a few dozen bytes besides its feature ids: the active classes as a
    bit set and the non-zero alphas in a pool (:c:type:`_Alphas`), where LIBLINEAR keeps every
    class's alpha and a class order (10 bytes a class, over 1 KB an instance with 100 classes).
    The class order only ever served to list the active classes; every sum over them is taken
    class by class, so the weights are those of LIBLINEAR's layout, bit for bit.
    """
    ptr = np.asarray(indptr)
    n_rows_csr = ptr.shape[0] - 1
    if n_rows_csr < 0 or ptr[0] != 0 or ptr[n_rows_csr] != indices.shape[0] or np.any(np.diff(ptr) < 0):
        raise ValueError("indptr must rise from 0 to len(indices)")
    if rows is None:
        row_lo_arr, row_hi_arr = ptr[:n_rows_csr].astype(np.int64), ptr[1:].astype(np.int64)
    else:
        r = np.asarray(rows, dtype=np.int64)
        if r.ndim != 1 or (len(r) and (r.min() < 0 or r.max() >= n_rows_csr)):
            raise ValueError("rows must name rows of the CSR matrix")
        row_lo_arr, row_hi_arr = ptr[r].astype(np.int64), ptr[r + 1].astype(np.int64)
    cdef int64_t l = len(row_lo_arr)
    if l < 1 or y.shape[0] != l:
        raise ValueError("the rows and y must describe the same, non-empty set of instances")
    if n_classes < 2 or n_classes > 65535:
        raise ValueError(f"need 2..65535 classes, got {n_classes}")
    if np.any(np.asarray(y) < 0) or np.any(np.asarray(y) >= n_classes):
        raise ValueError("class ids must lie in 0..n_classes-1")
    if indices.shape[0] and (np.min(indices) < 0 or np.max(indices) >= n_features):
        raise ValueError("feature ids must lie in 0..n_features-1")
    cdef const int64_t[::1] row_lo = row_lo_arr
    cdef const int64_t[::1] row_hi = row_hi_arr
    cdef const int32_t* idx = &indices[0] if indices.shape[0] else NULL
    cdef bint has_bias = bias > 0
    cdef int nc = n_classes
    cdef int words = (nc + 63) // 64
    cdef int64_t n_rows = n_features + (1 if has_bias else 0)
    w_arr = np.zeros((n_rows, nc), dtype=np.float64)
    # the active classes of each instance as a bit set (all at first)
    bits_arr = np.zeros((l, words), dtype=np.uint64)
    full_word = np.zeros(words, dtype=np.uint64)
    every = np.arange(nc)
    np.bitwise_or.at(full_word, every // 64, np.left_shift(np.uint64(1), (every % 64).astype(np.uint64)))
    bits_arr[:] = full_word
    cdef double[:, ::1] w = w_arr
    cdef uint64_t[:, ::1] bits = bits_arr
    cdef const uint64_t[::1] full = full_word
    cdef int64_t[::1] index = np.arange(l, dtype=np.int64)
    cdef int32_t[::1] n_active_classes = np.full(l, nc, dtype=np.int32)
    cdef double[::1] G = np.empty(nc), B = np.empty(nc), D = np.empty(nc)
    cdef double[::1] alpha_new = np.empty(nc), d_val = np.empty(nc), G_class = np.empty(nc)
    cdef double[::1] alpha_dense = np.zeros(nc)    # the visited instance's alphas, by class
    cdef _Alpha* tmp = <_Alpha*>malloc(nc * sizeof(_Alpha))
    cdef int[::1] act_arr = np.empty(nc, dtype=np.intc)   # its active classes, in class order
    cdef unsigned char[::1] is_act = np.zeros(nc, dtype=np.uint8)
    cdef int* act = &act_arr[0]
    cdef double* Gc = &G_class[0]
    cdef double* alpha_i = &alpha_dense[0]
    cdef int32_t[::1] d_cls = np.empty(nc, dtype=np.int32)
    cdef uint64_t state = _java_seed(seed)
    cdef int64_t active = l, s, i, j, p, t, it = 0
    cdef int k, m, c, yp, n_d, b
    cdef uint64_t word
    cdef double A, min_G, max_G, stopping, d, bias2 = bias * bias if has_bias else 0.0
    cdef double eps_shrink = max(10.0 * eps, 1.0)
    cdef bint start_from_all = True   # this pass visits every instance with every class active
    cdef bint out_of_memory = False
    cdef double* row
    cdef int64_t head_at = -1, tail_at = -1
    cdef int stage
    cdef int AHEAD[3]
    AHEAD[:] = [16, 8, 4]
    cdef _Alphas alphas
    if not _alphas_init(&alphas, l) or tmp == NULL:
        _alphas_free(&alphas)
        free(tmp)
        raise MemoryError()
    cdef _Data data
    data.row_lo = &row_lo[0]; data.row_hi = &row_hi[0]; data.indices = idx; data.y = &y[0]
    data.n_active = &n_active_classes[0]; data.bits = &bits[0, 0]
    data.blocks = alphas.blocks; data.pool = alphas.pool
    data.w = &w[0, 0]; data.nc = nc; data.words = words; data.stride = w.shape[1]
    cdef mcsvm_helper* helper = NULL
    cdef int64_t helper_used = 0, helper_summed = 0
    if n_threads > 1 and MCSVM_HELPER and l >= HELPER_MIN_INSTANCES:
        helper = helper_start(&row_lo[0], &row_hi[0], idx, &y[0], &w[0, 0], w.shape[1], nc, l, n_rows,
                              &index[0])
    try:
        with nogil:
            while it < max_iter:
                stopping = -INFINITY
                for s in range(active):
                    j = s + _java_below(&state, active - s)
                    t = index[s]; index[s] = index[j]; index[j] = t
                if helper != NULL and start_from_all:
                    helper_at(helper, 0, active)
                    helper_mode(helper, MCSVM_FULL)
                s = 0
                head_at = -1
                tail_at = -1
                while s < active and not _stop_requested:
                    i = index[s]
                    if helper != NULL and start_from_all:
                        helper_at(helper, s, active)
                    # the next instances' data are scattered in memory (they come in random order),
                    # and each piece gives the address of the next, so they are asked for in stages
                    # 16, 8 and 4 instances ahead. Two queues feed the loop: index[s + 1], ... (taken
                    # when this instance stays active) and index[active - 1], ... (taken when it is
                    # shrunk away: most instances of a pass over everything), so both are asked for,
                    # each when it moves. Asking only for the first took 25-30 % more time on the
                    # passes over everything (docs/benchmarks.md).
                    if s != head_at:
                        head_at = s
                        for stage in range(3):
                            if s + AHEAD[stage] < active:
                                _prefetch_ahead(&data, index[s + AHEAD[stage]], stage)
                    if active != tail_at:
                        tail_at = active
                        for stage in range(3):
                            if active - 1 - AHEAD[stage] > s:
                                _prefetch_ahead(&data, index[active - 1 - AHEAD[stage]], stage)
                    A = (row_hi[i] - row_lo[i]) + bias2
                    if A <= 0:
                        s += 1
                        continue
                    # the active classes in class order, and where y is among them (k if not)
                    if n_active_classes[i] == nc:
                        for m in range(nc):
                            act[m] = m
                        k = nc
                        yp = y[i]
                    else:
                        k = 0
                        yp = -1
                        for b in range(words):
                            word = bits[i, b]
                            while word:
                                c = 64 * b + __builtin_ctzll(word)
                                word &= word - 1
                                if c == y[i]:
                                    yp = k
                                act[k] = c
                                k += 1
                        if yp < 0:
                            yp = k
                    _alphas_expand(&alphas, i, alpha_i)
                    # gradient over the active classes: e_i^m + w_m . x_i, summed in LIBLINEAR's order
                    if k == nc:
                        # every class active (the passes over all instances, most of the solver's
                        # time): sum whole rows in class order
                        if helper == NULL or not helper_take(helper, i, Gc):
                            gradient(Gc, &w[0, 0], idx, row_lo[i], row_hi[i], w.shape[1], nc, y[i])
                        for m in range(k):
                            G[m] = Gc[m]
                    else:
                        for m in range(k):
                            G[m] = 1.0
                        if yp < k:
                            G[yp] = 0.0
                        for p in range(row_lo[i], row_hi[i]):
                            row = &w[idx[p], 0]
                            for m in range(k):
                                G[m] += row[act[m]]
                    if has_bias:
                        row = &w[n_features, 0]
                        for m in range(k):
                            G[m] += bias * row[act[m]]
                    min_G = INFINITY
                    max_G = -INFINITY
                    for m in range(k):
                        if alpha_i[act[m]] < 0 and G[m] < min_G:
                            min_G = G[m]
                        if G[m] > max_G:
                            max_G = G[m]
                    if yp < k and alpha_i[y[i]] < C and G[yp] < min_G:
                        min_G = G[yp]
                    # shrinking: move the classes at their bounds behind the active ones
                    m = 0
                    while m < k:
                        if _shrinkable(m, yp, alpha_i[act[m]], C, G[m], min_G):
                            k -= 1
                            while k > m:
                                if not _shrinkable(k, yp, alpha_i[act[k]], C, G[k], min_G):
                                    act[m], act[k] = act[k], act[m]
                                    G[m], G[k] = G[k], G[m]
                                    if yp == k:
                                        yp = m
                                    elif yp == m:
                                        yp = k
                                    break
                                k -= 1
                        m += 1
                    n_active_classes[i] = k
                    for b in range(words):
                        bits[i, b] = 0
                    for m in range(k):
                        bits[i, act[m] >> 6] |= (<uint64_t>1) << (act[m] & 63)
                    if k <= 1:  # nothing left to optimize for this instance until the next full pass
                        _alphas_store(&alphas, i, alpha_i, &is_act[0], act, 0, tmp)
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                    s += 1
                    if max_G - min_G <= TINY:
                        _alphas_store(&alphas, i, alpha_i, &is_act[0], act, 0, tmp)
                        continue
                    if max_G - min_G > stopping:
                        stopping = max_G - min_G
                    for m in range(k):
                        B[m] = G[m] - A * alpha_i[act[m]]
                    _solve_sub_problem(A, yp, C, k, &B[0], &D[0], &alpha_new[0])
                    n_d = 0
                    for m in range(k):
                        c = act[m]
                        d = alpha_new[m] - alpha_i[c]
                        alpha_i[c] = alpha_new[m]
                        if fabs(d) >= TINY:
                            d_cls[n_d] = c
                            d_val[n_d] = d
                            n_d += 1
                    if not _alphas_store(&alphas, i, alpha_i, &is_act[0], act, k, tmp):
                        out_of_memory = True
                        break
                    data.pool = alphas.pool      # the pool may have moved
                    if n_d == 0:
                        continue
                    for p in range(row_lo[i], row_hi[i]):
                        row = &w[idx[p], 0]
                        for m in range(n_d):
                            row[d_cls[m]] += d_val[m]
                    if has_bias:
                        row = &w[n_features, 0]
                        for m in range(n_d):
                            row[d_cls[m]] += bias * d_val[m]
                    if helper != NULL:
                        helper_updated(helper, i)
                if out_of_memory:
                    break
                it += 1
                if helper != NULL and start_from_all:
                    helper_mode(helper, MCSVM_IDLE)
                if _stop_requested:
                    break
                if progress is not None:
                    with gil:
                        progress(it, stopping)
                if stopping < eps_shrink:
                    if stopping < eps and start_from_all:
                        break
                    # converged on the shrunk problem: check again with everything active
                    active = l
                    for j in range(l):
                        n_active_classes[j] = nc
                        for b in range(words):
                            bits[j, b] = full[b]
                    eps_shrink = max(eps_shrink / 2, eps)
                    start_from_all = True
                else:
                    start_from_all = False
    finally:
        if helper != NULL:
            helper_stop(helper, &helper_used, &helper_summed)
        if stats is not None:
            stats.update(helper_sums=int(helper_summed), helper_sums_used=int(helper_used))
        _alphas_free(&alphas)
        free(tmp)
    if out_of_memory:
        raise MemoryError("out of memory in the Crammer-Singer solver")
    if _stop_requested:
        raise KeyboardInterrupt("training stopped")
    if has_bias:
        return w_arr[:n_features], w_arr[n_features] * bias, int(it)
    return w_arr, np.zeros(nc), int(it)
