"""Benchmark on UD English EWT: learning time, dev LAS/UAS, parsing speed, model size, memory.

    python benchmarks/ewt.py [--shared ../shared] [--workdir /tmp/maltpy-ewt] [--args "-d POSTAG ..."]

Follows the issue's protocol: train.conllu and dev.conllu converted to CoNLL-X with
`maltpy -m convert` (XPOS as POSTAG), nivreeager with MaltParser's default liblinear
feature model, scored with all tokens (LAS/UAS) as MaltParser's figures were.
Prints figures; it is not a test.
"""
import argparse
import os
import resource
import shlex
import subprocess
import sys
import time


def sh(args, **kw):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], check=True, **kw)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--workdir", default="/tmp/maltpy-ewt")
    ap.add_argument("--args", default="", help="extra maltpy learning flags")
    ap.add_argument("--repeat", type=int, default=5, help="timed parses of dev (best is reported)")
    ap.add_argument("--model", default="ewt.mpz", help="model file name in the work directory")
    a = ap.parse_args()
    ewt = os.path.join(a.shared, "data", "ud", "en_ewt")
    if not os.path.exists(os.path.join(ewt, "train.conllu")):
        sys.exit(f"EWT not found under {ewt}")
    os.makedirs(a.workdir, exist_ok=True)
    train, dev = os.path.join(a.workdir, "train.conll"), os.path.join(a.workdir, "dev.conll")
    cwd = a.workdir  # run outside the source tree
    for src, dst in ((os.path.join(ewt, "train.conllu"), train), (os.path.join(ewt, "dev.conllu"), dev)):
        if not os.path.exists(dst):
            sh(["-m", "convert", "-i", src, "-o", dst, "-q"], cwd=cwd)
    model = os.path.join(a.workdir, a.model)

    t = time.perf_counter()
    sh(["-c", model, "-m", "learn", "-i", train, "-q", *shlex.split(a.args)], cwd=cwd)
    learn_s = time.perf_counter() - t

    import maltpy
    from maltpy.evaluation import evaluate
    from maltpy.formats.conll import read_conll
    gold = read_conll(dev, need_heads=True)
    n_tok = sum(len(s) for s in gold)
    print(f"EWT: train {train}, dev {len(gold)} sentences / {n_tok} tokens; extra flags: {a.args or 'none'}")
    print(f"learning (maltpy -m learn, wall):      {learn_s:6.1f} s")
    print(f"model file size:                       {os.path.getsize(model) / 1e6:6.1f} MB")
    for enforce in (False, True):
        p = maltpy.load(model, enforce_tree=enforce)
        if enforce and "enforce_tree" not in p.system_cls.options:
            break
        out = p.parse(gold)
        s = evaluate(gold, out)
        # core loop speed: encoded corpus, weights loaded, one thread
        corpus = p.encode(gold)
        model, strategy = p.search_model(), p.strategy()
        best = min(_timed(lambda: strategy.parse(model, corpus)) for _ in range(a.repeat))
        best_api = min(_timed(lambda: p.parse(gold)) for _ in range(a.repeat))
        if model.scorer.batched:  # the batched walk also runs on every core
            from maltpy.config import available_cores
            cores = available_cores()   # what -j 0 means
            best_mt = min(_timed(lambda: strategy.parse(model, corpus, n_threads=cores))
                          for _ in range(a.repeat))
            print(f"   parse loop on {cores} threads: {n_tok / best_mt:10,.0f} tokens/s")
        print(f"enforce_tree={str(enforce):5}  LAS {s['all'].las:.2f}  UAS {s['all'].uas:.2f}  "
              f"(no punct: LAS {s['no_punct'].las:.2f}, UAS {s['no_punct'].uas:.2f})")
        print(f"   parse loop ({p.learner.kind}): {n_tok / best:10,.0f} tokens/s   Parser.parse() incl. encoding and "
              f"output sentences: {n_tok / best_api:10,.0f} tokens/s")
    out_path = os.path.join(a.workdir, "dev.parsed.conll")
    t = time.perf_counter()
    sh(["-c", model, "-i", dev, "-o", out_path, "-q"], cwd=cwd)
    cli_s = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"maltpy parse command on dev (load, read, parse, write): {cli_s:.2f} s")
    print(f"peak memory of any child process (i.e. learning): {peak:.0f} MB")
    r = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "maltpy", "-c", model, "-i", dev,
                        "-o", out_path, "-q"], cwd=cwd, capture_output=True, text=True)
    if r.returncode == 0 and r.stderr.strip().isdigit():
        print(f"peak memory while parsing dev: {int(r.stderr.strip()) / 1024:.0f} MB")


def _timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
