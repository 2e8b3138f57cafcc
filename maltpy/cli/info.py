"""``maltpy info``: what a model file holds."""
from __future__ import annotations

import sys

from maltpy.cli.common import ArgumentParser, _model_path
from maltpy.config import flag_of
from maltpy.errors import MaltpyError


def cmd_info(argv):
    p = ArgumentParser(
        prog="maltpy info",
        description="What a model file holds: the settings it was trained with (those that differ from "
                    "the defaults, as flags), learner, feature model, labels, the training data's figures, "
                    "and with -dir both the combination the cross-validation chose. Loading checks the "
                    "whole file, so this also tells whether it is intact.",
        epilog="example: maltpy info model.mpz; maltpy info model.mpz --features > features.yaml")
    p.add_argument("model", help="a model file (.mpz is added when there is no extension)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--features", action="store_true",
                      help="print the feature model (YAML, usable with -F; with -dir both, the left-to-right "
                           "parser's)")
    what.add_argument("--json", action="store_true", help="print everything as JSON")
    a = p.parse_args(argv)
    from maltpy.components import load as load_pipeline
    path = _model_path(a.model)
    pipeline = load_pipeline(path)
    parser = pipeline.parser
    if len(pipeline.components) > 1 or parser is None:   # a model file of several components
        _print_pipeline(pipeline, path, a)
        return
    if a.features:
        sys.stdout.write(parser.feature_text)
        return
    info = parser.describe()
    if a.json:
        import json
        print(json.dumps(info, indent=2, ensure_ascii=False))
        return
    print(f"model        {path}"
          + (f" (written by maltpy {info['written_by']})" if info["written_by"] else ""))
    _print_description(info)


def _print_pipeline(pipeline, path, a):
    """``maltpy info`` for a model file of several components: each in order, a parser in full."""
    if a.features:
        if pipeline.parser is None:
            raise MaltpyError(f"{path}: no parser among its components, so no feature model")
        sys.stdout.write(pipeline.parser.feature_text)
        return
    info = pipeline.describe()
    if a.json:
        import json
        print(json.dumps(info, indent=2, ensure_ascii=False))
        return
    n = len(pipeline.components)
    print(f"model        {path}: {n} component{'' if n == 1 else 's'}{', run in order' if n > 1 else ''}")
    for k, (component, described) in enumerate(zip(pipeline.components, info["components"]), 1):
        print(f"component {k}  {component.name}: reads {', '.join(described['reads']) or 'nothing'}; "
              f"writes {', '.join(described['writes']) or 'nothing'}")
        if "algorithm" in described:
            _print_description(described, indent="  ")
        elif component.name == "tagger":
            _print_tagger(described, indent="  ")
        elif component.name == "tokenizer":
            _print_tokenizer(described, indent="  ")


def _counted(n, noun: str) -> str:
    """``n`` and ``noun`` (a plural), singular for one: "1 paragraph", "2,016 paragraphs"."""
    return f"{n:,.0f} {noun[:-1] if n == 1 else noun}"


def _print_tokenizer(info, indent=""):
    """``maltpy info``'s lines for a tokenizer: what it learned from and its training figures."""
    trained = [_counted(info[k], k) for k in ("characters", "tokens", "sentences", "paragraphs") if k in info]
    if "seconds" in info:
        trained.append(f"{info['seconds']:.1f} s")
    print(f"{indent}{'segmenter':<12} {info.get('features', 0):,.0f} features, "
          f"{info.get('training accuracy', 0):.2f} % of the decisions right in the last epoch")
    print(f"{indent}{'multiword':<12} {_counted(info.get('multiword forms', 0), 'forms')}, "
          f"{_counted(info.get('multiword rules', 0), 'suffix rules')}")
    print(f"{indent}{'training':<12} {', '.join(trained)}")


def _print_tagger(info, indent=""):
    """``maltpy info``'s lines for a tagger: its groups with their classes, features and training accuracy."""
    accuracy = info.get("training accuracy (last epoch, %)", {})
    for group, classes in info["classes"].items():
        extra = f", {accuracy[group]:.2f} % of the training words in the last epoch" if group in accuracy else ""
        sure = info.get("sure words (tagged unscored)", {}).get(group)
        extra += f", {_counted(sure, 'sure forms')}" if sure else ""
        print(f"{indent}{group:<12} {classes:,} classes, {info['features'][group]:,} features{extra}")
    trained = [_counted(info[k], k) for k in ("sentences", "words") if info.get(k)]
    trained.append(f"{info['epochs']} epochs")
    if "seconds" in info:
        trained.append(f"{info['seconds']:.1f} s")
    print(f"{indent}{'training':<12} {', '.join(trained)}; lemma dictionary of {info['lemma dictionary']:,} forms")
    if info.get("templates"):
        print(f"{indent}{'templates':<12} {info['templates']}")
    from maltpy.tagging.tagger import ENSEMBLE, ENSEMBLE_MARGIN
    ensemble = info.get(ENSEMBLE)
    if ensemble:
        print(f"{indent}{'ensemble':<12} {ensemble} taggers add up their scores for each column but the lemma, "
              "half of them reading right to left (the figures above: the first)")
    if info.get(ENSEMBLE_MARGIN):
        print(f"{indent}{'margin':<12} {info[ENSEMBLE_MARGIN]:g}: the first tagger's best class, where it scores "
              "that much above the second, is taken without the others (--ensemble-margin)")
    clusters = info.get("word clusters")
    if clusters:
        lengths = ", ".join(str(n) if n else "whole" for n in clusters["prefix lengths"])
        print(f"{indent}{'clusters':<12} {clusters['words']:,} words from {clusters['file']} (prefixes: {lengths})")


def _print_description(info, indent=""):
    """``maltpy info``'s lines for one parser (and its right-to-left parser with -dir both)."""
    changed = " ".join(f"{flag_of(k)} {str(v).lower() if isinstance(v, bool) else v}"
                       for k, v in info["settings"].items())
    t = info["training"]
    lines = [
        ("parser", f"{info['algorithm']}" + (
            " (discontinuous constituent parser: export or discbracket trees out)" if info.get("discontinuous")
            else " (constituent parser: bracketed trees out)" if info["constituents"] else "")),
        ("settings", changed or "the defaults"),
        ("format", info["format"]),
        ("learner", f"{info['learner']} {info['learner_options']}".strip()),
        ("features", f"{info['feature_model']['name']}: {info['feature_model']['features']} features"
                     + ("" if indent else " (maltpy info --features prints them)")),
        ("labels", f"{len(info['labels'])}: {' '.join(info['labels'][:12])}{' ...' if len(info['labels']) > 12 else ''}"),
        ("classes", f"{info['classes']} in {info['split_models']} split model(s)"),
    ]
    if info.get("word clusters"):
        c = info["word clusters"]
        lines.append(("clusters", f"{c['spellings']:,} spellings (the clusters file's words and their casings), "
                                  f"read by {c['columns']} column(s)"))
    # the figures a model file keeps for people: any of them may be absent (older files)
    trained = [f"{t[k]:,.0f} {what}" for k, what in (("sentences", "sentences"), ("tokens", "tokens"),
                                                      ("instances", "decisions"), ("features", "distinct features"),
                                                      ("oracle_errors", "trees the oracle could not rebuild"))
               if t.get(k)]
    if "seconds" in t:
        trained.append(f"{t['seconds']:.1f} s")
    if trained:
        lines.append(("training", ", ".join(trained)))
    if t.get("tag_folds") == 1:
        lines.append(("tags", "learned from the treebank's gold tags (--tagger-folds 1)"))
    elif t.get("tag_folds"):
        agree = ", ".join(f"{k[len('jackknifed_'):].upper()} {v:.2f} %" for k, v in t.items()
                          if k.startswith("jackknifed_"))
        by = t.get("tag_fold_ensemble", 1)
        lines.append(("tags", f"learned from {t['tag_folds']:.0f}-fold jackknifed tags"
                              + (f" (each fold's tagger an ensemble of {by:.0f})" if by > 1 else "")
                              + (f"; agreeing with the gold tags: {agree}" if agree else "")))
    c = info.get("combination")
    if c:
        chosen = f"{c['criterion']} <= {c['param']}, {c['first']} first"
        if {"sentences", "las", "las_ltr", "las_rtl"} <= set(c):
            chosen += (f", chosen by cross-validation on {c['sentences']:,.0f} sentences: LAS {c['las']:.2f} "
                       f"(left to right {c['las_ltr']:.2f}, right to left {c['las_rtl']:.2f})")
        if "combination_seconds" in t:
            chosen += f"; {t['combination_seconds']:.1f} s"
        lines.append(("combination", chosen))
    for key, value in lines:
        print(f"{indent}{key:<12} {value}")
    if c:
        print(f"{indent}right-to-left parser:")
        _print_description(info["right_to_left"], indent + "  ")
