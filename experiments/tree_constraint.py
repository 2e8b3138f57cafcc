"""Reproduce Nivre & Fernández-González (2014), Tables 1 and 2, on the UD versions of the
13 CoNLL-X languages: the old root heuristic against the tree constraint (Unshift).

    python experiments/tree_constraint.py [--data ../shared/data/ud] [-o docs/tree-constraint.md]
                                          [--test LANG=FILE ...] [--languages ar bg ...]

Per language: nivreeager with the default CoNLL-U feature model (UPOSTAG) is trained
on the first 90% of train.conllu (with pseudo-projective ``-pp head`` when the training
part has non-projective trees, as the paper did) and parses the last 10% (or the
explicit test file) once with the tree constraint. The stack at the first empty
buffer gives the old parse (leftover words to the root) and the new one, on the same
tokens. Scores include punctuation. Differences significant at 0.05 under a
randomized permutation test (10,000 rounds, sentence level) are marked with *.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from maltpy.config import make_settings  # noqa: E402
from maltpy.evaluation.fragmentation import diagnose  # noqa: E402
from maltpy.evaluation.scores import evaluate  # noqa: E402
from maltpy.evaluation.significance import compare  # noqa: E402
from maltpy.experiments.languages import write_tables, NAMES, UD_LANGUAGES as LANGUAGES  # noqa: E402
from maltpy.experiments.runner import holdout_split  # noqa: E402
from maltpy.formats.conll import read_conll  # noqa: E402
from maltpy.parsing.parser import Parser  # noqa: E402
from maltpy.transform import nonprojective_arcs  # noqa: E402



def study_language(train_path, test_path, holdout, rounds):
    sents = read_conll(train_path, "conllu", need_heads=True)
    if test_path:
        train, test = sents, read_conll(test_path, "conllu", need_heads=True)
    else:
        train, test = holdout_split(sents, holdout)
    nonproj = sum(bool(nonprojective_arcs([-1] + s.heads)) for s in train)
    # UD marks the root arc "root": the old heuristic attaches leftovers with that label (-grl root)
    flags = {"algorithm": "nivreeager", "input_format": "conllu", "verbose": False, "root_label": "root"}
    if nonproj:
        flags["marking_strategy"] = "head"
    t0 = time.perf_counter()
    parser = Parser(make_settings(**flags)).fit(train, fmt="conllu")
    learn = time.perf_counter() - t0
    stats, old, new = diagnose(parser, test)
    s_old, s_new = evaluate(test, old)["all"], evaluate(test, new)["all"]
    sig = compare(test, old, new, rounds=rounds)
    return {"stats": stats, "uas_old": s_old.uas, "uas_new": s_new.uas, "las_old": s_old.las,
            "las_new": s_new.las, "p_las": sig["LAS"]["p"], "p_uas": sig["UAS"]["p"],
            "nonproj_trees": nonproj, "pp": "head" if nonproj else "none", "learn_s": learn,
            "train": len(train), "test": len(test), "tokens": s_old.tokens}


def fmt(x):
    return "n/a" if x != x else f"{x:.2f}"


def tables(results, alpha=0.05):
    star = lambda p: "*" if p < alpha else ""
    out = ["### Table 1: fragmentation at the end of the input (development parts, punctuation included)", "",
           "| Language | UAS Old | UAS New | Stack-Token | Stack-Head | Correct Old | Correct New | "
           "Recall Old | Recall New | Recall root Old/New | Recall non-root Old/New |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    avg = {k: [] for k in ["uas_old", "uas_new", "st", "sh", "co", "cn", "ro", "rn", "las_old", "las_new"]}
    for lang, r in results.items():
        s = r["stats"]
        out.append(f"| {NAMES.get(lang, lang)} | {r['uas_old']:.2f} | {r['uas_new']:.2f}{star(r['p_uas'])} | "
                   f"{s.stack_token} | {s.stack_head} | {s.correct_old} | {s.correct_new} | "
                   f"{fmt(s.recall_old)} | {fmt(s.recall_new)} | {fmt(s.recall_root_old)} / "
                   f"{fmt(s.recall_root_new)} | {fmt(s.recall_nonroot_old)} / {fmt(s.recall_nonroot_new)} |")
        for k, v in (("uas_old", r["uas_old"]), ("uas_new", r["uas_new"]), ("st", s.stack_token),
                     ("sh", s.stack_head), ("co", s.correct_old), ("cn", s.correct_new),
                     ("las_old", r["las_old"]), ("las_new", r["las_new"])):
            avg[k].append(v)
        if s.stack_head:
            avg["ro"].append(s.recall_old)
            avg["rn"].append(s.recall_new)
    m = lambda k: sum(avg[k]) / len(avg[k]) if avg[k] else float("nan")
    out.append(f"| **Average** | {m('uas_old'):.2f} | {m('uas_new'):.2f} | {m('st'):.2f} | {m('sh'):.2f} | "
               f"{m('co'):.2f} | {m('cn'):.2f} | {fmt(m('ro'))} | {fmt(m('rn'))} | | |")
    out += ["", "### Table 2: LAS and UAS, old heuristic against the tree constraint (punctuation included)", ""]
    langs = list(results)
    out.append("| | | " + " | ".join(NAMES.get(l, l)[:3] for l in langs) + " | Ave |")
    out.append("|---|---|" + "---:|" * (len(langs) + 1))
    for metric in ("las", "uas"):
        for which in ("old", "new"):
            vals = []
            for l in langs:
                r = results[l]
                v = f"{r[f'{metric}_{which}']:.2f}"
                if which == "new":
                    v += star(r[f"p_{metric}"])
                vals.append(v)
            out.append(f"| {metric.upper()} | {which.capitalize()} | " + " | ".join(vals) +
                       f" | {m(f'{metric}_{which}'):.2f} |")
    out.append("")
    out.append(f"`*`: the new system's score differs from the old one's at p < {alpha} "
               "(randomized permutation test over sentences, 10,000 rounds).")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "ud"))
    ap.add_argument("--languages", nargs="*", default=LANGUAGES)
    ap.add_argument("--test", action="append", default=[], metavar="LANG=FILE",
                    help="explicit test file for a language (then all of train.conllu is trained on)")
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--rounds", type=int, default=10000)
    ap.add_argument("-o", help="write the Markdown tables here (default: standard output)")
    a = ap.parse_args()
    tests = dict(t.split("=", 1) for t in a.test)
    results = {}
    t0 = time.perf_counter()
    for lang in a.languages:
        path = os.path.join(a.data, lang, "train.conllu")
        if not os.path.exists(path):
            sys.exit(f"{path} not found")
        r = study_language(path, tests.get(lang), a.holdout, a.rounds)
        results[lang] = r
        s = r["stats"]
        print(f"{lang}: train {r['train']} / test {r['test']} sentences, pp={r['pp']}, learn "
              f"{r['learn_s']:.1f} s; UAS {r['uas_old']:.2f} -> {r['uas_new']:.2f} (p={r['p_uas']:.3f}), "
              f"LAS {r['las_old']:.2f} -> {r['las_new']:.2f} (p={r['p_las']:.3f}); stack-head {s.stack_head}, "
              f"recall {fmt(s.recall_old)} -> {fmt(s.recall_new)}", file=sys.stderr)
    text = tables(results)
    text += f"\n\nWhole study: {time.perf_counter() - t0:.0f} s on this machine.\n"
    write_tables(text, a.o)


if __name__ == "__main__":
    main()
