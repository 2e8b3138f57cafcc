"""Word clusters learned from unannotated text (Brown et al. 1992), read by the tagger's
``Cluster(...)`` templates and the parser's ``Cluster`` features: what a word the treebank never
saw resembles (Koo et al. 2008; Owoputi et al. 2013 for web text).

The file is the ``paths`` file of Percy Liang's ``wcluster`` (``brown-cluster``), one word a
line: ``cluster<TAB>word[<TAB>count]``, the cluster a bit string (a path in the cluster tree,
so that its prefixes are coarser clusters) or any name. Words are looked up lowercased: the
lowercase spelling's own cluster where the file has it, else that of its most frequent spelling
(the first one without counts). The tagger and the parser keep the tables they read in their
model files; the clusters file is not needed to tag or parse.
"""
from __future__ import annotations

import os
import threading
import weakref
from typing import Dict, List, Sequence, Tuple

from maltpy.errors import MaltpyError
from maltpy.formats.conll import CARRIAGE_RETURN


#: the clusters :meth:`WordClusters.shared` has read, by (path, modification time, size), for as
#: long as something (a training, a tagger that learned from them) holds them
_SHARED = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()


class WordClusters:
    """A clusters file read once: its words, their clusters and counts, and where it came from."""

    def __init__(self, words: List[str], clusters: List[str], counts: List[int], source: str = "<clusters>"):
        self.words, self.clusters, self.counts, self.source = words, clusters, counts, source
        # what is made of them once for every tagger and parser of a training (:meth:`made`)
        self._made: dict = {}
        self._lock = threading.RLock()     # a made thing may need another made one

    def made(self, key, make):
        """``make()``, made once per ``key`` for these clusters (the fold taggers of a training,
        side by side on threads, share their tables)."""
        with self._lock:
            if key not in self._made:
                self._made[key] = make()
            return self._made[key]

    def release(self):
        """Drop what :meth:`made` made (the tables of a training that is over; a parser's
        spellings with their casings are millions of strings for a large file)."""
        with self._lock:
            self._made.clear()

    def __len__(self):
        return len(self.words)

    @classmethod
    def shared(cls, path: str) -> "WordClusters":
        """:meth:`read`, once per file for the process (the tagger, its fold taggers and the
        parser of one training read the same clusters), again when the file changes."""
        try:
            st = os.stat(path)
            stamp = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
        except OSError:
            return cls.read(path)       # says what is wrong with the path
        with _SHARED_LOCK:
            found = _SHARED.get(stamp)
            if found is None:
                found = cls.read(path)
                _SHARED[stamp] = found
            return found

    @classmethod
    def read(cls, path: str) -> "WordClusters":
        """Read a ``paths`` file; a line that is not ``cluster<TAB>word[<TAB>count]`` stops it
        with the file and line."""
        words, clusters, counts = [], [], []
        try:
            # lines end at line feeds only: a carriage return elsewhere is refused, as every reader does
            with open(path, encoding="utf-8", newline="\n") as f:
                for number, line in enumerate(f, 1):
                    line = line.rstrip("\n")
                    if line.endswith("\r"):
                        line = line[:-1]
                    if "\r" in line:
                        raise MaltpyError(f"{path}:{number}: {CARRIAGE_RETURN}")
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

    def chosen(self) -> Dict[str, str]:
        """Lowercased form -> its cluster: of the spellings of one lowercased form the lowercase
        one's cluster where the file has it, else the most frequent one's (the first, without
        counts). Lowercased character by character, as the tagger lowercases forms."""
        return self.made("chosen", self._chosen)

    def _chosen(self) -> Dict[str, str]:
        best: Dict[str, Tuple[bool, int, int]] = {}
        for k, (word, count) in enumerate(zip(self.words, self.counts)):
            low = lowercase(word)
            rank = (low != word, -count, k)
            if low not in best or rank < best[low]:
                best[low] = rank
        return {low: self.clusters[rank[2]] for low, rank in best.items()}

    def spellings(self) -> Tuple[List[str], List[str]]:
        """(spellings, the cluster of each) for a parser, which looks words up as written: every
        spelling of the file and its lowercase, capitalized and upper-case forms, each with the
        cluster :meth:`chosen` gives its lowercased form (made once; not to be changed)."""
        return self.made("spellings", self._spellings)

    def _spellings(self) -> Tuple[List[str], List[str]]:
        chosen = self.chosen()
        found = {w: chosen[lowercase(w)] for w in self.words}
        for w in self.words:
            for variant in (w.lower(), w.capitalize(), w.upper()):
                found.setdefault(variant, chosen[lowercase(w)])
        return list(found), list(found.values())


def prefix_ids(paths: Sequence[str], length: int, first: int = 0) -> List[int]:
    """Each cluster's first ``length`` characters (0: the whole cluster) numbered from ``first``
    in the order they come."""
    numbered: Dict[str, int] = {}
    return [numbered.setdefault(p[:length] if length else p, len(numbered) + first) for p in paths]


def lowercase(word: str) -> str:
    """``word`` lowercased character by character; a character whose lowercase is two characters
    (İ) stays as it is (the tagger's lowercase, :mod:`maltpy.tagging.words`)."""
    if word.isascii():
        return word.lower()
    return "".join(low if len(low := c.lower()) == 1 else c for c in word)
