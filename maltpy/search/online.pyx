# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Online training inside the transition loop: an averaged perceptron that follows a dynamic
oracle and explores its own errors (Goldberg & Nivre 2012), without the GIL.

Each decision is scored by the step with the current weights
(:class:`~maltpy.search.trainable.TrainableWeights`). The dynamic oracle
(:meth:`TransitionSystem.move_costs`) gives every class a cost; the best-scoring class of
least cost is the one to learn, and a prediction that costs more is a mistake: its features
move weight from the predicted class to that one. The parser then takes the class to learn,
or, from epoch ``explore_after`` on and with probability ``explore_p``, its own prediction,
so that training meets the configurations its errors lead to. The weights returned are the
average over all steps, as sparse rows (a weight per feature and class that an update touched).
"""
import time

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from maltpy.features.extract cimport Sent
from maltpy.features.corpus cimport Corpus
from maltpy.systems.classes cimport ClassTable
from maltpy.search.decision cimport Decision, MAX_MOVES
from maltpy.search.step cimport TRAIN, Step, Workspace, decision_free, load_gold, oracle_class, workspace_free
from maltpy.search.trainable cimport TrainableWeights
from maltpy.systems.base cimport gold_free
from maltpy.systems.state cimport Gold, State, state_alloc, state_free

cnp.import_array()


cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    """xorshift64*."""
    cdef uint64_t x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * <uint64_t>0x2545F4914F6CDD1D


def train_online(Step step, Corpus corpus, gold_heads, gold_labels, int epochs, int seed, bint dynamic=True,
                 int explore_after=1, double explore_p=0.9, progress=None):
    """Train the step's scorer (a :class:`~maltpy.search.trainable.TrainableWeights`); return
    its weights averaged over all steps (:meth:`TrainableWeights.average`: the row ids kept,
    sparse rows, bias). ``dynamic``: learn from the dynamic oracle and explore;
    otherwise follow the static oracle (no exploration). ``progress(epoch, accuracy, seconds)``
    after each epoch."""
    if not isinstance(step.scorer, TrainableWeights):
        raise TypeError("online training needs a step over TrainableWeights")
    cdef TrainableWeights weights = step.scorer
    cdef ClassTable classes = step.classes
    cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
    cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
    if gh.shape[0] != corpus.n_rows or gl.shape[0] != corpus.n_rows:
        raise ValueError("gold arrays must have one entry per corpus row")
    cdef int C = classes.n_classes
    cdef int* cls_cost = <int*>malloc(sizeof(int) * max(C, 1))
    cdef State s
    cdef Gold g
    cdef Sent sent
    cdef Decision d
    cdef Workspace w
    cdef int cost[MAX_MOVES]
    cdef int zero[MAX_MOVES]
    cdef Py_ssize_t k, idx, n_sent = corpus.n_sentences, steps_ok = 0, steps = 0, t = 1
    cdef int m, c, pred, gold, nxt, best_cost
    cdef float best_score
    cdef bint ok = True, no_costs = False, explore, wrong
    cdef uint64_t rng_state = <uint64_t>seed * <uint64_t>0x9E3779B97F4A7C15 + 1
    cdef int64_t[::1] order
    s.block = NULL
    g.n_children = NULL
    d.keys = NULL
    memset(&w, 0, sizeof(Workspace))
    if cls_cost == NULL or not step.decision_alloc(&d) or not state_alloc(&s, corpus.max_n) \
            or not step.workspace_alloc(&w):
        free(cls_cost)
        decision_free(&d)
        state_free(&s)
        workspace_free(&w)
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
                    corpus.sentence(k, &sent)
                    if not load_gold(step.system, corpus, k, &g, &gh[0], &gl[0]):
                        ok = False
                        break
                    step.start(&s, &sent, &w, TRAIN)
                    while step.next(&s, &d, TRAIN, NULL, &w):
                        step.score(&s, &sent, &d, &w)
                        if weights.failed:
                            ok = False
                            break
                        pred = step.best(&s, &sent, &d, &w)      # the prediction
                        # the class to learn
                        if dynamic:
                            if not step.system.move_costs(&s, &g, cost, zero):
                                no_costs = True
                                break
                            best_cost = -1
                            gold = -1
                            best_score = 0
                            for m in range(classes.n_moves):
                                if not d.mask[m]:
                                    continue
                                for c in range(classes.first[m], classes.end[m]):
                                    cls_cost[c] = cost[m] + (classes.labeled[m] and zero[m] >= 0
                                                             and classes.class_label[c] != zero[m])
                                    if best_cost < 0 or cls_cost[c] < best_cost or \
                                            (cls_cost[c] == best_cost and d.scores[c] > best_score):
                                        best_cost, gold, best_score = cls_cost[c], c, d.scores[c]
                            wrong = cls_cost[pred] > best_cost
                        else:
                            gold = oracle_class(step.system, classes, &s, &g, &d)
                            wrong = pred != gold
                        steps += 1
                        if wrong:
                            weights.update(gold, pred, t)
                        else:
                            steps_ok += 1
                        t += 1
                        nxt = gold
                        if explore and wrong and (next_random(&rng_state) >> 11) * (1.0 / 9007199254740992.0) < explore_p:
                            nxt = pred
                        step.apply(&s, nxt, NULL, &w)
                    gold_free(&g)
                    if not ok or no_costs:
                        break
            if no_costs:
                raise ValueError(f"the {step.system.name} system has no dynamic oracle (use the static one)")
            if not ok:
                raise MemoryError("out of memory while training")
            PyErr_CheckSignals()
            if progress is not None:
                progress(epoch + 1, steps_ok / <double>max(steps, 1), time.perf_counter() - t0)
        return weights.average(t)
    finally:
        state_free(&s)
        gold_free(&g)
        decision_free(&d)
        workspace_free(&w)
        free(cls_cost)
