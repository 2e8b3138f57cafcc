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


__all__ = ["SYSTEMS", "FEATURE_MODEL_NAMES", "system_class", *(c.__name__ for c in SYSTEMS.values())]
