# cython: language_level=3
"""The classes a decision chooses among: a system's unlabeled moves, and its labeled moves each
with every label."""
cimport cython


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
