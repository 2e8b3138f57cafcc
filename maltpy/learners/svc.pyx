# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""C-SVC for 0/1 feature vectors, step for step as LIBSVM trains it, with a faster kernel.

LIBSVM (and scikit-learn's copy of it, which maltpy used before) spends nearly all of a parser
model's training time in one function: the dot product of two sparse rows, a merge of two
sorted index lists with a branch per step (86 % of the samples of ``perf`` on EWT's largest
split model). A parser's rows are 0/1 and short (one feature per template), so here a column
of the kernel matrix is computed by marking row i's features in a byte array and counting, for
each row j, how many of its features are marked: the same integer, without the merge.

Everything else is LIBSVM's (Chang & Lin; the solver of Fan, Chen and Lin, JMLR 6, 2005: SMO
with second-order working-set selection and shrinking), in the same order of floating-point
operations, so the solution is the same to the last bit (``tests/learners/test_libsvm.py`` compares
with scikit-learn's LIBSVM): the kernel values are rounded to ``float`` in the cache as there,
and the one-against-one problems, their instance order and the assembly of the model follow
``svm_train``. Classes must be numbered in order of first appearance (LIBSVM's
``svm_group_classes``; scikit-learn's copy sorts them instead).

The k(k-1)/2 binary problems are independent; they run without the GIL on ``n_threads``
threads (OpenMP), largest first, each with its own kernel cache.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport exp, tanh, fabs, INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from libc.stdlib cimport malloc, calloc, realloc, free

cnp.import_array()

ctypedef float Qfloat

cdef double TAU = 1e-12

# alpha_status values
cdef enum:
    LOWER_BOUND = 0
    UPPER_BOUND = 1
    FREE = 2

# kernel types, numbered as LIBSVM's -t
cdef enum:
    LINEAR = 0
    POLY = 1
    RBF = 2
    SIGMOID = 3

# Set from the main thread on Ctrl-C; solvers read it every thousand iterations.
cdef volatile int _stop_requested = 0


def request_stop(bint stop=True):
    """Ask every running solver to stop soon (``stop=False`` clears the request)."""
    global _stop_requested
    _stop_requested = stop


# ---------------------------------------------------------------------------------------------
# The kernel cache: LIBSVM's least-recently-used cache of (partial) columns of Q.
# Which columns it keeps changes only the speed, never a value.

cdef struct CacheEntry:
    CacheEntry* prev
    CacheEntry* next
    Qfloat* data
    int len              # data[0, len) is cached


cdef struct Cache:
    int l
    long size            # free space, in Qfloats
    CacheEntry* head
    CacheEntry lru       # sentinel of the circular list, least recent first


cdef int cache_init(Cache* c, int l, long size_bytes) noexcept nogil:
    c.l = l
    c.head = <CacheEntry*>calloc(l, sizeof(CacheEntry))
    if c.head == NULL:
        return -1
    c.size = size_bytes // sizeof(Qfloat) - l * sizeof(CacheEntry) // sizeof(Qfloat)
    if c.size < 2 * <long>l:   # room for two columns at least
        c.size = 2 * <long>l
    c.lru.next = &c.lru
    c.lru.prev = &c.lru
    return 0


cdef void cache_free(Cache* c) noexcept nogil:
    cdef CacheEntry* h
    if c.head == NULL:
        return
    h = c.lru.next
    while h != &c.lru:
        free(h.data)
        h = h.next
    free(c.head)
    c.head = NULL


cdef inline void lru_delete(CacheEntry* h) noexcept nogil:
    h.prev.next = h.next
    h.next.prev = h.prev


cdef inline void lru_insert(Cache* c, CacheEntry* h) noexcept nogil:
    h.next = &c.lru
    h.prev = c.lru.prev
    h.prev.next = h
    h.next.prev = h


cdef int cache_get(Cache* c, int index, Qfloat** data, int len) noexcept nogil:
    """Column ``index`` with room for ``len`` values; returns where the values still to be
    computed start (``len`` if none), or -1 when out of memory."""
    cdef CacheEntry* h = &c.head[index]
    cdef CacheEntry* old
    cdef Qfloat* grown
    cdef int more, start
    if h.len:
        lru_delete(h)
    more = len - h.len
    if more > 0:
        while c.size < more:
            old = c.lru.next
            lru_delete(old)
            free(old.data)
            c.size += old.len
            old.data = NULL
            old.len = 0
        grown = <Qfloat*>realloc(h.data, sizeof(Qfloat) * len)
        if grown == NULL:
            return -1
        h.data = grown
        c.size -= more
        start = h.len
        h.len = len
    else:
        start = len
    lru_insert(c, h)
    data[0] = h.data
    return start


cdef void cache_swap(Cache* c, int i, int j) noexcept nogil:
    cdef CacheEntry* h
    cdef CacheEntry* nxt
    cdef Qfloat* d
    cdef Qfloat t
    cdef int n
    if i == j:
        return
    if c.head[i].len:
        lru_delete(&c.head[i])
    if c.head[j].len:
        lru_delete(&c.head[j])
    d = c.head[i].data
    c.head[i].data = c.head[j].data
    c.head[j].data = d
    n = c.head[i].len
    c.head[i].len = c.head[j].len
    c.head[j].len = n
    if c.head[i].len:
        lru_insert(c, &c.head[i])
    if c.head[j].len:
        lru_insert(c, &c.head[j])
    if i > j:
        n = i
        i = j
        j = n
    h = c.lru.next
    while h != &c.lru:
        nxt = h.next
        if h.len > i:
            if h.len > j:
                t = h.data[i]
                h.data[i] = h.data[j]
                h.data[j] = t
            else:   # the column cannot hold both: drop it
                lru_delete(h)
                free(h.data)
                c.size += h.len
                h.data = NULL
                h.len = 0
        h = nxt


# ---------------------------------------------------------------------------------------------
# Q[i][j] = y_i y_j K(x_i, x_j) of one binary problem, over positions that shrinking permutes.

cdef struct QMatrix:
    int l
    const int64_t* indptr      # the rows of the whole data set (CSR, 0/1 values)
    const int32_t* indices
    int* row                   # data row at each position
    signed char* y
    double* QD                 # K(x_i, x_i), in double as LIBSVM keeps it
    double* x_square           # |x_i|^2 (RBF only)
    uint8_t* mark              # one byte per feature, all zero between columns
    int kernel_type
    int degree
    double gamma
    double coef0
    Cache cache


cdef inline double powi(double base, int times) noexcept nogil:
    # LIBSVM's powi, with its order of products
    cdef double tmp = base, ret = 1.0
    cdef int t = times
    while t > 0:
        if t % 2 == 1:
            ret *= tmp
        tmp = tmp * tmp
        t //= 2
    return ret


cdef inline double kernel_from_dot(const QMatrix* Q, int i, int j, double dot) noexcept nogil:
    if Q.kernel_type == POLY:
        return powi(Q.gamma * dot + Q.coef0, Q.degree)
    if Q.kernel_type == RBF:
        return exp(-Q.gamma * (Q.x_square[i] + Q.x_square[j] - 2 * dot))
    if Q.kernel_type == SIGMOID:
        return tanh(Q.gamma * dot + Q.coef0)
    return dot


cdef inline int row_length(const QMatrix* Q, int r) noexcept nogil:
    return <int>(Q.indptr[r + 1] - Q.indptr[r])


cdef Qfloat* get_Q(QMatrix* Q, int i, int len) noexcept nogil:
    """Column i of Q over positions [0, len); NULL when out of memory."""
    cdef Qfloat* data
    cdef int start = cache_get(&Q.cache, i, &data, len)
    cdef int j, dot
    cdef int64_t k, end
    cdef const int64_t* indptr = Q.indptr
    cdef const int32_t* indices = Q.indices
    cdef uint8_t* mark = Q.mark
    cdef int ri = Q.row[i]
    cdef int yi = Q.y[i]
    if start < 0:
        return NULL
    if start < len:
        for k in range(indptr[ri], indptr[ri + 1]):
            mark[indices[k]] = 1
        for j in range(start, len):
            dot = 0
            end = indptr[Q.row[j] + 1]
            for k in range(indptr[Q.row[j]], end):
                dot += mark[indices[k]]
            data[j] = <Qfloat>(yi * Q.y[j] * kernel_from_dot(Q, i, j, <double>dot))
        for k in range(indptr[ri], indptr[ri + 1]):
            mark[indices[k]] = 0
    return data


cdef void q_swap(QMatrix* Q, int i, int j) noexcept nogil:
    cache_swap(&Q.cache, i, j)
    Q.row[i], Q.row[j] = Q.row[j], Q.row[i]
    if Q.x_square != NULL:
        Q.x_square[i], Q.x_square[j] = Q.x_square[j], Q.x_square[i]
    Q.y[i], Q.y[j] = Q.y[j], Q.y[i]
    Q.QD[i], Q.QD[j] = Q.QD[j], Q.QD[i]


# ---------------------------------------------------------------------------------------------
# The SMO solver (LIBSVM's Solver, for C-SVC: p = -1, alpha starts at 0).

cdef struct Solver:
    int l
    int active_size
    signed char* y
    double* G
    double* G_bar
    char* alpha_status
    double* alpha
    double* p
    double* C
    int* active_set
    double eps
    bint unshrink
    QMatrix* Q
    int error          # 0, or -1 out of memory, -2 stopped


cdef inline void update_alpha_status(Solver* s, int i) noexcept nogil:
    if s.alpha[i] >= s.C[i]:
        s.alpha_status[i] = UPPER_BOUND
    elif s.alpha[i] <= 0:
        s.alpha_status[i] = LOWER_BOUND
    else:
        s.alpha_status[i] = FREE


cdef inline bint is_upper(Solver* s, int i) noexcept nogil:
    return s.alpha_status[i] == UPPER_BOUND


cdef inline bint is_lower(Solver* s, int i) noexcept nogil:
    return s.alpha_status[i] == LOWER_BOUND


cdef inline bint is_free(Solver* s, int i) noexcept nogil:
    return s.alpha_status[i] == FREE


cdef void solver_swap(Solver* s, int i, int j) noexcept nogil:
    q_swap(s.Q, i, j)
    s.y[i], s.y[j] = s.y[j], s.y[i]
    s.G[i], s.G[j] = s.G[j], s.G[i]
    s.alpha_status[i], s.alpha_status[j] = s.alpha_status[j], s.alpha_status[i]
    s.alpha[i], s.alpha[j] = s.alpha[j], s.alpha[i]
    s.p[i], s.p[j] = s.p[j], s.p[i]
    s.active_set[i], s.active_set[j] = s.active_set[j], s.active_set[i]
    s.G_bar[i], s.G_bar[j] = s.G_bar[j], s.G_bar[i]
    s.C[i], s.C[j] = s.C[j], s.C[i]


cdef void reconstruct_gradient(Solver* s) noexcept nogil:
    """The gradient of the shrunk (inactive) variables, from G_bar and the free variables."""
    cdef int i, j, nr_free = 0
    cdef int l = s.l, active_size = s.active_size
    cdef const Qfloat* Q_i
    cdef double alpha_i
    if active_size == l:
        return
    for j in range(active_size, l):
        s.G[j] = s.G_bar[j] + s.p[j]
    for j in range(active_size):
        if is_free(s, j):
            nr_free += 1
    # LIBSVM compares in C int arithmetic, which wraps past 2^31 on every platform it runs on
    # (and in Java): wrapping the same way keeps the choice, and with it the order of the sums
    if <int32_t>(<uint32_t>nr_free * <uint32_t>l) > <int32_t>(2u * <uint32_t>active_size * <uint32_t>(l - active_size)):
        for i in range(active_size, l):
            Q_i = get_Q(s.Q, i, active_size)
            if Q_i == NULL:
                s.error = -1
                return
            for j in range(active_size):
                if is_free(s, j):
                    s.G[i] += s.alpha[j] * Q_i[j]
    else:
        for i in range(active_size):
            if is_free(s, i):
                Q_i = get_Q(s.Q, i, l)
                if Q_i == NULL:
                    s.error = -1
                    return
                alpha_i = s.alpha[i]
                for j in range(active_size, l):
                    s.G[j] += alpha_i * Q_i[j]


cdef int select_working_set(Solver* s, int* out_i, int* out_j) noexcept nogil:
    """Second-order working-set selection; 1 when the solution is optimal within eps."""
    cdef double Gmax = -INFINITY, Gmax2 = -INFINITY, obj_diff_min = INFINITY
    cdef double grad_diff, quad_coef, obj_diff
    cdef int Gmax_idx = -1, Gmin_idx = -1
    cdef int t, j, i
    cdef const Qfloat* Q_i = NULL
    cdef double* G = s.G
    cdef const double* QD = s.Q.QD
    for t in range(s.active_size):
        if s.y[t] == 1:
            if not is_upper(s, t):
                if -G[t] >= Gmax:
                    Gmax = -G[t]
                    Gmax_idx = t
        else:
            if not is_lower(s, t):
                if G[t] >= Gmax:
                    Gmax = G[t]
                    Gmax_idx = t
    i = Gmax_idx
    if i != -1:
        Q_i = get_Q(s.Q, i, s.active_size)
        if Q_i == NULL:
            s.error = -1
            return 1
    for j in range(s.active_size):
        if s.y[j] == 1:
            if not is_lower(s, j):
                grad_diff = Gmax + G[j]
                if G[j] >= Gmax2:
                    Gmax2 = G[j]
                if grad_diff > 0:
                    quad_coef = QD[i] + QD[j] - 2.0 * s.y[i] * Q_i[j]
                    if quad_coef > 0:
                        obj_diff = -(grad_diff * grad_diff) / quad_coef
                    else:
                        obj_diff = -(grad_diff * grad_diff) / TAU
                    if obj_diff <= obj_diff_min:
                        Gmin_idx = j
                        obj_diff_min = obj_diff
        else:
            if not is_upper(s, j):
                grad_diff = Gmax - G[j]
                if -G[j] >= Gmax2:
                    Gmax2 = -G[j]
                if grad_diff > 0:
                    quad_coef = QD[i] + QD[j] + 2.0 * s.y[i] * Q_i[j]
                    if quad_coef > 0:
                        obj_diff = -(grad_diff * grad_diff) / quad_coef
                    else:
                        obj_diff = -(grad_diff * grad_diff) / TAU
                    if obj_diff <= obj_diff_min:
                        Gmin_idx = j
                        obj_diff_min = obj_diff
    if Gmax + Gmax2 < s.eps or Gmin_idx == -1:
        return 1
    out_i[0] = Gmax_idx
    out_j[0] = Gmin_idx
    return 0


cdef inline bint be_shrunk(Solver* s, int i, double Gmax1, double Gmax2) noexcept nogil:
    if is_upper(s, i):
        if s.y[i] == 1:
            return -s.G[i] > Gmax1
        return -s.G[i] > Gmax2
    if is_lower(s, i):
        if s.y[i] == 1:
            return s.G[i] > Gmax2
        return s.G[i] > Gmax1
    return False


cdef void do_shrinking(Solver* s) noexcept nogil:
    cdef int i
    cdef double Gmax1 = -INFINITY   # max { -y_i grad_i | i in I_up }
    cdef double Gmax2 = -INFINITY   # max { y_i grad_i | i in I_low }
    cdef double* G = s.G
    for i in range(s.active_size):
        if s.y[i] == 1:
            if not is_upper(s, i):
                if -G[i] >= Gmax1:
                    Gmax1 = -G[i]
            if not is_lower(s, i):
                if G[i] >= Gmax2:
                    Gmax2 = G[i]
        else:
            if not is_upper(s, i):
                if -G[i] >= Gmax2:
                    Gmax2 = -G[i]
            if not is_lower(s, i):
                if G[i] >= Gmax1:
                    Gmax1 = G[i]
    if not s.unshrink and Gmax1 + Gmax2 <= s.eps * 10:
        s.unshrink = True
        reconstruct_gradient(s)
        s.active_size = s.l
    i = 0
    while i < s.active_size:
        if be_shrunk(s, i, Gmax1, Gmax2):
            s.active_size -= 1
            while s.active_size > i:
                if not be_shrunk(s, s.active_size, Gmax1, Gmax2):
                    solver_swap(s, i, s.active_size)
                    break
                s.active_size -= 1
        i += 1


cdef double calculate_rho(Solver* s) noexcept nogil:
    cdef int i, nr_free = 0
    cdef double ub = INFINITY, lb = -INFINITY, sum_free = 0, yG
    for i in range(s.active_size):
        yG = s.y[i] * s.G[i]
        if is_upper(s, i):
            if s.y[i] == -1:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        elif is_lower(s, i):
            if s.y[i] == 1:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        else:
            nr_free += 1
            sum_free += yG
    if nr_free > 0:
        return sum_free / nr_free
    return (ub + lb) / 2


cdef int follow_bound(Solver* s, int i, bint was_upper, double C_i) noexcept nogil:
    """Keep G_bar (the gradient part of the variables at their upper bound) current when
    variable i leaves the upper bound (``was_upper``) or reaches it. -1 when out of memory.
    Adding (-C) * Q is LIBSVM's subtracting C * Q to the bit."""
    cdef const Qfloat* Q_i
    cdef double c = -C_i if was_upper else C_i
    cdef int k
    if was_upper == is_upper(s, i):
        return 0
    Q_i = get_Q(s.Q, i, s.l)
    if Q_i == NULL:
        return -1
    for k in range(s.l):
        s.G_bar[k] += c * Q_i[k]
    return 0


cdef int solve(Solver* s, double* alpha_out, double* rho_out, bint shrinking) noexcept nogil:
    """LIBSVM's Solver::Solve for C-SVC. Returns 0, -1 (out of memory) or -2 (stopped)."""
    cdef int l = s.l
    cdef int i, j, k, counter
    cdef long iteration = 0
    cdef const Qfloat* Q_i
    cdef const Qfloat* Q_j
    cdef double C_i, C_j, old_alpha_i, old_alpha_j, quad_coef, delta, diff, total
    cdef double delta_alpha_i, delta_alpha_j
    cdef bint ui, uj
    cdef double* alpha = s.alpha
    cdef double* G = s.G
    cdef const double* QD = s.Q.QD
    for i in range(l):
        update_alpha_status(s, i)
        s.active_set[i] = i
        G[i] = s.p[i]
        s.G_bar[i] = 0
    s.active_size = l
    s.unshrink = False
    # alpha starts at 0: no gradient terms to add
    counter = min(l, 1000) + 1
    while True:
        counter -= 1
        if counter == 0:
            counter = min(l, 1000)
            if _stop_requested:
                return -2
            if shrinking:
                do_shrinking(s)
                if s.error:
                    return s.error
        if select_working_set(s, &i, &j) != 0:
            if s.error:
                return s.error
            reconstruct_gradient(s)
            if s.error:
                return s.error
            s.active_size = l
            if select_working_set(s, &i, &j) != 0:
                if s.error:
                    return s.error
                break
            counter = 1   # shrink at the next iteration
        iteration += 1

        Q_i = get_Q(s.Q, i, s.active_size)
        Q_j = get_Q(s.Q, j, s.active_size)
        if Q_i == NULL or Q_j == NULL:
            return -1
        C_i = s.C[i]
        C_j = s.C[j]
        old_alpha_i = alpha[i]
        old_alpha_j = alpha[j]
        if s.y[i] != s.y[j]:
            quad_coef = QD[i] + QD[j] + 2 * Q_i[j]
            if quad_coef <= 0:
                quad_coef = TAU
            delta = (-G[i] - G[j]) / quad_coef
            diff = alpha[i] - alpha[j]
            alpha[i] += delta
            alpha[j] += delta
            if diff > 0:
                if alpha[j] < 0:
                    alpha[j] = 0
                    alpha[i] = diff
            else:
                if alpha[i] < 0:
                    alpha[i] = 0
                    alpha[j] = -diff
            if diff > C_i - C_j:
                if alpha[i] > C_i:
                    alpha[i] = C_i
                    alpha[j] = C_i - diff
            else:
                if alpha[j] > C_j:
                    alpha[j] = C_j
                    alpha[i] = C_j + diff
        else:
            quad_coef = QD[i] + QD[j] - 2 * Q_i[j]
            if quad_coef <= 0:
                quad_coef = TAU
            delta = (G[i] - G[j]) / quad_coef
            total = alpha[i] + alpha[j]
            alpha[i] -= delta
            alpha[j] += delta
            if total > C_i:
                if alpha[i] > C_i:
                    alpha[i] = C_i
                    alpha[j] = total - C_i
            else:
                if alpha[j] < 0:
                    alpha[j] = 0
                    alpha[i] = total
            if total > C_j:
                if alpha[j] > C_j:
                    alpha[j] = C_j
                    alpha[i] = total - C_j
            else:
                if alpha[i] < 0:
                    alpha[i] = 0
                    alpha[j] = total

        delta_alpha_i = alpha[i] - old_alpha_i
        delta_alpha_j = alpha[j] - old_alpha_j
        for k in range(s.active_size):
            G[k] += Q_i[k] * delta_alpha_i + Q_j[k] * delta_alpha_j

        ui = is_upper(s, i)
        uj = is_upper(s, j)
        update_alpha_status(s, i)
        update_alpha_status(s, j)
        if follow_bound(s, i, ui, C_i) != 0 or follow_bound(s, j, uj, C_j) != 0:
            return -1

    rho_out[0] = calculate_rho(s)
    for i in range(l):
        alpha_out[s.active_set[i]] = alpha[i]
    return 0


cdef int solve_pair(const int64_t* indptr, const int32_t* indices, int n_features,
                    const int32_t* rows_i, int ci, const int32_t* rows_j, int cj,
                    int kernel_type, int degree, double gamma, double coef0,
                    double C, double eps, long cache_bytes, bint shrinking,
                    double* alpha_out, double* rho_out) noexcept nogil:
    """One binary problem: the rows of class i (+1) then those of class j (-1), as LIBSVM's
    svm_train builds it. Writes alpha * y (LIBSVM's coefficients) and rho."""
    cdef int l = ci + cj
    cdef int i, status
    cdef QMatrix Q
    cdef Solver s
    cdef double d
    Q.l = l
    Q.indptr = indptr
    Q.indices = indices
    Q.kernel_type = kernel_type
    Q.degree = degree
    Q.gamma = gamma
    Q.coef0 = coef0
    Q.row = <int*>malloc(l * sizeof(int))
    Q.y = <signed char*>malloc(l * sizeof(signed char))
    Q.QD = <double*>malloc(l * sizeof(double))
    Q.x_square = <double*>malloc(l * sizeof(double)) if kernel_type == RBF else NULL
    Q.mark = <uint8_t*>calloc(n_features if n_features > 0 else 1, 1)
    Q.cache.head = NULL
    s.y = <signed char*>malloc(l * sizeof(signed char))
    s.G = <double*>malloc(l * sizeof(double))
    s.G_bar = <double*>malloc(l * sizeof(double))
    s.alpha_status = <char*>malloc(l)
    s.alpha = <double*>malloc(l * sizeof(double))
    s.p = <double*>malloc(l * sizeof(double))
    s.C = <double*>malloc(l * sizeof(double))
    s.active_set = <int*>malloc(l * sizeof(int))
    status = -1
    if (Q.row != NULL and Q.y != NULL and Q.QD != NULL and Q.mark != NULL
            and (Q.x_square != NULL or kernel_type != RBF)
            and s.y != NULL and s.G != NULL and s.G_bar != NULL and s.alpha_status != NULL
            and s.alpha != NULL and s.p != NULL and s.C != NULL and s.active_set != NULL
            and cache_init(&Q.cache, l, cache_bytes) == 0):
        for i in range(l):
            Q.row[i] = rows_i[i] if i < ci else rows_j[i - ci]
            Q.y[i] = 1 if i < ci else -1
            s.y[i] = Q.y[i]
            d = <double>row_length(&Q, Q.row[i])   # x . x for 0/1 rows
            if Q.x_square != NULL:
                Q.x_square[i] = d
            Q.QD[i] = kernel_from_dot(&Q, i, i, d)
            s.alpha[i] = 0
            s.p[i] = -1
            s.C[i] = C
        s.l = l
        s.eps = eps
        s.Q = &Q
        s.error = 0
        status = solve(&s, alpha_out, rho_out, shrinking)
        if status == 0:
            for i in range(l):
                if i >= ci:
                    alpha_out[i] = -alpha_out[i]
    cache_free(&Q.cache)
    free(Q.row)
    free(Q.y)
    free(Q.QD)
    free(Q.x_square)
    free(Q.mark)
    free(s.y)
    free(s.G)
    free(s.G_bar)
    free(s.alpha_status)
    free(s.alpha)
    free(s.p)
    free(s.C)
    free(s.active_set)
    return status


def train_one_vs_one(const int64_t[::1] indptr, const int32_t[::1] indices, int n_features,
                     const int32_t[::1] grouped_rows, const int64_t[::1] class_start,
                     int kernel_type=1, int degree=2, double gamma=0.2, double coef0=0.0,
                     double C=1.0, double eps=1.0, double cache_mb=1000.0, bint shrinking=True,
                     int n_threads=1):
    """Train LIBSVM's k(k-1)/2 one-against-one C-SVC problems on 0/1 rows (CSR).

    ``grouped_rows``: the rows of class 0, then of class 1, ... each in data order (LIBSVM's
    grouping); class c has ``grouped_rows[class_start[c]:class_start[c + 1]]``.
    Returns ``(alpha, offsets, rho)``: pair p = (i, j), i < j, in LIBSVM's order, has the
    coefficients alpha[offsets[p]:offsets[p + 1]] (class i's rows, then class j's; alpha * y)
    and rho[p].
    """
    cdef int k = class_start.shape[0] - 1
    cdef int n_pairs = k * (k - 1) // 2
    cdef int p, q, i, j
    cdef int T = max(1, n_threads)
    cdef long cache_bytes = <long>(cache_mb * (1 << 20))
    if k < 2:
        raise ValueError("one-against-one training needs two classes at least")
    if indptr.shape[0] < 2 or indptr[indptr.shape[0] - 1] > indices.shape[0]:
        raise ValueError("inconsistent CSR rows")
    pair_i = np.empty(n_pairs, dtype=np.int32)
    pair_j = np.empty(n_pairs, dtype=np.int32)
    offsets = np.zeros(n_pairs + 1, dtype=np.int64)
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            pair_i[p] = i
            pair_j[p] = j
            offsets[p + 1] = offsets[p] + (class_start[i + 1] - class_start[i]) + (class_start[j + 1] - class_start[j])
            p += 1
    # largest problems first, so that the threads finish together
    order = np.argsort(-np.diff(offsets), kind="stable").astype(np.int32)
    alpha = np.zeros(offsets[n_pairs], dtype=np.float64)
    rho = np.zeros(n_pairs, dtype=np.float64)
    statuses = np.zeros(n_pairs, dtype=np.int32)
    cdef const int32_t[::1] pi = pair_i
    cdef const int32_t[::1] pj = pair_j
    cdef const int64_t[::1] off = offsets
    cdef const int32_t[::1] by_size = order
    cdef double[::1] alpha_v = alpha
    cdef double[::1] rho_v = rho
    cdef int32_t[::1] status_v = statuses
    for q in prange(n_pairs, nogil=True, num_threads=T, schedule="dynamic"):
        p = by_size[q]
        status_v[p] = solve_pair(&indptr[0], &indices[0], n_features,
                                 &grouped_rows[class_start[pi[p]]], <int>(class_start[pi[p] + 1] - class_start[pi[p]]),
                                 &grouped_rows[class_start[pj[p]]], <int>(class_start[pj[p] + 1] - class_start[pj[p]]),
                                 kernel_type, degree, gamma, coef0, C, eps, cache_bytes, shrinking,
                                 &alpha_v[off[p]], &rho_v[p])
    if (statuses == -2).any():
        raise KeyboardInterrupt
    if (statuses == -1).any():
        raise MemoryError("out of memory while training a LIBSVM model (try a smaller cache, -lo \"-m 100\")")
    return alpha, offsets, rho
