# cython: language_level=3
"""Beam search (``-b B``, spec beam.md §1) over the decision step, and its global training as a
structured perceptron with early update or max-violation (§2).

Each item of the agenda is a configuration, the sum of its decisions' scores and its history
(the classes it took; moves that need no decision are applied by the step and are not part of
it). At every round each unfinished item is advanced to its next decision and scored; every
permissible class of every item is a candidate; the B best candidates (ties: the earlier one,
item by item, class by class, so runs are deterministic) are copied (``state_copy``) and
applied. Every move is scored, even the only permissible one (the ``EVERY_MOVE`` walk), and arc-eager
pops the words left at the end of the input by scored REDUCEs (``State.scored_end``): its complete
sequences all have 2n moves (spec §1.1, option (a)). A finished item is carried forward with its
score (option (b)): for the systems whose sequences differ in length, they compete as they are.
The best finished item is the parse. Without the GIL; no Python object per decision.

The step keeps no partial sums across decisions (``Scoring.CACHED``): consecutive decisions
belong to different configurations, so each decision's keys are added over its permissible
classes only, but for the per-node caches that the agenda's items at a node share. A beam of width 1 is the greedy
strategy itself (byte-identical output).
"""
cimport cython
import time

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from libc.math cimport INFINITY, exp, fabs, log
from libc.stdint cimport int64_t, uint32_t, uint64_t
from cython.parallel cimport prange, threadid

from maltpy.errors import MaltpyError
from maltpy.features.extract cimport Sent
from maltpy.features.corpus cimport Corpus
from maltpy.search.decision cimport Decision, argmax_runs, classes_at_least, max_runs
from maltpy.search.step cimport CACHED, EVERY_MOVE, Step, Workspace, decision_free, load_gold, oracle_class, workspace_free
from maltpy.search.strategy import Strategy
from maltpy.search.trainable cimport TrainableWeights
from maltpy.systems.base cimport gold_free
from maltpy.systems.state cimport Gold, State, state_alloc, state_copy_parts, state_free

cnp.import_array()


cdef struct Item:
    State s
    double score
    int* hist          # the classes of its decisions
    int n_hist
    int cap_hist       # room in hist (it grows: a sentence's decisions can be quadratic in its length)
    bint done
    bint gold          # training: its history is the gold sequence's prefix


cdef struct Cand:
    double score
    int item
    int cls            # -1: a finished item carried forward


cdef inline bint better(const Cand* a, const Cand* b) noexcept nogil:
    """a ranks before b: a higher score, or the same and a candidate made earlier."""
    return a.score > b.score or (a.score == b.score and (a.item < b.item or (a.item == b.item and a.cls < b.cls)))


cdef int top_candidates(Cand* cand, int n, int width, Cand* out) noexcept nogil:
    """The ``width`` best of ``cand[:n]`` into ``out``, best first (insertion into a sorted
    array: width is small)."""
    cdef int k = 0, i, j
    for i in range(n):
        if k == width and not better(&cand[i], &out[k - 1]):
            continue
        j = k if k < width else width - 1
        while j > 0 and better(&cand[i], &out[j - 1]):
            out[j] = out[j - 1]
            j -= 1
        out[j] = cand[i]
        if k < width:
            k += 1
    return k


cdef struct Agendas:
    # two agendas of ``width`` items over sentences of up to ``max_n`` words, their candidates
    # and one decision per item
    int width
    Item* cur
    Item* nxt
    Cand* cand
    Cand* top
    int* children      # per item of the current agenda: its candidates among the best, still to take
    double* scale      # per item: its decision's scores as sequence terms, scale * score + shift
    double* shift
    double* best       # per item: its best candidate's score
    float* top_class   # per item: its best class's score
    int* hits          # the classes of one decision that reach the floor's bound (room for every class)
    uint64_t* key_hash # per item scored this round: a hash of its decision's keys (0: not scored)
    uint64_t* item_keys   # per item scored this round: its decision's keys as extracted (room each)
    int* item_nk
    int room
    Decision* ds
    Workspace ws       # the step's sums and scratch for these agendas' walks


cdef bint agendas_alloc(Agendas* r, Step step, int width, int max_n, int n_classes) noexcept nogil:
    """Allocate ``r`` (zeroed before); False when memory runs out (agendas_free it then too)."""
    cdef int i
    r.width = width
    r.cur = <Item*>calloc(width, sizeof(Item))
    r.nxt = <Item*>calloc(width, sizeof(Item))
    r.cand = <Cand*>malloc(sizeof(Cand) * width * (n_classes + 1))
    r.top = <Cand*>malloc(sizeof(Cand) * width)
    r.children = <int*>calloc(width, sizeof(int))
    r.scale = <double*>malloc(sizeof(double) * width)
    r.shift = <double*>malloc(sizeof(double) * width)
    r.best = <double*>malloc(sizeof(double) * width)
    r.top_class = <float*>malloc(sizeof(float) * width)
    r.key_hash = <uint64_t*>calloc(width, sizeof(uint64_t))
    r.room = step.ex.max_keys + 1
    r.item_keys = <uint64_t*>malloc(sizeof(uint64_t) * width * r.room)
    r.item_nk = <int*>calloc(width, sizeof(int))
    r.hits = <int*>malloc(sizeof(int) * (n_classes + 1))
    r.ds = <Decision*>calloc(width, sizeof(Decision))
    if r.cur == NULL or r.nxt == NULL or r.cand == NULL or r.top == NULL or r.ds == NULL or r.children == NULL \
            or r.scale == NULL or r.shift == NULL or r.best == NULL or r.top_class == NULL or r.hits == NULL \
            or r.key_hash == NULL or r.item_keys == NULL or r.item_nk == NULL:
        return False
    if not step.workspace_alloc(&r.ws):
        return False
    for i in range(width):
        if not (state_alloc(&r.cur[i].s, max_n) and state_alloc(&r.nxt[i].s, max_n)
                and step.decision_alloc(&r.ds[i])):
            return False
        r.cur[i].cap_hist = r.nxt[i].cap_hist = 64
        r.cur[i].hist = <int*>malloc(sizeof(int) * 64)
        r.nxt[i].hist = <int*>malloc(sizeof(int) * 64)
        if r.cur[i].hist == NULL or r.nxt[i].hist == NULL:
            return False
    return True


cdef void agendas_free(Agendas* r) noexcept nogil:
    cdef int i
    for i in range(r.width):
        if r.cur != NULL:
            state_free(&r.cur[i].s)
            free(r.cur[i].hist)
        if r.nxt != NULL:
            state_free(&r.nxt[i].s)
            free(r.nxt[i].hist)
        if r.ds != NULL:
            decision_free(&r.ds[i])
    free(r.cur)
    free(r.nxt)
    free(r.cand)
    free(r.top)
    free(r.children)
    free(r.scale)
    free(r.shift)
    free(r.best)
    free(r.top_class)
    free(r.key_hash)
    free(r.item_keys)
    free(r.item_nk)
    free(r.hits)
    r.children = NULL
    r.scale = r.shift = r.best = NULL
    r.top_class = NULL
    r.hits = NULL
    free(r.ds)
    workspace_free(&r.ws)
    r.cur = r.nxt = NULL
    r.cand = r.top = NULL
    r.ds = NULL


cdef int agendas_start(Agendas* r, Step step, const Sent* sent) noexcept nogil:
    """One item: the initial configuration."""
    step.start(&r.cur[0].s, sent, &r.ws, EVERY_MOVE)
    r.cur[0].score = 0
    r.cur[0].n_hist = 0
    r.cur[0].done = False
    r.cur[0].gold = True
    return 1


cdef inline uint64_t decision_hash(const Decision* d) noexcept nogil:
    """A hash of what a decision's scores depend on: its split model, keys and permissible runs
    (never 0, which marks an item not scored). The keys in four lanes, mixed at the end: one
    lane's multiplications wait on each other, key after key (a discontinuous parser's decision
    reads a hundred keys). Items that hash alike are compared whole (``same_decision``)."""
    cdef uint64_t h = 1469598103934665603ULL ^ (<uint64_t>d.split << 32) ^ <uint64_t>d.n_runs
    cdef uint64_t h1 = 0x9E3779B97F4A7C15ULL, h2 = 0xC2B2AE3D27D4EB4FULL, h3 = 0x165667B19E3779F9ULL
    cdef int k = 0
    while k + 4 <= d.nk:
        h = (h ^ d.keys[k]) * 1099511628211ULL
        h1 = (h1 ^ d.keys[k + 1]) * 1099511628211ULL
        h2 = (h2 ^ d.keys[k + 2]) * 1099511628211ULL
        h3 = (h3 ^ d.keys[k + 3]) * 1099511628211ULL
        k += 4
    while k < d.nk:
        h = (h ^ d.keys[k]) * 1099511628211ULL
        k += 1
    h = (h ^ (h1 * 0xFF51AFD7ED558CCDULL) ^ (h2 * 0xC4CEB9FE1A85EC53ULL) ^ (h3 * 0x94D049BB133111EBULL)) \
        * 1099511628211ULL
    for k in range(d.n_runs):
        h = (h ^ ((<uint64_t>d.run_lo[k] << 32) | <uint32_t>d.run_end[k])) * 1099511628211ULL
    return h | 1


cdef inline bint same_decision(const Agendas* r, int item, const Decision* d) noexcept nogil:
    """Whether ``d`` reads the keys that the decision of ``item``, scored this round, read (as
    extracted), under the same split model, and allows the same classes: their scores are the same."""
    cdef const Decision* a = &r.ds[item]
    if r.item_nk[item] != d.nk or a.split != d.split or a.n_runs != d.n_runs:
        return False
    if memcmp(a.run_lo, d.run_lo, sizeof(int) * a.n_runs) != 0 or \
            memcmp(a.run_end, d.run_end, sizeof(int) * a.n_runs) != 0:
        return False
    return memcmp(r.item_keys + <Py_ssize_t>item * r.room, d.keys, sizeof(uint64_t) * d.nk) == 0


cdef int agendas_expand(Agendas* r, Step step, const Sent* sent, int n_items, bint* all_done,
                     double temperature, double margin) noexcept nogil:
    """Advance and score each item; its candidates into ``r.cand``; how many. ``temperature``
    above 0: a decision adds the log-probability of its class, a softmax over the permissible
    classes' scores times ``temperature``, instead of the raw score (the scores of a model
    trained on single decisions are comparable across sequences that way, not as they are).

    With a full agenda, the candidates that score below every item's best are left out: each
    item's best is a candidate, so ``width`` candidates score at least the lowest of them, and
    none below it can be selected (the candidates kept are those :func:`agendas_select` would
    consider, in the same order; most of a step's are not). ``margin`` (INFINITY: none): the
    candidates that score more than ``margin`` below the step's best are left out too, and so
    never reach the next agenda (a threshold beam: a step whose best move stands out keeps
    fewer items)."""
    cdef int b, rr, c, q, n = 0
    cdef double top, z, scale, shift, floor, v
    cdef float cut
    cdef Item* it
    cdef Decision* d
    cdef uint64_t h
    cdef int bb, same
    all_done[0] = True
    for b in range(n_items):
        it = &r.cur[b]
        d = &r.ds[b]
        r.key_hash[b] = 0       # not scored this round (yet)
        if not it.done and not step.next(&it.s, d, EVERY_MOVE, NULL, &r.ws):
            it.done = True
        if it.done:
            r.best[b] = it.score
            continue
        all_done[0] = False
        if step.keys_first and score_alike:
            # items whose decisions read the same features (and allow the same classes) score
            # alike, and are scored once: a sixth of a discontinuous beam's items at width 4,
            # nearly half of arc-eager's on EWT at width 16
            step.features(&it.s, sent, d)
            h = decision_hash(d)
            same = -1
            for bb in range(b):
                if r.key_hash[bb] == h and same_decision(r, bb, d):
                    same = bb
                    break
            if same >= 0:
                memcpy(d.scores, r.ds[same].scores, sizeof(float) * step.C)
            else:
                # its keys as extracted (scoring may reorder them), for the items after it
                memcpy(r.item_keys + <Py_ssize_t>b * r.room, d.keys, sizeof(uint64_t) * d.nk)
                r.item_nk[b] = d.nk
                step.score_features(&it.s, sent, d, &r.ws)
                r.key_hash[b] = h
        else:
            step.score(&it.s, sent, d, &r.ws)
        top = max_runs(d.scores, d.run_lo, d.run_end, d.n_runs)
        scale, shift = 1.0, 0.0     # raw scores; log-probabilities: T * score - log-sum-exp
        if temperature > 0:
            z = 0
            for rr in range(d.n_runs):
                for c in range(d.run_lo[rr], d.run_end[rr]):
                    z += exp(temperature * (d.scores[c] - top))
            scale, shift = temperature, -temperature * top - log(z)
        r.scale[b], r.shift[b], r.top_class[b] = scale, shift, <float>top
        # the terms rise with the scores (scale > 0; rounding keeps the order): the top class's is the best
        r.best[b] = it.score + scale * top + shift
    floor = -INFINITY
    if n_items >= r.width:
        floor = INFINITY
        for b in range(n_items):
            if r.best[b] < floor:
                floor = r.best[b]
    if margin < INFINITY:
        top = -INFINITY
        for b in range(n_items):
            top = max(top, r.best[b])
        floor = max(floor, top - margin)
    for b in range(n_items):
        it = &r.cur[b]
        if it.done:
            if it.score >= floor:
                r.cand[n].score = it.score
                r.cand[n].item = b
                r.cand[n].cls = -1
                n += 1
            continue
        d = &r.ds[b]
        scale, shift = r.scale[b], r.shift[b]
        # a float bound a little below the scores that reach the floor: most classes are passed
        # over on one float comparison, the others' terms computed exactly and compared
        cut = -INFINITY
        if floor > -INFINITY and scale >= 1e-3:
            cut = <float>((floor - it.score - shift) / scale)
            cut = cut - 1e-5 * (fabs(cut) + 1)
            if not cut <= r.top_class[b]:      # never above the item's own best class (nor NaN)
                cut = -INFINITY
        for q in range(classes_at_least(d.scores, d.run_lo, d.run_end, d.n_runs, cut, r.hits)):
            c = r.hits[q]
            v = it.score + scale * d.scores[c] + shift
            if v >= floor:
                r.cand[n].score = v
                r.cand[n].item = b
                r.cand[n].cls = c
                n += 1
    return n


#: tests: whether an item whose decision reads what an earlier item's read takes its scores
#: (_score_alike), or is scored anew
cdef bint score_alike = True


def _score_alike(bint alike):
    """Tests: items of a round whose decisions read the same keys take one scoring (True, the
    default) or are each scored; returns the setting before."""
    global score_alike
    before = score_alike
    score_alike = alike
    return before


#: tests: copies carry every array of a configuration, whatever the system reads (_copy_everything)
cdef bint copy_everything = False


def _copy_everything(bint everything):
    """Tests: a beam's copies of its configurations carry every array (True) or what the step's
    system reads (False, the default); returns the setting before."""
    global copy_everything
    before = copy_everything
    copy_everything = everything
    return before


cdef inline bint hist_room(Item* it, int need) noexcept nogil:
    """Room for ``need`` classes in ``it``'s history (what it holds kept); False when memory runs out."""
    cdef int* grown
    if it.cap_hist < need:
        grown = <int*>realloc(it.hist, sizeof(int) * 2 * need)
        if grown == NULL:
            return False
        it.hist = grown
        it.cap_hist = 2 * need
    return True


cdef int agendas_select(Agendas* r, Step step, int n_cand, const int* gold_cls, bint histories) noexcept nogil:
    """The best candidates become the next agenda (then the current one); how many (0 when
    memory runs out). ``gold_cls``: the gold sequence's class at this round (training; NULL
    otherwise). ``histories``: each item keeps the classes of its decisions (training replays
    them; parsing reads the configurations only, and copying histories of some 2n classes
    was a seventh of what a copy of an item moved)."""
    cdef int k = top_candidates(r.cand, n_cand, r.width, r.top), q
    # what a copy carries: what the system reads (all of it for the tests' _copy_everything)
    cdef bint links = step.system.copy_links_and_union_find or copy_everything
    cdef bint arc_log = step.system.copy_arc_log or copy_everything
    cdef Item* it
    cdef Item* parent
    cdef Item* tmp
    cdef State s
    cdef int* h
    cdef int cap
    memset(r.children, 0, sizeof(int) * r.width)
    for q in range(k):
        r.children[r.top[q].item] += 1
    for q in range(k):
        parent = &r.cur[r.top[q].item]
        it = &r.nxt[q]
        r.children[r.top[q].item] -= 1
        if r.children[r.top[q].item] == 0:
            # the parent's last child takes its configuration and history over instead of copying
            # them (the parent is done with, and most items have one child): the two swap rooms
            s = it.s
            it.s = parent.s
            parent.s = s
            h, cap = it.hist, it.cap_hist
            it.hist, it.cap_hist = parent.hist, parent.cap_hist
            parent.hist, parent.cap_hist = h, cap
            if histories and not hist_room(it, parent.n_hist + 1):
                return 0
        else:
            state_copy_parts(&it.s, &parent.s, links, arc_log)
            if histories:
                if not hist_room(it, parent.n_hist + 1):
                    return 0
                memcpy(it.hist, parent.hist, sizeof(int) * parent.n_hist)
        it.n_hist = parent.n_hist
        it.score = r.top[q].score
        it.done = parent.done
        it.gold = parent.gold and (r.top[q].cls < 0 or (gold_cls != NULL and r.top[q].cls == gold_cls[0]))
        if r.top[q].cls >= 0:
            step.apply(&it.s, r.top[q].cls, NULL, &r.ws)
            if histories:
                it.hist[it.n_hist] = r.top[q].cls
                it.n_hist += 1
    tmp = r.cur
    r.cur = r.nxt
    r.nxt = tmp
    return k


cdef class HeldAgendas:
    """A :c:type:`Agendas` owned by Python (parsing's one agenda)."""
    cdef Agendas r

    def __cinit__(self, Step step, int width, int max_n, int n_classes):
        if not agendas_alloc(&self.r, step, width, max_n, n_classes):
            agendas_free(&self.r)
            raise MemoryError()

    def __dealloc__(self):
        agendas_free(&self.r)


def beam_parse(Step step, Corpus corpus, int width, progress=None, int nbest=0, confidence_out=None,
               double temperature=0, double margin=INFINITY):
    """Parse every sentence with a beam of ``width``; heads and label ids per corpus row.
    ``margin``: a step keeps only the candidates within it of its best (:func:`agendas_expand`).

    ``confidence_out`` (float32, one per row): each arc's confidence, the summed probability of
    the final agenda's parses that have it (a softmax over their scores; spec §1.2).
    ``nbest`` > 0: also return, per sentence, up to ``nbest`` distinct trees of the final agenda
    as (heads, label ids, score), best first. ``temperature`` > 0: decisions add log-probabilities
    (see :func:`agendas_expand`); 0: raw scores."""
    heads_out = np.full(corpus.n_rows, -1, dtype=np.int32)
    labels_out = np.full(corpus.n_rows, -1, dtype=np.int32)
    cdef int[::1] ho = heads_out
    cdef int[::1] lo = labels_out
    cdef float[::1] co
    cdef bint conf = confidence_out is not None
    if conf:
        if confidence_out.shape != (corpus.n_rows,) or confidence_out.dtype != np.float32:
            raise ValueError("confidence_out needs one float32 per corpus row")
        confidence_out[:] = 0
        if corpus.n_rows:
            co = confidence_out
    cdef bint finals = conf or nbest > 0
    cdef HeldAgendas agenda = HeldAgendas(step, width, corpus.max_n, step.classes.n_classes)
    cdef Agendas* ag = &agenda.r
    cdef Sent sent
    cdef Py_ssize_t k, n_sent = corpus.n_sentences, r0, every = max(1, n_sent // 100)
    cdef int n_items, n_cand, i, q
    cdef bint all_done, ok = True
    cdef double z, top
    kbest = [] if nbest > 0 else None
    for k in range(n_sent):
        with nogil:
            corpus.sentence(k, &sent)
            r0 = corpus.off_p[k]
            n_items = agendas_start(ag, step, &sent)
            while True:
                n_cand = agendas_expand(ag, step, &sent, n_items, &all_done, temperature, margin)
                if all_done:
                    break
                n_items = agendas_select(ag, step, n_cand, NULL, False)
                if n_items == 0:
                    ok = False
                    break
            if not ok:
                break
            # the agenda is sorted: its first item is the best
            for q in range(n_items if finals else 1):
                step.finish(&ag.cur[q].s, NULL)
            for i in range(1, sent.n + 1):
                ho[r0 + i] = ag.cur[0].s.heads[i]
                lo[r0 + i] = ag.cur[0].s.labels[i]
            if conf:
                top = ag.cur[0].score
                z = 0
                for q in range(n_items):
                    z += exp(ag.cur[q].score - top)
                for q in range(n_items):
                    for i in range(1, sent.n + 1):
                        if ag.cur[q].s.heads[i] == ho[r0 + i] and ag.cur[q].s.labels[i] == lo[r0 + i]:
                            co[r0 + i] += <float>(exp(ag.cur[q].score - top) / z)
        if nbest > 0:
            trees, seen = [], set()
            for q in range(n_items):
                h = tuple(ag.cur[q].s.heads[i] for i in range(1, sent.n + 1))
                l = tuple(ag.cur[q].s.labels[i] for i in range(1, sent.n + 1))
                if (h, l) in seen:
                    continue
                seen.add((h, l))
                trees.append((list(h), list(l), ag.cur[q].score))
                if len(trees) == nbest:
                    break
            kbest.append(trees)
        if progress is not None and (k + 1) % every == 0:
            progress(every)
        elif (k & 255) == 255:
            PyErr_CheckSignals()
    if not ok:
        raise MemoryError("out of memory for the beam's histories")
    if nbest > 0:
        return heads_out, labels_out, kbest
    return heads_out, labels_out


class Beam(Strategy):
    """Beam search of width ``beam_width`` (the setting ``-b``); width 1 is greedy search."""

    name = "beam"

    def __init__(self, beam_width=1, temperature=0.0, margin=float("inf"), **settings):
        self.width = max(1, int(beam_width))
        self.temperature = float(temperature)     # 0: raw scores; above: log-probabilities (beam_parse)
        self.margin = float(margin)               # --beam-margin: a threshold beam (agendas_expand)

    def parse(self, model, corpus, progress=None, record_end=False, moves_out=None, n_threads=1, given=None,
              confidence_out=None):
        from maltpy.search.greedy import Greedy
        if self.width == 1:
            return Greedy().parse(model, corpus, progress, record_end, moves_out, n_threads, given, confidence_out)
        if model.scorer.batched or not (model.scorer.linear or isinstance(model.scorer, TrainableWeights)):
            raise MaltpyError("a beam adds the scores of a linear model (LIBLINEAR, perceptron); kernel "
                              "(LIBSVM) models parse greedily: leave out -b")
        if record_end or moves_out is not None or given is not None or confidence_out is not None:
            raise MaltpyError("with a beam (-b > 1), fragmentation records, constraints and arc scores are not "
                              "available yet")
        return beam_parse(model.step(corpus.max_n, CACHED), corpus, self.width, progress,
                          temperature=self.temperature, margin=self.margin)


cdef bint replay_update(Step step, TrainableWeights w, const Sent* sent, const int* hist, int n, int skip,
                        float delta, Py_ssize_t t, State* s, Decision* d) noexcept nogil:
    """Walk the decisions ``hist[:n]`` from the initial configuration and add ``delta`` to the
    weights of each decision's features for its class, from decision ``skip`` on (the decisions
    before it are the same in both sequences of an update: they cancel)."""
    cdef int i
    step.start(s, sent, NULL, EVERY_MOVE)
    for i in range(n):
        if not step.next(s, d, EVERY_MOVE, NULL, NULL):
            break
        if i >= skip:
            step.features(s, sent, d)
            if not w.update_keys(d.keys, d.nk, hist[i], delta, t):
                return False
        step.apply(s, hist[i], NULL, NULL)
    return True


cdef struct Found:
    # one training sentence's search: the gold sequence's decisions (its prefix up to the update)
    # and the violating item's, and where the update is (n_viol -1: none)
    int* gold_hist
    int cap_gold
    int n_gold
    int* viol_hist
    int cap_viol
    int n_viol
    int gold_at_viol
    bint failed


cdef struct Searcher:
    # a thread's search: the agendas, the gold sequence's configuration and decision, the gold tree
    Agendas agendas
    State gs
    Decision gd
    Gold g


cdef inline bint keep_hist(int** hist, int* cap, const int* src, int n) noexcept nogil:
    """``*hist`` = ``src[:n]`` (grown where short); False when memory runs out."""
    cdef int* grown
    if n > cap[0]:
        grown = <int*>realloc(hist[0], sizeof(int) * 2 * n)
        if grown == NULL:
            return False
        hist[0] = grown
        cap[0] = 2 * n
    memcpy(hist[0], src, sizeof(int) * n)
    return True


cdef void search_sentence(Step step, Corpus corpus, Py_ssize_t k, const int* gh, const int* gl, Searcher* w,
                          bint max_violation, Found* out, bint dynamic_gold=False) noexcept nogil:
    """Search sentence ``k`` with the beam, the gold sequence beside it, and note in ``out``
    where its update is: early (the first round the gold prefix leaves the agenda), or at the
    largest violation (the best item's score over the gold prefix's); if gold survives but does
    not win, at the end. Reads the weights only.

    ``dynamic_gold``: the gold sequence takes, at each step, the best-scoring of the moves that
    lose no gold arc (the system's dynamic oracle, :meth:`Step.restrict`; the fewest where every
    move loses one) instead of the static oracle's one canonical move (spec §2.1: the model, not
    the oracle, chooses among equivalent gold sequences)."""
    cdef Sent sent
    cdef Agendas* ag = &w.agendas
    cdef int n_items, n_cand, gcls, q, gold_item
    cdef double gold_score = 0, worst = -INFINITY
    cdef bint all_done, gold_done = False, gold_in, gold_scored
    cdef int* grown
    out.n_gold = 0
    out.n_viol = -1
    out.gold_at_viol = 0
    out.failed = False
    corpus.sentence(k, &sent)
    gold_free(&w.g)
    if not load_gold(step.system, corpus, k, &w.g, gh, gl):
        out.failed = True
        return
    n_items = agendas_start(ag, step, &sent)
    # the gold sequence walks with the agendas' workspace: training's AFRESH scoring reuses no sums
    step.start(&w.gs, &sent, &ag.ws, EVERY_MOVE)
    while True:
        # the agenda's item on the gold path, if any: its decision, scored by agendas_expand, is the
        # gold sequence's (the same configuration), so the gold one need not be scored again
        gold_item = -1
        for q in range(n_items):
            if ag.cur[q].gold and not ag.cur[q].done:
                gold_item = q
                break
        gcls = -1
        gold_scored = False
        if not gold_done:
            if not step.next(&w.gs, &w.gd, EVERY_MOVE, NULL, &ag.ws):
                gold_done = True
            else:
                if dynamic_gold and step.restrict(&w.gs, &w.g, &w.gd) >= 0:
                    step.score(&w.gs, &sent, &w.gd, &ag.ws)      # over the least-cost classes
                    gcls = argmax_runs(w.gd.scores, w.gd.run_lo, w.gd.run_end, w.gd.n_runs)
                    gold_score += w.gd.scores[gcls]
                    gold_scored = True
                else:
                    gcls = oracle_class(step.system, step.classes, &w.gs, &w.g, &w.gd)
                    if gold_item < 0:
                        step.score(&w.gs, &sent, &w.gd, &ag.ws)
                        gold_score += w.gd.scores[gcls]
                        gold_scored = True
                step.apply(&w.gs, gcls, NULL, &ag.ws)
                if out.n_gold == out.cap_gold:
                    grown = <int*>realloc(out.gold_hist, sizeof(int) * 2 * (out.cap_gold + 32))
                    if grown == NULL:
                        out.failed = True
                        return
                    out.gold_hist = grown
                    out.cap_gold = 2 * (out.cap_gold + 32)
                out.gold_hist[out.n_gold] = gcls
                out.n_gold += 1
        n_cand = agendas_expand(ag, step, &sent, n_items, &all_done, 0, INFINITY)
        if gold_item >= 0 and gcls >= 0 and not gold_scored:
            gold_score += ag.ds[gold_item].scores[gcls]
        if all_done:
            break
        n_items = agendas_select(ag, step, n_cand, &gcls if gcls >= 0 else NULL, True)
        if n_items == 0:
            out.failed = True
            return
        if ag.cur[0].gold:
            continue
        if not max_violation:
            gold_in = False
            for q in range(n_items):
                gold_in = gold_in or ag.cur[q].gold
            if not gold_in:     # early update: gold fell out of the agenda
                if not keep_hist(&out.viol_hist, &out.cap_viol, ag.cur[0].hist, ag.cur[0].n_hist):
                    out.failed = True
                    return
                out.n_viol = ag.cur[0].n_hist
                out.gold_at_viol = out.n_gold
                return
            continue
        if ag.cur[0].score - gold_score > worst:
            worst = ag.cur[0].score - gold_score
            if not keep_hist(&out.viol_hist, &out.cap_viol, ag.cur[0].hist, ag.cur[0].n_hist):
                out.failed = True
                return
            out.n_viol = ag.cur[0].n_hist
            out.gold_at_viol = out.n_gold
    if out.n_viol < 0 and not ag.cur[0].gold:
        # gold survived (or the loop ended early) but the best item is another
        if not keep_hist(&out.viol_hist, &out.cap_viol, ag.cur[0].hist, ag.cur[0].n_hist):
            out.failed = True
            return
        out.n_viol = ag.cur[0].n_hist
        out.gold_at_viol = out.n_gold


def train_global(Step step, Corpus corpus, gold_heads, gold_labels, int epochs, int seed, int width,
                 bint max_violation=True, progress=None, int batch=1, int n_threads=1, bint dynamic_gold=False):
    """Train the step's :class:`~maltpy.search.trainable.TrainableWeights` as a structured
    perceptron over whole transition sequences with a beam of ``width`` (spec §2): the gold
    sequence is the static oracle's; early update (at the first round the gold prefix leaves the
    agenda) or, by default, max-violation (at the round where the best item's score exceeds the
    gold prefix's by most); if gold survives but does not win, at the end. Sentences in a seeded
    shuffle each epoch, in mini-batches of ``batch``: the sentences of a batch are searched with
    the weights of its start, on ``n_threads`` threads, and their updates are then made in order
    (summed), so that the model depends on ``batch`` but not on ``n_threads``. The weights are
    averaged over the sentences seen. Returns :meth:`TrainableWeights.average`.
    ``progress(epoch, share of sentences without update, seconds, updates)`` after each epoch."""
    if not isinstance(step.scorer, TrainableWeights):
        raise TypeError("global training needs a step over TrainableWeights")
    cdef TrainableWeights w = step.scorer
    cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
    cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
    if gh.shape[0] != corpus.n_rows or gl.shape[0] != corpus.n_rows:
        raise ValueError("gold arrays must have one entry per corpus row")
    batch = max(1, batch)
    cdef int T = max(1, min(n_threads, batch))
    cdef Searcher* searchers = <Searcher*>calloc(T, sizeof(Searcher))
    cdef Found* found = <Found*>calloc(batch, sizeof(Found))
    cdef State rs
    cdef Decision rd
    cdef Sent sent
    memset(&rs, 0, sizeof(State))       # nothing allocated yet: freeing them is safe
    memset(&rd, 0, sizeof(Decision))
    cdef Py_ssize_t b0, n_sent = corpus.n_sentences, t = 1, n_updates, n_clean
    cdef int i, q, nb, skip
    cdef bint updated, ok = True
    cdef int64_t[::1] order
    cdef Found* f
    shuffle = np.random.default_rng(seed)
    try:
        if searchers == NULL or found == NULL or not state_alloc(&rs, corpus.max_n) or not step.decision_alloc(&rd):
            raise MemoryError()
        for i in range(T):
            if not (agendas_alloc(&searchers[i].agendas, step, width, corpus.max_n, step.classes.n_classes)
                    and state_alloc(&searchers[i].gs, corpus.max_n) and step.decision_alloc(&searchers[i].gd)):
                raise MemoryError()
        for epoch in range(epochs):
            t0 = time.perf_counter()
            order = shuffle.permutation(n_sent).astype(np.int64)
            n_updates = n_clean = 0
            w.read_only = True
            with nogil:
                b0 = 0
                while b0 < n_sent:
                    nb = <int>min(<Py_ssize_t>batch, n_sent - b0)
                    # 1. search the batch's sentences with the same weights
                    if T > 1:
                        for q in prange(nb, num_threads=T, schedule="dynamic", chunksize=1):
                            search_sentence(step, corpus, order[b0 + q], &gh[0], &gl[0],
                                            &searchers[threadid()], max_violation, &found[q], dynamic_gold)
                    else:
                        for q in range(nb):
                            search_sentence(step, corpus, order[b0 + q], &gh[0], &gl[0], &searchers[0],
                                            max_violation, &found[q], dynamic_gold)
                    # 2. their updates, in order: + the gold prefix, - the violating item's
                    for q in range(nb):
                        f = &found[q]
                        if f.failed:
                            ok = False
                            break
                        updated = False
                        if f.n_viol >= 0:
                            skip = 0
                            while skip < f.n_viol and skip < f.gold_at_viol and f.viol_hist[skip] == f.gold_hist[skip]:
                                skip += 1
                            if skip < f.n_viol or skip < f.gold_at_viol:
                                corpus.sentence(order[b0 + q], &sent)
                                if not (replay_update(step, w, &sent, f.gold_hist, f.gold_at_viol, skip, 1, t, &rs, &rd)
                                        and replay_update(step, w, &sent, f.viol_hist, f.n_viol, skip, -1, t, &rs, &rd)):
                                    ok = False
                                    break
                                updated = True
                        n_updates += updated
                        n_clean += not updated
                        t += 1
                    if not ok:
                        break
                    b0 += nb
                    if (b0 // batch) % 64 == 0:
                        with gil:
                            PyErr_CheckSignals()
            w.read_only = False
            if not ok or w.failed:
                raise MemoryError("out of memory while training")
            PyErr_CheckSignals()
            if progress is not None:
                progress(epoch + 1, n_clean / <double>max(n_sent, 1), time.perf_counter() - t0, n_updates)
        return w.average(t)
    finally:
        w.read_only = False
        if searchers != NULL:
            for i in range(T):
                agendas_free(&searchers[i].agendas)
                state_free(&searchers[i].gs)
                decision_free(&searchers[i].gd)
                gold_free(&searchers[i].g)
        if found != NULL:
            for i in range(batch):
                free(found[i].gold_hist)
                free(found[i].viol_hist)
        free(searchers)
        free(found)
        state_free(&rs)
        decision_free(&rd)


def update_point(Step step, Corpus corpus, Py_ssize_t k, gold_heads, gold_labels, int width, bint max_violation=True,
                 bint dynamic_gold=False):
    """Where global training would update on sentence ``k`` with the current weights (for tests
    and inspection): (the gold sequence's decisions as far as the search followed it, the
    violating item's decisions or None, how many gold decisions the update takes)."""
    cdef int[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
    cdef int[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
    if gh.shape[0] != corpus.n_rows or gl.shape[0] != corpus.n_rows or not 0 <= k < corpus.n_sentences:
        raise ValueError("gold arrays must have one entry per corpus row, and k be a sentence")
    cdef Searcher w
    cdef Found f
    memset(&w, 0, sizeof(Searcher))
    memset(&f, 0, sizeof(Found))
    try:
        if not (agendas_alloc(&w.agendas, step, width, corpus.max_n, step.classes.n_classes)
                and state_alloc(&w.gs, corpus.max_n) and step.decision_alloc(&w.gd)):
            raise MemoryError()
        search_sentence(step, corpus, k, &gh[0], &gl[0], &w, max_violation, &f, dynamic_gold)
        if f.failed:
            raise MemoryError()
        gold = [f.gold_hist[i] for i in range(f.n_gold)]
        viol = [f.viol_hist[i] for i in range(f.n_viol)] if f.n_viol >= 0 else None
        return gold, viol, f.gold_at_viol
    finally:
        agendas_free(&w.agendas)
        state_free(&w.gs)
        decision_free(&w.gd)
        gold_free(&w.g)
        free(f.gold_hist)
        free(f.viol_hist)
