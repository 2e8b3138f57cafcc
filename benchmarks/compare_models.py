"""Whole-process parsing speed of several models on the same input, runs interleaved.

    python benchmarks/compare_models.py [--shared ../shared] [--times 10] [--repeat 20] \\
        'll.mpz' 'lean.mpz' 'lean.mpz -nt true'

Each argument is a model file followed by any parse-time flags. EWT dev (CoNLL-X, XPOS as POSTAG)
is written --times times into one file, and every configuration runs, as a user types it,

    maltpy -c MODEL [FLAGS] -m parse -i DEV_xN.conll -o OUT -j 1 -q

--repeat times, one configuration after the other, so that the machine's slow spells hit them
alike. Prints wall time (median, minimum, maximum), CPU time (user + system, median), tokens/s at
the median and peak resident memory, from the operating system (wait4), and each
configuration against the first.
"""
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ewt import interleaved_table, timed_maltpy, timing_argument_parser  # noqa: E402


def main():
    ap = timing_argument_parser(__doc__, model=False)
    ap.add_argument("--times", type=int, default=10, help="copies of EWT dev in the input file")
    ap.add_argument("configs", nargs="+", help="'MODEL [parse flags]', one per configuration")
    a = ap.parse_args()
    dev_src = os.path.join(a.shared, "data", "ud", "en_ewt", "dev.conllu")
    if not os.path.exists(dev_src):
        sys.exit(f"EWT not found: {dev_src}")
    configs = [shlex.split(c) for c in a.configs]
    for c in configs:
        if not os.path.exists(c[0]):
            sys.exit(f"{c[0]}: model file not found")
    work = tempfile.mkdtemp(prefix="maltpy-compare-")
    dev = os.path.join(work, "dev.conll")
    timed_maltpy(["-m", "convert", "-i", dev_src, "-o", dev, "-q"])
    with open(dev, "rb") as f:
        text = f.read()
    tokens = a.times * sum(1 for line in text.split(b"\n") if line[:1].isdigit())
    src = os.path.join(work, f"dev_x{a.times}.conll")
    with open(src, "wb") as f:
        f.write(text * a.times)
    out = os.path.join(work, "out.conll")
    figures = [[] for _ in configs]
    for _ in range(a.repeat):
        for k, c in enumerate(configs):
            figures[k].append(timed_maltpy(["-c", c[0], *c[1:], "-m", "parse", "-i", src, "-o", out, "-j", "1", "-q"]))
    print(f"EWT dev x{a.times} ({tokens:,} tokens), -j 1, {a.repeat} interleaved runs each\n")
    print(interleaved_table(a.configs, figures, tokens))


if __name__ == "__main__":
    main()
