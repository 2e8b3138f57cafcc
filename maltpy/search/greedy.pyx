# cython: language_level=3
"""Greedy search: at each decision, the best-scoring permissible class (MaltParser's parsing).

Two walks over the same step (:mod:`maltpy.search.step`): one sentence after the other, with the
step's kept partial sums (linear models), or, for a scorer that scores many decisions at once
(``Scorer.batched``: kernel models), many sentences together: each round advances every
unfinished sentence to its next decision, scores them all with one call, and applies each
one's best class. Both run in C without the GIL for the whole corpus; the batched walk
advances sentences on ``n_threads`` threads (OpenMP on Linux builds). The trees do not depend
on the walk, the window or the threads.
"""
cimport cython
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from cython.parallel cimport prange, threadid
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memset

from maltpy.systems.state cimport Gold, State, state_alloc, state_free
from maltpy.systems.base cimport gold_free
from maltpy.features.extract cimport Sent
from maltpy.features.corpus cimport Corpus
from maltpy.search.decision cimport Decision, Scorer
from maltpy.search.step cimport PARSE, Record, Step, Workspace, decision_free, load_gold, workspace_free
from maltpy.search.strategy import Strategy

cnp.import_array()


class Greedy(Strategy):
    """The best-scoring permissible class at every decision."""

    name = "greedy"

    def parse(self, model, corpus, progress=None, record_end=False, moves_out=None, n_threads=1, given=None,
              confidence_out=None):
        if model.scorer.batched:
            from threadpoolctl import threadpool_limits
            # the walk scores groups on its own threads; BLAS threads inside them would oversubscribe
            with threadpool_limits(limits=1, user_api="blas"):
                return parse_batched(model.step(corpus.max_n), corpus, progress=progress, record_end=record_end,
                                     moves_out=moves_out, n_threads=n_threads, given=given,
                                     confidence_out=confidence_out)
        return parse_sequential(model.step(corpus.max_n), corpus, progress=progress, record_end=record_end,
                                moves_out=moves_out, given=given, confidence_out=confidence_out)


@cython.final
cdef class Outputs:
    """What a parse writes per corpus row: heads and label ids (root rows -1), with
    ``record_end`` where each word was when the buffer first became empty, and into
    ``moves_out`` (int32, one entry per row) the move that built each word's arc."""
    cdef object heads, labels, end
    cdef int* h
    cdef int* l
    cdef signed char* e
    cdef int* m
    cdef float* conf
    cdef bint record_end
    cdef Py_ssize_t n_rows

    def __cinit__(self, Corpus corpus, bint record_end, moves_out, confidence_out=None):
        cdef int[::1] mo
        cdef float[:, ::1] co
        self.n_rows = corpus.n_rows
        self.record_end = record_end
        self.heads = np.full(max(corpus.n_rows, 1), -1, dtype=np.int32)
        self.labels = np.full(max(corpus.n_rows, 1), -1, dtype=np.int32)
        self.end = np.zeros(max(corpus.n_rows, 1), dtype=np.int8)
        self.h = <int*>cnp.PyArray_DATA(self.heads)
        self.l = <int*>cnp.PyArray_DATA(self.labels)
        self.e = <signed char*>cnp.PyArray_DATA(self.end) if record_end else NULL
        self.m = NULL
        if moves_out is not None:
            if len(moves_out) < corpus.n_rows:
                raise ValueError("moves_out needs one entry per corpus row")
            moves_out[:] = -1
            if corpus.n_rows:
                mo = moves_out
                self.m = &mo[0]
        self.conf = NULL
        if confidence_out is not None:
            if confidence_out.shape != (corpus.n_rows, 2) or confidence_out.dtype != np.float32:
                raise ValueError("confidence_out needs two float32 values per corpus row")
            # an arc no decision built (attached to the root when parsing ended) keeps 0
            confidence_out[:] = 0
            if corpus.n_rows:
                co = confidence_out
                self.conf = &co[0, 0]

    cdef inline void start(self, Record* r, Py_ssize_t r0) noexcept nogil:
        """Record sentence rows from r0 on into ``r``."""
        r.end = self.e + r0 if self.e != NULL else NULL
        r.recorded = False
        r.moves = self.m + r0 if self.m != NULL else NULL
        r.confidence = self.conf + 2 * r0 if self.conf != NULL else NULL

    cdef inline void tree(self, const State* s, Py_ssize_t r0) noexcept nogil:
        """The finished sentence's tree, at rows r0 + 1 .. r0 + n."""
        cdef int i
        for i in range(1, s.n + 1):
            self.h[r0 + i] = s.heads[i]
            self.l[r0 + i] = s.labels[i]

    def result(self):
        n = self.n_rows
        if self.record_end:
            return self.heads[:n], self.labels[:n], self.end[:n]
        return self.heads[:n], self.labels[:n]


@cython.final
cdef class GivenArcs:
    """The arcs a parse must keep (constrained parsing): per corpus row the given head (-1:
    none) and label id (-1: any), checked against the corpus; None: no constraints."""
    cdef object heads_arr, labels_arr
    cdef const int* heads
    cdef const int* labels

    def __cinit__(self, Corpus corpus, given):
        heads, labels = given
        self.heads_arr = np.ascontiguousarray(heads, dtype=np.int32)
        self.labels_arr = np.ascontiguousarray(labels, dtype=np.int32)
        if len(self.heads_arr) != corpus.n_rows or len(self.labels_arr) != corpus.n_rows:
            raise ValueError("the given arcs need one head and one label per corpus row")
        sizes = np.diff(corpus.offsets) - 1
        n_of_row = np.repeat(sizes, sizes + 1) if len(sizes) else np.zeros(0, dtype=np.int64)
        if np.any(self.heads_arr > n_of_row) or np.any(self.heads_arr < -1):
            raise ValueError("a given head lies outside its sentence")
        self.heads = <const int*>cnp.PyArray_DATA(self.heads_arr)
        self.labels = <const int*>cnp.PyArray_DATA(self.labels_arr)


def parse_sequential(Step step, Corpus corpus, progress=None, bint record_end=False, moves_out=None, given=None,
                     confidence_out=None):
    """Parse every sentence, one after the other; return heads and labels per corpus row (root
    rows -1), and with ``record_end`` per row where that word was when the buffer first became
    empty (fragmentation diagnostics), as a third int8 array: 1 = on the stack without a head,
    2 = on the stack with a head, 0 = elsewhere. ``moves_out``: an int32 array (one entry per
    row) that receives the move that built each word's arc at a decision (-1: otherwise).
    ``given``: (heads, label ids) per corpus row, the arcs to keep (:class:`GivenArcs`).
    ``confidence_out``: float32 (rows x 2), receives for each word the margin and the
    probability of the decision that built its arc (:meth:`Step.note_confidence`; 0 for an arc
    the end of parsing made)."""
    cdef Outputs out = Outputs(corpus, record_end, moves_out, confidence_out)
    cdef GivenArcs arcs = GivenArcs(corpus, given) if given is not None else None
    cdef bint constrained = arcs is not None
    cdef Gold g
    cdef State s
    cdef Sent sent
    cdef Decision d
    cdef Record t
    cdef Workspace w
    cdef Py_ssize_t k, n_sent = corpus.n_sentences, r0, step_every = max(1, n_sent // 100)
    cdef int best
    cdef bint report = progress is not None
    cdef bint ok = True
    s.block = NULL
    g.n_children = NULL
    memset(&w, 0, sizeof(Workspace))
    if not step.decision_alloc(&d):
        raise MemoryError()
    try:
        if not (state_alloc(&s, corpus.max_n) and step.workspace_alloc(&w)):
            raise MemoryError()
        # one nogil block for the whole corpus: threads parsing other chunks never wait for
        # the GIL (it is taken back only to report progress)
        with nogil:
            for k in range(n_sent):
                corpus.sentence(k, &sent)
                r0 = corpus.off_p[k]
                out.start(&t, r0)
                step.start(&s, &sent, &w, PARSE)
                if constrained:
                    gold_free(&g)
                    if not load_gold(step.system, corpus, k, &g, arcs.heads, arcs.labels):
                        ok = False
                        break
                while step.next(&s, &d, PARSE, &t, &w):
                    if constrained:
                        step.restrict(&s, &g, &d)
                    step.score(&s, &sent, &d, &w)
                    best = step.best(&s, &sent, &d, &w)
                    if t.confidence != NULL:
                        step.note_confidence(&d, best, &t)
                    step.apply(&s, best, &t, &w)
                step.finish(&s, &t)
                out.tree(&s, r0)
                if report and (k + 1) % step_every == 0:
                    with gil:
                        progress(step_every)
                elif (k & 255) == 255:
                    with gil:      # Ctrl-C stops a long parse (in the main thread)
                        PyErr_CheckSignals()
        if not ok:
            raise MemoryError()
    finally:
        state_free(&s)
        gold_free(&g)
        decision_free(&d)
        workspace_free(&w)
    return out.result()


def parse_batched(Step step, Corpus corpus, progress=None, bint record_end=False, moves_out=None,
                  int window=8192, int n_threads=1, given=None, confidence_out=None):
    """:func:`parse_sequential`'s result, with ``window`` sentences in flight together and their
    pending decisions scored by one :meth:`Scorer.score_many` call per round; ``n_threads``
    threads advance the sentences (keep BLAS itself at one thread: :class:`Greedy` does)."""
    cdef Outputs out = Outputs(corpus, record_end, moves_out, confidence_out)
    cdef GivenArcs arcs = GivenArcs(corpus, given) if given is not None else None
    cdef bint constrained = arcs is not None
    cdef Scorer scorer = step.scorer
    cdef Py_ssize_t n_sent = corpus.n_sentences, w0
    window = max(1, min(window, n_sent if n_sent else 1))
    cdef int W = window, T = max(1, n_threads)
    cdef State* states = <State*>calloc(W, sizeof(State))
    cdef Sent* sents = <Sent*>calloc(W, sizeof(Sent))
    cdef Record* tracks = <Record*>calloc(W, sizeof(Record))
    cdef Workspace* spaces = <Workspace*>calloc(T, sizeof(Workspace))     # one per thread
    cdef Decision* ds = <Decision*>calloc(W, sizeof(Decision))
    cdef Gold* golds = <Gold*>calloc(W, sizeof(Gold))
    cdef Decision** pend = <Decision**>malloc(sizeof(Decision*) * W)
    cdef int* active = <int*>malloc(sizeof(int) * W)
    cdef bint* pending = <bint*>malloc(sizeof(bint) * W)
    cdef void* work = NULL
    cdef int n, n_active, n_next, n_done, i, q, best
    cdef bint ok = states != NULL and sents != NULL and tracks != NULL and ds != NULL and pend != NULL \
        and active != NULL and pending != NULL and golds != NULL and spaces != NULL
    try:
        if ok:
            for q in range(W):
                if not step.decision_alloc(&ds[q]):
                    ok = False
                    break
            for q in range(T):
                if ok and not step.workspace_alloc(&spaces[q]):
                    ok = False
        if ok:
            work = scorer.work_new(T, W)
            ok = work != NULL or not scorer.batched
        if not ok:
            raise MemoryError("out of memory for the batched parse")
        w0 = 0
        while w0 < n_sent:
            n = <int>min(W, n_sent - w0)
            with nogil:
                for i in range(n):
                    corpus.sentence(w0 + i, &sents[i])
                    if not state_alloc(&states[i], sents[i].n):
                        ok = False
                        break
                    step.start(&states[i], &sents[i], NULL, PARSE)
                    out.start(&tracks[i], corpus.off_p[w0 + i])
                    if constrained:
                        gold_free(&golds[i])
                        if not load_gold(step.system, corpus, w0 + i, &golds[i], arcs.heads, arcs.labels):
                            ok = False
                            break
                    active[i] = i
            if not ok:
                raise MemoryError("out of memory for the batched parse")
            n_active = n
            while n_active > 0:
                n_done = 0
                with nogil:
                    # 1. advance every unfinished sentence to its next decision
                    for q in prange(n_active, num_threads=T, schedule="dynamic", chunksize=32):
                        i = active[q]
                        pending[q] = step.next(&states[i], &ds[i], PARSE, &tracks[i], NULL)
                        if pending[q]:
                            if constrained:
                                step.restrict(&states[i], &golds[i], &ds[i])
                            step.features(&states[i], &sents[i], &ds[i])
                        else:
                            step.finish(&states[i], &tracks[i])
                            out.tree(&states[i], corpus.off_p[w0 + i])
                            state_free(&states[i])
                            n_done += 1
                    n_next = 0
                    for q in range(n_active):
                        if pending[q]:
                            active[n_next] = active[q]
                            pend[n_next] = &ds[active[q]]
                            n_next += 1
                    n_active = n_next
                    # 2. score the pending decisions together, 3. apply each one's best class
                    scorer.score_many(pend, n_active, T, work)
                    for q in prange(n_active, num_threads=T, schedule="dynamic", chunksize=32):
                        i = active[q]
                        best = step.best(&states[i], &sents[i], &ds[i], &spaces[threadid()])
                        if tracks[i].confidence != NULL:
                            step.note_confidence(&ds[i], best, &tracks[i])
                        step.apply(&states[i], best, &tracks[i], NULL)
                if progress is not None and n_done:
                    progress(n_done)
                PyErr_CheckSignals()
            w0 += n
    finally:
        if work != NULL:
            scorer.work_free(work)
        if states != NULL:
            for i in range(W):
                state_free(&states[i])
        if ds != NULL:
            for i in range(W):
                decision_free(&ds[i])
        if golds != NULL:
            for i in range(W):
                gold_free(&golds[i])
        if spaces != NULL:
            for i in range(T):
                workspace_free(&spaces[i])
        free(spaces)
        free(golds)
        free(states)
        free(sents)
        free(tracks)
        free(ds)
        free(pend)
        free(active)
        free(pending)
    return out.result()
