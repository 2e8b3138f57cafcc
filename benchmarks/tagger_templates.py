"""Tagger template sets compared on EWT's training data, 10 % of each genre's documents held out.

EWT's train.conllu holds its genres one after the other (weblog, email, newsgroup, answers,
reviews), so its last 10 % is reviews alone; dev mixes all five. This split holds out, within
each genre, the documents whose number is 4 modulo 10 (1,476 sentences, 23,769 words, the
genres in about dev's shares), so that templates are chosen on data like dev without reading it.

    python benchmarks/tagger_templates.py --shared ../shared [--sets default english my.yaml]
        [--columns upos+xpos] [--clusters en.clusters] [--ensemble 2] [--seeds 1 2 3]
        [--margins none 12 16]

Prints, for each set (and each ``--ensemble-margin`` given: the same taggers tag once per
margin), the means over the seeds of the held-out words' UPOS, XPOS, FEATS and LEMMA accuracy
(the columns learned; - for the others), and each seed's XPOS. docs/tagging.md, "Templates for
English" and "The PTB tags before the word", has the figures.
"""
import argparse
import collections
import os
import sys

import numpy as np

from maltpy.config import check_ensemble_margin
from maltpy.formats.conll import read_conll
from maltpy.tagging.tagger import Tagger
from tagging import blank    # benchmarks/tagging.py: the words alone

COLUMNS = {"UPOS": 3, "XPOS": 4, "FEATS": 5, "LEMMA": 2}


def genre_split(sentences, held_out: int = 4):
    """(train, test): within each genre (the document id's first part), the documents numbered
    ``held_out`` modulo 10 are the test."""
    seen = collections.Counter()
    train, test = [], []
    document = None
    for s in sentences:
        for _, line in s.extra:      # (position, comment line)
            if line.startswith("# newdoc id"):
                genre = line.split("=", 1)[1].strip().split("-")[0]
                document = (genre, seen[genre])
                seen[genre] += 1
        if document is None:
            raise SystemExit("the treebank names no documents (# newdoc id = ...)")
        (test if document[1] % 10 == held_out else train).append(s)
    return train, test


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--sets", nargs="+", default=["default", "english"], help="shipped set names or YAML files")
    ap.add_argument("--columns", default="upos+xpos")
    ap.add_argument("--clusters", help="a brown-cluster paths file (benchmarks/spacy_clusters.py writes spaCy's)")
    ap.add_argument("--ensemble", type=int, default=2)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--margins", nargs="+", default=["none"],
                    help="--ensemble-margin values to tag with (none: every tagger scores every word)")
    a = ap.parse_args(argv)
    path = os.path.join(a.shared, "data", "ud", "en_ewt", "train.conllu")
    if not os.path.exists(path):
        print(f"skipped: {path} is not there")
        return 0
    train, test = genre_split(read_conll(path, "conllu"))
    gold = [r for s in test for r in s.rows]
    margins = [check_ensemble_margin(m) for m in a.margins]
    print(f"{len(train):,} sentences learned, {len(test):,} tagged ({len(gold):,} words); "
          f"{a.columns}, ensemble {a.ensemble}, clusters {a.clusters or 'none'}, seeds {a.seeds}\n")
    print("| set | margin | " + " | ".join(COLUMNS) + " | XPOS by seed |")
    print("|---|---|" + "---:|" * len(COLUMNS) + "---|")
    learned = set(COLUMNS) if a.columns.strip().lower() == "all" else \
        {c.strip().upper() for c in a.columns.replace("+", ",").split(",")}
    for name in a.sets:
        runs = {m: [] for m in margins}
        for seed in a.seeds:
            tagger = Tagger(a.columns, templates=None if name == "default" else name, clusters=a.clusters,
                            ensemble=a.ensemble, jobs=a.jobs, seed=seed).fit(train)
            for margin in margins:
                tagger.ensemble_margin = margin
                system = [r for s in tagger.tag(blank(test)) for r in s.rows]
                runs[margin].append([100 * np.mean([g[k] == p[k] for g, p in zip(gold, system)])
                                     for k in COLUMNS.values()])
        for margin in margins:
            means = np.mean(runs[margin], axis=0)
            cells = [f"{m:.3f}" if c in learned else "-" for c, m in zip(COLUMNS, means)]
            by_seed = ", ".join(f"{r[1]:.3f}" for r in runs[margin]) if "XPOS" in learned else "-"
            label = "none" if margin is None else f"{margin:g}"
            print(f"| {name} | {label} | " + " | ".join(cells) + f" | {by_seed} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
