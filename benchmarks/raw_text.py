"""From raw text to UD trees: UD English EWT (train -> dev) and the 13 languages of ../shared/data/ud
(each train.conllu split 90/10 in sentence order; the last 10 % is the test), every figure of UD's
eval.py (maltpy eval's alignment, equal to eval.py's).

For each treebank a model of three components (tokenizer, tagger of every column, parser) is
learned from the training part; the test part's raw text (its sentences' ``# text``, a blank line
where ``# newpar`` or ``# newdoc`` begins a paragraph: maltpy.tokenizing.gold.raw_text) is
tokenized, tagged and parsed, and scored against the test part.

    python benchmarks/raw_text.py --shared ../shared [--languages en_ewt de ...] [--out DIR]
        [--parser-options "-a nivreeager ..."]
        [--udpipe /path/to/python-with-ufal.udpipe [--udpipe-iterations 1] [--udpipe-tokenizer-epochs 5]]

Prints a Markdown table (docs/raw-text.md has the figures) with the learning time of the
tokenizer and of the whole model. With ``--udpipe``, that interpreter trains UDPipe 1 on the
same training parts (tokenizer included; fewer iterations than its authors', as said) and runs
it on the same raw text (``benchmarks/udpipe.py``; ``ufal.udpipe`` is never a dependency of
maltpy); a second table gives its figures.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

from maltpy.components.training import train_pipeline
from maltpy.config import make_settings
from maltpy.evaluation.aligned import FIGURES, aligned_scores
from maltpy.formats.conll import read_conll, write_conll
from maltpy.tokenizing.gold import raw_text
from tagging import split   # benchmarks/tagging.py: the same split of each treebank

LANGUAGES = ("en_ewt", "ar", "bg", "cs", "da", "de", "es", "ja", "nl", "pt", "sl", "sv", "tr", "zh")
#: scripts without spaces between words: averaged apart
NO_SPACES = ("ja", "zh")
SHOWN = ("Tokens", "Sentences", "Words", "UPOS", "Lemmas", "UAS", "LAS", "MLAS", "BLEX")


def _row(name, scores, extra=()):
    return "| " + " | ".join([name] + [f"{scores[f]:.2f}" for f in SHOWN] + list(extra)) + " |"


def _averages(results, names):
    names = [n for n in names if n in results]
    return {f: sum(results[n][f] for n in names) / len(names) for f in SHOWN} if names else None


def _table(title, results, timings=None):
    print(f"\n{title}\n")
    print("| treebank | " + " | ".join(SHOWN) + (" | tokenizer learns | all learns |" if timings else " |"))
    print("|---" * (len(SHOWN) + 1 + (2 if timings else 0)) + "|")
    for name, scores in results.items():
        extra = (f"{timings[name][0]:.1f} s", f"{timings[name][1]:.0f} s") if timings else ()
        print(_row(name, scores, extra))
    langs = [n for n in results if n != "en_ewt"]
    for label, names in (("average, 11 languages with spaces", [n for n in langs if n not in NO_SPACES]),
                         ("average, ja and zh", [n for n in langs if n in NO_SPACES])):
        avg = _averages(results, names)
        if avg:
            print(_row(f"*{label}*", avg, ("", "") if timings else ()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", required=True)
    ap.add_argument("--languages", nargs="+", default=LANGUAGES)
    ap.add_argument("--out", help="keep the text, gold and output files here (default: a temporary folder)")
    ap.add_argument("--parser-options", default="", help="maltpy flags for the parser, e.g. '-l perceptron'")
    ap.add_argument("--udpipe", help="a Python interpreter that has ufal.udpipe (pip install ufal.udpipe)")
    ap.add_argument("--udpipe-iterations", type=int, default=1)
    ap.add_argument("--udpipe-tokenizer-epochs", type=int, default=5)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="maltpy-raw-")
    os.makedirs(out, exist_ok=True)
    from maltpy.cli.main import _main_parser, _settings_from_args
    args = _main_parser(with_choices=False).parse_args(shlex.split(a.parser_options) + ["--tokenizer", "--tagger", "all"])
    from maltpy.config import pipeline_parser
    given = _settings_from_args(args)
    settings = pipeline_parser(given[0], given[3])      # the parser -m learn --tagger all learns
    results, timings, udpipe = {}, {}, {}
    for name in a.languages:
        train, test = split(a.shared, name)
        text_path, gold_path = os.path.join(out, f"{name}.txt"), os.path.join(out, f"{name}.gold.conllu")
        with open(text_path, "w", encoding="utf-8") as f:
            f.write(raw_text(test))
        write_conll(test, gold_path)
        t0 = time.perf_counter()
        pipeline = train_pipeline(make_settings(**{**vars(settings), "jobs": 1}), train, "conllu")
        learned = time.perf_counter() - t0
        system_path = os.path.join(out, f"{name}.maltpy.conllu")
        pipeline.parse_file(text_path, system_path, "text")
        scores = aligned_scores(test, read_conll(system_path, "conllu"), gold_path, system_path)
        results[name] = {f: scores[f].f1 for f in FIGURES}
        timings[name] = (pipeline.tokenizer.tokenizer.statistics_.get("seconds", 0.0), learned)
        print(f"{name}: " + " ".join(f"{f} {results[name][f]:.2f}" for f in SHOWN) + f" (learned in {learned:.0f} s)",
              file=sys.stderr, flush=True)
        if a.udpipe:
            udpipe[name] = _udpipe(a, name, out, train, test, gold_path, text_path)
    _table("maltpy from raw text (tokenizer, tagger and greedy parser; eval.py's F1)", results, timings)
    if udpipe:
        _table(f"UDPipe 1 from raw text, trained here ({a.udpipe_iterations} tagger/parser iteration(s), "
               f"{a.udpipe_tokenizer_epochs} tokenizer epochs)", udpipe)


def _udpipe(a, name, out, train, test, gold_path, text_path):
    """UDPipe 1 trained on the same part and run on the same text: its eval.py figures."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "udpipe.py")
    train_path, model = os.path.join(out, f"{name}.train.conllu"), os.path.join(out, f"{name}.udpipe")
    write_conll(train, train_path)
    system_path = os.path.join(out, f"{name}.udpipe.conllu")
    subprocess.run([a.udpipe, script, "train", train_path, model, "--iterations", str(a.udpipe_iterations),
                    "--tokenizer-epochs", str(a.udpipe_tokenizer_epochs)], check=True)
    subprocess.run([a.udpipe, script, "run", model, text_path, system_path, "--raw"], check=True)
    scores = aligned_scores(test, read_conll(system_path, "conllu"), gold_path, system_path)
    return {f: scores[f].f1 for f in FIGURES}


if __name__ == "__main__":
    main()
