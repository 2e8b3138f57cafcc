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


cdef struct Work:
    int* dep_start     # dependents of head h (0..n) at dep_list[dep_start[h]:dep_start[h + 1]]
    int* dep_list
    int* fill
    int* order         # the words in postorder from the root word
    int* stack
    int* psi           # a word's current top: token k (0..n-1) or n + node index
    int* parent        # per child ref (tokens, then nodes): node index, or -1
    int* node_sym
    int* ks            # the distinct events of one head's dependents
    int* members       # the dependents of one event
    int* token_unary   # per token: the symbol of the unary node put over it, or -1 ...
    int* token_unary_id      # ... that node's number
    int* token_unary_parent  # ... and its parent's
    int* node_unary    # per node: the symbol of the unary node put over it, or -1 ...
    int* node_unary_id       # ... that node's number
    int* node_unary_parent   # ... and its parent's


cdef void work_free(Work* w) noexcept nogil:
    free(w.dep_start)
    free(w.dep_list)
    free(w.fill)
    free(w.order)
    free(w.stack)
    free(w.psi)
    free(w.parent)
    free(w.node_sym)
    free(w.ks)
    free(w.members)
    free(w.token_unary)
    free(w.token_unary_id)
    free(w.token_unary_parent)
    free(w.node_unary)
    free(w.node_unary_id)
    free(w.node_unary_parent)


cdef int* ints(int64_t n, bint* ok) noexcept nogil:
    cdef int* p = <int*>malloc(n * sizeof(int))
    if p == NULL:
        ok[0] = False
    return p


cdef bint work_alloc(Work* w, int64_t n) noexcept nogil:
    """Room for sentences of up to n words: at most one node per dependent, so n nodes, and n
    tokens + n nodes as children."""
    cdef bint ok = True
    w.dep_start = ints(n + 2, &ok)
    w.dep_list = ints(n + 1, &ok)
    w.fill = ints(n + 2, &ok)
    w.order = ints(n + 1, &ok)
    w.stack = ints(2 * n + 2, &ok)
    w.psi = ints(n + 1, &ok)
    w.parent = ints(2 * n + 2, &ok)
    w.node_sym = ints(n + 1, &ok)
    w.ks = ints(n + 1, &ok)
    w.members = ints(n + 1, &ok)
    w.token_unary = ints(n + 1, &ok)
    w.token_unary_id = ints(n + 1, &ok)
    w.token_unary_parent = ints(n + 1, &ok)
    w.node_unary = ints(n + 1, &ok)
    w.node_unary_id = ints(n + 1, &ok)
    w.node_unary_parent = ints(n + 1, &ok)
    return ok


cdef struct Span:
    # one column's bytes: row i is pool[starts[i]:ends[i]]
    const unsigned char* pool
    const int64_t* starts
    const int64_t* ends


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

    @staticmethod
    def of_spans(bytes pool, starts, ends):
        """A column whose row i is ``pool[starts[i]:ends[i]]`` (spans into a chunk's bytes, say)."""
        cdef Columns c = Columns.__new__(Columns)
        starts = np.ascontiguousarray(starts, dtype=np.int64)
        ends = np.ascontiguousarray(ends, dtype=np.int64)
        if starts.shape[0] != ends.shape[0] or (starts.shape[0] and (
                starts.min() < 0 or ends.max() > len(pool) or (ends < starts).any())):
            raise ValueError("Columns.of_spans: spans outside the pool")
        c.pool, c.starts, c.ends = pool, starts, ends
        return c

    cdef Span span(self):
        cdef Span v
        v.pool = self.pool
        v.starts = &self.starts[0] if self.starts.shape[0] else NULL
        v.ends = &self.ends[0] if self.ends.shape[0] else NULL
        return v


cdef inline void put_field(Buf* o, const Span* c, int64_t i) noexcept nogil:
    put(o, <const char*>c.pool + c.starts[i], c.ends[i] - c.starts[i])


cdef inline const unsigned char* export_value(const Span* c, int64_t i, int64_t* n) noexcept nogil:
    """A LEMMA or XPOS value of the encoding as export writes it (``n``: its length): the
    encoding's ``_`` is ``--`` (as ``to_export``)."""
    n[0] = c.ends[i] - c.starts[i]
    if n[0] == 1 and c.pool[c.starts[i]] == 95:     # "_"
        n[0] = 2
        return <const unsigned char*>"--"
    return c.pool + c.starts[i]


cdef inline void put_node(Buf* o, int64_t node_id, const Span* sym, int label, int64_t parent,
                          int version) noexcept nogil:
    """A phrasal node's line: ``#id``, (``--``,) its label, ``--``, ``--``, its parent."""
    put(o, "#", 1)
    put_int(o, node_id)
    put(o, "\t--\t" if version == 4 else "\t", 4 if version == 4 else 1)
    put_field(o, sym, label)
    put(o, "\t--\t--\t", 7)
    put_int(o, parent)
    put(o, "\n", 1)


cdef struct Unary:
    # the unary rules: a table of keys (a FeatMap's) and each key's symbol
    const uint64_t* keys
    const int32_t* vals
    Py_ssize_t mask
    Py_ssize_t size
    const int32_t* symbols


cdef inline int unary_symbol(const Unary* u, const Span* sym, int child, const unsigned char* child_label,
                             int64_t n_child, int parent, const unsigned char* morph, int64_t n_morph) noexcept nogil:
    """The symbol of the unary node the rules put between a child and its parent (symbols
    ``parent``, and ``child`` unless ``child_label`` is given), or -1."""
    cdef int32_t f
    if not u.size:
        return -1
    if child_label == NULL:
        child_label, n_child = sym.pool + sym.starts[child], sym.ends[child] - sym.starts[child]
    f = probe(u.keys, u.vals, u.mask, key3(child_label, n_child, sym.pool + sym.starts[parent],
                                           sym.ends[parent] - sym.starts[parent], morph, n_morph))
    return u.symbols[f] if f >= 0 else -1


cdef inline int64_t morph_class(const unsigned char* s, int64_t n) noexcept nogil:
    """The length of a morphology's class, up to its first comma (0 for --, _ and nothing)."""
    cdef int64_t i
    if n == 0 or (n == 1 and s[0] == 95) or (n == 2 and s[0] == 45 and s[1] == 45):
        return 0
    for i in range(n):
        if s[i] == 44:
            return i
    return n


cdef int decode_tree(Work* w, const int32_t* heads, const int32_t* labels, const int32_t* label_z,
                     const int32_t* label_k, int n, int* roots_seen) noexcept nogil:
    """Algorithm 2 on one sentence's heads (1-based, 0: the root) and label ids: the nodes'
    symbols in ``w.node_sym`` and every child's node in ``w.parent``; how many nodes, or -1 when
    the sentence has ``roots_seen`` root words, not one, and -2 when its heads are not a tree."""
    cdef int h, m, i, j, q, c, k, top, n_order = 0, n_nodes = 0, n_ks, n_members, closest
    # dependents of each head, ascending
    for h in range(n + 2):
        w.dep_start[h] = 0
    roots_seen[0] = 0
    for m in range(1, n + 1):
        h = heads[m - 1]
        if h < 0 or h > n:
            return -2
        w.dep_start[h + 1] += 1
        roots_seen[0] += h == 0
    if roots_seen[0] != 1:
        return -1
    for h in range(n + 1):
        w.dep_start[h + 1] += w.dep_start[h]
        w.fill[h] = w.dep_start[h]
    for m in range(1, n + 1):
        h = heads[m - 1]
        w.dep_list[w.fill[h]] = m
        w.fill[h] += 1
    # postorder from the root word, each head's dependents last to first
    top = 1
    w.stack[0] = w.dep_list[w.dep_start[0]]
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
        return -2
    for q in range(2 * n + 2):
        w.parent[q] = -1
    for i in range(n_order):
        h = w.order[i]
        w.psi[h] = h - 1
        # the distinct events of h's dependents, ascending
        n_ks = 0
        for q in range(w.dep_start[h], w.dep_start[h + 1]):
            k = label_k[labels[w.dep_list[q] - 1]]
            j = n_ks
            while j > 0 and w.ks[j - 1] > k:
                j -= 1
            if j > 0 and w.ks[j - 1] == k:
                continue
            for c in range(n_ks, j, -1):
                w.ks[c] = w.ks[c - 1]
            w.ks[j] = k
            n_ks += 1
        # one node per event: h's top and the event's dependents' tops, labelled by the closest
        for j in range(n_ks):
            n_members = 0
            closest = -1
            for q in range(w.dep_start[h], w.dep_start[h + 1]):
                m = w.dep_list[q]
                if label_k[labels[m - 1]] != w.ks[j]:
                    continue
                w.members[n_members] = m
                n_members += 1
                if closest < 0 or abs(m - h) < abs(closest - h):   # ties: the first (smaller m)
                    closest = m
            w.node_sym[n_nodes] = label_z[labels[closest - 1]]
            w.parent[w.psi[h]] = n_nodes
            for q in range(n_members):
                w.parent[w.psi[w.members[q]]] = n_nodes
            w.psi[h] = n + n_nodes
            n_nodes += 1
    return n_nodes


cdef inline int node_above(const Work* w, int n, int p, int root_symbol) noexcept nogil:
    """The export parent of a child whose node is ``p`` (-1: none): a root-symbol node is the
    root itself (0) at the top of the tree, and one lower down (an ill-formed parse) dissolves
    into the node above it, so that no node is left without a word under it."""
    while p >= 0 and w.node_sym[p] == root_symbol:
        p = w.parent[n + p]
    return 0 if p < 0 else FIRST_NODE + p


cdef void write_tree(Buf* o, Work* w, int n, int n_nodes, int64_t r0, const Span* cols, const Span* key,
                     int64_t s, const Span* sym, int root_symbol, const Unary* u, int version) noexcept nogil:
    """Sentence s as ``format_export`` writes it: ``#BOS``, its tokens (``cols``: words, lemmas,
    tags, morphology, rows from r0), its nodes (a root-symbol node is the root itself, 0, or dissolves into the node above it), the
    unary nodes the rules put over tokens, then over nodes (numbered in that order after the
    others), ``#EOS``."""
    cdef int j, q, p, c, next_id, max_written = 499
    cdef int64_t i, value_n
    cdef const unsigned char* value
    for q in range(n_nodes):
        if w.node_sym[q] != root_symbol and FIRST_NODE + q > max_written:
            max_written = FIRST_NODE + q
    next_id = max_written + 1
    put(o, "#BOS ", 5)
    put_field(o, key, s)
    put(o, "\n", 1)
    for j in range(n):
        i = r0 + j
        put_field(o, &cols[0], i)
        put(o, "\t", 1)
        if version == 4:
            value = export_value(&cols[1], i, &value_n)
            put(o, <const char*>value, value_n)
            put(o, "\t", 1)
        put_field(o, &cols[2], i)
        put(o, "\t", 1)
        value = export_value(&cols[3], i, &value_n)
        put(o, <const char*>value, value_n)
        put(o, "\t--\t", 4)
        p = node_above(w, n, w.parent[j], root_symbol)
        c = unary_symbol(u, sym, -1, cols[2].pool + cols[2].starts[i], cols[2].ends[i] - cols[2].starts[i],
                         root_symbol if p == 0 else w.node_sym[p - FIRST_NODE], value, morph_class(value, value_n))
        w.token_unary[j] = c
        if c >= 0:
            w.token_unary_id[j], w.token_unary_parent[j] = next_id, p
            p = next_id
            next_id += 1
        put_int(o, p)
        put(o, "\n", 1)
    for q in range(n_nodes):
        w.node_unary[q] = -1
        if w.node_sym[q] == root_symbol:
            continue
        p = node_above(w, n, w.parent[n + q], root_symbol)
        c = unary_symbol(u, sym, w.node_sym[q], NULL, 0, root_symbol if p == 0 else w.node_sym[p - FIRST_NODE],
                         sym.pool, 0)
        w.node_unary[q] = c
        if c >= 0:
            w.node_unary_id[q], w.node_unary_parent[q] = next_id, p
            p = next_id
            next_id += 1
        put_node(o, FIRST_NODE + q, sym, w.node_sym[q], p, version)
    for j in range(n):
        if w.token_unary[j] >= 0:
            put_node(o, w.token_unary_id[j], sym, w.token_unary[j], w.token_unary_parent[j], version)
    for q in range(n_nodes):
        if w.node_unary[q] >= 0:
            put_node(o, w.node_unary_id[q], sym, w.node_unary[q], w.node_unary_parent[q], version)
    put(o, "#EOS ", 5)
    put_field(o, key, s)
    put(o, "\n", 1)


def decode_export(const int64_t[::1] offsets, const int32_t[::1] heads, const int32_t[::1] labels,
                  Columns words, Columns lemmas, Columns tags, Columns morphs, Columns keys,
                  const int32_t[::1] label_z, const int32_t[::1] label_k, Columns symbols, int root_symbol,
                  FeatMap unary_keys, const int32_t[::1] unary_symbols, int version):
    """Export text of every sentence's tree: Algorithm 2 of Fernández-González & Martins 2015
    (each head's modifiers in classes by their event, one constituent per class, labelled as the
    class's modifier closest to the head says; ``root_symbol``'s constituents are the root), the
    unary rules put back, and the sentences written as ``format_export`` writes them. Raises
    MaltpyError naming the sentence whose heads are not a tree with one root word."""
    cdef int64_t n_sents = offsets.shape[0] - 1, n_rows = heads.shape[0], n_syms = symbols.starts.shape[0]
    cdef int64_t s, q, max_n = 0
    cdef int n_nodes = 0, roots_seen = 0
    cdef Work w
    cdef Buf o
    cdef Span cols[4]
    cdef Span key = keys.span(), sym = symbols.span()
    cdef Unary u
    if labels.shape[0] != n_rows or offsets[n_sents] != n_rows or offsets[0] != 0 or \
            words.starts.shape[0] != n_rows or lemmas.starts.shape[0] != n_rows or \
            tags.starts.shape[0] != n_rows or morphs.starts.shape[0] != n_rows or keys.starts.shape[0] != n_sents:
        raise ValueError("decode_export: the arrays are of different batches")
    if label_z.shape[0] != label_k.shape[0] or unary_symbols.shape[0] < unary_keys.size:
        raise ValueError("decode_export: the label tables differ in length")
    if not 0 <= root_symbol < n_syms:
        raise ValueError("decode_export: the root's symbol is out of range")
    for q in range(label_z.shape[0]):
        if label_z[q] < 0 or label_z[q] >= n_syms:
            raise ValueError("decode_export: a label's symbol is out of range")
    for q in range(unary_symbols.shape[0]):
        if unary_symbols[q] < 0 or unary_symbols[q] >= n_syms:
            raise ValueError("decode_export: a unary rule's symbol is out of range")
    for s in range(n_sents):
        if offsets[s + 1] < offsets[s]:
            raise ValueError("decode_export: offsets go back")
        max_n = max(max_n, offsets[s + 1] - offsets[s])
    for q in range(n_rows):
        if labels[q] < 0 or labels[q] >= label_z.shape[0]:
            raise ValueError("decode_export: a label id is out of range")
    cols[0], cols[1], cols[2], cols[3] = words.span(), lemmas.span(), tags.span(), morphs.span()
    u.keys, u.vals, u.mask, u.size = unary_keys.keys, unary_keys.vals, unary_keys.cap - 1, unary_keys.size
    u.symbols = &unary_symbols[0] if unary_symbols.shape[0] else NULL
    if not work_alloc(&w, max_n):
        work_free(&w)
        raise MemoryError()
    o.data, o.n, o.cap, o.failed = NULL, 0, 0, False
    try:
        with nogil:
            for s in range(n_sents):
                n_nodes = decode_tree(&w, &heads[0] + offsets[s], &labels[0] + offsets[s], &label_z[0], &label_k[0],
                                      <int>(offsets[s + 1] - offsets[s]), &roots_seen)
                if n_nodes < 0:
                    break
                write_tree(&o, &w, <int>(offsets[s + 1] - offsets[s]), n_nodes, offsets[s], cols, &key, s, &sym,
                           root_symbol, &u, version)
        if n_nodes < 0:
            key_text = bytes(keys.pool[keys.starts[s]:keys.ends[s]]).decode("utf-8", "surrogateescape")
            if n_nodes == -1:
                raise MaltpyError(f"decode: sentence {key_text}: the tree has {roots_seen} root words, not one")
            raise MaltpyError(f"decode: sentence {key_text}: the heads do not form a tree")
        if o.failed:
            raise MemoryError()
        return o.data[:o.n] if o.n else b""
    finally:
        work_free(&w)
        free(o.data)
