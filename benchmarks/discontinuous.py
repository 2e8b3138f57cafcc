"""Discontinuous constituent parsing through non-projective dependency parsing (the reduction
article's §5.3) on the Alpino treebank: each system trained on ../shared/data/alpino/train.export
(encoded with the head rules given), dev parsed from its words and gold tags, scored by disco-dop's
proper.prm (maltpy eval's, equal to discodop eval).

    python benchmarks/discontinuous.py --shared ../shared [--systems covnonproj stacklazy ...]
        [--head-rules alpino] [--options "-l perceptron"] [--predicted-tags]

Prints a Markdown table (docs/discontinuous.md has the figures): labelled F1 over all sentences and
those of at most 40 tokens, F1 over the discontinuous constituents alone, exact match, and the
learning and parsing times (parsing: the whole dev set in the process, model loaded).
``--predicted-tags``: also the same figures with dev's tags, morphology and lemmas predicted by
maltpy's tagger (trained on the training part's words, its UPOS the export tag, its XPOS the
morphology), and the tagger's own accuracy.
"""
import argparse
import dataclasses
import os
import shlex
import sys
import time

from maltpy.evaluation.discontinuous import BracketParams, evaluate_brackets
from maltpy.formats.export import ExportFile, read_export
from maltpy.parsing.discontinuous import UnaryRules, fit_discontinuous_parser
from maltpy.parsing.parser import Parser

#: the non-projective systems the article's reduction needs (and arc-eager made non-projective)
SYSTEMS = {
    "covnonproj": ["-a", "covnonproj"],
    "stacklazy": ["-a", "stacklazy"],
    "stackeager": ["-a", "stackeager"],
    "2planar": ["-a", "2planar"],
    "nivreeager -pp head": ["-a", "nivreeager", "-pp", "head"],
    # the baseline that cannot build a discontinuity: projective arc-eager
    "nivreeager (projective)": ["-a", "nivreeager"],
}


def predicted_input(train, dev):
    """Dev's words with tags, morphology and lemmas from maltpy's tagger trained on the training
    trees' words (what :meth:`DiscontinuousReduction.parse_sentences` reads); prints the tagger's
    accuracy (stderr)."""
    from maltpy.formats.conll import Sentence
    from maltpy.parsing.discontinuous import export_input
    from maltpy.tagging.tagger import Tagger
    from maltpy.formats.export import to_conll
    t0 = time.perf_counter()
    tagger = Tagger("upos,xpos,lemma", jobs=2).fit([to_conll(s) for s in train])
    words_tags, keys, lemmas, morphs = export_input(dev)
    blank = [Sentence([[str(i + 1), w] + ["_"] * 8 for i, w in enumerate(words)], format="conllu")
             for words, _ in words_tags]
    tagged = tagger.tag(blank)
    tags = [[r[3] for r in s.rows] for s in tagged]
    pred_morphs = [[r[4] for r in s.rows] for s in tagged]
    pred_lemmas = [[r[2] for r in s.rows] for s in tagged]
    n = sum(len(x) for x in tags)
    same = lambda a, b: sum(x == y for p, q in zip(a, b) for x, y in zip(p, q)) / n   # noqa: E731
    print(f"tagger: learned in {time.perf_counter() - t0:.0f} s; dev tag {100 * same(tags, [t for _, t in words_tags]):.2f}, "
          f"morphology {100 * same(pred_morphs, morphs):.2f}, lemma {100 * same(pred_lemmas, lemmas):.2f} % of "
          f"{n} tokens", file=sys.stderr, flush=True)
    return [(w, t) for (w, _), t in zip(words_tags, tags)], keys, pred_lemmas, pred_morphs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", required=True)
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), help=f"of {', '.join(SYSTEMS)}")
    ap.add_argument("--head-rules", default="collins", help="-hr: alpino, negra, a file; default: hd edges")
    ap.add_argument("--options", default="", help="more maltpy flags, e.g. '-l perceptron'")
    ap.add_argument("--predicted-tags", action="store_true", help="also parse dev with predicted tags")
    ap.add_argument("--save", metavar="DIR", help="write each system's model file into DIR (for speed runs)")
    a = ap.parse_args()
    from maltpy.cli.main import _main_parser, _settings_from_args
    base = os.path.join(a.shared, "data", "alpino")
    train = read_export(os.path.join(base, "train.export")).sentences
    dev = read_export(os.path.join(base, "dev.export"))
    predicted = predicted_input(train, dev.sentences) if a.predicted_tags else None
    print("| system | F1 | F1 ≤ 40 | discontinuous F1 | exact match | learns | parses dev | F1 ≤ 40 without unary rules |"
          + (" F1, predicted tags | F1 ≤ 40, predicted | discontinuous F1, predicted |" if predicted else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|---|---|" if predicted else ""))
    for name in a.systems:
        flags = SYSTEMS[name] + ["-hr", a.head_rules, "-j", "1"] + shlex.split(a.options)
        settings = _settings_from_args(_main_parser(with_choices=False).parse_args(flags))[0]
        t0 = time.perf_counter()
        parser = fit_discontinuous_parser(Parser(settings), train)
        t1 = time.perf_counter()
        trees = parser.reduction.parse_export(parser, dev.sentences)
        t2 = time.perf_counter()
        scores = evaluate_brackets(dev, ExportFile(trees))
        disc = evaluate_brackets(dev, ExportFile(trees), dataclasses.replace(BracketParams(), disc_only=True))
        row = [name, f"{100 * scores.all.f1():.2f}", f"{100 * scores.short.f1():.2f}", f"{100 * disc.all.f1():.2f}",
               f"{100 * scores.all.exact_match():.2f}", f"{t1 - t0:.0f} s", f"{t2 - t1:.1f} s"]
        rules, parser.reduction.unary = parser.reduction.unary, UnaryRules()   # the unary nodes left out
        bare = evaluate_brackets(dev, ExportFile(parser.reduction.parse_export(parser, dev.sentences)))
        parser.reduction.unary = rules
        row.append(f"{100 * bare.short.f1():.2f}")
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            parser.save(os.path.join(a.save, name.replace(" ", "_") + ".mpz"))
        if predicted:
            trees = parser.reduction.parse_sentences(parser, *predicted)[1]
            scores = evaluate_brackets(dev, ExportFile(trees))
            disc = evaluate_brackets(dev, ExportFile(trees), dataclasses.replace(BracketParams(), disc_only=True))
            row += [f"{100 * scores.all.f1():.2f}", f"{100 * scores.short.f1():.2f}", f"{100 * disc.all.f1():.2f}"]
        print("| " + " | ".join(row) + " |", flush=True)
        print(f"{name}: done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
