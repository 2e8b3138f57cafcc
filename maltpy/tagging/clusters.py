"""Word clusters learned from unannotated text (Brown et al. 1992), read by the tagger's
``Cluster(...)`` templates: what a word the treebank never saw resembles (Koo et al. 2008;
Owoputi et al. 2013 for web text).

The file is the ``paths`` file of Percy Liang's ``wcluster`` (``brown-cluster``), one word a
line: ``cluster<TAB>word[<TAB>count]``, the cluster a bit string (a path in the cluster tree,
so that its prefixes are coarser clusters) or any name. Words are looked up lowercased: the
lowercase spelling's own cluster where the file has it, else that of its most frequent spelling
(the first one without counts). The tagger keeps the tables it reads in its model file; the
clusters file is not needed to tag.
"""
from __future__ import annotations

import os
from typing import Dict, List, Sequence, Tuple

import numpy as np

from maltpy.errors import MaltpyError


class WordClusters:
    """A clusters file read once: its words, their clusters and counts, and where it came from."""

    def __init__(self, words: List[str], clusters: List[str], counts: List[int], source: str = "<clusters>"):
        self.words, self.clusters, self.counts, self.source = words, clusters, counts, source

    def __len__(self):
        return len(self.words)

    @classmethod
    def read(cls, path: str) -> "WordClusters":
        """Read a ``paths`` file; a line that is not ``cluster<TAB>word[<TAB>count]`` stops it
        with the file and line."""
        words, clusters, counts = [], [], []
        try:
            with open(path, encoding="utf-8", newline="") as f:
                for number, line in enumerate(f, 1):
                    line = line.rstrip("\n")
                    if line.endswith("\r"):
                        line = line[:-1]
                    if not line.strip():
                        continue
                    fields = line.split("\t")
                    if len(fields) not in (2, 3) or not fields[0] or not fields[1] \
                            or any(c.isspace() for c in fields[0] + fields[1]):
                        raise MaltpyError(f"{path}:{number}: expected 'cluster<TAB>word' or 'cluster<TAB>word<TAB>"
                                          f"count' (a word clusters file, as brown-cluster's paths), got {line[:80]!r}")
                    count = 0
                    if len(fields) == 3:
                        count = int(fields[2]) if fields[2].isascii() and fields[2].isdigit() else -1
                        if count < 0:
                            raise MaltpyError(f"{path}:{number}: the count {fields[2][:40]!r} is not a whole number "
                                              f"of 0 or more")
                    clusters.append(fields[0])
                    words.append(fields[1])
                    counts.append(count)
        except UnicodeDecodeError as e:
            raise MaltpyError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        except OSError as e:
            raise MaltpyError(f"cannot read the word clusters file {path}: {e.strerror or e}") from None
        if not words:
            raise MaltpyError(f"{path}: no word clusters in it (expected lines 'cluster<TAB>word[<TAB>count]')")
        return cls(words, clusters, counts, os.path.basename(path))

    def tables(self, lengths: Sequence[int]) -> Tuple[np.ndarray, List[np.ndarray]]:
        """(the words' lowercased form keys, as the lexicons' (:func:`perceptron.form_hashes`),
        sorted and distinct; per prefix length ``n`` the class of each: its cluster's first ``n``
        characters (0: the whole cluster), numbered). Of the spellings of one lowercased form the
        lowercase one's cluster is taken where the file has it, else the most frequent one's
        (the first, without counts)."""
        from maltpy.tagging import perceptron
        from maltpy.tagging.words import words_from_forms
        forms = words_from_forms(self.words)
        keys = perceptron.form_hashes(forms.low, forms.wstart)
        starts = forms.wstart[:-1]
        # a spelling is lowercase when none of its characters changed (every word has one)
        changed = np.add.reduceat((forms.cps != forms.low).astype(np.int64), starts) if len(forms.cps) else \
            np.zeros(len(keys), np.int64)
        counts = np.asarray(self.counts, dtype=np.int64)
        # per key the best spelling first: lowercase, then the highest count, then the first in the file
        order = np.lexsort((np.arange(len(keys)), -counts, changed > 0, keys))
        keys = keys[order]
        first = np.r_[True, keys[1:] != keys[:-1]]
        keys, order = keys[first], order[first]
        paths = [self.clusters[i] for i in order.tolist()]
        classes = []
        for n in lengths:
            numbered: Dict[str, int] = {}
            classes.append(np.fromiter((numbered.setdefault(p[:n] if n else p, len(numbered)) for p in paths),
                                       dtype=np.int32, count=len(paths)))
        return np.ascontiguousarray(keys, dtype=np.uint64), classes
