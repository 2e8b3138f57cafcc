"""A :class:`~maltpy.parsing.parser.Parser` as a model file and back: what the file holds and
every check of it on loading (the container itself, one zip of JSON and ``.npy`` arrays, is
:mod:`maltpy.parsing.modelfile`'s). Loading runs no code from the file (no pickle)."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np

from maltpy.config import NON_PARSER_SETTINGS, READ_WRITE_SETTINGS, RUN_SETTINGS, Settings, coerce, make_settings
from maltpy.errors import MaltpyError, ModelFileError
from maltpy.features.spec import FeatureSpecError, feature_model_from_data
from maltpy.learners import make_learner
from maltpy.parsing.encode import NO_CLUSTER, ClusterTable, SymbolTable
from maltpy.parsing.model import ParserModel
from maltpy.parsing.models import LinearModels, models_of
from maltpy.parsing.modelfile import HeaderReader, check_array, load_model, model_bytes, save_model
from maltpy.systems.classes import ClassTable
from maltpy.transform.reverse import both_ways
from maltpy.version import __version__


def save_parser(self, path: str) -> None:
    """Write a trained parser to one model file (``Parser.save``)."""
    save_model(path, *_contents(self))


def parser_bytes(self) -> bytes:
    """A parser's model file as bytes, made in memory."""
    return model_bytes(*_contents(self))


def _contents(self):
    """(header, arrays) of a trained parser's model file."""
    self.check_fitted()
    train_settings = {k: v for k, v in self.settings.__dict__.items()
                      if k not in RUN_SETTINGS and k not in NON_PARSER_SETTINGS}
    if train_settings.get("beam_scores") == "auto" and self.model.trained_globally:
        train_settings["beam_scores"] = "sum"     # what auto means for this model, as its file says it
    header = {
        "maltpy_version": __version__,
        "settings": train_settings,
        "format": self.format,
        "feature_model": self.feature_text,
        # the same features parsed, as strings: loading reads these, without PyYAML (12 ms of
        # start-up); the text above is kept for maltpy info --features
        "feature_list": {"name": self.feature_model.name, "features": [str(f) for f in self.feature_model.features]},
        "labels": self.labels,
        # a cluster column's table is kept apart (cluster_tables): spellings and the id of each
        "token_tables": [[] if isinstance(t, ClusterTable) else t.symbols() for t in self.token_tables],
        # the multi-valued (Split) columns' tables; the key keeps its first name, which model
        # files already carry
        "rag_tables": [t.symbols() for t in self.multi_tables],
        "n_classes": self.classes.n_classes,
        "n_splits": len(self.splits),
        "default_split": self.default_split,
        "train_stats": self.train_stats,
        # OutputColumn(DEPREL) value per label id (pseudo-projective models since 0.1.0's
        # MaltParser parity fix; absent: label id + 1, as older models were trained)
        "deprel_values": self.deprel_values,
    }
    arrays = {"split_map": self.split_map}
    clusters = {j: t for j, t in enumerate(self.token_tables) if isinstance(t, ClusterTable)}
    if clusters:
        # the spellings (UTF-8, one a line) of each distinct table once, as bytes: the columns of
        # one clusters file share them
        number = {}
        for t in clusters.values():
            number.setdefault(id(t.lines), len(number))
        header["cluster_tables"] = {str(j): number[id(t.lines)] for j, t in clusters.items()}
        arrays.update({f"cluster_lines{number[id(t.lines)]}": np.frombuffer(t.lines, dtype=np.uint8)
                       for t in clusters.values()})
        arrays.update({f"cluster_ids{j}": t.id_array for j, t in clusters.items()})
    if self.reduction is not None:
        header["constituents"] = self.reduction.header()
        arrays.update(self.reduction.arrays())
    if self.reverse_parser is not None:
        # the right-to-left parser's own model file, inside this one
        header["combination"] = self.combination
        arrays["reverse_model"] = np.frombuffer(parser_bytes(self.reverse_parser), dtype=np.uint8)
    models_of(self.learner).save(self.splits, arrays, self.classes.n_classes)
    return header, arrays


def _token_tables(h: HeaderReader, compiled, arrays, path) -> list:
    """The symbol tables of the feature model's token columns; a cluster column's from its
    spellings (``cluster_tables``: which ``cluster_lines`` array, UTF-8 bytes one spelling a
    line) and its ids array."""
    stored = h.tables("token_tables", len(compiled.token_columns))
    cluster_columns = [j for j, (_, transform, _) in enumerate(compiled.token_columns) if transform == "cluster"]
    which = h.mapping("cluster_tables") if cluster_columns else {}
    if cluster_columns and set(which) != {str(j) for j in cluster_columns}:
        h.fail("the cluster tables do not match the feature model's Cluster columns")
    tables, lines_of = [], {}
    for j, symbols in enumerate(stored):
        if j not in cluster_columns:
            tables.append(SymbolTable(symbols))
            continue
        k = which[str(j)]
        if not isinstance(k, int) or isinstance(k, bool) or symbols:
            h.fail("a cluster table is damaged")
        if k not in lines_of:
            raw = check_array(arrays, f"cluster_lines{k}", path, "u")
            # one spelling a line, none empty: the compiled table reads them so (a repeated
            # spelling would only shadow itself)
            breaks = raw == 10
            if raw.dtype != np.uint8 or not len(raw) or breaks[0] or breaks[-1] \
                    or bool((breaks[1:] & breaks[:-1]).any()):
                h.fail("a cluster table is damaged")
            # the array as it was read (tens of megabytes for a large clusters file), not a copy
            lines_of[k] = (np.ascontiguousarray(raw), int(np.count_nonzero(breaks)) + 1)
        lines, count = lines_of[k]
        ids = check_array(arrays, f"cluster_ids{j}", path, "i", length=count, low=NO_CLUSTER + 1, high=2 ** 31 - 1)
        tables.append(ClusterTable(lines, ids))
    return tables


def _stored_features(h: HeaderReader):
    """The model file's parsed feature model (its ``feature_list``), or None for a file written
    before it had one (its YAML text is read then)."""
    v = h.get("feature_list", optional=True)
    if v is None:
        return None
    if not isinstance(v, dict) or not isinstance(v.get("name"), str):
        h.fail("feature_list must name a feature model and list its features")
    try:
        return feature_model_from_data(v, "feature_list")
    except FeatureSpecError as e:
        h.fail(str(e))


def load_parser(cls, path: str, data: Optional[bytes] = None, **overrides):
    """A ``cls`` (:class:`~maltpy.parsing.parser.Parser`) loaded from a model file (``Parser.load``). ``overrides``: parse-time settings (e.g. ``enforce_tree=True``).

    Every header value and array is checked here, so that a model either loads
    completely or is refused with :class:`~maltpy.errors.ModelFileError`; nothing
    damaged reaches the C loops. ``data``: the model file's bytes (``path`` then names them)."""
    for k, v in overrides.items():    # checked as the settings of a new parser are
        if k not in Settings.__dataclass_fields__:
            raise MaltpyError(f"unknown setting {k!r}")
        overrides[k] = coerce(k, v, "load")
    header, arrays = load_model(path, records=LinearModels.records, data=data)
    if "pipeline" in header:
        raise ModelFileError(f"{path}: this model file is a pipeline of components, not a parser alone: load it "
                             "with maltpy.load (or maltpy.components.load)")
    h = HeaderReader(header, path)
    stored = {k: v for k, v in h.mapping("settings").items() if k not in RUN_SETTINGS and k not in NON_PARSER_SETTINGS}
    stored_features = _stored_features(h)
    try:
        settings = make_settings(**stored)
        for k, v in overrides.items():
            setattr(settings, k, v)
        parser = cls(settings)
        parser._setup(h.text("format"), h.text("feature_model"), stored_features)
    except MaltpyError as e:
        raise ModelFileError(f"{path}: inconsistent model file ({e})") from None
    labels = h.strings("labels")
    deprel_values = h.get("deprel_values", optional=True)
    if deprel_values is not None:
        if not isinstance(deprel_values, list) or len(deprel_values) != len(labels) or not all(
                isinstance(v, int) and not isinstance(v, bool) and 1 <= v < 2 ** 30 for v in deprel_values):
            h.fail("deprel_values does not match the labels")
    model = ParserModel(labels=labels, deprel_values=deprel_values,
                        token_tables=_token_tables(h, parser.compiled, arrays, path),
                        multi_tables=[SymbolTable(t) for t in h.tables("rag_tables", len(parser.compiled.multi_columns))])
    parser._set_model(model)      # the labels, for the system the classes come from
    classes = ClassTable(parser.system(training=False).labeled, len(labels))
    C = classes.n_classes
    if h.integer("n_classes", 1, 2 ** 31 - 1) != C:
        h.fail(f"class count does not match the {settings.algorithm} system")
    try:
        learner = make_learner(settings.learner, settings.learner_options)
    except MaltpyError as e:
        h.fail(str(e))
    n_splits = h.integer("n_splits", 1, len(arrays))
    default_split = h.integer("default_split", 0, n_splits - 1)
    split_map = check_array(arrays, "split_map", path, "iu", low=0, high=n_splits - 1).astype(np.int32)
    models = models_of(learner)
    written_by = h.get("maltpy_version", optional=True)
    model = replace(model, classes=classes, learner=learner, default_split=default_split, split_map=split_map,
                    splits=[models.load(arrays, k, C, path) for k in range(n_splits)],
                    train_stats=h.figures("train_stats"),
                    written_by=written_by if isinstance(written_by, str) else None)
    if both_ways(settings):
        model = replace(model, **_reverse_parser(cls, h, arrays, path, overrides))
    if h.get("constituents", optional=True) is not None:
        described = h.get("constituents")
        if isinstance(described, dict) and described.get("kind") == "discontinuous":
            from maltpy.parsing.discontinuous import DiscontinuousReduction as Reduction
        else:
            from maltpy.parsing.constituent import Reduction
        model = replace(model, reduction=Reduction.from_model(described, arrays, h.fail))
    parser._set_model(model)
    try:
        parser.weights()  # the C tables: distinct feature keys, shapes against each other
    except ValueError as e:
        h.fail(str(e))
    return parser


def _reverse_parser(cls, h, arrays, path, overrides) -> dict:
    """-dir both: the combination and the right-to-left parser stored in the model file (as the
    model's fields)."""
    from maltpy.transform.combine import CRITERIA, ORDERS
    c = h.mapping("combination")
    if c.get("criterion") not in CRITERIA or c.get("first") not in ORDERS or \
            not isinstance(c.get("param"), int) or isinstance(c.get("param"), bool) or not 0 <= c["param"] < 2 ** 31:
        h.fail("the combination of the two directions is damaged")
    # what parsing needs, checked above; the cross-validation's figures, for people
    combination = {**h.figures("combination"), "criterion": c["criterion"], "first": c["first"],
                   "param": c["param"]}
    blob = check_array(arrays, "reverse_model", path, "u", ndim=1).astype(np.uint8, copy=False).tobytes()
    try:
        reverse = load_parser(cls, "inner model", data=blob, **overrides)
    except ModelFileError as e:
        h.fail(f"its right-to-left model: {e}")
    if not reverse.view.reverses_words:
        h.fail("its second model does not parse right to left")
    return {"combination": combination, "reverse_parser": reverse}


def describe_parser(self) -> dict:
    """What this trained parser is, as plain data (``maltpy info`` prints it): the training
    settings that differ from the defaults, learner, feature model, labels, the training data's
    figures, and with ``-dir both`` the combination chosen and the right-to-left parser."""
    self.check_fitted()
    defaults = Settings()
    changed = {k: v for k, v in self.settings.__dict__.items()
               if k not in RUN_SETTINGS and k not in NON_PARSER_SETTINGS and k not in READ_WRITE_SETTINGS
               and k not in ("algorithm", "learner", "learner_options")  # keys of their own
               and v != getattr(defaults, k)}
    info = {
        # the version that wrote the model file (None: the file does not say); this one if not saved yet
        "written_by": self.written_by,
        "format": self.format,
        "algorithm": self.settings.algorithm,
        "settings": changed,
        "learner": self.settings.learner,
        "learner_options": self.learner.options_string(),
        "feature_model": {"name": self.feature_model.name, "features": len(self.feature_model.features)},
        "labels": list(self.labels),
        "classes": self.classes.n_classes,
        "split_models": len(self.splits),
        "training": dict(self.train_stats or {}),
        "constituents": self.reduction is not None,
        "discontinuous": getattr(self.reduction, "kind", "") == "discontinuous",
    }
    clusters = [t for t in self.token_tables if isinstance(t, ClusterTable)]
    if clusters:    # the columns of one clusters file share its spellings
        info["word clusters"] = {"columns": len(clusters),
                                 "spellings": max(len(t) for t in clusters)}
    if self.reverse_parser is not None:
        info["combination"] = dict(self.combination)
        info["right_to_left"] = self.reverse_parser.describe()
    return info
