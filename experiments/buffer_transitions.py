"""Buffer transitions for arc-eager (Fernández-González & Gómez-Rodríguez 2012) on the UD versions
of the 13 CoNLL-X languages: the paper's Tables 1, 2, 3 and 6.

    python experiments/buffer_transitions.py [--data ../shared/data/ud] [-o docs/buffer-transitions.md]
                                             [--languages ar bg ...] [--rounds 10000] [--jobs 2]
                                             [--learner libsvm] [--conll2007 ../shared/data/conll2007]
    python experiments/buffer_transitions.py --tune-features [-o docs/buffer-transitions-tuned.md]

Per language: the first 90% of train.conllu trains, the last 10% is parsed. NE is nivreeager,
strictly projective as in the paper (no pseudo-projective step), with maltpy's default CoNLL-U
feature model and LIBLINEAR (``--learner libsvm``: MaltParser's LIBSVM set-up, which the paper
used for five of its languages); NE+LBA, NE+RBA, NE+LNBA and NE+RNBA add one buffer transition
each (``-bt``). Scores exclude punctuation, as the paper's; ``*`` marks a difference from NE at
p < 0.05 (randomized permutation test over sentences). The dataset analysis (Table 2) counts
the arcs of the training part, root arcs included (a root arc points right, with length equal
to the word's position). The per-transition precision (Table 3) attributes each arc of the
parsed test part to the move that built it. ``--conll2007 DIR`` adds the CoNLL 2007 Spanish and
Basque files (CoNLL-X format, their own pre-UD annotation, MaltParser's CoNLL-X feature model).

With ``--tune-features``, the feature models are chosen per language and per system, as the paper
tuned its own, on the training part alone (greedy forward selection over
``maltpy.experiments.feature_search.ARC_EAGER_CANDIDATES``, trained on its first 90%, scored on
its last 10%), for NE and for the transition the paper's rule picks; then each is trained on the
whole training part and scored on the test part.
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
from maltpy.evaluation.scores import evaluate, is_punctuation  # noqa: E402
from maltpy.evaluation.significance import compare  # noqa: E402
from maltpy.experiments.feature_search import ARC_EAGER_CANDIDATES, templates_cell, tune_then_parse  # noqa: E402
from maltpy.experiments.languages import (add_study_arguments, average_subsets, learner_settings,  # noqa: E402
                                         study_paths, treebank_format, write_tables, NAMES, ud_split)
from maltpy.parsing.parser import Parser  # noqa: E402
from maltpy.systems.nivreeager import (BUFFER_ARC_LENGTHS, BUFFER_ORACLES, ORACLE_OPTION_MOVES,  # noqa: E402
                                       NivreEager, oracle_options_taken)
from maltpy.transform import nonprojective_arcs  # noqa: E402

SYSTEMS = ["none", "lba", "rba", "lnba", "rnba"]
# the paper's averages over its 8 CoNLL-X languages (Tables 1 and 6, punctuation excluded)
PAPER_AVERAGES = {"none": 79.37, "lba": 78.20, "rba": 78.67, "lnba": 79.90, "rnba": 79.55}
#: the paper's oracle, nivreeager's defaults: LNBA/RNBA whenever possible, LBA/RBA for arcs of length 1
PAPER_ORACLE = {option: NivreEager.options[option] for option in ORACLE_OPTION_MOVES}


def arc_directions(sentences):
    """Shares (%) of leftward and rightward arcs, and of those of length 1 (Table 2)."""
    left = right = left1 = right1 = 0
    for s in sentences:
        for d, h in enumerate(s.heads, 1):
            if h > d:
                left += 1
                left1 += h - d == 1
            else:
                right += 1
                right1 += d - h == 1
    total = max(left + right, 1)
    return {k: 100.0 * v / total for k, v in (("L", left), ("R", right), ("L1", left1), ("R1", right1))}


def _oracle_options(bt, oracle):
    """Of ``oracle`` (the oracle's options: ``buffer_oracle``, ``buffer_arc_length``), those the system
    ``bt`` takes: -bo for those with LNBA or RNBA, -bal for those with LBA or RBA."""
    return {option: oracle[option] for option in oracle_options_taken(bt)}


def sequence_lengths(train, labels_of, oracle):
    """Oracle transition sequences on the (projectivized: projective trees only) training part:
    transitions per word for each system, and how many were buffer transitions (spec §1.5)."""
    out = {}
    trees = [s for s in train if not nonprojective_arcs([-1] + s.heads)]
    for bt in SYSTEMS:
        system = NivreEager(len(labels_of), 0, buffer_transitions=bt, **_oracle_options(bt, oracle))
        total = buffer = words = 0
        for s in trees:
            cfg = system.new_configuration(len(s))
            cfg.set_gold([-1] + s.heads, [-1] + [labels_of[x] for x in s.labels])
            while not cfg.is_terminal():
                m, label = cfg.oracle()
                cfg.apply(m, label)
                total += 1
                buffer += m >= 5
            words += len(s)
        out[bt] = {"per_word": total / max(words, 1), "buffer": buffer, "total": total, "trees": len(trees)}
    return out


def count_move_arcs(parser, test, counts):
    """Adds to ``counts`` (move name -> [correct, built]) the arcs each move built on ``test``,
    labelled, punctuation excluded (the paper's Table 3)."""
    system = parser.system(training=False)
    offsets, heads, labels, moves = parser.parse_arrays(test, record_moves=True)
    for k, s in enumerate(test):
        r0 = int(offsets[k])
        for i, row in enumerate(s.rows, 1):
            if is_punctuation(row[1]):
                continue
            m = int(moves[r0 + i])
            name = system.moves[m] if m >= 0 else "root (end)"
            ok = heads[r0 + i] == int(row[6]) and parser.labels[labels[r0 + i]] == row[7]
            c = counts.setdefault(name, [0, 0])
            c[0] += ok
            c[1] += 1


def study_split(path, holdout, tuning=False):
    """(train, test): the treebank's first 90 % and last 10 %; with ``tuning``, the first 90 % and
    the last 10 % of that training part (the held-out part is not read)."""
    train, test = ud_split(path, holdout)
    if tuning:
        from maltpy.experiments.runner import holdout_split
        train, test = holdout_split(train, holdout)
    return train, test


def run_system(path, holdout, bt, features=None, learner="liblinear", language="", oracle=PAPER_ORACLE,
               tuning=False, folds=0):
    """Train and parse one (language, system); runs in a worker process. With ``folds``, a
    cross-validation over the training part instead: each fold parsed by a parser trained on the
    others, the parses in the training part's order."""
    train, test = study_split(path, holdout, tuning)
    fmt, root = treebank_format(path)
    settings = make_settings(algorithm="nivreeager", input_format=fmt, verbose=False, root_label=root,
                             buffer_transitions=bt, jobs=1, features=features, **_oracle_options(bt, oracle),
                             **learner_settings(learner, "nivreeager", language, fmt))
    runs = cv_folds(train, folds) if folds else [(train, test)]
    out, learn, parse, counts = [], 0.0, 0.0, {}
    for rest, part in runs:
        t0 = time.perf_counter()
        parser = Parser(settings).fit(rest, fmt=fmt)
        t1 = time.perf_counter()
        out += parser.parse(part)
        learn, parse = learn + t1 - t0, parse + time.perf_counter() - t1
        count_move_arcs(parser, part, counts)
    precision = {name: (100.0 * ok / n, n) for name, (ok, n) in counts.items()}
    return {"out": out, "learn_s": learn, "parse_s": parse, "precision": precision}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_study_arguments(ap, os.path.join(HERE, "..", "..", "shared", "data", "ud"), conll2007=True)
    ap.add_argument("-F", "--features", help="feature model for every system (default: maltpy's NivreEager)")
    ap.add_argument("--tune-features", action="store_true",
                    help="choose each language's and system's feature model on its training part (NE and the rule's "
                         "transition only)")
    ap.add_argument("--buffer-oracle", choices=BUFFER_ORACLES, default=PAPER_ORACLE["buffer_oracle"],
                    help="when the oracle takes LNBA and RNBA (-bo): always, as the paper (default), or needed: "
                         "only where b0 is not a gold dependent of the arc's head")
    ap.add_argument("--buffer-arc-length", choices=BUFFER_ARC_LENGTHS, default=PAPER_ORACLE["buffer_arc_length"],
                    help="which gold arcs the oracle builds with LBA and RBA (-bal): one, those of length 1, as "
                         "the paper (default), or any: whatever the length (the paper's other policy)")
    ap.add_argument("--tuning-split", action="store_true",
                    help="train on the first 90%% of each training part and score its last 10%% (for choices "
                         "made before the held-out parts are scored; those are not read)")
    ap.add_argument("--cross-validate", type=int, default=0, metavar="K",
                    help="score a K-fold cross-validation over each training part instead of the held-out parts "
                         "(about ten times their tokens; those are not read)")
    a = ap.parse_args()
    if a.cross_validate and (a.tuning_split or a.tune_features or a.cross_validate < 2):
        ap.error("--cross-validate K: K of at least 2, without --tuning-split or --tune-features")
    if a.tune_features and a.tuning_split:
        ap.error("--tune-features already chooses on the training part alone: leave out --tuning-split")
    if a.tune_features and a.conll2007:
        ap.error("--tune-features searches over UD's columns (UPOSTAG, XPOSTAG): leave out --conll2007")
    t0 = time.perf_counter()
    paths = study_paths(a)
    oracle = {"buffer_oracle": a.buffer_oracle, "buffer_arc_length": a.buffer_arc_length}
    if a.tune_features:
        text = tuned_study(a, paths)
        text += f"\n\nWhole study: {time.perf_counter() - t0:.0f} s on this machine ({a.jobs} processes).\n"
        write_tables(text, a.o)
        return
    with ProcessPoolExecutor(a.jobs) as pool:
        futures = {(lang, bt): pool.submit(run_system, paths[lang], a.holdout, bt, a.features, a.learner, lang,
                                                   oracle, a.tuning_split, a.cross_validate)
                   for lang in paths for bt in SYSTEMS}
        results = {}
        for lang in paths:
            train, test = study_split(paths[lang], a.holdout, a.tuning_split)
            if a.cross_validate:
                test = train        # every training sentence parsed once, by the parser of its fold
            runs = {bt: futures[lang, bt].result() for bt in SYSTEMS}
            # key=str: an unlabelled arc (DEPREL _, in the CoNLL 2007 Spanish file) reads as None
            labels_of = {l: k for k, l in enumerate(sorted({x for t in train for x in t.labels}, key=str))}
            row = {"dirs": arc_directions(train), "runs": {}, "lengths": sequence_lengths(train, labels_of, oracle)}
            for bt in SYSTEMS:
                s = evaluate(test, runs[bt]["out"])["no_punct"]
                sig = compare(test, runs["none"]["out"], runs[bt]["out"], rounds=a.rounds, punctuation=False) \
                    if bt != "none" else None
                row["runs"][bt] = {"las": s.las, "uas": s.uas, "p_las": sig["LAS"]["p"] if sig else 1.0,
                                   "p_uas": sig["UAS"]["p"] if sig else 1.0, "learn_s": runs[bt]["learn_s"],
                                   "parse_s": runs[bt]["parse_s"], "precision": runs[bt]["precision"]}
            results[lang] = row
            print(f"{lang}: " + "  ".join(f"{bt} {row['runs'][bt]['las']:.2f}" for bt in SYSTEMS), file=sys.stderr)
    text = tables(results, a.rounds)
    text += (f"\n\nWhole study: {time.perf_counter() - t0:.0f} s on this machine ({a.jobs} processes"
             f"{', --learner ' + a.learner if a.learner != 'liblinear' else ''}"
             + "".join(f", --{o.replace('_', '-')} {oracle[o]}" for o in oracle if oracle[o] != PAPER_ORACLE[o])
             + f"{', the tuning split' if a.tuning_split else ''}"
             f"{f', {a.cross_validate}-fold cross-validation over the training parts' if a.cross_validate else ''}).\n")
    write_tables(text, a.o)


def rule_transition(dirs):
    """The paper's rule, from :func:`arc_directions`: LBA where rightward arcs of length 1 outnumber
    leftward ones, else RBA."""
    return "lba" if dirs["R1"] > dirs["L1"] else "rba"


def tune_and_run(path, holdout, bt, learner, language):
    """Choose (lang, bt)'s feature model on the training part, then train on all of it and parse the
    test part; runs in a worker process."""
    train, test = ud_split(path, holdout)
    fmt, root = treebank_format(path)
    settings = dict(algorithm="nivreeager", input_format=fmt, verbose=False, root_label=root,
                    buffer_transitions=bt, jobs=1, **learner_settings(learner, "nivreeager", language, fmt))
    return tune_then_parse(train, test, ARC_EAGER_CANDIDATES, settings)


def tuned_study(a, paths):
    """NE and the rule's transition, each with its feature model chosen on the training part."""
    rules = {lang: rule_transition(arc_directions(ud_split(paths[lang], a.holdout)[0])) for lang in paths}
    with ProcessPoolExecutor(a.jobs) as pool:
        futures = {(lang, bt): pool.submit(tune_and_run, paths[lang], a.holdout, bt, a.learner, lang)
                   for lang in paths for bt in ("none", rules[lang])}
        rows = []
        for lang in paths:
            test = ud_split(paths[lang], a.holdout)[1]
            ne, bt = futures[lang, "none"].result(), futures[lang, rules[lang]].result()
            s_ne, s_bt = (evaluate(test, r["out"])["no_punct"] for r in (ne, bt))
            sig = compare(test, ne["out"], bt["out"], rounds=a.rounds, punctuation=False)
            rows.append((lang, rules[lang], s_ne, s_bt, sig["LAS"]["p"], ne, bt))
            print(f"{lang}: NE {s_ne.las:.2f} +{rules[lang].upper()} {s_bt.las:.2f}", file=sys.stderr)
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    out = ["### NE against the rule's buffer transition, feature models chosen per language and system on "
           "the training part", "",
           "| Language | Rule | NE LAS | UAS | +rule LAS | UAS | difference | NE: templates added | "
           "+rule: templates added |", "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for lang, rule, s_ne, s_bt, p, ne, bt in rows:
        out.append(f"| {NAMES.get(lang, lang)} | {rule.upper()} | {s_ne.las:.2f} | {s_ne.uas:.2f} | "
                   f"{s_bt.las:.2f}{'*' if p < 0.05 else ''} | {s_bt.uas:.2f} | {s_bt.las - s_ne.las:+.2f} | "
                   f"{templates_cell(ne['added'])} | {templates_cell(bt['added'])} |")
    for name, subset in average_subsets(rows, lambda r: r[0], "paper's"):
        ne_las, bt_las = mean([r[2].las for r in subset]), mean([r[3].las for r in subset])
        better = sum(r[3].las > r[2].las for r in subset)
        out.append(f"| {name} | | {ne_las:.2f} | {mean([r[2].uas for r in subset]):.2f} | {bt_las:.2f} | "
                   f"{mean([r[3].uas for r in subset]):.2f} | {bt_las - ne_las:+.2f} (better on {better} of "
                   f"{len(subset)}) | | |")
    search = sum(r[5]["search_s"] + r[6]["search_s"] for r in rows)
    out += ["", f"`*`: differs from NE at p < 0.05 (randomized permutation test over sentences, {a.rounds:,} rounds). "
            f"Feature search: {search:.0f} s of CPU over all languages and both systems."]
    return "\n".join(out)


def tables(results, rounds, alpha=0.05):
    star = lambda p: "*" if p < alpha else ""  # noqa: E731
    langs = list(results)
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    out = ["### LAS and UAS without punctuation (the paper's Tables 1 and 6)", "",
           "| Language | NE LAS | UAS | +LBA LAS | UAS | +RBA LAS | UAS | +LNBA LAS | UAS | +RNBA LAS | UAS |",
           "|---|" + "---:|" * 10]
    for lang in langs:
        cells = []
        for bt in SYSTEMS:
            r = results[lang]["runs"][bt]
            cells += [f"{r['las']:.2f}{star(r['p_las'])}", f"{r['uas']:.2f}{star(r['p_uas'])}"]
        out.append(f"| {NAMES.get(lang, lang)} | " + " | ".join(cells) + " |")
    # the papers' own languages too, when the study has others
    subsets = average_subsets(langs)
    for name, subset in subsets:
        avg = [f"{mean([results[l]['runs'][bt][m] for l in subset]):.2f}" for bt in SYSTEMS for m in ("las", "uas")]
        out.append(f"| {name} | " + " | ".join(f"**{v}**" if name.startswith("**") else v for v in avg) + " |")
    paper = [cell for bt in SYSTEMS for cell in (f"{PAPER_AVERAGES[bt]:.2f}", "")]
    out.append("| Paper: average of its 8 CoNLL-X treebanks (LAS) | " + " | ".join(paper) + " |")
    out += ["", f"`*`: differs from NE at p < {alpha} (randomized permutation test over sentences, "
            f"{rounds:,} rounds).", ""]
    out += ["### Arc directions of the training parts and the matching projective buffer transition "
            "(the paper's Table 2)", "",
            "| Language | L% | R% | L1% | R1% | Rule (LBA if R1 > L1) | LAS of that transition − NE | Best PBT here |",
            "|---|---:|---:|---:|---:|---|---:|---|"]
    rule_gain = {}
    for lang in langs:
        d = results[lang]["dirs"]
        rule = rule_transition(d)
        runs = results[lang]["runs"]
        gain = runs[rule]["las"] - runs["none"]["las"]
        rule_gain[lang] = gain
        best = max(("lba", "rba"), key=lambda bt: runs[bt]["las"])
        out.append(f"| {NAMES.get(lang, lang)} | {d['L']:.1f} | {d['R']:.1f} | {d['L1']:.1f} | {d['R1']:.1f} | "
                   f"{rule.upper()} | {gain:+.2f} | {best.upper()} |")
    for name, subset in subsets:
        gain = mean([rule_gain[lang] for lang in subset])
        out.append(f"| {name} | | | | | | " + (f"**{gain:+.2f}**" if name.startswith("**") else f"{gain:+.2f}") + " | |")
    out += ["", "### Labelled precision (%) of the arcs each transition built, punctuation excluded "
            "(the paper's Table 3; LA*/RA*: the standard transitions next to a buffer transition)", ""]
    cols = [("none", "LA"), ("none", "RA"), ("lba", "LA"), ("lba", "RA"), ("lba", "LBA"), ("rba", "LA"),
            ("rba", "RA"), ("rba", "RBA"), ("lnba", "LNBA"), ("rnba", "RNBA")]
    out.append("| Language | " + " | ".join(f"{'NE' if bt == 'none' else '+' + bt.upper()}: {m}" for bt, m in cols)
               + " |")
    out.append("|---|" + "---:|" * len(cols))
    for lang in langs:
        cells = []
        for bt, m in cols:
            p = results[lang]["runs"][bt]["precision"].get(m)
            cells.append(f"{p[0]:.2f} ({p[1]})" if p else "–")
        out.append(f"| {NAMES.get(lang, lang)} | " + " | ".join(cells) + " |")
    out += ["", "### Oracle transition sequences on the projective trees of the training parts "
            "(transitions per word; in brackets the share that are buffer transitions)", "",
            "| Language | NE | +LBA | +RBA | +LNBA | +RNBA |", "|---|" + "---:|" * len(SYSTEMS)]
    for lang in langs:
        ln = results[lang]["lengths"]
        out.append(f"| {NAMES.get(lang, lang)} | " + " | ".join(
            f"{ln[bt]['per_word']:.3f}" + (f" ({100.0 * ln[bt]['buffer'] / max(ln[bt]['total'], 1):.1f}%)"
                                          if bt != "none" else "") for bt in SYSTEMS) + " |")
    out.append("| **Average** | " + " | ".join(
        f"{mean([results[l]['lengths'][bt]['per_word'] for l in langs]):.3f}" for bt in SYSTEMS) + " |")
    out += ["", "### Time (seconds: learning / parsing the test part, one process each)", "",
            "| Language | " + " | ".join("NE" if bt == "none" else "+" + bt.upper() for bt in SYSTEMS) + " |",
            "|---|" + "---:|" * len(SYSTEMS)]
    for lang in langs:
        out.append(f"| {NAMES.get(lang, lang)} | " + " | ".join(
            f"{results[lang]['runs'][bt]['learn_s']:.1f} / {results[lang]['runs'][bt]['parse_s']:.2f}"
            for bt in SYSTEMS) + " |")
    tot = {bt: (sum(results[l]["runs"][bt]["learn_s"] for l in langs),
                sum(results[l]["runs"][bt]["parse_s"] for l in langs)) for bt in SYSTEMS}
    out.append("| **Total** | " + " | ".join(f"{tot[bt][0]:.1f} / {tot[bt][1]:.2f}" for bt in SYSTEMS) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
