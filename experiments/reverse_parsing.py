"""Reverse parsing and the combination of both directions (Fernández-González, Gómez-Rodríguez &
Vilares) on the UD versions of the 13 CoNLL-X languages: the paper's Tables 1-3 and 5, 7, 8, 11.

    python experiments/reverse_parsing.py [--data ../shared/data/ud] [-o docs/reverse-parsing-tables.md]
                                          [--languages ar bg ...] [--folds 10] [--rounds 10000] [--jobs 2]
                                          [--learner libsvm] [--conll2007 ../shared/data/conll2007]
    python experiments/reverse_parsing.py --tune-features [-o docs/reverse-parsing-tuned.md]

Per language and system (nivreeager and nivrestandard, both with -pp head, maltpy's default
CoNLL-U feature models, LIBLINEAR or, with ``--learner libsvm``, MaltParser's LIBSVM set-up): the
first 90% of train.conllu trains, the last 10% is parsed
left to right (ARC), right to left (REV, -dir rtl), and combined, position-based and length-based,
with the order (ARC+REV or REV+ARC) and parameter (0-40) chosen, per criterion, by a
--folds cross-validation on the training part as the paper chose them (the same procedure as
-dir both, maltpy.transform.combine.choose_combination). Scores exclude punctuation; `*` marks a
difference from ARC at p < 0.05 (randomized permutation test over sentences). ``--conll2007 DIR``
adds the CoNLL 2007 Spanish and Basque files (CoNLL-X format, their own pre-UD annotation).
A second table per system judges -dir both on the whole training part, out of fold: each fold's
parses (from parsers that never saw the fold) combined as chosen on the other folds alone
(nested cross-validation), about ten times the test part's tokens.

With ``--tune-features`` (nivreeager only): each direction's feature model is chosen separately
on the training part, as the paper tuned its reverse parser's apart from the forward one (greedy
forward selection over ``maltpy.experiments.feature_search.ARC_EAGER_CANDIDATES``, two rounds,
trained on the training part's first 90% and scored on its last 10%); the cross-validation and
the final parsers then use those models.
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
from maltpy.experiments.feature_search import (ARC_EAGER_CANDIDATES, default_features,  # noqa: E402
                                               forward_selection, model_file, templates_cell)
from maltpy.experiments.languages import (add_study_arguments, learner_settings, write_tables, NAMES,  # noqa: E402
                                         ROOT_LABELS, THESIS_LANGUAGES, study_paths, treebank_format, ud_split)
from maltpy.chunks import folds as cv_folds  # noqa: E402
from maltpy.parsing.parser import Parser  # noqa: E402
from maltpy.transform.combine import choose_combination, choose_out_of_fold, combine_trees  # noqa: E402

ALGORITHMS = ["nivreeager", "nivrestandard"]
# the paper's averages (9 treebanks: 8 CoNLL-X and WSJ), LAS without punctuation
PAPER = {"nivreeager": {"arc": 81.58, "position": 81.82, "length": 81.85},
         "nivrestandard": {"arc": 81.12, "position": 81.47, "length": 81.49}}


def cell_settings(algorithm, direction, learner="liblinear", language="", fmt="conllu"):
    return dict(algorithm=algorithm, input_format=fmt, verbose=False, root_label=ROOT_LABELS[fmt], marking_strategy="head",
                direction=direction, jobs=1, **learner_settings(learner, algorithm, language, fmt))


def parser(algorithm, direction, learner="liblinear", language="", features=None, fmt="conllu"):
    extra = {"features": features[direction]} if features else {}
    return Parser(make_settings(**cell_settings(algorithm, direction, learner, language, fmt), **extra))


def run_cell(path, holdout, algorithm, folds, learner="liblinear", language="", tune=False):
    """One (language, algorithm): cross-validation, final parsers, parses of the test part; with
    ``tune``, each direction's feature model chosen on the training part first."""
    train, test = ud_split(path, holdout)
    fmt = treebank_format(path)[0]
    if not tune:
        return _run_cell(train, test, algorithm, folds, learner, language, fmt=fmt)
    import tempfile
    with tempfile.TemporaryDirectory(prefix="maltpy-reverse-") as work:
        features, added = {}, {}
        t0 = time.perf_counter()
        for d in ("ltr", "rtl"):
            settings = cell_settings(algorithm, d, learner, language)
            base = default_features(settings)
            chosen, _ = forward_selection(train, base, ARC_EAGER_CANDIDATES, settings, rounds=2)
            added[d] = chosen[len(base):]
            features[d] = model_file(work, chosen, d)
        search_s = time.perf_counter() - t0
        out = _run_cell(train, test, algorithm, folds, learner, language, features)
    out.update(added=added, search_s=search_s)
    return out


def _run_cell(train, test, algorithm, folds, learner, language, features=None, fmt="conllu"):
    t0 = time.perf_counter()
    held_out = []
    for rest, part in cv_folds(train, folds):
        held_out.append((part,) + tuple(parser(algorithm, d, learner, language, features, fmt).fit(rest, fmt=fmt)
                                        .parse_trees(part) for d in ("ltr", "rtl")))
    chosen = {c: choose_combination(held_out, (c,)) for c in ("position", "length")}
    chosen["both"] = choose_combination(held_out)  # what -dir both picks: the criterion too
    cv_s = time.perf_counter() - t0
    out = {"cv_s": cv_s, "chosen": chosen, "nested": nested_choices(held_out)}
    times = {}
    trees = {}
    for d in ("ltr", "rtl"):
        t1 = time.perf_counter()
        p = parser(algorithm, d, learner, language, features, fmt).fit(train, fmt=fmt)
        t2 = time.perf_counter()
        trees[d] = p.parse_trees(test)
        times[d] = (t2 - t1, time.perf_counter() - t2)
    out["times"] = times
    out["arc"] = [s.with_tree(h, l) for s, (h, l) in zip(test, trees["ltr"])]
    out["rev"] = [s.with_tree(h, l) for s, (h, l) in zip(test, trees["rtl"])]
    for c, ch in chosen.items():
        combined, fallbacks = [], 0
        for s, a, b in zip(test, trees["ltr"], trees["rtl"]):
            h, l, fell_back = combine_trees(a, b, ch["criterion"], ch["param"], ch["first"])
            combined.append(s.with_tree(h, l))
            fallbacks += fell_back
        out[c] = combined
        out[f"{c}_fallback"] = 100.0 * fallbacks / max(len(test), 1)
    return out


def nested_choices(held_out):
    """-dir both's choice judged on ten times the test part's data: each fold's parses combined as
    chosen on the other folds alone (nested cross-validation: neither the fold's parsers nor its
    choice saw it). Returns (gold, left-to-right, combined) sentences over every fold."""
    rows = []
    for (part, ltr, _), (_, trees) in zip(held_out, choose_out_of_fold(held_out)):
        rows += [(s, s.with_tree(*a), s.with_tree(*t)) for s, a, t in zip(part, ltr, trees)]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_study_arguments(ap, os.path.join(HERE, "..", "..", "shared", "data", "ud"), conll2007=True)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--tune-features", action="store_true",
                    help="nivreeager only, each direction's feature model chosen on the training part")
    a = ap.parse_args()
    if a.tune_features and a.conll2007:
        ap.error("--tune-features searches over UD's columns (UPOSTAG, XPOSTAG): leave out --conll2007")
    t0 = time.perf_counter()
    paths = study_paths(a)
    algorithms = ["nivreeager"] if a.tune_features else ALGORITHMS
    results = {alg: {} for alg in algorithms}
    with ProcessPoolExecutor(a.jobs) as pool:
        futures = {(alg, lang): pool.submit(run_cell, paths[lang], a.holdout, alg, a.folds, a.learner, lang,
                                            a.tune_features)
                   for alg in algorithms for lang in paths}
        for (alg, lang), fut in futures.items():
            r = fut.result()
            _, test = ud_split(paths[lang], a.holdout)
            row = {"chosen": r["chosen"], "times": r["times"], "cv_s": r["cv_s"]}
            for key in ("arc", "rev", "position", "length", "both"):
                s = evaluate(test, r[key])["no_punct"]
                sig = compare(test, r["arc"], r[key], rounds=a.rounds, punctuation=False) if key != "arc" else None
                row[key] = {"las": s.las, "uas": s.uas, "p_las": sig["LAS"]["p"] if sig else 1.0,
                            "p_uas": sig["UAS"]["p"] if sig else 1.0}
            gold, arc, both = (list(x) for x in zip(*r["nested"]))
            s_arc, s_both = (evaluate(gold, t)["no_punct"] for t in (arc, both))
            sig = compare(gold, arc, both, rounds=a.rounds, punctuation=False)
            row["nested"] = {"arc": s_arc.las, "both": s_both.las, "p": sig["LAS"]["p"], "tokens": s_arc.tokens}
            row["fallback"] = {c: r[f"{c}_fallback"] for c in ("position", "length")}
            row["added"] = r.get("added")
            results[alg][lang] = row
            print(f"{alg} {lang}: ARC {row['arc']['las']:.2f} REV {row['rev']['las']:.2f} "
                  f"pos {row['position']['las']:.2f} len {row['length']['las']:.2f} "
                  f"both {row['both']['las']:.2f}", file=sys.stderr)
    text = tables(results, a.rounds, a.folds)
    if a.tune_features:
        text += "\n\n### Templates the searches added to the default model\n\n| Language | ARC (left to right) | " \
                "REV (right to left) |\n|---|---|---|\n" + "\n".join(
                    f"| {NAMES.get(lang, lang)} | " + " | ".join(
                        templates_cell(row["added"][d]) for d in ("ltr", "rtl")) + " |"
                    for lang, row in results["nivreeager"].items())
    text += (f"\n\nWhole study: {time.perf_counter() - t0:.0f} s on this machine ({a.jobs} processes"
             f"{', --learner ' + a.learner if a.learner != 'liblinear' else ''}).\n")
    write_tables(text, a.o)


def thesis_note(rows):
    """The average gains over the thesis's languages, when the study has others too."""
    thesis = [lang for lang in rows if lang in THESIS_LANGUAGES]
    if not thesis or len(thesis) == len(rows):
        return ""
    gain = {c: sum(rows[l][c]["las"] - rows[l]["arc"]["las"] for l in thesis) / len(thesis)
            for c in ("position", "length", "both")}
    return (f"; over the thesis's {len(thesis)} languages: PosComb {gain['position']:+.2f}, "
            f"LenComb {gain['length']:+.2f}, -dir both {gain['both']:+.2f}")


def order_name(chosen):
    """Which parser a combination asks first, as the paper writes it."""
    return "ARC+REV" if chosen["first"] == "ltr" else "REV+ARC"


def choice(chosen):
    """A combination as the tables show it: criterion, parameter and order."""
    if chosen["first"] == "rtl" and chosen["param"] == 0:
        return "ARC alone"
    return f"{chosen['criterion'][:3]} {chosen['param']} {order_name(chosen)}"


def tables(results, rounds, folds, alpha=0.05):
    star = lambda p: "*" if p < alpha else ""  # noqa: E731
    out = []
    for alg, rows in results.items():
        langs = list(rows)
        mean = lambda f: sum(f(rows[l]) for l in langs) / len(langs)  # noqa: E731
        out += [f"### {alg} -pp head: left to right (ARC), right to left (REV) and the two combinations", "",
                "| Language | ARC LAS | UAS | REV LAS | UAS | PosComb LAS | UAS | p | order | "
                "LenComb LAS | UAS | l | order | -dir both LAS | UAS | its choice | cycles pos / len (% sentences) |",
                "|---|" + "---:|" * 16]
        for lang in langs:
            r = rows[lang]
            cell = lambda k: f"{r[k]['las']:.2f}{star(r[k]['p_las'])} | {r[k]['uas']:.2f}{star(r[k]['p_uas'])}"  # noqa: E731
            order = lambda c: order_name(r["chosen"][c])  # noqa: E731
            out.append(f"| {NAMES.get(lang, lang)} | {cell('arc')} | {cell('rev')} | {cell('position')} | "
                       f"{r['chosen']['position']['param']} | {order('position')} | {cell('length')} | "
                       f"{r['chosen']['length']['param']} | {order('length')} | {cell('both')} | "
                       f"{choice(r['chosen']['both'])} | "
                       f"{r['fallback']['position']:.2f} / {r['fallback']['length']:.2f} |")
        avg = lambda k, m: f"{mean(lambda r: r[k][m]):.2f}"  # noqa: E731
        out.append(f"| **Average** | **{avg('arc', 'las')}** | {avg('arc', 'uas')} | **{avg('rev', 'las')}** | "
                   f"{avg('rev', 'uas')} | **{avg('position', 'las')}** | {avg('position', 'uas')} | | | "
                   f"**{avg('length', 'las')}** | {avg('length', 'uas')} | | | "
                   f"**{avg('both', 'las')}** | {avg('both', 'uas')} | | "
                   f"{mean(lambda r: r['fallback']['position']):.2f} / {mean(lambda r: r['fallback']['length']):.2f} |")
        kinds = ("position", "length", "both")
        better = {c: sum(rows[l][c]["las"] > rows[l]["arc"]["las"] for l in langs) for c in kinds}
        worse = {c: sum(rows[l][c]["las"] < rows[l]["arc"]["las"] for l in langs) for c in kinds}
        p = PAPER[alg]
        out += ["", f"Paper (9 treebanks): ARC {p['arc']:.2f}, PosComb {p['position']:.2f} "
                f"({p['position'] - p['arc']:+.2f}), LenComb {p['length']:.2f} ({p['length'] - p['arc']:+.2f}). "
                f"Here: PosComb {mean(lambda r: r['position']['las'] - r['arc']['las']):+.2f} "
                f"(better on {better['position']}, worse on {worse['position']} of {len(langs)} languages), "
                f"LenComb {mean(lambda r: r['length']['las'] - r['arc']['las']):+.2f} "
                f"(better on {better['length']}, worse on {worse['length']}), -dir both (criterion chosen "
                f"too) {mean(lambda r: r['both']['las'] - r['arc']['las']):+.2f} (better on {better['both']}, "
                f"worse on {worse['both']})" + thesis_note(rows) + ".", "",
                "Time (s): cross-validation (" + str(folds) + " folds, 2 parsers each) / learning ARC / REV / "
                "parsing the test part ARC / REV", "",
                "| Language | CV | learn ARC | learn REV | parse ARC | parse REV |", "|---|" + "---:|" * 5]
        for lang in langs:
            r = rows[lang]
            out.append(f"| {NAMES.get(lang, lang)} | {r['cv_s']:.1f} | {r['times']['ltr'][0]:.1f} | "
                       f"{r['times']['rtl'][0]:.1f} | {r['times']['ltr'][1]:.2f} | {r['times']['rtl'][1]:.2f} |")
        nested = {l: rows[l]["nested"] for l in langs}
        gain = {l: n["both"] - n["arc"] for l, n in nested.items()}
        out += ["", f"-dir both judged out of fold on the whole training part ({folds} folds; each fold's "
                f"parses combined as chosen on the other {folds - 1}, nested), LAS without punctuation:", "",
                "| Language | tokens | ARC LAS | -dir both LAS | difference | p |", "|---|" + "---:|" * 5]
        for lang in langs:
            n = nested[lang]
            out.append(f"| {NAMES.get(lang, lang)} | {n['tokens']:,} | {n['arc']:.2f} | {n['both']:.2f}"
                       f"{star(n['p'])} | {gain[lang]:+.2f} | {n['p']:.3f} |")
        out.append(f"| **Average** | | **{mean(lambda r: r['nested']['arc']):.2f}** | "
                   f"**{mean(lambda r: r['nested']['both']):.2f}** | "
                   f"**{mean(lambda r: r['nested']['both'] - r['nested']['arc']):+.2f}** | |")
        out += ["", f"Better on {sum(g > 0 for g in gain.values())}, worse on "
                f"{sum(g < 0 for g in gain.values())} of {len(langs)} languages; significantly better on "
                f"{sum(gain[l] > 0 and nested[l]['p'] < alpha for l in langs)}, significantly worse on "
                f"{sum(gain[l] < 0 and nested[l]['p'] < alpha for l in langs)}.", ""]
    out.append(f"`*`: differs from ARC at p < {alpha} (randomized permutation test over sentences, "
               f"{rounds:,} rounds). Combinations chosen by {folds}-fold cross-validation on the training part.")
    return "\n".join(out)


if __name__ == "__main__":
    main()
