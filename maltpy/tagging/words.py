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
    sizes = np.fromiter((len(s.rows) for s in sentences), dtype=np.int64, count=len(sentences))
    sstart = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(sizes, out=sstart[1:])
    words = words_from_forms([row[1] for s in sentences for row in s.rows])
    return words._replace(sstart=sstart)


def code_points(forms: Sequence[str]):
    """(the forms' code points one form after another, uint32; each form's start, int64, one more
    than the forms): what hashing a form reads, without the lowercase and shapes of :class:`Words`."""
    lengths = np.fromiter(map(len, forms), dtype=np.int64, count=len(forms))
    wstart = np.zeros(len(forms) + 1, dtype=np.int64)
    np.cumsum(lengths, out=wstart[1:])
    text = "".join(forms)
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) if text else np.zeros(0, np.uint32)
    return cps, wstart


def words_from_forms(forms: Sequence[str]) -> Words:
    """Forms as :class:`Words` of one sentence."""
    cps, wstart = code_points(forms)
    return words_from_arrays(cps, wstart, np.array([0, len(forms)], dtype=np.int64))


#: the lowercase and shape symbol of each character seen so far (a process sees a few thousand)
_CHARACTERS = {}
#: the same for the Basic Multilingual Plane as arrays indexed by code point (filled as
#: characters are met, values before the flag: threads that fill them write the same values)
_BMP = 0x10000
_BMP_LOWER = np.arange(_BMP, dtype=np.uint32)
_BMP_SHAPE = np.zeros(_BMP, dtype=np.uint32)
_BMP_KNOWN = np.zeros(_BMP, dtype=bool)


def _character(cp: int):
    """(lowercase, shape symbol) of code point cp; a character whose lowercase is two characters
    (İ) stays as it is, so that a form keeps its length."""
    found = _CHARACTERS.get(cp)
    if found is None:
        ch = chr(cp)
        lower = ch.lower()
        found = _CHARACTERS[cp] = (ord(lower) if len(lower) == 1 else cp, ord(_shape_symbol(ch)))
    return found


def words_of_chunk(chunk) -> Words:
    """A scanned chunk's forms as :class:`Words` (``chunk_forms`` looks the characters up in the
    tables as it decodes them; the first chunks, which meet new characters, go through
    :func:`words_from_arrays`)."""
    from maltpy.tagging.chunks import chunk_forms
    cps, wstart, sstart, low, shp = chunk_forms(chunk, _BMP_LOWER, _BMP_SHAPE, _BMP_KNOWN.view(np.uint8))
    if low is None:
        return words_from_arrays(cps, wstart, sstart)
    return Words(cps, low, shp, wstart, sstart)


def words_from_arrays(cps: np.ndarray, wstart: np.ndarray, sstart: np.ndarray) -> Words:
    """:class:`Words` of code points already cut into words and sentences: lowercase and shape
    symbols by table look-up for the Basic Multilingual Plane (its new characters met once), one
    distinct character at a time beyond it."""
    cps = np.ascontiguousarray(cps, dtype=np.uint32)
    beyond = cps >= _BMP
    index = np.where(beyond, 0, cps)
    present = np.zeros(_BMP, dtype=bool)
    present[index] = True
    new = np.flatnonzero(present & ~_BMP_KNOWN)
    for cp in new.tolist():
        _BMP_LOWER[cp], _BMP_SHAPE[cp] = _character(cp)
    _BMP_KNOWN[new] = True
    lowered, shapes = _BMP_LOWER[index], _BMP_SHAPE[index]
    if beyond.any():
        distinct, inverse = np.unique(cps[beyond], return_inverse=True)
        table = np.array([_character(cp) for cp in distinct.tolist()], dtype=np.uint32).reshape(-1, 2)
        lowered[beyond], shapes[beyond] = table[inverse.reshape(-1), 0], table[inverse.reshape(-1), 1]
    return Words(cps, lowered, shapes, np.ascontiguousarray(wstart, dtype=np.int64),
                 np.ascontiguousarray(sstart, dtype=np.int64))
