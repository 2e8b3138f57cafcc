"""Learning a tagger with a parser. With ``tagger_folds`` K of 2 or more the parser learns from
*jackknifed* tags (each of K parts of the training data tagged by a tagger trained on the other
parts), as it will read predicted tags when parsing; with 1 (the default) from the gold tags,
which measured as well or better (docs/tagging.md). The tagger kept in the model file learns
from all of the data."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence


def fold_groups(tagger, read_columns, sentences):
    """The groups of ``tagger`` (an untrained :class:`~maltpy.tagging.tagger.Tagger`) that a fold
    tagger needs: those it would learn from ``sentences`` up to the last one holding a column the
    parser reads (``read_columns``, tagger column names), since a group reads the groups before
    it. The other columns keep their gold values, which the parser never reads."""
    groups = tagger.groups_to_learn([r for s in sentences for r in s.rows])
    last = max((k for k, g in enumerate(groups) if set(g) & set(read_columns)), default=-1)
    return tuple(groups[:last + 1])


def jackknife(sentences: Sequence, make_tagger: Callable, folds: int, jobs: int = 1, log=None,
              make_fold_tagger: Callable = None, with_full: bool = True):
    """(the tagger trained on every sentence, the sentences with jackknifed tags). ``make_tagger()``
    gives an untrained :class:`~maltpy.tagging.tagger.Tagger`, ``make_fold_tagger()`` the fold
    taggers' (default: the same; fewer columns, those the parser reads, learn faster); the K fold
    taggers and the full one train side by side on ``jobs`` threads (their loops run without the GIL).
    ``with_full=False``: the fold taggers only (the first of the pair is None), for a caller that
    trains the full tagger beside something else. ``log``: what the full tagger learned."""
    from maltpy.chunks import folds as split_folds
    sentences = list(sentences)
    parts = split_folds(sentences, folds) if folds > 1 else []

    def train_fold(part):
        if part is None:
            return make_tagger().fit(sentences)
        rest, held_out = part
        return (make_fold_tagger or make_tagger)().fit(rest).tag(held_out, retag=True)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(train_fold, ([None] if with_full else []) + parts))
    full = results.pop(0) if with_full else None
    tagged = [s for part in results for s in part] if parts else sentences
    if log is not None and full is not None:
        log(full.describe_training())
    return full, tagged


def agreement_figures(gold: Sequence, predicted: Sequence, groups) -> dict:
    """Per column of ``groups``: the percentage of words whose predicted tag equals the gold one."""
    from maltpy.tagging.templates import TAG_COLUMNS
    total = sum(len(s) for s in gold) or 1
    figures = {}
    for c in (c for g in groups for c in g):
        col = TAG_COLUMNS[c]
        same = sum(a[col] == b[col] for s, t in zip(gold, predicted) for a, b in zip(s.rows, t.rows))
        figures[c] = 100 * same / total
    return figures


def tag_agreement(figures: dict) -> str:
    """:func:`agreement_figures` in words: how often the jackknifed tags equal the gold ones, per
    column (what the parser will see)."""
    return "agreeing with the gold tags: " + ", ".join(f"{c} {pct:.2f} %" for c, pct in figures.items())
