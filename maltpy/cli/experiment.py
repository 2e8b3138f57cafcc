"""``maltpy experiment``: every configuration trained and scored on every treebank."""
from __future__ import annotations


from maltpy.cli.common import ArgumentParser
import sys

from maltpy.config import coerce


def cmd_experiment(argv):
    from maltpy.experiments.runner import (markdown_tables, parse_experiment_args, parse_treebank_args,
                                           run_experiments)
    p = ArgumentParser(
        prog="maltpy experiment",
        description="Train and evaluate every configuration on every treebank; print (or write) "
                    "Markdown tables shaped like Nivre (2008) Tables 3 and 4.",
        epilog="example: maltpy experiment ../shared/data/ud/*/train.conllu -a nivreeager covnonproj "
               "--config PP-E='-a nivreeager -pp head' -o docs/results.md")
    p.add_argument("train", nargs="+", help="training files; the language is the directory name")
    p.add_argument("-a", "--algorithms", nargs="*", default=[], help="configurations '-a NAME' (name = algorithm)")
    p.add_argument("--config", action="append", default=[], metavar="NAME=FLAGS",
                   help="a named configuration of MaltParser flags, e.g. PP-E='-a nivreeager -pp head'")
    p.add_argument("--test", action="append", default=[], metavar="LANG=FILE",
                   help="explicit test file for a language (default: hold out the last --holdout of train)")
    p.add_argument("--holdout", type=float, default=0.1, help="held-out fraction (default 0.1)")
    p.add_argument("--no-punct", action="store_true", help="score without punctuation tokens")
    p.add_argument("-j", "--jobs", type=int, default=0, help="threads for split models")
    p.add_argument("-o", metavar="FILE", help="write the Markdown tables here (default: standard output)")
    p.add_argument("--outputs", metavar="DIR", help="keep every parsed test file in DIR")
    p.add_argument("--dask", metavar="ADDRESS", help="run the (treebank x configuration) grid on a Dask cluster: "
                   "a scheduler address (tcp://host:8786) or local:N for N local worker processes; "
                   "the workers must see the treebank files (pip install \"maltpy[dask]\")")
    a = p.parse_args(argv)
    from maltpy.formats.conll import atomic_output
    a.jobs = coerce("jobs", a.jobs, "option -j")
    treebanks = parse_treebank_args(a.train, a.test)
    experiments = parse_experiment_args(a.config, a.algorithms)
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    if a.dask:
        from maltpy.integrations.dask import dask_client
        with dask_client(a.dask) as client:
            results = run_experiments(treebanks, experiments, a.holdout, a.jobs, log=log, outdir=a.outputs,
                                      client=client)
    else:
        results = run_experiments(treebanks, experiments, a.holdout, a.jobs, log=log, outdir=a.outputs)
    text = markdown_tables(results, experiments, punctuation=not a.no_punct)
    with atomic_output(a.o) as out:
        out.write(text)
