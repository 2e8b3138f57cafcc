# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CoNLL-X and CoNLL-U in compiled code, for the parse path (``maltpy -m parse``).

:class:`Scanner` takes the input's bytes block by block and cuts them into
:class:`Chunk` objects of whole sentences, validating every line as
:mod:`maltpy.formats.conll` does (UTF-8, column counts, empty columns, token IDs,
CoNLL-U multiword tokens and empty nodes, HEAD values) without making a Python
object per line or token. A chunk keeps byte offsets into the input, so that
:meth:`Chunk.render` writes every line back unchanged but for HEAD and DEPREL,
exactly as ``write_conll`` writes what ``read_conll`` read.

Errors are found here and explained by the Python reader: when a line breaks a
rule, the lines of its sentence up to it go through ``conll._sentences``,
which raises the same one-line ``file:line`` error the Python path gives. The
rules are therefore written twice (here, and there), and the tests fuzz one
against the other.
"""
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
import numpy as np
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcpy

from maltpy.errors import MaltpyError

cdef enum:
    OK = 0
    BAD_LINE = 1      # the Python reader explains it
    BAD_UTF8 = 2
    NO_MEMORY = 3


cdef bint _utf8_valid(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """Strict UTF-8 as Python decodes it: no overlong forms, surrogates or values above U+10FFFF."""
    cdef Py_ssize_t i = 0
    cdef unsigned char c, c1
    cdef uint64_t word
    while i < n:
        # ASCII eight bytes at a time (most of a CoNLL file)
        while i + 8 <= n:
            memcpy(&word, s + i, 8)
            if word & 0x8080808080808080ULL:
                break
            i += 8
        if i >= n:
            break
        c = s[i]
        if c < 0x80:
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            if i + 1 >= n or (s[i + 1] & 0xC0) != 0x80:
                return False
            i += 2
        elif 0xE0 <= c <= 0xEF:
            if i + 2 >= n:
                return False
            c1 = s[i + 1]
            if (c1 & 0xC0) != 0x80 or (s[i + 2] & 0xC0) != 0x80:
                return False
            if (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 > 0x9F):
                return False
            i += 3
        elif 0xF0 <= c <= 0xF4:
            if i + 3 >= n:
                return False
            c1 = s[i + 1]
            if (c1 & 0xC0) != 0x80 or (s[i + 2] & 0xC0) != 0x80 or (s[i + 3] & 0xC0) != 0x80:
                return False
            if (c == 0xF0 and c1 < 0x90) or (c == 0xF4 and c1 > 0x8F):
                return False
            i += 4
        else:
            return False
    return True


cdef bint _blank(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """Whether a (valid UTF-8) line is whitespace only, by Python's str.isspace."""
    cdef Py_ssize_t i = 0
    cdef unsigned char c
    while i < n:
        c = s[i]
        if c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F:
            i += 1
        elif c == 0xC2 and i + 1 < n and (s[i + 1] == 0x85 or s[i + 1] == 0xA0):
            i += 2
        elif i + 2 < n and ((c == 0xE1 and s[i + 1] == 0x9A and s[i + 2] == 0x80)          # U+1680
                            or (c == 0xE2 and s[i + 1] == 0x80 and (s[i + 2] <= 0x8A or s[i + 2] == 0xA8
                                                                    or s[i + 2] == 0xA9 or s[i + 2] == 0xAF))
                            or (c == 0xE2 and s[i + 1] == 0x81 and s[i + 2] == 0x9F)       # U+205F
                            or (c == 0xE3 and s[i + 1] == 0x80 and s[i + 2] == 0x80)):     # U+3000
            i += 3
        else:
            return False
    return True


cdef inline bint _digits(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """One or more ASCII digits, no leading zero (``0`` itself allowed)."""
    cdef Py_ssize_t i
    if n == 0 or (s[0] == b'0' and n > 1):
        return False
    for i in range(n):
        if not (b'0' <= s[i] <= b'9'):
            return False
    return True


cdef bint _range_or_empty_node(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """CoNLL-U's ``3-4`` (first digit 1-9 on both sides) or ``3.1`` (0 or 1-9..., then 1-9...)."""
    cdef Py_ssize_t k
    for k in range(n):
        if s[k] == b'-':
            return (k > 0 and s[0] != b'0' and _digits(s, k)
                    and n - k - 1 > 0 and s[k + 1] != b'0' and _digits(s + k + 1, n - k - 1))
        if s[k] == b'.':
            return (_digits(s, k) and n - k - 1 > 0 and s[k + 1] != b'0' and _digits(s + k + 1, n - k - 1))
    return False


cdef inline bint _id_is(const unsigned char* s, Py_ssize_t n, Py_ssize_t expected) noexcept nogil:
    """Whether the field is ``str(expected)``."""
    cdef unsigned char buf[24]
    cdef int k = 0, i
    while True:
        buf[k] = 48 + expected % 10
        k += 1
        expected //= 10
        if expected == 0:
            break
    if n != k:
        return False
    for i in range(k):
        if s[i] != buf[k - 1 - i]:
            return False
    return True


cdef inline Py_ssize_t _write_int(char* out, Py_ssize_t o, int h) noexcept nogil:
    """``h`` in decimal at ``out[o]``; the position after it."""
    cdef char digits[16]
    cdef int nd = 0
    if h < 0:
        out[o] = b'-'
        o += 1
        h = -h
    while True:
        digits[nd] = <char>(48 + h % 10)
        nd += 1
        h //= 10
        if h == 0:
            break
    while nd:
        nd -= 1
        out[o] = digits[nd]
        o += 1
    return o


cdef inline void _record_item(Chunk made, int64_t start, int64_t end, int kind) noexcept nogil:
    """One more item of ``made`` (room for it was made)."""
    cdef Item* item = &made.items[made.n_items]
    item.start = start
    item.end = end
    item.kind = kind
    made.n_items += 1


cdef class Chunk:
    """Complete sentences of the input, as byte offsets into the bytes they were read from."""

    def __dealloc__(self):
        free(self.words)
        free(self.items)
        free(self.sent_first)

    cdef bint _reserve(self) noexcept nogil:
        """Room for one more word, item and sentence; False when memory runs out."""
        cdef void* p
        if self.n_words >= self.cap_words:
            p = realloc(self.words, sizeof(Word) * max(64, 2 * self.cap_words))
            if p == NULL:
                return False
            self.words = <Word*>p
            self.cap_words = max(64, 2 * self.cap_words)
        if self.n_items >= self.cap_items:
            p = realloc(self.items, sizeof(Item) * max(64, 2 * self.cap_items))
            if p == NULL:
                return False
            self.items = <Item*>p
            self.cap_items = max(64, 2 * self.cap_items)
        if self.n_sentences + 1 >= self.cap_sent:
            p = realloc(self.sent_first, sizeof(int64_t) * max(64, 2 * self.cap_sent))
            if p == NULL:
                return False
            self.sent_first = <int64_t*>p
            self.cap_sent = max(64, 2 * self.cap_sent)
        return True

    cdef bint close_sentence(self, int64_t at) noexcept nogil:
        """End the sentence whose first word ``sent_first[n_sentences]`` holds at its last word
        so far, by the blank line at ``at``; False when memory runs out."""
        cdef Item* item
        if not self._reserve():
            return False
        item = &self.items[self.n_items]
        item.start = item.end = at
        item.kind = ITEM_CLOSE
        self.n_items += 1
        self.sent_first[self.n_sentences + 1] = self.n_words
        self.n_sentences += 1
        return True

    @property
    def n_tokens(self):
        return self.n_words

    def lengths(self):
        """Words per sentence."""
        return [self.sent_first[k + 1] - self.sent_first[k] for k in range(self.n_sentences)]

    def sentence_lines(self, Py_ssize_t k):
        """Sentence ``k``'s word rows as lists of column strings (10 columns, ``_`` padded):
        the slow path's view, for sentences that need Python (pseudo-projective decoding)."""
        cdef Py_ssize_t w, length
        cdef int j
        cdef const unsigned char* s
        rows = []
        for w in range(self.sent_first[k], self.sent_first[k + 1]):
            row = []
            for j in range(10):
                s = self.field(w, j, &length)
                row.append((<const char*>s)[:length].decode("utf-8"))
            rows.append(row)
        return rows

    def word_line(self, Py_ssize_t k, int i):
        """The input's line number of word ``i`` (1-based) of sentence ``k`` (for messages), or
        ``word_lines(k, i)`` where the chunk's words were made from another file (horizontal or
        vertical words read as CoNLL-U) or chunk (a pipeline's later step: the same words)."""
        if self.word_lines is not None:
            return self.word_lines(k, i)
        cdef Py_ssize_t w = self.sent_first[k] + i - 1
        return self.lines_before + 1 + self.data.count(b"\n", 0, self.words[w].f[0])

    def field_spans(self, int k, int fallback=-1):
        """(data, start, end): the bytes the chunk was read from and, per corpus row (a root row
        before each sentence, whose span is empty), the byte span of field ``k``, or of field
        ``fallback`` where field ``k`` is ``_`` or absent; -1 where neither has a value."""
        cdef Py_ssize_t rows = self.n_words + self.n_sentences, r = 0, s, w, j
        start = np.zeros(rows, dtype=np.int64)
        end = np.zeros(rows, dtype=np.int64)
        cdef int64_t[::1] a = start
        cdef int64_t[::1] b = end
        cdef Word* word
        cdef int f
        with nogil:
            for s in range(self.n_sentences):
                r += 1                          # the root row
                for w in range(self.sent_first[s], self.sent_first[s + 1]):
                    word = &self.words[w]
                    a[r] = -1
                    b[r] = -1
                    for j in range(2):
                        f = k if j == 0 else fallback
                        if f < 0 or f >= word.nf:
                            continue
                        if word.f[f + 1] - 1 - word.f[f] == 1 and self.p[word.f[f]] == 95:   # "_"
                            continue
                        a[r] = word.f[f]
                        b[r] = word.f[f + 1] - 1
                        break
                    r += 1
        return self.data, start, end

    def word_spans(self, int k):
        """(data, start, end): the bytes the chunk was read from and each word's byte span of
        field ``k`` as it is (no root rows; a field a short line lacks is empty)."""
        start = np.zeros(self.n_words, dtype=np.int64)
        end = np.zeros(self.n_words, dtype=np.int64)
        cdef int64_t[::1] a = start
        cdef int64_t[::1] b = end
        cdef Py_ssize_t w
        with nogil:
            for w in range(self.n_words):
                if k < self.words[w].nf:
                    a[w] = self.words[w].f[k]
                    b[w] = self.words[w].f[k + 1] - 1
        return self.data, start, end

    def render(self, const int[::1] heads, const int[::1] labels, list label_bytes):
        """The chunk's output: every line as read, word rows with HEAD and DEPREL from
        ``heads``/``labels`` (indexed by corpus row: one root row before each sentence),
        ``label_bytes`` naming each label id (UTF-8).

        Every sentence ends with a blank line; in the final chunk, extra lines after the
        last sentence go before that sentence's blank line, as the Python reader attaches
        them to it."""
        cdef Py_ssize_t n_labels = len(label_bytes), k, i, size, w, row, ln
        cdef int64_t* lab_off = <int64_t*>malloc(sizeof(int64_t) * (n_labels + 1))
        if lab_off == NULL:
            raise MemoryError()
        pool = b"".join(label_bytes)
        cdef const char* lab_pool = PyBytes_AS_STRING(pool)
        cdef Py_ssize_t max_label = 0
        lab_off[0] = 0
        for k in range(n_labels):
            ln = PyBytes_GET_SIZE(label_bytes[k])
            lab_off[k + 1] = lab_off[k] + ln
            max_label = max(max_label, ln)
        if self.n_words and heads.shape[0] < self.n_words + self.n_sentences:
            free(lab_off)
            raise ValueError("heads do not cover the chunk")
        size = 1
        for i in range(self.n_items):
            size += self.items[i].end - self.items[i].start + 1
        # HEAD and DEPREL; a given CoNLL-U DEPS rewritten with them (head, ':', label) takes what
        # its own bytes in the line do not already give. Only the room needed: a render buffer past
        # malloc's pooled sizes costs fresh pages per chunk
        size += self.n_words * (max_label + 32) + self._deps_room(max_label)
        cdef char* out = <char*>malloc(size)
        if out == NULL:
            free(lab_off)
            raise MemoryError()
        cdef Py_ssize_t used
        try:
            with nogil:
                used = self._render(out, &heads[0] if heads.shape[0] else NULL,
                                    &labels[0] if labels.shape[0] else NULL, lab_pool, lab_off, n_labels)
            return PyBytes_FromStringAndSize(out, used)
        finally:
            free(out)
            free(lab_off)

    def render_fields(self, const int[::1] columns, const int64_t[:, ::1] starts, const int64_t[:, ::1] ends,
                      bytes pool):
        """The chunk's output with some fields of each word replaced (a tagger's columns): field
        ``columns[c]`` of word ``w`` becomes ``pool[starts[c, w]:ends[c, w]]`` where that start
        is not negative; every other byte as read (the lines ``render`` keeps, kept alike; with
        ``drop_extra``, CoNLL-X's ten columns, PHEAD and PDEPREL ``_``)."""
        return self._fields_out(columns, starts, ends, pool, False)

    def with_fields(self, const int[::1] columns, const int64_t[:, ::1] starts, const int64_t[:, ::1] ends,
                    bytes pool):
        """The chunk that scanning :meth:`render_fields`'s bytes gives (what a pipeline's next step
        reads), made while they are written: the offsets are known then, and the bytes need no
        second scan. A replaced field must be a field (not empty, without a tab or line break),
        and not ID or HEAD, which a scan checks."""
        cdef const char* src = PyBytes_AS_STRING(pool)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(pool), c
        if memchr(src, b'\t', n) != NULL or memchr(src, b'\n', n) != NULL or memchr(src, b'\r', n) != NULL:
            raise ValueError("a field would hold a tab or a line break")
        for c in range(columns.shape[0]):
            if columns[c] == 0 or columns[c] == 6:
                raise ValueError("ID and HEAD are not replaced in a chunk (a scan checks them)")
        return self._fields_out(columns, starts, ends, pool, True)

    cdef object _fields_out(self, const int[::1] columns, const int64_t[:, ::1] starts, const int64_t[:, ::1] ends,
                            bytes pool, bint as_chunk):
        """:meth:`render_fields`'s bytes, or (``as_chunk``) the chunk of them."""
        cdef Py_ssize_t n_cols = columns.shape[0], size = 1, i, c, earlier, w
        if starts.shape[0] < n_cols or ends.shape[0] < n_cols or (n_cols and (
                starts.shape[1] < self.n_words or ends.shape[1] < self.n_words)):
            raise ValueError("the fields do not cover the chunk")
        cdef Py_ssize_t pool_size = PyBytes_GET_SIZE(pool)
        for c in range(n_cols):
            if not 0 <= columns[c] < 10:
                raise ValueError("a column is out of range")
            for earlier in range(c):
                if columns[earlier] == columns[c]:
                    raise ValueError("a column is replaced twice")
            for w in range(self.n_words):
                if starts[c, w] >= 0:
                    if not (starts[c, w] <= ends[c, w] <= pool_size) or (as_chunk and starts[c, w] == ends[c, w]):
                        raise ValueError("a field is out of the pool")
                    size += ends[c, w] - starts[c, w] + 1
        for i in range(self.n_items):
            size += self.items[i].end - self.items[i].start + 16   # + room for padded columns
        cdef Chunk made = None
        if as_chunk:
            made = Chunk.__new__(Chunk)
            made.words = <Word*>malloc(sizeof(Word) * max(self.n_words, 1))
            made.items = <Item*>malloc(sizeof(Item) * max(self.n_items, 1))
            made.sent_first = <int64_t*>malloc(sizeof(int64_t) * (self.n_sentences + 1))
            if made.words == NULL or made.items == NULL or made.sent_first == NULL:
                raise MemoryError()     # what was allocated is freed with ``made``
            made.cap_words, made.cap_items, made.cap_sent = max(self.n_words, 1), max(self.n_items, 1), \
                self.n_sentences + 1
            made.sent_first[0] = 0
        cdef char* out = <char*>malloc(size)
        if out == NULL:
            raise MemoryError()
        cdef const char* src = PyBytes_AS_STRING(pool)
        cdef Py_ssize_t used
        try:
            with nogil:
                used = self._render_fields(out, &columns[0] if n_cols else NULL, n_cols,
                                           &starts[0, 0] if n_cols and self.n_words else NULL,
                                           &ends[0, 0] if n_cols and self.n_words else NULL,
                                           starts.shape[1] if n_cols else 0, src, made)
            data = PyBytes_FromStringAndSize(out, used)
        finally:
            free(out)
        if not as_chunk:
            return data
        # as a Scanner of the format written reads the bytes: CoNLL-X once extra lines are dropped
        made.data = data
        made.p = <const unsigned char*>PyBytes_AS_STRING(data)
        made.final = False
        made.drop_extra = False
        made.conllu = self.conllu and not self.drop_extra
        made.lines_before = 0
        made.word_lines = self.word_line     # the same words: messages name the input's lines
        return made

    cdef Py_ssize_t _render_fields(self, char* out, const int* columns, Py_ssize_t n_cols, const int64_t* starts,
                                   const int64_t* ends, Py_ssize_t stride, const char* src, Chunk made) noexcept nogil:
        """Writes :meth:`render_fields`'s bytes to ``out``; returns how many. ``made`` (or None):
        the chunk whose words, items and sentences take the offsets of the lines written, as a
        scan of them would find them."""
        cdef Py_ssize_t o = 0, i, j, w = 0, n, line
        cdef Py_ssize_t trailing = self._trailing_close()
        cdef Item* it
        cdef int k, e, c
        cdef bint record = made is not None
        cdef Word* word = NULL
        cdef const Word* source
        cdef int col_of[10]     # the replacement of field k: columns[col_of[k]], or -1
        for k in range(10):
            col_of[k] = -1
        for c in range(n_cols):
            col_of[columns[c]] = c
        for i in range(self.n_items):
            it = &self.items[i]
            if it.kind == ITEM_CLOSE:
                o = self._close(out, o, i, trailing, made)
                if i == trailing:
                    break
            elif it.kind == ITEM_EXTRA:
                o = self._extra(out, o, it, made)
            else:
                line = o
                source = &self.words[w]
                if record:
                    word = &made.words[made.n_words]
                    word.nf = 10
                # as the Python writer: ten fields, a short CoNLL-X line padded with _; the fields
                # kept from a run of the line's own copied at once, tabs and all
                k = 0
                while k < 10:
                    if k:
                        out[o] = b'\t'
                        o += 1
                    c = col_of[k]
                    if c >= 0 and starts[c * stride + w] >= 0:
                        if record:
                            word.f[k] = o
                        n = ends[c * stride + w] - starts[c * stride + w]
                        memcpy(out + o, src + starts[c * stride + w], n)
                        o += n
                        k += 1
                        continue
                    if k >= source.nf or (self.drop_extra and k >= 8):
                        if record:
                            word.f[k] = o
                        out[o] = b'_'
                        o += 1
                        k += 1
                        continue
                    e = k + 1
                    while e < source.nf and not (col_of[e] >= 0 and starts[col_of[e] * stride + w] >= 0) and \
                            not (self.drop_extra and e >= 8):
                        e += 1
                    if record:
                        for j in range(k, e):
                            word.f[j] = o + source.f[j] - source.f[k]
                    n = source.f[e] - 1 - source.f[k]
                    memcpy(out + o, self.p + source.f[k], n)
                    o += n
                    k = e
                if record:
                    word.f[10] = o + 1
                    _record_item(made, line, o, ITEM_WORD)
                    made.n_words += 1
                out[o] = b'\n'
                o += 1
                w += 1
        return o

    cdef Py_ssize_t _deps_room(self, Py_ssize_t max_label) noexcept nogil:
        """The bytes the rewritten DEPS of the chunk's words need beyond those of the DEPS they
        replace (0 unless CoNLL-U is written)."""
        cdef Py_ssize_t w, n, room = 0
        if not self.conllu or self.drop_extra:
            return 0
        for w in range(self.n_words):
            if self.words[w].nf > 8:
                n = self.words[w].f[9] - 1 - self.words[w].f[8]
                if not (n == 1 and self.p[self.words[w].f[8]] == b'_') and n < max_label + 12:
                    room += max_label + 12 - n
        return room

    cdef Py_ssize_t _render(self, char* out, const int* heads, const int* labels, const char* lab_pool,
                            const int64_t* lab_off, Py_ssize_t n_labels) noexcept nogil:
        cdef Py_ssize_t o = 0, i, w = 0, sent = 0, n, row
        cdef Py_ssize_t trailing = self._trailing_close()
        cdef Item* it
        cdef Word* word
        cdef int k, lab
        for i in range(self.n_items):
            it = &self.items[i]
            if it.kind == ITEM_CLOSE:
                o = self._close(out, o, i, trailing, None)
                sent += 1
                if i == trailing:
                    break
            elif it.kind == ITEM_EXTRA:
                o = self._extra(out, o, it, None)
            else:
                word = &self.words[w]
                row = w + sent + 1
                w += 1
                n = word.f[6] - 1 - it.start     # ID .. FEATS as they are
                memcpy(out + o, self.p + it.start, n)
                o += n
                out[o] = b'\t'
                o += 1
                o = _write_int(out, o, heads[row])
                out[o] = b'\t'
                o += 1
                lab = labels[row]
                if lab < 0:
                    lab += n_labels       # as Python indexes a list
                n = lab_off[lab + 1] - lab_off[lab]
                memcpy(out + o, lab_pool + lab_off[lab], n)
                o += n
                for k in range(8, 10):
                    out[o] = b'\t'
                    o += 1
                    if k < word.nf and not self.drop_extra:
                        n = word.f[k + 1] - 1 - word.f[k]
                        if k == 8 and self.conllu and not (n == 1 and self.p[word.f[k]] == b'_'):
                            # a given DEPS would contradict the new tree: the new basic arc
                            o = _write_int(out, o, heads[row])
                            out[o] = b':'
                            o += 1
                            memcpy(out + o, lab_pool + lab_off[lab], lab_off[lab + 1] - lab_off[lab])
                            o += lab_off[lab + 1] - lab_off[lab]
                        else:
                            memcpy(out + o, self.p + word.f[k], n)
                            o += n
                    else:
                        out[o] = b'_'
                        o += 1
                out[o] = b'\n'
                o += 1
        return o

    cdef Py_ssize_t _trailing_close(self) noexcept nogil:
        """The item that closes the last sentence when extra lines follow it in the final chunk
        (they are written before its blank line, as the Python reader attaches them), else -1."""
        cdef Py_ssize_t i, last_close = -1
        for i in range(self.n_items):
            if self.items[i].kind == ITEM_CLOSE:
                last_close = i
        return last_close if self.final and 0 <= last_close < self.n_items - 1 else -1

    cdef Py_ssize_t _close(self, char* out, Py_ssize_t o, Py_ssize_t i, Py_ssize_t trailing,
                           Chunk made) noexcept nogil:
        """A sentence's closing blank line; item ``trailing``'s after the extra lines that follow it.
        ``made`` (or None): the chunk that records the lines written (:meth:`with_fields`)."""
        cdef Py_ssize_t j
        if i == trailing:
            for j in range(i + 1, self.n_items):
                o = self._extra(out, o, &self.items[j], made)
        if made is not None:
            _record_item(made, o, o, ITEM_CLOSE)
            made.n_sentences += 1
            made.sent_first[made.n_sentences] = made.n_words
        out[o] = b'\n'
        return o + 1

    cdef Py_ssize_t _extra(self, char* out, Py_ssize_t o, Item* it, Chunk made) noexcept nogil:
        """An extra line as read (none with ``drop_extra``), recorded in ``made`` (or None)."""
        cdef Py_ssize_t n
        if self.drop_extra:
            return o
        n = it.end - it.start
        memcpy(out + o, self.p + it.start, n)
        if made is not None:
            _record_item(made, o, o + n, ITEM_EXTRA)
        o += n
        out[o] = b'\n'
        return o + 1


cdef class Scanner:
    """Cuts a CoNLL byte stream into :class:`Chunk` objects of whole sentences.

    ``feed(block)`` returns the sentences the block completes (the rest waits for the next
    block); ``finish()`` returns the last ones. ``drop_extra``: leave comments and CoNLL-U's
    multiword/empty-node lines out of the output (CoNLL-U to CoNLL-X)."""
    cdef readonly str fmt, path
    cdef bint conllu, drop_extra
    cdef int min_cols
    cdef bytes carry
    cdef readonly Py_ssize_t lineno       # lines before the carry
    cdef readonly Py_ssize_t n_sentences  # so far
    cdef bint bom_checked
    cdef object error                   # raised by the next call

    def __init__(self, str fmt, str path, bint drop_extra=False):
        if fmt not in ("conllx", "conllu"):
            raise MaltpyError(f"unknown format {fmt!r}; use one of conllx, conllu")
        self.fmt = fmt
        self.path = path
        self.conllu = fmt == "conllu"
        self.min_cols = 10 if self.conllu else 6
        self.drop_extra = drop_extra
        self.carry = b""
        self.lineno = 0
        self.n_sentences = 0
        self.bom_checked = False
        self.error = None

    @property
    def failed(self):
        """Whether an error waits to be raised by the next call."""
        return self.error is not None

    @property
    def pending_bytes(self):
        """Bytes held for the next block (an unfinished sentence and the lines before it)."""
        return len(self.carry)

    def feed(self, bytes block):
        """The complete sentences of the input so far; None when the block completes none.
        An error in the input is raised once the sentences before it have been returned."""
        if self.error is not None:
            raise self.error
        data = self.carry + block if self.carry else block
        return self._scan(data, False)

    def finish(self):
        """The rest of the input, its last sentence closed by the end of the input."""
        if self.error is not None:
            raise self.error
        chunk = self._scan(self.carry, True)
        if not self.n_sentences:
            from maltpy.formats.conll import no_sentences
            raise no_sentences(self.path, self.lineno)
        return chunk

    cdef object _scan(self, bytes data, bint final):
        cdef Chunk ch = Chunk.__new__(Chunk)
        ch.data = data
        ch.p = <const unsigned char*>PyBytes_AS_STRING(data)
        ch.final = final
        ch.drop_extra = self.drop_extra
        ch.conllu = self.conllu
        ch.lines_before = self.lineno
        cdef const unsigned char* p = ch.p
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        cdef Py_ssize_t pos = 0, next_pos, line_end, e, q, nf, k
        cdef Py_ssize_t region = 0, region_line = self.lineno, lineno = self.lineno
        cdef Py_ssize_t rows = 0, first_word = 0
        cdef Py_ssize_t committed_words = 0, committed_items = 0, committed_sent = 0
        cdef const unsigned char* nl
        cdef bint held = False        # extra lines since the last sentence, not yet followed by a word
        cdef int status = OK
        cdef Word* word
        cdef Item* item
        cdef unsigned char c
        with nogil:
            while pos < n:
                nl = <const unsigned char*>memchr(p + pos, b'\n', n - pos)
                if nl == NULL:
                    if not final:
                        break
                    line_end = n
                    next_pos = n
                else:
                    line_end = nl - p
                    next_pos = line_end + 1
                lineno += 1
                if lineno == 1 and not self.bom_checked:
                    self.bom_checked = True
                    if line_end - pos >= 3 and p[pos] == 0xEF and p[pos + 1] == 0xBB and p[pos + 2] == 0xBF:
                        pos += 3     # a byte-order mark, dropped as the Python reader drops it
                        region = pos
                if not _utf8_valid(p + pos, line_end - pos):
                    status = BAD_UTF8
                    break
                e = line_end
                while e > pos and p[e - 1] == b'\r':
                    e -= 1
                if _blank(p + pos, e - pos):
                    if rows:
                        status = self._close(ch, first_word, rows, pos)
                        if status != OK:
                            break
                        committed_words, committed_items, committed_sent = ch.n_words, ch.n_items, ch.n_sentences
                        rows = 0
                        held = False
                    if not held:
                        region, region_line = next_pos, lineno
                    pos = next_pos
                    continue
                if not ch._reserve():
                    status = NO_MEMORY
                    break
                item = &ch.items[ch.n_items]
                item.start = pos
                item.end = e
                if p[pos] == b'#':
                    if memchr(p + pos, b'\r', e - pos) != NULL:     # the Python reader explains it
                        status = BAD_LINE
                        break
                    item.kind = ITEM_EXTRA
                    ch.n_items += 1
                    if not rows:
                        held = True
                    pos = next_pos
                    continue
                word = &ch.words[ch.n_words]
                word.f[0] = pos
                nf = 1
                q = pos
                while q < e:
                    if p[q] == b'\r':     # inside the line: the Python reader explains it
                        nf = 0
                        break
                    if p[q] == b'\t':
                        if nf >= 10:
                            nf += 1
                            break
                        word.f[nf] = q + 1
                        nf += 1
                    q += 1
                if nf < self.min_cols or nf > 10:
                    status = BAD_LINE
                    break
                word.f[nf] = e + 1
                word.nf = <int>nf
                for k in range(nf):
                    if word.f[k + 1] - 1 == word.f[k]:
                        status = BAD_LINE
                        break
                if status != OK:
                    break
                # the token ID: a word, or CoNLL-U's multiword token / empty node
                c = 0
                for q in range(pos, word.f[1] - 1):
                    if p[q] == b'-' or p[q] == b'.':
                        c = 1
                        break
                if c:
                    if not self.conllu or not _range_or_empty_node(p + pos, word.f[1] - 1 - pos):
                        status = BAD_LINE
                        break
                    item.kind = ITEM_EXTRA
                    ch.n_items += 1
                    if not rows:
                        held = True
                    pos = next_pos
                    continue
                if not _id_is(p + pos, word.f[1] - 1 - pos, rows + 1):
                    status = BAD_LINE
                    break
                if rows == 0:
                    first_word = ch.n_words
                    ch.sent_first[ch.n_sentences] = first_word
                item.kind = ITEM_WORD
                ch.n_items += 1
                ch.n_words += 1
                rows += 1
                held = False
                pos = next_pos
            if final and status == OK and rows:
                # the end of the input closes the last sentence like a blank line
                status = self._close(ch, first_word, rows, n)
                if status == OK:
                    committed_words, committed_items, committed_sent = ch.n_words, ch.n_items, ch.n_sentences
        if status == NO_MEMORY:
            raise MemoryError()
        if status != OK:
            # the sentences before the bad line come out first; the error with the next call
            self.error = self._explain_utf8(data, pos, line_end, lineno) if status == BAD_UTF8 \
                else self._explain(data, region, min(next_pos, n), region_line)
            final = False
        if final:
            self.carry = b""
            self.n_sentences += ch.n_sentences
            self.lineno = lineno
            return ch
        # what follows the last complete sentence waits for the next block
        ch.n_words, ch.n_items, ch.n_sentences = committed_words, committed_items, committed_sent
        self.carry = data[region:]
        self.lineno = region_line
        self.n_sentences += ch.n_sentences
        if not ch.n_sentences and self.error is not None:
            raise self.error
        return ch if ch.n_sentences else None

    cdef int _close(self, Chunk ch, Py_ssize_t first_word, Py_ssize_t rows, Py_ssize_t at) noexcept nogil:
        """End the sentence of ``rows`` words from ``first_word`` (its HEAD values checked): OK,
        BAD_LINE or NO_MEMORY."""
        if not self._heads_ok(ch, first_word, rows):
            return BAD_LINE
        return OK if ch.close_sentence(at) else NO_MEMORY

    cdef bint _heads_ok(self, Chunk ch, Py_ssize_t first, Py_ssize_t n) noexcept nogil:
        """HEAD of every word of a sentence: ``_`` or an integer from 0 to n, not the word itself."""
        cdef Py_ssize_t w, length, i, start
        cdef const unsigned char* s
        cdef int64_t value
        for w in range(first, first + n):
            s = ch.field(w, 6, &length)
            if length == 1 and s[0] == b'_':
                continue
            start = 1 if s[0] == b'-' else 0
            if not _digits(s + start, length - start) or length - start > 12:
                return False
            value = 0
            for i in range(start, length):
                value = value * 10 + (s[i] - 48)
            if start and value:
                return False      # negative
            if value > n or value == w - first + 1:
                return False
        return True

    def _explain_utf8(self, bytes data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t lineno):
        """The Python reader's error for invalid UTF-8 in data[start:end], line ``lineno``."""
        from maltpy.errors import InputFormatError
        from maltpy.formats.conll import _decode
        try:
            _decode(data[start:end], self.path, lineno - 1)
        except InputFormatError as e:
            return e
        return AssertionError("the compiled reader found invalid UTF-8 that Python decodes")

    def _explain(self, bytes data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t lines_before):
        """The Python reader's error for the lines from ``start`` (a sentence's first line)
        to ``end`` (just past the line that breaks a rule)."""
        from maltpy.errors import InputFormatError
        from maltpy.formats.conll import _sentences
        text = data[start:end].decode("utf-8")
        if text.endswith("\n"):
            text = text[:len(text) - 1]
        numbered = enumerate(text.split("\n"), lines_before + 1)
        try:
            for _ in _sentences(numbered, self.fmt, self.path, False):
                pass
        except InputFormatError as e:
            return e
        return AssertionError(f"{self.path}:{lines_before + 1}: the compiled reader refused lines "
                              "that the Python reader accepts")
