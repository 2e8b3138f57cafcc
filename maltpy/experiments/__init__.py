"""Multilingual experiments: train and evaluate many (treebank, configuration) pairs."""
from maltpy.experiments.runner import Experiment, Treebank, run_experiments, markdown_tables, holdout_split

__all__ = ["Experiment", "Treebank", "run_experiments", "markdown_tables", "holdout_split"]
