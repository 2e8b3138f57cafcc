"""Constituent parsing as reduction (Fernández-González & Martins 2015) on the Penn Treebank
sample: the shape of the paper's Table 1.

    python experiments/reduction.py [--data ../shared/data/ptb-sample/train.mrg] [-o docs/reduction.md]

The first 90% of the sample's trees train, the last 10% are parsed from their gold POS tags.
For each of the direct and delta encodings and each of nivreeager, nivrestandard and
stackproj (LIBLINEAR defaults, Collins head rules): EVALB F1 (COLLINS.prm) on the held-out
trees, labelled recall and precision, the dependency UAS/LAS of the same parses against the
encoded gold trees (punctuation excluded, as the paper's), and the learning time. Then unary
recovery alone, on the gold unaryless held-out trees; the encoding/decoding round trip on
every tree of the sample; the label and unary-chain inventories; and whole-process parsing
speed of ``maltpy -m parse`` (one thread) on the held-out part and on it repeated 20 times.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from maltpy.evaluation.evalb import evalb  # noqa: E402
from maltpy.experiments.languages import write_tables  # noqa: E402
from maltpy.evaluation.scores import evaluate  # noqa: E402
from maltpy.formats.conll import Sentence, format_sentences  # noqa: E402
from maltpy.formats.ptb import PtbTree, format_ptb, read_ptb  # noqa: E402
from maltpy.parsing.constituent import Reduction, fit_constituent_parser, pack, tree_rows  # noqa: E402
from maltpy.parsing.parser import Parser  # noqa: E402
from maltpy.transform.constituents import decode, encode  # noqa: E402
from maltpy.transform.headrules import HeadRules  # noqa: E402

ALGORITHMS = ["nivreeager", "nivrestandard", "stackproj"]
ENCODINGS = ["direct", "delta"]
# the paper's Table 1 (PTB §22, trained on §02-21: 13 times more data; F1 after unary recovery)
PAPER = [("MaltParser", "90.93", "88.95", "86.87", "5,392"), ("TP-Full + Lab., direct enc.", "93.80", "91.99",
         "90.89", "912"), ("TP-Full + Lab., delta enc.", "93.80", "92.00", "90.94", "912")]


def held_out_split(path):
    trees = read_ptb(path)
    raw = read_ptb(path, clean=False)
    cut = len(trees) - len(trees) // 10
    return trees[:cut], trees[cut:], raw[cut:]


def run_one(algorithm, encoding, train, test, raw_test):
    parser = Parser(algorithm=algorithm, constituent_encoding=encoding, verbose=False)
    t0 = time.perf_counter()
    fit_constituent_parser(parser, train)
    learn = time.perf_counter() - t0
    red = parser.reduction
    words_tags = [(t.tree.words(), t.tree.tags()) for t in test]
    sentences = [Sentence(tree_rows(w, t)) for w, t in words_tags]
    parsed = parser.parse_trees(sentences)
    trees = red.decode_trees(words_tags, parsed)   # the trees -m parse writes (tests/test_reduction.py)
    out = [PtbTree(tree, pt.wrapped) for tree, pt in zip(trees, test)]
    gold_dep, _ = Reduction(red.rules, encoding).encode_trees(test)
    dep = evaluate(gold_dep, [s.with_tree(h, l) for s, (h, l) in zip(sentences, parsed)])["no_punct"]
    score = evalb(raw_test, out, ignore_wrapper=True)
    with_wrapper = evalb(raw_test, out).all.f1
    labels = {l for s in gold_dep for l in s.labels}
    return {"algorithm": algorithm, "encoding": encoding, "uas": dep.uas, "las": dep.las,
            "lr": score.all.recall, "lp": score.all.precision, "f1": score.all.f1, "f1_40": score.short.f1,
            "f1_wrapper": with_wrapper, "exact": 100.0 * score.all.complete / max(score.all.valid, 1),
            "learn": learn, "labels": len(parser.labels), "test_labels": len(labels)}


def unary_study(train, test, raw_test, rules):
    """Unary recovery alone: the gold unaryless held-out trees, chains predicted."""
    red = Reduction(rules, "delta")
    _, encoded = red.encode_trees(train)
    red.fit_unary(encoded, "liblinear")
    gold = [encode(pt.tree, rules, "delta") for pt in test]
    words_tags = [(e.words, e.tags) for e in gold]
    trees = [(e.heads, e.labels) for e in gold]
    t0 = time.perf_counter()
    with_unaries = red.decode_trees(words_tags, trees)
    seconds = time.perf_counter() - t0
    without = red.decode_trees(words_tags, trees, unaries=False)
    # node accuracy: the compiled decoder's predicted class at every node against the gold chain
    labels = sorted({l for e in gold for l in e.labels})
    ids = {l: k for k, l in enumerate(labels)}
    data, offsets, ws, we, ts, te = pack(words_tags)
    heads = np.zeros(len(ws), dtype=np.int32)
    label_ids = np.zeros(len(ws), dtype=np.int32)
    for k, e in enumerate(gold):
        r = int(offsets[k]) + 1
        heads[r:r + len(e.heads)] = e.heads
        label_ids[r:r + len(e.labels)] = [ids[l] for l in e.labels]
    info, _ = red._decoder(labels).decode(data, offsets, heads, label_ids, ws, we, ts, te,
                                          np.zeros(len(gold), np.uint8), features=True)
    gold_chains = [gold[s].unaries[h - 1].get(level, ()) for s, h, level in info[:, :3].tolist()]
    right = sum(red.unary.classes[c] == g for c, g in zip(info[:, 5].tolist(), gold_chains))
    unary_nodes = sum(len(c) for c in gold_chains)
    wrap = [pt.wrapped for pt in test]
    return {"accuracy": 100.0 * right / len(gold_chains), "nodes": len(gold_chains),
            "unary_share": 100.0 * unary_nodes / (len(gold_chains) + unary_nodes),
            "f1": evalb(raw_test, [PtbTree(t, w) for t, w in zip(with_unaries, wrap)], ignore_wrapper=True).all.f1,
            "f1_without": evalb(raw_test, [PtbTree(t, w) for t, w in zip(without, wrap)], ignore_wrapper=True).all.f1,
            "chains": len(red.unary.classes) - 1, "seconds": seconds}


def round_trip(path, rules):
    trees = read_ptb(path)
    raw = read_ptb(path, clean=False)
    out = {}
    for encoding in ENCODINGS:
        decoded = []
        labels = set()
        for pt in trees:
            e = encode(pt.tree, rules, encoding)
            labels.update(e.labels)
            decoded.append(PtbTree(decode(e.words, e.tags, e.heads, e.labels, encoding, unaries=e.unaries).tree,
                                   pt.wrapped))
        out[encoding] = (evalb(raw, decoded).all.f1, len(labels - {"ROOT"}))
    symbols = {n.label for pt in trees for n in _nodes(pt.tree) if n.word is None}
    return out, len(symbols)


def _nodes(tree):
    stack = [tree]
    while stack:
        t = stack.pop()
        yield t
        stack.extend(t.children)


def speed(train, test, workdir):
    """Whole-process `maltpy -m parse -j 1` on the held-out part and on it repeated 20 times."""
    model = os.path.join(workdir, "ptb.mpz")
    with open(os.path.join(workdir, "train.mrg"), "w") as f:
        f.write(format_ptb(train))
    subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-m", "learn", "-i", os.path.join(workdir, "train.mrg"),
                    "-q"], check=True)
    text = format_sentences(Sentence(tree_rows(t.tree.words(), t.tree.tags())) for t in test)
    rows = []
    for times in (1, 20):
        src = os.path.join(workdir, f"test{times}.conll")
        with open(src, "w") as f:
            f.write(text * times)
        tokens = sum(len(t) for t in test) * times
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-i", src, "-o",
                            os.path.join(workdir, "out.mrg"), "-j", "1", "-q"], check=True)
            wall = time.perf_counter() - t0
            best = wall if best is None else min(best, wall)
        rows.append((times, tokens, best))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "ptb-sample", "train.mrg"))
    ap.add_argument("-o", help="write the Markdown tables here (default: standard output)")
    a = ap.parse_args()
    if not os.path.exists(a.data):
        sys.exit(f"{a.data}: not found (give --data)")
    t_start = time.perf_counter()
    rules = HeadRules.load("collins")
    train, test, raw_test = held_out_split(a.data)
    n_test = sum(len(t) for t in test)
    results = []
    for encoding in ENCODINGS:
        for algorithm in ALGORITHMS:
            r = run_one(algorithm, encoding, train, test, raw_test)
            print(f"{encoding} {algorithm}: F1 {r['f1']:.2f} UAS {r['uas']:.2f} LAS {r['las']:.2f}", file=sys.stderr)
            results.append(r)
    unary = unary_study(train, test, raw_test, rules)
    trip, n_symbols = round_trip(a.data, rules)
    with tempfile.TemporaryDirectory() as tmp:
        speeds = speed(train, test, tmp)
    lines = [f"Command: `python experiments/reduction.py` ({time.perf_counter() - t_start:.0f} s on the 2-core "
             "machine). Data: `ptb-sample/train.mrg`, "
             f"{len(train)} trees to train, the last {len(test)} ({n_test} words) to test, gold POS tags; "
             "LIBLINEAR defaults, Collins head rules. F1, LR, LP: EVALB with `COLLINS.prm` on the held-out "
             "trees, without the unlabelled wrapper bracket (`--ignore-wrapper`; EVALB counts it, and with it F1 "
             "is in the last column); UAS/LAS: the dependency parses against the encoded gold trees, "
             "punctuation excluded.", "",
             "| encoding | parser | UAS | LAS | LR | LP | F1 | F1 ≤ 40 | exact | labels | learning | F1 with wrapper |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['encoding']} | {r['algorithm']} | {r['uas']:.2f} | {r['las']:.2f} | {r['lr']:.2f} | "
                     f"{r['lp']:.2f} | **{r['f1']:.2f}** | {r['f1_40']:.2f} | {r['exact']:.2f} | {r['labels']} | "
                     f"{r['learn']:.1f} s | {r['f1_wrapper']:.2f} |")
    lines += ["", "The paper's Table 1 (PTB §22, trained on §02–21, predicted POS tags):", "",
              "| parser | UAS | LAS | F1 | tokens/s |", "|---|---|---|---|---|"]
    lines += [f"| {p} | {u} | {l} | {f} | {s} |" for p, u, l, f, s in PAPER]
    lines += ["", "Unary recovery on the gold unaryless held-out trees (delta encoding's decoding):", "",
              "| nodes | share of unary nodes | chains seen in training | node accuracy | F1 without unaries | "
              "F1 with predicted unaries | time |", "|---|---|---|---|---|---|---|",
              f"| {unary['nodes']} | {unary['unary_share']:.1f} % | {unary['chains']} | {unary['accuracy']:.2f} | "
              f"{unary['f1_without']:.2f} | **{unary['f1']:.2f}** | {unary['seconds']:.2f} s |", "",
              "Round trip of every tree of the sample (encode, decode with the gold unary chains; EVALB F1 with "
              "the wrapper, as EVALB reads the files) and label inventories "
              f"({n_symbols} phrase labels in the sample):", "",
              "| encoding | F1 | dependency labels |", "|---|---|---|"]
    lines += [f"| {e} | {trip[e][0]:.2f} | {trip[e][1]} |" for e in ENCODINGS]
    lines += ["", "Whole-process speed, `maltpy -c ptb.mpz -i test.conll -o out.mrg -j 1` (nivreeager, delta; "
              "best of 3, start-up included):", "", "| input | tokens | seconds | tokens/s |", "|---|---|---|---|"]
    lines += [f"| held-out ×{times} | {tokens} | {wall:.2f} | {tokens / wall:,.0f} |" for times, tokens, wall in speeds]
    text = "\n".join(lines) + "\n"
    write_tables(text, a.o)


if __name__ == "__main__":
    main()
