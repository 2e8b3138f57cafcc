"""What a search strategy is given and what it returns."""
from __future__ import annotations

from typing import NamedTuple

from maltpy.errors import MaltpyError


class SearchModel(NamedTuple):
    """Everything a strategy searches with: the transition system, the feature extractor, the
    class table and the scorer (:class:`maltpy.search.decision.Scorer`)."""
    system: object
    extractor: object
    classes: object
    scorer: object

    def step(self, max_n: int = 0, scoring=None):
        """A decision step (:class:`maltpy.search.step.Step`) for sentences of up to ``max_n`` words;
        ``scoring``: how it adds up scores (:class:`maltpy.search.step.Scoring`, KEPT by default)."""
        from maltpy.search.step import Scoring, Step
        return Step(self.system, self.extractor, self.classes, self.scorer, max_n,
                    Scoring.KEPT if scoring is None else scoring)


class Strategy:
    """A way of searching for each sentence's tree. A strategy is one module with a subclass,
    one entry in :data:`maltpy.search.STRATEGIES`, and the setting ``search`` names it.

    :meth:`parse` walks the sentences with the decision step of ``model.step()`` (in C, or in
    Python for a prototype: :meth:`~maltpy.search.step.Step.walker` walks from Python)."""

    #: the name the ``search`` setting gives
    name = ""

    def __init__(self, **settings):
        """``settings``: the parser's settings a strategy may read (``beam_width``)."""

    def parse(self, model: SearchModel, corpus, progress=None, record_end: bool = False, moves_out=None,
              n_threads: int = 1, given=None, confidence_out=None):
        """Parse every sentence of ``corpus`` (:class:`~maltpy.features.corpus.Corpus`); return
        (heads, label ids) per corpus row (root rows -1), with ``record_end`` a third array (where
        each word was when the buffer first became empty: 1 on the stack without a head, 2 with
        one, 0 elsewhere). ``moves_out``: int32 per row, receives the move that built each word's
        arc. ``progress(n)`` after n more sentences; ``n_threads`` the strategy may use.
        ``given``: the arcs a parse must keep (constrained parsing): (heads, label ids) per
        corpus row, -1 where none is given; at each decision only the classes that lose the
        fewest of them are permissible (:meth:`maltpy.search.step.Step.restrict`).
        ``confidence_out``: float32 (rows x 2), receives how sure the search was of each word's
        arc (for greedy search: the margin over the second-best class and the softmax
        probability of the decision that built it)."""
        raise NotImplementedError


BEAM_SCORES = ("auto", "sum", "local")


def parse_beam_scores(value) -> tuple:
    """A ``beam_scores`` value as (mode, temperature or None): ``auto``, ``sum``, ``local`` or
    ``local:T`` with T a positive number; MaltpyError for anything else."""
    text = str(value).strip().lower()
    mode, _, rest = text.partition(":")
    if mode not in BEAM_SCORES or (rest and mode != "local"):
        raise MaltpyError(f"beam_scores (--beam-scores) {value!r}: use one of auto, sum, local or local:T "
                          f"(T a positive number)")
    if not rest:
        return mode, None
    try:
        temperature = float(rest)
    except ValueError:
        temperature = float("nan")
    if not 0 < temperature < float("inf"):
        raise MaltpyError(f"beam_scores (--beam-scores) {value!r}: the temperature after local: must be a "
                          f"positive number")
    return mode, temperature


def parse_beam_margin(value) -> float:
    """A ``beam_margin`` value as a number: ``none`` (no margin: infinity, as an infinite number is)
    or a number of at least 0, the score below a step's best candidate at which a beam drops the
    others; MaltpyError for anything else."""
    text = str(value).strip().lower()
    if text in ("none", "inf", "infinity"):
        return float("inf")
    try:
        margin = float(text)
    except ValueError:
        margin = float("nan")
    if not margin >= 0:     # NaN too; an infinite margin is none
        raise MaltpyError(f"beam_margin (--beam-margin) {value!r}: use a number of at least 0 (how far below a "
                          f"step's best candidate the beam still keeps one) or none")
    return margin
