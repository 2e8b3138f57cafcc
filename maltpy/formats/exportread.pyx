# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled reading of the words of export files, for parsing: each sentence's key, words, tags,
lemmas and morphology, without the trees' objects. The input is checked as
:func:`maltpy.formats.export.parse_export` checks it; where anything is amiss (or unusual) the
caller reads the file with ``parse_export``, which names the error and its line, so both say the
same of every input.
"""
from cpython.bytes cimport PyBytes_AS_STRING
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcmp
from maltpy.bytebuf cimport Buf, put, put_int, read_decimal
from maltpy.formats.scan cimport Chunk, Item, Word, ITEM_WORD

DEF FIRST_NODE = 500
#: fields of a line read here (a word and its columns, 21 secondary edges); longer lines are Python's
DEF MAX_FIELDS = 48


cdef inline bint blank(const char* p, int64_t n) noexcept nogil:
    cdef int64_t i
    for i in range(n):
        if p[i] not in (b' ', b'\t', b'\r', b'\f', b'\v'):
            return False
    return True


cdef inline int64_t key_start(const char* line, int64_t n) noexcept nogil:
    """Where the key of a ``#BOS``/``#EOS`` line starts: after the spaces and tabs past its tag."""
    cdef int64_t i = 4
    while i < n and (line[i] == b' ' or line[i] == b'\t'):
        i += 1
    return i


cdef inline int64_t key_end(const char* line, int64_t n, int64_t i) noexcept nogil:
    while i < n and line[i] != b' ' and line[i] != b'\t':
        i += 1
    return i


cdef inline int64_t number(const char* p, int64_t n) noexcept nogil:
    """The decimal number of n ASCII digits (at most 15), or -1."""
    return read_decimal(p, n, 15)


cdef inline int parent_fits(const char* p, int64_t n) noexcept nogil:
    """1 where a parent field is 0 or a node number, 0 where it is not, -1 where Python must say
    (digits too many for :func:`number`)."""
    cdef int64_t i
    if n > 15:
        for i in range(n):
            if p[i] < b'0' or p[i] > b'9':
                return 0
        return -1
    i = number(p, n)
    return 1 if i == 0 or i >= FIRST_NODE else 0


cdef inline int fits(const char* line, const int64_t* starts, const int64_t* ends, int64_t n_fields,
                     int version) noexcept nogil:
    """As ``_fits`` of :mod:`maltpy.formats.export`: whether the fields make a line of format
    ``version`` (1), not (0), or Python must say (-1)."""
    cdef int64_t base = 6 if version == 4 else 5, f
    cdef int r, worst = 1
    if n_fields < base or (n_fields - base) % 2 or ends[0] == starts[0]:
        return 0
    r = parent_fits(line + starts[base - 1], ends[base - 1] - starts[base - 1])
    if r == 0:
        return 0
    worst = min(worst, r)
    for f in range(base + 1, n_fields, 2):
        r = parent_fits(line + starts[f], ends[f] - starts[f])
        if r == 0:
            return 0
        worst = min(worst, r)
    return worst


cdef inline int format_of(int version, int64_t n_fields) noexcept nogil:
    """The file's format: ``version``, or where no header said it (0) the first token line's
    field count (even: 4, odd: 3), as ``_split_line`` infers it."""
    return version if version else 4 if n_fields % 2 == 0 else 3


cdef inline bint has_tab_run(const char* p, int64_t n) noexcept nogil:
    """Whether two tabs follow each other (Python's reader then tries runs of blanks)."""
    cdef int64_t i
    for i in range(n - 1):
        if p[i] == b'\t' and p[i + 1] == b'\t':
            return True
    return False


cdef inline object text(const char* p, int64_t n):
    return PyUnicode_DecodeUTF8(p, n, NULL)


cdef inline bint no_value(const char* p, int64_t n) noexcept nogil:
    """Whether a lemma or morphology field is empty or ``--``: the encoding's ``_``."""
    return n == 0 or (n == 2 and p[0] == b'-' and p[1] == b'-')


cdef inline void put_column(Buf* o, const char* p, int64_t n) noexcept nogil:
    """A lemma or morphology in a CoNLL line as the encoding reads it (as :func:`column_value`)."""
    if no_value(p, n):
        put(o, "_", 1)
    else:
        put(o, p, n)


cdef inline object column_value(const char* p, int64_t n):
    """A lemma or morphology as the encoding reads it: ``--`` and empty are ``_``."""
    if no_value(p, n):
        return "_"
    return PyUnicode_DecodeUTF8(p, n, NULL)


cdef struct Nodes:
    int64_t* ids
    int64_t* parents
    int64_t* refs        # parents the sentence's lines point to (tokens, nodes, secondary edges)
    int64_t n, cap, n_refs, cap_refs


cdef bint grow(int64_t** a, int64_t* cap, int64_t need) noexcept nogil:
    """Room for ``need`` numbers in ``a[0]`` (``cap[0]``: its room, updated once it has grown)."""
    cdef int64_t* q
    cdef int64_t room = cap[0]
    if need <= room:
        return True
    while room < need:
        room *= 2
    q = <int64_t*>realloc(a[0], room * sizeof(int64_t))
    if q == NULL:
        return False
    a[0] = q
    cap[0] = room
    return True


cdef bint grow_nodes(Nodes* t, int64_t need) noexcept nogil:
    """Room for ``need`` nodes in both of the node arrays, which share their room."""
    cdef int64_t room = t.cap
    if not grow(&t.ids, &room, need):
        return False
    room = t.cap
    if not grow(&t.parents, &room, need):
        return False
    t.cap = room
    return True


cdef int64_t find(const int64_t* ids, int64_t n, int64_t x) noexcept nogil:
    cdef int64_t i
    for i in range(n):
        if ids[i] == x:
            return i
    return -1


cdef bint tree_ok(Nodes* t) noexcept nogil:
    """The sentence's nodes are numbered apart, every parent is one of them, and no node is its
    own ancestor (as ``_check_tree``). Sentences of more than 2,048 nodes are left to Python."""
    cdef int64_t i, j, p, steps
    if t.n > 2048:
        return False
    for i in range(t.n):
        if find(t.ids, i, t.ids[i]) >= 0:
            return False
    for i in range(t.n_refs):
        if t.refs[i] != 0 and find(t.ids, t.n, t.refs[i]) < 0:
            return False
    for i in range(t.n):
        p = t.parents[i]
        steps = 0
        while p != 0:
            steps += 1
            if steps > t.n:
                return False
            j = find(t.ids, t.n, p)
            p = t.parents[j]
    return True


def export_words(bytes data, int version, bint conll=False, Py_ssize_t start=0):
    """(keys, words, tags, lemmas, morphology) per sentence of export ``data`` (UTF-8, from its
    first ``#BOS`` line on) in format ``version`` (3, 4, or 0: the first token line's field count
    says), and the version; None where the data is not plain, valid export (the caller then reads
    it with ``parse_export``). ``conll``: (keys, the words as CoNLL-U lines, version) instead:
    each word's FORM, LEMMA, UPOS (the tag) and XPOS (the morphology) as the encoding writes
    them, the rest ``_``, for the compiled parse path (no Python object per word); the lines as
    the :class:`~maltpy.formats.scan.Chunk` the CoNLL-U scanner would make of them (``data``:
    their bytes), built as they are written instead of scanned again. ``start``: where in
    ``data`` the export text starts (the bytes before it are not read)."""
    cdef Nodes t
    cdef Buf o
    o.data, o.n, o.cap, o.failed = NULL, 0, 0, False
    t.cap = 64
    t.cap_refs = 256
    t.ids = <int64_t*>malloc(t.cap * sizeof(int64_t))
    t.parents = <int64_t*>malloc(t.cap * sizeof(int64_t))
    t.refs = <int64_t*>malloc(t.cap_refs * sizeof(int64_t))
    try:
        if t.ids == NULL or t.parents == NULL or t.refs == NULL:
            raise MemoryError()
        if not 0 <= start <= len(data):
            raise ValueError("start lies outside the data")
        return _export_words(data, start, version, conll, &t, &o)
    finally:
        free(t.ids)
        free(t.parents)
        free(t.refs)
        free(o.data)


cdef inline bint add_word(Chunk ch, const int64_t* f) noexcept nogil:
    """A CoNLL-U line of ten fields at ``f`` (each field's first byte, then one past the line's
    newline) as the chunk's next word, as the scanner enters it; False when memory runs out."""
    cdef Word* word
    cdef Item* item
    cdef int k
    if not ch._reserve():
        return False
    word = &ch.words[ch.n_words]
    for k in range(11):
        word.f[k] = f[k]
    word.nf = 10
    item = &ch.items[ch.n_items]
    item.start = f[0]
    item.end = f[10] - 1
    item.kind = ITEM_WORD
    ch.n_items += 1
    ch.n_words += 1
    return True


cdef inline bint close_sentence(Chunk ch, int64_t first_word, int64_t at) noexcept nogil:
    """The sentence from word ``first_word`` closed by the blank line at ``at``."""
    if not ch._reserve():
        return False
    ch.sent_first[ch.n_sentences] = first_word
    return ch.close_sentence(at)


cdef object _export_words(bytes data, Py_ssize_t start, int version, bint conll, Nodes* t, Buf* o):
    cdef const char* p = data
    cdef int64_t size = len(data), pos = start, end, n, i, k, a, f, n_fields, base, v, n_words = 0
    cdef const char* line
    cdef const char* q
    cdef int64_t starts[MAX_FIELDS]
    cdef int64_t ends[MAX_FIELDS]
    cdef int r
    cdef bint inside = False, seen_nodes = False
    cdef bytes key = b""
    cdef int64_t fields[11]
    cdef int64_t first_word = 0
    cdef Chunk ch = Chunk.__new__(Chunk) if conll else None
    keys, words, tags, lemmas, morphs = [], [], [], [], []
    cur_words = cur_tags = cur_lemmas = cur_morphs = None
    while pos < size:
        q = <const char*>memchr(p + pos, b'\n', size - pos)
        end = (q - p) if q != NULL else size
        line = p + pos
        n = end - pos
        pos = end + 1
        while n and line[n - 1] == b'\r':
            n -= 1
        if not inside:
            if n >= 5 and memcmp(line, b"#BOS", 4) == 0 and (line[4] == b' ' or line[4] == b'\t'):
                i = key_start(line, n)
                k = key_end(line, n, i)
                if k == i or (k - i >= 2 and line[i] == b'%' and line[i + 1] == b'%'):
                    return None
                for a in range(i, k):      # a key Python's split() would cut elsewhere: Python reads it
                    if <unsigned char>line[a] < 0x21 or <unsigned char>line[a] >= 0x80:
                        return None
                key = line[i:k]
                inside, seen_nodes = True, False
                t.n = 0
                t.n_refs = 0
                n_words = 0
                if conll:
                    first_word = ch.n_words
                keys.append(text(line + i, k - i))
                if not conll:
                    cur_words, cur_tags, cur_lemmas, cur_morphs = [], [], [], []
                    words.append(cur_words)
                    tags.append(cur_tags)
                    lemmas.append(cur_lemmas)
                    morphs.append(cur_morphs)
                continue
            if blank(line, n):
                continue
            return None
        if n >= 4 and memcmp(line, b"#EOS", 4) == 0:
            i = key_start(line, n)
            k = key_end(line, n, i)
            if (i == 4 and n > 4) or line[i:k] != key or n_words == 0 or not tree_ok(t):
                return None
            inside = False
            if conll:
                if not close_sentence(ch, first_word, o.n):
                    raise MemoryError()
                put(o, "\n", 1)
            continue
        # a token or node line: its tab-separated fields (one with a %% comment or a carriage
        # return inside is Python's)
        if memchr(line, b'\r', n) != NULL:
            return None
        q = <const char*>memchr(line, b'%', n)
        if q != NULL and q + 1 < line + n and q[1] == b'%':
            return None
        n_fields = 0
        a = 0
        for i in range(n + 1):
            if i == n or line[i] == b'\t':
                if n_fields == MAX_FIELDS:
                    return None
                starts[n_fields] = a
                ends[n_fields] = i
                n_fields += 1
                a = i + 1
        for f in range(n_fields):
            if ends[f] > starts[f] and (line[starts[f]] == b' ' or line[ends[f] - 1] == b' '):
                return None     # columns padded with spaces: Python splits them at runs of blanks
        # where the fields between single tabs do not make a line, those between runs of tabs
        # may (TIGER's and NEGRA's aligned columns), as _split_line says
        r = fits(line, starts, ends, n_fields, format_of(version, n_fields))
        if r == 0 and memchr(line, b' ', n) == NULL and line[0] != b'\t' and has_tab_run(line, n):
            n_fields = 0
            a = 0
            while a < n:
                if n_fields == MAX_FIELDS:
                    return None
                starts[n_fields] = a
                while a < n and line[a] != b'\t':
                    a += 1
                ends[n_fields] = a
                n_fields += 1
                while a < n and line[a] == b'\t':
                    a += 1
            r = fits(line, starts, ends, n_fields, format_of(version, n_fields))
        if r != 1:
            return None         # not a line, or one whose numbers Python must read
        version = format_of(version, n_fields)
        base = 6 if version == 4 else 5
        # the parents (fits checked them), for tree_ok
        if not grow(&t.refs, &t.cap_refs, t.n_refs + 1 + (n_fields - base) // 2):
            raise MemoryError()
        v = number(line + starts[base - 1], ends[base - 1] - starts[base - 1])
        t.refs[t.n_refs] = v
        t.n_refs += 1
        for f in range(base + 1, n_fields, 2):
            t.refs[t.n_refs] = number(line + starts[f], ends[f] - starts[f])
            t.n_refs += 1
        # a phrasal node: #500 and up (in format 4 with lemma --)
        k = number(line + 1, ends[0] - 1) if line[0] == b'#' else -1
        if k < 0 and line[0] == b'#' and ends[0] > 16:
            return None         # perhaps a node of a long number: Python reads it
        if k >= FIRST_NODE and (version == 3 or (ends[1] - starts[1] == 2 and line[starts[1]] == b'-'
                                                  and line[starts[1] + 1] == b'-')):
            if not grow_nodes(t, t.n + 1):
                raise MemoryError()
            t.ids[t.n] = k
            t.parents[t.n] = v
            t.n += 1
            seen_nodes = True
            continue
        if seen_nodes:
            return None
        n_words += 1
        f = 2 if version == 4 else 1
        if conll:
            if ends[f] == starts[f]:
                return None     # an empty tag: not a CoNLL field
            fields[0] = o.n
            put_int(o, n_words)
            put(o, "\t", 1)
            fields[1] = o.n
            put(o, line, ends[0])
            put(o, "\t", 1)
            fields[2] = o.n
            if version == 4:
                put_column(o, line + starts[1], ends[1] - starts[1])
            else:
                put(o, "_", 1)
            put(o, "\t", 1)
            fields[3] = o.n
            put(o, line + starts[f], ends[f] - starts[f])
            put(o, "\t", 1)
            fields[4] = o.n
            put_column(o, line + starts[f + 1], ends[f + 1] - starts[f + 1])
            for k in range(5, 11):      # "\t_" five times, then the newline
                fields[k] = o.n + 2 * (k - 5) + 1
            put(o, "\t_\t_\t_\t_\t_\n", 11)
            if not add_word(ch, fields):
                raise MemoryError()
            continue
        cur_words.append(text(line, ends[0]))
        cur_lemmas.append(column_value(line + starts[1], ends[1] - starts[1]) if version == 4 else "_")
        cur_tags.append(text(line + starts[f], ends[f] - starts[f]))
        cur_morphs.append(column_value(line + starts[f + 1], ends[f + 1] - starts[f + 1]))
    if inside or not keys:
        return None
    if conll:
        if o.failed:
            raise MemoryError()
        ch.data = o.data[:o.n]
        ch.p = <const unsigned char*>PyBytes_AS_STRING(ch.data)
        ch.final = True
        ch.conllu = True
        return keys, ch, version
    return keys, words, tags, lemmas, morphs, version
