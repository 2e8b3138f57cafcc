"""The multilingual experiment runner behind ``maltpy experiment``.

For every treebank and every configuration (a name plus MaltParser flags, e.g.
``PP-E="-a nivreeager -pp head"``) it trains on the training part, parses the
test part, and scores it; the results become Markdown tables in the shape of
Nivre (2008) Tables 3 and 4: LAS, UAS and LA per language and configuration,
learning and parsing times.

Without an explicit test file, the last ``holdout`` fraction of the training
file's sentences is the test set and the rest is trained on (as Nivre &
Fernández-González 2014 did for their development sets).
"""
from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from maltpy.config import FLAGS, coerce, make_settings
from maltpy.errors import MaltpyError
from maltpy.evaluation.scores import evaluate
from maltpy.formats.conll import detect_format, read_conll


@dataclass
class Treebank:
    name: str
    train: str
    test: Optional[str] = None


@dataclass
class Experiment:
    """One configuration: a column of the tables."""
    name: str
    flags: str = ""

    def settings(self, **extra) -> dict:
        """The MaltParser flags as settings (same flags and checks as the command line)."""
        try:
            tokens = shlex.split(self.flags)
        except ValueError as e:   # an unclosed quote
            raise MaltpyError(f"configuration {self.name}: flags {self.flags!r}: {e}") from None
        values = {}
        if len(tokens) % 2:
            raise MaltpyError(f"configuration {self.name}: flags must come in pairs ('-a nivreeager'), "
                              f"got {self.flags!r}")
        for flag, value in zip(tokens[::2], tokens[1::2]):
            if flag not in FLAGS:
                raise MaltpyError(f"configuration {self.name}: unknown flag {flag}; known: {' '.join(FLAGS)}")
            values[FLAGS[flag]] = coerce(FLAGS[flag], value, f"configuration {self.name}")
        values.update(extra)
        return values


def holdout_split(sentences: Sequence, fraction: float):
    """(train, test): the last ``fraction`` of the sentences is the test part."""
    if not 0 < fraction < 1:
        raise MaltpyError(f"the held-out fraction must be between 0 and 1, got {fraction}")
    cut = len(sentences) - max(1, int(round(len(sentences) * fraction)))
    if cut < 1:
        raise MaltpyError("too few sentences to hold out a test part")
    return list(sentences[:cut]), list(sentences[cut:])


def load_treebank(tb: Treebank, holdout: float):
    fmt = detect_format(tb.train)
    train = read_conll(tb.train, fmt, need_heads=True)
    if tb.test:
        test = read_conll(tb.test, detect_format(tb.test), need_heads=True)
    else:
        train, test = holdout_split(train, holdout)
    return fmt, train, test


def run_one(fmt, train, test, exp: Experiment, jobs: int = 0) -> dict:
    """Train, parse and score one configuration; returns scores and times."""
    from maltpy.parsing.parser import Parser
    settings = make_settings(**exp.settings(verbose=False, jobs=jobs, input_format=fmt))
    t0 = time.perf_counter()
    parser = Parser(settings).fit(train, fmt=fmt)
    learn = time.perf_counter() - t0
    t1 = time.perf_counter()
    out = parser.parse(test)
    parse = time.perf_counter() - t1
    s = evaluate(test, out)
    return {"las": s["all"].las, "uas": s["all"].uas, "la": s["all"].la,
            "las_np": s["no_punct"].las, "uas_np": s["no_punct"].uas, "la_np": s["no_punct"].la,
            "learn_s": learn, "parse_s": parse, "tokens": s["all"].tokens,
            "train_sentences": len(train), "test_sentences": len(test), "output": out}


_LOADED = {}   # the treebank last loaded in this process (the grid goes treebank by treebank)


def run_cell(tb: Treebank, holdout: float, exp: Experiment, jobs: int = 0, outdir: Optional[str] = None) -> dict:
    """One (treebank, configuration) cell: :func:`run_one`, its parsed test file kept in ``outdir``.
    Runs wherever it is sent (a Dask worker reads the treebank itself)."""
    from maltpy.formats.conll import write_conll
    key = (tb.train, tb.test, holdout)
    if key not in _LOADED:
        _LOADED.clear()
        _LOADED[key] = load_treebank(tb, holdout)
    fmt, train, test = _LOADED[key]
    r = run_one(fmt, train, test, exp, jobs)
    if outdir:
        os.makedirs(outdir, exist_ok=True)
        write_conll(r["output"], os.path.join(outdir, f"{tb.name}.{exp.name}.{fmt}"))
    del r["output"]
    return r


def run_experiments(treebanks: Sequence[Treebank], experiments: Sequence[Experiment],
                    holdout: float = 0.1, jobs: int = 0, log=print, outdir: Optional[str] = None,
                    client=None) -> Dict:
    """Every (treebank, configuration) pair; results[treebank][configuration] = run_one's dict.
    With a Dask ``client`` (maltpy.integrations.dask), the pairs run on its workers."""
    cells = [(tb, holdout, exp, jobs, outdir) for tb in treebanks for exp in experiments]

    def report(k, r):
        tb, exp = cells[k][0], cells[k][2]
        log(f"{tb.name:<10} {exp.name:<12} LAS {r['las']:6.2f}  UAS {r['uas']:6.2f}  LA {r['la']:6.2f}  "
            f"learn {r['learn_s']:6.1f} s  parse {r['parse_s']:5.2f} s")

    if client is None:
        done = []
        for k, cell in enumerate(cells):
            done.append(run_cell(*cell))
            report(k, done[-1])
    else:
        from maltpy.integrations.dask import run_cells
        for tb in treebanks:     # a missing file is found here, not on a worker
            for path in (tb.train, tb.test):
                if path and not os.path.exists(path):
                    raise MaltpyError(f"{path}: no such file")
        done = run_cells(client, cells, run_cell, log=report)
    results: Dict[str, Dict[str, dict]] = {tb.name: {} for tb in treebanks}
    for (tb, _, exp, _, _), r in zip(cells, done):
        results[tb.name][exp.name] = r
    return results


def markdown_tables(results: Dict, experiments: Sequence[Experiment], punctuation: bool = True) -> str:
    """Nivre (2008) Table 3 (LAS, UAS, LA) and Table 4 (times) as Markdown, with averages."""
    names = [e.name for e in experiments]
    suffix = "" if punctuation else "_np"
    lines = []
    head = "| Language | " + " | ".join(names) + " |"
    rule = "|---|" + "---:|" * len(names)
    for metric, title in (("las", "LAS"), ("uas", "UAS"), ("la", "LA")):
        lines += [f"**{title}** ({'all tokens' if punctuation else 'punctuation excluded'})", "", head, rule]
        cols = {n: [] for n in names}
        for lang, row in results.items():
            vals = []
            for n in names:
                v = row[n][metric + suffix]
                cols[n].append(v)
                vals.append(f"{v:.2f}")
            lines.append(f"| {lang} | " + " | ".join(vals) + " |")
        lines.append("| **Average** | " + " | ".join(f"{sum(c) / len(c):.2f}" for c in cols.values()) + " |")
        lines.append("")
    lines += ["**Learning / parsing time** (seconds, wall clock)", "", head, rule]
    for lang, row in results.items():
        lines.append(f"| {lang} | " + " | ".join(f"{row[n]['learn_s']:.1f} / {row[n]['parse_s']:.2f}"
                                               for n in names) + " |")
    lines.append("")
    return "\n".join(lines)


def parse_treebank_args(paths: Sequence[str], tests: Sequence[str]) -> List[Treebank]:
    """Treebanks from train files (named after their directory) and NAME=TEST or TRAIN=TEST pairs."""
    out = []
    for p in paths:
        name = os.path.basename(os.path.dirname(os.path.abspath(p))) or os.path.splitext(os.path.basename(p))[0]
        if not os.path.exists(p):
            raise MaltpyError(f"{p}: training file not found")
        out.append(Treebank(name, p))
    by_name = {tb.name: tb for tb in out}
    for spec in tests:
        key, sep, path = spec.partition("=")
        if not sep:
            raise MaltpyError(f"--test wants LANGUAGE=FILE, got {spec!r}")
        if key not in by_name:
            raise MaltpyError(f"--test {key}: no training file for {key!r}; have {', '.join(by_name)}")
        if not os.path.exists(path):
            raise MaltpyError(f"{path}: test file not found")
        by_name[key].test = path
    return out


def parse_experiment_args(specs: Sequence[str], algorithms: Sequence[str]) -> List[Experiment]:
    out = [Experiment(a, f"-a {shlex.quote(a)}") for a in algorithms]
    for spec in specs:
        name, sep, flags = spec.partition("=")
        if not sep or not name:
            raise MaltpyError(f"--config wants NAME='FLAGS', got {spec!r}")
        out.append(Experiment(name, flags))
    if not out:
        raise MaltpyError("give at least one --algorithms name or --config NAME='FLAGS'")
    for exp in out:   # flag errors now, not after the treebanks are read and some cells have run
        make_settings(**exp.settings())
    return out
