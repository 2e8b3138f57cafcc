# cython: language_level=3
"""Compiled decoding of head-ordered dependency trees into bracketed trees, with unary recovery
(the parse path of constituent models; :mod:`maltpy.transform.constituents` is the reference
implementation in Python, and the tests check that both give the same trees).

A batch is given as arrays: per sentence its rows in ``offsets`` (row 0 of each sentence is the
root, as the parse loop's corpus has it), per row the parsed head and dependency label id, and
the byte spans of each word's FORM and POS tag in ``data``. Per dependency label id, ``label_z``
is its phrase symbol (-1: no phrase label) and ``label_k`` its index. Phrase symbols are bytes
in ``symbols``. The unary classifier's features are 64-bit hashes of the symbols' and words'
bytes, so no vocabulary is needed: a feature is looked up in an open-addressing table of keys.
"""
from maltpy.features.featmap cimport FeatMap, mix64
from maltpy.formats.blanks cimport blank_length
from maltpy.hashing cimport fnv1a
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import numpy as np

DEF N_TEMPLATES = 13
cdef uint64_t NONE_HASH = 0x6a09e667f3bcc908ULL

cdef struct Node:
    int sym          # phrase symbol, or -1 for a pre-terminal
    int word         # the pre-terminal's word (1-based), else -1
    int lo, hi       # first and last word of the yield
    int parent, first_child, next_sibling, n_children
    int head, level  # the spine it is on and its attachment level (0: pre-terminal)
    uint64_t lhash   # hash of its label's bytes


cdef struct Work:
    int* H
    int* Z
    int* K
    int* order
    int* pre
    int* size
    int* kid_start
    int* kid_list
    int* left
    int* right
    int* psi
    int* stack
    int* cls
    char* seen
    float* scores
    uint64_t* tag_hash
    const int64_t* ws
    const int64_t* we
    const int64_t* ts
    const int64_t* te
    Node* nodes
    int root





cdef inline uint64_t combine(uint64_t h, uint64_t x) noexcept nogil:
    return mix64(h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)))


def hash_bytes(bytes b):
    """The hash the compiled code gives a label's or word's bytes."""
    return fnv1a(<const unsigned char*>b, len(b))


cdef inline uint64_t cand_key(uint64_t label_hash, bint preterminal) noexcept nogil:
    cdef uint64_t k = combine(mix64(label_hash), <uint64_t>(preterminal + 7))
    return k if k else 1


def candidate_key(uint64_t label_hash, int preterminal):
    """The key of a (label, pre-terminal flag) pair in the candidate table."""
    return cand_key(label_hash, preterminal != 0)


cdef class Buffer:
    cdef char* p
    cdef int64_t n, cap
    cdef bint failed

    def __cinit__(self):
        self.cap = 1 << 16
        self.p = <char*>malloc(self.cap)
        self.n = 0
        self.failed = self.p == NULL

    def __dealloc__(self):
        free(self.p)

    cdef inline void put(self, const char* s, int64_t k) noexcept nogil:
        cdef char* q
        if self.n + k > self.cap:
            while self.n + k > self.cap:
                self.cap *= 2
            q = <char*>realloc(self.p, self.cap)
            if q == NULL:
                self.failed = True
                return
            self.p = q
        memcpy(self.p + self.n, s, k)
        self.n += k

    cdef inline void putc(self, char c) noexcept nogil:
        self.put(&c, 1)


cdef class Decoder:
    """Everything a batch is decoded with (read only: one Decoder serves several threads)."""
    cdef int32_t[::1] label_z, label_k
    cdef bint delta
    cdef int fallback
    cdef bytes sym_pool
    cdef const char* sym_ptr
    cdef int64_t[::1] sym_off
    cdef uint64_t[::1] sym_hash
    # unary classifier (n_classes == 0: none)
    cdef int n_classes
    cdef FeatMap features            # feature hash -> weight row
    cdef float[:, ::1] W
    cdef float[::1] bias
    cdef FeatMap candidates          # (label, kind) key -> row of cand
    cdef uint8_t[:, ::1] cand
    cdef int32_t[::1] chain_off, chain_sym

    def __init__(self, label_z, label_k, bint delta, list symbols, int fallback, unary=None):
        self.label_z = np.ascontiguousarray(label_z, dtype=np.int32)
        self.label_k = np.ascontiguousarray(label_k, dtype=np.int32)
        self.delta = delta
        self.fallback = fallback
        self.sym_pool = b"".join(symbols)
        self.sym_ptr = self.sym_pool
        off = np.zeros(len(symbols) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in symbols], out=off[1:])
        self.sym_off = off
        self.sym_hash = np.array([hash_bytes(s) for s in symbols], dtype=np.uint64)
        self.n_classes = 0
        if unary is not None:
            (self.features, self.W, self.bias, self.candidates, self.cand,
             self.chain_off, self.chain_sym) = unary
            self.n_classes = self.W.shape[1]
            if self.n_classes > 4096:
                raise ValueError("more than 4096 unary chains")

    def decode(self, data, int64_t[::1] offsets, int32_t[::1] heads, int32_t[::1] labels,
               int64_t[::1] word_start, int64_t[::1] word_end, int64_t[::1] tag_start, int64_t[::1] tag_end,
               uint8_t[::1] wrapped, bint unaries=True, bint features=False):
        """Decode a batch. Returns the bracketed trees as bytes (one line each), or with
        ``features=True`` the arrays of every node (sentence, head word, level, pre-terminal
        flag, label bytes' hash, predicted class or -1) and its feature keys (n x 13, 0 = absent)
        for training."""
        cdef const unsigned char* d = data
        cdef int64_t n_sent = offsets.shape[0] - 1, k, r0, max_n = 1
        for k in range(n_sent):
            max_n = max(max_n, offsets[k + 1] - offsets[k])
        cdef Work* w = work_new(max_n)
        if w == NULL:
            raise MemoryError()
        cdef Buffer out = Buffer()
        cdef int64_t total_nodes = 0
        cdef int64_t cap_nodes = 0, n_nodes
        node_info = np.zeros((0, 6), dtype=np.int64)
        node_keys = np.zeros((0, N_TEMPLATES), dtype=np.uint64)
        cdef int64_t[:, ::1] info
        cdef uint64_t[:, ::1] fkeys
        if features:
            cap_nodes = 2 * (offsets[n_sent] - offsets[0]) + 2
            node_info = np.zeros((cap_nodes, 6), dtype=np.int64)
            node_keys = np.zeros((cap_nodes, N_TEMPLATES), dtype=np.uint64)
        info = node_info
        fkeys = node_keys
        cdef bint ok = True
        try:
            with nogil:
                for k in range(n_sent):
                    r0 = offsets[k]
                    n_nodes = self._sentence(w, d, &heads[r0], &labels[r0], <int>(offsets[k + 1] - r0 - 1),
                                             &word_start[r0], &word_end[r0], &tag_start[r0], &tag_end[r0])
                    if n_nodes < 0:
                        ok = False
                        break
                    if unaries and self.n_classes:
                        self._predict(w, d, n_nodes, &word_start[r0], &word_end[r0])
                    if features:
                        self._features(w, d, n_nodes, &word_start[r0], &word_end[r0], k, info, fkeys,
                                       total_nodes, unaries and self.n_classes > 0)
                        total_nodes += n_nodes
                    else:
                        self._render(w, d, n_nodes, out, wrapped[k], unaries and self.n_classes > 0)
        finally:
            work_free(w)
        if not ok or out.failed:
            raise MemoryError()
        if features:
            return node_info[:total_nodes], node_keys[:total_nodes]
        return out.p[:out.n]

    # ------------------------------------------------------------------ decoding
    cdef int64_t _sentence(self, Work* w, const unsigned char* d, const int32_t* heads, const int32_t* labels,
                           int n, const int64_t* ws, const int64_t* we, const int64_t* ts,
                           const int64_t* te) noexcept nogil:
        cdef int m, h, lab, main, top, top_sym, n_roots = 0, lo, hi, x, best, bd
        cdef int* H = w.H
        w.ws = ws
        w.we = we
        w.ts = ts
        w.te = te
        for m in range(1, n + 1):
            w.tag_hash[m] = fnv1a(d + ts[m], te[m] - ts[m])
        cdef int* Z = w.Z
        cdef int* K = w.K
        for m in range(1, n + 1):
            H[m] = heads[m]
            if H[m] < 0 or H[m] > n or H[m] == m:
                H[m] = 0
            lab = labels[m]
            Z[m] = -1
            K[m] = 1
            if H[m] != 0 and 0 <= lab < self.label_z.shape[0]:
                Z[m] = self.label_z[lab]
                K[m] = self.label_k[lab]
        if not order(w, n):     # a cycle cannot come from the parse loop; break it at the root
            for m in range(1, n + 1):
                if not w.seen[m]:
                    H[m] = 0
            order(w, n)
        if self.delta:
            self._delta(w, n)
        for m in range(1, n + 1):
            n_roots += H[m] == 0
        if n_roots > 1:      # the other roots join the largest subtree's top constituent
            main = 0
            for m in range(1, n + 1):
                if H[m] == 0 and (main == 0 or w.size[m] > w.size[main]):
                    main = m
            top = 0
            top_sym = -1
            for m in range(1, n + 1):
                if H[m] == main and K[m] > top:
                    top = K[m]
            for m in range(1, n + 1):
                if H[m] == main and K[m] == top and Z[m] >= 0 and top_sym < 0:
                    top_sym = Z[m]
            for m in range(1, n + 1):
                if H[m] == 0 and m != main:
                    H[m] = main
                    Z[m] = top_sym
                    K[m] = max(top, 1)
            order(w, n)
        # lift non-projective arcs, the shortest first, until none is left
        while True:
            best = 0
            bd = n + 1
            for m in range(1, n + 1):
                h = H[m]
                if h == 0:
                    continue
                lo = min(h, m)
                hi = max(h, m)
                for x in range(lo + 1, hi):
                    if not (w.pre[h] <= w.pre[x] < w.pre[h] + w.size[h]):
                        if hi - lo < bd:
                            bd = hi - lo
                            best = m
                        break
            if best == 0:
                break
            H[best] = H[H[best]]
            order(w, n)
        return self._build(w, n, d, ts, te)

    cdef void _delta(self, Work* w, int n) noexcept nogil:
        cdef int h, m, total
        for h in range(1, n + 1):
            total = 0
            m = h - 1
            while m >= 1:
                if w.H[m] == h:
                    total += max(w.K[m], 0)
                    w.K[m] = total
                m -= 1
            total = 0
            for m in range(h + 1, n + 1):
                if w.H[m] == h:
                    total += max(w.K[m], 0)
                    w.K[m] = total

    cdef int64_t _build(self, Work* w, int n, const unsigned char* d, const int64_t* ts,
                        const int64_t* te) noexcept nogil:
        cdef int* H = w.H
        cdef int* K = w.K
        cdef int* Z = w.Z
        cdef int idx, h, m, cur, v, nl, nr, il, ir, jl, jr, k, low, label_m, bestd, c, prev, i, level
        cdef int n_nodes = 0
        cdef Node* nd = w.nodes
        # nesting: on each side, a closer modifier attaches no later than a farther one
        for h in range(1, n + 1):
            low = -1
            for m in range(1, h):          # left side from the farthest in
                if H[m] == h:
                    if low >= 0 and K[m] > low:
                        K[m] = low
                    low = K[m]
            low = -1
            m = n
            while m > h:                   # right side from the farthest in
                if H[m] == h:
                    if low >= 0 and K[m] > low:
                        K[m] = low
                    low = K[m]
                m -= 1
        for idx in range(n - 1, -1, -1):  # dependents before heads
            h = w.order[idx]
            v = n_nodes
            n_nodes += 1
            nd[v].sym = -1
            nd[v].word = h
            nd[v].lo = h
            nd[v].hi = h
            nd[v].parent = -1
            nd[v].first_child = -1
            nd[v].next_sibling = -1
            nd[v].n_children = 0
            nd[v].head = h
            nd[v].level = 0
            nd[v].lhash = fnv1a(d + ts[h], te[h] - ts[h])
            cur = v
            # modifiers, each side from the head outwards
            nl = 0
            m = h - 1
            while m >= 1:
                if H[m] == h:
                    w.left[nl] = m
                    nl += 1
                m -= 1
            nr = 0
            for m in range(h + 1, n + 1):
                if H[m] == h:
                    w.right[nr] = m
                    nr += 1
            il = 0
            ir = 0
            level = 0
            while il < nl or ir < nr:
                k = 2147483647
                if il < nl:
                    k = K[w.left[il]]
                if ir < nr and K[w.right[ir]] < k:
                    k = K[w.right[ir]]
                level += 1
                # the class: left members il..jl-1, right members ir..jr-1
                jl = il
                while jl < nl and K[w.left[jl]] == k:
                    jl += 1
                jr = ir
                while jr < nr and K[w.right[jr]] == k:
                    jr += 1
                # label: the closest member with a phrase label, the left one on a tie
                label_m = -1
                bestd = 2147483647
                for i in range(il, jl):
                    m = w.left[i]
                    if Z[m] >= 0 and h - m < bestd:
                        bestd = h - m
                        label_m = Z[m]
                for i in range(ir, jr):
                    m = w.right[i]
                    if Z[m] >= 0 and m - h < bestd:
                        bestd = m - h
                        label_m = Z[m]
                if label_m < 0:
                    label_m = self.fallback
                v = n_nodes
                n_nodes += 1
                nd[v].sym = label_m
                nd[v].word = -1
                nd[v].parent = -1
                nd[v].next_sibling = -1
                nd[v].head = h
                nd[v].level = level
                nd[v].lhash = self.sym_hash[label_m]
                nd[v].n_children = (jl - il) + 1 + (jr - ir)
                # children in word order: left members farthest first, the spine, right members
                prev = -1
                for i in range(jl - 1, il - 1, -1):
                    c = w.psi[w.left[i]]
                    prev = link(nd, v, prev, c)
                prev = link(nd, v, prev, cur)
                for i in range(ir, jr):
                    c = w.psi[w.right[i]]
                    prev = link(nd, v, prev, c)
                nd[v].lo = nd[nd[v].first_child].lo
                nd[v].hi = nd[prev].hi
                cur = v
                il = jl
                ir = jr
            w.psi[h] = cur
        w.root = w.psi[w.order[0]]
        return n_nodes

    # ------------------------------------------------------------------ unary recovery
    cdef void _keys(self, Work* w, const unsigned char* d, int v, const int64_t* ws, const int64_t* we,
                    uint64_t* out) noexcept nogil:
        cdef Node* nd = w.nodes
        cdef uint64_t flag = 1 if nd[v].sym < 0 else 2
        cdef uint64_t L = nd[v].lhash, P = NONE_HASH, LS = NONE_HASH, RS = NONE_HASH, above, beneath
        cdef uint64_t lsw = 0, rsw = 0
        cdef int p = nd[v].parent, c, left = -1, right = -1, t
        above = combine(NONE_HASH, 3)
        if p >= 0:
            P = nd[p].lhash
            above = combine(P, 5)
            c = nd[p].first_child
            while c >= 0:
                if c == v:
                    above = combine(above, 0x2a)
                    right = nd[c].next_sibling
                else:
                    above = combine(above, nd[c].lhash)
                    if right < 0 and c != v and nd[c].next_sibling == v:
                        left = c
                c = nd[c].next_sibling
            if left >= 0:
                LS = nd[left].lhash
                if nd[left].sym < 0:
                    lsw = fnv1a(d + ws[nd[left].word], we[nd[left].word] - ws[nd[left].word])
            if right >= 0:
                RS = nd[right].lhash
                if nd[right].sym < 0:
                    rsw = fnv1a(d + ws[nd[right].word], we[nd[right].word] - ws[nd[right].word])
        if nd[v].sym < 0:
            beneath = combine(L, fnv1a(d + ws[nd[v].word], we[nd[v].word] - ws[nd[v].word]))
        else:
            beneath = combine(L, 11)
            c = nd[v].first_child
            while c >= 0:
                beneath = combine(beneath, nd[c].lhash)
                c = nd[c].next_sibling
        cdef uint64_t fw = fnv1a(d + ws[nd[v].lo], we[nd[v].lo] - ws[nd[v].lo])
        cdef uint64_t lw = fnv1a(d + ws[nd[v].hi], we[nd[v].hi] - ws[nd[v].hi])
        cdef uint64_t ft = w.tag_hash[nd[v].lo], lt = w.tag_hash[nd[v].hi]
        cdef uint64_t vals[N_TEMPLATES]
        vals[0] = L
        vals[1] = combine(L, P)
        vals[2] = combine(L, LS)
        vals[3] = combine(L, RS)
        vals[4] = above
        vals[5] = beneath
        vals[6] = fw
        vals[7] = ft
        vals[8] = lw
        vals[9] = lt
        vals[10] = combine(combine(L, ft), lt)
        vals[11] = lsw
        vals[12] = rsw
        for t in range(N_TEMPLATES):
            if (t == 11 and lsw == 0) or (t == 12 and rsw == 0):
                out[t] = 0
            else:
                out[t] = combine(combine(mix64(<uint64_t>(t + 1) * 0x9e3779b97f4a7c15ULL), flag), vals[t])
                if out[t] == 0:
                    out[t] = 1

    cdef void _predict(self, Work* w, const unsigned char* d, int n_nodes, const int64_t* ws,
                       const int64_t* we) noexcept nogil:
        cdef int v, t, c, best, C = self.n_classes
        cdef int row, w_row
        cdef uint64_t keys[N_TEMPLATES]
        cdef float* s = w.scores
        cdef float top
        cdef Node* nd = w.nodes
        for v in range(n_nodes):
            w.cls[v] = 0
            row = self.candidates.get(cand_key(nd[v].lhash, nd[v].sym < 0))
            if row < 0:
                continue           # a label never seen in training: no unary
            self._keys(w, d, v, ws, we, keys)
            for c in range(C):
                s[c] = self.bias[c]
            for t in range(N_TEMPLATES):
                if keys[t] == 0:
                    continue
                w_row = self.features.get(keys[t])
                if w_row >= 0:
                    for c in range(C):
                        s[c] += self.W[w_row, c]
            best = 0
            top = s[0]
            for c in range(1, C):
                if self.cand[row, c] and s[c] > top:
                    top = s[c]
                    best = c
            w.cls[v] = best

    cdef void _features(self, Work* w, const unsigned char* d, int n_nodes, const int64_t* ws, const int64_t* we,
                        int64_t sentence, int64_t[:, ::1] info, uint64_t[:, ::1] fkeys, int64_t at,
                        bint predicted) noexcept nogil:
        cdef int v
        cdef Node* nd = w.nodes
        for v in range(n_nodes):
            info[at + v, 0] = sentence
            info[at + v, 1] = nd[v].head
            info[at + v, 2] = nd[v].level
            info[at + v, 3] = nd[v].sym < 0
            info[at + v, 4] = <int64_t>nd[v].lhash
            info[at + v, 5] = w.cls[v] if predicted else -1
            self._keys(w, d, v, ws, we, &fkeys[at + v, 0])

    # ------------------------------------------------------------------ output
    cdef void _render(self, Work* w, const unsigned char* d, int n_nodes, Buffer out, bint wrapped,
                      bint unaries) noexcept nogil:
        cdef Node* nd = w.nodes
        cdef int sp = 0, v, c, cls, j
        cdef int* stack = w.stack
        if wrapped:
            out.put(b"( ", 2)
        stack[sp] = w.root
        sp += 1
        while sp > 0:
            sp -= 1
            v = stack[sp]
            if v < 0:                    # closing brackets: ~v of them
                for j in range(~v):
                    out.putc(b')')
                continue
            if v >= 1 << 29:             # a space before a sibling
                out.putc(b' ')
                v -= 1 << 29
            cls = w.cls[v] if unaries else 0
            if cls > 0:
                for j in range(self.chain_off[cls], self.chain_off[cls + 1]):
                    out.putc(b'(')
                    self._symbol(out, self.chain_sym[j])
                    out.putc(b' ')
            if nd[v].sym < 0:
                out.putc(b'(')
                put_escaped(out, d + w.ts[nd[v].word], w.te[nd[v].word] - w.ts[nd[v].word])
                out.putc(b' ')
                put_escaped(out, d + w.ws[nd[v].word], w.we[nd[v].word] - w.ws[nd[v].word])
                out.putc(b')')
                for j in range((self.chain_off[cls + 1] - self.chain_off[cls]) if cls > 0 else 0):
                    out.putc(b')')
            else:
                out.putc(b'(')
                self._symbol(out, nd[v].sym)
                stack[sp] = ~(1 + ((self.chain_off[cls + 1] - self.chain_off[cls]) if cls > 0 else 0))
                sp += 1
                # children pushed last first
                j = sp
                c = nd[v].first_child
                while c >= 0:
                    stack[sp] = c + (1 << 29)
                    sp += 1
                    c = nd[c].next_sibling
                reverse(stack, j, sp)
        if wrapped:
            out.putc(b')')
        out.putc(b'\n')

    cdef inline void _symbol(self, Buffer out, int s) noexcept nogil:
        out.put(self.sym_ptr + self.sym_off[s], self.sym_off[s + 1] - self.sym_off[s])


cdef void put_escaped(Buffer out, const unsigned char* s, int64_t n) noexcept nogil:
    """A word or tag as a bracketed tree holds it (``ptb_escape``): ( and ) as -LRB- and -RRB-,
    each white-space character as _."""
    cdef int64_t i = 0, run = 0
    cdef int w
    while i < n:
        if s[i] == 40 or s[i] == 41:
            out.put(<const char*>s + run, i - run)
            out.put(b"-LRB-" if s[i] == 40 else b"-RRB-", 5)
            i += 1
            run = i
            continue
        w = blank_length(s, i, n)
        if w:
            out.put(<const char*>s + run, i - run)
            out.putc(b'_')
            i += w
            run = i
            continue
        i += 1
    out.put(<const char*>s + run, n - run)


cdef void reverse(int* a, int i, int j) noexcept nogil:
    cdef int t
    j -= 1
    while i < j:
        t = a[i]
        a[i] = a[j]
        a[j] = t
        i += 1
        j -= 1


cdef int link(Node* nd, int parent, int prev, int c) noexcept nogil:
    nd[c].parent = parent
    nd[c].next_sibling = -1
    if prev < 0:
        nd[parent].first_child = c
    else:
        nd[prev].next_sibling = c
    return c


cdef Work* work_new(int64_t max_n) noexcept nogil:
    cdef Work* w = <Work*>malloc(sizeof(Work))
    if w == NULL:
        return NULL
    cdef int64_t n = max_n + 2
    w.H = <int*>malloc(sizeof(int) * n)
    w.Z = <int*>malloc(sizeof(int) * n)
    w.K = <int*>malloc(sizeof(int) * n)
    w.order = <int*>malloc(sizeof(int) * n)
    w.pre = <int*>malloc(sizeof(int) * n)
    w.size = <int*>malloc(sizeof(int) * n)
    w.kid_start = <int*>malloc(sizeof(int) * (n + 1))
    w.kid_list = <int*>malloc(sizeof(int) * n)
    w.left = <int*>malloc(sizeof(int) * n)
    w.right = <int*>malloc(sizeof(int) * n)
    w.psi = <int*>malloc(sizeof(int) * n)
    w.stack = <int*>malloc(sizeof(int) * 4 * n)
    w.cls = <int*>malloc(sizeof(int) * 2 * n)
    w.seen = <char*>malloc(n)
    w.scores = <float*>malloc(sizeof(float) * 4096)
    w.tag_hash = <uint64_t*>malloc(sizeof(uint64_t) * n)
    w.nodes = <Node*>malloc(sizeof(Node) * 2 * n)
    if (w.H == NULL or w.Z == NULL or w.K == NULL or w.order == NULL or w.pre == NULL or w.size == NULL
            or w.kid_start == NULL or w.kid_list == NULL or w.left == NULL or w.right == NULL or w.psi == NULL
            or w.stack == NULL or w.cls == NULL or w.seen == NULL or w.scores == NULL or w.tag_hash == NULL
            or w.nodes == NULL):
        work_free(w)
        return NULL
    return w


cdef void work_free(Work* w) noexcept nogil:
    if w == NULL:
        return
    free(w.H); free(w.Z); free(w.K); free(w.order); free(w.pre); free(w.size); free(w.kid_start)
    free(w.kid_list); free(w.left); free(w.right); free(w.psi); free(w.stack); free(w.cls); free(w.seen)
    free(w.scores); free(w.tag_hash); free(<void*>w.nodes)
    free(w)


cdef bint order(Work* w, int n) noexcept nogil:
    """Pre-order of the words (heads before dependents), pre-order numbers and subtree sizes;
    False when some word is not reached from the root (a cycle)."""
    cdef int m, i, sp = 0, v, cnt = 0
    for m in range(n + 2):
        w.kid_start[m] = 0
    for m in range(1, n + 1):
        w.kid_start[w.H[m] + 1] += 1
    for m in range(1, n + 2):
        w.kid_start[m] += w.kid_start[m - 1]
    for m in range(n + 1):
        w.psi[m] = w.kid_start[m]     # fill positions (psi is rebuilt later)
    for m in range(1, n + 1):
        w.kid_list[w.psi[w.H[m]]] = m
        w.psi[w.H[m]] += 1
    for m in range(n + 1):
        w.seen[m] = 0
    # iterative DFS from 0; children pushed in reverse so that they come out in word order
    for i in range(w.kid_start[1] - 1, w.kid_start[0] - 1, -1):
        w.stack[sp] = w.kid_list[i]
        sp += 1
    while sp > 0:
        sp -= 1
        v = w.stack[sp]
        w.seen[v] = 1
        w.pre[v] = cnt
        w.order[cnt] = v
        cnt += 1
        for i in range(w.kid_start[v + 1] - 1, w.kid_start[v] - 1, -1):
            w.stack[sp] = w.kid_list[i]
            sp += 1
    for m in range(1, n + 1):
        w.size[m] = 1
    for i in range(cnt - 1, -1, -1):
        v = w.order[i]
        if w.H[v] > 0:
            w.size[w.H[v]] += w.size[v]
    return cnt == n
