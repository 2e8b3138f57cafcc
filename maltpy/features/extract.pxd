# cython: language_level=3
cimport cython
from libc.stdint cimport uint64_t, int64_t
from maltpy.systems.state cimport State
from maltpy.systems.base cimport TransitionSystem

cdef enum:
    # a feature key is (template << TEMPLATE_SHIFT) | value: 14 bits of template, 50 of value
    TEMPLATE_SHIFT = 50


cdef struct Sent:
    # one encoded sentence: rows 0..n, row 0 the root (all input values null)
    int n
    const int* tok        # (n+1) x n_tok symbol ids of the token columns (0 null, -1 unknown)
    const int* ints       # (n+1) x n_int integer columns (HEAD, PHEAD), -1 where _
    const int* multi_off    # offsets into multi_ids: multi-valued column q, node i at multi_off[q * multi_stride + i]
    int multi_stride
    const int* multi_ids


cdef struct AtomRec:
    # one atom as the value loop reads it: kind, argument, its node(s), its bins
    int kind
    int arg
    int a1
    int a2
    int bins_start
    int bins_len


cdef struct TplRec:
    # one template as the key loop reads it, in extraction order: one record instead of four
    # arrays found through each other
    uint64_t tbits       # the template id, in a key's top bits
    int t                # the template id
    int n                # its atoms (1 to 3)
    int atoms[3]
    int nullable         # bit k: atom k is a column value that may be one of MaltParser's null values
    int split            # its atom is a set-valued (split) column: a key per member


@cython.final
cdef class Extractor:
    cdef int n_tok, n_int
    cdef int n_addr, n_atoms, n_tpl
    cdef int* addr_base
    cdef int* addr_index
    cdef int* nav_start
    cdef int* nav_len
    cdef int* nav_ops
    cdef int* bins
    cdef int* tpl_n
    cdef int* tpl_atoms
    cdef TplRec* tpls        # the templates in MaltParser's feature order (sorted specifications)
    cdef AtomRec* atom       # the atoms, as one record each
    cdef int* deprel_value   # label id -> OutputColumn(DEPREL) value; NULL: label id + 1
    cdef int n_deprel_values
    cdef readonly int split_atom
    cdef readonly int max_keys
    cdef readonly int null_mode
    cdef readonly int root_value

    cdef void _resolve(self, TransitionSystem system, const State* s, int* nodes,
                       const unsigned char* leave_out) noexcept nogil
    cdef int64_t _atom(self, int a, const State* s, const Sent* sent, const int* nodes) noexcept nogil
    cdef int extract(self, TransitionSystem system, const State* s, const Sent* sent,
                     int* nodes, int64_t* values, uint64_t* keys) noexcept nogil
    cdef int extract_others(self, TransitionSystem system, const State* s, const Sent* sent,
                            int* nodes, int64_t* values, uint64_t* keys, const unsigned char* leave_out) noexcept nogil
    cdef int64_t split_value(self, TransitionSystem system, const State* s, const Sent* sent,
                             int* nodes) noexcept nogil
