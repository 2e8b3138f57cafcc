"""Search: the one decision step (``step``), the scorer interface and its scorers (``decision``,
``weights``, ``trainable``, ``kernel``), and the strategies that walk sentences with them:
greedy parsing (``greedy``), the static oracle's instance collection (``oracle``) and online
training with a dynamic oracle (``online``).

A parse strategy is a :class:`~maltpy.search.strategy.Strategy` subclass in a module of its own
plus an entry here; the ``search`` setting names it.
"""
from importlib import import_module

from maltpy.errors import MaltpyError
from maltpy.search.strategy import SearchModel, Strategy

#: parse strategies: setting value -> "module:class" (imported when asked for) or a Strategy
STRATEGIES = {
    "greedy": "maltpy.search.greedy:Greedy",
}


def strategy(name: str) -> Strategy:
    """The strategy the ``search`` setting ``name`` names."""
    entry = STRATEGIES.get(name)
    if entry is None:
        raise MaltpyError(f"unknown search strategy {name!r}; use one of {', '.join(sorted(STRATEGIES))}")
    if isinstance(entry, str):
        module, cls = entry.split(":")
        return getattr(import_module(module), cls)()
    return entry() if isinstance(entry, type) else entry


__all__ = ["STRATEGIES", "SearchModel", "Strategy", "strategy"]
