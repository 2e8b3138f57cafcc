# cython: language_level=3
"""The tagger's compiled core: feature keys of a word from its characters and the tags around
it, an averaged perceptron trained greedily left to right, and tagging with the learned weights.

Words arrive as flat arrays (no Python object per word): the code points of every form one
after another (``cps``), the same lowercased (``low``) and mapped to a shape symbol (``shp``),
word starts in those arrays (``wstart``, one more than words) and sentence starts in words
(``sstart``). Tag columns are rows of ``values`` (``[column, word]`` value ids, -1 where not
known yet). A class of a group is a tuple of column values (``class_values``), so one group
may predict one column or several jointly.

While training, the weights of a feature are a row of (class, weight) entries, which
grows as updates touch new classes; the trained model is the averaged weights as CSR rows
(``indptr``, ``classes``, ``weights``): a feature's row lists only the classes it ever voted
for, so a model of 400 joint classes stays small and scoring a word costs what its features
touched, not features × classes.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memcpy, memmove, memset
from libc.stdint cimport uint64_t, uint32_t, int32_t, int64_t, int8_t

from maltpy.features.featmap cimport FeatMap, mix64, probe_from
from maltpy.hashing cimport FNV_OFFSET, FNV_PRIME
from maltpy.simd cimport prefetch
from maltpy.features.featmap import FEATMAP_START

cnp.import_array()


cdef extern from "maltpy/scores.h":
    int maltpy_argmax_runs(const float* s, const int* lo, const int* hi, int n) nogil
    float maltpy_max_runs(const float* s, const int* lo, const int* hi, int n) nogil

cdef extern from "maltpy/tagging/rows.h":
    void maltpy_add_dense_rows(float* scores, const float* rows, const int32_t* ids, int n, int nc) nogil
    void maltpy_add_mixed_rows(float* scores, const int32_t* ids, int n, const int32_t* row_of, const float* heavy,
                               int nc, const int64_t* indptr, const int32_t* classes, const float* weights) nogil
    void maltpy_add_dense_training_row(double* scores, const float* row, int nc) nogil

#: what a template atom reads (templates.py compiles YAML templates to these)
KIND_FORM, KIND_LOWER, KIND_SUFFIX, KIND_LOWER_SUFFIX, KIND_PREFIX, KIND_LOWER_PREFIX, KIND_SHAPE, KIND_TAG, \
    KIND_LEXICON = range(1, 10)
#: (templates.py's 10 is a cluster atom, compiled to a lexicon one) the parity of a one-character
#: word among the sentence's earlier words: which of a pair of straight quotes a quote is
KIND_PARITY = 11
#: how far back the parity looks: a bound on its cost in a sentence of any length
cdef int PARITY_REACH = 256
#: atoms per template (Merge3 at most) and fields per atom (kind, argument, offset)
cdef enum:
    ATOMS = 3
MAX_ATOMS = ATOMS
#: a shape keeps at most this many repeats of one symbol ("Xxxxxxx" -> "Xxxx")
cdef int SHAPE_RUN = 3


cdef struct Words:
    const uint32_t* cps
    const uint32_t* low
    const uint32_t* shp
    const int64_t* wstart
    int32_t* values
    const int32_t* lexicon      # [column, word]: the tag set the training data gives the form, or NULL
    int64_t n_words
    # character atoms of every word, made once (predict): cache[word * n_slots + slot], the slot
    # of atom (kind, argument) at slot_of[(kind - 1) * 65 + argument]; NULL: computed each time
    const uint64_t* cache
    const int32_t* slot_of
    int n_slots


cdef inline uint64_t hash_chars(const uint32_t* c, int64_t a, int64_t b, uint64_t h) noexcept nogil:
    cdef int64_t i
    for i in range(a, b):
        h = (h ^ c[i]) * FNV_PRIME
    return h


cdef inline uint64_t hash_shape(const uint32_t* c, int64_t a, int64_t b, uint64_t h) noexcept nogil:
    cdef int64_t i
    cdef uint32_t last = 0
    cdef int run = 0
    for i in range(a, b):
        if c[i] == last:
            run += 1
            if run >= SHAPE_RUN:
                continue
        else:
            run = 0
            last = c[i]
        h = (h ^ c[i]) * FNV_PRIME
    return h


cdef inline uint64_t outside_hash(int32_t kind, bint before) noexcept nogil:
    """An atom's value for a word before or after the sentence."""
    cdef uint64_t h = FNV_OFFSET ^ (<uint64_t>kind * 0x9E3779B97F4A7C15ULL)
    return mix64(h ^ (0x5BD1E995 if before else 0x1B873593))


cdef inline int parity_of(const Words* w, int64_t k, int64_t s0) noexcept nogil:
    """For a one-character word: 1 or 2 as an even or odd number of the sentence's earlier words
    (at most PARITY_REACH back) are that character too; 0 for a longer word. Which of a pair
    of straight quotes opens and which closes, as PTB's `` and '' say."""
    cdef int64_t a = w.wstart[k], i, lo = s0 if s0 > k - PARITY_REACH else k - PARITY_REACH
    cdef int n = 0
    if w.wstart[k + 1] - a != 1:
        return 0
    for i in range(lo, k):
        if w.wstart[i + 1] - w.wstart[i] == 1 and w.cps[w.wstart[i]] == w.cps[a]:
            n += 1
    return 1 + (n & 1)


cdef inline uint64_t atom_hash(const Words* w, const int32_t* atom, int64_t j, int64_t s0, int64_t s1) noexcept nogil:
    """The value of one atom (kind, argument, offset) for word j of the sentence [s0, s1)."""
    cdef int32_t kind = atom[0], arg = atom[1]
    cdef int64_t k = j + atom[2], a, b
    cdef uint64_t h = FNV_OFFSET ^ (<uint64_t>kind * 0x9E3779B97F4A7C15ULL)
    if k < s0 or k >= s1:
        return outside_hash(kind, k < s0)
    if w.cache != NULL and kind < 8:          # a character atom made once per word (predict)
        return w.cache[k * w.n_slots + w.slot_of[(kind - 1) * 65 + (arg if arg < 65 else 64)]]
    a = w.wstart[k]
    b = w.wstart[k + 1]
    if kind == 1:
        h = hash_chars(w.cps, a, b, h)
    elif kind == 2:
        h = hash_chars(w.low, a, b, h)
    elif kind == 3 or kind == 4:
        h = hash_chars(w.cps if kind == 3 else w.low, b - arg if b - arg > a else a, b, h)
    elif kind == 5 or kind == 6:
        h = hash_chars(w.cps if kind == 5 else w.low, a, a + arg if a + arg < b else b, h)
    elif kind == 7:
        h = hash_shape(w.shp, a, b, h)
    elif kind == 8:
        h = (h ^ <uint64_t>(w.values[arg * w.n_words + k] + 2)) * FNV_PRIME
    elif kind == 11:
        h = (h ^ <uint64_t>parity_of(w, k, s0)) * FNV_PRIME
    else:
        h = (h ^ <uint64_t>((w.lexicon[arg * w.n_words + k] if w.lexicon != NULL else -1) + 2)) * FNV_PRIME
    return mix64(h)


cdef inline uint64_t template_seed(int t) noexcept nogil:
    """Where template t's keys start (its atoms' values are mixed in after)."""
    return mix64(<uint64_t>(t + 1) * 0xD6E8FEB86659FD93ULL)


cdef inline uint64_t template_key(const Words* w, const int32_t* templates, int t, int64_t j,
                                  int64_t s0, int64_t s1) noexcept nogil:
    """The feature key of template t at word j."""
    return seeded_key(w, templates, t, template_seed(t), j, s0, s1)


cdef inline uint64_t seeded_key(const Words* w, const int32_t* templates, int t, uint64_t h, int64_t j,
                                int64_t s0, int64_t s1) noexcept nogil:
    """The feature key of template t at word j, from its seed ``h`` (template_seed(t), made once
    per call by predict: a hash less per feature)."""
    cdef const int32_t* tpl = templates + t * ATOMS * 3
    cdef int a
    for a in range(ATOMS):
        if tpl[a * 3] == 0:
            break
        h = mix64(h ^ atom_hash(w, tpl + a * 3, j, s0, s1))
    return h


#: the bias feature's key
cdef uint64_t BIAS = 0x42


cdef inline int word_keys(const Words* w, const int32_t* templates, int n_templates, int64_t j,
                          int64_t s0, int64_t s1, uint64_t* keys) noexcept nogil:
    """The feature keys of word j (one per template, and the bias); returns their number."""
    cdef int t
    for t in range(n_templates):
        keys[t] = template_key(w, templates, t, j, s0, s1)
    keys[n_templates] = BIAS
    return n_templates + 1


# training weights: per feature a row of (class, weight) pairs, and beside them in the same block
# each pair's running total and stamp, which only updates and the final average read. Scoring a
# word scans the pairs alone: 8 bytes an entry instead of 24. A row that comes to vote for a
# quarter of the classes or more (the bias, the frequent suffixes and tags) turns *dense*: a
# weight per class, added to the scores in vector registers, and the running records indexed by
# class; its pairs then only keep the order in which classes came, which the averaged CSR rows
# follow. Absent classes add 0.0, which leaves every sum as the pairs would make it, so the model
# is the same to the bit (on EWT 85 % of the entries a word's scoring scans are in such rows).
cdef struct Entry:
    int32_t cls
    float w


cdef struct Running:
    double total
    int64_t stamp


cdef struct Row:
    Entry* entries             # cap pairs, then (sparse rows) cap Running records (running(row))
    float* dense               # NULL: a sparse row; else n_classes weights, then n_classes Running records
    int32_t n, cap


cdef struct Entries:
    Row* rows
    int64_t n_rows, n_entries
    int32_t n_classes          # 0: rows stay sparse
    int32_t dense_at           # a row with this many classes turns dense


cdef inline Running* running(const Row* row) noexcept nogil:
    return <Running*>(<char*>row.entries + <size_t>row.cap * sizeof(Entry))


cdef inline Running* dense_running(const Entries* e, const Row* row) noexcept nogil:
    # the weights padded to an even count: the records that follow are 8-byte aligned
    return <Running*>(row.dense + ((e.n_classes + 1) & ~1))


cdef void entries_classes(Entries* e, int32_t n_classes) noexcept nogil:
    """Let rows turn dense once they vote for a quarter of ``n_classes`` (at least 8 classes)."""
    e.n_classes = n_classes if n_classes >= 8 else 0
    e.dense_at = (n_classes + 3) // 4 if n_classes >= 8 else 0


cdef bint entries_room(Entries* e, int64_t n_features) noexcept nogil:
    """Rows for features 0 .. n_features - 1."""
    cdef int64_t cap
    cdef Row* grown
    if n_features > e.n_rows:
        cap = e.n_rows * 2 if e.n_rows * 2 > n_features else n_features + 1024
        grown = <Row*>realloc(e.rows, cap * sizeof(Row))
        if grown == NULL:
            return False
        memset(grown + e.n_rows, 0, (cap - e.n_rows) * sizeof(Row))
        e.rows = grown
        e.n_rows = cap
    return True


cdef void entries_free(Entries* e) noexcept nogil:
    cdef int64_t f
    for f in range(e.n_rows):
        free(e.rows[f].entries)
        free(e.rows[f].dense)
    free(e.rows)


cdef bint make_dense(Entries* e, Row* row) noexcept nogil:
    """Turn a sparse row dense: its weights and running records moved to their classes' places,
    the classes no update touched yet marked by a negative stamp."""
    cdef int32_t k, c, nc = e.n_classes
    cdef Running* old = running(row)
    cdef float* dense = <float*>malloc(<size_t>((nc + 1) & ~1) * sizeof(float) + <size_t>nc * sizeof(Running))
    if dense == NULL:
        return False
    row.dense = dense
    cdef Running* r = dense_running(e, row)
    memset(dense, 0, <size_t>nc * sizeof(float))
    for c in range(nc):
        r[c].total = 0
        r[c].stamp = -1
    for k in range(row.n):
        c = row.entries[k].cls
        dense[c] = row.entries[k].w
        r[c] = old[k]
    return True


cdef bint update(Entries* e, int32_t f, int32_t c, double delta, int64_t now) noexcept nogil:
    cdef Row* row = &e.rows[f]
    cdef Running* r
    cdef char* grown
    cdef int32_t k = 0, cap
    if row.dense == NULL:
        while k < row.n and row.entries[k].cls != c:
            k += 1
        if k == row.n:
            if row.n == row.cap:
                cap = row.cap * 2 if row.cap else 2
                grown = <char*>realloc(row.entries, <size_t>cap * (sizeof(Entry) + sizeof(Running)))
                if grown == NULL:
                    return False
                # the running records move up to follow the larger run of pairs
                memmove(grown + <size_t>cap * sizeof(Entry), grown + <size_t>row.cap * sizeof(Entry),
                        <size_t>row.n * sizeof(Running))
                row.entries = <Entry*>grown
                row.cap = cap
            row.entries[k].cls = c
            row.entries[k].w = 0
            r = running(row) + k
            r.total = 0
            r.stamp = now
            row.n += 1
            e.n_entries += 1
            if e.dense_at and row.n >= e.dense_at and not make_dense(e, row):
                return False
        if row.dense == NULL:
            r = running(row) + k
            r.total += row.entries[k].w * (now - r.stamp)
            r.stamp = now
            row.entries[k].w += <float>delta
            return True
    # a dense row (perhaps made just now, class c's pair among those it moved)
    r = dense_running(e, row) + c
    if r.stamp < 0:     # the class's first update: its place in the averaged row's order
        if row.n == row.cap:
            cap = row.cap * 2
            grown = <char*>realloc(row.entries, <size_t>cap * sizeof(Entry))
            if grown == NULL:
                return False
            row.entries = <Entry*>grown
            row.cap = cap
        row.entries[row.n].cls = c
        row.n += 1
        e.n_entries += 1
        r.stamp = now
    r.total += row.dense[c] * (now - r.stamp)
    r.stamp = now
    row.dense[c] += <float>delta
    return True


cdef inline int first_max(const double* s, int n) noexcept nogil:
    """The first index of the largest of s[0 .. n-1] (n >= 1): the maximum in four independent
    chains, then its first place; the same index as one strict-greater scan, in fewer cycles."""
    if n <= 1:
        return 0
    cdef double m0 = s[0], m1 = s[0], m2 = s[0], m3 = s[0]
    cdef int q = 1
    while q + 4 <= n:
        m0 = s[q] if s[q] > m0 else m0
        m1 = s[q + 1] if s[q + 1] > m1 else m1
        m2 = s[q + 2] if s[q + 2] > m2 else m2
        m3 = s[q + 3] if s[q + 3] > m3 else m3
        q += 4
    while q < n:
        m0 = s[q] if s[q] > m0 else m0
        q += 1
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    m0 = m2 if m2 > m0 else m0
    q = 0
    while q < n - 1 and s[q] != m0:    # bounded: a NaN among the scores must not run past them
        q += 1
    return q


cdef inline void set_values(Words* w, const int32_t* class_values, const int32_t* group_rows, int n_rows,
                            const int8_t* fixed, int32_t c, int64_t j) noexcept nogil:
    """Write class c's column values at word j (columns fixed by the input keep theirs)."""
    cdef int r
    cdef int64_t cell
    for r in range(n_rows):
        cell = group_rows[r] * w.n_words + j
        if fixed == NULL or not fixed[cell]:
            w.values[cell] = class_values[c * n_rows + r]


cdef inline uint64_t next_random(uint64_t* s) noexcept nogil:
    s[0] ^= s[0] << 13
    s[0] ^= s[0] >> 7
    s[0] ^= s[0] << 17
    return s[0]


cdef void point_words(Words* w, const uint32_t[::1] cps, const uint32_t[::1] low, const uint32_t[::1] shp,
                      const int64_t[::1] wstart, int32_t[:, ::1] values, const int32_t[:, ::1] lexicon):
    """Point ``w`` at the words' arrays (``values``, ``lexicon``: None where a caller reads
    neither); the atom cache is left out."""
    w.cps = &cps[0] if cps.shape[0] else NULL
    w.low = &low[0] if low.shape[0] else NULL
    w.shp = &shp[0] if shp.shape[0] else NULL
    w.wstart = &wstart[0]
    w.n_words = wstart.shape[0] - 1
    w.values = &values[0, 0] if values is not None and values.shape[1] else NULL
    w.lexicon = &lexicon[0, 0] if lexicon is not None and lexicon.shape[1] == w.n_words and w.n_words else NULL
    w.cache = NULL


def reads_own_column(const int32_t[:, :, ::1] templates, int t, own) -> bool:
    """Whether template t reads a tag column the group itself predicts (``own``: its rows): its
    features change as the group tags the words before."""
    return any(templates[t, a, 0] == KIND_TAG and int(templates[t, a, 1]) in own for a in range(ATOMS))


def train(const uint32_t[::1] cps, const uint32_t[::1] low, const uint32_t[::1] shp,
          const int64_t[::1] wstart, const int64_t[::1] sstart, int32_t[:, ::1] values,
          const int32_t[::1] gold, const int32_t[:, ::1] class_values, const int32_t[::1] group_rows,
          const int32_t[:, :, ::1] templates, int epochs, uint64_t seed, const int32_t[:, ::1] lexicon=None,
          const int32_t[::1] preset=None, bint dense_rows=True):
    """Train one group's averaged perceptron; returns (feature keys in id order, indptr, classes,
    averaged weights, correct words per epoch). ``values`` holds the gold values of every column;
    the group's own rows are overwritten with the predictions as training goes (a word's history
    features see the tagger's own earlier decisions, as they will when tagging). ``preset``: per
    word a class (>= 0) it takes unscored, as tagging gives the sure words theirs: such a word is
    no training example (no scoring, no update, no tick of the averaging clock), only the history
    of the words after it. ``dense_rows`` False keeps every weight row sparse: the same model,
    slower (for the tests that hold the two equal)."""
    cdef Py_ssize_t n_classes = class_values.shape[0], n_rows = group_rows.shape[0]
    cdef int n_templates = templates.shape[0], n_sents = sstart.shape[0] - 1
    cdef Words w
    if wstart.shape[0] != values.shape[1] + 1:
        raise ValueError("the words' starts and their tag values are of different words")
    point_words(&w, cps, low, shp, wstart, values, lexicon)
    cdef FeatMap fm = FeatMap(FEATMAP_START)
    cdef Entries e
    memset(&e, 0, sizeof(Entries))
    entries_classes(&e, <int32_t>n_classes if dense_rows else 0)
    correct_per_epoch = np.zeros(max(epochs, 0), dtype=np.int64)
    cdef int64_t[::1] correct = correct_per_epoch
    order_array = np.arange(n_sents, dtype=np.int32)
    cdef int32_t[::1] order = order_array
    cdef uint64_t* keys = <uint64_t*>malloc((n_templates + 1) * sizeof(uint64_t))
    cdef int32_t* ids = <int32_t*>malloc((n_templates + 1) * sizeof(int32_t))
    cdef double* scores = <double*>malloc((n_classes + 1) * sizeof(double))
    cdef const int32_t* tpl = &templates[0, 0, 0] if n_templates else NULL
    cdef int epoch, n_keys, q, best
    cdef int64_t s, j, now = 0, i
    cdef int32_t f, k, tmp, g
    cdef Row* row
    cdef uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 1
    cdef bint ok = keys != NULL and ids != NULL and scores != NULL
    # templates that read the group's own tags change as training goes; the others' feature ids are
    # found once (hashing them every epoch was most of the training time)
    own = {int(r) for r in group_rows}
    dynamic_list = [t for t in range(n_templates) if reads_own_column(templates, t, own)]
    static_list = [t for t in range(n_templates) if t not in dynamic_list]
    dynamic_array = np.array(dynamic_list, dtype=np.int32)
    static_array = np.array(static_list, dtype=np.int32)
    cdef int32_t[::1] dynamic = dynamic_array
    cdef int32_t[::1] static = static_array
    cdef int n_dynamic = len(dynamic_list), n_static = len(static_list), d
    static_ids_array = np.empty((w.n_words, n_static + 1), dtype=np.int32)
    cdef int32_t[:, ::1] static_ids = static_ids_array
    if preset is not None and preset.shape[0] != w.n_words:
        raise ValueError("the preset classes are not of these words")
    cdef const int32_t* pre = &preset[0] if preset is not None and preset.shape[0] else NULL
    cdef int32_t bias_id
    try:
        with nogil:
            bias_id = fm.add(BIAS)      # feature 0, every word's last static feature
            ok = ok and bias_id >= 0
            for s in range(n_sents):
                for j in range(sstart[s], sstart[s + 1]):
                    static_ids[j, n_static] = bias_id
                    if pre != NULL and pre[j] >= 0:     # never scored: the bias stands in (a valid row)
                        for d in range(n_static):
                            static_ids[j, d] = bias_id
                        continue
                    for d in range(n_static):
                        static_ids[j, d] = fm.add(template_key(&w, tpl, static[d], j, sstart[s], sstart[s + 1]))
                        ok = ok and static_ids[j, d] >= 0
            # rows for every static feature now (the dynamic ones get theirs as they come)
            ok = ok and entries_room(&e, fm.size)
            for epoch in range(epochs):
                if not ok:
                    break
                for i in range(n_sents - 1, 0, -1):   # Fisher-Yates, seeded: the same model every run
                    q = <int>(next_random(&rng) % <uint64_t>(i + 1))
                    tmp = order[i]
                    order[i] = order[q]
                    order[q] = tmp
                for i in range(n_sents):
                    s = order[i]
                    for j in range(sstart[s], sstart[s + 1]):
                        if pre != NULL and pre[j] >= 0:
                            correct[epoch] += pre[j] == gold[j]
                            set_values(&w, &class_values[0, 0], &group_rows[0], <int>n_rows, NULL, pre[j], j)
                            continue
                        now += 1
                        n_keys = n_static + 1 + n_dynamic
                        # the words ahead: their static rows two words ahead, the entries those rows
                        # point to one word ahead (a load of a row not yet in cache would stall)
                        if j + 2 < sstart[s + 1]:
                            for q in range(n_static + 1):
                                prefetch(&e.rows[static_ids[j + 2, q]])
                        if j + 1 < sstart[s + 1]:
                            for q in range(n_static + 1):
                                row = &e.rows[static_ids[j + 1, q]]
                                prefetch(row.dense if row.dense != NULL else <void*>row.entries)
                        for q in range(n_static + 1):
                            ids[q] = static_ids[j, q]
                        # the dynamic keys' slots asked for ahead of their look-ups: each is a cache miss
                        for d in range(n_dynamic):
                            keys[d] = template_key(&w, tpl, dynamic[d], j, sstart[s], sstart[s + 1])
                            prefetch(&fm.vals[mix64(keys[d]) & <uint64_t>(fm.cap - 1)])
                            prefetch(&fm.keys[mix64(keys[d]) & <uint64_t>(fm.cap - 1)])
                        for d in range(n_dynamic):
                            f = fm.add(keys[d])
                            ids[n_static + 1 + d] = f
                            if f < 0:
                                ok = False
                        if not ok or not entries_room(&e, fm.size):
                            ok = False
                            break
                        for q in range(n_classes):
                            scores[q] = 0
                        # the rows, then their entries, asked for ahead: each is a cache miss
                        for q in range(n_keys):
                            prefetch(&e.rows[ids[q]])
                        for q in range(n_keys):
                            row = &e.rows[ids[q]]
                            prefetch(row.dense if row.dense != NULL else <void*>row.entries)
                        for q in range(n_keys):
                            row = &e.rows[ids[q]]
                            if row.dense != NULL:
                                maltpy_add_dense_training_row(scores, row.dense, <int>n_classes)
                            else:
                                for k in range(row.n):
                                    scores[row.entries[k].cls] += row.entries[k].w
                        best = first_max(scores, <int>n_classes)
                        g = gold[j]
                        if best == g:
                            correct[epoch] += 1
                        else:
                            for q in range(n_keys):
                                if not (update(&e, ids[q], g, 1.0, now) and update(&e, ids[q], best, -1.0, now)):
                                    ok = False
                        set_values(&w, &class_values[0, 0], &group_rows[0], <int>n_rows, NULL, best, j)
                    if not ok:
                        break
        if not ok:
            raise MemoryError("the tagger ran out of memory while training")
        return _averaged(&e, fm, now) + (correct_per_epoch,)
    finally:
        free(keys)
        free(ids)
        free(scores)
        entries_free(&e)


cdef tuple _averaged(Entries* e, FeatMap fm, int64_t now):
    """The averaged weights as CSR rows: entries whose average is 0 dropped, and features left
    without any (most of those seen only in words tagged right) dropped with their keys, which
    makes the model smaller and its feature map faster to search."""
    cdef int64_t n_features = fm.size, f, n = 0, kept = 0, t = now if now > 0 else 1
    cdef int32_t k
    cdef double avg
    cdef Entry* x
    cdef Running* r
    cdef Row* row
    cdef float w
    all_keys = fm.keys_in_order()
    cdef uint64_t[::1] keys_in = all_keys
    keys_array = np.empty(n_features, dtype=np.uint64)
    cdef uint64_t[::1] keys_out = keys_array
    indptr_array = np.zeros(n_features + 1, dtype=np.int64)
    classes_array = np.empty(e.n_entries, dtype=np.int32)
    weights_array = np.empty(e.n_entries, dtype=np.float32)
    cdef int64_t[::1] indptr = indptr_array
    cdef int32_t[::1] classes = classes_array
    cdef float[::1] weights = weights_array
    for f in range(n_features):
        if f < e.n_rows:
            row = &e.rows[f]
            for k in range(row.n):
                x = &row.entries[k]
                if row.dense != NULL:
                    w = row.dense[x.cls]
                    r = dense_running(e, row) + x.cls
                else:
                    w = x.w
                    r = running(row) + k
                avg = (r.total + w * (now - r.stamp)) / t
                if <float>avg != 0:
                    classes[n] = x.cls
                    weights[n] = <float>avg
                    n += 1
        if n > indptr[kept]:
            keys_out[kept] = keys_in[f]
            kept += 1
            indptr[kept] = n
    return (keys_array[:kept].copy(), indptr_array[:kept + 1].copy(), classes_array[:n].copy(),
            weights_array[:n].copy())


#: memory for the per-word sums of a call's word-local templates (words beyond it are summed each time)
cdef int64_t LOCAL_SUMS_BYTES = 8 << 20


# a trained group's weights as predict reads them
cdef struct Table:
    const int32_t* tpl
    const uint64_t* seeds      # template_seed of each template
    const uint64_t* keys
    const int32_t* vals
    uint64_t mask
    const float* rows          # dense features x classes, or NULL: CSR rows
    const int32_t* row_of      # NULL: every feature's row is in rows; else its row there (-1: CSR)
    const int64_t* indptr
    const int32_t* classes
    const float* weights
    int n_classes


cdef inline void add_features(const Table* m, const Words* w, const int32_t* which, int n, int64_t j,
                              int64_t s0, int64_t s1, uint64_t* keys, int32_t* ids, float* scores) noexcept nogil:
    """Add the rows of templates ``which[:n]`` at word j to ``scores``, in that order. ``keys``:
    room for 2 n keys (the keys, then their home slots)."""
    cdef int q
    cdef int32_t f
    cdef int nc = m.n_classes
    cdef uint64_t* slots = keys + n
    for q in range(n):
        keys[q] = seeded_key(w, m.tpl, which[q], m.seeds[which[q]], j, s0, s1)
    # the word's features are independent lookups: ask for all their memory first, then read it
    # (a model's tables are megabytes, each lookup a cache miss)
    for q in range(n):
        slots[q] = mix64(keys[q]) & m.mask
        prefetch(&m.keys[slots[q]])
        prefetch(&m.vals[slots[q]])
    for q in range(n):
        ids[q] = probe_from(m.keys, m.vals, <Py_ssize_t>m.mask, keys[q], <Py_ssize_t>slots[q])
    if m.rows != NULL and m.row_of == NULL:     # dense rows: each feature's row added whole
        for q in range(n):
            if ids[q] >= 0:
                prefetch(m.rows + <int64_t>ids[q] * nc)
        maltpy_add_dense_rows(scores, m.rows, ids, n, nc)
        return
    # CSR rows (the classes each feature voted for), or the dense rows of the features that have one
    for q in range(n):
        if ids[q] >= 0:
            prefetch(&m.indptr[ids[q]])
            if m.row_of != NULL:
                prefetch(&m.row_of[ids[q]])
    for q in range(n):
        f = ids[q]
        if f >= 0:
            if m.row_of != NULL and m.row_of[f] >= 0:
                prefetch(m.rows + <int64_t>m.row_of[f] * nc)
            else:
                prefetch(&m.classes[m.indptr[f]])
                prefetch(&m.weights[m.indptr[f]])
    maltpy_add_mixed_rows(scores, ids, n, m.row_of, m.rows, nc, m.indptr, m.classes, m.weights)


cdef int64_t word_types(const Words* w, int32_t* type_of, int64_t max_types, const int32_t* rows,
                        int n_rows) noexcept nogil:
    """Number the distinct (form, values of ``rows``) of the words (by a 64-bit hash of the form's
    code points and the values) in order of first occurrence, at most ``max_types`` of them:
    type_of[word], -1 past the limit. Returns how many."""
    cdef int64_t cap = 16, j, slot, n = 0
    cdef uint64_t h
    cdef int r
    while cap < 2 * w.n_words:
        cap *= 2
    cdef uint64_t* hk = <uint64_t*>malloc(cap * sizeof(uint64_t))
    cdef int32_t* hv = <int32_t*>malloc(cap * sizeof(int32_t))
    if hk == NULL or hv == NULL:
        free(hk)
        free(hv)
        return 0
    memset(hv, 0xFF, cap * sizeof(int32_t))
    for j in range(w.n_words):
        h = hash_chars(w.cps, w.wstart[j], w.wstart[j + 1], FNV_OFFSET)
        for r in range(n_rows):
            h = mix64(h ^ <uint64_t>(w.values[rows[r] * w.n_words + j] + 2))
        h = mix64(h)
        slot = <int64_t>(h & <uint64_t>(cap - 1))
        while hv[slot] != -1 and hk[slot] != h:
            slot = (slot + 1) & (cap - 1)
        if hv[slot] == -1:
            if n >= max_types:
                continue
            hk[slot] = h
            hv[slot] = <int32_t>n
            n += 1
        type_of[j] = hv[slot]
    free(hk)
    free(hv)
    return n


def atom_kinds(template_arrays) -> np.ndarray:
    """The distinct character atoms [kind, argument, 0] that compiled templates read at a word."""
    found = sorted({(int(t[i, a, 0]), min(int(t[i, a, 1]), 64)) for t in template_arrays for i in range(t.shape[0])
                    for a in range(ATOMS) if 0 < t[i, a, 0] < 8})
    return np.array([[kind, arg, 0] for kind, arg in found], dtype=np.int32).reshape(-1, 3)


def _covers(kinds, templates) -> bool:
    """Whether the atoms ``kinds`` include every character atom of ``templates``."""
    return set(map(tuple, atom_kinds([templates]).tolist())) <= set(map(tuple, np.asarray(kinds).tolist()))


def word_atoms(const uint32_t[::1] cps, const uint32_t[::1] low, const uint32_t[::1] shp,
               const int64_t[::1] wstart, const int32_t[:, ::1] kinds, out=None):
    """Each word's character atoms (``kinds``: from :func:`atom_kinds`) hashed once: (the hashes,
    words x atoms; the slot of atom (kind, argument) at [(kind - 1) * 65 + argument]; ``kinds``).
    ``out``: a uint64 array of at least words x atoms rows to write them in (a caller's buffer
    reused chunk after chunk: a fresh array of megabytes is fresh pages the kernel zeroes)."""
    cdef Py_ssize_t n_words = wstart.shape[0] - 1, n_atoms = kinds.shape[0], j, a
    slot_array = np.zeros(7 * 65, dtype=np.int32)
    for a in range(n_atoms):
        slot_array[(kinds[a, 0] - 1) * 65 + kinds[a, 1]] = a
    if out is not None and out.dtype == np.uint64 and out.ndim == 2 and out.shape[0] >= n_words \
            and out.shape[1] == max(n_atoms, 1) and out.flags.c_contiguous:
        cache_array = out[:n_words]
    else:
        cache_array = np.empty((n_words, max(n_atoms, 1)), dtype=np.uint64)
    cdef uint64_t[:, ::1] cache = cache_array
    cdef Words w
    point_words(&w, cps, low, shp, wstart, None, None)
    with nogil:
        for j in range(n_words):
            for a in range(n_atoms):
                cache[j, a] = atom_hash(&w, &kinds[a, 0], j, 0, n_words)
    return cache_array, slot_array, np.asarray(kinds)


def predict(const uint32_t[::1] cps, const uint32_t[::1] low, const uint32_t[::1] shp,
            const int64_t[::1] wstart, const int64_t[::1] sstart, int32_t[:, ::1] values,
            const int8_t[:, ::1] fixed, FeatMap fm, const int64_t[::1] indptr, const int32_t[::1] classes,
            const float[::1] weights, const int32_t[:, ::1] class_values, const int32_t[::1] group_rows,
            const int32_t[:, :, ::1] templates, int32_t[::1] out, const int8_t[::1] skip=None,
            const int32_t[:, ::1] lexicon=None, const float[:, ::1] dense=None, int64_t cache_bytes=-1,
            const int32_t[::1] preset=None, tuple atoms=None, float[:, ::1] scores_out=None,
            const int64_t[::1] score_rows=None, const int32_t[::1] dense_of=None, bint add_scores=True):
    """Tag every word greedily left to right with one group's model: its class into ``out`` and
    its column values into ``values`` (where ``fixed`` does not keep the input's). Words that
    ``skip`` marks (the lemmatizer's dictionary words) are not scored: their class is -1. Words
    with a class in ``preset`` (>= 0: the group's sure words) get it unscored. ``atoms``: the
    words' character atoms from :func:`word_atoms` (made here when not given).
    ``dense``: the same weights as a features x classes matrix (a model of few classes), whose
    rows are added whole, in vector instructions, instead of entry by entry. ``cache_bytes``: memory
    for the per-word sums of the word-local templates (-1: the default; 0: none; the output is the
    same whatever it is). ``dense_of``: when given, ``dense`` holds the rows of some features
    only: feature f's at row dense_of[f], the others (-1) added from the CSR rows (see
    :func:`heavy_rows`). ``scores_out`` (words x classes): each scored word's class scores are
    added to its row there (row ``score_rows[j]`` for word j, when given): an ensemble adds its
    members' up; the rows of words not scored are left as they are. ``add_scores`` False writes
    the scores there instead of adding them (an ensemble's first member: no zeroing before)."""
    cdef Py_ssize_t n_classes = class_values.shape[0], n_rows = group_rows.shape[0]
    cdef int n_templates = templates.shape[0], n_sents = sstart.shape[0] - 1
    if values.shape[1] == 0 or n_classes == 0:
        return
    # checked before anything is allocated
    if scores_out is not None and (scores_out.shape[0] != values.shape[1] or scores_out.shape[1] != n_classes):
        raise ValueError("the scores' array is not words x classes")
    if score_rows is not None and (score_rows.shape[0] != values.shape[1] or (
            score_rows.shape[0] and (np.min(score_rows) < 0 or np.max(score_rows) >= values.shape[1]))):
        raise ValueError("the scores' rows are not one per word, within the words")
    cdef Words w
    if wstart.shape[0] != values.shape[1] + 1:
        raise ValueError("the words' starts and their tag values are of different words")
    point_words(&w, cps, low, shp, wstart, values, lexicon)
    # each distinct character atom of the templates, hashed once per word instead of once per
    # template that reads it (most templates share the lowercased form, suffixes and shapes); a
    # caller tagging with several groups makes them once for all of them (``atoms``)
    if atoms is None or not _covers(atoms[2], templates):
        atoms = word_atoms(cps, low, shp, wstart, atom_kinds([templates]))
    cache_array, slot_array = atoms[0], atoms[1]
    if cache_array.shape[0] != values.shape[1]:
        raise ValueError("the word atoms are not of these words")
    cdef uint64_t[:, ::1] cache_view = cache_array
    cdef int32_t[::1] slot_view = slot_array
    w.cache = &cache_view[0, 0]
    w.slot_of = &slot_view[0]
    w.n_slots = cache_array.shape[1]
    # templates that read only the word itself (its characters, the lexicon's tags of its form,
    # the tags that groups before this one gave it) give the same features wherever the word and
    # those tags recur: bias + their rows are summed once per distinct (form, tags) of the call,
    # and each word adds the other templates' rows to that sum. Every word sums in this order,
    # cached or not, so the output does not depend on what was cached.
    own = {int(r) for r in group_rows}
    # (a Parity atom at the word itself reads the words before it: not word-local)
    local_list = [tt for tt in range(n_templates) if not reads_own_column(templates, tt, own)
                  and all(templates[tt, aa, 2] == 0 and templates[tt, aa, 0] != KIND_PARITY
                          for aa in range(ATOMS) if templates[tt, aa, 0] != 0)]
    order_array = np.array(local_list + [tt for tt in range(n_templates) if tt not in local_list], dtype=np.int32)
    key_rows_array = np.array(sorted({int(templates[tt, aa, 1]) for tt in local_list for aa in range(ATOMS)
                                      if templates[tt, aa, 0] == KIND_TAG}), dtype=np.int32)
    cdef int32_t[::1] order = order_array
    cdef int32_t[::1] key_rows = key_rows_array
    cdef int n_local = len(local_list)
    if cache_bytes < 0:
        cache_bytes = LOCAL_SUMS_BYTES
    # a group whose templates are all word-local (the lemma's) gives a distinct word one class:
    # that class is kept per word type instead of the sums
    cdef bint all_local = n_local == n_templates
    cdef int64_t max_types = cache_bytes // (sizeof(int32_t) if all_local else n_classes * sizeof(float)) \
        if n_local else 0
    if all_local and scores_out is not None:
        max_types = 0     # a word type's class is cached without its scores
    type_array = np.full(values.shape[1], -1, dtype=np.int32)
    cdef int32_t[::1] type_of = type_array
    cdef int64_t n_types = 0
    if max_types > 0:
        n_types = word_types(&w, &type_of[0], max_types, &key_rows[0] if key_rows.shape[0] else NULL,
                             <int>key_rows.shape[0])
    cdef float* partial = <float*>malloc(n_types * n_classes * sizeof(float)) if n_types and not all_local else NULL
    cdef int32_t* class_of_type = <int32_t*>malloc(n_types * sizeof(int32_t)) if n_types and all_local else NULL
    cdef int8_t* filled = <int8_t*>calloc(n_types, 1) if n_types else NULL
    cdef uint64_t* keys = <uint64_t*>malloc(2 * (n_templates + 1) * sizeof(uint64_t))   # and their slots
    cdef int32_t* ids = <int32_t*>malloc((n_templates + 1) * sizeof(int32_t))
    cdef float* scores = <float*>malloc(n_classes * sizeof(float))
    cdef Table table
    table.tpl = &templates[0, 0, 0] if n_templates else NULL
    seeds_array = np.array([template_seed(tt) for tt in range(n_templates)] or [0], dtype=np.uint64)
    cdef uint64_t[::1] seeds = seeds_array
    table.seeds = &seeds[0]
    table.keys = fm.keys
    table.vals = fm.vals
    table.mask = <uint64_t>(fm.cap - 1)
    table.rows = &dense[0, 0] if dense is not None and dense.shape[0] and dense.shape[1] == n_classes \
        and (dense.shape[0] == indptr.shape[0] - 1 or dense_of is not None) else NULL
    table.row_of = NULL
    if dense_of is not None and table.rows != NULL:
        if dense_of.shape[0] != indptr.shape[0] - 1 or (dense_of.shape[0] and (
                np.max(dense_of) >= dense.shape[0] or np.min(dense_of) < -1)):
            raise ValueError("the dense rows' index is not one per feature, within the rows")
        table.row_of = &dense_of[0]
    table.indptr = &indptr[0]
    table.classes = &classes[0] if classes.shape[0] else NULL
    table.weights = &weights[0] if weights.shape[0] else NULL
    table.n_classes = <int>n_classes
    cdef const int8_t* fx = &fixed[0, 0]
    cdef int lo = 0, hi = <int>n_classes
    # the bias feature votes for every class at every word: its row is where the scores start
    cdef float* bias = <float*>calloc(n_classes, sizeof(float))
    cdef int32_t bias_id = fm.get(BIAS)
    cdef int64_t e
    if bias != NULL and bias_id >= 0:
        for e in range(indptr[bias_id], indptr[bias_id + 1]):
            bias[classes[e]] += weights[e]
    cdef const int8_t* skipped = &skip[0] if skip is not None and skip.shape[0] == values.shape[1] else NULL
    cdef const int32_t* sure = &preset[0] if preset is not None and preset.shape[0] == values.shape[1] else NULL
    cdef float* scored = &scores_out[0, 0] if scores_out is not None and values.shape[1] and n_classes else NULL
    cdef const int64_t* score_row = &score_rows[0] if score_rows is not None and score_rows.shape[0] else NULL
    cdef float* score_at
    cdef float* word_scores
    cdef Py_ssize_t c
    cdef int best
    cdef int32_t t
    cdef int64_t s, j
    if keys == NULL or scores == NULL or ids == NULL or bias == NULL or (n_types and (
            (partial == NULL and class_of_type == NULL) or filled == NULL)):
        free(keys)
        free(scores)
        free(ids)
        free(bias)
        free(partial)
        free(class_of_type)
        free(filled)
        raise MemoryError()
    with nogil:
        for s in range(n_sents):
            for j in range(sstart[s], sstart[s + 1]):
                if skipped != NULL and skipped[j]:
                    out[j] = -1
                    continue
                if sure != NULL and sure[j] >= 0 and sure[j] < n_classes:
                    out[j] = sure[j]
                    set_values(&w, &class_values[0, 0], &group_rows[0], <int>n_rows, fx, sure[j], j)
                    continue
                t = type_of[j]
                if all_local and t >= 0 and filled[t]:
                    best = class_of_type[t]
                else:
                    # a first member sums straight into its row of the ensemble's scores
                    score_at = scored + (score_row[j] if score_row != NULL else j) * n_classes \
                        if scored != NULL else NULL
                    word_scores = score_at if score_at != NULL and not add_scores else scores
                    if t >= 0 and filled[t]:
                        memcpy(word_scores, partial + <int64_t>t * n_classes, n_classes * sizeof(float))
                    else:
                        memcpy(word_scores, bias, n_classes * sizeof(float))
                        add_features(&table, &w, &order[0], n_local, j, sstart[s], sstart[s + 1], keys, ids,
                                     word_scores)
                        if t >= 0 and not all_local:
                            memcpy(partial + <int64_t>t * n_classes, word_scores, n_classes * sizeof(float))
                            filled[t] = 1
                    add_features(&table, &w, &order[0] + n_local, n_templates - n_local, j, sstart[s],
                                 sstart[s + 1], keys, ids, word_scores)
                    best = maltpy_argmax_runs(word_scores, &lo, &hi, 1)   # the first of the best, as training's
                    if score_at != NULL and add_scores:
                        for c in range(n_classes):
                            score_at[c] += scores[c]
                    if all_local and t >= 0:
                        class_of_type[t] = best
                        filled[t] = 1
                out[j] = best
                set_values(&w, &class_values[0, 0], &group_rows[0], <int>n_rows, fx, best, j)
    free(keys)
    free(ids)
    free(scores)
    free(bias)
    free(partial)
    free(class_of_type)
    free(filled)


def settle_confident(const float[:, ::1] scores, int32_t[::1] preset, float margin) -> int:
    """For each word (a row of ``scores``) whose ``preset`` class is -1: its highest-scoring class
    (the first of equal ones, as np.argmax) where that score beats every other class's by at
    least ``margin`` (> 0), written into ``preset``. An ensemble's first member so settles the
    words it is sure of and the other members score only the rest. Returns how many it settled."""
    cdef Py_ssize_t n = scores.shape[0], j
    cdef int k = <int>scores.shape[1], best
    cdef int64_t settled = 0
    cdef int whole_lo = 0, whole_hi = k
    cdef int[2] lo
    cdef int[2] hi
    cdef const float* row
    if preset.shape[0] != n:
        raise ValueError("the preset classes are not one per row of the scores")
    if not margin > 0:
        raise ValueError(f"the margin must be above 0, not {margin}")
    if k < 2:
        return 0
    with nogil:
        for j in range(n):
            if preset[j] >= 0:
                continue
            row = &scores[j, 0]
            best = maltpy_argmax_runs(row, &whole_lo, &whole_hi, 1)
            # the second best: the highest of the other classes (a tie with the best: margin 0)
            lo[0], hi[0], lo[1], hi[1] = 0, best, best + 1, k
            if row[best] - maltpy_max_runs(row, lo, hi, 2) >= margin:
                preset[j] = best
                settled += 1
    return settled


def form_hashes(const uint32_t[::1] low, const int64_t[::1] wstart):
    """Each word's lowercased form as a 64-bit key (the lexicon's keys)."""
    cdef Py_ssize_t n = wstart.shape[0] - 1, j
    out_array = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] out = out_array
    with nogil:
        for j in range(n):
            out[j] = mix64(hash_chars(&low[0] if low.shape[0] else NULL, wstart[j], wstart[j + 1], FNV_OFFSET))
    return out_array


def lexicon_classes(const uint64_t[::1] hashes, FeatMap forms, const int32_t[::1] classes):
    """The lexicon class of each word (-1 for a form the lexicon does not hold)."""
    cdef Py_ssize_t n = hashes.shape[0], j
    cdef int32_t f
    out_array = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] out = out_array
    with nogil:
        for j in range(n):
            f = forms.get(hashes[j])
            out[j] = classes[f] if f >= 0 else -1
    return out_array


def dense_rows(const int64_t[::1] indptr, const int32_t[::1] classes, const float[::1] weights, int n_classes):
    """CSR rows (``indptr`` over ``classes`` and ``weights``) as a features x ``n_classes`` float32
    matrix, zero where a feature did not vote: one pass over the entries (numpy's repeat and
    scatter took three, at every tagging start-up)."""
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, r
    cdef int64_t e
    cdef int32_t c
    cdef bint bad = False
    if n_rows < 0 or classes.shape[0] != weights.shape[0] or (n_rows and (
            indptr[0] != 0 or indptr[n_rows] != classes.shape[0])):
        raise ValueError("the weight rows are inconsistent")
    out_array = np.zeros((max(n_rows, 0), n_classes), dtype=np.float32)
    cdef float[:, ::1] out = out_array
    with nogil:
        for r in range(n_rows):
            if indptr[r + 1] < indptr[r]:
                bad = True
                break
            for e in range(indptr[r], indptr[r + 1]):
                c = classes[e]
                if c < 0 or c >= n_classes:
                    bad = True
                    break
                out[r, c] = weights[e]
            if bad:
                break
    if bad:
        raise ValueError("the weight rows are inconsistent")
    return out_array


def heavy_rows(const int64_t[::1] indptr, const int32_t[::1] classes, const float[::1] weights, int n_classes,
               int min_entries):
    """(row of each feature in the dense rows or -1, the dense rows) for the features with at least
    ``min_entries`` CSR entries: for a group of many classes, where the features that vote for
    many of them (the frequent ones) are summed faster as whole rows and the rare ones entry by
    entry (:func:`predict`'s ``dense_of``)."""
    n_features = indptr.shape[0] - 1
    counts = np.diff(np.asarray(indptr)) if n_features > 0 else np.zeros(0, np.int64)
    heavy = np.flatnonzero(counts >= max(min_entries, 1))
    row_of = np.full(max(n_features, 0), -1, dtype=np.int32)
    row_of[heavy] = np.arange(len(heavy), dtype=np.int32)
    picked = np.concatenate([[0], np.cumsum(counts[heavy])]).astype(np.int64)
    # the heavy features' entries, in order: each row's start, then the places along it
    # (no negative index: this module is compiled without wraparound)
    n_heavy = len(heavy)
    spans = np.repeat(np.asarray(indptr)[heavy] - picked[:n_heavy], counts[heavy]) + np.arange(picked[n_heavy])
    rows = dense_rows(picked, np.asarray(classes)[spans], np.asarray(weights)[spans], n_classes)
    return row_of, rows


def parity_values(const uint32_t[::1] cps, const int64_t[::1] wstart, const int64_t[::1] sstart):
    """Each word's ``Parity`` atom value (0: not one character; 1 or 2: an even or odd number of the
    same character as words before it in its sentence, at most PARITY_REACH back): exposed for
    the tests that hold it to its definition."""
    cdef Words w
    cdef Py_ssize_t s, k
    point_words(&w, cps, cps, cps, wstart, None, None)
    out_array = np.zeros(wstart.shape[0] - 1, dtype=np.int32)
    cdef int32_t[::1] out = out_array
    for s in range(sstart.shape[0] - 1):
        for k in range(sstart[s], sstart[s + 1]):
            out[k] = parity_of(&w, k, sstart[s])
    return out_array


def first_max_index(const double[::1] scores) -> int:
    """The index :func:`train` takes as its best class among ``scores`` (the first of the largest;
    0 for none): exposed for the tests that hold it to ``np.argmax``."""
    return first_max(&scores[0], <int>scores.shape[0]) if scores.shape[0] else 0


def averaged_after_updates(updates, int n_features, int64_t now, int n_classes=0):
    """The averaged CSR rows (keys, indptr, classes, weights) that :func:`train`'s weight rows give
    after ``updates``, (feature, class, delta, time) in time order with feature ids below
    ``n_features`` (whose keys are 1 .. n_features) and classes below ``n_classes`` (0: rows stay
    sparse, else they turn dense as in training), and how many rows turned dense: exposed for the
    tests that hold the rows, their growth and their running totals to a plain average."""
    cdef FeatMap fm = FeatMap(FEATMAP_START)
    cdef Entries e
    cdef int64_t f
    memset(&e, 0, sizeof(Entries))
    entries_classes(&e, n_classes)
    try:
        for f in range(n_features):
            fm.add(<uint64_t>(f + 1))
        if not entries_room(&e, n_features):
            raise MemoryError()
        for feature, cls, delta, time in updates:
            if not 0 <= feature < n_features:
                raise ValueError(f"feature {feature} is not below {n_features}")
            if n_classes and not 0 <= cls < n_classes:
                raise ValueError(f"class {cls} is not below {n_classes}")
            if not update(&e, <int32_t>feature, <int32_t>cls, <double>delta, <int64_t>time):
                raise MemoryError()
        n_dense = sum(e.rows[f].dense != NULL for f in range(n_features))
        return _averaged(&e, fm, now) + (n_dense,)
    finally:
        entries_free(&e)
