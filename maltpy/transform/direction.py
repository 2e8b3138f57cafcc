"""Label-based undirected parsing (``-ud label``): each gold arc's direction is written into its
label for training, ``X_l`` when the head is to the right of the dependent (a leftward arc) and
``X_r`` when it is to the left (root arcs are rightward), so that the undirected parser learns
which way its links should point; the direction reconstruction reads the suffixes
(:mod:`maltpy.systems.undirected`) and the output labels drop them.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from maltpy.transform.base import Transform

LEFT, RIGHT = "_l", "_r"


def encode_directions(heads: np.ndarray, label_ids: np.ndarray, labels: Sequence[str],
                      root_label: str):
    """Gold label ids with each arc's direction written in: ``(labels, ids)``.

    ``heads`` and ``label_ids`` are :func:`maltpy.parsing.encode.gold_arrays`' rows (a root row,
    -1, before each sentence's words) over the label set ``labels``. The result's labels are the
    ``X_l`` / ``X_r`` names that occur, with ``root_label``, sorted, and ``ids`` indexes them
    (-1 on root rows). Arrays, not a copy of every training sentence: this runs on whole treebanks.
    """
    rows = np.arange(len(heads))
    starts = np.where(heads < 0, rows, 0)
    position = rows - np.maximum.accumulate(starts)      # 1, 2, ... within each sentence
    real = label_ids >= 0
    code = label_ids * 2 + (heads <= position)            # 0: leftward (head to the right), 1: rightward
    present = np.unique(code[real])
    names = [labels[c // 2] + (RIGHT if c % 2 else LEFT) for c in present]
    out = sorted(set(names) | {root_label})
    index = {name: k for k, name in enumerate(out)}
    lookup = np.zeros(2 * len(labels), dtype=np.int32)
    lookup[present] = [index[n] for n in names]
    ids = np.full(len(heads), -1, dtype=np.int32)
    ids[real] = lookup[code[real]]
    return out, ids


def direction(label: str) -> int:
    """1 for ``X_l``, 2 for ``X_r``, 0 for a label without a direction."""
    return 1 if label.endswith(LEFT) else 2 if label.endswith(RIGHT) else 0


def directions(labels: Sequence[str]) -> np.ndarray:
    """Each label's direction, for :meth:`TransitionSystem.set_label_directions`."""
    return np.array([direction(l) for l in labels] or [0], dtype=np.int32)


def strip_direction(label: str) -> str:
    """``X_l`` / ``X_r`` -> ``X``; other labels as they are."""
    return label[:-len(LEFT)] if direction(label) else label


def output_labels(labels: Sequence[str]) -> List[str]:
    """The labels as written: without their directions."""
    return [strip_direction(l) for l in labels]


class DirectionLabels(Transform):
    """The pipeline step of ``-ud label``: directions written into the gold labels for training,
    told to the system (its reconstruction reads them), and dropped from the output."""

    @classmethod
    def from_settings(cls, settings):
        return cls() if settings.undirected == "label" else None

    def encode_labels(self, heads, label_ids, labels, root_label: str):
        return encode_directions(heads, label_ids, labels, root_label)

    def root_label(self, root_label: str) -> str:
        # a word made a root by the reconstruction gets the root label, rightward
        return root_label + RIGHT

    def setup_system(self, system, labels) -> None:
        system.set_label_directions(directions(labels))

    def output_labels(self, labels):
        return output_labels(labels)
