"""Dependency trees as SVG, and pages of them as one self-contained HTML file.

Words stand in a row, each as wide as its text, so a long sentence grows to the
right (the page scrolls) instead of shrinking. Arcs are drawn above the words,
from the head to an arrow on the dependent, at a height that puts every arc
above the arcs nested inside it. Crossing (non-projective) arcs never share a
height, so each can be followed along its own line; hovering over an arc
thickens it and shows "head -> dependent label".

Against gold (``gold=``): a word whose head is wrong has its arc in red and
its gold arc drawn in green below the words; a right head with a wrong label
keeps its arc and shows the label in orange with the gold label after it.
No scripts, fonts or images from elsewhere: the page opens offline in any browser.
"""
from __future__ import annotations

import html
import math
import unicodedata
from typing import Iterable, List, Optional, Sequence, Tuple

from maltpy.errors import MaltpyError

FONT = 14            # px, word forms
SMALL = 11           # px, tags and labels
LEVEL = 22           # px between arc heights
WORD_GAP = 18        # px between words
MARGIN = 12
ROOT = 0

FONTS = "system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif"
#: The trees' own style: inside every standalone SVG, and in the HTML pages.
TREE_STYLE = """
svg.tree{display:block;font-family:""" + FONTS + """;background:#fff}
svg.tree text{font-family:inherit}
svg.tree .form{font-size:14px;fill:#111}
svg.tree .tag{font-size:11px;fill:#777}
svg.tree .lab{font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
svg.tree .arc path{fill:none;stroke-width:1.4}
svg.tree .arc:hover path{stroke-width:3}
svg.tree .arc:hover .lab{font-weight:700}
svg.tree .ok path{stroke:#555}.ok .lab,.ok polygon{fill:#555}
svg.tree .nonproj path{stroke:#1f6fb4}.nonproj .lab,.nonproj polygon{fill:#1f6fb4}
svg.tree .badhead path{stroke:#d62728;stroke-width:1.8}.badhead .lab,.badhead polygon{fill:#d62728}
svg.tree .badlabel .lab{fill:#d96b00;font-weight:600}
svg.tree .gold path{stroke:#2a9d3f;stroke-dasharray:5 3}.gold .lab,.gold polygon{fill:#2a9d3f}
svg.tree .goldlab{fill:#2a9d3f}
"""
STYLE = """
body{font-family:""" + FONTS + """;margin:1.5em;color:#222}
.sent{margin:0 0 1.6em 0}
.sent h3{font-size:14px;font-weight:600;margin:0 0 .2em 0}
.sent h3 .meta{font-weight:400;color:#666}
.scroll{overflow-x:auto;overflow-y:hidden;border:1px solid #e4e4e4;border-radius:4px;background:#fff}
.legend{font-size:13px;color:#444;margin:0 0 1.2em 0}
.legend span{display:inline-block;margin-right:1.2em}
.legend i{display:inline-block;width:22px;height:0;border-top:2px solid;vertical-align:middle;margin-right:.35em}
"""


def _text_width(text: str, size: int) -> float:
    """Approximate rendered width: wide (CJK) characters take a full em, others about 0.6 em."""
    w = 0.0
    for ch in text:
        w += 1.0 if unicodedata.east_asian_width(ch) in ("W", "F") else 0.6
    return w * size


def arc_levels(spans: Sequence[Tuple[int, int]]) -> List[int]:
    """A height (1, 2, ...) for each arc span (lo, hi): one above every shorter arc it overlaps,
    so that an arc stands above the arcs nested inside it and crossing arcs never share a
    horizontal line. Shorter arcs are placed first; each arc asks two range-maximum trees (the
    levels of the placed arcs by their left and by their right end) for the highest arc that
    starts or ends inside it: O(n log n), so long sentences draw fast."""
    if not spans:
        return []
    size = 1 + max(hi for _, hi in spans)
    by_left, by_right = _MaxTree(size), _MaxTree(size)
    levels = [0] * len(spans)
    for k in sorted(range(len(spans)), key=lambda k: (spans[k][1] - spans[k][0], spans[k][0])):
        lo, hi = spans[k]
        # a placed arc (no longer than this one) overlaps it iff it starts in [lo, hi) or ends in (lo, hi]
        level = 1 + max(by_left.max(lo, hi - 1), by_right.max(lo + 1, hi))
        levels[k] = level
        by_left.raise_to(lo, level)
        by_right.raise_to(hi, level)
    return levels


class _MaxTree:
    """Maximum over a range of positions, with point raises (an iterative segment tree)."""

    def __init__(self, n: int):
        self.n = n
        self.t = [0] * (2 * n)

    def raise_to(self, i: int, value: int) -> None:
        i += self.n
        t = self.t
        while i and t[i] < value:
            t[i] = value
            i >>= 1

    def max(self, lo: int, hi: int) -> int:
        """The maximum over positions lo..hi (inclusive); 0 for an empty range."""
        best, t = 0, self.t
        lo += self.n
        hi += self.n + 1
        while lo < hi:
            if lo & 1:
                best = max(best, t[lo])
                lo += 1
            if hi & 1:
                hi -= 1
                best = max(best, t[hi])
            lo >>= 1
            hi >>= 1
        return best


def nonprojective_arcs(heads: Sequence[int]) -> List[bool]:
    """For each word (``heads[k]`` is word k+1's head), whether its arc is non-projective:
    some word between head and dependent is not dominated by the head.

    Linear in practice: a word is dominated by h iff its preorder number lies in h's subtree
    interval, so an arc is projective iff the smallest and largest preorder numbers of the
    words between its ends do (range minimum and maximum from a sparse table)."""
    import numpy as np
    n = len(heads)
    if n == 0:
        return []
    children = [[] for _ in range(n + 1)]
    for d in range(1, n + 1):
        h = heads[d - 1]
        if 0 <= h <= n and h != d:
            children[h].append(d)
    enter = [-1] * (n + 1)    # preorder number; -1: not reached from the root (a cycle)
    leave = [-1] * (n + 1)    # one past the last preorder number of the subtree
    clock, stack = 0, [(0, False)]
    while stack:
        node, done = stack.pop()
        if done:
            leave[node] = clock
            continue
        enter[node] = clock
        clock += 1
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children[node]))
    pre = np.array(enter[1:], dtype=np.int64)   # word k+1 at index k
    lows, highs = [pre], [pre]
    width = 1
    while 2 * width <= n:
        lows.append(np.minimum(lows[-1][:-width], lows[-1][width:]))
        highs.append(np.maximum(highs[-1][:-width], highs[-1][width:]))
        width *= 2
    flags = []
    for d in range(1, n + 1):
        h = heads[d - 1]
        if h <= 0 or h > n or abs(h - d) < 2:
            flags.append(h > n)   # no word between (or no head): projective
            continue
        a, b = min(h, d), max(h, d) - 2     # the words strictly between, as indices a..b
        j = (b - a + 1).bit_length() - 1
        low = min(lows[j][a], lows[j][b - (1 << j) + 1])
        high = max(highs[j][a], highs[j][b - (1 << j) + 1])
        flags.append(bool(enter[h] < 0 or low < enter[h] or high >= leave[h]))
    return flags


def _arc_path(x1: float, x2: float, y0: float, y: float) -> str:
    """A rounded bracket from (x1, y0) up to height y and down to (x2, y0)."""
    r = min(8.0, abs(x2 - x1) / 2, abs(y0 - y))
    s = 1 if x2 > x1 else -1
    return (f"M{x1:.1f},{y0:.1f}V{y + r:.1f}Q{x1:.1f},{y:.1f} {x1 + s * r:.1f},{y:.1f}"
            f"H{x2 - s * r:.1f}Q{x2:.1f},{y:.1f} {x2:.1f},{y + r:.1f}V{y0:.1f}")


def _arrow(x: float, y: float, down: bool) -> str:
    d = 6 if down else -6
    return f'<polygon points="{x - 4:.1f},{y - d:.1f} {x + 4:.1f},{y - d:.1f} {x:.1f},{y:.1f}"/>'


def _tag(row) -> str:
    tag = row[4] if row[4] != "_" else row[3]
    return "" if tag == "_" else tag


def arc_score(row, name: str = "Score") -> Optional[float]:
    """The ``Score=`` a parse with ``--arc-scores`` wrote in a word's MISC column (``name``
    "Conf": the ``Conf=`` of ``--confidence`` with a beam), or None."""
    for item in row[9].split("|"):
        if item.startswith(name + "="):
            try:
                value = float(item[len(name) + 1:])
            except ValueError:
                return None
            return value if math.isfinite(value) else None
    return None


def _shade(row) -> str:
    """An arc's opacity for how sure the parser was: a confidence (``Conf=``, 0 to 1) as it is,
    a score (``Score=``, a margin: 0 faint, 1 about three quarters, 2+ full)."""
    conf = arc_score(row, "Conf")
    if conf is not None:
        return f' style="opacity:{0.2 + 0.8 * min(max(conf, 0.0), 1.0):.2f}"'
    score = arc_score(row)
    if score is None:
        return ""
    return f' style="opacity:{0.2 + 0.8 * (1.0 - math.exp(-max(score, 0.0))):.2f}"'


def sentence_svg(sentence, gold=None, title: Optional[str] = None, standalone: bool = False,
                 scores: bool = False) -> str:
    """One sentence as an SVG element (a string).

    ``gold``: the same sentence with gold HEAD/DEPREL; errors are marked as the module says.
    Words without a head (HEAD ``_``) are drawn without an arc. ``standalone``: carry the
    style inside the SVG (an .svg file, a notebook cell) instead of relying on the page's.
    ``scores``: shade each arc by the ``Conf=`` (``--confidence``, with a beam) or ``Score=``
    (``--arc-scores``) in its word's MISC: the less sure the parser was, the fainter.
    """
    rows = sentence.rows
    n = len(rows)
    heads = sentence.heads
    labels = [r[7] for r in rows]
    if gold is not None:
        if len(gold) != n:
            raise MaltpyError(f"gold sentence has {len(gold)} words, the drawn one {n}")
        g_heads = gold.heads
        g_labels = [r[7] for r in gold.rows]
    esc = html.escape

    # word columns, each as wide as its text; a gap widens where an arc between neighbours
    # needs room for its label
    widths = [max(_text_width(r[1], FONT), _text_width(_tag(r), SMALL), 16.0) + WORD_GAP for r in rows]
    gap_need = [0.0] * (n + 1)
    for k in range(n):
        h = heads[k]
        if h > 0 and abs(h - (k + 1)) == 1:
            text = labels[k] + (" / " + g_labels[k] if gold is not None and labels[k] != g_labels[k] else "")
            gap = min(h, k + 1)   # the gap after word `gap`
            gap_need[gap] = max(gap_need[gap], _text_width(text, SMALL) + 12)
    centers, x = [], MARGIN
    for k, w in enumerate(widths):
        if k:
            x += max(0.0, gap_need[k] - (widths[k - 1] + w) / 2)
        centers.append(x + w / 2)
        x += w
    width = x + MARGIN

    def xs(h: int, d: int):
        # the arc leaves its head a little to the side of the dependent, and ends on the dependent
        off = min(6.0, widths[h - 1] / 4)
        return centers[h - 1] + (off if d > h else -off), centers[d - 1]

    arcs = [(heads[k], k + 1) for k in range(n) if heads[k] > 0]
    nonproj = nonprojective_arcs(heads)
    levels = arc_levels([(min(h, d), max(h, d)) for h, d in arcs])
    top_level = max(levels, default=0) + 1   # the root arrows come from above everything
    wrong = []
    if gold is not None:
        wrong = [k + 1 for k in range(n) if heads[k] != g_heads[k] and g_heads[k] >= 0]
        gold_arcs = [(g_heads[d - 1], d) for d in wrong if g_heads[d - 1] > 0]
        g_levels = arc_levels([(min(h, d), max(h, d)) for h, d in gold_arcs])
        bottom_level = max(g_levels, default=0) + (1 if any(g_heads[d - 1] == 0 for d in wrong) else 0)
    else:
        gold_arcs, g_levels, bottom_level = [], [], 0

    y_words = MARGIN + (top_level + 0.6) * LEVEL + FONT + 6    # baseline of the forms
    y_arcs = y_words - FONT - 4                                 # where arcs meet the words
    y_tags = y_words + SMALL + 4
    y_under = y_tags + 6                                        # where gold arcs leave the words
    height = y_under + (bottom_level + 0.8) * LEVEL + MARGIN if bottom_level else y_tags + MARGIN

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="tree" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">']
    if title:
        out.append(f"<title>{esc(title)}</title>")
    if standalone:
        out.append(f"<style>{TREE_STYLE}</style>")

    def klass(d: int) -> str:
        if gold is not None:
            if heads[d - 1] != g_heads[d - 1]:
                return "badhead"
            if labels[d - 1] != g_labels[d - 1]:
                return "badlabel" + (" nonproj" if nonproj[d - 1] else " ok")
        return "nonproj" if nonproj[d - 1] else "ok"

    def label_text(d: int) -> str:
        text = esc(labels[d - 1])
        if gold is not None and heads[d - 1] == g_heads[d - 1] and labels[d - 1] != g_labels[d - 1]:
            text += f'<tspan class="goldlab"> / {esc(g_labels[d - 1])}</tspan>'
        return text

    def tip(h: int, d: int, label: str, what: str = "") -> str:
        head = "root" if h == 0 else f"{h} {rows[h - 1][1]}"
        score = arc_score(rows[d - 1]) if scores and not what else None
        conf = arc_score(rows[d - 1], "Conf") if scores and not what else None
        return esc(f"{what}{head} \u2192 {d} {rows[d - 1][1]}  {label}"
                   + (f"  score {score:g}" if score is not None else "")
                   + (f"  confidence {conf:g}" if conf is not None else ""))

    def shade(d: int) -> str:
        return _shade(rows[d - 1]) if scores else ""

    for (h, d), level in zip(arcs, levels):
        x1, x2 = xs(h, d)
        y = y_arcs - level * LEVEL
        out.append(f'<g class="arc {klass(d)}"{shade(d)}><title>{tip(h, d, labels[d - 1])}</title>'
                   f'<path d="{_arc_path(x1, x2, y_arcs, y)}"/>{_arrow(x2, y_arcs, True)}'
                   f'<text class="lab" x="{(x1 + x2) / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle">'
                   f'{label_text(d)}</text></g>')
    y_root = y_arcs - top_level * LEVEL
    for k in range(n):
        if heads[k] == 0:
            d, x2 = k + 1, centers[k]
            out.append(f'<g class="arc {klass(d)}"{shade(d)}><title>{tip(0, d, labels[k])}</title>'
                       f'<path d="M{x2:.1f},{y_root:.1f}V{y_arcs:.1f}"/>{_arrow(x2, y_arcs, True)}'
                       f'<text class="lab" x="{x2:.1f}" y="{y_root - 3:.1f}" text-anchor="middle">'
                       f'{label_text(d)}</text></g>')
    # gold arcs of the words whose head is wrong, below the words
    for (h, d), level in zip(gold_arcs, g_levels):
        x1, x2 = xs(h, d)
        y = y_under + level * LEVEL
        out.append(f'<g class="arc gold"><title>{tip(h, d, g_labels[d - 1], "gold: ")}</title>'
                   f'<path d="{_arc_path(x1, x2, y_under, y)}"/>{_arrow(x2, y_under, False)}'
                   f'<text class="lab" x="{(x1 + x2) / 2:.1f}" y="{y + SMALL + 1:.1f}" text-anchor="middle">'
                   f'{esc(g_labels[d - 1])}</text></g>')
    if gold is not None:
        y_groot = y_under + bottom_level * LEVEL
        for d in wrong:
            if g_heads[d - 1] == 0:
                x2 = centers[d - 1]
                out.append(f'<g class="arc gold"><title>{tip(0, d, g_labels[d - 1], "gold: ")}</title>'
                           f'<path d="M{x2:.1f},{y_groot:.1f}V{y_under:.1f}"/>{_arrow(x2, y_under, False)}'
                           f'<text class="lab" x="{x2:.1f}" y="{y_groot + SMALL + 1:.1f}" '
                           f'text-anchor="middle">{esc(g_labels[d - 1])}</text></g>')
    for k, r in enumerate(rows):
        c = centers[k]
        info = esc(f"{r[0]}  {r[1]}  lemma {r[2]}  {r[3]} {r[4]}  {r[5]}")
        out.append(f'<g><title>{info}</title><text class="form" x="{c:.1f}" y="{y_words:.1f}" '
                   f'text-anchor="middle">{esc(r[1])}</text><text class="tag" x="{c:.1f}" y="{y_tags:.1f}" '
                   f'text-anchor="middle">{esc(_tag(r))}</text></g>')
    out.append("</svg>")
    return "".join(out)


def sentence_caption(sentence, index: int, gold=None) -> str:
    """'Sentence 3 (file:line) - 10 words - 8/10 correct', the heading of a drawn sentence."""
    meta = f"{len(sentence)} words"
    if sentence.first_line:
        meta = f"{sentence.source}:{sentence.first_line} \u00b7 " + meta
    if gold is not None:
        g_heads = gold.heads
        both = sum(1 for rs, rg, gh, sh in zip(sentence.rows, gold.rows, g_heads, sentence.heads)
                   if gh == sh and rs[7] == rg[7])
        meta += f" \u00b7 {both}/{len(sentence)} heads and labels right"
    return f"Sentence {index + 1} <span class=\"meta\">({html.escape(meta)})</span>"


def sentence_block(sentence, index: int, gold=None, caption: Optional[str] = None, scores: bool = False) -> str:
    """A drawn sentence with its heading, as an HTML fragment (a scrolling box)."""
    cap = caption if caption is not None else sentence_caption(sentence, index, gold)
    return (f'<div class="sent"><h3>{cap}</h3><div class="scroll">'
            f'{sentence_svg(sentence, gold, scores=scores)}</div></div>')


LEGEND = ('<div class="legend"><span><i style="border-color:#555"></i>arc (head \u2192 dependent)</span>'
          '<span><i style="border-color:#1f6fb4"></i>non-projective arc</span>'
          '<span><i style="border-color:#d62728"></i>wrong head</span>'
          '<span><b style="color:#d96b00">label</b> / <b style="color:#2a9d3f">gold</b>: wrong label</span>'
          '<span><i style="border-color:#2a9d3f;border-top-style:dashed"></i>gold arc of a wrong head</span>'
          '</div>')


def html_page(title: str, body: Iterable[str], style: str = "") -> str:
    """A complete self-contained HTML document (``style``: CSS added to the trees' own)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{html.escape(title)}"
            f"</title><style>{TREE_STYLE}{STYLE}{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


class Drawing(str):
    """SVG or HTML text that Jupyter displays as a picture."""

    def _repr_html_(self):
        return str(self)


def draw(sentences, gold=None, title: str = "maltpy trees", start: int = 0, scores: bool = False):
    """Draw sentences: one :class:`Sentence` gives its SVG, a list gives an HTML page.

    ``gold``: the gold sentences (same order and words) to mark errors against.
    ``start``: the index of the first sentence, for the headings (0 = "Sentence 1").
    ``scores``: shade arcs by their ``Score=`` (see :func:`sentence_svg`).
    The result is a ``str`` that also shows as a picture in a Jupyter notebook.
    """
    from maltpy.formats.conll import Sentence
    if isinstance(sentences, Sentence):
        if gold is not None and not isinstance(gold, Sentence):
            raise MaltpyError("draw: give gold as one Sentence when drawing one sentence")
        return Drawing(sentence_svg(sentences, gold, standalone=True, scores=scores))
    sentences = list(sentences)
    golds = list(gold) if gold is not None else None
    if golds is not None and len(golds) != len(sentences):
        raise MaltpyError(f"draw: {len(sentences)} sentences but {len(golds)} gold sentences")
    body = [f"<h2>{html.escape(title)}</h2>"]
    if golds is not None:
        body.append(LEGEND)
    for k, s in enumerate(sentences):
        body.append(sentence_block(s, start + k, golds[k] if golds is not None else None, scores=scores))
    return Drawing(html_page(title, body))
