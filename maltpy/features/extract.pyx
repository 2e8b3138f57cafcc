# cython: language_level=3
"""Feature extraction in C from a compiled feature model.

The compiler (:mod:`maltpy.features.compiler`) lowers a feature model to three
flat tables:

* addresses: a system address function and offset, then navigation steps
  (head, ldep, rdep, lsib, rsib, pred, succ) applied to the partial graph;
* atoms: one value each (an input column, DEPREL, an arc direction, ...);
* templates: one, two or three atoms (Merge, Merge3) forming one feature.

Per decision every address is resolved once, every atom once, and each
template yields a 64-bit key ``(template << TEMPLATE_SHIFT) | value``; keys go to the
weight table. As in MaltParser, templates are visited in the sorted order of
their specifications (the learner numbers features by first appearance, so
the solver sees MaltParser's feature order), and a Merge/Merge3 whose parts
are all null values yields no key. Atom values: -1 = unknown symbol (feature skipped), otherwise
a non-negative id. Null values follow MaltParser's ``null_value`` (-nv):
``one`` (default) gives every kind the value 0; ``rootnode`` gives the root
:data:`ROOT_VALUE` (also a node without a label, for output columns);
``novalue`` gives the root :data:`ROOT_VALUE` and an unlabeled node
:data:`NO_VALUE`. A missing node is always 0.
"""
import numpy as np
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t, int64_t

from maltpy.systems.state cimport State, link_index, linked
from maltpy.systems.undirected cimport UD_LABEL
from maltpy.systems.base cimport TransitionSystem, Configuration
from maltpy.features.featmap cimport mix64

# Navigation step codes (order of maltpy.features.spec.NAVIGATION)
cdef enum:
    NAV_HEAD = 0
    NAV_LDEP = 1
    NAV_RDEP = 2
    NAV_LSIB = 3
    NAV_RSIB = 4
    NAV_PRED = 5
    NAV_SUCC = 6
    NAV_LCDEP = 7
    NAV_RCDEP = 8
    NAV_THEAD = 9

# Atom kinds (mirrored in compiler.py)
cdef enum:
    A_INPUT = 0
    A_DEPREL = 1
    A_INPUT_ARC = 2
    A_INPUT_ARC_DIR = 3
    A_EXISTS = 4
    A_DISTANCE = 5
    A_NUMOF = 6
    A_SPLIT = 7
    A_OUTPUT_ARC = 8
    A_LINKED = 9
    A_LINK_LABEL = 10
    A_LABEL_SET = 11

cdef int MAX_SET = 64


cdef inline int link_label(const State* s, int x, int y) noexcept nogil:
    """The label of the arc (either way) or undirected link between x and y, -1 if none."""
    cdef int k
    if s.n_links:
        if s.thead[x] == y:     # label-based links: the link that makes y x's head
            return s.thead_label[x]
        k = link_index(s, x, y)
        return s.link_label[k] if k != -1 else -1
    if s.heads[x] == y:
        return s.labels[x]
    if s.heads[y] == x:
        return s.labels[y]
    return -1
#: null-value ids above every symbol id (the symbol tables count from 1)
ROOT_VALUE = 1 << 30
#: a feature key's template is key >> KEY_TEMPLATE_SHIFT (Python's view of TEMPLATE_SHIFT)
KEY_TEMPLATE_SHIFT = TEMPLATE_SHIFT
NO_VALUE = (1 << 30) + 1
NULL_MODES = {"one": 0, "rootnode": 1, "novalue": 2}
cdef int64_t C_ROOT_VALUE = 1 << 30
cdef int64_t C_NO_VALUE = (1 << 30) + 1
cdef uint64_t LOW48 = (<uint64_t>1 << 48) - 1
cdef uint64_t HASHED = <uint64_t>1 << 49


cdef inline int64_t label_set(const State* s, int x, int side) noexcept nogil:
    """The set of labels of x's left (side 0), right (1) or all (2) dependents, as one value:
    1 for the empty set, else a 29-bit hash of the set's bitmask (labels modulo 64) plus 2."""
    cdef uint64_t mask = 0
    cdef int k, lo = x, hi = x
    if side != 1 and s.ldep[x] >= 0:
        lo = s.ldep[x]
    if side != 0 and s.rdep[x] >= 0:
        hi = s.rdep[x]
    for k in range(lo, hi + 1):
        if k != x and s.heads[k] == x and s.labels[k] >= 0:
            mask |= (<uint64_t>1) << (s.labels[k] & 63)
    if mask == 0:
        return 1
    return 2 + <int64_t>(mix64(mask) & ((1 << 29) - 1))


cdef inline int undirected_sibling(const State* s, int p, bint left) noexcept nogil:
    """The papers' undirected siblings: the nearest q < p linked, like p, to some r > p (left),
    or the nearest q > p linked, like p, to some r < p (right); -1 if none."""
    cdef int best = -1, k, r, j, q
    k = s.link_first[p]
    while k != -1:
        r = s.link_to[k]
        if (left and r > p) or (not left and r < p):
            j = s.link_first[r]
            while j != -1:
                q = s.link_to[j]
                if left and q < p and q > best:
                    best = q
                elif not left and q > p and (best == -1 or q < best):
                    best = q
                j = s.link_next[j]
        k = s.link_next[k]
    return best


cdef inline int tentative_head(const State* s, int x, bint label_links) noexcept nogil:
    """``thead(x)``. With label-based links: the node linked to x that the link's label (``_l``:
    the head is the right node, ``_r``: the left one) makes x's head, the closest one (the left
    one on a tie), -1 if none; ``add_link`` keeps it. Otherwise ``head(x)``: the head on a
    directed parse, the closest linked node with naive links, which have no direction."""
    return s.thead[x] if label_links else s.heads[x]


cdef inline int navigate(const State* s, int node, int op, bint label_links) noexcept nogil:
    cdef int h, k
    if node < 0:
        return -1
    if op == NAV_THEAD:
        return tentative_head(s, node, label_links)
    if s.n_links and (op == NAV_LSIB or op == NAV_RSIB):
        return undirected_sibling(s, node, op == NAV_LSIB)
    if op == NAV_HEAD:
        return s.heads[node]
    if op == NAV_LDEP:
        return s.ldep[node]
    if op == NAV_RDEP:
        return s.rdep[node]
    if op == NAV_LCDEP:     # the closest left dependent: scan back to the leftmost one
        k = node - 1
        while k >= s.ldep[node] >= 0:
            if s.heads[k] == node:
                return k
            k -= 1
        return -1
    if op == NAV_RCDEP:     # the closest right dependent
        k = node + 1
        while 0 <= k <= s.rdep[node]:
            if s.heads[k] == node:
                return k
            k += 1
        return -1
    if op == NAV_PRED:
        return node - 1 if node > 1 else -1
    if op == NAV_SUCC:
        return node + 1 if 1 <= node < s.n else -1
    h = s.heads[node] if node > 0 else -1
    if h < 0:
        return -1
    if op == NAV_LSIB:
        k = node - 1
        while k > (h if node > h else 0):
            if s.heads[k] == h:
                return k
            k -= 1
        return -1
    if op == NAV_RSIB:
        k = node + 1
        while k < (h if node < h else s.n + 1):
            if s.heads[k] == h:
                return k
            k += 1
        return -1
    return -1


cdef inline int64_t binned(int value, const int* bins, int n_bins) noexcept nogil:
    cdef int k = n_bins - 1
    while k > 0 and bins[k] > value:
        k -= 1
    return k + 1


cdef inline bint is_null_value(int64_t v) noexcept nogil:
    """Whether an input or output column's value is one of MaltParser's null values (no node,
    the root, or a node without a value); :class:`TplRec`'s ``nullable`` says which parts are
    such columns."""
    return v == 0 or v == C_ROOT_VALUE or v == C_NO_VALUE


cdef inline uint64_t merge_values(const int64_t* v, int n) noexcept nogil:
    """Exact packing while ids are small, otherwise a 48-bit hash marked by bit 49."""
    if n == 1:
        return <uint64_t>v[0]
    if n == 2:
        if v[0] < (1 << 24) and v[1] < (1 << 24):
            return (<uint64_t>v[0] << 24) | <uint64_t>v[1]
        return (mix64(<uint64_t>v[0] * <uint64_t>0x9E3779B97F4A7C15 ^ <uint64_t>v[1]) & LOW48) | HASHED
    if v[0] < (1 << 16) and v[1] < (1 << 16) and v[2] < (1 << 16):
        return (<uint64_t>v[0] << 32) | (<uint64_t>v[1] << 16) | <uint64_t>v[2]
    return (mix64(mix64(<uint64_t>v[0] * <uint64_t>0x9E3779B97F4A7C15 ^ <uint64_t>v[1])
                  ^ <uint64_t>v[2]) & LOW48) | HASHED


cdef int* _copy(arr) except NULL:
    a = np.ascontiguousarray(arr, dtype=np.int32).ravel()
    cdef int* out = <int*>malloc(sizeof(int) * max(len(a), 1))
    if out == NULL:
        raise MemoryError()
    cdef int[::1] v
    if len(a):
        v = a
        for i in range(len(a)):
            out[i] = v[i]
    return out


cdef class Extractor:
    """Compiled feature model. Build it with :func:`maltpy.features.compiler.compile_model`."""

    def __cinit__(self, *args, **kwargs):
        self.addr_base = NULL
        self.tpls = NULL
        self.atom = NULL
        self.deprel_value = NULL
        self.n_deprel_values = 0

    def __init__(self, dict tables, int n_tok, int n_int, int split_atom, str null_value="one"):
        """``tables``: int32 arrays addr (A x 4), nav_ops, atoms (K x 6), bins, templates (T x 4), order (T);
        ``null_value``: MaltParser's -nv (one, rootnode, novalue)."""
        if null_value not in NULL_MODES:
            raise ValueError(f"null_value must be one of {', '.join(NULL_MODES)}; got {null_value!r}")
        self.null_mode = NULL_MODES[null_value]
        # the encoder writes this into the root row of every input column
        self.root_value = 0 if self.null_mode == 0 else C_ROOT_VALUE
        addr = np.asarray(tables["addr"], dtype=np.int32).reshape(-1, 4)
        atoms = np.asarray(tables["atoms"], dtype=np.int32).reshape(-1, 6)
        tpl = np.asarray(tables["templates"], dtype=np.int32).reshape(-1, 4)
        self.n_tok, self.n_int = n_tok, n_int
        self.n_addr, self.n_atoms, self.n_tpl = len(addr), len(atoms), len(tpl)
        self.addr_base = _copy(addr[:, 0])
        self.addr_index = _copy(addr[:, 1])
        self.nav_start = _copy(addr[:, 2])
        self.nav_len = _copy(addr[:, 3])
        self.nav_ops = _copy(tables["nav_ops"])
        self.bins = _copy(tables["bins"])
        self.tpl_n = _copy(tpl[:, 0])
        self.tpl_atoms = _copy(tpl[:, 1:])
        order = np.asarray(tables["order"], dtype=np.int32)
        self.tpls = <TplRec*>malloc(sizeof(TplRec) * max(self.n_tpl, 1))
        self.atom = <AtomRec*>malloc(sizeof(AtomRec) * max(self.n_atoms, 1))
        if self.tpls == NULL or self.atom == NULL:
            raise MemoryError()
        cdef int ti, t, k, a
        for a in range(self.n_atoms):
            self.atom[a].kind, self.atom[a].arg, self.atom[a].a1, self.atom[a].a2 = atoms[a, :4]
            self.atom[a].bins_start, self.atom[a].bins_len = atoms[a, 4:]
        for ti in range(self.n_tpl):
            t = order[ti]
            self.tpls[ti].t = t
            self.tpls[ti].tbits = <uint64_t>t << TEMPLATE_SHIFT
            self.tpls[ti].n = self.tpl_n[t]
            self.tpls[ti].nullable = 0
            for k in range(3):
                a = self.tpl_atoms[3 * t + k]
                self.tpls[ti].atoms[k] = a
                if k < self.tpl_n[t] and (self.atom[a].kind == A_INPUT or self.atom[a].kind == A_DEPREL):
                    self.tpls[ti].nullable |= 1 << k
            self.tpls[ti].split = self.atom[self.tpl_atoms[3 * t]].kind == A_SPLIT
        self.split_atom = split_atom
        n_set = sum(1 for t in tpl if atoms[t[1], 0] == A_SPLIT)
        self.max_keys = self.n_tpl + n_set * MAX_SET
        if self.n_tpl >= (1 << 13):
            raise ValueError("a feature model may have at most 8191 features")

    def set_deprel_values(self, values):
        """OutputColumn(DEPREL) values by label id (all >= 1), or None for label id + 1.

        Pseudo-projective parsing gives its encoded labels (``obj|xcomp``) the value of the
        plain label (``obj``): MaltParser keeps the marks in columns of their own, which
        DEPREL features do not see."""
        free(self.deprel_value)
        self.deprel_value = NULL
        self.n_deprel_values = 0
        if values is None:
            return
        arr = np.asarray(values, dtype=np.int32)
        if arr.ndim != 1 or (len(arr) and (arr.min() < 1 or arr.max() >= C_ROOT_VALUE)):
            raise ValueError("DEPREL feature values must be a vector of integers from 1 to 2**30 - 1")
        self.deprel_value = _copy(arr)
        self.n_deprel_values = len(arr)

    def __dealloc__(self):
        free(self.deprel_value)
        if self.addr_base == NULL:
            return
        for p in (<size_t>self.addr_base, <size_t>self.addr_index, <size_t>self.nav_start,
                  <size_t>self.nav_len, <size_t>self.nav_ops, <size_t>self.bins,
                  <size_t>self.tpl_n, <size_t>self.tpl_atoms, <size_t>self.tpls, <size_t>self.atom):
            free(<void*>p)

    cdef void _resolve(self, TransitionSystem system, const State* s, int* nodes,
                       const unsigned char* leave_out) noexcept nogil:
        cdef int a, k, node
        cdef bint label_links = system.undirected == UD_LABEL
        for a in range(self.n_addr):
            if leave_out != NULL and leave_out[a]:
                continue
            node = system.address(s, self.addr_base[a], self.addr_index[a])
            for k in range(self.nav_len[a]):
                node = navigate(s, node, self.nav_ops[self.nav_start[a] + k], label_links)
            nodes[a] = node

    cdef int64_t _atom(self, int a, const State* s, const Sent* sent, const int* nodes) noexcept nogil:
        cdef const AtomRec* A = &self.atom[a]
        cdef int kind = A.kind
        cdef int arg = A.arg
        cdef int x = nodes[A.a1]
        cdef int y, hx, hy, lab, count
        if kind == A_INPUT:
            return sent.tok[x * self.n_tok + arg] if x >= 0 else 0
        if kind == A_DEPREL:
            if x < 0:
                return 0
            if x == 0:
                return self.root_value
            lab = s.labels[x]
            if lab >= 0:
                if lab < self.n_deprel_values:
                    return self.deprel_value[lab]
                return lab + 1
            return C_NO_VALUE if self.null_mode == 2 else self.root_value
        if kind == A_EXISTS:
            return 2 if x >= 0 else 1
        if kind == A_INPUT_ARC_DIR:
            if x < 0:
                return 0
            hx = sent.ints[x * self.n_int + arg]
            if hx < 0:
                return 0
            return 3 if hx == 0 else (1 if hx < x else 2)
        if kind == A_LABEL_SET:
            if x < 0:
                return 0
            return label_set(s, x, arg)
        if kind == A_NUMOF:
            if x < 0:
                return 0
            count = s.n_ldeps[x] if arg == 0 else (s.n_rdeps[x] if arg == 1 else s.n_ldeps[x] + s.n_rdeps[x])
            return binned(count, self.bins + A.bins_start, A.bins_len)
        y = nodes[A.a2]
        if x < 0 or y < 0:
            return 0
        if kind == A_DISTANCE:
            return binned(x - y if x > y else y - x, self.bins + A.bins_start, A.bins_len)
        if kind == A_LINKED:
            if s.n_links:
                return 2 if linked(s, x, y) else 1
            return 2 if (s.heads[x] == y or s.heads[y] == x) else 1
        if kind == A_LINK_LABEL:
            lab = link_label(s, x, y)
            if lab < 0:
                return 0
            return self.deprel_value[lab] if lab < self.n_deprel_values else lab + 1
        if kind == A_OUTPUT_ARC:
            if s.n_links:      # undirected links have no direction: linked or not
                return 1 if linked(s, x, y) else 3
            hx = s.heads[x]
            hy = s.heads[y]
            if hx == y:
                return 1 if x < y else 2
            if hy == x:
                return 1 if y < x else 2
            return 3
        if kind == A_INPUT_ARC:
            hx = sent.ints[x * self.n_int + arg]
            hy = sent.ints[y * self.n_int + arg]
            if hx == y and x > 0:
                return 1 if x < y else 2
            if hy == x and y > 0:
                return 1 if y < x else 2
            return 3
        return 0

    cdef int extract(self, TransitionSystem system, const State* s, const Sent* sent,
                     int* nodes, int64_t* values, uint64_t* keys) noexcept nogil:
        """Write this decision's feature keys; return how many. ``nodes`` and
        ``values`` are scratch arrays of n_addr and n_atoms entries."""
        return self.extract_others(system, s, sent, nodes, values, keys, NULL)

    cdef int extract_others(self, TransitionSystem system, const State* s, const Sent* sent,
                            int* nodes, int64_t* values, uint64_t* keys, const unsigned char* leave_out) noexcept nogil:
        """:meth:`extract` without the addresses, atoms and templates that ``leave_out`` marks
        (the layout of :meth:`stable_parts`; NULL: nothing left out)."""
        cdef int a, t, ti, k, m, n_keys = 0, x, q, lo, hi, n_null
        cdef int64_t v[3]
        cdef bint skip
        cdef const unsigned char* out_atom = leave_out + self.n_addr if leave_out != NULL else NULL
        cdef const unsigned char* out_tpl = out_atom + self.n_atoms if leave_out != NULL else NULL
        cdef const AtomRec* A
        self._resolve(system, s, nodes, leave_out)
        for a in range(self.n_atoms):
            A = &self.atom[a]
            if out_atom != NULL and out_atom[a]:
                continue
            if A.kind == A_INPUT:       # most atoms: a token column (the call costs more)
                x = nodes[A.a1]
                values[a] = sent.tok[x * self.n_tok + A.arg] if x >= 0 else 0
            elif A.kind != A_SPLIT:
                values[a] = self._atom(a, s, sent, nodes)
        cdef const TplRec* T
        for ti in range(self.n_tpl):
            T = &self.tpls[ti]
            if out_tpl != NULL and out_tpl[T.t]:
                continue
            if T.split:
                a = T.atoms[0]
                x = nodes[self.atom[a].a1]
                if x <= 0:  # no node, or the root: a null value, not an empty set
                    keys[n_keys] = T.tbits | <uint64_t>(self.root_value if x == 0 else 0)
                    n_keys += 1
                    continue
                q = self.atom[a].arg
                lo = sent.multi_off[q * sent.multi_stride + x]
                hi = sent.multi_off[q * sent.multi_stride + x + 1]
                if hi - lo > MAX_SET:
                    hi = lo + MAX_SET
                for k in range(lo, hi):
                    if sent.multi_ids[k] >= 0:
                        keys[n_keys] = T.tbits | <uint64_t>sent.multi_ids[k]
                        n_keys += 1
                continue
            m = T.n
            skip = False
            n_null = 0
            for k in range(m):
                v[k] = values[T.atoms[k]]
                if v[k] < 0:
                    skip = True
                elif m > 1 and (T.nullable >> k) & 1 and is_null_value(v[k]):
                    n_null += 1
            # MaltParser leaves a Merge/Merge3 feature out (value 0) when every part is a
            # null value, in training and in parsing alike
            if not skip and (m == 1 or n_null < m):
                keys[n_keys] = T.tbits | merge_values(v, m)
                n_keys += 1
        return n_keys

    cdef int64_t split_value(self, TransitionSystem system, const State* s, const Sent* sent,
                             int* nodes) noexcept nogil:
        """Value of the data-split feature (after :meth:`extract` resolved the addresses)."""
        return self._atom(self.split_atom, s, sent, nodes)

    def _templates_reading_only(self, fn_names, TransitionSystem system):
        """Per template: whether every node it reads comes from one of the address functions
        ``fn_names`` of ``system`` (False for all when there are none); and the nodes of each
        atom."""
        fns = type(system).address_functions
        wanted = {fns.index(f) for f in fn_names}
        two_nodes = (A_INPUT_ARC, A_OUTPUT_ARC, A_LINKED, A_LINK_LABEL, A_DISTANCE)
        cdef int t, k, a
        atom_nodes = [[self.atom[a].a1] + ([self.atom[a].a2] if self.atom[a].kind in two_nodes else [])
                      for a in range(self.n_atoms)]
        tpl_atoms = [[self.tpl_atoms[3 * t + k] for k in range(self.tpl_n[t])] for t in range(self.n_tpl)]
        only = [bool(wanted) and all(self.addr_base[x] in wanted for a in atoms for x in atom_nodes[a])
                for atoms in tpl_atoms]
        return only, tpl_atoms, atom_nodes

    def stable_parts(self, TransitionSystem system):
        """What stays the same while ``system``'s context does and no arc is added: one uint8
        array of n_addr + n_atoms + n_tpl flags. The last n_tpl (by template, the index in a
        key's top bits) mark the templates that read only nodes of the system's
        ``stable_address_functions``; the first n_addr + n_atoms mark the addresses and atoms
        only those templates use (the data-split feature's address excepted), which
        :meth:`extract_others` leaves out."""
        stable_tpl, tpl_atoms, atom_nodes = self._templates_reading_only(
            type(system).stable_address_functions, system)
        atom_needed = [False] * self.n_atoms
        for t in range(self.n_tpl):
            if not stable_tpl[t]:
                for a in tpl_atoms[t]:
                    atom_needed[a] = True
        addr_needed = [False] * self.n_addr
        for a in range(self.n_atoms):
            if atom_needed[a] or a == self.split_atom:
                for x in atom_nodes[a]:
                    addr_needed[x] = True
        return np.array([not x for x in addr_needed] + [not x for x in atom_needed] + stable_tpl, dtype=np.uint8)

    def cached_templates(self, TransitionSystem system):
        """uint8 per template (the index in a key's top bits): g + 1 for the templates that read
        only nodes of the g-th of the system's ``cached_address_functions`` (a name or a tuple of
        names; the first entry that fits) and none of its stable ones, whose scores the parse
        loop remembers per :meth:`TransitionSystem.cache_node`; 0 for the others."""
        stable = self._templates_reading_only(type(system).stable_address_functions, system)[0]
        marks = [0] * len(stable)
        for g, fn in enumerate(type(system).cached_address_functions):
            cached = self._templates_reading_only(fn if isinstance(fn, tuple) else (fn,), system)[0]
            marks = [m or (g + 1 if c and not st else 0) for m, c, st in zip(marks, cached, stable)]
        return np.array(marks, dtype=np.uint8)

    def keys(self, Configuration config, tok, ints=None):
        """Feature keys and data-split value at a configuration, as the C loops see them (tests).

        ``tok``/``ints`` as for :meth:`inspect`.
        """
        cdef _SentView view = _SentView(config.state.n, tok, ints, self.n_int)
        nodes = np.zeros(self.n_addr + 1, dtype=np.int32)
        values = np.zeros(self.n_atoms + 1, dtype=np.int64)
        out = np.zeros(self.max_keys + 1, dtype=np.uint64)
        cdef int[::1] nv = nodes
        cdef int64_t[::1] vv = values
        cdef uint64_t[::1] ov = out
        cdef int nk = self.extract(config.system, &config.state, &view.sent, &nv[0], &vv[0], &ov[0])
        split = int(self.split_value(config.system, &config.state, &view.sent, &nv[0])) \
            if self.split_atom >= 0 else 0
        return out[:nk].copy(), split

    def inspect(self, Configuration config, tok, ints=None):
        """Resolved address nodes and atom values at a configuration (tests, debugging).

        ``tok``: (n+1) x n_tok int32 token ids for the configuration's sentence;
        ``ints``: (n+1) x n_int integer columns (default: all ``_``). No FEATS-style
        (set-valued) columns. Split atoms are reported as 0.
        """
        cdef _SentView view = _SentView(config.state.n, tok, ints, self.n_int)
        nodes = np.zeros(self.n_addr + 1, dtype=np.int32)
        cdef int[::1] nv = nodes
        self._resolve(config.system, &config.state, &nv[0], NULL)
        values = [int(self._atom(a, &config.state, &view.sent, &nv[0])) if self.atom[a].kind != A_SPLIT else 0
                  for a in range(self.n_atoms)]
        return nodes[:self.n_addr].tolist(), values


cdef class _SentView:
    """A :c:type:`Sent` over arrays given from Python (tests and debugging; empty set-valued columns)."""
    cdef Sent sent
    cdef object _arrays

    def __cinit__(self, int n, tok, ints, int n_int):
        t = np.ascontiguousarray(tok, dtype=np.int32)
        i = np.ascontiguousarray(ints if ints is not None else np.full((n + 1, n_int), -1), dtype=np.int32)
        if t.ndim != 2 or t.shape[0] != n + 1 or i.ndim != 2 or i.shape[0] != n + 1:
            raise ValueError("token arrays must have n+1 rows")
        empty = np.zeros(n + 2, dtype=np.int32)
        self._arrays = (t, i, empty)
        cdef int[:, ::1] tv = t
        cdef int[:, ::1] iv = i
        cdef int[::1] ev = empty
        self.sent.n = n
        self.sent.tok = &tv[0, 0]
        self.sent.ints = &iv[0, 0]
        self.sent.multi_off = &ev[0]
        self.sent.multi_stride = 0
        self.sent.multi_ids = &ev[0]
