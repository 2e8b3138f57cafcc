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

from maltpy.formats.validate import find_cycle

CRITERIA = ("position", "length")
ORDERS = ("ltr", "rtl")      # which parser is first


def has_cycle(heads: Sequence[int]) -> bool:
    """Whether heads (index 0 unused, words 1..n, head 0 = the root) contain a cycle."""
    return bool(find_cycle(heads))


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


def combine_rows(offsets, ltr_heads, ltr_labels, rtl_heads, rtl_labels, criterion: str, param: int,
                 first: str = "ltr"):
    """:func:`combine_trees` on many sentences at once, as corpus rows (numpy arrays: one root row
    before each sentence's words, ``offsets`` the root rows and the end; heads are word numbers
    within the sentence, labels any integer codes). Returns (heads, labels, sentences that fell
    back). Cycles are found by pointer jumping: after 2^k >= n steps up, every word of an acyclic
    sentence has reached its root row."""
    import numpy as np
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    root = offsets[:-1][sentence]
    position = np.arange(len(sentence)) - root
    (h1, l1), (h2, l2) = ((ltr_heads, ltr_labels), (rtl_heads, rtl_labels)) if first == "ltr" \
        else ((rtl_heads, rtl_labels), (ltr_heads, ltr_labels))
    h1, h2 = np.asarray(h1, dtype=np.int64), np.asarray(h2, dtype=np.int64)
    crit = position if criterion == "position" else np.abs(h1 - position)
    take_first = crit <= param
    heads = np.where(take_first, h1, h2)
    labels = np.where(take_first, np.asarray(l1), np.asarray(l2))
    words = position > 0
    parent = np.where(words, root + np.maximum(heads, 0), np.arange(len(sentence)))
    steps = 1
    while steps < max(int(sizes.max(initial=1)), 1):
        parent = parent[parent]
        steps *= 2
    parent = parent[parent]
    cyclic = np.zeros(len(sizes), dtype=bool)
    cyclic[sentence[words & (parent != root)]] = True
    back = cyclic[sentence]
    heads = np.where(back, np.asarray(ltr_heads, dtype=np.int64), heads)
    labels = np.where(back, np.asarray(ltr_labels), labels)
    heads[~words] = -1
    return heads.astype(np.int32), labels, int(cyclic.sum())


#: the parameters tried when tuning a combination (the paper's largest chosen value is 40)
PARAMS = range(0, 41)


def choose_combination(held_out, criteria=CRITERIA) -> dict:
    """The (criterion, first, param) with the highest LAS summed over held-out parts, each given
    as (gold sentences, left-to-right trees, right-to-left trees), trees as (heads, labels) per
    sentence. Ties go to the left-to-right parse itself (right to left first with parameter 0
    gives exactly it), then to the first in the order position/length, ltr/rtl first, parameter
    ascending. Also returns the LAS of the winner and of each direction alone."""
    import numpy as np
    codes = {}
    code = lambda label: codes.setdefault(label, len(codes))  # noqa: E731
    offsets, gold_h, gold_l, lh, ll, rh, rl = [0], [], [], [], [], [], []
    for gold, ltr, rtl in held_out:
        for g, (h1, l1), (h2, l2) in zip(gold, ltr, rtl):
            offsets.append(offsets[-1] + len(g) + 1)
            gold_h += [-1] + g.heads
            # the DEPREL strings as written: "_" is a label like any other (as in training; some
            # treebanks use it, CoNLL 2007 Spanish), which Sentence.labels would give as None
            gold_l += [-1] + [code(x) for x in g.column(7)]
            lh += [-1] + list(h1)
            ll += [-1] + [code(x) for x in l1]
            rh += [-1] + list(h2)
            rl += [-1] + [code(x) for x in l2]
    gold_h, gold_l = np.array(gold_h), np.array(gold_l)
    lh, ll, rh, rl = np.array(lh), np.array(ll), np.array(rh), np.array(rl)
    words = gold_h >= 0
    n = max(int(words.sum()), 1)
    correct = lambda h, l: int(((h == gold_h) & (l == gold_l) & words).sum())  # noqa: E731
    baseline = correct(lh, ll)
    best = {"criterion": criteria[0], "first": "rtl", "param": 0, "correct": baseline}
    for criterion in criteria:
        for first in ORDERS:
            for param in PARAMS:
                h, l, _ = combine_rows(offsets, lh, ll, rh, rl, criterion, param, first)
                c = correct(h, l)
                if c > best["correct"]:
                    best = {"criterion": criterion, "first": first, "param": param, "correct": c}
    h, l, fallbacks = combine_rows(offsets, lh, ll, rh, rl, best["criterion"], best["param"], best["first"])
    return {"criterion": best["criterion"], "first": best["first"], "param": best["param"],
            "las": 100.0 * best["correct"] / n, "las_ltr": 100.0 * baseline / n,
            "las_rtl": 100.0 * correct(rh, rl) / n, "fallback_sentences": fallbacks,
            "sentences": len(offsets) - 1}


def choose_out_of_fold(held_out, criteria=CRITERIA) -> list:
    """What :func:`choose_combination`'s choice gains on data it did not see (nested
    cross-validation): for each held-out part, the combination chosen on the other parts alone and
    that part's trees combined by it. ``held_out`` as for :func:`choose_combination`; returns one
    (choice, [(heads, labels) per sentence]) per part."""
    out = []
    for k, (gold, ltr, rtl) in enumerate(held_out):
        choice = choose_combination(held_out[:k] + held_out[k + 1:], criteria)
        trees = [combine_trees(a, b, choice["criterion"], choice["param"], choice["first"])[:2]
                 for a, b in zip(ltr, rtl)]
        out.append((choice, trees))
    return out
