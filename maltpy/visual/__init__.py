"""Pictures of parses: trees as SVG/HTML, evaluation reports, plots (matplotlib, optional)."""
from maltpy.visual.trees import Drawing, draw, sentence_svg

__all__ = ["Drawing", "draw", "sentence_svg"]
