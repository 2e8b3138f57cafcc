"""maltpy's discontinuous parsing speed beside disco-dop's, on the same machine in the same hour
(issue #54's target: at least 1,000 times disco-dop's speed).

    python benchmarks/discodop_speed.py --shared ../shared --model alpb4.mpz \\
        --discodop-python /path/to/venv/bin/python --discodop-path /path/to/disco-dop \\
        [--maltpy-options "--beam-margin 80"] [--runs 5] [--copies 10 100] [--keep DIR]

disco-dop (``andreasvc/disco-dop``, built outside maltpy; never a dependency) runs its grammar
pipeline as the issue sets it: PCFG, then PLCFRS pruned by it, then Double-DOP, trained on the
training sentences of up to 40 words and parsing the dev sentences of up to 40 words, the
treebank's own tags, Alpino's head rules (its ``alpino.headrules``), two processes. Its speed is
the dev tokens over the parsing time its ``stats.tsv`` reports, summed over the stages and both
processes: tokens per second on one core, parsing alone (no start-up, reading or training).

maltpy's is the whole process a user runs: ``maltpy -c MODEL -i dev10.export -o out.export -j 1``
on dev ten times over (start-up, reading, parsing, decoding and writing), the median of
``--runs`` runs, timed both before and after disco-dop's run; ``--copies`` gives other numbers of
copies as well (start-up weighs less on a longer input, as disco-dop's figure has none). Each is printed with its ratio. The parameter file written for disco-dop is
kept with its outputs under ``--keep`` (a temporary folder otherwise).
"""
import argparse
import csv
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

#: disco-dop's parameter file: the three stages of its sample and the issue's corpus settings
PARAMETERS = """\
stages=[
    dict(name='pcfg', mode='pcfg', split=True, markorigin=True),
    dict(name='plcfrs', mode='plcfrs', prune='pcfg', k=50),
    dict(name='dop', mode='plcfrs', prune='plcfrs', k=1e-5, dop='doubledop', m=1000,
         estimator='rfe', objective='mpp'),
],
evalparam={evalparam!r},
corpusfmt='export',
traincorpus=dict(path={train!r}, encoding='utf-8', maxwords=40, numsents={n_train}),
testcorpus=dict(path={dev!r}, encoding='utf-8', maxwords=40, numsents={n_dev}, skiptrain=False, skip=0),
punct='move',
functions=None,
morphology=None,
postagging=None,
binarization=dict(method='default', factor='right', headrules={headrules!r}, h=1, v=1, markhead=True),
numproc=2,
"""


def sentences(path):
    """The number of sentences of an export file (its #BOS lines)."""
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.startswith("#BOS "))


def run_discodop(args, folder):
    """disco-dop's parsing speed on dev (tokens per second on one core, the tokens, the seconds)."""
    alpino = os.path.join(args.shared, "data", "alpino")
    train, dev = os.path.join(alpino, "train.export"), os.path.join(alpino, "dev.export")
    prm = os.path.join(folder, "alpino.prm")
    with open(prm, "w", encoding="utf-8") as f:
        f.write(PARAMETERS.format(evalparam=os.path.join(args.discodop_path, "proper.prm"), train=train, dev=dev,
                                  n_train=sentences(train), n_dev=sentences(dev),
                                  headrules=os.path.join(args.discodop_path, "alpino.headrules")))
    env = dict(os.environ, PYTHONPATH=args.discodop_path)
    t0 = time.perf_counter()
    done = subprocess.run([args.discodop_python, "-c", "from discodop.cli import main; main()", "runexp", prm],
                          cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"disco-dop failed:\n{done.stderr[-2000:]}")
    print(f"disco-dop: the whole run (training and parsing, two processes) took {time.perf_counter() - t0:.0f} s",
          file=sys.stderr)
    seconds, lengths = 0.0, {}
    with open(os.path.join(folder, "alpino", "stats.tsv"), encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            seconds += float(row["elapsedtime"])
            lengths[row["sentid"]] = int(row["len"])
    tokens = sum(lengths.values())
    return tokens / seconds, tokens, seconds


def run_maltpy(args, folder, copies=10):
    """maltpy's whole-process speed on dev x ``copies`` (tokens per second, the tokens, the median
    seconds)."""
    with open(os.path.join(args.shared, "data", "alpino", "dev.export"), encoding="utf-8") as f:
        text = f.read()
    head, _, body = text.partition("#BOS ")
    dev10 = os.path.join(folder, f"dev{copies}.export")
    with open(dev10, "w", encoding="utf-8") as f:
        f.write(head + ("#BOS " + body) * copies)
    tokens = sum(1 for line in ("#BOS " + body).splitlines() if line and line[0] not in "#%") * copies
    command = [sys.executable, "-m", "maltpy", "-c", args.model, "-i", dev10, "-o", os.path.join(folder, "out.export"),
               "-j", "1", "-q"] + shlex.split(args.maltpy_options)
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        subprocess.run(command, check=True)
        times.append(time.perf_counter() - t0)
    seconds = statistics.median(times)
    return tokens / seconds, tokens, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", required=True, help="the folder with data/alpino")
    ap.add_argument("--model", required=True, help="a maltpy model learned on Alpino's training file")
    ap.add_argument("--discodop-python", required=True, help="an interpreter with disco-dop's requirements")
    ap.add_argument("--discodop-path", required=True, help="disco-dop's built checkout (its proper.prm and "
                                                           "alpino.headrules are read there)")
    ap.add_argument("--maltpy-options", default="", help="more flags for maltpy's parse, e.g. '--beam-margin 80'")
    ap.add_argument("--runs", type=int, default=5, help="maltpy runs (the median is reported)")
    ap.add_argument("--copies", type=int, nargs="+", default=[10], metavar="N",
                    help="maltpy parses dev N times over (default 10; several: each in turn)")
    ap.add_argument("--keep", metavar="DIR", help="keep disco-dop's files and the inputs here")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.shared, "data", "alpino", "dev.export")):
        sys.exit(f"{args.shared}: no data/alpino/dev.export")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or scratch
        os.makedirs(folder, exist_ok=True)
        # maltpy is timed on either side of disco-dop: right after its two busy processes (about
        # 100 s) the same command measured about 10 % slower than before them
        before = [(copies, *run_maltpy(args, folder, copies)) for copies in args.copies]
        dd_speed, dd_tokens, dd_seconds = run_discodop(args, folder)
        after = [(copies, *run_maltpy(args, folder, copies)) for copies in args.copies]
    print(f"disco-dop: {dd_tokens:,} tokens parsed in {dd_seconds:.1f} s (stats.tsv): {dd_speed:,.1f} tokens/s")
    for when, runs in (("before disco-dop", before), ("after disco-dop", after)):
        for copies, mp_speed, mp_tokens, mp_seconds in runs:
            print(f"maltpy:    dev x{copies}, {mp_tokens:,} tokens, whole process {mp_seconds:.3f} s (median of "
                  f"{args.runs}, {when}): {mp_speed:,.0f} tokens/s")
            print(f"ratio:     {mp_speed / dd_speed:,.0f} times disco-dop's speed")


if __name__ == "__main__":
    main()
