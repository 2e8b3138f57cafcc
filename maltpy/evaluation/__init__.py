"""Evaluation: attachment scores as CoNLL-X eval.pl computes them."""
from maltpy.evaluation.scores import Scores, evaluate, evaluate_files, is_punctuation

__all__ = ["Scores", "evaluate", "evaluate_files", "is_punctuation"]
