"""What a parser is made of, as two frozen values: its :class:`Parts` (built from the settings
and a feature model: nothing learned) and its :class:`ParserModel` (everything training
produced, and what a model file stores). A :class:`~maltpy.parsing.parser.Parser` holds its
settings, its parts and its model; training and loading make new values (``dataclasses.replace``)
and hand them to the parser, which no other module changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from maltpy.version import __version__


@dataclass(frozen=True)
class Parts:
    """A parser's parts built from its settings (:func:`maltpy.parsing.assemble.assemble`): the
    columns' format, the transition system's class, the feature model (parsed, its YAML text,
    compiled, and its C extractor) and the model's view of a sentence."""
    format: str
    system_cls: type
    feature_model: Any
    feature_text: str
    compiled: Any
    extractor: Any
    view: Any


@dataclass(frozen=True)
class ParserModel:
    """Everything training produced: the labels (and what DEPREL features read of them), the
    symbol tables of the input columns, the classes, one model per data-split value with the map
    from split values to them, the learner, the training figures; with ``-dir both`` the
    combination and the right-to-left parser; for a constituent parser its reduction. Before the
    classifier is trained (``splits`` empty) it is the model training encodes its data with."""
    labels: List[str]
    token_tables: List[Any]
    multi_tables: List[Any]
    deprel_values: Optional[List[int]] = None
    classes: Any = None
    splits: List[Any] = field(default_factory=list)
    split_map: Any = None
    default_split: int = 0
    learner: Any = None
    train_stats: Dict[str, Any] = field(default_factory=dict)
    written_by: Optional[str] = __version__
    combination: Optional[Dict[str, Any]] = None
    reverse_parser: Any = None
    reduction: Any = None
    #: trained with a beam (global training): ``beam_scores: auto`` then adds raw scores
    trained_globally: bool = False
    label_ids: Dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "label_ids", {label: k for k, label in enumerate(self.labels)})

    @property
    def trained(self) -> bool:
        """Whether the classifier is trained (a model training encodes with is not yet)."""
        return self.learner is not None and len(self.splits) > 0
