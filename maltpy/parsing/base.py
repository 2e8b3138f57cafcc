"""What every parser has: its settings, the parts they build and the model training produced
(two frozen values, :mod:`maltpy.parsing.model`), and what is made of them for a parse: the
encoding of sentences, the transition system, the scorer and the search. The only module
besides :mod:`maltpy.parsing.parser` that changes a parser (through :meth:`ParserBase._setup`,
:meth:`ParserBase._set_model`, :meth:`ParserBase._take` and :meth:`ParserBase._adopt`)."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from maltpy.config import Settings, make_settings
from maltpy.errors import MaltpyError
from maltpy.parsing.assemble import assemble
from maltpy.parsing.encode import UnseenTags, check_sentence_lengths, encode
from maltpy.parsing.model import ParserModel, Parts
from maltpy.parsing.models import models_of
from maltpy.search import SearchModel, for_settings as search_strategy
from maltpy.transform.single_root import wants_one_root
from maltpy.version import __version__


class ParserBase:
    """A parser's state and its parts (:class:`maltpy.parsing.parser.Parser` adds training,
    parsing and model files)."""

    def __init__(self, settings: Optional[Settings] = None, **kwargs):
        if settings is not None and kwargs:
            settings = make_settings(**{**settings.__dict__, **kwargs})
        self.settings = settings or make_settings(**kwargs)
        #: what the settings build (maltpy.parsing.model.Parts) and what training produced
        #: (ParserModel): two frozen values, replaced whole by training and loading
        self.parts: Optional[Parts] = None
        self.model: Optional[ParserModel] = None
        self._weights = None
        self.unseen_tags = None     # warns once when most input tags were never seen in training
        self.warned_long = False    # a long sentence for a quadratic system: warned once

    # ------------------------------------------------------------------ parts
    def _setup(self, fmt: str, feature_text: Optional[str] = None, feature_model=None):
        """Build the parts for this format (``feature_text``: a model file's feature model;
        ``feature_model``: the same parsed, where the file has it)."""
        self.parts = assemble(self.settings, fmt, feature_text, feature_model)
        self.model = None
        self._weights = None
        self.unseen_tags = UnseenTags(self.parts.compiled, fmt)
        self.warned_long = False

    def _set_model(self, model: ParserModel):
        """Take ``model`` (training's or a model file's) as what this parser has learned."""
        self.model = model
        self._weights = None
        self.parts.extractor.set_deprel_values(model.deprel_values)

    def _take(self, trained):
        """Take what training produced (:func:`maltpy.parsing.training.fit`: parts and model)."""
        self.parts = trained.parts
        self.unseen_tags = UnseenTags(trained.parts.compiled, trained.parts.format)
        self.warned_long = False
        self._set_model(trained.model)

    def _adopt(self, other: "ParserBase", **changes):
        """Take another parser's parts and model (``changes``: to the model), keeping this
        parser's settings: -dir both's left-to-right parser becomes this one."""
        self.parts = other.parts
        self.unseen_tags = other.unseen_tags
        self._set_model(replace(other.model, **changes))

    @property
    def _fitted(self) -> bool:
        return self.model is not None and self.model.trained

    # the parts and the model, read only (a parser is changed only through the methods above)
    format = property(lambda self: self.parts.format)
    system_cls = property(lambda self: self.parts.system_cls)
    feature_model = property(lambda self: self.parts.feature_model)
    feature_text = property(lambda self: self.parts.feature_text)
    compiled = property(lambda self: self.parts.compiled)
    extractor = property(lambda self: self.parts.extractor)
    view = property(lambda self: self.parts.view)
    labels = property(lambda self: self.model.labels)
    label_ids = property(lambda self: self.model.label_ids)
    deprel_values = property(lambda self: self.model.deprel_values)
    token_tables = property(lambda self: self.model.token_tables)
    multi_tables = property(lambda self: self.model.multi_tables)
    classes = property(lambda self: self.model.classes)
    splits = property(lambda self: self.model.splits)
    split_map = property(lambda self: self.model.split_map)
    default_split = property(lambda self: self.model.default_split)
    learner = property(lambda self: self.model.learner)
    train_stats = property(lambda self: self.model.train_stats if self.model is not None else {})
    written_by = property(lambda self: self.model.written_by if self.model is not None else __version__)
    combination = property(lambda self: self.model.combination)
    reverse_parser = property(lambda self: self.model.reverse_parser if self.model is not None else None)
    reduction = property(lambda self: self.model.reduction if self.model is not None else None)

    def encode(self, sentences, grow: bool = False):
        """Sentences -> the C loops' :class:`~maltpy.features.corpus.Corpus`, through this parser's symbol tables."""
        return encode(sentences, self.compiled, self.token_tables, self.multi_tables, grow=grow,
                      root_value=self.extractor.root_value)

    def system(self, training: bool):
        """A transition system for this parser's settings and labels (``training``: with the
        options only the oracle uses)."""
        opts = self.settings.system_options(self.system_cls)
        if training:
            opts = self.system_cls.training_configuration(opts)
        root = self.label_ids.get(self.settings.root_label, 0)
        root = self.label_ids.get(self.view.root_label(self.settings.root_label), root)
        system = self.system_cls(len(self.labels), root, **opts)
        self.view.setup_system(system, self.labels)
        return system

    @property
    def output_labels(self):
        """The label names the output carries (label-based undirected models drop the direction)."""
        return self.view.output_labels(self.labels)

    def weights(self):
        """The scorer of the parse loops (:mod:`maltpy.search`): the parse-time weight table of a
        linear model, or kernel models."""
        if self._weights is None:
            left_out = [0 if k == self.default_split else len(self.compiled.split_templates)
                        for k in range(len(self.splits))]
            self._weights = models_of(self.learner).scorer(self.splits, self.split_map, self.default_split,
                                                           self.classes.n_classes, self.learner, left_out)
        return self._weights

    def search_model(self) -> SearchModel:
        """What a search strategy parses with: system, feature extractor, classes and scorer."""
        return SearchModel(self.system(training=False), self.extractor, self.classes, self.weights())

    def strategy(self):
        """The search strategy of the ``search`` setting (:mod:`maltpy.search`)."""
        return search_strategy(self.settings, self.model is not None and self.model.trained_globally)

    def check_fitted(self):
        """Raise a one-line error unless the parser is trained or loaded."""
        if not self._fitted:
            raise MaltpyError("this parser is not trained: call fit() or load a model file")

    def check_input(self, corpus, examples, where=None) -> None:
        """The warnings about an encoded input (``examples(ci)``: a few values of column ci):
        tags never seen in training, sentences long for a quadratic system; and the error for
        a sentence too long for the system and beam (``where(k)``: where sentence k is)."""
        self.unseen_tags.check(corpus, examples)
        warned = check_sentence_lengths(corpus.offsets, self.system_cls, training=False,
                                     beam_width=self.settings.beam_width, where=where, warn=not self.warned_long)
        self.warned_long = self.warned_long or warned

    @property
    def decodes_output(self) -> bool:
        """Whether :meth:`parse_trees` rewrites the C loop's trees (the view decodes them, or two
        parsers' trees are combined); when it does not, the heads and label ids of
        :meth:`parse_arrays` are the output."""
        return self.view.changes_trees or self.reverse_parser is not None

    def one_root(self, output_format: Optional[str] = None) -> bool:
        """Whether output in this format (default: the model's) gets one word on the root (``-ro``;
        :mod:`maltpy.transform.single_root`)."""
        return wants_one_root(self.settings.roots, output_format or self.format)
