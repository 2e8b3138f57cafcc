"""Whole-process times of `maltpy draw` and `maltpy eval --report` on UD English EWT dev.

    python benchmarks/visual.py [--shared ../shared] [--model ewt.mpz] [--repeat 3]

Trains the default nivreeager model on EWT train (CoNLL-X, XPOS as POSTAG) unless --model is
given, parses dev, then times, best of --repeat, the commands as a user types them:
`maltpy draw` of all dev sentences against gold, and `maltpy eval --report` without and with
plots, for one system and with --compare (a nivrestandard parse of dev).
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ewt import timing_argument_parser  # noqa: E402


def run(*args):
    r = subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"maltpy {' '.join(args)} failed: {r.stderr}")


def timed(repeat, *args):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = timing_argument_parser(__doc__)
    a = ap.parse_args()
    ewt = os.path.join(a.shared, "data", "ud", "en_ewt")
    if not os.path.isdir(ewt):
        sys.exit(f"EWT not found: {ewt}")
    work = tempfile.mkdtemp()
    p = lambda name: os.path.join(work, name)  # noqa: E731
    run("-m", "convert", "-i", os.path.join(ewt, "train.conllu"), "-o", p("train.conll"), "-q")
    run("-m", "convert", "-i", os.path.join(ewt, "dev.conllu"), "-o", p("dev.conll"), "-q")
    model = a.model or p("ee.mpz")
    if not a.model:
        run("-c", model, "-m", "learn", "-i", p("train.conll"), "-q")
    run("-c", p("es.mpz"), "-m", "learn", "-i", p("train.conll"), "-a", "nivrestandard", "-q")
    run("-c", model, "-i", p("dev.conll"), "-o", p("ee.conll"), "-q")
    run("-c", p("es.mpz"), "-i", p("dev.conll"), "-o", p("es.conll"), "-q")
    with open(p("dev.conll"), encoding="utf-8") as f:
        n_sent = f.read().count("\n\n")
    print(f"EWT dev: {n_sent} sentences; whole-process wall time, best of {a.repeat}")
    rows = [
        ("maltpy draw OUT --gold GOLD -o trees.html",
         ("draw", p("ee.conll"), "--gold", p("dev.conll"), "-o", p("trees.html"))),
        ("maltpy eval GOLD OUT --report r.html --no-plots",
         ("eval", p("dev.conll"), p("ee.conll"), "--report", p("r.html"), "--no-plots")),
        ("maltpy eval GOLD OUT --report r.html",
         ("eval", p("dev.conll"), p("ee.conll"), "--report", p("r.html"))),
        ("maltpy eval GOLD OUT --compare OUT2 --report r.html --no-plots",
         ("eval", p("dev.conll"), p("ee.conll"), "--compare", p("es.conll"), "--report", p("r.html"),
          "--no-plots")),
        ("maltpy eval GOLD OUT --compare OUT2 --report r.html --plots DIR",
         ("eval", p("dev.conll"), p("ee.conll"), "--compare", p("es.conll"), "--report", p("r.html"),
          "--plots", p("plots"))),
        ("maltpy eval GOLD OUT (scores only, for reference)", ("eval", p("dev.conll"), p("ee.conll"))),
    ]
    for name, args in rows:
        print(f"{timed(a.repeat, *args):6.2f} s  {name}")
    print(f"trees.html: {os.path.getsize(p('trees.html')) / 1e6:.1f} MB; outputs in {work}")


if __name__ == "__main__":
    main()
