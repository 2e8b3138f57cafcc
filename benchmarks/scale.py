"""Corpus-scale parsing: whole-process tokens/s and peak memory of `maltpy -m parse`.

    python benchmarks/scale.py [--shared ../shared] [--model ewt.mpz] [--repeat 3] [--sizes 1,10,40]

Trains the default nivreeager model on EWT train (CoNLL-X, XPOS as POSTAG) unless --model is
given, writes EWT dev repeated 1, 10 and 40 times (25,148 to 1,005,920 tokens), and runs, as a
user types them, with the runs of one size alternated and the median of --repeat kept:

    maltpy -c MODEL -m parse -i DEV_xN.conll -o OUT -j 1
    maltpy -c MODEL -m parse -i DEV_xN.conll -o OUT -j <all cores>
    maltpy -c MODEL -m parse --dask local:2 -i 'parts/*.conll' -o OUTDIR/   (the input in 4 files)

Wall time and peak resident memory (the largest process: for --dask, the largest worker or the
client) come from the operating system (wait4). Every output is compared with the -j 1 output,
byte for byte. Needs `maltpy[dask]` for the last row (skipped without it).
"""
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ewt import run_maltpy, timing_argument_parser  # noqa: E402


def maltpy(*args, check=True):
    """Run the maltpy command; return (wall seconds, peak RSS MB of the largest process)."""
    wall, usage, status, err = run_maltpy(args)
    if check and status:
        sys.exit(f"maltpy {' '.join(args)} failed: {err}")
    return wall, usage.ru_maxrss / 1024


def same_bytes(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def main():
    ap = timing_argument_parser(__doc__)
    ap.add_argument("--sizes", default="1,10,40", help="how many times EWT dev is repeated")
    a = ap.parse_args()
    ewt = os.path.join(a.shared, "data", "ud", "en_ewt")
    if not os.path.isdir(ewt):
        sys.exit(f"EWT not found: {ewt}")
    try:
        import distributed  # noqa: F401
        have_dask = True
    except ImportError:
        have_dask = False
    work = tempfile.mkdtemp(prefix="maltpy-scale-")
    p = lambda name: os.path.join(work, name)  # noqa: E731
    maltpy("-m", "convert", "-i", os.path.join(ewt, "dev.conllu"), "-o", p("dev.conll"), "-q")
    model = a.model
    if not model:
        model = p("ee.mpz")
        maltpy("-m", "convert", "-i", os.path.join(ewt, "train.conllu"), "-o", p("train.conll"), "-q")
        maltpy("-c", model, "-m", "learn", "-i", p("train.conll"), "-q")
    with open(p("dev.conll"), "rb") as f:
        dev = f.read()
    dev_tokens = sum(1 for line in dev.split(b"\n") if line[:1].isdigit())
    from maltpy.config import available_cores
    cores = available_cores()   # what -j 0 means
    print(f"EWT dev: {dev_tokens:,} tokens; {cores} cores; median of {a.repeat} whole-process runs\n")
    print("| input | command | wall (s) | tokens/s | peak memory (MB) | output = -j 1 |")
    print("|---|---|---:|---:|---:|---|")
    for n in [int(x) for x in a.sizes.split(",")]:
        src = p(f"dev_x{n}.conll")
        with open(src, "wb") as f:
            for _ in range(n):
                f.write(dev)
        parts = p(f"parts_x{n}")
        os.makedirs(parts, exist_ok=True)
        for k in range(4):   # four files of (about) a quarter each, for --dask
            with open(os.path.join(parts, f"part{k}.conll"), "wb") as f:
                f.write(dev * (n // 4 + (1 if k < n % 4 else 0)) if n >= 4 else dev)
        runs = {"-j 1": ("-i", src, "-o", p("out1.conll"), "-j", "1"),
                f"-j {cores}": ("-i", src, "-o", p("outN.conll"), "-j", str(cores))}
        if have_dask:
            runs["--dask local:2 (4 files)"] = ("--dask", "local:2", "-i", os.path.join(parts, "*.conll"),
                                                "-o", p("outdask") + "/")
        figures = {name: [] for name in runs}
        for _ in range(a.repeat):
            for name, args in runs.items():
                figures[name].append(maltpy("-c", model, "-m", "parse", "-q", *args))
        tokens = dev_tokens * n
        for name, results in figures.items():
            wall = statistics.median(w for w, _ in results)
            rss = max(m for _, m in results)
            if name.startswith("--dask"):
                # each part parsed alone with -j 1 must give the same bytes
                same = all(
                    maltpy("-c", model, "-m", "parse", "-q", "-j", "1", "-i", os.path.join(parts, f),
                           "-o", p("single.conll"))
                    and same_bytes(p("single.conll"), os.path.join(p("outdask"), f))
                    for f in sorted(os.listdir(parts)))
                part_tokens = sum(os.path.getsize(os.path.join(parts, f)) for f in os.listdir(parts))
                tokens_here = dev_tokens * round(part_tokens / len(dev))
            else:
                same = same_bytes(p("out1.conll"), p("outN.conll")) if name != "-j 1" else True
                tokens_here = tokens
            print(f"| EWT dev x{n} ({tokens_here:,} tokens) | {name} | {wall:.2f} | {tokens_here / wall:,.0f} | "
                  f"{rss:.0f} | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
