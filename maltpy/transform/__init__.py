"""Tree transformations applied around the parser: pseudo-projective parsing (pseudoproj),
right-to-left parsing (reverse)."""
from maltpy.transform.pseudoproj import (
    MARKING_STRATEGIES, COVERED_ROOT, LIFTING_ORDERS, PseudoProjective, nonprojective_arcs,
)
from maltpy.transform.reverse import DIRECTIONS, reverse_sentence, reverse_tree

__all__ = ["MARKING_STRATEGIES", "COVERED_ROOT", "LIFTING_ORDERS", "PseudoProjective",
           "nonprojective_arcs", "DIRECTIONS", "reverse_sentence", "reverse_tree"]
