"""Time one maltpy command under two builds that start alike: each commit installed with pip into
a virtual environment of its own, as a user installs maltpy, then the two commands run in
alternated pairs.

    python benchmarks/ab_builds.py BASE NEW [--pairs N] [--dir DIR] -- MALTPY ARGS...
    python benchmarks/ab_builds.py HEAD~1 HEAD --pairs 7 -- -c alp.mpz -i dev.export -o out.export -j 1

BASE and NEW are git revisions of this repository (``WORKTREE`` for the files as they are now).
Why not a worktree or a copy against the repository's own tree: a tree whose ``__pycache__``
holds valid byte code starts faster than one that compiles every module at each start (this
environment sets ``PYTHONDONTWRITEBYTECODE``, and a copy gives the sources new times); that alone
measured 4 % of a 1.3 s parse (docs/benchmarks.md, "Comparing two builds"). Installed builds start
alike. The machine's ``farm-bench`` runs the pairs when it is on PATH; otherwise the pairs are timed
here (wall time, medians). Environments are kept in DIR (default: a folder under the system's
temporary directory) and reused for the same revision's commit.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _commit(rev: str) -> str:
    if rev == "WORKTREE":
        return rev
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", rev], check=True, capture_output=True,
                          text=True).stdout.strip()


def install(rev: str, base_dir: str) -> str:
    """The ``maltpy`` command of ``rev`` installed in its own virtual environment (made once)."""
    commit = _commit(rev)
    home = os.path.join(base_dir, commit)
    command = os.path.join(home, "venv", "bin", "maltpy")
    if commit != "WORKTREE" and os.path.exists(command):
        return command
    shutil.rmtree(home, ignore_errors=True)
    source = os.path.join(home, "src")
    os.makedirs(source)
    if commit == "WORKTREE":
        # the files as they are, without build products or byte code
        shutil.copytree(ROOT, source, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git", "build", "__pycache__", "*.so", "*.c", "fuzz"))
    else:
        archive = subprocess.run(["git", "-C", ROOT, "archive", commit], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", source], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "venv", os.path.join(home, "venv")], check=True)
    print(f"installing {rev} ({commit}) ...", file=sys.stderr, flush=True)
    subprocess.run([os.path.join(home, "venv", "bin", "pip"), "install", "-q", source], check=True)
    return command


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)      # the installed maltpy, not a source tree
    return env


def time_pairs(a: list, b: list, pairs: int) -> None:
    """Alternated wall times of the two commands, with medians and the per-pair ratios' median."""
    times_a, times_b = [], []
    for k in range(pairs):
        for cmd, out in ((a, times_a), (b, times_b)) if k % 2 == 0 else ((b, times_b), (a, times_a)):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, env=_env(), stdout=subprocess.DEVNULL)
            out.append(time.perf_counter() - t)
    ratios = [x / y for x, y in zip(times_a, times_b)]
    print(f"NEW  median {statistics.median(times_a):.3f} s  (min {min(times_a):.3f}, max {max(times_a):.3f})")
    print(f"BASE median {statistics.median(times_b):.3f} s  (min {min(times_b):.3f}, max {max(times_b):.3f})")
    print(f"NEW/BASE median of pairs {statistics.median(ratios):.4f}  ({pairs} pairs)")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print("usage: ab_builds.py BASE NEW [--pairs N] [--dir DIR] -- MALTPY ARGS...", file=sys.stderr)
        return 2
    cut = argv.index("--")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("base")
    p.add_argument("new")
    p.add_argument("--pairs", type=int, default=7)
    p.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "maltpy-ab-builds"))
    a = p.parse_args(argv[:cut])
    args = argv[cut + 1:]
    base, new = install(a.base, a.dir), install(a.new, a.dir)
    if shutil.which("farm-bench"):
        quoted = " ".join(subprocess.list2cmdline([x]) for x in args)
        return subprocess.run(["farm-bench", "-n", str(a.pairs), "--pin", "1", "--vs",
                               f"env -u PYTHONPATH {base} {quoted}", "--", "env", "-u", "PYTHONPATH", new, *args]
                              ).returncode
    time_pairs([new, *args], [base, *args], a.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
