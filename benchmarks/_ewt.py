"""What the EWT benchmarks share: their command-line options and reading EWT as CoNLL-X."""
import argparse
import os
import statistics
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


class _Usage:
    """wait4's resource usage with the child's own peak memory put right (see run_maltpy)."""

    def __init__(self, usage, maxrss_kb):
        self.ru_utime, self.ru_stime, self.ru_maxrss = usage.ru_utime, usage.ru_stime, maxrss_kb


def run_maltpy(args):
    """Run the maltpy command as a user types it; return (wall seconds, the child's resource usage
    from wait4, exit status, standard error).

    The peak memory comes from /usr/bin/time where the machine has it: a child that Python
    starts (vfork, then exec) inherits this process's peak in wait4's ru_maxrss, which made a
    small command look as large as the benchmark that ran it."""
    timer = ["/usr/bin/time", "-f", "\n@peak-kb %M"] if os.path.exists("/usr/bin/time") else []
    t0 = time.perf_counter()
    proc = subprocess.Popen([*timer, sys.executable, "-m", "maltpy", *args], stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    if timer:
        lines = err.rstrip("\n").split("\n")
        if lines and lines[-1].startswith("@peak-kb "):
            usage = _Usage(usage, int(lines[-1].split()[1]))
            lines = [line for line in lines[:-1] if not line.startswith(("Command exited with", "Command terminated"))]
            err = "\n".join(lines).rstrip("\n") + "\n"   # /usr/bin/time passes the command's status on
    return wall, usage, status, err


def timed_maltpy(args):
    """Run maltpy, exiting if it fails; return (wall s, CPU s of user and system, peak RSS MB)."""
    wall, usage, status, err = run_maltpy(args)
    if status:
        sys.exit(f"maltpy {' '.join(args)} failed: {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def interleaved_table(labels, figures, tokens=None):
    """A Markdown table of interleaved runs (``figures[k]``: configuration k's (wall, CPU, RSS) per
    round): wall median and range, CPU median, peak memory, and against the first configuration
    the ratio of the medians and the median of the per-round ratios (the rounds pair runs made
    close in time, so a slow spell of the machine hits both of a pair)."""
    head = "| configuration | wall median (min-max) | CPU median |" + (" tokens/s at the median |" if tokens else "")
    lines = [head + " peak memory | vs first: medians | vs first: per round |",
             "|---|---:|---:|" + ("---:|" if tokens else "") + "---:|---:|---:|"]
    base = [w for w, _, _ in figures[0]]
    for label, runs in zip(labels, figures):
        walls = [w for w, _, _ in runs]
        med = statistics.median(walls)
        cpu = statistics.median(u for _, u, _ in runs)
        rss = max(m for _, _, m in runs)
        ratio = med / statistics.median(base) - 1
        per_round = statistics.median(w / b for w, b in zip(walls, base)) - 1
        lines.append(f"| {label} | {med:.2f} s ({min(walls):.2f}-{max(walls):.2f}) | {cpu:.2f} s | "
                     + (f"{tokens / med:,.0f} | " if tokens else "")
                     + f"{rss:.0f} MB | {100 * ratio:+.1f} % | {100 * per_round:+.1f} % |")
    return "\n".join(lines)
