# cython: language_level=3
"""The static oracle's strategy: walk each gold tree with the oracle's moves and record one
training instance per decision (MaltParser's instance collection), without the GIL."""
cimport cython
import numpy as np
cimport numpy as cnp
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from libc.stdlib cimport malloc, realloc, free
from libc.stdint cimport int32_t, int64_t

from maltpy.systems.state cimport State, Gold, state_alloc, state_free
from maltpy.systems.base cimport gold_free
from maltpy.features.extract cimport Sent
from maltpy.features.featmap cimport FeatMap
from maltpy.features.corpus cimport Corpus
from maltpy.search.decision cimport Decision
from maltpy.search.step cimport TRAIN, Step, decision_free, load_gold, oracle_class

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


def collect_instances(Step step, FeatMap fmap, Corpus corpus, gold_heads, gold_labels, progress=None):
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
    cdef Decision d
    cdef Vec indptr, indices, ys, splits
    cdef Py_ssize_t k, n_sent = corpus.n_sentences, r0
    cdef int every, cls, i, fid, n_errors = 0
    cdef bint ok = True, wrong
    s.block = NULL
    g.n_children = NULL
    d.keys = NULL
    if (not step.decision_alloc(&d) or not state_alloc(&s, corpus.max_n)
            or not vec_init(&indptr, sizeof(int64_t), 1024) or not vec_init(&indices, sizeof(int32_t), 8192)
            or not vec_init(&ys, sizeof(int32_t), 1024) or not vec_init(&splits, sizeof(int64_t), 1024)):
        decision_free(&d)
        state_free(&s)
        raise MemoryError()
    (<int64_t*>indptr.data)[0] = 0
    indptr.size = 1
    every = max(1, n_sent // 100)
    try:
        for k in range(n_sent):
            with nogil:
                r0 = corpus.off_p[k]
                corpus.sentence(k, &sent)
                ok = load_gold(step.system, corpus, k, &g, &gh[0], &gl[0])
                step.start(&s, &sent, NULL, TRAIN)
                while ok and step.next(&s, &d, TRAIN, NULL, NULL):
                    cls = oracle_class(step.system, step.classes, &s, &g, &d)
                    step.features(&s, &sent, &d)
                    if not (vec_reserve(&indices, d.nk) and vec_reserve(&indptr, 1)
                            and vec_reserve(&ys, 1) and vec_reserve(&splits, 1)):
                        ok = False
                        break
                    for i in range(d.nk):
                        fid = fmap.add(d.keys[i])
                        if fid < 0:
                            ok = False
                        (<int32_t*>indices.data)[indices.size] = fid
                        indices.size += 1
                    (<int64_t*>indptr.data)[indptr.size] = indices.size
                    indptr.size += 1
                    (<int32_t*>ys.data)[ys.size] = cls
                    ys.size += 1
                    (<int64_t*>splits.data)[splits.size] = d.split_value
                    splits.size += 1
                    step.apply(&s, cls, NULL, NULL)
                step.finish(&s, NULL)
                wrong = False
                for i in range(1, sent.n + 1):
                    if s.heads[i] != gh[r0 + i] or s.labels[i] != gl[r0 + i]:
                        wrong = True
                n_errors += wrong
                gold_free(&g)
            if not ok:
                raise MemoryError("out of memory while collecting training instances")
            if progress is not None and (k + 1) % every == 0:
                progress(every)
    finally:
        state_free(&s)
        gold_free(&g)
        decision_free(&d)
    return {
        "indptr": vec_to_numpy(&indptr, np.int64),
        "indices": vec_to_numpy(&indices, np.int32),
        "y": vec_to_numpy(&ys, np.int32),
        "split": vec_to_numpy(&splits, np.int64),
        "oracle_errors": n_errors,
    }
