"""Label-based undirected parsing (``-ud label``): each gold arc's direction is written into its
label for training, ``X_l`` when the head is to the right of the dependent (a leftward arc) and
``X_r`` when it is to the left (root arcs are rightward), so that the undirected parser learns
which way its links should point; the direction reconstruction reads the suffixes
(:mod:`maltpy.systems.undirected`) and the output labels drop them.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from maltpy.formats.conll import DEPREL, HEAD, Sentence

LEFT, RIGHT = "_l", "_r"


def encode_directions(sentence: Sentence) -> Sentence:
    """A copy whose DEPREL values carry their arc's direction."""
    rows = []
    for k, r in enumerate(sentence.rows, 1):
        r = list(r)
        h = int(r[HEAD])
        r[DEPREL] = r[DEPREL] + (LEFT if h > k else RIGHT)
        rows.append(r)
    return Sentence(rows, sentence.extra, sentence.first_line, sentence.source)


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
    return [strip_direction(l) for l in labels]
