"""Evaluation reports in the manner of MaltEval: one self-contained HTML page of grouped
accuracy tables (and plots, when matplotlib is installed) for one system or two side by side."""
from __future__ import annotations

import html
from typing import List, Optional, Sequence, Tuple

from maltpy.errors import MaltpyError
from maltpy.evaluation.breakdown import (Breakdown, arc_length_bins, breakdown, depth_bins, most_different,
                                         sentence_length_bins)
from maltpy.evaluation.scores import evaluate
from maltpy.visual.trees import LEGEND, html_page, sentence_block

REPORT_STYLE = """
table{border-collapse:collapse;font-size:13px;margin:.4em 0 1.2em 0}
th,td{padding:2px 9px;border-bottom:1px solid #eee}
th{background:#f5f5f5;font-weight:600;text-align:center}
td{text-align:right;font-variant-numeric:tabular-nums}
td.key{text-align:left;font-weight:600}
tr.sep td{border-top:2px solid #ccc}
.note{color:#555;font-size:13px;max-width:60em}
.plot svg{max-width:100%;height:auto}
h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.better{color:#2a9d3f}.worse{color:#d62728}
"""


def _pct(x: float) -> str:
    return f"{x:.2f}"


def table(head: Sequence[Sequence[Tuple[str, int]]], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    """An HTML table: ``head`` is a list of header rows of (text, colspan); in each body row the
    first cell is the key and the others are already formatted figures."""
    out = [f'<table class="{cls}"><thead>']
    for hr in head:
        out.append("<tr>" + "".join(f'<th colspan="{span}">{html.escape(text)}</th>' if span > 1
                                    else f"<th>{html.escape(text)}</th>" for text, span in hr) + "</tr>")
    out.append("</thead><tbody>")
    for r in rows:
        out.append(f'<tr><td class="key">{html.escape(str(r[0]))}</td>'
                   + "".join(f"<td>{c}</td>" for c in r[1:]) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _system_head(names, per_system: Sequence[str], lead: Sequence[str]) -> List[List[Tuple[str, int]]]:
    if len(names) == 1:
        return [[(t, 1) for t in lead] + [(t, 1) for t in per_system]]
    return [[(t, 1) for t in lead] + [(n, len(per_system)) for n in names],
            [("", 1)] * len(lead) + [(t, 1) for n in names for t in per_system]]


def overall_section(names, gold, systems, punctuation_note: str) -> str:
    rows = []
    for name, sents in zip(names, systems):
        scores = evaluate(gold, sents)
        for key, label in (("all", "all tokens"), ("no_punct", "no punctuation")):
            s = scores[key]
            rows.append([f"{name}, {label}", _pct(s.las), _pct(s.uas), _pct(s.la), str(s.tokens)])
    return ("<h2>Overall</h2>" + table([[("", 1), ("LAS", 1), ("UAS", 1), ("LA", 1), ("tokens", 1)]], rows)
            + f'<p class="note">{punctuation_note}</p>')


def _arc_table(names, results: Sequence[Breakdown], gold_attr, system_attr, bins, key_name) -> str:
    rows = []
    for key in bins:
        row = [key, str(getattr(results[0], gold_attr)[key].tokens)]
        for b in results:
            g, s = getattr(b, gold_attr)[key], getattr(b, system_attr)[key]
            row += [_pct(g.las), _pct(g.uas), str(s.tokens), _pct(s.las), _pct(s.uas)]
        rows.append(row)
    per = ["recall", "unl. recall", "system arcs", "precision", "unl. precision"]
    return table(_system_head(names, per, [key_name, "gold arcs"]), rows, "arcs")


def significance_section(names, gold, systems, punctuation: bool, rounds: int, res=None) -> str:
    if res is None:
        from maltpy.evaluation.significance import compare
        res = compare(gold, systems[0], systems[1], rounds=rounds, punctuation=punctuation)
    rows = [[m, _pct(r["a"]), _pct(r["b"]), f"{r['a'] - r['b']:+.2f}", f"{r['p']:.4f}"
             + (" *" if r["p"] < 0.05 else "")] for m, r in res.items()]
    return ("<h2>Significance</h2>"
            + table([[("", 1), (names[0], 1), (names[1], 1), (f"{names[0]} − {names[1]}", 1), ("p-value", 1)]],
                    rows)
            + f'<p class="note">Approximate randomization (permutation) test over sentences, {rounds} rounds, '
              "two-sided; * marks p &lt; 0.05.</p>")


def report_html(gold, systems: Sequence[Tuple[str, Sequence]], punctuation: bool = True, plots: bool = True,
                rounds: int = 10000, differing: int = 10, title: Optional[str] = None,
                figures: Optional[dict] = None, comparison: Optional[dict] = None,
                breakdowns: Optional[Sequence[Breakdown]] = None) -> str:
    """The HTML report of one system, or two side by side (``systems`` = [(name, sentences), ...]).

    ``plots``: embed matplotlib plots (when matplotlib is installed; tables only otherwise).
    ``figures``: already-made figures to embed (see :func:`maltpy.visual.plots.figures`).
    ``differing``: with two systems, draw this many of the sentences where they differ most.
    ``comparison``: the permutation test's result if already computed
    (:func:`maltpy.evaluation.significance.compare` with the same ``punctuation`` and ``rounds``).
    ``breakdowns``: the systems' :class:`Breakdown` if already computed (with the same ``punctuation``).
    """
    names = [n for n, _ in systems]
    outputs = [s for _, s in systems]
    results = breakdowns or [breakdown(gold, s, punctuation, "gold", n) for n, s in systems]
    scope = ("all tokens" if punctuation else "tokens whose FORM is not punctuation (as eval.pl by default)")
    note = (f"Grouped figures below count {scope}. Recall groups tokens by their gold arc, precision by the "
            "system's arc; labelled means head and label both right.")
    title = title or ("maltpy evaluation: " + " vs ".join(names))
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p class="note">gold: {html.escape(str(gold[0].source) if gold else "")}; '
            f"{len(gold)} sentences, {sum(len(s) for s in gold)} words.</p>"]
    body.append(overall_section(names, gold, outputs, note))
    if len(systems) == 2:
        body.append(significance_section(names, gold, outputs, punctuation, rounds, comparison))

    figs = figures
    if figs is None and plots:
        from maltpy.visual.plots import figures as make_figures
        try:
            figs = make_figures(list(zip(names, results)))
        except MaltpyError:   # no matplotlib: the tables still say everything
            body.append('<p class="note">Plots need matplotlib: <code>pip install "maltpy[plots]"</code>.</p>')

    def plot(name):
        if figs and name in figs:
            from maltpy.visual.plots import svg_text
            return f'<div class="plot">{svg_text(figs[name])}</div>'
        return ""

    body.append("<h2>By arc length</h2>" + plot("arc_length")
                + _arc_table(names, results, "gold_arc_length", "system_arc_length", arc_length_bins(),
                             "arc length"))
    body.append("<h2>By sentence length</h2>" + plot("sentence_length"))
    rows = []
    for key in sentence_length_bins():
        row = [key, str(results[0].sentences_per_length[key])]
        for b in results:
            s = b.sentence_length[key]
            row += [str(s.tokens), _pct(s.las), _pct(s.uas)]
        rows.append(row)
    body.append(table(_system_head(names, ["tokens", "LAS", "UAS"], ["words", "sentences"]), rows))
    body.append("<h2>By distance to root</h2>" + plot("depth")
                + _arc_table(names, results, "gold_depth", "system_depth", depth_bins(), "depth"))

    # labels, most frequent in gold first
    body.append("<h2>By dependency label</h2>" + plot("labels"))
    all_labels = {}
    for b in results:
        for k, v in b.labels.items():
            all_labels[k] = max(all_labels.get(k, 0), v.gold)
    order = sorted(all_labels, key=lambda k: (-all_labels[k], k))
    rows = []
    for key in order:
        row = [key, str(results[0].labels[key].gold if key in results[0].labels else 0)]
        for b in results:
            c = b.labels.get(key)
            row += ([str(c.system), _pct(c.precision), _pct(c.recall), _pct(c.f1)] if c else ["0"] + ["-"] * 3)
        rows.append(row)
    body.append(table(_system_head(names, ["system", "precision", "recall", "F1"], ["label", "gold"]), rows)
                + '<p class="note">Precision, recall and F1 of labelled attachment: a token counts as right '
                  "when both its head and its label are right.</p>")
    body.append("<h2>Label confusions</h2>")
    for name, b in zip(names, results):
        top = sorted(b.confusions.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
        total = sum(b.confusions.values())
        rows = [[f"{g} \u2192 {s}", str(c), _pct(100.0 * c / total if total else 0)] for (g, s), c in top]
        body.append(f"<h3>{html.escape(name)}</h3>"
                    + table([[("gold \u2192 system label", 1), ("tokens", 1), ("% of label errors", 1)]], rows))

    body.append("<h2>By part of speech of the dependent</h2>" + plot("pos"))
    pos_counts = {k: v.tokens for k, v in results[0].pos.items()}
    rows = []
    for key in sorted(pos_counts, key=lambda k: (-pos_counts[k], k)):
        row = [key, str(pos_counts[key])]
        for b in results:
            s = b.pos[key]
            row += [_pct(s.las), _pct(s.uas), _pct(s.la)]
        rows.append(row)
    body.append(table(_system_head(names, ["LAS", "UAS", "LA"], ["POS", "tokens"]), rows)
                + '<p class="note">POS is the CPOSTAG (CoNLL-X) or UPOS (CoNLL-U) column of the gold file, '
                  "POSTAG where that column is empty.</p>")

    if len(systems) == 2 and differing:
        diffs = most_different(results[0], results[1], differing)
        body.append(f"<h2>Sentences where the systems differ most</h2>{LEGEND}"
                    f'<p class="note">The {len(diffs)} sentences with the largest difference in tokens with head '
                    "and label right, each drawn for both systems against gold.</p>")
        for k, d in diffs:
            for name, sents, b in zip(names, outputs, results):
                cap = (f"Sentence {k + 1}: {html.escape(name)} <span class=\"meta\">"
                       f"({b.sentence_correct[k]}/{b.sentence_tokens[k]} heads and labels right; "
                       f"{html.escape(names[1])} {d:+d})</span>")
                body.append(sentence_block(sents[k], k, gold[k], caption=cap))
    return html_page(title, body, REPORT_STYLE)
