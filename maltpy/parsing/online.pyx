# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Online training inside the transition loop: an averaged perceptron that follows a dynamic
oracle and explores its own errors (Goldberg & Nivre 2012), without the GIL.

Each decision scores the permissible classes with the current weights. The dynamic oracle
(:meth:`TransitionSystem.move_costs`) gives every class a cost; the best-scoring class of
least cost is the one to learn, and a prediction that costs more is a mistake: its features
move weight from the predicted class to that one. The parser then takes the class to learn,
or, from epoch ``explore_after`` on and with probability ``explore_p``, its own prediction,
so that training meets the configurations its errors lead to. The weights returned are the
average over all steps, exported like LIBLINEAR's (features x classes, bias).
"""
import time

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

from maltpy.features.extract cimport Extractor, Sent
from maltpy.features.featmap cimport FeatMap
from maltpy.parsing.loop cimport (
    ClassTable, Corpus, MAX_MOVES, best_class, max_transitions, oracle_move, start_training_sentence,
    training_decision,
)
from maltpy.systems.base cimport TransitionSystem, gold_alloc, gold_free
from maltpy.systems.state cimport Gold, State, state_alloc, state_free, state_reset

cnp.import_array()


cdef struct Rows:
    float* w         # current weights, cap x C
    double* u        # sum over steps of step * change, for the average
    Py_ssize_t cap
    int C


cdef bint rows_reserve(Rows* r, Py_ssize_t n) noexcept nogil:
    """Room for feature ids below n (new rows are zero)."""
    cdef Py_ssize_t cap = r.cap if r.cap else 1024
    cdef float* w
    cdef double* u
    if n <= r.cap:
        return True
    while cap < n:
        cap *= 2
    w = <float*>realloc(r.w, sizeof(float) * cap * r.C)
    if w == NULL:
        return False
    r.w = w
    u = <double*>realloc(r.u, sizeof(double) * cap * r.C)
    if u == NULL:
        return False
    r.u = u
    memset(r.w + r.cap * r.C, 0, sizeof(float) * (cap - r.cap) * r.C)
    memset(r.u + r.cap * r.C, 0, sizeof(double) * (cap - r.cap) * r.C)
    r.cap = cap
    return True


cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    """xorshift64*."""
    cdef uint64_t x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * <uint64_t>0x2545F4914F6CDD1D


cdef void _average(const float* w, const double* u, const float* bw, const double* bu, Py_ssize_t t,
                   Py_ssize_t n, int C, float[:, ::1] W, float[::1] bias) noexcept nogil:
    """The average of the weights over the t steps: w - u / t."""
    cdef Py_ssize_t f
    cdef int c
    for f in range(n):
        for c in range(C):
            W[f, c] = <float>(w[f * C + c] - u[f * C + c] / t)
    for c in range(C):
        bias[c] = <float>(bw[c] - bu[c] / t)


def train_online(TransitionSystem system, Extractor ex, FeatMap fmap, ClassTable classes, Corpus corpus,
                 gold_heads, gold_labels, int epochs, int seed, bint dynamic=True, int explore_after=1,
                 double explore_p=0.9, progress=None):
    """Train; return (W float32 [features x classes], bias float32 [classes]) averaged over all
    steps, feature ids from ``fmap`` (which grows). ``dynamic``: learn from the dynamic oracle
    and explore; otherwise follow the static oracle (no exploration).
    ``progress(epoch, accuracy, seconds)`` after each epoch."""
    cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
    cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
    if gh.shape[0] != corpus.n_rows or gl.shape[0] != corpus.n_rows:
        raise ValueError("gold arrays must have one entry per corpus row")
    cdef int C = classes.n_classes
    cdef Rows rows
    rows.w = NULL
    rows.u = NULL
    rows.cap = 0
    rows.C = C
    cdef float* bw = <float*>calloc(C, sizeof(float))
    cdef double* bu = <double*>calloc(C, sizeof(double))
    cdef float* scores = <float*>malloc(sizeof(float) * C)
    cdef int* cls_cost = <int*>malloc(sizeof(int) * C)
    cdef int* nodes = <int*>malloc(sizeof(int) * (ex.n_addr + 1))
    cdef int64_t* values = <int64_t*>malloc(sizeof(int64_t) * (ex.n_atoms + 1))
    cdef uint64_t* keys = <uint64_t*>malloc(sizeof(uint64_t) * (ex.max_keys + 1))
    cdef int32_t* ids = <int32_t*>malloc(sizeof(int32_t) * (ex.max_keys + 1))
    cdef State s
    cdef Gold g
    cdef Sent sent
    cdef bint mask[MAX_MOVES]
    cdef int cost[MAX_MOVES]
    cdef int zero[MAX_MOVES]
    cdef Py_ssize_t k, idx, n_sent = corpus.n_sentences, r0, j, f, steps_ok = 0, steps = 0, t = 1
    cdef int step, move, label, m, c, i, nk, pred, gold, nxt, best_cost, max_steps
    cdef float best_score
    cdef bint ok = True, explore, wrong
    cdef uint64_t rng_state = <uint64_t>seed * <uint64_t>0x9E3779B97F4A7C15 + 1
    cdef int64_t[::1] order
    cdef float* row
    cdef double* urow
    s.block = NULL
    g.n_children = NULL
    if (bw == NULL or bu == NULL or scores == NULL or cls_cost == NULL or nodes == NULL or values == NULL
            or keys == NULL or ids == NULL or not state_alloc(&s, corpus.max_n) or not rows_reserve(&rows, 1024)):
        free(bw); free(bu); free(scores); free(cls_cost); free(nodes); free(values); free(keys); free(ids)
        state_free(&s)
        free(rows.w); free(rows.u)
        raise MemoryError()
    shuffle = np.random.default_rng(seed)
    try:
        for epoch in range(epochs):
            t0 = time.perf_counter()
            order = shuffle.permutation(n_sent).astype(np.int64)
            steps = steps_ok = 0
            explore = dynamic and epoch >= explore_after and explore_p > 0
            with nogil:
                for idx in range(n_sent):
                    k = order[idx]
                    if not start_training_sentence(system, corpus, k, &s, &sent, &g, &gh[0], &gl[0]):
                        ok = False
                        break
                    max_steps = max_transitions(sent.n)
                    while not system.is_terminal(&s) and s.n_transitions < max_steps:
                        step = training_decision(system, &s, mask)
                        if step < 0:
                            break
                        if step == 0:
                            continue
                        nk = ex.extract(system, &s, &sent, nodes, values, keys)
                        for i in range(nk):
                            ids[i] = fmap.add(keys[i])
                            if ids[i] < 0 or not rows_reserve(&rows, ids[i] + 1):
                                ok = False
                        if not ok:
                            break
                        for c in range(C):
                            scores[c] = bw[c]
                        for i in range(nk):
                            row = rows.w + <Py_ssize_t>ids[i] * C
                            for c in range(C):
                                scores[c] += row[c]
                        # the prediction: the best permissible class
                        pred = best_class(classes, mask, scores)
                        # the class to learn
                        if dynamic:
                            if not system.move_costs(&s, &g, cost, zero):
                                ok = False
                                break
                            best_cost = -1
                            gold = -1
                            best_score = 0
                            for m in range(classes.n_moves):
                                if not mask[m]:
                                    continue
                                for c in range(classes.first[m], classes.end[m]):
                                    cls_cost[c] = cost[m] + (classes.labeled[m] and zero[m] >= 0
                                                             and classes.class_label[c] != zero[m])
                                    if best_cost < 0 or cls_cost[c] < best_cost or \
                                            (cls_cost[c] == best_cost and scores[c] > best_score):
                                        best_cost, gold, best_score = cls_cost[c], c, scores[c]
                            wrong = cls_cost[pred] > best_cost
                        else:
                            move = oracle_move(system, classes, &s, &g, mask, &label)
                            gold = classes.class_of(move, label)
                            wrong = pred != gold
                        steps += 1
                        if wrong:
                            bw[gold] += 1
                            bw[pred] -= 1
                            bu[gold] += t
                            bu[pred] -= t
                            for i in range(nk):
                                f = ids[i]
                                row = rows.w + f * C
                                urow = rows.u + f * C
                                row[gold] += 1
                                row[pred] -= 1
                                urow[gold] += t
                                urow[pred] -= t
                        else:
                            steps_ok += 1
                        t += 1
                        nxt = gold
                        if explore and wrong and (next_random(&rng_state) >> 11) * (1.0 / 9007199254740992.0) < explore_p:
                            nxt = pred
                        system.apply(&s, classes.class_move[nxt], classes.class_label[nxt])
                    gold_free(&g)
                    if not ok:
                        break
            if not ok:
                if dynamic:
                    raise ValueError(f"the {system.name} system has no dynamic oracle (use the static one)")
                raise MemoryError("out of memory while training")
            PyErr_CheckSignals()
            if progress is not None:
                progress(epoch + 1, steps_ok / <double>max(steps, 1), time.perf_counter() - t0)
        n_features = len(fmap)
        W = np.empty((n_features, C), dtype=np.float32)
        bias = np.empty(C, dtype=np.float32)
        Wv = W
        bv = bias
        _average(rows.w, rows.u, bw, bu, t, n_features, C, Wv, bv)
        return W, bias
    finally:
        state_free(&s)
        gold_free(&g)
        free(bw); free(bu); free(scores); free(cls_cost); free(nodes); free(values); free(keys); free(ids)
        free(rows.w); free(rows.u)
