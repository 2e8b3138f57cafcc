# cython: language_level=3
"""Encoded sentences, flat, as the feature extractor reads them (a :c:type:`Sent` per sentence)."""
from libc.stdint cimport int64_t
from maltpy.features.extract cimport Sent


cdef class Corpus:
    cdef readonly object offsets, tok, ints, multi_off, multi_ids
    cdef int64_t* off_p
    cdef int* tok_p
    cdef int* ints_p
    cdef int* multi_off_p
    cdef int* multi_ids_p
    cdef readonly int n_tok, n_int, n_multi
    cdef readonly Py_ssize_t n_rows, n_sentences
    cdef readonly int max_n

    cdef inline void sentence(self, Py_ssize_t k, Sent* sent) noexcept nogil:
        cdef int64_t r0 = self.off_p[k]
        sent.n = <int>(self.off_p[k + 1] - r0 - 1)
        sent.tok = self.tok_p + r0 * self.n_tok
        sent.ints = self.ints_p + r0 * self.n_int
        sent.multi_off = self.multi_off_p + r0
        sent.multi_stride = <int>(self.n_rows + 1)
        sent.multi_ids = self.multi_ids_p
