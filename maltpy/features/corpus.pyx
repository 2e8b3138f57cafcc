# cython: language_level=3
"""Encoded sentences (see corpus.pxd)."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t

cnp.import_array()


cdef class Corpus:
    """Flat encoded sentences; built by :func:`maltpy.parsing.encode.encode`. Sentence k owns
    rows ``offsets[k]..offsets[k+1]``, row 0 of each sentence being the root."""

    def __cinit__(self, offsets, tok, ints, multi_off, multi_ids):
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.tok = np.ascontiguousarray(tok, dtype=np.int32)
        self.ints = np.ascontiguousarray(ints, dtype=np.int32)
        self.multi_off = np.ascontiguousarray(multi_off, dtype=np.int32)
        self.multi_ids = np.ascontiguousarray(multi_ids, dtype=np.int32)
        self.n_sentences = len(self.offsets) - 1
        self.n_rows = int(self.offsets[len(self.offsets) - 1])
        self.n_tok = self.tok.shape[1]
        self.n_int = self.ints.shape[1]
        self.n_multi = self.multi_off.shape[0]
        if self.tok.shape[0] != self.n_rows or self.ints.shape[0] != self.n_rows:
            raise ValueError("corpus arrays disagree on the number of rows")
        if self.multi_off.shape[1] != self.n_rows + 1:
            raise ValueError("multi-valued offsets must have n_rows + 1 columns")
        self.off_p = <int64_t*>cnp.PyArray_DATA(self.offsets)
        self.tok_p = <int*>cnp.PyArray_DATA(self.tok)
        self.ints_p = <int*>cnp.PyArray_DATA(self.ints)
        self.multi_off_p = <int*>cnp.PyArray_DATA(self.multi_off)
        self.multi_ids_p = <int*>cnp.PyArray_DATA(self.multi_ids)
        sizes = np.diff(self.offsets)
        self.max_n = int(sizes.max()) - 1 if len(sizes) else 0
