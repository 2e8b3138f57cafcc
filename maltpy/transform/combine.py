"""Combining a left-to-right and a right-to-left parse of the same sentence (Fernández-González,
Gómez-Rodríguez & Vilares, "Improving the Arc-Eager Model with Reverse Parsing", Fig. 6).

One parser is *first*, the other *second*. For each word d, the criterion is d itself
(``position``) or the length of the first parser's arc into d, |h1(d) - d| (``length``; a
root arc has length d). When the criterion is at most the parameter, d takes head and label
from the first parser, otherwise from the second. The result has one head per word and no
arc into the root; if it has a cycle, the whole sentence falls back to the left-to-right
parse, whichever parser was first. Linear in the sentence length.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

CRITERIA = ("position", "length")
ORDERS = ("ltr", "rtl")      # which parser is first


def has_cycle(heads: Sequence[int]) -> bool:
    """Whether heads (index 0 unused, words 1..n, head 0 = the root) contain a cycle."""
    n = len(heads) - 1
    state = [0] * (n + 1)     # 0 unseen, 1 on the current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path, node = [], start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if state[node] == 1:
            return True
        for p in path:
            state[p] = 2
    return False


def combine_trees(ltr: Tuple[Sequence[int], Sequence], rtl: Tuple[Sequence[int], Sequence],
                  criterion: str, param: int, first: str = "ltr") -> Tuple[List[int], List, bool]:
    """(heads, labels, fell_back) for one sentence; trees are (heads, labels) over words 1..n
    (lists without a root entry, head 0 = the root)."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion {criterion!r}: use one of {', '.join(CRITERIA)}")
    if first not in ORDERS:
        raise ValueError(f"first {first!r}: use one of {', '.join(ORDERS)}")
    (h1, l1), (h2, l2) = (ltr, rtl) if first == "ltr" else (rtl, ltr)
    n = len(h1)
    if len(h2) != n or len(l1) != n or len(l2) != n:
        raise ValueError("the two trees cover different numbers of words")
    heads, labels = [], []
    for d in range(1, n + 1):
        crit = d if criterion == "position" else abs(h1[d - 1] - d)
        if crit <= param:
            heads.append(h1[d - 1])
            labels.append(l1[d - 1])
        else:
            heads.append(h2[d - 1])
            labels.append(l2[d - 1])
    if has_cycle([-1] + heads):
        return list(ltr[0]), list(ltr[1]), True
    return heads, labels, False


def combine_sentences(ltr_sentences, rtl_sentences, criterion: str, param: int, first: str = "ltr",
                      source=("first file", "second file")):
    """Combined copies of the left-to-right sentences and the number that fell back.
    Both lists must hold the same words; the result keeps the left-to-right file's other columns."""
    from maltpy.errors import MaltpyError
    if len(ltr_sentences) != len(rtl_sentences):
        raise MaltpyError(f"{source[0]} has {len(ltr_sentences)} sentences, {source[1]} "
                          f"{len(rtl_sentences)}: combine parses of the same text")
    out, fallbacks = [], 0
    for k, (a, b) in enumerate(zip(ltr_sentences, rtl_sentences)):
        if a.forms != b.forms:
            where = f"{b.source}:{b.first_line}" if b.first_line else f"sentence {k + 1}"
            raise MaltpyError(f"{where}: the words differ from sentence {k + 1} of {source[0]}: "
                              "combine parses of the same text")
        heads, labels, fell_back = combine_trees((a.heads, a.labels), (b.heads, b.labels), criterion, param, first)
        fallbacks += fell_back
        out.append(a.with_tree(heads, labels))
    return out, fallbacks
