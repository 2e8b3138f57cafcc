"""A parser's parts built from its settings, once per training or model file: the settings
checked against the transition system, the feature model resolved and compiled to C
extraction, and the model's view of a sentence (:class:`maltpy.transform.pipeline.View`), as one
frozen :class:`~maltpy.parsing.model.Parts`."""
from __future__ import annotations

from typing import Optional

from maltpy.config import Settings, flag_of
from maltpy.errors import MaltpyError
from maltpy.features.compiler import compile_model
from maltpy.features.extract import Extractor
from maltpy.features.resolve import resolve_feature_model
from maltpy.features.spec import FeatureSpecError, load_feature_model
from maltpy.formats.conll import FORMATS
from maltpy.parsing.model import Parts
from maltpy.systems import check_settings as check_system_settings, system_class, system_options
from maltpy.transform.pipeline import View


def check_settings(s, system_cls) -> None:
    """One-line errors for settings the system (or MaltParser's binarized features) cannot take:
    the systems say which options are whose (:func:`maltpy.systems.check_settings`)."""
    fields = Settings.__dataclass_fields__
    values = {option: getattr(s, option) for option in system_options() if option in fields}
    defaults = {option: fields[option].default for option in values}
    # an option is "given" when it differs from its setting's default (the systems' defaults
    # may differ from the settings' for options several systems share: allow_root)
    given = {option: value for option, value in values.items() if value != defaults[option]}
    check_system_settings(s.algorithm, {**{o: system_options()[o] for o in values}, **given}, flag_of)
    if (s.split_column or s.split_structure) and not (s.split_column and s.split_structure):
        raise MaltpyError("data split needs both -d (column, e.g. POSTAG) and -s (structure, e.g. Input[0])")
    if s.null_value not in ("one", "rootnode", "novalue"):
        raise MaltpyError(f"null_value (-nv) {s.null_value!r}: use one, rootnode or novalue "
                          "(none is impossible with binarized features, as in MaltParser)")


def assemble(s: Settings, fmt: str, feature_text: Optional[str] = None, feature_model=None) -> Parts:
    """A parser's :class:`~maltpy.parsing.model.Parts` for settings ``s``: its format, system
    class, feature model (``feature_text``: a model file's, else from the settings;
    ``feature_model``: the model file's parsed, which spares parsing its text), compiled
    extraction and view."""
    if fmt not in FORMATS:
        raise MaltpyError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    system_cls = system_class(s.algorithm)
    check_settings(s, system_cls)
    if feature_text is None:
        feature_model, feature_text = resolve_feature_model(
            s.features, s.algorithm, s.learner, fmt, undirected=s.undirected,
            buffer_transitions=s.buffer_transitions)
        source = s.features or f"the default {s.algorithm} feature model"
    else:
        source = "the model file's feature model"
        if feature_model is None:
            feature_model = load_feature_model(feature_text, source)
    split = (s.split_column, s.split_structure) if s.split_column else None
    try:
        compiled = compile_model(feature_model, fmt, system_cls, split)
    except FeatureSpecError as e:
        raise FeatureSpecError(f"{source}: {e}") from None
    extractor = Extractor(compiled.tables, max(len(compiled.token_columns), 1), max(len(compiled.int_columns), 1),
                          compiled.split_atom, s.null_value)
    return Parts(fmt, system_cls, feature_model, feature_text, compiled, extractor, View.from_settings(s))
