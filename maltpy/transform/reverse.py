"""Right-to-left parsing (Fernández-González, Gómez-Rodríguez & Vilares): the sentence is
reversed, the root stays node 0.

Word r of the reversed sentence is word n + 1 - r of the original, with all its columns;
``rev(x) = 0 if x == 0 else n + 1 - x`` maps head numbers both ways (it is its own
inverse). Training reverses the gold trees (pseudo-projective parsing then applies to the
reversed data); parsing reverses the input, parses and decodes it, and maps the tree back.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from maltpy.formats.conll import HEAD, Sentence
from maltpy.transform.base import Transform

DIRECTIONS = ("ltr", "rtl", "both")   # both: a parser each way, combined (transform/combine.py)
#: integer columns whose values are node numbers: mapped with the words (HEAD, PHEAD)
NODE_COLUMNS = (HEAD, 8)


def rev(x: int, n: int) -> int:
    """A node number of a sentence of n words, in the other direction (0 stays 0)."""
    return x if x <= 0 else n + 1 - x


def _map_node(value: str, n: int) -> str:
    if value.isascii() and value.isdigit() and 1 <= int(value) <= n:
        return str(n + 1 - int(value))
    return value


def reverse_sentence(sentence: Sentence, conllu: bool = False) -> Sentence:
    """The sentence read right to left: rows reversed and renumbered, HEAD (and CoNLL-X PHEAD)
    mapped with ``rev``; comments and other lines are dropped (they do not take part in parsing)."""
    n = len(sentence.rows)
    rows = []
    for k, row in enumerate(reversed(sentence.rows)):
        new = list(row)
        new[0] = str(k + 1)
        new[HEAD] = _map_node(row[HEAD], n)
        if not conllu:
            new[8] = _map_node(row[8], n)
        rows.append(new)
    return Sentence(rows, [], sentence.first_line, sentence.source, sentence.format)


def reverse_tree(heads: Sequence[int], labels: Sequence) -> Tuple[List[int], List]:
    """A tree over words 1..n (lists without the root entry) in the other direction."""
    n = len(heads)
    return ([rev(heads[n - 1 - k], n) for k in range(n)], [labels[n - 1 - k] for k in range(n)])


def reverse_columns(batch, conllu: bool = False):
    """A :class:`~maltpy.formats.columns.ColumnBatch` with every sentence reversed (and its node
    columns mapped), as :func:`reverse_sentence` reverses a Sentence."""
    from maltpy.formats.columns import ColumnBatch
    node_columns = (HEAD,) if conllu else NODE_COLUMNS
    columns = {}
    for ci, values in batch.columns.items():
        out, start = [], 0
        for n in batch.lengths:
            part = values[start:start + n][::-1]
            if ci in node_columns:
                part = [_map_node(v, n) for v in part]
            out.extend(part)
            start += n
        columns[ci] = out
    return ColumnBatch(batch.lengths, columns)


def map_back_rows(offsets, heads, labels):
    """Trees parsed right to left (corpus rows in reversed word order) in the input's order."""
    sizes = np.diff(offsets)
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    rows = np.arange(len(heads))
    position = rows - offsets[sentence]
    n = sizes[sentence] - 1
    mirror = np.where(position == 0, rows, offsets[sentence] + n + 1 - position)
    h = heads[mirror]
    return np.ascontiguousarray(np.where(h > 0, n + 1 - h, h), dtype=np.int32), \
        np.ascontiguousarray(labels[mirror], dtype=np.int32)


def both_ways(settings) -> bool:
    """Whether the settings ask for a parser each way, combined (``-dir both``)."""
    return settings.direction == "both"


def one_way(settings, direction: str) -> dict:
    """The settings (as a dict) of the parser of ``-dir both`` that reads in ``direction``
    (ltr or rtl), with the right-to-left feature model where ``-Frtl`` names one."""
    values = {**settings.__dict__, "direction": direction, "verbose": False, "reverse_features": None}
    if direction == "rtl" and settings.reverse_features:
        values["features"] = settings.reverse_features
    return values


class RightToLeft(Transform):
    """The pipeline step of ``-dir rtl``: the words reversed before, the trees mapped back after."""

    reverses_words = True

    @classmethod
    def from_settings(cls, settings):
        return cls() if settings.direction == "rtl" else None

    def encode(self, sentences, conllu: bool):
        from maltpy.formats.columns import ColumnBatch
        if isinstance(sentences, ColumnBatch):
            return reverse_columns(sentences, conllu)
        return [reverse_sentence(s, conllu) for s in sentences]

    def decode(self, heads, labels):
        h, l = reverse_tree(heads[1:], labels[1:])
        return [-1] + h, ["_"] + l

    def decode_rows(self, offsets, heads, labels, names):
        heads, labels = map_back_rows(offsets, heads, labels)
        return heads, labels, names
