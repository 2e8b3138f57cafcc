"""Transition systems, by MaltParser algorithm name (``-a``).

A new system is a new module defining a :class:`~maltpy.systems.base.TransitionSystem`
subclass plus one line in :data:`SYSTEMS`.
"""
from maltpy.errors import MaltpyError
from maltpy.systems.nivreeager import NivreEager
from maltpy.systems.nivrestandard import NivreStandard

SYSTEMS = {
    "nivreeager": NivreEager,
    "nivrestandard": NivreStandard,
}

#: MaltParser's default feature model file name per algorithm.
FEATURE_MODEL_NAMES = {
    "nivreeager": "NivreEager",
    "nivrestandard": "NivreStandard",
    "covproj": "CovingtonProjective",
    "covnonproj": "CovingtonNonProjective",
    "stackproj": "StackProjective",
    "stackeager": "StackSwap",
    "stacklazy": "StackSwap",
    "planar": "PlanarEager",
    "2planar": "2PlanarEager",
}

def system_class(name: str):
    try:
        return SYSTEMS[name]
    except KeyError:
        raise MaltpyError(f"unknown parsing algorithm {name!r}; available: {', '.join(SYSTEMS)}") from None


__all__ = ["SYSTEMS", "FEATURE_MODEL_NAMES", "system_class", "NivreEager",
           "NivreStandard"]
