# cython: language_level=3
"""The tokenizer's output written in compiled code: the CoNLL-U of a block of tokenized text
(``# newpar``, ``# sent_id``, ``# text``, range lines of multiword tokens, the spacing in MISC),
from the text's UTF-8 bytes and the tokens' spans, with no Python object per token."""
import numpy as np
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy
from libc.stdint cimport int64_t, int8_t, uint32_t

from maltpy.bytebuf cimport Buf, put, put_int, reserve


cdef inline void put_hex4(Buf* b, uint32_t c) noexcept nogil:
    cdef const char* digits = "0123456789ABCDEF"
    cdef char tmp[8]
    cdef int k, n = 4
    while (c >> (4 * n)) and n < 6:
        n += 1
    for k in range(n):
        tmp[n - 1 - k] = digits[(c >> (4 * k)) & 15]
    put(b, "\\u", 2)
    put(b, tmp, n)


cdef void put_spaces(Buf* b, const uint32_t* cps, int64_t a, int64_t z) noexcept nogil:
    """Whitespace cps[a:z] as a MISC value: UDPipe's escapes, \\uXXXX for other spaces."""
    cdef int64_t i
    cdef uint32_t c
    for i in range(a, z):
        c = cps[i]
        if c == 32:
            put(b, "\\s", 2)
        elif c == 9:
            put(b, "\\t", 2)
        elif c == 10:
            put(b, "\\n", 2)
        elif c == 13:
            put(b, "\\r", 2)
        elif c == 92:
            put(b, "\\\\", 2)
        else:
            put_hex4(b, c)


cdef void put_misc(Buf* b, const uint32_t* cps, int64_t lead_a, int64_t lead_z, int64_t gap_a,
                   int64_t gap_z) noexcept nogil:
    """A token's MISC: SpacesBefore (the paragraph's leading whitespace), then SpaceAfter=No or
    SpacesAfter unless one space follows."""
    cdef bint any_ = False
    if lead_z > lead_a:
        put(b, "SpacesBefore=", 13)
        put_spaces(b, cps, lead_a, lead_z)
        any_ = True
    if gap_z == gap_a:
        if any_:
            put(b, "|", 1)
        put(b, "SpaceAfter=No", 13)
        any_ = True
    elif not (gap_z - gap_a == 1 and cps[gap_a] == 32):
        if any_:
            put(b, "|", 1)
        put(b, "SpacesAfter=", 12)
        put_spaces(b, cps, gap_a, gap_z)
        any_ = True
    if not any_:
        put(b, "_", 1)


cdef inline void put_word_row(Buf* b, int64_t w, const char* form, Py_ssize_t n) noexcept nogil:
    put_int(b, w)
    put(b, "\t", 1)
    put(b, form, n)
    put(b, "\t_\t_\t_\t_\t_\t_\t_\t", 15)


def render(const unsigned char[::1] utf8, const int64_t[::1] boff, const uint32_t[::1] cps,
           const int64_t[::1] starts, const int64_t[::1] ends, const int64_t[::1] following,
           const int8_t[::1] final, const int64_t[::1] par_of, const int8_t[::1] begins,
           const int64_t[::1] pstart, const int64_t[::1] split_of, const int64_t[::1] split_words,
           const unsigned char[::1] word_pool, const int64_t[::1] word_off, int64_t first_id):
    """(CoNLL-U bytes, sentences, words) of tokens over a text: ``utf8`` the text's bytes,
    ``boff`` each character's byte offset (one more than characters), ``cps`` its code points;
    per token its character span, where the next token (or the paragraph's end) is, whether it
    ends a sentence, its paragraph, and ``split_of`` (-1, or its entry in ``split_words``: the
    range of its words in ``word_off`` over ``word_pool``). ``begins``: per paragraph, whether
    it begins one (``# newpar``)."""
    cdef Py_ssize_t n = starts.shape[0]
    cdef Buf b
    cdef int64_t k = 0, j, i, w, number = first_id, n_words = 0, par, lead_a, lead_z, x, q
    cdef const char* text = NULL
    cdef const char* pool = NULL
    b.data, b.n, b.cap, b.failed = NULL, 0, 0, False
    if ends.shape[0] != n or following.shape[0] != n or final.shape[0] != n or par_of.shape[0] != n \
            or split_of.shape[0] != n or boff.shape[0] != cps.shape[0] + 1:
        raise ValueError("token arrays of different lengths")
    if n == 0:
        return b"", 0, 0
    text = <const char*>&utf8[0]
    if word_pool.shape[0]:
        pool = <const char*>&word_pool[0]
    with nogil:
        while k < n:
            j = k
            while j < n - 1 and not final[j]:
                j += 1
            j += 1                       # the sentence is tokens k .. j-1
            par = par_of[k]
            lead_a = lead_z = 0
            if k == 0 or par_of[k - 1] != par:
                if begins[par]:
                    put(&b, "# newpar\n", 9)
                lead_a, lead_z = pstart[par], starts[k]
            put(&b, "# sent_id = ", 12)
            put_int(&b, number)
            put(&b, "\n# text = ", 10)
            for i in range(k, j):
                put(&b, text + boff[starts[i]], boff[ends[i]] - boff[starts[i]])
                if i + 1 < j and following[i] > ends[i]:
                    put(&b, " ", 1)
            put(&b, "\n", 1)
            number += 1
            w = 1
            for i in range(k, j):
                x = split_of[i]
                if x >= 0:
                    put_int(&b, w)
                    put(&b, "-", 1)
                    put_int(&b, w + split_words[x + 1] - split_words[x] - 1)
                    put(&b, "\t", 1)
                    put(&b, text + boff[starts[i]], boff[ends[i]] - boff[starts[i]])
                    put(&b, "\t_\t_\t_\t_\t_\t_\t_\t", 15)
                    put_misc(&b, &cps[0], lead_a, lead_z, ends[i], following[i])
                    put(&b, "\n", 1)
                    for q in range(split_words[x], split_words[x + 1]):
                        put_word_row(&b, w, pool + word_off[q], word_off[q + 1] - word_off[q])
                        put(&b, "_\n", 2)
                        w += 1
                else:
                    put_word_row(&b, w, text + boff[starts[i]], boff[ends[i]] - boff[starts[i]])
                    put_misc(&b, &cps[0], lead_a, lead_z, ends[i], following[i])
                    put(&b, "\n", 1)
                    w += 1
                lead_a = lead_z = 0
            put(&b, "\n", 1)
            n_words += w - 1
            k = j
    if b.failed:
        free(b.data)
        raise MemoryError("out of memory while writing the tokenizer's output")
    try:
        return (b.data[:b.n] if b.n else b""), number - first_id, n_words
    finally:
        free(b.data)
