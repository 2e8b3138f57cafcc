"""Beam search with global training against greedy parsing, and the reverse combination with a
beam (the thesis's ZPar experiments: Tables 6, 9 and 10), on the UD versions of the 13 CoNLL-X
languages.

    python experiments/beam.py [--data ../shared/data/ud] [-o docs/beam-languages.md] [--width 16]
                               [--epochs 15] [--folds 2] [--languages ar bg ...] [--rounds 10000] [--jobs 2]

Per language: nivreeager with -pp head (the thesis's set-up for ZPar too) and the NivreEagerZN
feature model (Zhang & Nivre's templates, as ZPar's), trained on the first 90% of train.conllu
and scored on the last 10% (LAS and UAS without punctuation):

- greedy: LIBLINEAR (MaltParser's learner) and the perceptron with the dynamic oracle;
- beam: the structured perceptron trained globally with a beam of ``--width`` (max-violation,
  mini-batches of 4), parsing with that beam, left to right (ZP) and right to left (REV);
- a beam of 8 at parse time over the two greedy models (their decisions' log-probabilities);
- the two beams combined, position-based and length-based, order and parameter chosen by a
  ``--folds`` cross-validation on the training part (the procedure of -dir both,
  :func:`maltpy.transform.combine.choose_combination`; the thesis used ten folds).

`*` marks a difference at p < 0.05 (randomized permutation test over sentences): beam against the
greedy dynamic perceptron, combinations against the beam alone. The thesis's own figures (CoNLL-X
data, ZPar's beam of 64) are printed beside the averages: compare the differences, not the
levels.
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from maltpy.chunks import folds as cv_folds  # noqa: E402
from maltpy.config import make_settings  # noqa: E402
from maltpy.evaluation.scores import evaluate  # noqa: E402
from maltpy.evaluation.significance import compare  # noqa: E402
from maltpy.experiments.languages import (add_study_arguments, study_paths, treebank_format,  # noqa: E402
                                         write_tables, NAMES, THESIS_LANGUAGES, ud_split)
from maltpy.parsing.parser import Parser  # noqa: E402
from maltpy.transform.combine import choose_combination, combine_trees  # noqa: E402

#: the thesis's LAS (9 treebanks: 8 CoNLL-X and WSJ): greedy MaltParser arc-eager -pp (Table 1),
#: ZPar (Table 6), ZPar's position- and length-based combinations with its reverse (Tables 9, 10)
THESIS = {"ar": (67.19, 66.95, 67.52, 66.77), "zh": (87.04, 88.27, 88.33, 88.57), "cs": (79.68, 84.16, 84.34, 84.16),
          "da": (85.51, 86.51, 86.57, 86.55), "de": (87.30, 90.24, 90.48, 90.52), "pt": (88.04, 88.70, 88.94, 89.10),
          "sv": (84.58, 85.44, 85.68, 85.64), "tr": (65.80, 65.52, 66.22, 66.70), "en": (89.09, 91.45, 91.49, 91.51)}
CELLS = ("liblinear", "dynamic", "beam", "rev")


def cell_settings(cell, width, epochs, fmt, root, direction="ltr"):
    common = dict(algorithm="nivreeager", features="NivreEagerZN", marking_strategy="head", input_format=fmt,
                  root_label=root, verbose=False, jobs=1, direction=direction)
    if cell == "liblinear":
        return make_settings(learner="liblinear", **common)
    if cell == "dynamic":
        return make_settings(learner="perceptron", learner_options=f"-i {epochs}", oracle="dynamic", **common)
    return make_settings(learner="perceptron", learner_options=f"-i {epochs}", beam_width=width, **common)


def run_cell(path, holdout, cell, width, epochs):
    """One (language, cell): the test part's trees, (learning, parsing) seconds and, for a greedy
    model, its trees with a beam of 8 over the decisions' log-probabilities (``--beam-scores
    local``, the learner's temperature)."""
    train, test = ud_split(path, holdout)
    fmt, root = treebank_format(path)
    t0 = time.perf_counter()
    p = Parser(cell_settings(cell if cell != "rev" else "beam", width, epochs, fmt, root,
                             "rtl" if cell == "rev" else "ltr")).fit(train, fmt=fmt)
    t1 = time.perf_counter()
    trees = p.parse_trees(test)
    t2 = time.perf_counter()
    local = None
    if cell in ("liblinear", "dynamic"):
        p.settings.beam_width = 8
        local = p.parse_trees(test)
    return trees, (t1 - t0, t2 - t1), local


def run_fold(path, holdout, folds, k, width, epochs):
    """Fold k of the cross-validation that chooses the combinations: (its gold part, the beam's
    trees left to right and right to left, from parsers trained on the other folds)."""
    train, _ = ud_split(path, holdout)
    fmt, root = treebank_format(path)
    rest, part = list(cv_folds(train, folds))[k]
    trees = [Parser(cell_settings("beam", width, epochs, fmt, root, d)).fit(rest, fmt=fmt).parse_trees(part)
             for d in ("ltr", "rtl")]
    return part, trees[0], trees[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_study_arguments(ap, os.path.join(HERE, "..", "..", "shared", "data", "ud"))
    ap.add_argument("--width", type=int, default=16, help="the beam's width (the thesis's ZPar: 64)")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--folds", type=int, default=2, help="folds of the cross-validation choosing the combinations")
    a = ap.parse_args()
    t0 = time.perf_counter()
    paths = study_paths(a)
    rows = {}
    with ProcessPoolExecutor(a.jobs) as pool:
        cells = {(lang, c): pool.submit(run_cell, path, a.holdout, c, a.width, a.epochs)
                 for lang, path in paths.items() for c in CELLS}
        folds = {(lang, k): pool.submit(run_fold, path, a.holdout, a.folds, k, a.width, a.epochs)
                 for lang, path in paths.items() for k in range(a.folds)}
        for lang in paths:
            _, test = ud_split(paths[lang], a.holdout)
            out = {c: cells[lang, c].result() for c in CELLS}
            parsed = {c: [s.with_tree(h, l) for s, (h, l) in zip(test, out[c][0])] for c in CELLS}
            for c in ("liblinear", "dynamic"):
                parsed[c + "_b8"] = [s.with_tree(h, l) for s, (h, l) in zip(test, out[c][2])]
            held_out = [folds[lang, k].result() for k in range(a.folds)]
            chosen = {c: choose_combination(held_out, (c,)) for c in ("position", "length")}
            for c, ch in chosen.items():
                parsed[c] = [s.with_tree(*combine_trees(x, y, ch["criterion"], ch["param"], ch["first"])[:2])
                             for s, x, y in zip(test, out["beam"][0], out["rev"][0])]
            row = {"chosen": chosen, "times": {c: out[c][1] for c in CELLS}}
            for c, trees in parsed.items():
                s = evaluate(test, trees)["no_punct"]
                against = {"beam": "dynamic", "position": "beam", "length": "beam", "liblinear_b8": "liblinear",
                           "dynamic_b8": "dynamic"}.get(c)
                sig = compare(test, parsed[against], trees, rounds=a.rounds, punctuation=False) if against else None
                row[c] = {"las": s.las, "uas": s.uas, "p": sig["LAS"]["p"] if sig else 1.0}
            rows[lang] = row
            print(f"{lang}: liblinear {row['liblinear']['las']:.2f} dynamic {row['dynamic']['las']:.2f} "
                  f"beam {row['beam']['las']:.2f} rev {row['rev']['las']:.2f} pos {row['position']['las']:.2f} "
                  f"len {row['length']['las']:.2f}", file=sys.stderr)
    text = tables(rows, a) + (f"\n\nWhole study: {time.perf_counter() - t0:.0f} s on this machine ({a.jobs} "
                              f"processes, one thread each).\n")
    write_tables(text, a.o)


def tables(rows, a, alpha=0.05):
    star = lambda p: "*" if p < alpha else ""  # noqa: E731
    order = lambda ch: "ZP+REV" if ch["first"] == "ltr" else "REV+ZP"  # noqa: E731
    langs = list(rows)
    mean = lambda f, ls=langs: sum(f(rows[l]) for l in ls) / max(len(ls), 1)  # noqa: E731
    out = [f"### nivreeager -pp head, NivreEagerZN: greedy against a global beam of {a.width}", "",
           "| Language | LIBLINEAR LAS | UAS | dynamic perceptron LAS | UAS | beam (ZP) LAS | UAS | beam − dynamic | "
           "REV LAS | PosComb LAS | p | order | LenComb LAS | l | order |", "|---|" + "---:|" * 14]
    for lang in langs:
        r = rows[lang]
        ch = r["chosen"]
        out.append(f"| {NAMES.get(lang, lang)} | {r['liblinear']['las']:.2f} | {r['liblinear']['uas']:.2f} | "
                   f"{r['dynamic']['las']:.2f} | {r['dynamic']['uas']:.2f} | {r['beam']['las']:.2f}{star(r['beam']['p'])} | "
                   f"{r['beam']['uas']:.2f} | {r['beam']['las'] - r['dynamic']['las']:+.2f} | {r['rev']['las']:.2f} | "
                   f"{r['position']['las']:.2f}{star(r['position']['p'])} | {ch['position']['param']} | "
                   f"{order(ch['position'])} | {r['length']['las']:.2f}{star(r['length']['p'])} | "
                   f"{ch['length']['param']} | {order(ch['length'])} |")
    avg = lambda k, m="las", ls=langs: mean(lambda r: r[k][m], ls)  # noqa: E731
    out.append(f"| **Average** | **{avg('liblinear'):.2f}** | {avg('liblinear', 'uas'):.2f} | **{avg('dynamic'):.2f}** | "
               f"{avg('dynamic', 'uas'):.2f} | **{avg('beam'):.2f}** | {avg('beam', 'uas'):.2f} | "
               f"**{avg('beam') - avg('dynamic'):+.2f}** | {avg('rev'):.2f} | **{avg('position'):.2f}** | | | "
               f"**{avg('length'):.2f}** | | |")
    thesis = [l for l in langs if l in THESIS_LANGUAGES]
    t_langs = [l for l in THESIS if l in thesis]
    if t_langs:
        tm = lambda i: sum(THESIS[l][i] for l in t_langs) / len(t_langs)  # noqa: E731
        out += ["", f"Over the thesis's languages here ({', '.join(NAMES[l] for l in t_langs)}): beam − dynamic "
                f"{avg('beam', ls=t_langs) - avg('dynamic', ls=t_langs):+.2f}, beam − LIBLINEAR "
                f"{avg('beam', ls=t_langs) - avg('liblinear', ls=t_langs):+.2f}, PosComb − beam "
                f"{avg('position', ls=t_langs) - avg('beam', ls=t_langs):+.2f}, LenComb − beam "
                f"{avg('length', ls=t_langs) - avg('beam', ls=t_langs):+.2f}. The thesis on the same languages "
                f"(CoNLL-X data): ZPar − greedy MaltParser {tm(1) - tm(0):+.2f}, PosComb − ZPar {tm(2) - tm(1):+.2f}, "
                f"LenComb − ZPar {tm(3) - tm(1):+.2f}; on its 9 treebanks +1.45, +0.26, +0.25."]
    better = sum(rows[l]["beam"]["las"] > rows[l]["dynamic"]["las"] for l in langs)
    sig_better = sum(rows[l]["beam"]["las"] > rows[l]["dynamic"]["las"] and rows[l]["beam"]["p"] < alpha for l in langs)
    out += ["", "A beam of 8 over the greedy models (`--beam-scores local`: each decision's log-probability, "
            "the learner's temperature, chosen on EWT dev: LIBLINEAR 3, perceptron 0.1):", "",
            "| Language | LIBLINEAR | beam 8 | dynamic perceptron | beam 8 |", "|---|" + "---:|" * 4]
    for lang in langs:
        r = rows[lang]
        out.append(f"| {NAMES.get(lang, lang)} | {r['liblinear']['las']:.2f} | {r['liblinear_b8']['las']:.2f}"
                   f"{star(r['liblinear_b8']['p'])} | {r['dynamic']['las']:.2f} | {r['dynamic_b8']['las']:.2f}"
                   f"{star(r['dynamic_b8']['p'])} |")
    out.append(f"| **Average** | **{avg('liblinear'):.2f}** | **{avg('liblinear_b8'):.2f}** | "
               f"**{avg('dynamic'):.2f}** | **{avg('dynamic_b8'):.2f}** |")
    out += ["", f"The beam is better than the greedy dynamic perceptron on {better} of {len(langs)} languages "
            f"(significantly on {sig_better}). Combinations: better than the beam alone on "
            f"{sum(rows[l]['position']['las'] > rows[l]['beam']['las'] for l in langs)} (position) and "
            f"{sum(rows[l]['length']['las'] > rows[l]['beam']['las'] for l in langs)} (length) languages.", "",
           "Time (s): learning / parsing the test part", "",
           "| Language | LIBLINEAR | dynamic | beam ZP | beam REV |", "|---|" + "---:|" * 4]
    for lang in langs:
        t = rows[lang]["times"]
        out.append(f"| {NAMES.get(lang, lang)} | " + " | ".join(f"{t[c][0]:.0f} / {t[c][1]:.1f}" for c in CELLS) + " |")
    out += ["", f"`*`: p < {alpha} (randomized permutation test over sentences, {a.rounds:,} rounds): the beam "
            f"against the dynamic perceptron, a combination against the beam. Perceptrons: {a.epochs} epochs; "
            f"combinations chosen by {a.folds}-fold cross-validation on the training part with beam parsers."]
    return "\n".join(out)


if __name__ == "__main__":
    main()
