"""A parser's parts built from its settings, once per training or model file: the settings
checked against the transition system, the feature model resolved and compiled to C
extraction, and the model's view of a sentence (:class:`maltpy.transform.pipeline.View`)."""
from __future__ import annotations

from typing import Optional

from maltpy.config import Settings, flag_of
from maltpy.errors import MaltpyError
from maltpy.features.compiler import compile_model
from maltpy.features.extract import Extractor
from maltpy.features.resolve import resolve_feature_model
from maltpy.features.spec import FeatureSpecError, load_feature_model
from maltpy.formats.conll import FORMATS
from maltpy.parsing.encode import UnseenTags
from maltpy.systems import system_class
from maltpy.systems.nivreeager import ORACLE_OPTION_MOVES, NivreEager, oracle_options_taken
from maltpy.transform.pipeline import View


#: settings only some systems take (their ``options``), and what to say when another is given one
SYSTEM_OPTIONS = {
    "undirected": "undirected parsing ({flag} {value}) is for planar, 2planar and covnonproj, not {algorithm}",
    "buffer_transitions": "buffer transitions ({flag} {value}) extend arc-eager: use them with -a nivreeager, "
                          "not {algorithm}",
}


def check_settings(s, system_cls) -> None:
    """One-line errors for settings the system (or MaltParser's binarized features) cannot take."""
    for option, needs in SYSTEM_OPTIONS.items():
        value = getattr(s, option)
        if value != Settings.__dataclass_fields__[option].default and option not in system_cls.options:
            raise MaltpyError(needs.format(flag=flag_of(option), value=value, algorithm=s.algorithm))
    taken = oracle_options_taken(s.buffer_transitions)
    for option, moves in ORACLE_OPTION_MOVES.items():
        value = getattr(s, option)
        if value != NivreEager.options[option] and option not in taken:
            raise MaltpyError(f"{flag_of(option)} {value} is about the oracle's "
                              f"{' and '.join(m.upper() for m in moves)}: "
                              f"use it with -bt {' or '.join(moves)} (here -bt {s.buffer_transitions})")
    if (s.split_column or s.split_structure) and not (s.split_column and s.split_structure):
        raise MaltpyError("data split needs both -d (column, e.g. POSTAG) and -s (structure, e.g. Input[0])")
    if s.null_value not in ("one", "rootnode", "novalue"):
        raise MaltpyError(f"null_value (-nv) {s.null_value!r}: use one, rootnode or novalue "
                          "(none is impossible with binarized features, as in MaltParser)")


def assemble(parser, fmt: str, feature_text: Optional[str] = None) -> None:
    """Give ``parser`` its format, system class, feature model (``feature_text``: a model file's,
    else from the settings), compiled extraction and view."""
    s = parser.settings
    if fmt not in FORMATS:
        raise MaltpyError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    parser.format = fmt
    parser.system_cls = system_class(s.algorithm)
    check_settings(s, parser.system_cls)
    if feature_text is None:
        parser.feature_model, parser.feature_text = resolve_feature_model(
            s.features, s.algorithm, s.learner, fmt, undirected=s.undirected,
            buffer_transitions=s.buffer_transitions)
        source = s.features or f"the default {s.algorithm} feature model"
    else:
        parser.feature_text = feature_text
        source = "the model file's feature model"
        parser.feature_model = load_feature_model(feature_text, source)
    split = (s.split_column, s.split_structure) if s.split_column else None
    try:
        parser.compiled = compile_model(parser.feature_model, fmt, parser.system_cls, split)
    except FeatureSpecError as e:
        raise FeatureSpecError(f"{source}: {e}") from None
    c = parser.compiled
    parser.extractor = Extractor(c.tables, max(len(c.token_columns), 1), max(len(c.int_columns), 1), c.split_atom,
                                 s.null_value)
    parser.view = View.from_settings(s)
    #: warns once when the input's tags were mostly never seen in training (a tag-column mix-up)
    parser.unseen_tags = UnseenTags(c, fmt)
    parser.warned_long = False   # a long sentence for a quadratic system: warned once per parser
