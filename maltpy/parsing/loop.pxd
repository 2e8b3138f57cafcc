# cython: language_level=3
"""Declarations shared by the parse loops (loop.pyx: one decision at a time; kernel.pyx: batched)."""
cimport cython
from libc.stdint cimport int64_t
from maltpy.systems.state cimport State
from maltpy.features.extract cimport Sent

cdef enum:
    MAX_MOVES = 64


@cython.final
cdef class ClassTable:
    cdef readonly int n_classes
    cdef int* first
    cdef int* end          # classes of move m are first[m] .. end[m]-1
    cdef bint* labeled
    cdef int* class_move
    cdef int* class_label
    cdef int n_moves

    cdef inline int class_of(self, int move, int label) noexcept nogil:
        return self.first[move] + (label if self.labeled[move] else 0)


cdef class SplitModels:
    """Base of the per-split scoring tables: which model scores a data-split value."""
    cdef int n_splits
    cdef int* split_map
    cdef int split_map_len
    cdef int default_split
    cdef object _split_map_array

    cdef set_split_map(self, split_map, int default_split)

    cdef inline int split_of(self, int64_t value) noexcept nogil:
        if 0 <= value < self.split_map_len:
            return self.split_map[value]
        return self.default_split


cdef class Corpus:
    cdef readonly object offsets, tok, ints, rag_off, rag_ids
    cdef int64_t* off_p
    cdef int* tok_p
    cdef int* ints_p
    cdef int* rag_off_p
    cdef int* rag_ids_p
    cdef readonly int n_tok, n_int, n_rag
    cdef readonly Py_ssize_t n_rows, n_sentences
    cdef int max_n

    cdef inline void sentence(self, Py_ssize_t k, Sent* sent) noexcept nogil:
        cdef int64_t r0 = self.off_p[k]
        sent.n = <int>(self.off_p[k + 1] - r0 - 1)
        sent.tok = self.tok_p + r0 * self.n_tok
        sent.ints = self.ints_p + r0 * self.n_int
        sent.rag_off = self.rag_off_p + r0
        sent.rag_stride = <int>(self.n_rows + 1)
        sent.rag_ids = self.rag_ids_p


cdef inline int forced_move(ClassTable classes, const bint* mask, int n_valid) noexcept nogil:
    """The move to apply without asking the classifier: the only permissible one, if unlabeled."""
    cdef int m = 0
    if n_valid != 1:
        return -1
    while not mask[m]:
        m += 1
    return -1 if classes.labeled[m] else m


cdef inline void record_stack(const State* s, signed char* out) noexcept nogil:
    """Mark the words on the stack: 1 without a head (left fragmented), 2 with one."""
    cdef int i, w
    for i in range(s.stack_len):
        w = s.stack[i]
        if w > 0:
            out[w] = 1 if s.heads[w] == -1 else 2
