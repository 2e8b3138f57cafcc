"""Static against dynamic oracle for the averaged perceptron (Goldberg & Nivre 2012; thesis ch. 4.6)
on the UD versions of the 13 CoNLL-X languages.

    python experiments/dynamic_oracle.py [--data ../shared/data/ud] [-o tables.md] [--seeds 5]
                                         [--epochs 15] [--languages ar bg ...] [--rounds 10000] [--jobs 2]

Per language and algorithm (covnonproj, non-projective itself; nivreeager with -pp head, so that
its training trees are projective), maltpy's default CoNLL-U feature models, the perceptron
(-l perceptron, --epochs epochs) trained with the static oracle (on the oracle's instances) and
with the dynamic oracle (inside the transition loop, exploring from the second epoch with
probability 0.9), on the first 90% of train.conllu, evaluated on the last 10%; LAS and UAS
without punctuation, averaged over --seeds seeds (the order of the training data). `*`: the
dynamic oracle's parses of the first seed differ from the static oracle's at p < 0.05
(randomized permutation test over sentences). LIBLINEAR's figure is the reference.
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


def run(path, holdout, algorithm, learner, oracle, seed, epochs):
    train, test = ud_split(path, holdout)
    options = f"-i {epochs} -s {seed}" if learner == "perceptron" else ""
    fmt, root = treebank_format(path)
    settings = make_settings(algorithm=algorithm, input_format=fmt, verbose=False, root_label=root,
                             marking_strategy="head" if algorithm == "nivreeager" else "none", learner=learner,
                             learner_options=options, oracle=oracle, jobs=1)
    t0 = time.perf_counter()
    parser = Parser(settings).fit(train, fmt=fmt)
    return parser.parse(test), time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_study_arguments(ap, os.path.join(HERE, "..", "..", "shared", "data", "ud"), conll2007=True)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--algorithms", nargs="*", default=["covnonproj", "nivreeager"])
    a = ap.parse_args()
    t0 = time.perf_counter()
    paths = study_paths(a)
    datasets = list(paths)
    runs = [("liblinear", "static", 0)] + [("perceptron", o, s) for o in ("static", "dynamic") for s in range(a.seeds)]
    text = ""
    with ProcessPoolExecutor(a.jobs) as pool:
        futures = {(alg, lang, r): pool.submit(run, paths[lang], a.holdout, alg, r[0], r[1], r[2], a.epochs)
                   for alg in a.algorithms for lang in datasets for r in runs}
        for alg in a.algorithms:
            rows = {}
            for lang in datasets:
                _, test = ud_split(paths[lang], a.holdout)
                out = {r: futures[alg, lang, r].result() for r in runs}
                score = {r: evaluate(test, out[r][0])["no_punct"] for r in runs}
                mean = lambda o, m: sum(getattr(score[("perceptron", o, s)], m) for s in range(a.seeds)) / a.seeds  # noqa: E731
                sig = compare(test, out[("perceptron", "static", 0)][0], out[("perceptron", "dynamic", 0)][0],
                              rounds=a.rounds, punctuation=False)
                rows[lang] = {"liblinear": (score[runs[0]].las, score[runs[0]].uas),
                              "static": (mean("static", "las"), mean("static", "uas")),
                              "dynamic": (mean("dynamic", "las"), mean("dynamic", "uas")),
                              "p": sig["LAS"]["p"],
                              "time": {o: sum(out[("perceptron", o, s)][1] for s in range(a.seeds)) / a.seeds
                                       for o in ("static", "dynamic")}}
                print(f"{alg} {lang}: static {rows[lang]['static'][0]:.2f} dynamic {rows[lang]['dynamic'][0]:.2f}",
                      file=sys.stderr)
            text += f"### {alg}{' -pp head' if alg == 'nivreeager' else ''}\n\n" + table(rows) + "\n\n"
    text += (f"Perceptron figures: the mean of {a.seeds} seeds, {a.epochs} epochs. "
             f"Whole study: {time.perf_counter() - t0:.0f} s ({a.jobs} processes).\n")
    write_tables(text, a.o)


def table(rows):
    lines = ["| Language | LIBLINEAR LAS | UAS | static LAS | UAS | dynamic LAS | UAS | dynamic − static | "
             "learning static / dynamic (s) |", "|---|" + "---:|" * 8]
    for lang, r in rows.items():
        star = "*" if r["p"] < 0.05 else ""
        lines.append(f"| {NAMES.get(lang, lang)} | {r['liblinear'][0]:.2f} | {r['liblinear'][1]:.2f} | "
                     f"{r['static'][0]:.2f} | {r['static'][1]:.2f} | {r['dynamic'][0]:.2f}{star} | "
                     f"{r['dynamic'][1]:.2f} | {r['dynamic'][0] - r['static'][0]:+.2f} | "
                     f"{r['time']['static']:.1f} / {r['time']['dynamic']:.1f} |")
    avg = lambda k, i: sum(r[k][i] for r in rows.values()) / len(rows)  # noqa: E731
    lines.append(f"| **Average** | **{avg('liblinear', 0):.2f}** | {avg('liblinear', 1):.2f} | "
                 f"**{avg('static', 0):.2f}** | {avg('static', 1):.2f} | **{avg('dynamic', 0):.2f}** | "
                 f"{avg('dynamic', 1):.2f} | **{avg('dynamic', 0) - avg('static', 0):+.2f}** | |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
