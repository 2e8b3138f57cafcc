"""Learning a tagger with a parser. With ``tagger_folds`` K of 2 or more the parser learns from
*jackknifed* tags (each of K parts of the training data tagged by a tagger trained on the other
parts), as it will read predicted tags when parsing; with 1 (the default) from the gold tags,
which measured as well or better (docs/tagging.md). The tagger kept in the model file learns
from all of the data."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence


def jackknife(sentences: Sequence, make_tagger: Callable, folds: int, jobs: int = 1, log=None):
    """(the tagger trained on every sentence, the sentences with jackknifed tags). ``make_tagger()``
    gives an untrained :class:`~maltpy.tagging.tagger.Tagger`; the K fold taggers and the full one
    train side by side on ``jobs`` threads (their loops run without the GIL)."""
    from maltpy.chunks import folds as split_folds
    sentences = list(sentences)
    t0 = time.perf_counter()
    parts = split_folds(sentences, folds) if folds > 1 else []

    def train_fold(part):
        if part is None:
            return make_tagger().fit(sentences)
        rest, held_out = part
        return make_tagger().fit(rest).tag(held_out, retag=True)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(train_fold, [None] + parts))
    full = results[0]
    tagged = [s for part in results[1:] for s in part] if parts else sentences
    if log is not None:
        log(full.describe_training())
        if parts:
            log(f"jackknifed tags for the parser: {folds} folds, {time.perf_counter() - t0:.1f} s with the full "
                f"tagger; {tag_agreement(sentences, tagged, full.groups)}")
    return full, tagged


def tag_agreement(gold: Sequence, predicted: Sequence, groups) -> str:
    """How often the jackknifed tags equal the gold ones, per column (what the parser will see)."""
    from maltpy.tagging.templates import TAG_COLUMNS
    columns = [c for g in groups for c in g]
    total = sum(len(s) for s in gold) or 1
    figures = []
    for c in columns:
        col = TAG_COLUMNS[c]
        same = sum(a[col] == b[col] for s, t in zip(gold, predicted) for a, b in zip(s.rows, t.rows))
        figures.append(f"{c} {100 * same / total:.2f} %")
    return "agreeing with the gold tags: " + ", ".join(figures)

