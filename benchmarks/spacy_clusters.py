"""Word clusters for the tagger (``--clusters``) from the Brown clusters that
``spacy-lookups-data`` (PyPI, MIT) ships for a language, written as brown-cluster's ``paths``
file (``cluster<TAB>word`` a line, most frequent words first, as the package lists them).

    pip download --no-deps spacy-lookups-data        # or: pip install spacy-lookups-data
    python benchmarks/spacy_clusters.py spacy_lookups_data-1.0.5-py2.py3-none-any.whl en > en.clusters

spaCy keeps each cluster as the integer of its bit string reversed (``int(path[::-1], 2)``), so
that a prefix is the low bits. The zeros at the end of a path are lost in that integer, so each
path is written as long as the longest, ending in zeros: its prefixes are the integer's low bits.
Words whose cluster is 0 (unclustered) are left out. maltpy never depends on spaCy's data; this is a study's input.
"""
import gzip
import json
import sys
import zipfile


def clusters(source: str, lang: str):
    """(word, bit string) pairs of ``lang``'s clusters in the wheel (or installed package)."""
    member = f"spacy_lookups_data/data/{lang}_lexeme_cluster.json.gz"
    if source.endswith(".whl"):
        with zipfile.ZipFile(source) as z:
            data = json.loads(gzip.decompress(z.read(member)))
    else:
        import importlib.util
        import os
        root = os.path.dirname(importlib.util.find_spec("spacy_lookups_data").origin)
        with gzip.open(os.path.join(root, "data", f"{lang}_lexeme_cluster.json.gz")) as f:
            data = json.load(f)
    # every path as long as the longest, zeros at the end: a prefix of n is then the integer's n
    # low bits, whatever zeros the integer lost
    length = max(int(v).bit_length() for v in data.values())
    for word, value in data.items():
        if value and word and not any(c.isspace() for c in word):
            yield word, format(int(value), f"0{length}b")[::-1]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out = sys.stdout
    for word, path in clusters(sys.argv[1], sys.argv[2]):
        out.write(f"{path}\t{word}\n")


if __name__ == "__main__":
    main()
