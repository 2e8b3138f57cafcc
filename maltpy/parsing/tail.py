"""The output tail: from the trees the C loop built in the model's view to the trees written.

One function, :func:`output_rows`, called by both parse paths (``Parser.parse`` and the
compiled chunk path of ``maltpy -m parse``), so that they cannot drift apart. In order:

1. decode from the model's view (:meth:`maltpy.transform.pipeline.View.decode_rows`: right to
   left mapped back, pseudo-projective labels decoded);
2. with ``-dir both``, combine with the right-to-left parser's trees of the same sentences
   (:func:`maltpy.transform.combine.combine_rows`);
3. one word on the root when the output asks for it (:func:`maltpy.transform.single_root.one_root_rows`),
   keeping a word that constrained parsing was given the root.

Everything is on corpus rows: sentence k owns rows ``offsets[k]`` to ``offsets[k + 1]``, a root
row first; labels are ids into a list of names that the steps may extend.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np


def output_rows(parser, offsets, heads, labels, one_root: bool, given_heads: Optional[np.ndarray] = None,
                other: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """(heads, label ids, label names) of what is written for the C loop's ``heads`` and ``labels``
    (changed in place where the steps can). ``other``: with ``-dir both``, the right-to-left
    parser's raw (heads, labels) of the same sentences; ``given_heads``: the heads constrained
    parsing was given, per row (-1: none)."""
    heads, labels, names = parser.view.decode_rows(offsets, heads, labels, parser.output_labels)
    if parser.reverse_parser is not None:
        from maltpy.transform.combine import combine_rows
        rtl = parser.reverse_parser
        heads2, labels2, names2 = rtl.view.decode_rows(offsets, other[0], other[1], rtl.output_labels)
        c = parser.combination
        heads, labels, _ = combine_rows(offsets, heads, labels, heads2, np.asarray(labels2) + len(names),
                                        c["criterion"], c["param"], c["first"])
        labels = labels.astype(np.int32)
        names = list(names) + list(names2)
    if one_root:
        from maltpy.transform.single_root import one_root_rows
        names = one_root_rows(offsets, heads, labels, names, parser.settings.root_label, given_heads)
    return heads, labels, list(names)


def split_trees(offsets, heads, labels, names: Sequence[str]):
    """Rows as one (heads, label names) pair of lists per sentence (head 0: the root)."""
    bounds = np.asarray(offsets).tolist()
    return [(heads[r0 + 1:r1].tolist(), [names[x] for x in labels[r0 + 1:r1].tolist()])
            for r0, r1 in zip(bounds, bounds[1:])]
