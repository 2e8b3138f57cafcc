# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled discbracket for the parse path of discontinuous models: the words and tags of a
discbracket file as export text (which :mod:`maltpy.formats.exportread` reads on, so that
``-m parse`` takes the compiled chunk path), and the export text the compiled decoder writes as
discbracket lines.

:func:`maltpy.formats.export.parse_discbracket` and :func:`maltpy.formats.export.to_discbracket`
are the reference. Where the input holds anything they might read otherwise, or refuse, these
give None and the caller takes the Python path, which names the error and its line, so both
paths say the same of every input (a hypothesis test holds them to it).
"""
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcmp
from maltpy.bytebuf cimport Buf, put, put_int, read_decimal
from maltpy.formats.blanks cimport blank_length

DEF FIRST_NODE = 500
#: digits of an index or a parent read here; longer numbers are Python's
DEF MAX_DIGITS = 9


cdef struct Ints:
    int64_t* v
    Py_ssize_t n
    Py_ssize_t cap


cdef inline bint push(Ints* a, int64_t x) noexcept nogil:
    cdef Py_ssize_t cap
    cdef int64_t* grown
    if a.n == a.cap:
        cap = a.cap * 2 if a.cap else 256
        grown = <int64_t*>realloc(a.v, cap * sizeof(int64_t))
        if grown == NULL:
            return False
        a.v, a.cap = grown, cap
    a.v[a.n] = x
    a.n += 1
    return True


cdef inline bint room(Ints* a, Py_ssize_t n) noexcept nogil:
    """Room in ``a`` for at least ``n`` values (the values it has kept)."""
    cdef int64_t* grown
    if a.cap < n:
        grown = <int64_t*>realloc(a.v, max(n, 256) * sizeof(int64_t))
        if grown == NULL:
            return False
        a.v, a.cap = grown, max(n, 256)
    return True


cdef inline int odd_space(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Whether p[i] starts a character Python's ``str.split``/``\\s`` take for whitespace and
    this reader does not (form feeds, vertical tabs, information separators, no-break and other
    Unicode spaces; any other control character too, which Python's reader judges); 1 if so."""
    if p[i] < 0x20:
        return p[i] != 9 and p[i] != 13
    return p[i] >= 0x80 and blank_length(p, i, n) != 0


cdef inline bint is_blank(unsigned char b) noexcept nogil:
    return b == 32 or b == 9 or b == 13


cdef struct Tokens:
    # one line's tokens: "(", ")" or a run of other characters, as parse_discbracket's _TOKEN
    const unsigned char* p
    Py_ssize_t i
    Py_ssize_t n


cdef inline bint next_token(Tokens* t, Py_ssize_t* start, Py_ssize_t* end) noexcept nogil:
    """The next token's span; False at the end of the line."""
    while t.i < t.n and is_blank(t.p[t.i]):
        t.i += 1
    if t.i >= t.n:
        return False
    start[0] = t.i
    if t.p[t.i] == 40 or t.p[t.i] == 41:
        t.i += 1
    else:
        while t.i < t.n and not is_blank(t.p[t.i]) and t.p[t.i] != 40 and t.p[t.i] != 41:
            t.i += 1
    end[0] = t.i
    return True


cdef inline bint is_paren(const unsigned char* p, Py_ssize_t s, Py_ssize_t e) noexcept nogil:
    return e - s == 1 and (p[s] == 40 or p[s] == 41)


cdef inline Py_ssize_t find_eq(const unsigned char* p, Py_ssize_t s, Py_ssize_t e) noexcept nogil:
    while s < e:
        if p[s] == 61:
            return s
        s += 1
    return -1


cdef inline void put_unescaped(Buf* o, const unsigned char* p, Py_ssize_t n, unsigned char* tmp) noexcept nogil:
    """``p`` as ``_unescape`` makes it: every -LRB- a "(", then every -RRB- a ")" (two passes,
    as str.replace twice)."""
    cdef Py_ssize_t i = 0, m = 0, k = 0
    while i < n:        # pass 1 into tmp
        if i + 5 <= n and memcmp(p + i, b"-LRB-", 5) == 0:
            tmp[m] = 40
            m += 1
            i += 5
        else:
            tmp[m] = p[i]
            m += 1
            i += 1
    i = 0
    while i < m:
        if i + 5 <= m and memcmp(tmp + i, b"-RRB-", 5) == 0:
            put(o, ")", 1)
            i += 5
        else:
            k = i
            while i < m and not (i + 5 <= m and memcmp(tmp + i, b"-RRB-", 5) == 0):
                i += 1
            put(o, <const char*>tmp + k, i - k)


cdef inline bint unescaped_is_plain(const unsigned char* p, Py_ssize_t n, bint word) noexcept nogil:
    """Whether the unescaped value is one that export reads back as it is: no ``%%`` (a comment
    there) and, for a word, no ``#`` first (a node or #BOS line there). Escapes only shrink
    text and never make a ``%`` or ``#``, so the escaped bytes tell."""
    cdef Py_ssize_t i
    if word and n > 0 and p[0] == 35:
        return False
    for i in range(n - 1):
        if p[i] == 37 and p[i + 1] == 37:
            return False
    return True


cdef int line_words(const unsigned char* p, Py_ssize_t n, Ints* leaves, Ints* depth_count) noexcept nogil:
    """One discbracket line's leaves, as (index, tag start, tag end, word start, word end) runs in
    ``leaves``; 1 when the line is a tree parse_discbracket reads as this does, 0 when it is
    anything else (an error there, or an unusual line), -1 when memory runs out."""
    cdef Tokens t
    cdef Py_ssize_t s, e, ls, le, ws, we, q, eq
    cdef int64_t index, depth = 0
    cdef bint first = True
    t.p, t.i, t.n = p, 0, n
    leaves.n = 0
    while True:
        if not next_token(&t, &s, &e):
            return 0 if depth > 0 or first else 1
        if depth == 0 and not first:
            return 0                            # text after the tree's last bracket
        if p[s] == 41 and e - s == 1:           # ")"
            if depth == 0 or depth_count.v[depth - 1] == 0:
                return 0
            depth -= 1
            if depth > 0:
                depth_count.v[depth - 1] += 1
            continue
        if not (p[s] == 40 and e - s == 1):      # a word or label where a bracket belongs
            return 0
        # "(" LABEL, then a leaf's index=word and ")", or a constituent's children
        if not next_token(&t, &ls, &le) or is_paren(p, ls, le):
            return 0
        q = t.i
        if next_token(&t, &ws, &we) and not is_paren(p, ws, we):
            eq = find_eq(p, ws, we)
            if eq < 0:
                return 0                        # a word where a bracket belongs
            index = read_decimal(<const char*>p + ws, eq - ws, MAX_DIGITS)
            if index < 0 or eq + 1 == we:
                return 0
            if not next_token(&t, &s, &e) or not (p[s] == 41 and e - s == 1):
                return 0
            if first:
                return 0                        # a tree that is one leaf: Python's
            if not (push(leaves, index) and push(leaves, ls) and push(leaves, le)
                    and push(leaves, eq + 1) and push(leaves, we)):
                return -1
            depth_count.v[depth - 1] += 1
            continue
        t.i = q                                 # the children follow
        if not room(depth_count, depth + 1):
            return -1
        depth_count.v[depth] = 0
        depth += 1
        first = False


def discbracket_export(bytes data, Py_ssize_t start=0, Py_ssize_t first_line=1):
    """Export text (format 4) of the words and tags of discbracket ``data`` (UTF-8, from byte
    ``start``): one sentence a tree, keyed by its line's number as ``read_discbracket`` keys it
    (``first_line``: the number of the data's first line, for a piece of a file), each word
    ``word -- tag -- -- 0``; None where the data is anything ``read_discbracket`` might read
    otherwise or refuse."""
    cdef const unsigned char* p = <const unsigned char*>data
    cdef Py_ssize_t n = len(data), i, j, e, line_no = first_line - 1, k, L, blank_line
    cdef Ints leaves, depth_count, order
    cdef Buf o
    cdef unsigned char* tmp = NULL
    cdef int r
    cdef bint any_tree = False, ok = True
    if not 0 <= start <= n:
        raise ValueError("start lies outside the data")
    leaves.v, leaves.n, leaves.cap = NULL, 0, 0
    depth_count.v, depth_count.n, depth_count.cap = NULL, 0, 0
    order.v, order.n, order.cap = NULL, 0, 0
    o.data, o.n, o.cap, o.failed = NULL, 0, 0, False
    try:
        with nogil:
            tmp = <unsigned char*>malloc(n - start + 1)
            ok = tmp != NULL and room(&depth_count, 64)
            i = start
            while ok and i < n:
                j = i
                while j < n and p[j] != 10:
                    j += 1
                e = j
                line_no += 1
                blank_line = 1
                for k in range(i, e):
                    if odd_space(p, k, e):
                        ok = False
                        break
                    if not is_blank(p[k]):
                        blank_line = 0
                if ok and not blank_line:
                    r = line_words(p + i, e - i, &leaves, &depth_count)
                    if r != 1:
                        ok = False
                        break
                    L = leaves.n // 5
                    # every index 0..L-1 once: order[index] = the leaf's run
                    if not room(&order, L):
                        ok = False
                        break
                    for k in range(L):
                        order.v[k] = -1
                    for k in range(L):
                        if leaves.v[5 * k] >= L or order.v[leaves.v[5 * k]] >= 0:
                            ok = False
                            break
                        order.v[leaves.v[5 * k]] = k
                    if not ok:
                        break
                    put(&o, "#BOS ", 5)
                    put_int(&o, line_no)
                    put(&o, "\n", 1)
                    for k in range(L):
                        r = <int>order.v[k]
                        # leaves' spans are relative to the line
                        if not (unescaped_is_plain(p + i + leaves.v[5 * r + 3], leaves.v[5 * r + 4] - leaves.v[5 * r + 3], True)
                                and unescaped_is_plain(p + i + leaves.v[5 * r + 1], leaves.v[5 * r + 2] - leaves.v[5 * r + 1], False)):
                            ok = False
                            break
                        put_unescaped(&o, p + i + leaves.v[5 * r + 3], leaves.v[5 * r + 4] - leaves.v[5 * r + 3], tmp)
                        put(&o, "\t--\t", 4)
                        put_unescaped(&o, p + i + leaves.v[5 * r + 1], leaves.v[5 * r + 2] - leaves.v[5 * r + 1], tmp)
                        put(&o, "\t--\t--\t0\n", 9)
                    put(&o, "#EOS ", 5)
                    put_int(&o, line_no)
                    put(&o, "\n", 1)
                    any_tree = True
                i = j + 1
        if o.failed:
            raise MemoryError()
        if not ok or not any_tree:
            return None
        return o.data[:o.n]
    finally:
        free(leaves.v)
        free(depth_count.v)
        free(order.v)
        free(tmp)
        free(o.data)


cdef inline void put_escaped(Buf* o, const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """``p`` as ``_escape`` writes it: brackets -LRB- and -RRB-, each white-space character _."""
    cdef Py_ssize_t i = 0, k = 0
    cdef int w
    while i < n:
        if p[i] == 40 or p[i] == 41:
            put(o, <const char*>p + k, i - k)
            put(o, "-LRB-" if p[i] == 40 else "-RRB-", 5)
            i += 1
            k = i
            continue
        w = blank_length(p, i, n)
        if w:
            put(o, <const char*>p + k, i - k)
            put(o, "_", 1)
            i += w
            k = i
            continue
        i += 1
    put(o, <const char*>p + k, n - k)


cdef struct Child:
    int64_t key      # its parent's slot (0: the root, 1 + i: node i) x (tokens + 1) + its first word
    int64_t code     # token k: k; node i: tokens + i


cdef int by_key(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const Child*>a).key, y = (<const Child*>b).key
    return (x > y) - (x < y)


cdef struct Tree:
    Ints tok         # per token: word start, word end, tag start, tag end, parent id
    Ints node        # per node: id, label start, label end, parent id
    Ints idx         # node index by id - FIRST_NODE (-1: none)
    Ints up          # per token, then per node: the parent's node index (-1: the root)
    Ints first       # per node: its first word (-1: none under it)
    Ints color
    Ints start       # per slot: its first child in kids
    Ints stack
    Child* kids
    Py_ssize_t cap_kids


cdef int write_tree(Buf* o, const unsigned char* p, Tree* t) noexcept nogil:
    """The sentence in ``t`` as ``to_discbracket`` writes it (nodes with no word under them left
    out); 1, or 0 when it is not a tree of maltpy's writing (the caller takes Python's path),
    -1 when memory runs out."""
    cdef Py_ssize_t n_tok = t.tok.n // 5, n_nodes = t.node.n // 4, i, k, m, c, top, slot, n_kids = 0
    cdef int64_t max_id = FIRST_NODE - 1, pid, x
    cdef Child* grown
    for i in range(n_nodes):
        max_id = max(max_id, t.node.v[4 * i])
    if max_id - FIRST_NODE > 4 * (n_tok + n_nodes) + 64:
        return 0
    m = max_id - FIRST_NODE + 1
    if not (room(&t.idx, m) and room(&t.up, n_tok + n_nodes) and room(&t.first, n_nodes)
            and room(&t.color, n_nodes) and room(&t.start, n_nodes + 2) and room(&t.stack, 2 * n_nodes + 2)):
        return -1
    for i in range(m):
        t.idx.v[i] = -1
    for i in range(n_nodes):
        if t.idx.v[t.node.v[4 * i] - FIRST_NODE] >= 0:
            return 0                    # two nodes numbered alike
        t.idx.v[t.node.v[4 * i] - FIRST_NODE] = i
    for i in range(n_tok + n_nodes):
        pid = t.tok.v[5 * i + 4] if i < n_tok else t.node.v[4 * (i - n_tok) + 3]
        if pid == 0:
            t.up.v[i] = -1
        elif FIRST_NODE <= pid <= max_id and t.idx.v[pid - FIRST_NODE] >= 0:
            t.up.v[i] = t.idx.v[pid - FIRST_NODE]
        else:
            return 0
    # no node its own ancestor: each walk up stops at a node already known to reach the root
    for i in range(n_nodes):
        t.color.v[i] = 0
        t.first.v[i] = -1
    for i in range(n_nodes):
        k = i
        while k >= 0 and t.color.v[k] == 0:
            t.color.v[k] = 1
            k = t.up.v[n_tok + k]
        if k >= 0 and t.color.v[k] == 1:
            return 0
        k = i
        while k >= 0 and t.color.v[k] == 1:
            t.color.v[k] = 2
            k = t.up.v[n_tok + k]
    # a node's first word: each word goes up until a node an earlier word reached
    for i in range(n_tok):
        k = t.up.v[i]
        while k >= 0 and t.first.v[k] < 0:
            t.first.v[k] = i
            k = t.up.v[n_tok + k]
    if t.cap_kids < n_tok + n_nodes:
        grown = <Child*>realloc(t.kids, (n_tok + n_nodes) * sizeof(Child))
        if grown == NULL:
            return -1
        t.kids, t.cap_kids = grown, n_tok + n_nodes
    for i in range(n_tok + n_nodes):
        if i >= n_tok and t.first.v[i - n_tok] < 0:
            continue
        t.kids[n_kids].key = (t.up.v[i] + 1) * (n_tok + 1) + (i if i < n_tok else t.first.v[i - n_tok])
        t.kids[n_kids].code = i
        n_kids += 1
    qsort(t.kids, n_kids, sizeof(Child), by_key)
    for slot in range(n_nodes + 1):        # a slot without children: none of the kids is its
        t.start.v[slot] = n_kids
    for c in range(n_kids - 1, -1, -1):
        t.start.v[t.kids[c].key // (n_tok + 1)] = c
    # depth first: the stack holds (slot, its next child)
    put(o, "(ROOT", 5)
    t.stack.v[0], t.stack.v[1], top = 0, t.start.v[0], 1
    while top > 0:
        slot = t.stack.v[2 * top - 2]
        c = t.stack.v[2 * top - 1]
        if c >= n_kids or t.kids[c].key // (n_tok + 1) != slot:
            put(o, ")", 1)
            top -= 1
            continue
        t.stack.v[2 * top - 1] = c + 1
        x = t.kids[c].code
        if x < n_tok:
            put(o, " (", 2)
            put_escaped(o, p + t.tok.v[5 * x + 2], t.tok.v[5 * x + 3] - t.tok.v[5 * x + 2])
            put(o, " ", 1)
            put_int(o, x)
            put(o, "=", 1)
            put_escaped(o, p + t.tok.v[5 * x], t.tok.v[5 * x + 1] - t.tok.v[5 * x])
            put(o, ")", 1)
        else:
            x -= n_tok
            put(o, " (", 2)
            put_escaped(o, p + t.node.v[4 * x + 1], t.node.v[4 * x + 2] - t.node.v[4 * x + 1])
            t.stack.v[2 * top], t.stack.v[2 * top + 1] = x + 1, t.start.v[x + 1]
            top += 1
    put(o, "\n", 1)
    return 1


def export_discbracket(bytes data, int version):
    """Discbracket lines of export text as the compiled decoder writes it (format ``version``, 3
    or 4; :func:`~maltpy.transform.discdecode.decode_export`), as ``to_discbracket`` writes its
    trees; None where the text holds anything else (a word starting with ``#``, a space, ``%%``,
    other fields), for the caller to take Python's path."""
    cdef const unsigned char* p = <const unsigned char*>data
    cdef Py_ssize_t n = len(data), i, j, k, n_f, tag_f = 2 if version == 4 else 1
    cdef Py_ssize_t fs[8]
    cdef Py_ssize_t fe[8]
    cdef int64_t node_id, parent
    cdef bint inside = False, ok = True
    cdef int r
    cdef Tree t
    cdef Buf o
    if version != 3 and version != 4:
        raise ValueError("export_discbracket: format 3 or 4")
    t.tok.v = t.node.v = t.idx.v = t.up.v = t.first.v = t.color.v = t.start.v = t.stack.v = NULL
    t.tok.n = t.node.n = t.idx.n = t.up.n = t.first.n = t.color.n = t.start.n = t.stack.n = 0
    t.tok.cap = t.node.cap = t.idx.cap = t.up.cap = t.first.cap = t.color.cap = t.start.cap = t.stack.cap = 0
    t.kids, t.cap_kids = NULL, 0
    o.data, o.n, o.cap, o.failed = NULL, 0, 0, False
    try:
        with nogil:
            i = 0
            while ok and i < n:
                j = i
                while j < n and p[j] != 10:
                    j += 1
                if not inside:
                    ok = j - i >= 5 and memcmp(p + i, b"#BOS ", 5) == 0
                    inside = True
                    t.tok.n = t.node.n = 0
                elif j - i >= 4 and memcmp(p + i, b"#EOS", 4) == 0:
                    r = write_tree(&o, p, &t)
                    if r < 0:
                        o.failed = True
                    ok = r == 1
                    inside = False
                else:
                    n_f = 0
                    fs[0] = i
                    for k in range(i, j + 1):
                        if k == j or p[k] == 9:
                            if n_f == 7:
                                ok = False
                                break
                            fe[n_f] = k
                            n_f += 1
                            fs[n_f] = k + 1
                        elif p[k] == 32 or (p[k] == 37 and k + 1 < j and p[k + 1] == 37):
                            ok = False
                            break
                    if not ok or n_f != version + 2:
                        ok = False
                        break
                    parent = read_decimal(<const char*>p + fs[n_f - 1], fe[n_f - 1] - fs[n_f - 1], MAX_DIGITS)
                    if parent < 0:
                        ok = False
                    elif p[fs[0]] == 35:        # "#": a node of the decoder's, else Python's
                        node_id = read_decimal(<const char*>p + fs[0] + 1, fe[0] - fs[0] - 1, MAX_DIGITS)
                        if node_id < FIRST_NODE or (version == 4 and not (
                                fe[1] - fs[1] == 2 and p[fs[1]] == 45 and p[fs[1] + 1] == 45)):
                            ok = False
                        else:
                            ok = (push(&t.node, node_id) and push(&t.node, fs[tag_f]) and push(&t.node, fe[tag_f])
                                  and push(&t.node, parent))
                            o.failed = o.failed or not ok
                    elif t.node.n:
                        ok = False              # a token after the nodes
                    else:
                        ok = (push(&t.tok, fs[0]) and push(&t.tok, fe[0]) and push(&t.tok, fs[tag_f])
                              and push(&t.tok, fe[tag_f]) and push(&t.tok, parent))
                        o.failed = o.failed or not ok
                i = j + 1
        if o.failed:
            raise MemoryError()
        if not ok or inside:
            return None
        return o.data[:o.n]
    finally:
        free(t.tok.v)
        free(t.node.v)
        free(t.idx.v)
        free(t.up.v)
        free(t.first.v)
        free(t.color.v)
        free(t.start.v)
        free(t.stack.v)
        free(t.kids)
        free(o.data)
