# cython: language_level=3
"""The classes a decision chooses among (see classes.pxd)."""
cimport cython
from libc.stdlib cimport malloc, free

from maltpy.systems.state cimport MAX_MOVES


@cython.final
cdef class ClassTable:
    """Classes = unlabeled moves plus (labeled move, label) pairs."""

    def __cinit__(self, labeled_moves, int n_labels):
        self.n_moves = len(labeled_moves)
        if self.n_moves > MAX_MOVES:
            raise ValueError("too many moves")
        self.first = <int*>malloc(sizeof(int) * self.n_moves)
        self.end = <int*>malloc(sizeof(int) * self.n_moves)
        self.labeled = <bint*>malloc(sizeof(bint) * self.n_moves)
        n = 0
        for m, lab in enumerate(labeled_moves):
            self.first[m] = n
            self.labeled[m] = bool(lab)
            n += n_labels if lab else 1
            self.end[m] = n
        self.n_classes = n
        self.class_move = <int*>malloc(sizeof(int) * max(n, 1))
        self.class_label = <int*>malloc(sizeof(int) * max(n, 1))
        c = 0
        for m, lab in enumerate(labeled_moves):
            for l in range(n_labels if lab else 1):
                self.class_move[c] = m
                self.class_label[c] = l if lab else -1
                c += 1

    def __dealloc__(self):
        free(self.first)
        free(self.end)
        free(self.labeled)
        free(self.class_move)
        free(self.class_label)

    def move_and_label(self, int c):
        """Class ``c`` as (move index, label id or -1)."""
        if not 0 <= c < self.n_classes:
            raise ValueError(f"class {c} out of range (the table has {self.n_classes})")
        return self.class_move[c], self.class_label[c]
