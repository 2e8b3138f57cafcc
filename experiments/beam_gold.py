"""Global training's gold sequence: the static oracle's one canonical sequence against the
dynamic oracle's (``-or dynamic`` with ``-b B``: at each step the model's best move among those that
lose no gold arc; spec beam.md §2.1), on the UD versions of the 13 CoNLL-X languages.

    python experiments/beam_gold.py [--data ../shared/data/ud] [--width 8] [--epochs 15]
                                    [--languages ar bg ...] [--rounds 10000] [--jobs 2] [-o FILE]

The set-up of ``experiments/beam.py``: nivreeager with -pp head and NivreEagerZN, trained on the
first 90 % of each train.conllu (max-violation, mini-batches of 4) and scored on the last 10 % (LAS
and UAS without punctuation). ``*`` marks a difference at p < 0.05 (randomized permutation test
over sentences).
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from maltpy.config import make_settings  # noqa: E402
from maltpy.evaluation.scores import evaluate  # noqa: E402
from maltpy.evaluation.significance import compare  # noqa: E402
from maltpy.experiments.languages import (add_study_arguments, study_paths, treebank_format,  # noqa: E402
                                         write_tables, NAMES, ud_split)
from maltpy.parsing.parser import Parser  # noqa: E402

GOLDS = ("static", "dynamic")


def run(path, holdout, gold, width, epochs):
    """One (language, gold): the test part's trees and the learning time."""
    train, test = ud_split(path, holdout)
    fmt, root = treebank_format(path)
    settings = make_settings(algorithm="nivreeager", features="NivreEagerZN", marking_strategy="head",
                             input_format=fmt, root_label=root, verbose=False, jobs=1, learner="perceptron",
                             learner_options=f"-i {epochs}", beam_width=width, oracle=gold)
    t0 = time.perf_counter()
    p = Parser(settings).fit(train, fmt=fmt)
    return p.parse_trees(test), time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_study_arguments(ap, os.path.join(HERE, "..", "..", "shared", "data", "ud"))
    ap.add_argument("--width", type=int, default=8, help="the beam's width")
    ap.add_argument("--epochs", type=int, default=15)
    a = ap.parse_args()
    t0 = time.perf_counter()
    paths = study_paths(a)
    lines = [f"### Global training with a beam of {a.width}: the static oracle's gold against the dynamic "
             "oracle's", "", "| Language | static LAS | UAS | learning | dynamic LAS | UAS | learning | "
             "dynamic − static |", "|---|" + "---:|" * 7]
    sums = {g: [0.0, 0.0] for g in GOLDS}
    better = significant = 0
    with ProcessPoolExecutor(a.jobs) as pool:
        jobs = {(lang, g): pool.submit(run, path, a.holdout, g, a.width, a.epochs)
                for lang, path in paths.items() for g in GOLDS}
        for lang, path in paths.items():
            _, test = ud_split(path, a.holdout)
            parsed, secs, scores = {}, {}, {}
            for g in GOLDS:
                trees, secs[g] = jobs[lang, g].result()
                parsed[g] = [s.with_tree(h, l) for s, (h, l) in zip(test, trees)]
                scores[g] = evaluate(test, parsed[g])["no_punct"]
                sums[g][0] += scores[g].las
                sums[g][1] += scores[g].uas
            p = compare(test, parsed["static"], parsed["dynamic"], rounds=a.rounds, punctuation=False)["LAS"]["p"]
            diff = scores["dynamic"].las - scores["static"].las
            better += diff > 0
            significant += diff > 0 and p < 0.05
            lines.append(f"| {NAMES.get(lang, lang)} | {scores['static'].las:.2f} | {scores['static'].uas:.2f} | "
                         f"{secs['static']:.0f} s | {scores['dynamic'].las:.2f}{'*' if p < 0.05 else ''} | "
                         f"{scores['dynamic'].uas:.2f} | {secs['dynamic']:.0f} s | {diff:+.2f} |")
            print(lines[-1], file=sys.stderr)
    n = max(len(paths), 1)
    lines.append(f"| **Average** | **{sums['static'][0] / n:.2f}** | {sums['static'][1] / n:.2f} | | "
                 f"**{sums['dynamic'][0] / n:.2f}** | {sums['dynamic'][1] / n:.2f} | | "
                 f"**{(sums['dynamic'][0] - sums['static'][0]) / n:+.2f}** |")
    lines += ["", f"The dynamic oracle's gold is better on {better} of {len(paths)} languages, significantly on "
              f"{significant}. Whole study: {time.perf_counter() - t0:.0f} s ({a.jobs} processes, one thread each)."]
    write_tables("\n".join(lines) + "\n", a.o)


if __name__ == "__main__":
    main()
