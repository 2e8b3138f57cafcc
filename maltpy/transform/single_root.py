"""One word on the root, labelled ``root``: the trees UD's tools accept (``-ro one``).

A MaltParser-style parser may leave several words on the root: those it attached there itself and
those still unattached when the input ends, which get ``-grl``'s label (``ROOT``). UD's scorer
(``eval.py``) refuses a file with such a sentence, and ``validate.py`` wants exactly one
dependent of node 0, labelled ``root``. So, for CoNLL-U output (``-ro auto``, the default):

- the **main root** is the first word (in word order) that the parser itself attached to the
  root with the relation ``root``; for arc-eager that is also the first it attached there, as
  node 0 only takes right arcs in word order. When there is none, it is the root word with the
  largest subtree (the leftmost of equal ones);
- it is labelled ``root``; every other root word is attached to it, keeping its relation unless
  that is ``root`` or the ``-grl`` label, which become ``dep`` (UD's unspecified dependency), as
  does ``root`` on any word the parser attached elsewhere (UD keeps it for the root word).

With constrained parsing (``--constraints``) a word the input attaches to the root is the main root
whenever the parse kept that arc: a given arc is never the one demoted (with two given root words in a
sentence, the first is kept and the second reported: :mod:`maltpy.parsing.constraints`).

Every word keeps its head or moves to the main root, so the output stays a tree. CoNLL-X output
keeps MaltParser's behaviour (``-ro auto``; or ``-ro any`` for CoNLL-U too).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

#: -ro values: auto (one for CoNLL-U output, any for CoNLL-X), one, any (MaltParser's)
ROOT_MODES = ("auto", "one", "any")
ROOT_RELATION = "root"
OTHER_RELATION = "dep"


def wants_one_root(mode: str, output_format: str) -> bool:
    """Whether ``-ro MODE`` asks for one root word in output of this format."""
    return mode == "one" or (mode == "auto" and output_format == "conllu")


def one_root(heads: Sequence[int], labels: Sequence[str], unattached_label: str,
             given_root: int = -1) -> Tuple[List[int], List[str]]:
    """A sentence's tree (heads from 1, 0 = the root) with one root word, as the module says.
    ``given_root``: the word (from 0) the input attaches to the root (constrained parsing; -1:
    none), the main root when the parse has it there."""
    heads, labels = list(heads), list(labels)
    roots = [k for k, h in enumerate(heads) if h == 0]
    for k, h in enumerate(heads):
        if h != 0 and labels[k] == ROOT_RELATION:
            labels[k] = OTHER_RELATION
    if not roots:
        return heads, labels
    main = given_root if given_root >= 0 and heads[given_root] == 0 else None
    if main is None:   # (root words keep their labels above)
        main = next((k for k in roots if labels[k] == ROOT_RELATION), None)
    if main is None:
        sizes = subtree_sizes(heads) if len(roots) > 1 else None
        main = max(roots, key=lambda k: (sizes[k], -k)) if sizes else roots[0]
    labels[main] = ROOT_RELATION
    for k in roots:
        if k != main:
            heads[k] = main + 1
            if labels[k] in (ROOT_RELATION, unattached_label):
                labels[k] = OTHER_RELATION
    return heads, labels


def subtree_sizes(heads: Sequence[int]) -> List[int]:
    """Words in each word's subtree, itself included (``heads``: word k's head at k - 1, 0 the
    root), in time linear in the words: each word's size is added to its head's once its own
    dependents' are in (a walk up from every word is quadratic in a deep tree). Words on a cycle
    (never expected) keep what reached them. The main root of several is the largest subtree's,
    here and in the constituent decoder (:mod:`maltpy.transform.constituents`)."""
    n = len(heads)
    sizes = [1] * n
    waiting = [0] * n           # dependents whose sizes are not yet added
    for h in heads:
        if 0 < h <= n:
            waiting[h - 1] += 1
    ready = [k for k in range(n) if not waiting[k]]
    while ready:
        k = ready.pop()
        h = heads[k]
        if 0 < h <= n:
            sizes[h - 1] += sizes[k]
            waiting[h - 1] -= 1
            if not waiting[h - 1]:
                ready.append(h - 1)
    return sizes


def given_roots(offsets: np.ndarray, given_heads: np.ndarray) -> np.ndarray:
    """Per sentence, the first word (from 0) that corpus rows' given heads attach to the root; -1
    where none is."""
    first = np.full(len(offsets) - 1, -1, dtype=np.int64)
    rows = np.flatnonzero(given_heads == 0)
    rows = rows[np.isin(rows, offsets[:-1], invert=True)]      # not the root nodes' own rows
    sentence = np.searchsorted(offsets, rows, side="right") - 1
    sentence, at = np.unique(sentence, return_index=True)       # the first of each sentence
    first[sentence] = rows[at] - offsets[sentence] - 1
    return first


def one_root_rows(offsets: np.ndarray, heads: np.ndarray, labels: np.ndarray, label_names: Sequence[str],
                  unattached_label: str, given_heads: Optional[np.ndarray] = None) -> List[str]:
    """:func:`one_root` on corpus rows (``offsets`` per sentence, each sentence's row 0 its root
    node), in place. Returns the label names with ``root`` and ``dep`` added where missing, which
    ``labels`` may now index. Only sentences that need it are visited in Python. ``given_heads``:
    the heads constrained parsing was given, per row (-1: none)."""
    names = list(label_names)
    for extra in (ROOT_RELATION, OTHER_RELATION):
        if extra not in names:
            names.append(extra)
    index = {name: i for i, name in enumerate(names)}
    root_id = index[ROOT_RELATION]
    sizes = np.diff(offsets)
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    is_word = np.ones(len(heads), dtype=bool)
    is_word[offsets[:-1]] = False
    on_root = is_word & (heads == 0)
    count = np.bincount(sentence[on_root], minlength=len(sizes))
    # a sentence with one root word only needs its label, and root off the root becomes dep
    single = on_root & (count[sentence] == 1)
    labels[is_word & ~on_root & (labels == root_id)] = index[OTHER_RELATION]
    labels[single] = root_id
    given = given_roots(offsets, given_heads) if given_heads is not None else None
    for k in np.flatnonzero(count > 1).tolist():
        r0, r1 = int(offsets[k]) + 1, int(offsets[k + 1])
        h, l = one_root(heads[r0:r1].tolist(), [names[x] for x in labels[r0:r1].tolist()], unattached_label,
                        int(given[k]) if given is not None else -1)
        heads[r0:r1] = h
        labels[r0:r1] = [index[x] for x in l]
    return names
