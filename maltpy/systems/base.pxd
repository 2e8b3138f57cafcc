# cython: language_level=3
from maltpy.systems.state cimport State, Gold, add_link
from maltpy.systems.undirected cimport UD_LABEL


cdef class TransitionSystem:
    """Interface every transition system implements; see base.pyx for the contract."""
    cdef readonly int n_moves
    cdef readonly int n_labels
    cdef readonly int root_label
    cdef readonly dict settings
    cdef readonly tuple moves       # this instance's move names (options may add moves)
    cdef readonly tuple labeled     # whether each move takes a label
    cdef readonly int undirected    # undirected parsing (-ud): 0 none, 1 naive, 2 label-based
    # what a copy of a configuration must carry (state_copy_parts; reads_union_find, reads_arc_log)
    cdef readonly bint copy_links_and_union_find, copy_arc_log
    cdef object _label_dir          # label-based: each label's direction (undirected.pxd DIR_*)
    cdef const int* label_dir
    cdef int n_label_dir

    cdef void init_state(self, State* s) noexcept nogil
    cdef bint is_terminal(self, const State* s) noexcept nogil
    cdef int valid_moves(self, const State* s, bint* out) noexcept nogil
    cdef int apply(self, State* s, int move, int label) noexcept nogil
    cdef void prepare_gold(self, Gold* g, int n) noexcept nogil
    cdef int oracle(self, const State* s, const Gold* g, int* label) noexcept nogil
    cdef bint move_costs(self, const State* s, const Gold* g, int* cost, int* zero_label) noexcept nogil
    cdef int deterministic_move(self, const State* s) noexcept nogil
    cdef int address(self, const State* s, int fn, int i) noexcept nogil
    cdef int context(self, const State* s) noexcept nogil
    cdef int cache_node(self, const State* s, int group) noexcept nogil
    cdef void finish(self, State* s) noexcept nogil

    cdef inline int link(self, State* s, int a, int b, int label) noexcept nogil:
        """An undirected system's ARC: ``add_link``, with the labels' directions when the
        links are label-based (they keep ``thead``); returns b."""
        return add_link(s, a, b, label, self.label_dir if self.undirected == UD_LABEL else NULL, self.n_label_dir)


cdef bint gold_alloc(Gold* g, const int* heads, const int* labels, int n) noexcept nogil
cdef void gold_free(Gold* g) noexcept nogil


cdef class Configuration:
    cdef State state
    cdef TransitionSystem system
    cdef Gold gold
    cdef object _gold_arrays
