"""Constrained parsing, training on partial trees and arc scores (issue #43) on English EWT.

    python experiments/constrained.py [--shared ../shared] [-o results.md] [--seed 0]

EWT (UD English, CoNLL-X with XPOS as POSTAG, as the other EWT figures): models trained on
train.conllu, scored on dev.conllu (LAS with punctuation).

1. Given arcs: for nivreeager and covnonproj (MaltParser's default feature models, LIBLINEAR),
   10 %, 25 % and 50 % of dev's gold arcs (label included), drawn at random per word, are given
   to ``parse(..., constraints=True)``. How many are kept (and, of those lost, how many sit in
   sentences whose gold tree the system cannot build: non-projective ones for nivreeager), and the
   LAS of the other arcs against the unconstrained parse's LAS on the same arcs.
2. Partial trees: nivreeager, perceptron with the dynamic oracle (15 epochs), trained on full
   trees and on trees with 25 % and 50 % of their arcs hidden (HEAD and DEPREL ``_``), dev LAS.
3. Arc scores: the error rate (wrong head or label) of the 10 % of dev's arcs with the lowest
   score, against that of all arcs, for the margin (the score ``--arc-scores`` writes) and the
   softmax probability.
"""
import argparse
import os
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from maltpy.formats.conll import read_conll, to_conllx  # noqa: E402
from maltpy.parsing.parser import Parser  # noqa: E402
from maltpy.transform.pseudoproj import nonprojective_arcs  # noqa: E402


def given(sentences, share, rnd):
    """Copies whose HEAD and DEPREL are kept for a random share of the words, ``_`` elsewhere;
    and per sentence which words were given."""
    out, masks = [], []
    for s in sentences:
        rows, mask = [], []
        for r in s.rows:
            r = list(r)
            keep = rnd.random() < share
            if not keep:
                r[6], r[7] = "_", "_"
            rows.append(r)
            mask.append(keep)
        out.append(type(s)(rows, [], s.first_line, s.source, s.format))
        masks.append(mask)
    return out, masks


def hidden(sentences, share, rnd):
    out, _ = given(sentences, 1.0 - share, rnd)
    return out


def las(gold, parsed, masks=None, want=False):
    """LAS over the words whose mask is ``want`` (all words without masks)."""
    good = total = 0
    for k, (g, p) in enumerate(zip(gold, parsed)):
        for i, (a, b) in enumerate(zip(g.rows, p.rows)):
            if masks is not None and masks[k][i] != want:
                continue
            total += 1
            good += a[6] == b[6] and a[7] == b[7]
    return 100.0 * good / max(total, 1), total


def study_given(train, dev, rnd, out):
    out.append("## 1. Given arcs (EWT dev)\n")
    out.append("| system | given | given arcs | kept | lost (in trees the system cannot build) | LAS of the other arcs, "
               "constrained | unconstrained | parse time, constrained / free |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for algorithm in ("nivreeager", "covnonproj"):
        p = Parser(algorithm=algorithm, verbose=False, jobs=1).fit(train)
        t0 = time.perf_counter()
        free = p.parse(dev)
        t_free = time.perf_counter() - t0
        for share in (0.10, 0.25, 0.50):
            inputs, masks = given(dev, share, rnd)
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                parsed = p.parse(inputs, constraints=True)
                t_con = time.perf_counter() - t0
            n_given = kept = lost_unbuildable = 0
            for g, o, m in zip(dev, parsed, masks):
                buildable = algorithm != "nivreeager" or not nonprojective_arcs([-1] + g.heads)
                for a, b, keep in zip(g.rows, o.rows, m):
                    if keep:
                        n_given += 1
                        ok = a[6] == b[6] and a[7] == b[7]
                        kept += ok
                        lost_unbuildable += (not ok) and not buildable
            con_las, n_other = las(dev, parsed, masks, False)
            free_las, _ = las(dev, free, masks, False)
            out.append(f"| {algorithm} | {share:.0%} | {n_given} | {kept} | {n_given - kept} ({lost_unbuildable}) | "
                       f"{con_las:.2f} | {free_las:.2f} | {t_con:.2f} s / {t_free:.2f} s |")
    out.append("")


def study_partial(train, dev, rnd, out):
    out.append("## 2. Training on partial trees (nivreeager, perceptron, dynamic oracle)\n")
    out.append("| training trees | arcs given | dev LAS | learning |")
    out.append("|---|---:|---:|---:|")
    for share in (0.0, 0.25, 0.50):
        data = hidden(train, share, rnd) if share else train
        n = sum(r[6] != "_" for s in data for r in s.rows)
        t0 = time.perf_counter()
        p = Parser(algorithm="nivreeager", learner="perceptron", oracle="dynamic", verbose=False, jobs=1).fit(data)
        seconds = time.perf_counter() - t0
        out.append(f"| {'full' if not share else f'{share:.0%} hidden'} | {n} | {las(dev, p.parse(dev))[0]:.2f} | "
                   f"{seconds:.1f} s |")
    out.append("")


def study_scores(train, dev, out):
    out.append("## 3. Arc scores as error detectors (EWT dev)\n")
    out.append("| model | errors, all arcs | lowest 10 % by margin | ratio | lowest 10 % by probability | ratio |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for name, settings in (("nivreeager, LIBLINEAR", {}),
                           ("nivreeager, perceptron, dynamic oracle", {"learner": "perceptron", "oracle": "dynamic"})):
        p = Parser(algorithm="nivreeager", verbose=False, jobs=1, **settings).fit(train)
        offsets, heads, labels, conf = p.parse_arrays(dev, record_confidence=True)
        names = p.output_labels
        err = []
        rows = []
        for k, s in enumerate(dev):
            for i, r in enumerate(s.rows):
                row = offsets[k] + 1 + i
                rows.append(row)
                err.append(heads[row] != int(r[6]) or names[labels[row]] != r[7])
        err = np.array(err)
        cells = []
        for col in (0, 1):
            low = np.argsort(conf[rows, col], kind="stable")[:len(rows) // 10]
            cells += [f"{100 * err[low].mean():.2f} %", f"{err[low].mean() / err.mean():.2f}x"]
        out.append(f"| {name} | {100 * err.mean():.2f} % | " + " | ".join(cells) + " |")
    out.append("")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("-o", help="write the tables here too")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    ewt = os.path.join(a.shared, "data", "ud", "en_ewt")
    if not os.path.exists(os.path.join(ewt, "dev.conllu")):
        sys.exit(f"EWT not found in {ewt}")
    train = [to_conllx(s) for s in read_conll(os.path.join(ewt, "train.conllu"), "conllu", need_heads=True)]
    dev = [to_conllx(s) for s in read_conll(os.path.join(ewt, "dev.conllu"), "conllu", need_heads=True)]
    rnd = random.Random(a.seed)
    out = [f"# Constrained parsing, partial trees and arc scores on EWT (seed {a.seed})\n"]
    t0 = time.perf_counter()
    study_given(train, dev, rnd, out)
    study_partial(train, dev, rnd, out)
    study_scores(train, dev, out)
    out.append(f"({time.perf_counter() - t0:.0f} s)")
    text = "\n".join(out)
    print(text)
    if a.o:
        with open(a.o, "w", encoding="utf-8") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
