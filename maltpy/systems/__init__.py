"""Transition systems, by MaltParser algorithm name (``-a``).

A new system is a new module defining a :class:`~maltpy.systems.base.TransitionSystem`
subclass plus one line in :data:`SYSTEMS`.
"""
from maltpy.errors import MaltpyError
from maltpy.systems.nivreeager import NivreEager
from maltpy.systems.nivrestandard import NivreStandard
from maltpy.systems.covproj import CovProj
from maltpy.systems.covnonproj import CovNonProj
from maltpy.systems.stackproj import StackProj
from maltpy.systems.stackeager import StackEager
from maltpy.systems.stacklazy import StackLazy
from maltpy.systems.planar import Planar
from maltpy.systems.twoplanar import TwoPlanar

SYSTEMS = {
    "nivreeager": NivreEager,
    "nivrestandard": NivreStandard,
    "covproj": CovProj,
    "covnonproj": CovNonProj,
    "stackproj": StackProj,
    "stackeager": StackEager,
    "stacklazy": StackLazy,
    "planar": Planar,
    "2planar": TwoPlanar,
}

#: MaltParser's default feature model file name per algorithm (each system declares its own)
FEATURE_MODEL_NAMES = {name: cls.maltparser_features for name, cls in SYSTEMS.items()}


def system_class(name: str):
    try:
        return SYSTEMS[name]
    except KeyError:
        raise MaltpyError(f"unknown parsing algorithm {name!r}; available: {', '.join(SYSTEMS)}") from None


def system_options() -> dict:
    """Every option some system takes -> its default (as the systems declare them)."""
    out = {}
    for cls in SYSTEMS.values():
        for option, default in cls.options.items():
            out.setdefault(option, default)
    return out


def option_choices() -> dict:
    """Every system option with a fixed set of values -> those values (as the systems declare them)."""
    out = {}
    for cls in SYSTEMS.values():
        for option, values in cls.option_choices.items():
            out.setdefault(option, tuple(values))
    return out


def pipeline_settings(name: str, clusters: bool = False) -> dict:
    """The settings system ``name`` learns with behind a tagger when the user chooses no learner,
    oracle, features or beam (its ``pipeline_settings``; empty for an unknown name); with word
    ``clusters``, its ``pipeline_cluster_features`` where it has them."""
    cls = SYSTEMS.get(name)
    if cls is None:
        return {}
    settings = dict(cls.pipeline_settings)
    if clusters and cls.pipeline_cluster_features:
        settings["features"] = cls.pipeline_cluster_features
    return settings


def option_parser(name: str):
    """The function a system declares to read option ``name``'s value, or None."""
    for cls in SYSTEMS.values():
        if name in cls.option_parsers:
            return cls.option_parsers[name]
    return None


def check_settings(name: str, values: dict, flag) -> None:
    """One-line errors for system options the system ``name`` cannot take: an option that other
    systems keep to themselves (their ``exclusive_options``) given a value (``values``: option ->
    value for every option of :func:`system_options`), then the system's own combinations
    (:meth:`TransitionSystem.check_options`). ``flag(option)``: the flag a user types for it.
    Options systems share (MaltParser's allow_root, ...) are ignored where they mean nothing, as
    MaltParser ignores them."""
    cls = system_class(name)
    exclusive = {option for c in SYSTEMS.values() for option in c.exclusive_options}
    for option, default in system_options().items():
        value = values.get(option, default)
        if option in exclusive and option not in cls.options and value != default:
            owners = [n for n, c in SYSTEMS.items() if option in c.options]
            raise MaltpyError(f"{flag(option)} {value} is an option of {_either(owners)}: use it with "
                              f"-a {_either(owners, 'or')}, not -a {name}")
    cls.check_options({k: v for k, v in values.items() if k in cls.options}, flag)


def _either(names, word="and"):
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"


__all__ = ["SYSTEMS", "FEATURE_MODEL_NAMES", "system_class", "system_options", "check_settings",
           *(c.__name__ for c in SYSTEMS.values())]
