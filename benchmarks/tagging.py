"""The tagger and the parser on predicted tags: UD English EWT (train -> dev) and the 13 languages
of ../shared/data/ud (each train.conllu split 90/10 in sentence order; the last 10 % is the test).

For each treebank: the tagger's accuracy on the test words (tags and lemmas removed from the
input), and the parser's LAS (UD eval.py's: universal relations) on gold tags and on the
tagger's tags, trained on gold tags (--tagger-folds 1) and on jackknifed tags (K folds).

    python benchmarks/tagging.py --shared ../shared [--folds 1 5 10] [--languages de tr ...]
        [--udpipe /path/to/python-with-ufal.udpipe [--udpipe-iterations 1]] [--maltparser-defaults]
        [--clusters en_ewt=en.clusters de=de.clusters ...] [--tagger-ensemble K]

The parser is the one ``-m learn --tagger all`` learns (``maltpy.config.pipeline_parser``);
``--maltparser-defaults``: nivreeager with LIBLINEAR and MaltParser's feature model.

``--clusters``: word clusters per treebank (``--clusters`` of ``-m learn``; the parser is then
NivreEagerMorphClusters; ``benchmarks/spacy_clusters.py`` writes spaCy's English, German and
Spanish ones); the treebanks not named learn without. ``--tagger-ensemble K``: K taggers whose
scores add up (``-m learn --tagger-ensemble``).

Prints a Markdown table (docs/tagging.md has the figures). With ``--udpipe``, that interpreter
runs ``benchmarks/udpipe.py languages`` (UDPipe 1 trained and run on the same splits of the 13
languages; ``ufal.udpipe`` is never a dependency of maltpy) and a second table puts UDPipe's
eval.py figures beside the averages of the first.
"""
import subprocess
import tempfile
import argparse
import os
import sys
import time

from maltpy.config import make_settings, pipeline_parser
from maltpy.evaluation.official import official_scores, official_tag_scores
from maltpy.formats.conll import Sentence, read_conll
from maltpy.components.training import train_pipeline

LANGUAGES = ("ar", "bg", "cs", "da", "de", "es", "ja", "nl", "pt", "sl", "sv", "tr", "zh")


def split(shared, name):
    """(train, test) sentences of one treebank."""
    base = os.path.join(shared, "data", "ud", name)
    train = read_conll(os.path.join(base, "train.conllu"), "conllu")
    if name == "en_ewt":
        return train, read_conll(os.path.join(base, "dev.conllu"), "conllu")
    cut = round(0.9 * len(train))
    return train[:cut], train[cut:]


def blank(sentences):
    """The words alone: LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL and DEPS as _."""
    return [Sentence([r[:2] + ["_"] * 7 + r[9:] for r in s.rows], s.extra, format="conllu") for s in sentences]


def tag_scores(gold, system):
    """eval.py's UPOS, XPOS, UFeats, AllTags and Lemmas (the same words on both sides)."""
    return {name: f.f1 for name, f in official_tag_scores(gold, system).items()}


def las(gold, system):
    return official_scores(gold, system)["LAS"].f1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 5, 10])
    ap.add_argument("--languages", nargs="+", default=("en_ewt",) + LANGUAGES)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--udpipe", help="a Python interpreter that has ufal.udpipe (pip install ufal.udpipe)")
    ap.add_argument("--udpipe-iterations", type=int, default=1)
    ap.add_argument("--maltparser-defaults", action="store_true",
                    help="the parser with MaltParser's defaults (nivreeager, LIBLINEAR) instead of the pipeline's")
    ap.add_argument("--clusters", nargs="+", default=[], metavar="TREEBANK=FILE",
                    help="word clusters for a treebank (en_ewt=en.clusters ...)")
    ap.add_argument("--tagger-ensemble", type=int, default=1, metavar="K", help="taggers adding up their scores")
    a = ap.parse_args(argv)
    clusters = dict(c.split("=", 1) for c in a.clusters)
    if not os.path.isdir(os.path.join(a.shared, "data", "ud")):
        print(f"{a.shared}/data/ud not found: nothing to measure", file=sys.stderr)
        return
    print("| treebank | words (train/test) | UPOS | XPOS | UFeats | AllTags | Lemmas | LAS gold tags | "
          + " | ".join(f"LAS {'gold-trained' if k == 1 else f'jackknifed k={k}'}" for k in a.folds)
          + " | learn s (" + ", ".join(f"k={k}" for k in a.folds) + ") |")
    print("|---" * (9 + len(a.folds)) + "|")
    averages = []   # per language of the 13: the tags' figures and the gold-trained LAS on predicted tags
    for name in a.languages:
        train, test = split(a.shared, name)
        words = blank(test)
        row, times, tags = [], [], None
        gold_las = float("nan")
        for k in a.folds:
            settings = make_settings(tagger="all", tagger_folds=k, jobs=a.jobs, input_format="conllu",
                                     clusters=clusters.get(name), tagger_ensemble=a.tagger_ensemble)
            if not a.maltparser_defaults:   # the parser -m learn --tagger all learns
                settings = pipeline_parser(settings, {"tagger", "tagger_folds", "jobs", "input_format", "clusters",
                                                      "tagger_ensemble"})
            t0 = time.perf_counter()
            pipeline = train_pipeline(settings, train, "conllu")
            times.append(time.perf_counter() - t0)
            parsed = pipeline.parse(words)
            if tags is None:
                tags = tag_scores(test, parsed)
            if k == 1:
                gold_las = las(test, pipeline.parser.parse(test))   # the gold tags (and the same parser)
            row.append(las(test, parsed))
        n_train, n_test = sum(map(len, train)), sum(map(len, test))
        print(f"| {name} | {n_train:,}/{n_test:,} | " + " | ".join(f"{tags[c]:.2f}" for c in tags)
              + f" | {gold_las:.2f} | " + " | ".join(f"{x:.2f}" for x in row)
              + " | " + ", ".join(f"{t:.0f}" for t in times) + " |", flush=True)
        if name != "en_ewt":
            averages.append([tags[c] for c in tags] + [row[0]])
    if a.udpipe:
        udpipe_table(a, averages)


def udpipe_table(a, averages):
    """UDPipe 1 on the 13 languages (trained with --udpipe-iterations), beside maltpy's averages."""
    import numpy as np
    languages = [lang for lang in a.languages if lang in LANGUAGES]
    with tempfile.TemporaryDirectory(prefix="maltpy-udpipe-") as out:
        subprocess.run([a.udpipe, os.path.join(os.path.dirname(os.path.abspath(__file__)), "udpipe.py"),
                        "languages", "--shared", a.shared, "--out", out, "--iterations", str(a.udpipe_iterations),
                        "--languages", *languages], check=True)
        print(f"\n| language | UPOS | XPOS | UFeats | AllTags | Lemmas | LAS (UDPipe 1, {a.udpipe_iterations} "
              "iteration(s)) |\n|---|---:|---:|---:|---:|---:|---:|")
        rows = []
        for lang in languages:
            gold = read_conll(os.path.join(out, f"{lang}.gold.conllu"), "conllu")
            system = read_conll(os.path.join(out, f"{lang}.udpipe.conllu"), "conllu")
            rows.append(list(tag_scores(gold, system).values()) + [las(gold, system)])
            print(f"| {lang} | " + " | ".join(f"{x:.2f}" for x in rows[-1]) + " |")
    print("| **UDPipe 1, average** | " + " | ".join(f"{np.mean([r[k] for r in rows]):.2f}" for k in range(6)) + " |")
    if averages:
        print("| **maltpy, average** | " + " | ".join(f"{np.mean([r[k] for r in averages]):.2f}" for k in range(6))
              + " |")


if __name__ == "__main__":
    main()
