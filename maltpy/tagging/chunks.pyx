# cython: language_level=3
"""The tagger on a :class:`~maltpy.formats.scan.Chunk` (the compiled path of ``-m tag`` and of
``-m parse`` with a tagger): a chunk's forms as code points, its given tag fields as keys, and
the lemmas a tagger's dictionary and rules make, written as UTF-8, without a Python object per
word. :mod:`maltpy.tagging.stream` puts them together."""
import numpy as np
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int32_t, int64_t, int8_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from maltpy.features.featmap cimport FeatMap, mix64
from maltpy.formats.scan cimport Chunk
from maltpy.hashing cimport FNV_OFFSET, FNV_PRIME


def chunk_forms(Chunk ch, const uint32_t[::1] lower=None, const uint32_t[::1] shape=None,
                const uint8_t[::1] known=None):
    """(code points, word starts in them, sentence starts in words, lowercase, shapes) of the
    chunk's FORM fields (UTF-8 the scanner validated); a chunk of at least one sentence. With the
    tables of :mod:`maltpy.tagging.words` (``lower``, ``shape`` and ``known``, indexed by code
    point: the Basic Multilingual Plane), each character's lowercase and shape symbol are looked up
    as it is decoded; both are None without them, or where a character is beyond the tables or
    not yet known (:func:`~maltpy.tagging.words.words_from_arrays` makes them then)."""
    if ch.n_sentences < 1:
        raise ValueError("chunk_forms takes a chunk with sentences")
    cdef Py_ssize_t n = ch.n_words, w, length, i, total = 0, o = 0
    cdef const unsigned char* f
    cdef bint tables = lower is not None and shape is not None and known is not None and \
        lower.shape[0] == shape.shape[0] == known.shape[0]
    cdef Py_ssize_t table_size = lower.shape[0] if tables else 0
    cdef bint complete = tables
    for w in range(n):
        ch.field(w, 1, &length)
        total += length
    cps_array = np.empty(total, dtype=np.uint32)
    low_array = np.empty(total if tables else 0, dtype=np.uint32)
    shp_array = np.empty(total if tables else 0, dtype=np.uint32)
    wstart_array = np.zeros(n + 1, dtype=np.int64)
    sstart_array = np.empty(ch.n_sentences + 1, dtype=np.int64)
    cdef uint32_t[::1] cps = cps_array
    cdef uint32_t[::1] low = low_array
    cdef uint32_t[::1] shp = shp_array
    cdef int64_t[::1] wstart = wstart_array
    cdef int64_t[::1] sstart = sstart_array
    cdef uint32_t c
    cdef unsigned char b
    with nogil:
        for w in range(n):
            f = ch.field(w, 1, &length)
            i = 0
            while i < length:
                b = f[i]
                if b < 0x80:
                    c = b
                    i += 1
                elif b < 0xE0:
                    c = ((b & 0x1F) << 6) | (f[i + 1] & 0x3F)
                    i += 2
                elif b < 0xF0:
                    c = ((b & 0x0F) << 12) | ((f[i + 1] & 0x3F) << 6) | (f[i + 2] & 0x3F)
                    i += 3
                else:
                    c = ((b & 0x07) << 18) | ((f[i + 1] & 0x3F) << 12) | ((f[i + 2] & 0x3F) << 6) | (f[i + 3] & 0x3F)
                    i += 4
                cps[o] = c
                if complete:
                    if c < table_size and known[c]:
                        low[o] = lower[c]
                        shp[o] = shape[c]
                    else:
                        complete = False
                o += 1
            wstart[w + 1] = o
        for i in range(ch.n_sentences + 1):
            sstart[i] = ch.sent_first[i]
    if not complete:
        return cps_array[:o], wstart_array, sstart_array, None, None
    return cps_array[:o], wstart_array, sstart_array, low_array[:o], shp_array[:o]


cdef inline uint64_t hash_bytes(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    cdef uint64_t h = FNV_OFFSET
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * FNV_PRIME
    return mix64(h)


def value_key(bytes value):
    """The key :func:`field_ids` looks a field's bytes up by."""
    return hash_bytes(<const unsigned char*>value, len(value))


def field_ids(Chunk ch, int column, FeatMap values, int32_t unknown):
    """Per word: the id of field ``column`` among a tagger's values (``values``: their keys),
    ``unknown`` for a value it does not have, -1 for ``_``."""
    cdef Py_ssize_t n = ch.n_words, w, length
    cdef const unsigned char* f
    cdef int32_t v
    out_array = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] out = out_array
    with nogil:
        for w in range(n):
            f = ch.field(w, column, &length)
            if length == 1 and f[0] == b'_':
                out[w] = -1
                continue
            v = values.get(hash_bytes(f, length))
            out[w] = v if v >= 0 else unknown
    return out_array


def pair_keys(const uint64_t[::1] forms, const int32_t[::1] values):
    """Keys of (form, value) pairs: the lemma dictionary's keys (form: its code points' key)."""
    cdef Py_ssize_t n = forms.shape[0], j
    out_array = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] out = out_array
    with nogil:
        for j in range(n):
            out[j] = mix64(forms[j] ^ (<uint64_t>(values[j] + 1) * 0x9E3779B97F4A7C15ULL))
    return out_array


def dictionary_entries(const uint64_t[::1] keys, FeatMap dictionary):
    """The dictionary entry of each (form, value) key, -1 where it has none."""
    cdef Py_ssize_t n = keys.shape[0], j
    out_array = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] out = out_array
    with nogil:
        for j in range(n):
            out[j] = dictionary.get(keys[j])
    return out_array


cdef inline Py_ssize_t put_utf8(char* out, Py_ssize_t o, uint32_t c) noexcept nogil:
    if c < 0x80:
        out[o] = <char>c
        return o + 1
    if c < 0x800:
        out[o] = <char>(0xC0 | (c >> 6))
        out[o + 1] = <char>(0x80 | (c & 0x3F))
        return o + 2
    if c < 0x10000:
        out[o] = <char>(0xE0 | (c >> 12))
        out[o + 1] = <char>(0x80 | ((c >> 6) & 0x3F))
        out[o + 2] = <char>(0x80 | (c & 0x3F))
        return o + 3
    out[o] = <char>(0xF0 | (c >> 18))
    out[o + 1] = <char>(0x80 | ((c >> 12) & 0x3F))
    out[o + 2] = <char>(0x80 | ((c >> 6) & 0x3F))
    out[o + 3] = <char>(0x80 | (c & 0x3F))
    return o + 4


def make_lemmas(const uint32_t[::1] cps, const uint32_t[::1] low, const int64_t[::1] wstart,
                const int32_t[::1] entries, const int32_t[::1] rules, const int8_t[::1] wanted,
                bytes lemma_pool, const int64_t[::1] lemma_offsets,
                const int8_t[::1] rule_cases, const int32_t[::1] rule_cuts, const int32_t[::1] rule_tails,
                bytes add_pool, const int64_t[::1] add_offsets):
    """The lemma of each ``wanted`` word as UTF-8: the dictionary's (``entries``, into
    ``lemma_pool``) where it has the word, else its rule's edit of the form (``rules``; a rule
    that does not fit, or makes nothing, gives the form), as :func:`maltpy.tagging.lemma.apply_rule`.
    ``rule_cases``: 0 keeps the form's case, 1 lowercases it, 2 lowercases it after its first
    character (:data:`maltpy.tagging.lemma.CASE_CODES`). Returns (bytes, starts, ends); starts are
    -1 for words not wanted."""
    cdef Py_ssize_t n = wstart.shape[0] - 1, j, size = 0, o = 0, i, a, b, length
    cdef int32_t r
    cdef int64_t e
    for j in range(n):
        if wanted[j]:
            e = entries[j]
            if e >= 0:
                size += lemma_offsets[e + 1] - lemma_offsets[e]
            else:
                r = rules[j]
                size += 4 * (wstart[j + 1] - wstart[j])
                if r >= 0:
                    size += add_offsets[r + 1] - add_offsets[r]
    starts_array = np.full(n, -1, dtype=np.int64)
    ends_array = np.full(n, -1, dtype=np.int64)
    cdef int64_t[::1] starts = starts_array
    cdef int64_t[::1] ends = ends_array
    cdef char* out = <char*>malloc(size + 1)
    if out == NULL:
        raise MemoryError()
    cdef const char* dict_bytes = lemma_pool
    cdef const char* add_bytes = add_pool
    cdef Py_ssize_t begin
    try:
        with nogil:
            for j in range(n):
                if not wanted[j]:
                    continue
                starts[j] = o
                e = entries[j]
                if e >= 0:
                    length = lemma_offsets[e + 1] - lemma_offsets[e]
                    for i in range(length):
                        out[o + i] = dict_bytes[lemma_offsets[e] + i]
                    o += length
                    ends[j] = o
                    continue
                r = rules[j]
                a = wstart[j]
                b = wstart[j + 1]
                begin = o
                if r >= 0 and rule_cuts[r] >= 0 and rule_tails[r] >= 0 and rule_cuts[r] + rule_tails[r] <= b - a:
                    for i in range(a + rule_cuts[r], b - rule_tails[r]):
                        o = put_utf8(out, o, cps[i] if rule_cases[r] == 0 or (rule_cases[r] == 2 and i == a)
                                     else low[i])
                    for i in range(add_offsets[r], add_offsets[r + 1]):
                        out[o] = add_bytes[i]
                        o += 1
                if o == begin:          # no rule, one that does not fit, or an empty lemma: the form
                    for i in range(a, b):
                        o = put_utf8(out, o, cps[i])
                ends[j] = o
        return PyBytes_FromStringAndSize(out, o), starts_array, ends_array
    finally:
        free(out)
