# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""A scanned chunk (:mod:`maltpy.formats.scan`) -> the loop's :class:`~maltpy.features.corpus.Corpus`,
in compiled code: what :func:`maltpy.parsing.encode.encode` does with Python strings,
done on the input's bytes.

Symbol tables become :class:`ByteTable` hash tables keyed by UTF-8 bytes; Suffix and
Prefix count code points as Python slicing does; Split cuts at a literal separator.
A Split with a regular-expression separator has no compiled form (:func:`supported`
says so and the parse path falls back to Python).
"""
import numpy as np
cimport numpy as cnp

from maltpy.hashing cimport FNV_OFFSET, FNV_PRIME, fnv1a
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy

from maltpy.formats.scan cimport Chunk
from maltpy.simd cimport prefetch
from maltpy.parsing.encode import NO_CLUSTER, ClusterTable, literal_separator
from maltpy.features.corpus import Corpus

cnp.import_array()


#: how many strings ahead a table's construction asks for a home slot
cdef enum:
    INSERT_AHEAD = 16

cdef enum:
    PLAIN = 0
    SUFFIX = 1
    PREFIX = 2


cdef struct Table:
    int32_t* slots        # entry index + 1, 0 = empty
    uint64_t mask
    uint64_t* hashes
    int64_t* offs         # entry k's bytes: pool[offs[k] : offs[k + 1] - 1] (a byte after each)
    int32_t* ids
    const unsigned char* pool
    int32_t missing       # the id of a string the table does not hold


cdef inline int _lookup(const Table* t, const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """The id of the string whose UTF-8 bytes are s[:n]; the table's missing id (-1 but for
    cluster tables) if it does not hold it."""
    cdef uint64_t h = fnv1a(s, n)
    cdef uint64_t slot = h & t.mask
    cdef int64_t e
    while True:
        e = t.slots[slot]
        if e == 0:
            return t.missing
        e -= 1
        if t.hashes[e] == h and t.offs[e + 1] - t.offs[e] - 1 == n and memcmp(t.pool + t.offs[e], s, n) == 0:
            return t.ids[e]
        slot = (slot + 1) & t.mask


cdef class ByteTable:
    """A read-only symbol table (string -> id) looked up by UTF-8 bytes without the GIL."""
    cdef Table t
    cdef object pool          # what t.pool points into: bytes, or a clusters file's uint8 array
    # a table of the same strings with other ids (with_ids) keeps the one whose arrays it shares
    cdef ByteTable owner
    cdef Py_ssize_t n_strings

    def __cinit__(self, ids=None, lines=None, int missing=-1):
        """``ids``: a dict of strings -> ids; or, with ``lines`` (UTF-8 bytes, one string a line,
        as a cluster table keeps its spellings: bytes or a uint8 array), an int32 array of their
        ids, in order. None: an empty shell that :meth:`with_ids` fills. ``missing``: the id of a
        string it does not hold."""
        cdef Py_ssize_t n, cap = 16, k, i, size
        cdef int64_t off = 0
        cdef const int32_t[::1] given
        cdef const unsigned char[::1] text
        cdef const unsigned char* p
        cdef uint64_t h
        cdef bint fits = True
        self.t.missing = missing
        if ids is None:
            return
        if lines is None:
            encoded = [(s.encode("utf-8", "surrogatepass"), i) for s, i in ids.items() if isinstance(s, str)]
            n = len(encoded)
        else:
            given = ids
            n = given.shape[0]
            if n < 1:
                raise ValueError("the lines and their ids do not match")
        if n >= 0x7FFFFFFF:
            raise ValueError("a symbol table holds at most 2,147,483,646 strings")
        self.n_strings = n
        while cap < 2 * n + 2:
            cap *= 2
        self.t.mask = cap - 1
        # calloc: a table of millions of slots (a large clusters file's spellings) comes zeroed
        # from the kernel instead of being written once more
        self.t.slots = <int32_t*>calloc(cap, sizeof(int32_t))
        self.t.hashes = <uint64_t*>malloc(sizeof(uint64_t) * (n + 1))
        self.t.offs = <int64_t*>malloc(sizeof(int64_t) * (n + 1))
        self.t.ids = <int32_t*>malloc(sizeof(int32_t) * (n + 1))
        if self.t.slots == NULL or self.t.hashes == NULL or self.t.offs == NULL or self.t.ids == NULL:
            raise MemoryError()
        # the pool holds each string followed by one byte (a line feed), so that string k is
        # pool[offs[k] : offs[k + 1] - 1] and a clusters file's lines are a pool as they are
        if lines is None:
            self.pool = b"\n".join(b for b, _ in encoded)
            self.t.pool = <const unsigned char*>self.pool
            for k in range(n):
                b, i = encoded[k]
                self.t.offs[k] = off
                off += len(b) + 1
                self.t.ids[k] = i
                self.t.hashes[k] = fnv1a(self.t.pool + self.t.offs[k], len(b))
            self.t.offs[n] = off
        else:
            self.pool = lines if len(lines) else b"\n"     # one empty string: a byte to point at
            text = self.pool
            size = len(lines)
            p = &text[0]
            # one pass marks where each string starts and hashes it (fnv1a's steps)
            with nogil:
                self.t.offs[0] = 0
                k = 0
                h = FNV_OFFSET
                for i in range(size):
                    if p[i] != 10:
                        h = (h ^ p[i]) * FNV_PRIME
                    elif k + 1 < n:
                        self.t.hashes[k] = h
                        h = FNV_OFFSET
                        k += 1
                        self.t.offs[k] = i + 1
                    else:           # more lines than ids
                        fits = False
                        break
            if not fits or k != n - 1:
                raise ValueError("the lines and their ids do not match")
            self.t.hashes[k] = h
            self.t.offs[n] = size + 1
            for k in range(n):
                self.t.ids[k] = given[k]
            self.t.pool = p
        cdef uint64_t slot
        with nogil:
            # each string's home slot is a cache miss in a large table: asked for some strings
            # ahead, so that the misses overlap (2.1 million spellings of a German clusters
            # file: 0.27-0.32 s -> 0.06-0.10 s, with the pass above instead of a copy and two passes)
            for k in range(n):
                if k + INSERT_AHEAD < n:
                    prefetch(&self.t.slots[self.t.hashes[k + INSERT_AHEAD] & self.t.mask])
                slot = self.t.hashes[k] & self.t.mask
                while self.t.slots[slot]:
                    slot = (slot + 1) & self.t.mask
                self.t.slots[slot] = <int32_t>(k + 1)

    def __dealloc__(self):
        if self.owner is None:
            free(self.t.slots)
            free(self.t.hashes)
            free(self.t.offs)
        free(self.t.ids)

    def with_ids(self, const int32_t[::1] ids):
        """A table of the same strings, in order, with the ids ``ids`` (its slots and strings are
        this table's, not copied)."""
        cdef Py_ssize_t n = ids.shape[0], k
        if n != self.n_strings or self.t.slots == NULL:
            raise ValueError("the ids are not one per string of the table")
        cdef ByteTable other = ByteTable()
        other.owner = self
        other.n_strings = n
        other.pool = self.pool
        other.t = self.t
        other.t.ids = <int32_t*>malloc(sizeof(int32_t) * (n + 1))
        if other.t.ids == NULL:
            raise MemoryError()
        for k in range(n):
            other.t.ids[k] = ids[k]
        return other

    def get(self, str value):
        """The id of ``value`` (-1 if absent): the Python view, for tests."""
        if self.t.slots == NULL:     # an empty shell
            return self.t.missing
        b = value.encode("utf-8", "surrogatepass")
        return _lookup(&self.t, <const unsigned char*>b, len(b))


def given_arcs(Chunk ch, ByteTable labels):
    """The arcs a chunk's input gives, per corpus row (a root row, -1, before each sentence's
    words): HEAD (-1 where ``_``) and the id of DEPREL in ``labels`` (-1 where ``_`` or where
    no HEAD is given: a label alone fixes nothing; -2 where the model has no such label)."""
    cdef Py_ssize_t n_rows = ch.n_words + ch.n_sentences, r = 0, k, w, length
    heads = np.full(n_rows, -1, dtype=np.int32)
    label_ids = np.full(n_rows, -1, dtype=np.int32)
    cdef int32_t[::1] h = heads
    cdef int32_t[::1] l = label_ids
    cdef const unsigned char* v
    cdef int value, j
    with nogil:
        for k in range(ch.n_sentences):
            r += 1
            for w in range(ch.sent_first[k], ch.sent_first[k + 1]):
                v = ch.field(w, 6, &length)
                if not (length == 1 and v[0] == 95):        # "_": no head given
                    value = 0
                    for j in range(1 if v[0] == 45 else 0, length):   # digits (the scanner checked: -0 at most)
                        value = value * 10 + (v[j] - 48)
                    h[r] = value
                    v = ch.field(w, 7, &length)
                    if not (length == 1 and v[0] == 95):
                        l[r] = _lookup(&labels.t, v, length)
                        if l[r] < 0:
                            l[r] = -2
                r += 1
    return heads, label_ids


def supported(compiled):
    """Whether every column the feature model reads has a compiled form here."""
    return all(literal_separator(sep) is not None for _, _, _, sep in compiled.multi_columns)


def _separator_bytes(str sep):
    """The UTF-8 bytes a Split separator cuts at (see encode.literal_separator)."""
    literal = literal_separator(sep)
    return None if literal is None else literal.encode("utf-8")


cdef inline const unsigned char* _transform(const unsigned char* s, Py_ssize_t* n, int kind,
                                            int length) noexcept nogil:
    """Python's ``v[-length:]`` (SUFFIX) or ``v[:length]`` (PREFIX) on UTF-8 bytes, counting code points."""
    cdef Py_ssize_t i, count = 0
    if kind == SUFFIX:
        if length == 0:
            return s
        i = n[0]
        while i > 0 and count < length:
            i -= 1
            if (s[i] & 0xC0) != 0x80:
                count += 1
        n[0] -= i
        return s + i
    if kind == PREFIX:
        i = 0
        while i < n[0] and count < length:
            i += 1
            while i < n[0] and (s[i] & 0xC0) == 0x80:
                i += 1
            count += 1
        n[0] = i
    return s


cdef inline int _small_int(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """``int(v)`` for 1 to 9 ASCII digits, else -1 (encode.py's rule for integer columns)."""
    cdef int v = 0
    cdef Py_ssize_t i
    if n == 0 or n >= 10:
        return -1
    for i in range(n):
        if not (b'0' <= s[i] <= b'9'):
            return -1
        v = v * 10 + (s[i] - 48)
    return v


cdef struct IdVec:
    int32_t* data
    Py_ssize_t n, cap


cdef bint _push(IdVec* v, int32_t x) noexcept nogil:
    cdef int32_t* p
    if v.n >= v.cap:
        v.cap = max(1024, 2 * v.cap)
        p = <int32_t*>realloc(v.data, sizeof(int32_t) * v.cap)
        if p == NULL:
            return False
        v.data = p
    v.data[v.n] = x
    v.n += 1
    return True


cdef enum:
    # the distinct input columns (value transforms of CoNLL columns) one feature model may read
    MAX_FEATURE_COLUMNS = 64


cdef class ChunkEncoder:
    """Encodes chunks for one parser: its compiled feature model and symbol tables."""
    cdef list tok_tables, multi_tables, _seps
    cdef int n_tok, n_int, n_multi
    cdef int tok_col[MAX_FEATURE_COLUMNS]
    cdef int tok_kind[MAX_FEATURE_COLUMNS]
    cdef int tok_len[MAX_FEATURE_COLUMNS]
    cdef int int_col[MAX_FEATURE_COLUMNS]
    cdef int multi_col[MAX_FEATURE_COLUMNS]
    cdef int multi_kind[MAX_FEATURE_COLUMNS]
    cdef int multi_len[MAX_FEATURE_COLUMNS]
    cdef int root_value
    cdef bint reverse
    cdef bint int_is_node[MAX_FEATURE_COLUMNS]

    def __init__(self, compiled, token_tables, multi_tables, int root_value, bint reverse=False,
                 node_columns=()):
        """``reverse``: each sentence's words right to left (a right-to-left model), the values of
        ``node_columns`` (integer columns holding node numbers: HEAD, PHEAD) mapped to match."""
        # a cluster column looks the whole field up in its table (spellings -> their cluster's id;
        # one it does not hold has the table's missing id, NO_CLUSTER)
        kinds = {"plain": PLAIN, "suffix": SUFFIX, "prefix": PREFIX, "cluster": PLAIN}
        if max(len(compiled.token_columns), len(compiled.int_columns), len(compiled.multi_columns)) > MAX_FEATURE_COLUMNS:
            raise ValueError(f"more than {MAX_FEATURE_COLUMNS} distinct input columns in one feature model")
        self.n_tok = len(compiled.token_columns)
        self.n_int = len(compiled.int_columns)
        self.n_multi = len(compiled.multi_columns)
        self.tok_tables = []
        shared = {}     # the cluster columns of one clusters file: one table of their spellings
        for t in token_tables:
            if not isinstance(t, ClusterTable):
                self.tok_tables.append(ByteTable(t.ids))
            elif id(t.lines) in shared:
                self.tok_tables.append((<ByteTable>shared[id(t.lines)]).with_ids(t.id_array))
            else:
                shared[id(t.lines)] = ByteTable(t.id_array, t.lines, NO_CLUSTER)
                self.tok_tables.append(shared[id(t.lines)])
        self.multi_tables = [ByteTable(t.ids) for t in multi_tables]
        for j, (ci, transform, length) in enumerate(compiled.token_columns):
            self.tok_col[j], self.tok_kind[j], self.tok_len[j] = ci, kinds[transform], length
        self.reverse = reverse
        for j, ci in enumerate(compiled.int_columns):
            self.int_col[j] = ci
            self.int_is_node[j] = ci in node_columns
        self._seps = []
        for q, (ci, transform, length, sep) in enumerate(compiled.multi_columns):
            self.multi_col[q], self.multi_kind[q], self.multi_len[q] = ci, kinds[transform], length
            literal = _separator_bytes(sep)
            if literal is None:
                raise ValueError(f"Split separator {sep!r} is a regular expression; no compiled form")
            self._seps.append(literal)
        self.root_value = root_value

    def encode(self, Chunk ch):
        """The chunk's sentences as a Corpus (one root row before each sentence's words)."""
        cdef Py_ssize_t n_sent = ch.n_sentences, n_words = ch.n_words
        cdef Py_ssize_t n_rows = n_words + n_sent
        offsets = np.empty(n_sent + 1, dtype=np.int64)
        tok = np.empty((n_rows, max(self.n_tok, 1)), dtype=np.int32)
        ints = np.empty((n_rows, max(self.n_int, 1)), dtype=np.int32)
        multi_off = np.zeros((self.n_multi, n_rows + 1), dtype=np.int32)
        cdef int64_t[::1] off_v = offsets
        cdef int32_t[:, ::1] tok_v = tok
        cdef int32_t[:, ::1] int_v = ints
        cdef int32_t[:, ::1] multi_v = multi_off
        cdef Py_ssize_t k, w, r, length, plen, start, q2, idx, first, n
        cdef int value
        cdef int j, q, n_parts
        cdef const unsigned char* s
        cdef const unsigned char* v
        cdef const unsigned char* sep
        cdef Py_ssize_t sep_len, vlen
        cdef const Table* table
        cdef IdVec ids
        cdef bint ok = True
        ids.data = NULL
        ids.n = ids.cap = 0
        cdef const Table** tok_tab = <const Table**>malloc(sizeof(void*) * (self.n_tok + 1))
        cdef const Table** multi_tab = <const Table**>malloc(sizeof(void*) * (self.n_multi + 1))
        cdef const unsigned char** seps = <const unsigned char**>malloc(sizeof(void*) * (self.n_multi + 1))
        cdef Py_ssize_t* sep_lens = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * (self.n_multi + 1))
        if tok_tab == NULL or multi_tab == NULL or seps == NULL or sep_lens == NULL:
            free(tok_tab); free(multi_tab); free(seps); free(sep_lens)
            raise MemoryError()
        for j in range(self.n_tok):
            tok_tab[j] = &(<ByteTable>self.tok_tables[j]).t
        for q in range(self.n_multi):
            multi_tab[q] = &(<ByteTable>self.multi_tables[q]).t
            seps[q] = <const unsigned char*>(<bytes>self._seps[q])
            sep_lens[q] = len(self._seps[q])
        try:
            with nogil:
                r = 0
                for k in range(n_sent):
                    off_v[k] = r
                    for j in range(self.n_tok):
                        tok_v[r, j] = self.root_value
                    for j in range(self.n_int):
                        int_v[r, j] = -1
                    r += 1
                    first = ch.sent_first[k]
                    n = ch.sent_first[k + 1] - first
                    for idx in range(n):
                        w = first + (n - 1 - idx if self.reverse else idx)
                        for j in range(self.n_tok):
                            s = ch.field(w, self.tok_col[j], &length)
                            s = _transform(s, &length, self.tok_kind[j], self.tok_len[j])
                            tok_v[r, j] = _lookup(tok_tab[j], s, length)
                        for j in range(self.n_int):
                            s = ch.field(w, self.int_col[j], &length)
                            value = _small_int(s, length)
                            if self.reverse and self.int_is_node[j] and 1 <= value <= n:
                                value = <int>(n + 1 - value)
                            int_v[r, j] = value
                        r += 1
                off_v[n_sent] = r
                if self.n_tok == 0:
                    for r in range(n_rows):
                        tok_v[r, 0] = 0
                if self.n_int == 0:
                    for r in range(n_rows):
                        int_v[r, 0] = -1
                # Split columns: the ids of each word's parts, column after column
                for q in range(self.n_multi):
                    sep, sep_len = seps[q], sep_lens[q]
                    table = multi_tab[q]
                    multi_v[q, 0] = <int32_t>ids.n
                    r = 0
                    for k in range(n_sent):
                        multi_v[q, r + 1] = <int32_t>ids.n      # the root row has none
                        r += 1
                        first = ch.sent_first[k]
                        n = ch.sent_first[k + 1] - first
                        for idx in range(n):
                            w = first + (n - 1 - idx if self.reverse else idx)
                            v = ch.field(w, self.multi_col[q], &vlen)
                            v = _transform(v, &vlen, self.multi_kind[q], self.multi_len[q])
                            n_parts = 0
                            start = 0
                            q2 = 0
                            while q2 <= vlen:
                                if q2 == vlen or (q2 + sep_len <= vlen and memcmp(v + q2, sep, sep_len) == 0):
                                    plen = q2 - start
                                    if plen > 0:      # empty parts are dropped
                                        ok = ok and _push(&ids, _lookup(table, v + start, plen))
                                        n_parts += 1
                                    if q2 == vlen:
                                        break
                                    q2 += sep_len
                                    start = q2
                                else:
                                    q2 += 1
                            if n_parts == 0:          # nothing but separators: the value itself
                                ok = ok and _push(&ids, _lookup(table, v, vlen))
                            multi_v[q, r + 1] = <int32_t>ids.n
                            r += 1
            if not ok:
                raise MemoryError()
            multi_ids = np.empty(max(ids.n, 1), dtype=np.int32)
            if ids.n:
                memcpy(cnp.PyArray_DATA(multi_ids), ids.data, sizeof(int32_t) * ids.n)
            else:
                multi_ids[0] = 0
        finally:
            free(ids.data)
            free(tok_tab)
            free(multi_tab)
            free(seps)
            free(sep_lens)
        return Corpus(offsets, tok, ints, multi_off, multi_ids)
