"""``maltpy draw``: trees as pictures (HTML or SVG), errors against gold marked."""
from __future__ import annotations

import os

from maltpy.cli.common import ArgumentParser, _read_for_good
from maltpy.errors import MaltpyError


def cmd_draw(argv):
    import html
    from maltpy.formats.conll import atomic_output, read_conll
    from maltpy.visual.trees import LEGEND, html_page, sentence_block, sentence_svg
    p = ArgumentParser(
        prog="maltpy draw",
        description="Draw dependency trees: arcs over the words with labels and POS, as one self-contained "
                    "HTML page (any browser, no network) or, for one sentence, an SVG file. With --gold, "
                    "wrong heads are red with the gold arc drawn in green below the words, wrong labels "
                    "orange with the gold label beside them.",
        epilog="examples: maltpy draw out.conll --gold gold.conll -o trees.html; "
               "maltpy draw out.conll --sentence 12 -o tree.svg")
    p.add_argument("input", help="CoNLL file to draw ('-' for standard input)")
    p.add_argument("-o", metavar="FILE", help="output: .html (default, standard output when absent) or .svg "
                                              "(one sentence)")
    p.add_argument("--gold", metavar="GOLD", help="gold CoNLL file of the same sentences: mark the errors")
    p.add_argument("--sentence", type=int, metavar="N", help="only sentence N (1 = the first)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N sentences")
    p.add_argument("--errors", action="store_true", help="with --gold: only sentences with an error")
    p.add_argument("--scores", action="store_true", help="shade each arc by the Conf= a beam's --confidence or "
                                                           "the Score= of --arc-scores wrote in MISC: the fainter, "
                                                           "the less sure the parser was")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of the input files")
    a = p.parse_args(argv)
    if a.sentence is not None and a.sentence < 1:
        p.error("--sentence counts from 1")
    if a.limit is not None and a.limit < 1:
        p.error("--limit must be at least 1")
    if a.errors and not a.gold:
        p.error("--errors needs --gold")
    sentences = _read_for_good(read_conll, a.input, a.fmt)
    gold = _read_for_good(read_conll, a.gold, a.fmt, need_heads=True) if a.gold else None
    if gold is not None:
        from maltpy.evaluation.scores import evaluate
        evaluate(gold, sentences, a.gold, a.input)   # the same words, sentence by sentence
    index = list(range(len(sentences)))
    if a.sentence is not None:
        if a.sentence > len(sentences):
            raise MaltpyError(f"{a.input} has {len(sentences)} sentences; there is no sentence {a.sentence}")
        index = [a.sentence - 1]
    if a.errors:
        index = [k for k in index if sentences[k].heads != gold[k].heads or sentences[k].labels != gold[k].labels]
    if a.limit is not None:
        index = index[:a.limit]
    svg = str(a.o or "").lower().endswith(".svg")
    if svg and len(index) != 1:
        raise MaltpyError(f"an SVG file holds one sentence but {len(index)} are selected; "
                          "give --sentence N, or write .html")
    if not index:
        raise MaltpyError("no sentence to draw (every sentence is right)" if a.errors else "no sentence to draw")
    if svg:
        k = index[0]
        text = sentence_svg(sentences[k], gold[k] if gold else None, standalone=True, scores=a.scores)
    else:
        title = f"maltpy draw: {'standard input' if a.input == '-' else os.path.basename(a.input)}"
        body = [f"<h2>{html.escape(title)}</h2>"] + ([LEGEND] if gold else [])
        body += [sentence_block(sentences[k], k, gold[k] if gold else None, scores=a.scores) for k in index]
        text = html_page(title, body)
    with atomic_output(a.o) as out:
        out.write(text)
