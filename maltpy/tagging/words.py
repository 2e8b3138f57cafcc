"""Sentences' word forms as the flat arrays the compiled tagger reads: code points, lowercased
code points, shape symbols, word starts and sentence starts."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np


class Words(NamedTuple):
    """A batch of sentences' forms as arrays (see :mod:`maltpy.tagging.perceptron`)."""
    cps: np.ndarray       # uint32, every form's code points, one form after another
    low: np.ndarray       # uint32, the same lowercased (character by character)
    shp: np.ndarray       # uint32, the shape symbol of each character: X, x, d or itself
    wstart: np.ndarray    # int64, n_words + 1
    sstart: np.ndarray    # int64, n_sentences + 1

    @property
    def n_words(self) -> int:
        return len(self.wstart) - 1


def _shape_symbol(ch: str) -> str:
    if ch.isdigit():
        return "d"
    if ch.isupper():
        return "X"
    if ch.isalpha():
        return "x"
    return ch


def words_of(sentences: Sequence) -> Words:
    """The forms of ``sentences`` (Sentence objects) as :class:`Words`."""
    forms = [row[1] for s in sentences for row in s.rows]
    sizes = np.fromiter((len(s.rows) for s in sentences), dtype=np.int64, count=len(sentences))
    sstart = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(sizes, out=sstart[1:])
    lengths = np.fromiter(map(len, forms), dtype=np.int64, count=len(forms))
    wstart = np.zeros(len(forms) + 1, dtype=np.int64)
    np.cumsum(lengths, out=wstart[1:])
    text = "".join(forms)
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) if text else np.zeros(0, np.uint32)
    # lowercase and shape one distinct character at a time (a few thousand per corpus, not one per word)
    distinct, inverse = np.unique(cps, return_inverse=True)
    lowered = np.empty(len(distinct), dtype=np.uint32)
    shapes = np.empty(len(distinct), dtype=np.uint32)
    for k, cp in enumerate(distinct.tolist()):
        ch = chr(cp)
        lower = ch.lower()
        lowered[k] = ord(lower) if len(lower) == 1 else cp   # 'İ' lowercases to two characters: kept
        shapes[k] = ord(_shape_symbol(ch))
    return Words(np.ascontiguousarray(cps), lowered[inverse.reshape(-1)], shapes[inverse.reshape(-1)], wstart, sstart)
