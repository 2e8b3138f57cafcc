"""Plots of grouped accuracy with matplotlib (the optional extra ``maltpy[plots]``).

Each function takes ``systems``, a list of (name, :class:`Breakdown`), and returns a
matplotlib ``Figure`` with one line or bar group per system. Figures are built with
``matplotlib.figure.Figure`` directly (no pyplot): nothing global changes and no window opens.
"""
from __future__ import annotations

import io
import os
from typing import Dict, List, Sequence, Tuple

from maltpy.errors import MaltpyError
from maltpy.evaluation.breakdown import Breakdown, arc_length_bins, depth_bins, sentence_length_bins

COLORS = ("#1f6fb4", "#e8710a", "#2a9d3f", "#9b59b6")
#: The plots a report has, in order, with their file names.
PLOT_NAMES = ("arc_length", "sentence_length", "depth", "labels", "pos")


def _figure(width=7.0, height=3.2, ncols=1):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MaltpyError("plots need matplotlib: pip install 'maltpy[plots]'") from None
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    for ax in axes:
        ax.grid(True, axis="y", color="#e4e4e4")
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    return fig, axes


def _lines(ax, bins, systems, series, ylabel, title):
    xs = list(range(len(bins)))
    for k, (name, b) in enumerate(systems):
        groups = series(b)
        pts = [(x, groups[key].las) for x, key in zip(xs, bins) if groups[key].tokens]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3.5, lw=1.6,
                    color=COLORS[k % len(COLORS)], label=name)
    ax.set_xticks(xs)
    ax.set_xticklabels(bins, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.set_ylim(0, 100)


def _precision_recall_figure(systems, bins, system_groups, gold_groups, what):
    """Two panels: labelled precision grouped by the system's ``what``, recall by gold's."""
    fig, (ax1, ax2) = _figure(10.0, 3.4, 2)
    _lines(ax1, bins, systems, lambda b: getattr(b, system_groups), "labelled precision (%)",
           f"precision by predicted {what}")
    _lines(ax2, bins, systems, lambda b: getattr(b, gold_groups), "labelled recall (%)", f"recall by gold {what}")
    ax2.legend(fontsize=8, loc="lower left")
    return fig


def arc_length_figure(systems):
    """Labelled precision by predicted arc length and labelled recall by gold arc length."""
    return _precision_recall_figure(systems, arc_length_bins(), "system_arc_length", "gold_arc_length",
                                    "arc length")


def depth_figure(systems):
    """Labelled precision by predicted depth and labelled recall by gold depth (arcs to the root)."""
    return _precision_recall_figure(systems, depth_bins(), "system_depth", "gold_depth", "distance to root")


def sentence_length_figure(systems):
    """LAS and UAS by sentence length (words)."""
    fig, (ax,) = _figure(6.5, 3.2)
    bins = sentence_length_bins()
    xs = list(range(len(bins)))
    for k, (name, b) in enumerate(systems):
        pts = [(x, b.sentence_length[key]) for x, key in zip(xs, bins) if b.sentence_length[key].tokens]
        color = COLORS[k % len(COLORS)]
        ax.plot([p[0] for p in pts], [p[1].las for p in pts], marker="o", ms=3.5, color=color, label=f"{name} LAS")
        ax.plot([p[0] for p in pts], [p[1].uas for p in pts], marker="s", ms=3, ls="--", color=color,
                label=f"{name} UAS")
    ax.set_xticks(xs)
    ax.set_xticklabels(bins, fontsize=8)
    ax.set_xlabel("sentence length (words)")
    ax.set_ylabel("%")
    ax.set_title("accuracy by sentence length", fontsize=10)
    ax.legend(fontsize=8)
    return fig


def _bars(systems, keys, value, ylabel, title):
    fig, (ax,) = _figure(min(11.0, max(6.5, 0.45 * len(keys) * max(1, len(systems)) + 1.5)), 3.4)
    width = 0.8 / max(1, len(systems))
    for k, (name, b) in enumerate(systems):
        ax.bar([x + (k - (len(systems) - 1) / 2) * width for x in range(len(keys))],
               [value(b, key) for key in keys], width=width, color=COLORS[k % len(COLORS)], label=name)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(keys, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10)
    if len(systems) > 1:
        ax.legend(fontsize=8)
    return fig


def frequent(counts: Dict[str, int], limit: int) -> List[str]:
    """The ``limit`` most frequent keys, most frequent first (ties alphabetically)."""
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


def labels_figure(systems, limit: int = 20):
    first = systems[0][1]
    keys = frequent({k: v.gold for k, v in first.labels.items() if v.gold}, limit)
    return _bars(systems, keys, lambda b, key: b.labels[key].f1 if key in b.labels else 0.0,
                 "labelled F1 (%)", f"labelled F1 of the {len(keys)} most frequent gold labels")


def pos_figure(systems, limit: int = 20):
    first = systems[0][1]
    keys = frequent({k: v.tokens for k, v in first.pos.items()}, limit)
    return _bars(systems, keys, lambda b, key: b.pos[key].las if key in b.pos else 0.0,
                 "LAS (%)", f"LAS by part of speech of the dependent ({len(keys)} most frequent)")


def figures(systems: Sequence[Tuple[str, Breakdown]]) -> Dict[str, object]:
    """Every report plot, by name (see ``PLOT_NAMES``)."""
    makers = {"arc_length": arc_length_figure, "sentence_length": sentence_length_figure,
              "depth": depth_figure, "labels": labels_figure, "pos": pos_figure}
    return {name: makers[name](systems) for name in PLOT_NAMES}


def svg_text(fig) -> str:
    """A figure as an inline ``<svg>`` element (text kept as text, no XML prologue)."""
    import matplotlib
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def save_figures(figs: Dict[str, object], directory: str, formats=("png", "svg")) -> List[str]:
    """Write each figure as NAME.png and NAME.svg in ``directory`` (made if missing); return the paths."""
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise MaltpyError(f"{directory}: cannot create the plot directory ({e.strerror})") from None
    paths = []
    for name, fig in figs.items():
        for fmt in formats:
            path = os.path.join(directory, f"{name}.{fmt}")
            try:
                fig.savefig(path, dpi=120)
            except OSError as e:
                raise MaltpyError(f"{path}: cannot write ({e.strerror})") from None
            paths.append(path)
    return paths
