# cython: language_level=3
"""The compiled CoNLL reader's chunk: sentences as byte offsets into the input (scan.pyx)."""
from libc.stdint cimport int64_t

cdef enum:
    ITEM_EXTRA = 0   # a comment, multiword-token or empty-node line: written back as it is
    ITEM_WORD = 1    # a word row: written back with new HEAD and DEPREL
    ITEM_CLOSE = 2   # the end of a sentence: a blank line


cdef struct Word:
    # field k is data[f[k] : f[k + 1] - 1] for k < nf; f[nf] is one past the line's end
    int64_t f[11]
    int nf


cdef struct Item:
    int64_t start
    int64_t end      # the line's end without its newline and carriage returns
    int kind


cdef class Chunk:
    cdef object data                 # the bytes the offsets point into
    cdef const unsigned char* p
    cdef Word* words
    cdef Item* items
    cdef int64_t* sent_first         # word index of each sentence's first word, then n_words
    cdef readonly Py_ssize_t n_words, n_items, n_sentences
    cdef Py_ssize_t cap_words, cap_items, cap_sent
    cdef readonly bint final         # the last chunk: extra lines after its last sentence trail it
    cdef readonly bint drop_extra    # CoNLL-U in, CoNLL-X out: no comments or multiword lines
    cdef readonly bint conllu        # CoNLL-U: a given DEPS is rewritten as the new basic arc
    cdef readonly Py_ssize_t lines_before   # the input's lines before ``data``
    cdef public object word_lines    # None, or (sentence, word) -> the line of the file the words were made from

    cdef bint _reserve(self) noexcept nogil
    cdef bint close_sentence(self, int64_t at) noexcept nogil
    cdef Py_ssize_t _deps_room(self, Py_ssize_t max_label) noexcept nogil
    cdef Py_ssize_t _render(self, char* out, const int* heads, const int* labels, const char* lab_pool,
                            const int64_t* lab_off, Py_ssize_t n_labels) noexcept nogil
    cdef Py_ssize_t _extra(self, char* out, Py_ssize_t o, Item* it, Chunk made) noexcept nogil
    cdef Py_ssize_t _trailing_close(self) noexcept nogil
    cdef Py_ssize_t _close(self, char* out, Py_ssize_t o, Py_ssize_t i, Py_ssize_t trailing,
                           Chunk made) noexcept nogil
    cdef Py_ssize_t _render_fields(self, char* out, const int* columns, Py_ssize_t n_cols, const int64_t* starts,
                                   const int64_t* ends, Py_ssize_t stride, const char* src, Chunk made) noexcept nogil
    cdef object _fields_out(self, const int[::1] columns, const int64_t[:, ::1] starts, const int64_t[:, ::1] ends,
                            bytes pool, bint as_chunk)

    cdef inline const unsigned char* field(self, Py_ssize_t w, int k, Py_ssize_t* length) noexcept nogil:
        """Field ``k`` of word ``w``: ``_`` for the columns a short CoNLL-X line leaves out."""
        cdef Word* word = &self.words[w]
        if k >= word.nf:
            length[0] = 1
            return <const unsigned char*>b"_"
        length[0] = word.f[k + 1] - 1 - word.f[k]
        return self.p + word.f[k]
