"""The tagger's word cluster tables (``Cluster`` templates): one per prefix length, keyed as the
lexicons are, by the lowercased form's hash (the clusters file: :mod:`maltpy.formats.clusters`)."""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from maltpy.formats.clusters import prefix_ids


def cluster_tables(clusters, lengths: Sequence[int]) -> Tuple[np.ndarray, List[np.ndarray]]:
    """(the lowercased forms' keys of ``clusters`` (a :class:`~maltpy.formats.clusters.WordClusters`),
    as the lexicons' (:func:`perceptron.form_hashes`), sorted; per prefix length ``n`` the class
    of each: its cluster's first ``n`` characters (0: the whole cluster), numbered); made once
    per clusters and lengths."""
    return clusters.made(("tagger tables", tuple(lengths)), lambda: _tables(clusters, lengths))


def _tables(clusters, lengths):
    from maltpy.tagging import perceptron
    from maltpy.tagging.words import words_from_forms
    chosen = clusters.chosen()
    forms = list(chosen)
    words = words_from_forms(forms)
    keys = perceptron.form_hashes(words.low, words.wstart)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    # two forms whose keys are alike (never seen with 64 bits): the first stays
    first = np.r_[True, keys[1:] != keys[:-1]] if len(keys) else np.zeros(0, bool)
    keys, order = keys[first], order[first]
    paths = [chosen[forms[i]] for i in order.tolist()]
    classes = [np.array(prefix_ids(paths, n), dtype=np.int32) for n in lengths]
    return np.ascontiguousarray(keys, dtype=np.uint64), classes
