"""Search: the one decision step (``step``), the scorer interface and its scorers (``decision``,
``weights``, ``trainable``, ``kernel``), and the strategies that walk sentences with them:
greedy parsing (``greedy``), beam search and its global training (``beam``), the static
oracle's instance collection (``oracle``) and online training with a dynamic oracle (``online``).

A parse strategy is a :class:`~maltpy.search.strategy.Strategy` subclass in a module of its own
plus an entry here; the ``search`` setting names it.
"""
from importlib import import_module

from maltpy.errors import MaltpyError
from maltpy.search.strategy import SearchModel, Strategy, parse_beam_margin, parse_beam_scores

#: parse strategies: setting value -> "module:class" (imported when asked for) or a Strategy
STRATEGIES = {
    "greedy": "maltpy.search.greedy:Greedy",
    "beam": "maltpy.search.beam:Beam",
}


def strategy(name: str, **settings) -> Strategy:
    """The strategy the ``search`` setting ``name`` names, made with ``settings`` (the ones it
    reads, such as ``beam_width``)."""
    entry = STRATEGIES.get(name)
    if entry is None:
        raise MaltpyError(f"unknown search strategy {name!r}; use one of {', '.join(sorted(STRATEGIES))}")
    if isinstance(entry, str):
        module, cls = entry.split(":")
        return getattr(import_module(module), cls)(**settings)
    return entry(**settings) if isinstance(entry, type) else entry


def for_settings(settings, trained_globally: bool = False) -> Strategy:
    """The strategy of a parser's settings: ``search``, where a beam wider than 1 (``-b``) turns
    greedy search into beam search (``trained_globally``: see :func:`beam_temperature`)."""
    name = "beam" if settings.search == "greedy" and settings.beam_width > 1 else settings.search
    return strategy(name, beam_width=settings.beam_width, temperature=beam_temperature(settings, trained_globally),
                    margin=parse_beam_margin(settings.beam_margin))


def trains_globally(settings) -> bool:
    """Whether an online learner (the perceptron) trains globally under ``settings``: with a beam
    wider than 1, or ``--search beam`` (with ``-b 1``: global training with greedy search)."""
    return settings.beam_width > 1 or settings.search == "beam"


def beam_temperature(settings, trained_globally: bool = False) -> float:
    """What a beam adds per decision under ``settings.beam_scores``: 0 for the raw scores (``sum``;
    ``auto`` for a model ``trained_globally``, with a beam: what it learned to add up; its model
    file records ``sum``), else the temperature of the decisions' log-probabilities (``local``,
    and ``auto`` for a greedy model: the learner's :attr:`local_temperature`)."""
    from maltpy.learners import LEARNERS
    mode, temperature = parse_beam_scores(settings.beam_scores)
    if mode == "sum" or (mode == "auto" and trained_globally):
        return 0.0
    if temperature is not None:
        return temperature
    learner = LEARNERS.get(settings.learner)
    return learner.local_temperature if learner is not None else 1.0


__all__ = ["STRATEGIES", "SearchModel", "Strategy", "beam_temperature", "for_settings", "parse_beam_margin", "strategy",
           "trains_globally"]
