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
from libc.stdint cimport int32_t, int64_t, uint16_t, uint64_t

cnp.import_array()

cdef extern from "maltpy/simd.h":
    void prefetch "MALTPY_PREFETCH"(const void* p) nogil


cdef extern from "maltpy/learners/mcsvm_helper.h":
    int MCSVM_HELPER, MCSVM_IDLE, MCSVM_FULL
    ctypedef struct mcsvm_helper:
        pass
    void gradient "mcsvm_gradient"(double* g, const double* w, const int32_t* indices, int64_t start,
                                   int64_t end, int64_t stride, int nc, int y) nogil
    mcsvm_helper* helper_start "mcsvm_helper_start"(const int32_t* indptr, const int32_t* indices,
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
    const int32_t* indptr
    const int32_t* indices
    const int32_t* y
    const int32_t* y_pos
    const int32_t* n_active
    const uint16_t* order
    const double* alpha
    const double* w
    int nc
    int64_t stride


cdef inline void _prefetch_ahead(const _Data* d, int64_t i, int stage) noexcept nogil:
    """Ask for instance i's data in three stages, each needing the one before in cache:
    0: its entries in the per-instance arrays; 1: its feature ids and class order;
    2: its alphas and the weight rows of its features (whole rows when every class is
    active, whose first lines start the hardware's prefetch; else the active classes')."""
    cdef int m, c
    cdef int64_t p
    if stage == 0:
        prefetch(&d.indptr[i])
        prefetch(&d.n_active[i])
        prefetch(&d.y[i])
        prefetch(&d.y_pos[i])
    elif stage == 1:
        prefetch(&d.indices[d.indptr[i]])
        for m in range(0, d.n_active[i], 32):
            prefetch(&d.order[i * d.nc + m])
    elif d.n_active[i] == d.nc:
        for m in range(0, d.nc, 8):
            prefetch(&d.alpha[i * d.nc + m])
        for p in range(d.indptr[i], d.indptr[i + 1]):
            prefetch(&d.w[d.indices[p] * d.stride])
    else:
        for m in range(d.n_active[i]):
            c = d.order[i * d.nc + m]
            prefetch(&d.alpha[i * d.nc + c])
            for p in range(d.indptr[i], d.indptr[i + 1]):
                prefetch(&d.w[d.indices[p] * d.stride + c])


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
                         stats=None):
    """Train on 0/1 instances in CSR form (``indptr``, ``indices``) with classes ``y`` in 0..n_classes-1.

    ``bias > 0`` adds a constant feature of that value (LIBLINEAR's ``-B``).
    ``progress(n_passes, violation)``, if given, is called after every pass; the
    solver stops when a pass over all instances finds the largest KKT violation below eps.
    Returns ``(W, b, n_iter)``: W float64 (n_features x n_classes), b the bias
    term per class (zeros without bias), n_iter the passes over the data.
    With ``n_threads`` > 1 a helper thread sums gradients ahead of the solver in the passes over
    every instance; the solver checks each sum (maltpy/learners/mcsvm_helper.h), so the result is
    the same, bit for bit. ``stats``, a dict, receives how many of its sums were made and used.
    """
    cdef int64_t l = indptr.shape[0] - 1
    if l < 1 or y.shape[0] != l:
        raise ValueError("indptr and y must describe the same, non-empty set of instances")
    if n_classes < 2 or n_classes > 65535:
        raise ValueError(f"need 2..65535 classes, got {n_classes}")
    if np.any(np.asarray(y) < 0) or np.any(np.asarray(y) >= n_classes):
        raise ValueError("class ids must lie in 0..n_classes-1")
    ptr = np.asarray(indptr)
    if ptr[0] != 0 or ptr[l] != indices.shape[0] or np.any(np.diff(ptr) < 0):
        raise ValueError("indptr must rise from 0 to len(indices)")
    if indices.shape[0] and (np.min(indices) < 0 or np.max(indices) >= n_features):
        raise ValueError("feature ids must lie in 0..n_features-1")
    cdef bint has_bias = bias > 0
    cdef int nc = n_classes
    cdef int64_t n_rows = n_features + (1 if has_bias else 0)
    w_arr = np.zeros((n_rows, nc), dtype=np.float64)
    alpha_arr = np.zeros((l, nc), dtype=np.float64)
    class_order = np.empty((l, nc), dtype=np.uint16)  # per instance: its active classes first
    class_order[:] = np.arange(nc, dtype=np.uint16)
    cdef double[:, ::1] w = w_arr
    cdef double[:, ::1] alpha = alpha_arr
    cdef uint16_t[:, ::1] order = class_order
    cdef int64_t[::1] index = np.arange(l, dtype=np.int64)
    cdef int32_t[::1] n_active_classes = np.full(l, nc, dtype=np.int32)
    cdef int32_t[::1] y_pos = np.asarray(y, dtype=np.int32).copy()  # where y_i sits in order[i]
    cdef double[::1] G = np.empty(nc), B = np.empty(nc), D = np.empty(nc)
    cdef double[::1] alpha_new = np.empty(nc), d_val = np.empty(nc), G_class = np.empty(nc)
    cdef double* Gc = &G_class[0]
    cdef int32_t[::1] d_cls = np.empty(nc, dtype=np.int32)
    cdef uint64_t state = _java_seed(seed)
    cdef int64_t active = l, s, i, j, p, t, it = 0
    cdef int k, m, c, yp, n_d
    cdef double A, min_G, max_G, stopping, d, bias2 = bias * bias if has_bias else 0.0
    cdef double eps_shrink = max(10.0 * eps, 1.0)
    cdef bint start_from_all = True   # this pass visits every instance with every class active
    cdef double* row
    cdef double* alpha_i
    cdef uint16_t* order_i
    cdef int64_t head_at = -1, tail_at = -1
    cdef int stage
    cdef int AHEAD[3]
    AHEAD[:] = [16, 8, 4]
    cdef _Data data
    data.indptr = &indptr[0]; data.indices = &indices[0]; data.y = &y[0]; data.y_pos = &y_pos[0]
    data.n_active = &n_active_classes[0]; data.order = &order[0, 0]; data.alpha = &alpha[0, 0]
    data.w = &w[0, 0]; data.nc = nc; data.stride = w.shape[1]
    cdef mcsvm_helper* helper = NULL
    cdef int64_t helper_used = 0, helper_summed = 0
    if n_threads > 1 and MCSVM_HELPER and l >= HELPER_MIN_INSTANCES:
        helper = helper_start(&indptr[0], &indices[0], &y[0], &w[0, 0], w.shape[1], nc, l, n_rows,
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
                    A = (indptr[i + 1] - indptr[i]) + bias2
                    if A <= 0:
                        s += 1
                        continue
                    k = n_active_classes[i]
                    yp = y_pos[i]
                    alpha_i = &alpha[i, 0]
                    order_i = &order[i, 0]
                    # gradient over the active classes: e_i^m + w_m . x_i, summed in LIBLINEAR's order
                    if k == nc:
                        # every class active (the passes over all instances, most of the solver's
                        # time): sum whole rows in class order, then read them in this instance's order
                        if helper == NULL or not helper_take(helper, i, Gc):
                            gradient(Gc, &w[0, 0], &indices[0], indptr[i], indptr[i + 1], w.shape[1],
                                     nc, y[i])
                        for m in range(k):
                            G[m] = Gc[order_i[m]]
                    else:
                        for m in range(k):
                            G[m] = 1.0
                        if yp < k:
                            G[yp] = 0.0
                        for p in range(indptr[i], indptr[i + 1]):
                            row = &w[indices[p], 0]
                            for m in range(k):
                                G[m] += row[order_i[m]]
                    if has_bias:
                        row = &w[n_features, 0]
                        for m in range(k):
                            G[m] += bias * row[order_i[m]]
                    min_G = INFINITY
                    max_G = -INFINITY
                    for m in range(k):
                        if alpha_i[order_i[m]] < 0 and G[m] < min_G:
                            min_G = G[m]
                        if G[m] > max_G:
                            max_G = G[m]
                    if yp < k and alpha_i[y[i]] < C and G[yp] < min_G:
                        min_G = G[yp]
                    # shrinking: move the classes at their bounds behind the active ones
                    m = 0
                    while m < k:
                        if _shrinkable(m, yp, alpha_i[order_i[m]], C, G[m], min_G):
                            k -= 1
                            while k > m:
                                if not _shrinkable(k, yp, alpha_i[order_i[k]], C, G[k], min_G):
                                    order_i[m], order_i[k] = order_i[k], order_i[m]
                                    G[m], G[k] = G[k], G[m]
                                    if yp == k:
                                        yp = m
                                    elif yp == m:
                                        yp = k
                                    break
                                k -= 1
                        m += 1
                    n_active_classes[i] = k
                    y_pos[i] = yp
                    if k <= 1:  # nothing left to optimize for this instance until the next full pass
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                    s += 1
                    if max_G - min_G <= TINY:
                        continue
                    if max_G - min_G > stopping:
                        stopping = max_G - min_G
                    for m in range(k):
                        B[m] = G[m] - A * alpha_i[order_i[m]]
                    _solve_sub_problem(A, yp, C, k, &B[0], &D[0], &alpha_new[0])
                    n_d = 0
                    for m in range(k):
                        c = order_i[m]
                        d = alpha_new[m] - alpha_i[c]
                        alpha_i[c] = alpha_new[m]
                        if fabs(d) >= TINY:
                            d_cls[n_d] = c
                            d_val[n_d] = d
                            n_d += 1
                    if n_d == 0:
                        continue
                    for p in range(indptr[i], indptr[i + 1]):
                        row = &w[indices[p], 0]
                        for m in range(n_d):
                            row[d_cls[m]] += d_val[m]
                    if has_bias:
                        row = &w[n_features, 0]
                        for m in range(n_d):
                            row[d_cls[m]] += bias * d_val[m]
                    if helper != NULL:
                        helper_updated(helper, i)
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
                    eps_shrink = max(eps_shrink / 2, eps)
                    start_from_all = True
                else:
                    start_from_all = False
    finally:
        if helper != NULL:
            helper_stop(helper, &helper_used, &helper_summed)
        if stats is not None:
            stats.update(helper_sums=int(helper_summed), helper_sums_used=int(helper_used))
    if _stop_requested:
        raise KeyboardInterrupt("training stopped")
    if has_bias:
        return w_arr[:n_features], w_arr[n_features] * bias, int(it)
    return w_arr, np.zeros(nc), int(it)
