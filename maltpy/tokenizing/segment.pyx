# cython: language_level=3
"""The tokenizer's compiled core: for each character of a text, whether a token ends after it
and whether a sentence ends there too, by an averaged perceptron over the characters around it.

Text arrives as flat arrays (no Python object per character): the lowercased code points
(``low``), a class per character (``cls``, see :func:`classify`) and paragraph starts
(``pstart``, one more than paragraphs). A decision is made after every character that is not
whitespace: 0 the token goes on, 1 it ends, 2 it ends the sentence too. Before whitespace and at
a paragraph's end a token always ends, and a paragraph's last token ends its sentence.

The features of a position see only the text (never earlier decisions), so each position is
classified on its own, in one pass, linear in the text's length: the characters and character
classes around the position, the whitespace-delimited chunk it is in (what comes before the
position in the chunk, what after, both together), and at a chunk's end what follows the
whitespace (the next chunk's beginning and case, how many line breaks).
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport uint64_t, uint32_t, int32_t, int64_t, uint8_t, int8_t

from maltpy.features.featmap cimport FeatMap, mix64, probe
from maltpy.hashing cimport FNV_OFFSET, FNV_PRIME
from maltpy.features.featmap import FEATMAP_START

cnp.import_array()

# CPython's character database (static tables: no GIL needed)
cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISUPPER(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISLOWER(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISDIGIT(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISALPHA(Py_UCS4 ch) nogil
    Py_UCS4 Py_UNICODE_TOLOWER(Py_UCS4 ch) nogil

#: character classes (what :func:`classify` writes); C_SPACE and C_NEWLINE are the whitespace
cdef enum:
    C_SPACE = 0
    C_NEWLINE = 1
    C_UPPER = 2
    C_LOWER = 3
    C_LETTER = 4
    C_DIGIT = 5
    C_PERIOD = 6
    C_FINAL = 7
    C_QUOTE = 8
    C_OPEN = 9
    C_CLOSE = 10
    C_DASH = 11
    C_COMMA = 12
    C_OTHER = 13
    C_OUTSIDE = 14
    N_LABELS = 3
    MAX_FEATURES = 24
    #: the chunk's characters a feature sees before and after the position, at most
    CAP = 10
#: what stands for a character outside the paragraph
cdef uint32_t OUTSIDE_CP = 0x110000
LABELS = ("inside", "token end", "sentence end")


cdef inline uint8_t char_class(uint32_t c) noexcept nogil:
    if c == 10 or c == 13 or c == 0x2028 or c == 0x2029 or c == 0x85:
        return C_NEWLINE
    if Py_UNICODE_ISSPACE(c):
        return C_SPACE
    if Py_UNICODE_ISUPPER(c):
        return C_UPPER
    if Py_UNICODE_ISLOWER(c):
        return C_LOWER
    if Py_UNICODE_ISDIGIT(c):
        return C_DIGIT
    if Py_UNICODE_ISALPHA(c):
        return C_LETTER
    if c == 0x2E or c == 0xFF0E or c == 0x3002 or c == 0x2026:     # . ． 。 …
        return C_PERIOD
    if c == 0x21 or c == 0x3F or c == 0xFF01 or c == 0xFF1F or c == 0x61F or c == 0x6D4:    # ! ? ！ ？ ؟ ۔
        return C_FINAL
    if c == 0x22 or c == 0x27 or c == 0x60 or c == 0xAB or c == 0xBB or (0x2018 <= c <= 0x201F) \
            or c == 0x2039 or c == 0x203A or (0x300C <= c <= 0x300F):
        return C_QUOTE
    if c == 0x28 or c == 0x5B or c == 0x7B or c == 0xFF08 or c == 0x3010 or c == 0x3008 or c == 0x300A:
        return C_OPEN
    if c == 0x29 or c == 0x5D or c == 0x7D or c == 0xFF09 or c == 0x3011 or c == 0x3009 or c == 0x300B:
        return C_CLOSE
    if c == 0x2D or (0x2010 <= c <= 0x2015) or c == 0x2212:
        return C_DASH
    if c == 0x2C or c == 0x3B or c == 0x3A or c == 0x3001 or c == 0xFF0C or c == 0xFF1B or c == 0xFF1A \
            or c == 0x60C or c == 0x61B:
        return C_COMMA
    return C_OTHER


def classify(const uint32_t[::1] cps, uint32_t[::1] low, uint8_t[::1] cls):
    """Each code point's lowercase (itself where it has none of one character) and class."""
    cdef Py_ssize_t i, n = cps.shape[0]
    cdef uint32_t c
    with nogil:
        for i in range(n):
            c = cps[i]
            if c >= 0xD800 and c < 0xE000:     # a lone surrogate (kept by surrogatepass): no case, no class
                low[i] = c
                cls[i] = C_OTHER
                continue
            low[i] = <uint32_t>Py_UNICODE_TOLOWER(<Py_UCS4>c)
            cls[i] = char_class(c)


cdef inline bint is_space(uint8_t c) noexcept nogil:
    return c <= C_NEWLINE


cdef inline uint64_t mix(uint64_t h, uint64_t v) noexcept nogil:
    return (h ^ v) * FNV_PRIME


cdef inline uint64_t span_hash(const uint32_t* low, int64_t a, int64_t b) noexcept nogil:
    cdef uint64_t h = FNV_OFFSET
    cdef int64_t i
    for i in range(a, b):
        h = mix(h, low[i])
    return h


cdef struct Text:
    const uint32_t* low
    const uint8_t* cls
    int64_t a           # the paragraph's first character
    int64_t b           # one past its last
    int64_t inner       # one past its last character that is not whitespace (the line breaks
                        # that end a paragraph come after it)


cdef inline void set_paragraph(Text* t, int64_t a, int64_t b) noexcept nogil:
    t.a = a
    t.b = b
    t.inner = b
    while t.inner > a and is_space(t.cls[t.inner - 1]):
        t.inner -= 1


# A line break inside a paragraph (before its last word) reads as a space in the features of the
# characters around it: a treebank's text joins its sentences by spaces and has none there, so a
# text of a sentence a line or of wrapped lines is read as the model learned to read text. The
# line breaks that end a paragraph are read as they are, as the model learned them. How many line
# breaks follow a chunk is a feature of its own (:func:`position_keys`).

cdef inline uint32_t char_at(const Text* t, int64_t i) noexcept nogil:
    if t.a <= i < t.b:
        return 0x20 if t.cls[i] == C_NEWLINE and i < t.inner else t.low[i]
    return OUTSIDE_CP


cdef inline uint32_t class_at(const Text* t, int64_t i) noexcept nogil:
    if t.a <= i < t.b:
        return C_SPACE if t.cls[i] == C_NEWLINE and i < t.inner else t.cls[i]
    return C_OUTSIDE


cdef inline uint64_t key(int template, uint64_t h) noexcept nogil:
    return mix64(h ^ (<uint64_t>(template + 1) * 0x9E3779B97F4A7C15ULL))


cdef struct Cursor:
    int64_t cs, ce, ns, ne
    int newlines
    uint64_t shape      # the chunk's character classes, each run once
    int urlish          # 1: it holds @, 2: ://, 3: it starts www. (addresses are one token)


cdef int position_keys(const Text* t, int64_t i, const Cursor* u, uint64_t* keys) noexcept nogil:
    """The feature keys of the decision after character i, which lies in chunk [cs, ce); the next
    chunk is [ns, ne) (ns == ne: none in the paragraph), ``newlines`` line breaks before it."""
    cdef int64_t cs = u.cs, ce = u.ce, ns = u.ns, ne = u.ne
    cdef int newlines = u.newlines
    cdef int n = 0, k
    cdef uint64_t c0 = char_at(t, i), c1 = char_at(t, i + 1), cm = char_at(t, i - 1), c2 = char_at(t, i + 2)
    cdef uint64_t classes = 0, near
    cdef int64_t pa = i - CAP + 1 if i - CAP + 1 > cs else cs
    cdef int64_t sb = i + 1 + CAP if i + 1 + CAP < ce else ce
    cdef uint64_t before = span_hash(t.low, pa, i + 1) ^ (<uint64_t>(pa > cs) << 63)
    cdef uint64_t after = span_hash(t.low, i + 1, sb) ^ (<uint64_t>(sb < ce) << 63)
    cdef bint at_end = i + 1 == ce
    for k in range(-3, 5):
        classes = (classes << 4) | class_at(t, i + k)
    near = (<uint64_t>class_at(t, i - 1) << 8) | (<uint64_t>class_at(t, i) << 4) | class_at(t, i + 1)
    keys[n] = key(0, 0); n += 1
    keys[n] = key(1, c0); n += 1
    keys[n] = key(2, c1); n += 1
    keys[n] = key(3, cm); n += 1
    keys[n] = key(4, c2); n += 1
    keys[n] = key(5, mix(mix(FNV_OFFSET, c0), c1)); n += 1
    keys[n] = key(6, mix(mix(FNV_OFFSET, cm), c0)); n += 1
    keys[n] = key(7, mix(mix(FNV_OFFSET, c1), c2)); n += 1
    keys[n] = key(8, mix(mix(mix(FNV_OFFSET, cm), c0), c1)); n += 1
    keys[n] = key(9, mix(mix(mix(FNV_OFFSET, c0), c1), c2)); n += 1
    keys[n] = key(10, classes); n += 1
    keys[n] = key(11, (near << 4) | class_at(t, i + 2)); n += 1
    keys[n] = key(12, before); n += 1
    keys[n] = key(13, after); n += 1
    keys[n] = key(14, mix(before, after)); n += 1
    keys[n] = key(15, mix(mix(FNV_OFFSET, <uint64_t>(i - cs if i - cs < 8 else 8)),
                          <uint64_t>(ce - 1 - i if ce - 1 - i < 8 else 8)) ^ (near << 32)); n += 1
    keys[n] = key(21, mix(u.shape, near)); n += 1
    if u.urlish:
        keys[n] = key(22, mix(mix(<uint64_t>u.urlish, near), at_end)); n += 1
    if at_end:
        # what follows the whitespace: the next chunk's start and case, the line breaks between
        keys[n] = key(16, mix(before, class_at(t, ns) if ns < ne else C_OUTSIDE)); n += 1
        keys[n] = key(17, span_hash(t.low, ns, ns + CAP if ns + CAP < ne else ne)); n += 1
        keys[n] = key(18, mix(mix(mix(FNV_OFFSET, c0), class_at(t, ns) if ns < ne else C_OUTSIDE),
                              <uint64_t>(newlines if newlines < 3 else 3))); n += 1
        keys[n] = key(19, mix(mix(mix(FNV_OFFSET, near), class_at(t, ns) if ns < ne else C_OUTSIDE),
                              class_at(t, ns + 1) if ns + 1 < ne else C_OUTSIDE)); n += 1
        keys[n] = key(20, mix(before, span_hash(t.low, ns, ns + 3 if ns + 3 < ne else ne))); n += 1
    return n


cdef inline void next_chunk(const Text* t, Cursor* u, int64_t from_) noexcept nogil:
    """The chunk that starts at or after ``from_`` (its start, end, and the next one's)."""
    cdef int64_t i = from_
    while i < t.b and is_space(t.cls[i]):
        i += 1
    u.cs = i
    while i < t.b and not is_space(t.cls[i]):
        i += 1
    u.ce = i
    chunk_traits(t, u)
    u.newlines = 0
    while i < t.b and is_space(t.cls[i]):
        u.newlines += t.cls[i] == C_NEWLINE
        i += 1
    u.ns = i
    while i < t.b and not is_space(t.cls[i]):
        i += 1
    u.ne = i


cdef inline void chunk_traits(const Text* t, Cursor* u) noexcept nogil:
    cdef int64_t i
    cdef uint32_t last = 255
    cdef int runs = 0
    u.shape = FNV_OFFSET
    u.urlish = 0
    for i in range(u.cs, u.ce):
        if t.cls[i] != last and runs < 12:
            u.shape = mix(u.shape, t.cls[i])
            last = t.cls[i]
            runs += 1
        if t.low[i] == 64:
            u.urlish = 1
        elif t.low[i] == 58 and i + 2 < u.ce and t.low[i + 1] == 47 and t.low[i + 2] == 47:
            u.urlish = 2
    if u.ce - u.cs > 4 and t.low[u.cs] == 119 and t.low[u.cs + 1] == 119 and t.low[u.cs + 2] == 119 \
            and t.low[u.cs + 3] == 46:
        u.urlish = 3
    if runs >= 12:
        u.shape = mix(u.shape, 99)


cdef inline int allowed_low(const Text* t, int64_t i, const Cursor* u) noexcept nogil:
    """The lowest label allowed after character i: a token always ends before whitespace; the
    paragraph's last token ends its sentence."""
    if i + 1 == u.ce:
        return 2 if u.ns >= u.ne else 1
    return 0


ctypedef fused real:
    float
    double


cdef inline int best_label(const real* scores, int lo) noexcept nogil:
    """The best-scoring label from ``lo`` up (the lower ones are not allowed here)."""
    cdef int c, best = lo
    for c in range(lo + 1, N_LABELS):
        if scores[c] > scores[best]:
            best = c
    return best


def predict(const uint32_t[::1] low, const uint8_t[::1] cls, const int64_t[::1] pstart, FeatMap fm,
            const float[:, ::1] weights, int8_t[::1] labels):
    """The label after each character (-1 on whitespace) into ``labels``, from trained weights
    (row ``fm``'s id of a key)."""
    cdef Text t
    cdef Cursor u
    cdef uint64_t keys[MAX_FEATURES]
    cdef float scores[N_LABELS]
    cdef int n_keys, q, c, lo
    cdef int32_t f
    cdef int64_t p, i, n_par = pstart.shape[0] - 1
    cdef Py_ssize_t mask = fm.cap - 1
    cdef const float* w = &weights[0, 0] if weights.shape[0] else NULL
    if weights.shape[1] != N_LABELS or low.shape[0] != cls.shape[0] or labels.shape[0] != low.shape[0]:
        raise ValueError("weights or arrays of the wrong shape")
    if low.shape[0] == 0:
        return
    t.low = &low[0]
    t.cls = &cls[0]
    with nogil:
        for p in range(n_par):
            set_paragraph(&t, pstart[p], pstart[p + 1])
            next_chunk(&t, &u, t.a)
            for i in range(t.a, t.b):
                if is_space(t.cls[i]):
                    labels[i] = -1
                    continue
                if i >= u.ce:
                    next_chunk(&t, &u, i)
                n_keys = position_keys(&t, i, &u, keys)
                scores[0] = scores[1] = scores[2] = 0
                for q in range(n_keys):
                    f = probe(fm.keys, fm.vals, mask, keys[q])
                    if f >= 0:
                        for c in range(N_LABELS):
                            scores[c] += w[f * N_LABELS + c]
                lo = allowed_low(&t, i, &u)
                labels[i] = best_label(scores, lo)


cdef struct Cell:
    double w            # the weight now
    double total        # the weight summed over the decisions up to ``stamp`` (lazy averaging)
    int64_t stamp


cdef inline void update(Cell* cell, double delta, int64_t now) noexcept nogil:
    cell.total += (now - cell.stamp) * cell.w
    cell.stamp = now
    cell.w += delta


def train(const uint32_t[::1] low, const uint8_t[::1] cls, const int64_t[::1] pstart, const int8_t[::1] gold,
          int epochs, uint64_t seed, int64_t[::1] errors):
    """An averaged perceptron learned from the gold label after each character (``gold``; any
    value on whitespace), paragraphs in a new random order each epoch; errors per epoch into
    ``errors``. Returns (keys, weights): the features with a non-zero averaged weight."""
    cdef Text t
    cdef Cursor u
    cdef uint64_t keys[MAX_FEATURES]
    cdef int32_t ids[MAX_FEATURES]
    cdef double scores[N_LABELS]
    cdef int n_keys, q, c, lo, best, want, epoch
    cdef int64_t p, i, k, now = 0, n_par = pstart.shape[0] - 1, cap = 0, need, tmp, r
    cdef FeatMap fm = FeatMap(FEATMAP_START)
    cdef Cell* cells = NULL
    cdef Cell* grown
    cdef uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 1
    order_array = np.arange(n_par, dtype=np.int64)
    cdef int64_t[::1] order = order_array
    cdef bint ok = True
    if low.shape[0] != cls.shape[0] or gold.shape[0] != low.shape[0] or errors.shape[0] < epochs:
        raise ValueError("arrays of the wrong shape")
    if low.shape[0] == 0:
        return np.zeros(0, np.uint64), np.zeros((0, N_LABELS), np.float32)
    t.low = &low[0]
    t.cls = &cls[0]
    with nogil:
        for epoch in range(epochs):
            errors[epoch] = 0
            for p in range(n_par - 1, 0, -1):     # Fisher-Yates
                rng ^= rng << 13
                rng ^= rng >> 7
                rng ^= rng << 17
                r = <int64_t>(rng % <uint64_t>(p + 1))
                tmp = order[p]
                order[p] = order[r]
                order[r] = tmp
            for k in range(n_par):
                p = order[k]
                set_paragraph(&t, pstart[p], pstart[p + 1])
                next_chunk(&t, &u, t.a)
                for i in range(t.a, t.b):
                    if is_space(t.cls[i]):
                        continue
                    if i >= u.ce:
                        next_chunk(&t, &u, i)
                    now += 1
                    n_keys = position_keys(&t, i, &u, keys)
                    scores[0] = scores[1] = scores[2] = 0
                    for q in range(n_keys):
                        ids[q] = fm.add(keys[q])
                        if ids[q] < 0:
                            ok = False
                            break
                    if not ok:
                        break
                    need = <int64_t>fm.size * N_LABELS
                    if need > cap:
                        tmp = cap
                        cap = need * 2 if need * 2 > 1024 else 1024
                        grown = <Cell*>realloc(cells, cap * sizeof(Cell))
                        if grown == NULL:
                            ok = False
                            break
                        cells = grown
                        memset(cells + tmp, 0, (cap - tmp) * sizeof(Cell))
                    for q in range(n_keys):
                        for c in range(N_LABELS):
                            scores[c] += cells[ids[q] * N_LABELS + c].w
                    lo = allowed_low(&t, i, &u)
                    best = best_label(scores, lo)
                    want = gold[i] if gold[i] >= lo else lo
                    if best != want:
                        errors[epoch] += 1
                        for q in range(n_keys):
                            update(&cells[ids[q] * N_LABELS + want], 1.0, now)
                            update(&cells[ids[q] * N_LABELS + best], -1.0, now)
                if not ok:
                    break
            if not ok:
                break
    try:
        if not ok:
            raise MemoryError("out of memory while training the tokenizer")
        return _averaged(fm, cells, now)
    finally:
        free(cells)


cdef tuple _averaged(FeatMap fm, const Cell* cells, int64_t now):
    """The features whose averaged weights are not all zero: (keys, float32 weights)."""
    all_keys = fm.keys_in_order()
    cdef int64_t n = fm.size, f
    cdef int c
    cdef const Cell* x
    weights_array = np.zeros((n, N_LABELS), dtype=np.float32)
    cdef float[:, ::1] out = weights_array
    keep_array = np.zeros(n, dtype=bool)
    cdef cnp.npy_bool[::1] keep = keep_array
    for f in range(n):
        for c in range(N_LABELS):
            x = &cells[f * N_LABELS + c]
            out[f, c] = <float>((x.total + (now - x.stamp) * x.w) / now)
            if out[f, c] != 0:
                keep[f] = True
    return all_keys[keep_array], weights_array[keep_array]


def token_spans(const int8_t[::1] labels, const int64_t[::1] pstart):
    """(starts, ends, sentence-final flags) of the tokens the labels give, in text order."""
    cdef Py_ssize_t n = labels.shape[0], i, m = 0
    cdef int64_t p, n_par = pstart.shape[0] - 1
    starts_array = np.empty(n, dtype=np.int64)
    ends_array = np.empty(n, dtype=np.int64)
    final_array = np.empty(n, dtype=np.int8)
    cdef int64_t[::1] starts = starts_array
    cdef int64_t[::1] ends = ends_array
    cdef int8_t[::1] final = final_array
    cdef int64_t start
    with nogil:
        for p in range(n_par):
            start = -1
            for i in range(pstart[p], pstart[p + 1]):
                if labels[i] < 0:
                    continue
                if start < 0:
                    start = i
                if labels[i] > 0:
                    starts[m] = start
                    ends[m] = i + 1
                    final[m] = labels[i] == 2
                    m += 1
                    start = -1
    return starts_array[:m], ends_array[:m], final_array[:m]


def span_hashes(const uint32_t[::1] low, const int64_t[::1] starts, const int64_t[::1] ends, int max_suffix):
    """Per span [starts[k], ends[k]) of ``low``: the hash of its code points, and of its last
    1 .. ``max_suffix`` code points where the span is longer (0 where not): what multiword
    tokens are looked up by, with no Python string per token."""
    cdef Py_ssize_t n = starts.shape[0], k
    cdef int length
    whole_array = np.zeros(n, dtype=np.uint64)
    suffix_array = np.zeros((n, max(max_suffix, 1)), dtype=np.uint64)
    cdef uint64_t[::1] whole = whole_array
    cdef uint64_t[:, ::1] suffix = suffix_array
    if n == 0 or low.shape[0] == 0:
        return whole_array, suffix_array
    with nogil:
        for k in range(n):
            whole[k] = span_hash(&low[0], starts[k], ends[k])
            for length in range(1, max_suffix + 1):
                if ends[k] - starts[k] > length:
                    suffix[k, length - 1] = span_hash(&low[0], ends[k] - length, ends[k])
    return whole_array, suffix_array
