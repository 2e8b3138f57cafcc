"""Undirected parsing (Gómez-Rodríguez, Fernández-González & Darriba 2015; thesis ch. 4.1-4.2) on the
UD versions of the 13 CoNLL-X languages: the shape of the paper's Tables 1-3 and its error analysis.

    python experiments/undirected.py [--data ../shared/data/ud] [-o docs/undirected-tables.md]
                                     [--plot docs/undirected-lengths.png] [--languages ar bg ...]
                                     [--rounds 10000] [--jobs 2] [--learner libsvm]
    python experiments/undirected.py --tune-features [-o docs/undirected-tuned.md]

Per language: the first 90% of train.conllu trains, the last 10% is parsed. For each of planar,
2planar and covnonproj: the directed parser, the undirected one with naive reconstruction
(N) and with label-based reconstruction (L, the papers' v2), with maltpy's default CoNLL-U
feature models (which read the undirected counterparts of heads and dependents: the closest
linked node, the leftmost and rightmost linked nodes) and LIBLINEAR defaults (``--learner libsvm``:
MaltParser's LIBSVM defaults with the POS split of the first buffer word, as the thesis), no
pseudo-projective step (as the papers). Scores include punctuation, as the paper's Tables 1-3;
`*` marks a LAS difference between L and the directed parser at p < 0.05 (randomized
permutation test over sentences). The plot micro-averages over the languages the labelled
precision by predicted arc length and the labelled recall by gold arc length (CI §6).

With ``--tune-features``: covnonproj directed against label-based undirected, each with its feature
model chosen per language on the training part alone, as the thesis tuned its own (greedy forward
selection over ``maltpy.experiments.feature_search.COVINGTON_CANDIDATES``, two rounds, trained on
the training part's first 90% and scored on its last 10%), then trained on the whole training
part and scored on the held-out part.
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from maltpy.config import make_settings  # noqa: E402
from maltpy.evaluation.scores import evaluate  # noqa: E402
from maltpy.evaluation.significance import compare  # noqa: E402
from maltpy.experiments.feature_search import COVINGTON_CANDIDATES, templates_cell, tune_then_parse  # noqa: E402
from maltpy.experiments.languages import (add_study_arguments, average_subsets, learner_settings,  # noqa: E402
                                         write_tables, NAMES, THESIS_LANGUAGES, THESIS_LIBSVM, treebank_paths,
                                         ud_split)
from maltpy.experiments.runner import holdout_split  # noqa: E402
from maltpy.parsing.parser import Parser  # noqa: E402

SYSTEMS = ["planar", "2planar", "covnonproj"]
MODES = ["none", "naive", "label"]
# the papers' averages (CI 2015 Tables 1-3: 8 CoNLL-X treebanks and the WSJ, punctuation included)
PAPER = {"planar": {"none": (79.83, 84.50), "naive": (78.65, 83.35), "label": (80.51, 85.20)},
         "2planar": {"none": (80.17, 84.87), "naive": (78.44, 83.10), "label": (80.20, 84.87)},
         "covnonproj": {"none": (80.23, 84.92), "naive": (77.36, 82.12), "label": (80.72, 85.23)}}
MAX_LENGTH = 25   # the plot's arc lengths: 1 .. 24, and 25 for everything longer


def run_cell(path, holdout, algorithm, mode, learner="liblinear", language="", tuning=False, allow_shift=False):
    train, test = ud_split(path, holdout)
    if tuning:   # the held-out part stays untouched: train on 90% of the training part, score the rest
        train, test = holdout_split(train, holdout)
    shift = {"allow_shift": True} if allow_shift and algorithm.startswith("cov") else {}
    p = Parser(make_settings(algorithm=algorithm, undirected=mode, input_format="conllu", verbose=False,
                             root_label="root", jobs=1, **shift, **learner_settings(learner, algorithm, language)))
    t0 = time.perf_counter()
    p.fit(train, fmt="conllu")
    learn = time.perf_counter() - t0
    t0 = time.perf_counter()
    parsed = p.parse(test)
    parse = time.perf_counter() - t0
    return {"test": test, "parsed": parsed, "learn": learn, "parse": parse,
            "tokens": sum(len(s) for s in test)}


def tuned_cell(path, holdout, mode, learner="liblinear", language=""):
    """covnonproj in ``mode`` with its feature model chosen on the training part; a worker's job."""
    train, test = ud_split(path, holdout)
    settings = dict(algorithm="covnonproj", undirected=mode, input_format="conllu", verbose=False,
                    root_label="root", jobs=1, **learner_settings(learner, "covnonproj", language))
    return tune_then_parse(train, test, COVINGTON_CANDIDATES, settings, rounds=2, part="all")


def tuned_study(a, paths):
    """The --tune-features table: directed and label-based covnonproj, tuned features each."""
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        futures = {(lang, mode): pool.submit(tuned_cell, paths[lang], a.holdout, mode, a.learner, lang)
                   for lang in paths for mode in ("none", "label")}
        rows = []
        for lang in paths:
            test = ud_split(paths[lang], a.holdout)[1]
            d, u = futures[lang, "none"].result(), futures[lang, "label"].result()
            sd, su = (evaluate(test, r["out"])["all"] for r in (d, u))
            p = compare(test, d["out"], u["out"], rounds=a.rounds)["LAS"]["p"]
            rows.append((lang, sd, su, p, d, u))
            print(f"{lang}: directed {sd.las:.2f} label {su.las:.2f}", file=sys.stderr)
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    out = ["### covnonproj: directed against label-based undirected, feature models chosen per language on the "
           "training part", "",
           "| language | directed LAS | UAS | L LAS | UAS | ULAS | L − directed | directed: templates added | "
           "L: templates added |", "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for lang, sd, su, p, d, u in rows:
        out.append(f"| {NAMES.get(lang, lang)} | {sd.las:.2f} | {sd.uas:.2f} | {su.las:.2f}{'*' if p < 0.05 else ''} "
                   f"| {su.uas:.2f} | {su.ulas:.2f} | {su.las - sd.las:+.2f} | {templates_cell(d['added'])} | "
                   f"{templates_cell(u['added'])} |")
    for name, subset in average_subsets(rows, lambda r: r[0]):
        dl, ul = mean([r[1].las for r in subset]), mean([r[2].las for r in subset])
        better = sum(r[2].las > r[1].las for r in subset)
        out.append(f"| {name} | {dl:.2f} | {mean([r[1].uas for r in subset]):.2f} | {ul:.2f} | "
                   f"{mean([r[2].uas for r in subset]):.2f} | {mean([r[2].ulas for r in subset]):.2f} | "
                   f"{ul - dl:+.2f} (better on {better} of {len(subset)}) | | |")
    search = sum(r[4]["search_s"] + r[5]["search_s"] for r in rows)
    out += ["", "Scores include punctuation. `*`: L differs from directed at p < 0.05 (randomized permutation "
            f"test over sentences, {a.rounds:,} rounds). Feature search: {search:.0f} s of CPU in all."]
    return "\n".join(out)


def length_counts(gold, parsed):
    """Per arc length: (correct, predicted) by predicted length and (correct, gold) by gold length."""
    prec = np.zeros((MAX_LENGTH + 1, 2), dtype=np.int64)
    rec = np.zeros((MAX_LENGTH + 1, 2), dtype=np.int64)
    for g, s in zip(gold, parsed):
        for d, (rg, rs) in enumerate(zip(g.rows, s.rows), 1):
            ok = rg[6] == rs[6] and rg[7] == rs[7]
            lp = min(abs(int(rs[6]) - d), MAX_LENGTH)
            lg = min(abs(int(rg[6]) - d), MAX_LENGTH)
            prec[lp] += (ok, 1)
            rec[lg] += (ok, 1)
    return prec, rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_study_arguments(ap, os.path.join(HERE, "..", "..", "shared", "data", "ud"))
    ap.add_argument("--plot", help="write the error-analysis plot here (PNG; needs matplotlib)")
    ap.add_argument("--tuning", action="store_true",
                    help="score on the last 10%% of each training part instead of the held-out part (tuning data)")
    ap.add_argument("--allow-shift", action="store_true",
                    help="Covington with SHIFT as a classifier decision (-cs true, the papers' explicit version)")
    ap.add_argument("--tune-features", action="store_true",
                    help="covnonproj directed and label-based, feature models chosen per language on the training part")
    a = ap.parse_args()
    t_start = time.perf_counter()
    paths = treebank_paths(a.data, a.languages)
    if a.tune_features:
        text = tuned_study(a, paths)
        text += f"\n\nWhole study: {time.perf_counter() - t_start:.0f} s on this machine (--jobs {a.jobs}).\n"
        write_tables(text, a.o)
        return
    cells = [(lang, alg, mode) for lang in paths for alg in SYSTEMS for mode in MODES]
    results = {}
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run_cell, paths[lang], a.holdout, alg, mode, a.learner, lang,
                               a.tuning, a.allow_shift): (lang, alg, mode)
                   for lang, alg, mode in cells}
        for fut, key in futures.items():
            results[key] = fut.result()
            r = results[key]
            s = evaluate(r["test"], r["parsed"])["all"]
            print(f"{key[0]} {key[1]} {key[2]}: LAS {s.las:.2f} UAS {s.uas:.2f} ULAS {s.ulas:.2f} "
                  f"({r['learn']:.1f} s)", file=sys.stderr)
    langs = list(paths)
    command = "python experiments/undirected.py" + (f" --learner {a.learner}" if a.learner != "liblinear" else "") \
        + (" --tuning" if a.tuning else "") + (" --allow-shift" if a.allow_shift else "")
    lines = [f"Command: `{command}` ({time.perf_counter() - t_start:.0f} s on the "
             f"2-core machine, --jobs {a.jobs}). Scores include punctuation; LDE = ULAS − LAS, UDE = UUAS − UAS; "
             "`*`: LAS of L differs from the directed parser's at p < 0.05.", ""]
    for alg in SYSTEMS:
        lines += [f"### {alg}", "",
                  "| language | LAS | UAS | N LAS | N UAS | N LDE | N UDE | L LAS | L UAS | L LDE | L UDE | "
                  "directed LDE | directed UDE |",
                  "|---|" + "---|" * 12]
        scores = {}
        for lang in langs:
            sc = {m: evaluate(results[(lang, alg, m)]["test"], results[(lang, alg, m)]["parsed"])["all"]
                  for m in MODES}
            scores[lang] = {m: np.array((sc[m].las, sc[m].uas, sc[m].ulas, sc[m].uuas, sc[m].lde, sc[m].ude))
                            for m in MODES}
            test = results[(lang, alg, "none")]["test"]
            p = compare(test, results[(lang, alg, "none")]["parsed"], results[(lang, alg, "label")]["parsed"],
                        a.rounds)
            star = "*" if p["LAS"]["p"] < 0.05 else ""
            svm = " (LIBSVM)" if a.learner == "thesis" and lang in THESIS_LIBSVM else ""
            lines.append(f"| {NAMES.get(lang, lang)}{svm} | {sc['none'].las:.2f} | {sc['none'].uas:.2f} | "
                         f"{sc['naive'].las:.2f} | {sc['naive'].uas:.2f} | {sc['naive'].lde:.2f} | {sc['naive'].ude:.2f} | "
                         f"{sc['label'].las:.2f}{star} | {sc['label'].uas:.2f} | {sc['label'].lde:.2f} | "
                         f"{sc['label'].ude:.2f} | {sc['none'].lde:.2f} | {sc['none'].ude:.2f} |")
        thesis = [lang for lang in langs if lang in THESIS_LANGUAGES]
        avg = {m: sum(scores[lang][m] for lang in langs) / len(langs) for m in MODES}
        averages = [("**average**", avg)]
        if thesis and len(thesis) < len(langs):
            thesis_avg = {m: sum(scores[lang][m] for lang in thesis) / len(thesis) for m in MODES}
            averages.append((f"average, the thesis's languages ({len(thesis)})", thesis_avg))
        for name, v in averages:
            lines.append(f"| {name} | {v['none'][0]:.2f} | {v['none'][1]:.2f} | {v['naive'][0]:.2f} | "
                         f"{v['naive'][1]:.2f} | {v['naive'][4]:.2f} | {v['naive'][5]:.2f} | "
                         f"{v['label'][0]:.2f} | {v['label'][1]:.2f} | {v['label'][4]:.2f} | "
                         f"{v['label'][5]:.2f} | {v['none'][4]:.2f} | {v['none'][5]:.2f} |")
        paper = PAPER[alg]
        lines.append(f"| the paper's average | {paper['none'][0]} | {paper['none'][1]} | {paper['naive'][0]} | "
                     f"{paper['naive'][1]} | | | {paper['label'][0]} | {paper['label'][1]} | | | | |")
        differences = "; ".join(f"{'' if k == 0 else 'over the thesis languages: '}N − directed "
                                f"{v['naive'][0] - v['none'][0]:+.2f}, L − directed {v['label'][0] - v['none'][0]:+.2f}"
                                for k, (_, v) in enumerate(averages))
        lines += ["", f"Average LAS differences: {differences} (the paper: "
                      f"{paper['naive'][0] - paper['none'][0]:+.2f}, {paper['label'][0] - paper['none'][0]:+.2f}).", ""]
    # speed: learning and parsing (the parse includes the reconstruction) summed over languages
    lines += ["Learning and parsing time summed over the languages (one thread per cell):", "",
              "| system | directed learn | N learn | L learn | directed parse | N parse | L parse |",
              "|---|---|---|---|---|---|---|"]
    for alg in SYSTEMS:
        t = {m: (sum(results[(l, alg, m)]["learn"] for l in langs), sum(results[(l, alg, m)]["parse"] for l in langs))
             for m in MODES}
        lines.append(f"| {alg} | {t['none'][0]:.1f} s | {t['naive'][0]:.1f} s | {t['label'][0]:.1f} s | "
                     f"{t['none'][1]:.2f} s | {t['naive'][1]:.2f} s | {t['label'][1]:.2f} s |")
    text = "\n".join(lines) + "\n"
    write_tables(text, a.o)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(2, 3, figsize=(14, 7), sharex=True)
        x = np.arange(1, MAX_LENGTH + 1)
        for col, alg in enumerate(SYSTEMS):
            for m, style in zip(MODES, ("-", ":", "--")):
                prec = sum(length_counts(results[(l, alg, m)]["test"], results[(l, alg, m)]["parsed"])[0]
                           for l in langs)
                rec = sum(length_counts(results[(l, alg, m)]["test"], results[(l, alg, m)]["parsed"])[1]
                          for l in langs)
                name = {"none": "directed", "naive": "naive (N)", "label": "label-based (L)"}[m]
                axes[0, col].plot(x, 100 * prec[1:, 0] / np.maximum(prec[1:, 1], 1), style, label=name)
                axes[1, col].plot(x, 100 * rec[1:, 0] / np.maximum(rec[1:, 1], 1), style, label=name)
            axes[0, col].set_title(alg)
            axes[1, col].set_xlabel(f"arc length ({MAX_LENGTH}: {MAX_LENGTH} or more)")
        axes[0, 0].set_ylabel("labelled precision (%), by predicted length")
        axes[1, 0].set_ylabel("labelled recall (%), by gold length")
        axes[0, 0].legend()
        fig.suptitle(f"Undirected parsing: micro-average over {len(langs)} UD languages (held-out 10 %)")
        fig.tight_layout()
        fig.savefig(a.plot, dpi=100)


if __name__ == "__main__":
    main()
