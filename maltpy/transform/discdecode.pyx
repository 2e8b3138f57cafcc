# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled decoding of head-ordered dependency trees into discontinuous trees, written as export
text (the parse path of discontinuous models). :func:`maltpy.formats.export.decode_discontinuous`
with :meth:`maltpy.parsing.discontinuous.UnaryRules.apply` and
:func:`maltpy.formats.export.format_export` is the reference in Python; a test holds the two to the
same bytes.

A batch is arrays: per sentence its tokens' rows in ``offsets``; per row the parsed head (1-based
within the sentence, 0: the root) and label id; per column (word, lemma, tag, morphology) the
rows' bytes in one pool with their spans. Per label id, ``label_z`` is the symbol of the
constituent it attaches at and ``label_k`` its attachment event. Symbols are bytes in a pool too.
The unary rules are a table from a key of (child label, parent label, morphology class) bytes,
:func:`unary_key`, to a symbol.
"""
from maltpy.bytebuf cimport Buf, put, put_int
from maltpy.features.featmap cimport FeatMap, mix64, probe
from maltpy.hashing cimport fnv1a
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from maltpy.errors import MaltpyError

DEF FIRST_NODE = 500


cdef inline uint64_t key3(const unsigned char* a, Py_ssize_t na, const unsigned char* b, Py_ssize_t nb,
                          const unsigned char* c, Py_ssize_t nc) noexcept nogil:
    cdef uint64_t h = mix64(fnv1a(a, na))
    h = mix64(h ^ (fnv1a(b, nb) * 0x9E3779B97F4A7C15ULL))
    return mix64(h ^ (fnv1a(c, nc) * 0xC2B2AE3D27D4EB4FULL))


def unary_key(bytes child, bytes parent, bytes morph_class) -> int:
    """The key of a unary rule (its child's label, its parent's, a token's morphology class)."""
    return key3(child, len(child), parent, len(parent), morph_class, len(morph_class))


cdef inline void put_node(Buf* o, int64_t node_id, const unsigned char* label, int64_t n, int64_t parent,
                          int version) noexcept nogil:
    """A phrasal node's line: ``#id``, (``--``,) its label, ``--``, ``--``, its parent."""
    put(o, "#", 1)
    put_int(o, node_id)
    put(o, "\t--\t" if version == 4 else "\t", 4 if version == 4 else 1)
    put(o, <const char*>label, n)
    put(o, "\t--\t--\t", 7)
    put_int(o, parent)
    put(o, "\n", 1)


cdef struct Work:
    int* dep_start     # dependents of head h (0..n) at dep_list[dep_start[h]:dep_start[h + 1]]
    int* dep_list
    int* fill
    int* order
    int* stack
    int* psi           # a word's current top: token k (0..n-1) or n + node index
    int* parent        # per child ref (tokens, then nodes): node index, or -1
    int* node_sym
    int* node_new_parent
    int* ks
    int* members
    int* token_unary   # per token: the symbol of the unary node put over it, or -1 ...
    int* token_unary_id      # ... that node's number
    int* token_unary_parent  # ... and its parent's
    int* node_unary    # per node: the symbol of the unary node put over it, or -1 ...
    int* node_unary_id       # ... that node's number (its parent: node_new_parent)


cdef void work_free(Work* w) noexcept nogil:
    free(w.dep_start)
    free(w.dep_list)
    free(w.fill)
    free(w.order)
    free(w.stack)
    free(w.psi)
    free(w.parent)
    free(w.node_sym)
    free(w.node_new_parent)
    free(w.ks)
    free(w.members)
    free(w.token_unary)
    free(w.token_unary_id)
    free(w.token_unary_parent)
    free(w.node_unary)
    free(w.node_unary_id)


cdef bint work_alloc(Work* w, int64_t n) noexcept nogil:
    # at most one node per dependent, so n nodes; child refs: n tokens + n nodes
    w.dep_start = <int*>malloc((n + 2) * sizeof(int))
    w.dep_list = <int*>malloc((n + 1) * sizeof(int))
    w.fill = <int*>malloc((n + 2) * sizeof(int))
    w.order = <int*>malloc((n + 1) * sizeof(int))
    w.stack = <int*>malloc((2 * n + 2) * sizeof(int))
    w.psi = <int*>malloc((n + 1) * sizeof(int))
    w.parent = <int*>malloc((2 * n + 2) * sizeof(int))
    w.node_sym = <int*>malloc((n + 1) * sizeof(int))
    w.node_new_parent = <int*>malloc((n + 1) * sizeof(int))
    w.ks = <int*>malloc((n + 1) * sizeof(int))
    w.members = <int*>malloc((n + 1) * sizeof(int))
    w.token_unary = <int*>malloc((n + 1) * sizeof(int))
    w.token_unary_id = <int*>malloc((n + 1) * sizeof(int))
    w.token_unary_parent = <int*>malloc((n + 1) * sizeof(int))
    w.node_unary = <int*>malloc((n + 1) * sizeof(int))
    w.node_unary_id = <int*>malloc((n + 1) * sizeof(int))
    return (w.token_unary != NULL and w.token_unary_id != NULL and w.token_unary_parent != NULL
            and w.node_unary != NULL and w.node_unary_id != NULL and w.dep_start != NULL and w.dep_list != NULL and w.fill != NULL and w.order != NULL
            and w.stack != NULL and w.psi != NULL and w.parent != NULL and w.node_sym != NULL
            and w.node_new_parent != NULL and w.ks != NULL and w.members != NULL)


cdef class Columns:
    """Bytes per row of one column: a pool and each row's [start, end)."""
    cdef readonly bytes pool
    cdef const int64_t[::1] starts
    cdef const int64_t[::1] ends

    def __init__(self, values):
        """``values``: the column's strings, one per row (none holds a newline)."""
        self.pool = ("\n".join(values) + "\n").encode("utf-8", "surrogateescape") if values else b""
        ends = np.flatnonzero(np.frombuffer(self.pool, dtype=np.uint8) == 10).astype(np.int64)
        if len(ends) != len(values):
            raise MaltpyError("a value holds a newline")
        starts = np.empty_like(ends)
        if len(ends):
            starts[0] = 0
            starts[1:] = ends[:len(ends) - 1] + 1
        self.starts = starts
        self.ends = ends


cdef inline bint empty_morph(const unsigned char* s, int64_t n) noexcept nogil:
    return n == 0 or (n == 1 and s[0] == 95) or (n == 2 and s[0] == 45 and s[1] == 45)


def decode_export(const int64_t[::1] offsets, const int32_t[::1] heads, const int32_t[::1] labels,
                  Columns words, Columns lemmas, Columns tags, Columns morphs, Columns keys,
                  const int32_t[::1] label_z, const int32_t[::1] label_k, Columns symbols, int root_symbol,
                  FeatMap unary_keys, const int32_t[::1] unary_symbols, int version):
    """Export text of every sentence's tree: Algorithm 2 of Fernández-González & Martins 2015
    (each head's modifiers in classes by their event, one constituent per class, labelled as the
    class's modifier closest to the head says; ``root_symbol``'s constituents are the root), the
    unary rules put back, and the sentences written as ``format_export`` writes them. Raises
    MaltpyError naming the sentence whose heads are not a tree with one root word."""
    cdef int64_t n_sents = offsets.shape[0] - 1, s, r0, max_n = 0
    cdef int n, h, m, i, j, q, k, top, n_order, n_nodes, n_ks, n_members, closest, c, p, sym, next_id
    cdef int roots_seen, max_written, err = 0
    cdef int64_t err_sent = -1
    cdef Work w
    cdef Buf o
    cdef const unsigned char* sp = symbols.pool
    cdef const unsigned char* wp = words.pool
    cdef const unsigned char* lp = lemmas.pool
    cdef const unsigned char* tp = tags.pool
    cdef const unsigned char* mp = morphs.pool
    cdef const unsigned char* kp = keys.pool
    cdef int64_t n_rows = heads.shape[0], n_syms = symbols.starts.shape[0]
    cdef int32_t f
    cdef int64_t a, b, mlen
    cdef uint64_t key
    if labels.shape[0] != n_rows or offsets[n_sents] != n_rows or offsets[0] != 0 or \
            words.starts.shape[0] != n_rows or lemmas.starts.shape[0] != n_rows or \
            tags.starts.shape[0] != n_rows or morphs.starts.shape[0] != n_rows or keys.starts.shape[0] != n_sents:
        raise ValueError("decode_export: the arrays are of different batches")
    if label_z.shape[0] != label_k.shape[0] or unary_symbols.shape[0] < unary_keys.size:
        raise ValueError("decode_export: the label tables differ in length")
    for q in range(label_z.shape[0]):
        if label_z[q] < 0 or label_z[q] >= n_syms:
            raise ValueError("decode_export: a label's symbol is out of range")
    for q in range(unary_symbols.shape[0]):
        if unary_symbols[q] < 0 or unary_symbols[q] >= n_syms:
            raise ValueError("decode_export: a unary rule's symbol is out of range")
    for s in range(n_sents):
        if offsets[s + 1] < offsets[s]:
            raise ValueError("decode_export: offsets go back")
        if offsets[s + 1] - offsets[s] > max_n:
            max_n = offsets[s + 1] - offsets[s]
    for q in range(n_rows):
        if labels[q] < 0 or labels[q] >= label_z.shape[0]:
            raise ValueError("decode_export: a label id is out of range")
    if not work_alloc(&w, max_n):
        work_free(&w)
        raise MemoryError()
    o.data, o.n, o.cap, o.failed = NULL, 0, 0, False
    try:
        with nogil:
            for s in range(n_sents):
                r0 = offsets[s]
                n = <int>(offsets[s + 1] - r0)
                # dependents of each head, ascending
                for h in range(n + 2):
                    w.dep_start[h] = 0
                roots_seen = 0
                for m in range(1, n + 1):
                    h = heads[r0 + m - 1]
                    if h < 0 or h > n:
                        err = 2
                        break
                    w.dep_start[h + 1] += 1
                    if h == 0:
                        roots_seen += 1
                if err == 0 and roots_seen != 1:
                    err = 1
                if err:
                    err_sent = s
                    break
                for h in range(n + 1):
                    w.dep_start[h + 1] += w.dep_start[h]
                    w.fill[h] = w.dep_start[h]
                for m in range(1, n + 1):
                    h = heads[r0 + m - 1]
                    w.dep_list[w.fill[h]] = m
                    w.fill[h] += 1
                # postorder from the root word, each head's dependents last to first
                n_order = 0
                top = 0
                w.stack[top] = w.dep_list[w.dep_start[0]]
                top += 1
                while top > 0 and n_order <= n:
                    top -= 1
                    h = w.stack[top]
                    if h < 0:
                        w.order[n_order] = -h - 1
                        n_order += 1
                        continue
                    w.stack[top] = -h - 1
                    top += 1
                    for i in range(w.dep_start[h], w.dep_start[h + 1]):
                        if top >= 2 * n + 2:
                            break
                        w.stack[top] = w.dep_list[i]
                        top += 1
                if n_order != n:
                    err = 2
                    err_sent = s
                    break
                for q in range(2 * n + 2):
                    w.parent[q] = -1
                n_nodes = 0
                for i in range(n_order):
                    h = w.order[i]
                    w.psi[h] = h - 1
                    # the distinct events of h's dependents, ascending
                    n_ks = 0
                    for q in range(w.dep_start[h], w.dep_start[h + 1]):
                        k = label_k[labels[r0 + w.dep_list[q] - 1]]
                        j = n_ks
                        while j > 0 and w.ks[j - 1] > k:
                            j -= 1
                        if j > 0 and w.ks[j - 1] == k:
                            continue
                        for c in range(n_ks, j, -1):
                            w.ks[c] = w.ks[c - 1]
                        w.ks[j] = k
                        n_ks += 1
                    for j in range(n_ks):
                        n_members = 0
                        closest = -1
                        for q in range(w.dep_start[h], w.dep_start[h + 1]):
                            m = w.dep_list[q]
                            if label_k[labels[r0 + m - 1]] != w.ks[j]:
                                continue
                            w.members[n_members] = m
                            n_members += 1
                            if closest < 0 or abs(m - h) < abs(closest - h):   # ties: the first (smaller m)
                                closest = m
                        w.node_sym[n_nodes] = label_z[labels[r0 + closest - 1]]
                        w.parent[w.psi[h]] = n_nodes
                        for q in range(n_members):
                            w.parent[w.psi[w.members[q]]] = n_nodes
                        w.psi[h] = n + n_nodes
                        n_nodes += 1
                # export parents: a root-symbol constituent is the root itself (0)
                max_written = 499
                for q in range(n_nodes):
                    if w.node_sym[q] != root_symbol and FIRST_NODE + q > max_written:
                        max_written = FIRST_NODE + q
                next_id = max_written + 1
                # the sentence: #BOS, tokens, nodes, unary nodes, #EOS
                put(&o, "#BOS ", 5)
                put(&o, <const char*>kp + keys.starts[s], keys.ends[s] - keys.starts[s])
                put(&o, "\n", 1)
                for j in range(n):
                    q = r0 + j
                    put(&o, <const char*>wp + words.starts[q], words.ends[q] - words.starts[q])
                    put(&o, "\t", 1)
                    if version == 4:
                        put(&o, <const char*>lp + lemmas.starts[q], lemmas.ends[q] - lemmas.starts[q])
                        put(&o, "\t", 1)
                    put(&o, <const char*>tp + tags.starts[q], tags.ends[q] - tags.starts[q])
                    put(&o, "\t", 1)
                    put(&o, <const char*>mp + morphs.starts[q], morphs.ends[q] - morphs.starts[q])
                    put(&o, "\t--\t", 4)
                    p = w.parent[j]
                    p = 0 if p < 0 or w.node_sym[p] == root_symbol else FIRST_NODE + p
                    # a unary rule for the token under its parent
                    sym = root_symbol if p == 0 else w.node_sym[p - FIRST_NODE]
                    a = morphs.starts[q]
                    mlen = morphs.ends[q] - a
                    if empty_morph(mp + a, mlen):
                        mlen = 0
                    else:
                        for i in range(<int>mlen):
                            if mp[a + i] == 44:
                                mlen = i
                                break
                    key = key3(tp + tags.starts[q], tags.ends[q] - tags.starts[q],
                               sp + symbols.starts[sym], symbols.ends[sym] - symbols.starts[sym], mp + a, mlen)
                    f = probe(unary_keys.keys, unary_keys.vals, unary_keys.cap - 1, key) if unary_keys.size else -1
                    w.token_unary[j] = unary_symbols[f] if f >= 0 else -1
                    if f >= 0:
                        put_int(&o, next_id)
                        w.token_unary_id[j] = next_id
                        w.token_unary_parent[j] = p
                        next_id += 1
                    else:
                        put_int(&o, p)
                    put(&o, "\n", 1)
                # the nodes, then the unary nodes over tokens (in token order), then over nodes
                for q in range(n_nodes):
                    w.node_unary[q] = -1
                    if w.node_sym[q] == root_symbol:
                        continue
                    p = w.parent[n + q]
                    p = 0 if p < 0 or w.node_sym[p] == root_symbol else FIRST_NODE + p
                    sym = root_symbol if p == 0 else w.node_sym[p - FIRST_NODE]
                    c = w.node_sym[q]
                    key = key3(sp + symbols.starts[c], symbols.ends[c] - symbols.starts[c],
                               sp + symbols.starts[sym], symbols.ends[sym] - symbols.starts[sym], sp, 0)
                    f = probe(unary_keys.keys, unary_keys.vals, unary_keys.cap - 1, key) if unary_keys.size else -1
                    if f >= 0:
                        w.node_unary[q] = unary_symbols[f]
                        w.node_unary_id[q] = next_id
                        w.node_new_parent[q] = p
                        p = next_id
                        next_id += 1
                    put_node(&o, FIRST_NODE + q, sp + symbols.starts[c], symbols.ends[c] - symbols.starts[c], p,
                             version)
                # the added nodes, numbered in the order tokens then nodes took them
                for j in range(n):
                    c = w.token_unary[j]
                    if c >= 0:
                        put_node(&o, w.token_unary_id[j], sp + symbols.starts[c], symbols.ends[c] - symbols.starts[c],
                                 w.token_unary_parent[j], version)
                for q in range(n_nodes):
                    c = w.node_unary[q]
                    if c >= 0:
                        put_node(&o, w.node_unary_id[q], sp + symbols.starts[c], symbols.ends[c] - symbols.starts[c],
                                 w.node_new_parent[q], version)
                put(&o, "#EOS ", 5)
                put(&o, <const char*>kp + keys.starts[s], keys.ends[s] - keys.starts[s])
                put(&o, "\n", 1)
        if err:
            key_text = bytes(keys.pool[keys.starts[err_sent]:keys.ends[err_sent]]).decode("utf-8", "surrogateescape")
            if err == 1:
                raise MaltpyError(f"decode: sentence {key_text}: the tree has {roots_seen} root words, not one")
            raise MaltpyError(f"decode: sentence {key_text}: the heads do not form a tree")
        if o.failed:
            raise MemoryError()
        return o.data[:o.n] if o.n else b""
    finally:
        work_free(&w)
        free(o.data)

