"""Tree transformations applied around the parser (pseudo-projective parsing)."""
from maltpy.transform.pseudoproj import (
    MARKING_STRATEGIES, COVERED_ROOT, LIFTING_ORDERS, PseudoProjective, nonprojective_arcs,
)

__all__ = ["MARKING_STRATEGIES", "COVERED_ROOT", "LIFTING_ORDERS", "PseudoProjective",
           "nonprojective_arcs"]
