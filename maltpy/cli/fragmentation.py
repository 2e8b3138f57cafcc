"""``maltpy fragmentation``: what a model leaves on the stack at the end of the input."""
from __future__ import annotations


from maltpy.cli.common import ArgumentParser, _model_path, _read_for_good


def cmd_fragmentation(argv):
    from maltpy.evaluation.fragmentation import diagnose
    from maltpy.evaluation.scores import evaluate
    from maltpy.formats.conll import read_conll, write_conll
    from maltpy.parsing.parser import Parser
    p = ArgumentParser(
        prog="maltpy fragmentation",
        description="Fragmentation diagnostics (Nivre & Fernandez-Gonzalez 2014, Table 1): parse GOLD once "
                    "with an arc-eager MODEL and the tree constraint, report the words left on the stack "
                    "when the input ends and how the old heuristic and the tree constraint attach them.")
    p.add_argument("model", help="a nivreeager model file")
    p.add_argument("gold", help="gold CoNLL file (HEAD and DEPREL filled)")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of GOLD")
    p.add_argument("--old", metavar="FILE", help="write the old-heuristic parse here")
    p.add_argument("--new", metavar="FILE", help="write the tree-constrained parse here")
    a = p.parse_args(argv)
    parser = Parser.load(_model_path(a.model))
    gold = _read_for_good(read_conll, a.gold, a.fmt or parser.format, need_heads=True)
    stats, old, new = diagnose(parser, gold)
    for path, sents in ((a.old, old), (a.new, new)):
        if path:
            write_conll(sents, path)
    print(stats.format())
    print("UAS / LAS (all tokens):")
    for name, sents in (("old", old), ("new", new)):
        s = evaluate(gold, sents)["all"]
        print(f"  {name}  UAS {s.uas:6.2f}  LAS {s.las:6.2f}")
