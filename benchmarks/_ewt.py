"""What the EWT benchmarks share: their command-line options and reading EWT as CoNLL-X."""
import argparse
import os
import subprocess
import sys
import time


def _parser(doc: str) -> argparse.ArgumentParser:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    return ap


def timing_argument_parser(doc: str, model: bool = True) -> argparse.ArgumentParser:
    """Options of the benchmarks that time commands with an EWT model (trained when not given;
    ``model=False``: the benchmark takes its models otherwise)."""
    ap = _parser(doc)
    if model:
        ap.add_argument("--model", help="an EWT CoNLL-X nivreeager model (default: train one)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (the best is kept)")
    return ap


def seeded_argument_parser(doc: str) -> argparse.ArgumentParser:
    """Options of the benchmarks that train one algorithm with several solver seeds."""
    ap = _parser(doc)
    ap.add_argument("--algorithm", default="nivreeager")
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated solver seeds (0 is the default)")
    ap.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                    help="a Parser setting, e.g. marking_strategy=head (repeatable)")
    return ap


def read_ewt(shared: str, part: str):
    """EWT ``part`` (train or dev) as CoNLL-X sentences (XPOS as POSTAG); exits if it is missing."""
    path = os.path.join(shared, "data", "ud", "en_ewt", f"{part}.conllu")
    if not os.path.exists(path):
        sys.exit(f"EWT not found: {path}")
    from maltpy.formats.conll import read_conll, to_conllx
    return [to_conllx(s) for s in read_conll(path, "conllu", need_heads=True)]


def run_maltpy(args):
    """Run the maltpy command as a user types it; return (wall seconds, the child's resource usage
    from wait4, exit status, standard error)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "maltpy", *args], stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    return wall, usage, status, err
