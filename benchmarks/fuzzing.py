"""Fuzz maltpy's input boundaries (the targets of fuzz/targets.py) and sweep byte flips over a model.

    python benchmarks/fuzzing.py run --cases 250000            # every target, 250,000 cases each
    python benchmarks/fuzzing.py run --target model --engine atheris --cases 100000
    python benchmarks/fuzzing.py flips                         # every byte of a model file, 3 flips each

``run`` reports cases per second, the slowest case and every failure (an exception other
than maltpy's own error, or a broken invariant), whose input it saves under
``fuzz/crashes/`` for a regression test (tests/test_fuzz.py replays ``fuzz/regressions/``).
Engines: ``atheris`` (coverage-guided libFuzzer, ``pip install atheris``; each target in its
own process, hangs over 5 s reported) or ``random`` (fuzz/targets.py's mutator, no
dependency), the default when atheris is absent.

``flips`` changes every byte of a small model file in three ways (xor 0x01, 0x80, 0xff):
each damaged file must load and parse exactly as the original does, or be refused with
maltpy's one-line ModelFileError.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # after the installed maltpy: only fuzz/ comes from the checkout
CRASHES = os.path.join(ROOT, "fuzz", "crashes")

from maltpy.config import available_cores  # noqa: E402


def save_case(target: str, data: bytes) -> str:
    os.makedirs(CRASHES, exist_ok=True)
    path = os.path.join(CRASHES, f"{target}-{hashlib.sha1(data).hexdigest()[:12]}.bin")
    with open(path, "wb") as f:
        f.write(data)
    return path


def run_random(targets, cases: int, seed: int) -> int:
    from fuzz.targets import MUTATORS, Harness, mutate, run_one
    harness = Harness()
    rng = random.Random(seed)
    failures = 0
    for target in targets:
        fn, seeds = getattr(harness, target), harness.seeds(target)
        mutator = MUTATORS.get(target, mutate)
        pool = list(seeds)  # inputs that maltpy accepted become seeds too (cheap corpus growth)
        slowest, t0 = 0.0, time.perf_counter()
        for k in range(cases):
            data = mutator(rng.choice(pool), rng)
            t = time.perf_counter()
            err = run_one(fn, data)
            slowest = max(slowest, time.perf_counter() - t)
            if err is not None:
                failures += 1
                print(f"FAIL {target}: {type(err).__name__}: {err} -> {save_case(target, data)}")
                traceback.print_exception(type(err), err, err.__traceback__, limit=-3)
            elif k % 7 == 0 and len(pool) < 2000:
                pool.append(data)
        wall = time.perf_counter() - t0
        print(f"{target:9s} {cases:>9,} cases  {cases / wall:>8,.0f} cases/s  slowest {slowest:.3f} s")
    return failures


def atheris_child(target: str) -> None:
    """One target under libFuzzer (run in its own process: atheris owns sys.argv and the loop)."""
    import atheris
    with atheris.instrument_imports(include=["maltpy", "fuzz"]):
        from fuzz.targets import Harness, run_one
    harness = Harness()
    fn = getattr(harness, target)

    def test_one(data: bytes):
        err = run_one(fn, data)
        if err is not None:
            raise err

    corpus = os.path.join(ROOT, "fuzz", "corpus", target)
    os.makedirs(corpus, exist_ok=True)
    for k, data in enumerate(harness.seeds(target)):
        with open(os.path.join(corpus, f"seed{k}"), "wb") as f:
            f.write(data)
    atheris.Setup([sys.argv[0]] + sys.argv[3:] + [corpus], test_one)
    atheris.Fuzz()


def run_atheris(targets, counts: dict, jobs: int) -> int:
    os.makedirs(CRASHES, exist_ok=True)
    procs = []
    for target in targets:
        cmd = [sys.executable, __file__, "_child", target, f"-runs={counts[target]}", "-timeout=5",
               f"-artifact_prefix={CRASHES}/{target}-", "-max_len=8192", "-print_final_stats=1"]
        procs.append((target, cmd))
    failures, running = 0, []
    while procs or running:
        while procs and len(running) < jobs:
            target, cmd = procs.pop(0)
            running.append((target, time.perf_counter(),
                            subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        target, t0, p = running.pop(0)
        out, _ = p.communicate()
        wall = time.perf_counter() - t0
        execs = [line for line in out.splitlines() if line.startswith("stat::number_of_executed_units")]
        n = int(execs[-1].split(":")[-1]) if execs else 0
        status = "ok" if p.returncode == 0 else f"FAILED (exit {p.returncode})"
        print(f"{target:9s} {n:>9,} cases  {n / wall:>8,.0f} cases/s  {status}")
        if p.returncode != 0:
            failures += 1
            print("\n".join(out.splitlines()[-40:]))
    return failures


def flip_sweep(model_path: str = None, which: str = "nivreeager") -> int:
    """Every byte of a model file xor 0x01, 0x80 and 0xff: identical parse or ModelFileError."""
    import tempfile
    from fuzz.targets import Harness
    from maltpy.errors import ModelFileError
    from maltpy.parsing.parser import Parser
    harness = Harness()
    sentences = harness.gold[:10]
    if model_path is None:
        from fuzz.targets import ALGORITHMS
        index = len(harness.model_bytes) - 1 if which == "libsvm" else ALGORITHMS.index(which)
        blob = harness.model_bytes[index]
    else:
        with open(model_path, "rb") as f:
            blob = f.read()
    tmp = os.path.join(tempfile.mkdtemp(), "flipped.mpz")

    def parse_with(data):
        with open(tmp, "wb") as f:
            f.write(data)
        p = Parser.load(tmp)
        return [(s.heads, s.labels) for s in p.parse(sentences)]

    expected = parse_with(blob)
    counts = {"identical": 0, "refused": 0, "different": 0, "other exception": 0}
    t0 = time.perf_counter()
    for pos in range(len(blob)):
        for mask in (0x01, 0x80, 0xFF):
            data = blob[:pos] + bytes([blob[pos] ^ mask]) + blob[pos + 1:]
            try:
                same = parse_with(data) == expected
                counts["identical" if same else "different"] += 1
                if not same:
                    print(f"DIFFERENT: byte {pos} xor {mask:#04x} -> {save_case('flip', data)}")
            except ModelFileError as e:
                counts["refused"] += 1
                if "\n" in str(e):
                    counts["other exception"] += 1
                    print(f"MULTI-LINE MESSAGE: byte {pos} xor {mask:#04x}: {e!r}")
            except Exception as e:  # noqa: BLE001
                counts["other exception"] += 1
                print(f"FAIL: byte {pos} xor {mask:#04x}: {type(e).__name__}: {e} -> {save_case('flip', data)}")
    total = sum(v for k, v in counts.items() if k != "other exception")
    print(f"model of {len(blob):,} bytes, {total:,} flips in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    return counts["different"] + counts["other exception"]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_child":
        sys.argv = [sys.argv[0]] + argv
        atheris_child(argv[1])
        return 0
    from fuzz.targets import TARGETS
    try:
        import atheris  # noqa: F401
        default_engine = "atheris"
    except ImportError:
        default_engine = "random"
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="fuzz the targets")
    run.add_argument("--target", choices=TARGETS + ("all",), default="all")
    run.add_argument("--cases", default="250000",
                     help="cases per target: a number, or per target as conll=600000,model=60000,...")
    run.add_argument("--engine", choices=("atheris", "random"), default=default_engine)
    run.add_argument("--seed", type=int, default=0, help="random engine's seed")
    run.add_argument("-j", "--jobs", type=int, default=available_cores(), help="atheris: targets at once")
    flips = sub.add_parser("flips", help="single-byte flips over a model file")
    flips.add_argument("--model", help="model file (default: a small model trained on the example treebank)")
    flips.add_argument("--which", default="nivreeager",
                       help="the small model: an algorithm name, or libsvm (nivrestandard, LIBSVM, POS split)")
    args = ap.parse_args(argv)
    if args.command == "flips":
        return 1 if flip_sweep(args.model, args.which) else 0
    targets = TARGETS if args.target == "all" else (args.target,)
    if "=" in args.cases:
        counts = {k: int(v) for k, v in (item.split("=") for item in args.cases.split(","))}
        targets = tuple(t for t in targets if t in counts)
    else:
        counts = dict.fromkeys(targets, int(args.cases))
    t0 = time.perf_counter()
    failures = 0
    for target in targets:  # one at a time for the random engine; atheris runs -j processes
        if args.engine == "random":
            failures += run_random((target,), counts[target], args.seed)
    if args.engine == "atheris":
        failures = run_atheris(targets, counts, args.jobs)
    print(f"{failures} failure(s); {time.perf_counter() - t0:.0f} s in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
