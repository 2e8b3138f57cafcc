"""The components a model file's pipeline is made of, by the name model files store.

A new component is a module with a :class:`~maltpy.components.base.Component` subclass plus one
entry in :data:`COMPONENTS` (``registry.py``); model files, ``maltpy -m parse``, ``maltpy info`` and
:func:`maltpy.load` take it from there.
"""
from maltpy.components.base import Component
from maltpy.components.parser import ParserComponent
from maltpy.components.pipeline import Pipeline
from maltpy.components.registry import COMPONENTS
from maltpy.components.tagger import TaggerComponent
from maltpy.components.tokenizer import TokenizerComponent


def load(path: str, only=None, **overrides) -> Pipeline:
    """Any model file as a :class:`Pipeline` (a parser's alone: a pipeline of that parser);
    ``only``: the names of the components to read (the others are left out)."""
    return Pipeline.load(path, only, **overrides)


__all__ = ["COMPONENTS", "Component", "ParserComponent", "Pipeline", "TaggerComponent", "TokenizerComponent", "load"]
