"""Whole-process learning time of several configurations on EWT train, runs interleaved.

    python benchmarks/compare_learning.py [--shared ../shared] [--repeat 8] \\
        '-a 2planar -ud none' '-a 2planar -ud label'

Each argument is a set of learning flags. EWT train (CoNLL-X, XPOS as POSTAG) is converted once,
and every configuration learns, as a user types it,

    maltpy -c MODEL -m learn -i TRAIN.conll FLAGS -q

--repeat times, one configuration after the other, so that the machine's slow spells hit them
alike (issue #14's target: undirected learning within 10 % of the directed system's). Prints wall
time (median, minimum, maximum), CPU time (user + system, median; the solver's helper thread
included), peak resident memory, and each configuration against the first: the ratio of the
medians and the median of the per-round ratios. The model files are removed at the end.
"""
import os
import shlex
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ewt import interleaved_table, timed_maltpy, timing_argument_parser  # noqa: E402


def main():
    ap = timing_argument_parser(__doc__, model=False)
    ap.add_argument("configs", nargs="+", help="'learning flags', one per configuration")
    a = ap.parse_args()
    train_src = os.path.join(a.shared, "data", "ud", "en_ewt", "train.conllu")
    if not os.path.exists(train_src):
        sys.exit(f"EWT not found: {train_src}")
    work = tempfile.mkdtemp(prefix="maltpy-learning-")
    try:
        train = os.path.join(work, "train.conll")
        timed_maltpy(["-m", "convert", "-i", train_src, "-o", train, "-q"])
        configs = [shlex.split(c) for c in a.configs]
        figures = [[] for _ in configs]
        for _ in range(a.repeat):
            for k, flags in enumerate(configs):
                model = os.path.join(work, f"m{k}.mpz")
                figures[k].append(timed_maltpy(["-c", model, "-m", "learn", "-i", train, *flags, "-q"]))
        print(f"EWT train, maltpy -m learn, {a.repeat} interleaved runs each\n")
        print(interleaved_table(a.configs, figures))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
