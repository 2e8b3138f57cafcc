"""The Parser: training (fit), parsing, and model files, in the spirit of scikit-learn estimators.

Orchestration lives here in Python; every per-transition step runs in
:mod:`maltpy.parsing.loop`.
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Iterator, Optional, Sequence

import numpy as np

from maltpy.config import RUN_SETTINGS, Settings, coerce, flag_of, make_settings, threads
from maltpy.errors import MaltpyError
from maltpy.features import MODELS_DIR
from maltpy.features.compiler import compile_model
from maltpy.features.extract import Extractor
from maltpy.features.featmap import FeatMap
from maltpy.features.spec import FeatureSpecError, convert_maltparser_xml, load_feature_model
from maltpy.formats.conll import FORMATS, Sentence
from maltpy.formats.validate import check_sentences
from maltpy.transform.single_root import one_root as single_root, wants_one_root
from maltpy.learners import make_learner, request_stop
from maltpy.parsing.encode import (ColumnBatch, SymbolTable, UnseenTags, column_values, encode, gold_arrays,
                                   warn_long_sentences)
from maltpy.search import SearchModel, strategy as search_strategy
from maltpy.search.decision import ClassTable
from maltpy.chunks import chunked, folds as cv_folds
from maltpy.progress import progress_bar as _progress_bar
from maltpy.systems import FEATURE_MODEL_NAMES, SYSTEMS, system_class
from maltpy.systems.nivreeager import ORACLE_OPTION_MOVES, NivreEager, oracle_options_taken
from maltpy.transform import PseudoProjective, reverse_sentence, reverse_tree
from maltpy.transform.reverse import reverse_columns
from maltpy.version import __version__


def resolve_feature_model(features: Optional[str], algorithm: str, learner: str, fmt: str, **options):
    """``-F`` value -> (FeatureModel, YAML text). ``None`` = the default of the system with these
    ``options`` (MaltParser's model; see ``TransitionSystem.default_feature_model``)."""
    if not features:
        features = system_class(algorithm).default_feature_model(FEATURE_MODEL_NAMES.get(algorithm, algorithm),
                                                                  **options)
    # learners without models of their own use LIBLINEAR's (MaltParser ships liblinear and libsvm ones)
    learner = learner if learner in ("liblinear", "libsvm") else "liblinear"
    path = features
    if not os.path.exists(path):
        # a shipped model by name: NivreEager, NivreEager.xml, nivreeager ...
        stem = os.path.splitext(os.path.basename(features))[0]
        stem = FEATURE_MODEL_NAMES.get(stem.lower(), stem)
        candidate = os.path.join(MODELS_DIR, learner, fmt, stem + ".yaml")
        if not os.path.exists(candidate):
            shipped = sorted(os.path.splitext(f)[0] for f in os.listdir(os.path.join(MODELS_DIR, learner, fmt))) \
                if os.path.isdir(os.path.join(MODELS_DIR, learner, fmt)) else []
            raise MaltpyError(f"feature model {features!r} is neither a file nor a shipped model; "
                              f"shipped models for {learner}/{fmt}: {', '.join(shipped)}")
        path = candidate
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MaltpyError(f"{path}: cannot read the feature model ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FeatureSpecError(f"{path}:{line}: invalid UTF-8 (byte 0x{data[e.start]:02x}); "
                               "the feature model must be UTF-8 encoded") from None
    if path.endswith(".xml"):
        model = convert_maltparser_xml(text, path)[0]
        text = model.to_yaml(f"converted from {os.path.basename(path)}")
        return model, text
    return load_feature_model(text, path), text


class Parser:
    """A MaltParser-style transition-based dependency parser.

    >>> p = Parser(algorithm="nivreeager").fit(read_conll("train.conll", need_heads=True))
    >>> trees = p.parse(read_conll("test.conll"))
    >>> p.save("model.mpz"); p = maltpy.load("model.mpz")

    Settings are those of :class:`maltpy.config.Settings` (the YAML keys).
    """

    def __init__(self, settings: Optional[Settings] = None, **kwargs):
        if settings is not None and kwargs:
            settings = make_settings(**{**settings.__dict__, **kwargs})
        self.settings = settings or make_settings(**kwargs)
        self._fitted = False
        self._weights = None
        #: the constituent side (maltpy.parsing.constituent.Reduction) of a constituent parser
        self.reduction = None

    # ------------------------------------------------------------------ setup
    def _setup(self, fmt: str, feature_text: Optional[str] = None):
        s = self.settings
        if fmt not in FORMATS:
            raise MaltpyError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        self.format = fmt
        self.system_cls = system_class(s.algorithm)
        if s.undirected != "none" and "undirected" not in self.system_cls.options:
            raise MaltpyError(f"undirected parsing (-ud {s.undirected}) is for planar, 2planar and covnonproj, "
                              f"not {s.algorithm}")
        if s.buffer_transitions != "none" and "buffer_transitions" not in self.system_cls.options:
            raise MaltpyError(f"buffer transitions (-bt {s.buffer_transitions}) extend arc-eager: use them "
                              f"with -a nivreeager, not {s.algorithm}")
        taken = oracle_options_taken(s.buffer_transitions)
        for option, moves in ORACLE_OPTION_MOVES.items():
            value = getattr(s, option)
            if value != NivreEager.options[option] and option not in taken:
                flag = flag_of(option)
                raise MaltpyError(f"{flag} {value} is about the oracle's {' and '.join(m.upper() for m in moves)}: "
                                  f"use it with -bt {' or '.join(moves)} (here -bt {s.buffer_transitions})")
        if feature_text is None:
            self.feature_model, self.feature_text = resolve_feature_model(
                s.features, s.algorithm, s.learner, fmt, undirected=s.undirected,
                buffer_transitions=s.buffer_transitions)
            source = s.features or f"the default {s.algorithm} feature model"
        else:
            self.feature_text = feature_text
            source = "the model file's feature model"
            self.feature_model = load_feature_model(feature_text, source)
        split = None
        if s.split_column or s.split_structure:
            if not (s.split_column and s.split_structure):
                raise MaltpyError("data split needs both -d (column, e.g. POSTAG) and -s (structure, e.g. Input[0])")
            split = (s.split_column, s.split_structure)
        if s.null_value not in ("one", "rootnode", "novalue"):
            raise MaltpyError(f"null_value (-nv) {s.null_value!r}: use one, rootnode or novalue "
                              "(none is impossible with binarized features, as in MaltParser)")
        try:
            self.compiled = compile_model(self.feature_model, fmt, self.system_cls, split)
        except FeatureSpecError as e:
            raise FeatureSpecError(f"{source}: {e}") from None
        self.extractor = Extractor(self.compiled.tables, max(len(self.compiled.token_columns), 1),
                                   max(len(self.compiled.int_columns), 1), self.compiled.split_atom,
                                   s.null_value)
        #: warns once when the input's tags were mostly never seen in training (a tag-column mix-up)
        self.unseen_tags = UnseenTags(self.compiled, fmt)
        self.warned_long = False   # a long sentence for a quadratic system: warned once per parser

    def encode(self, sentences, grow: bool = False):
        """Sentences -> the C loops' :class:`~maltpy.search.decision.Corpus`, through this parser's symbol tables."""
        return encode(sentences, self.compiled, self.token_tables, self.rag_tables, grow=grow,
                      root_value=self.extractor.root_value)

    def _model_order(self, sentences):
        """The sentences as the model reads them: reversed for a right-to-left model."""
        if self.settings.direction != "rtl":
            return sentences
        if isinstance(sentences, ColumnBatch):
            return reverse_columns(sentences, self.format == "conllu")
        return [reverse_sentence(s, self.format == "conllu") for s in sentences]

    def pseudo_projective(self) -> PseudoProjective:
        """The pseudo-projective transform of this parser's settings (inactive without -pp)."""
        s = self.settings
        return PseudoProjective(s.marking_strategy, s.covered_root, s.lifting_order)

    def system(self, training: bool):
        """A transition system for this parser's settings and labels (``training``: with the
        options only the oracle uses)."""
        opts = self.settings.system_options(self.system_cls)
        if training:
            opts.update(self.system_cls.training_options)
        root = self.label_ids.get(self.settings.root_label, 0)
        if self.settings.undirected != "label":
            return self.system_cls(len(self.labels), root, **opts)
        from maltpy.transform.direction import RIGHT, directions
        # a word made a root by the reconstruction gets the root label, rightward
        root = self.label_ids.get(self.settings.root_label + RIGHT, root)
        system = self.system_cls(len(self.labels), root, **opts)
        system.set_label_directions(directions(self.labels))
        return system

    @property
    def output_labels(self):
        """The label names the output carries (label-based undirected models drop the direction)."""
        if self.settings.undirected == "label":
            from maltpy.transform.direction import output_labels
            return output_labels(self.labels)
        return self.labels

    # ------------------------------------------------------------------ training
    def training_instances(self, sentences: Sequence[Sentence], fmt: Optional[str] = None, log=None,
                           online: bool = False, checked: bool = False):
        """The oracle's classifier instances for gold sentences, as the learner gets them.

        Sets up the symbol tables and classes as :meth:`fit` does (which calls it).
        Returns ``(X, y, split_values, feature_keys)``: X a 0/1 CSR matrix
        (instances x features), y the class ids, the split feature's value per
        instance and the key of each feature column. With ``online``, the set-up only:
        ``(corpus, gold heads, gold label ids, system, feature map)`` for a trainer that runs
        the transition loop itself. ``checked``: the sentences are known to be valid gold trees
        (:meth:`fit` checked them once; a cross-validation's folds are not checked again).
        """
        s = self.settings
        fmt = fmt or s.input_format or "conllx"
        if not checked:
            _check_training_sentences(sentences, fmt)
        log = log or (lambda msg: None)
        t0 = time.perf_counter()
        self._setup(fmt)
        sentences = self._model_order(sentences)
        pp = self.pseudo_projective()
        if pp.active:
            sentences = [pp.apply(pp.projectivize, sent) for sent in sentences]
        labels = sorted({r[7] for sent in sentences for r in sent.rows} | {s.root_label})
        heads, label_ids = gold_arrays(sentences, {l: k for k, l in enumerate(labels)})
        if s.undirected == "label":    # each arc's direction in its label (X_l, X_r)
            from maltpy.transform.direction import encode_directions
            labels, label_ids = encode_directions(heads, label_ids, labels, s.root_label)
        self.labels = labels
        self.label_ids = {l: k for k, l in enumerate(labels)}
        self.deprel_values = pp.deprel_feature_values(labels)
        self.extractor.set_deprel_values(self.deprel_values)
        self.token_tables = [SymbolTable() for _ in self.compiled.token_columns]
        self.rag_tables = [SymbolTable() for _ in self.compiled.rag_columns]
        corpus = self.encode(sentences, grow=True)
        warn_long_sentences(corpus.offsets, self.system_cls, training=True)
        system = self.system(training=True)
        self.classes = ClassTable(system.labeled, len(labels))
        fmap = FeatMap(1 << 16)
        if online:   # the online trainer runs the transition loop itself
            self.train_stats = {"sentences": len(sentences), "tokens": int(corpus.n_rows - len(sentences))}
            return corpus, heads, label_ids, system, fmap
        from maltpy.search.oracle import collect_instances
        bar = _progress_bar(len(sentences), "instances", s.verbose)
        try:
            step = SearchModel(system, self.extractor, self.classes, None).step(corpus.max_n)
            inst = collect_instances(step, fmap, corpus, heads, label_ids, progress=bar.update if bar else None)
        finally:
            if bar:
                bar.close()
        n_inst = len(inst["y"])
        self.train_stats = {"sentences": len(sentences), "tokens": int(corpus.n_rows - len(sentences)),
                            "instances": n_inst, "features": len(fmap),
                            "oracle_errors": int(inst["oracle_errors"])}
        log(f"{n_inst} instances, {len(fmap)} features, {self.classes.n_classes} classes "
            f"({time.perf_counter() - t0:.1f} s)")
        if inst["oracle_errors"]:
            log(f"note: the {s.algorithm} oracle could not reproduce {inst['oracle_errors']} of "
                f"{len(sentences)} training trees (non-projective trees need a non-projective "
                "algorithm or pseudo-projective parsing)")
        import scipy.sparse as sp   # here, not at the top: parsing never needs scipy
        # int8 ones: the solvers read the pattern (scikit-learn's convert), an eighth of float64's bytes
        X = sp.csr_matrix((np.ones(len(inst["indices"]), dtype=np.int8), inst["indices"], inst["indptr"]),
                          shape=(n_inst, len(fmap)))
        return X, inst["y"], inst["split"], fmap.keys_in_order()

    def fit(self, sentences: Sequence[Sentence], fmt: Optional[str] = None, log=None):
        """Train on gold sentences (HEAD and DEPREL filled). Returns self.

        ``fmt``: the columns' format (default: the ``input_format`` setting, else the format the
        sentences were read in, else conllx)."""
        s = self.settings
        fmt = fmt or s.input_format or _format_read(sentences)
        if s.reverse_features and s.direction != "both":
            raise MaltpyError(f"-Frtl {s.reverse_features} names the right-to-left feature model of -dir both; "
                              f"with -dir {s.direction}, give the feature model with -F")
        _check_training_sentences(sentences, fmt or s.input_format or "conllx")
        return self._fit(sentences, fmt, log or (lambda msg: None))

    def _fit(self, sentences, fmt, log):
        """:meth:`fit` on sentences already checked (a cross-validation's folds come here)."""
        s = self.settings
        if s.direction == "both":
            return self._fit_both(sentences, fmt, log)
        if s.oracle == "dynamic":
            return self._fit_online(sentences, fmt, log)
        t0 = time.perf_counter()
        learner = make_learner(s.learner, s.learner_options)
        # importing scikit-learn takes seconds; do it while the C loop collects instances without the GIL
        warm_up = threading.Thread(target=learner.import_estimator, daemon=True)
        warm_up.start()
        X, y, split_values, all_keys = self.training_instances(sentences, fmt, log, checked=True)
        warm_up.join()
        n_inst = len(y)
        groups, self.split_map, self.default_split = self._split_groups(split_values, n_inst)
        C = self.classes.n_classes
        largest = max(n_inst if g is None else len(g) for g in groups)
        if learner.kind == "kernel" and largest > 100_000:
            # kernel SVM training grows faster than linearly with the instances of one model
            log(f"note: one {s.learner} model gets {largest} instances, which can take hours; "
                "a data split keeps the models small (e.g. -d POSTAG -s Input[0] -T 1000)")

        # MaltParser's split models leave out the split feature itself (FeatureModel's divide
        # feature vectors); the default model keeps it
        template_of_key = (all_keys.astype(np.uint64) >> np.uint64(50)).astype(np.int64)
        split_feature_column = np.isin(template_of_key, self.compiled.split_templates)

        def train(rows, divided):
            if rows is None:  # every feature occurs in the full instance set
                Xs, ys, cols = X, y, np.arange(X.shape[1])
            else:  # a split model: keep only the columns its instances use
                Xs, ys = X[rows], y[rows]
                cols = np.unique(Xs.indices)
                if divided:
                    cols = cols[~split_feature_column[cols]]
                Xs = Xs[:, cols].tocsr()
                Xs.sort_indices()
            if learner.kind == "kernel":  # keep the features some support vector has
                svm = learner.fit(Xs, ys, C)
                used = svm.used_features()
                remap = np.full(Xs.shape[1], -1, dtype=np.int32)
                remap[used] = np.arange(len(used), dtype=np.int32)
                svm.remap_features(remap)
                return all_keys[cols[used]], svm
            report = pass_bar is not None or (learner.logs_passes and len(groups) == 1)
            W, bias = learner.fit(Xs, ys, C, progress=on_pass if report else None)
            keep = np.flatnonzero(np.any(W != 0, axis=1))
            return all_keys[cols[keep]], W[keep], bias

        jobs = threads(s.jobs)
        # one model (no split): follow the solver's passes instead of a one-step bar
        pass_bar = (_progress_bar(None, "training", s.verbose, unit="pass")
                    if len(groups) == 1 and learner.reports_passes else None)

        def on_pass(n_passes, value):
            note = learner.pass_note(n_passes, value)
            if pass_bar is not None:
                pass_bar.update(1)
                pass_bar.set_postfix_str(note, refresh=False)
            if learner.logs_passes:
                log(note)

        bar = None if pass_bar is not None else _progress_bar(len(groups), "training", s.verbose, unit="model")
        t1 = time.perf_counter()
        results = [None] * len(groups)
        # largest groups first so the pool finishes together; liblinear releases the GIL
        order = sorted(range(len(groups)), key=lambda g: -(n_inst if groups[g] is None else len(groups[g])))
        request_stop(False)
        workers = max(1, min(jobs, len(groups)))
        if learner.kind == "kernel":
            # a kernel model's one-against-one problems run on the jobs threads (the solver's own),
            # model after model: better balanced than one thread per model
            workers = 1
        if learner.threaded:   # the threads the models leave free go to their solvers
            learner.n_threads = max(1, jobs // workers)
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            futures = {pool.submit(train, groups[g], g != self.default_split): g for g in order}
            for fut in futures:
                results[futures[fut]] = fut.result()
                if bar:
                    bar.update(1)
        except KeyboardInterrupt:
            # Ctrl-C: maltpy's solvers return within a moment; scikit-learn's cannot be
            # stopped, so they are left to finish in the background (the CLI exits without them)
            request_stop()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        for b in (bar, pass_bar):
            if b is not None:
                b.close()
        self.splits = results
        self.learner = learner
        log(f"trained {len(groups)} model(s) with {s.learner} {learner.options_string()} "
            f"in {time.perf_counter() - t1:.1f} s")
        self.train_stats["seconds"] = time.perf_counter() - t0
        self._fitted = True
        self._weights = None
        return self

    def _fit_online(self, sentences, fmt, log):
        """-or dynamic: the perceptron trained inside the transition loop with the dynamic oracle,
        exploring its own errors (maltpy.parsing.online)."""
        from maltpy.search.online import train_online
        from maltpy.search.trainable import TrainableWeights
        s = self.settings
        learner = make_learner(s.learner, s.learner_options)
        if not learner.online:
            raise MaltpyError(f"the dynamic oracle (-or dynamic) trains online: use -l perceptron, not -l {s.learner}")
        if s.split_column or s.split_structure:
            raise MaltpyError("the dynamic oracle trains one model: leave out the data split (-d/-s)")
        t0 = time.perf_counter()
        corpus, heads, label_ids, system, fmap = self.training_instances(sentences, fmt, log, online=True,
                                                                         checked=True)
        if not system.has_costs:
            with_costs = [name for name, cls in SYSTEMS.items() if cls(1, 0).has_costs]
            raise MaltpyError(f"{system.no_costs_reason}; use -or static (dynamic oracles, with their default "
                              f"options: {', '.join(with_costs)})")
        t1 = time.perf_counter()
        scorer = TrainableWeights(fmap, self.classes.n_classes, self.extractor.max_keys)
        step = SearchModel(system, self.extractor, self.classes, scorer).step(corpus.max_n)
        W, bias = train_online(
            step, corpus, heads, label_ids, learner.epochs, learner.seed, dynamic=True, explore_after=learner.explore_after, explore_p=learner.explore_p,
            progress=lambda epoch, accuracy, seconds: log(learner.pass_note(epoch, 1.0 - accuracy)
                                                          + f", {seconds:.1f} s"))
        keys = fmap.keys_in_order()
        keep = np.flatnonzero(np.any(W != 0, axis=1))
        self.splits = [(keys[keep], W[keep], bias)]
        self.split_map = np.zeros(1, dtype=np.int32)
        self.default_split = 0
        self.learner = learner
        self.train_stats.update({"features": len(fmap), "seconds": time.perf_counter() - t0})
        log(f"trained with perceptron {learner.options_string()} and the dynamic oracle in "
            f"{time.perf_counter() - t1:.1f} s ({len(fmap)} features, {self.classes.n_classes} classes)")
        self._fitted = True
        self._weights = None
        return self

    def _one_way(self, direction: str) -> "Parser":
        """An untrained parser with these settings, reading in one direction (right to left with
        its own feature model when -Frtl names one)."""
        values = {**self.settings.__dict__, "direction": direction, "verbose": False, "reverse_features": None}
        if direction == "rtl" and self.settings.reverse_features:
            values["features"] = self.settings.reverse_features
        return Parser(make_settings(**values))

    def _fit_both(self, sentences, fmt, log):
        """-dir both: a parser each way on all the data, and the combination (criterion, which
        parser is first, parameter) that scores best over a cross-validation on the training
        data, as the paper tuned it: in each fold, both parsers trained on the other folds parse
        it, and every combination is scored on it."""
        from maltpy.transform.combine import choose_combination
        s = self.settings
        folds = s.combination_folds
        if folds < 2 or folds > len(sentences):
            raise MaltpyError(f"combination_folds (-cv) {folds}: use 2 to {len(sentences)} (the training sentences)")
        t0 = time.perf_counter()
        held_out = []
        for k, (train, part) in enumerate(cv_folds(sentences, folds)):
            trees = [self._one_way(d)._fit(train, fmt, log_nothing).parse_trees(part) for d in ("ltr", "rtl")]
            held_out.append((part, trees[0], trees[1]))
            log(f"combination cross-validation: fold {k + 1}/{folds} parsed ({time.perf_counter() - t0:.0f} s)")
        self.combination = choose_combination(held_out)
        c = self.combination
        log(f"combination: {c['criterion']} <= {c['param']}, {c['first']} first: cross-validated LAS "
            f"{c['las']:.2f} (left to right alone {c['las_ltr']:.2f}, right to left {c['las_rtl']:.2f})")
        ltr = self._one_way("ltr")._fit(sentences, fmt, log)
        self.reverse_parser = self._one_way("rtl")._fit(sentences, fmt, log)
        settings = self.settings
        self.__dict__.update({k: v for k, v in ltr.__dict__.items() if k != "settings"})
        self.settings = settings
        self.train_stats["combination_seconds"] = time.perf_counter() - t0
        return self

    def _split_groups(self, split_values, n_inst):
        """Instance rows per split model (MaltParser's -d/-s/-T); None = all instances."""
        s = self.settings
        if self.compiled.split_atom < 0:
            return [None], np.zeros(1, dtype=np.int32), 0
        values, counts = np.unique(split_values, return_counts=True)
        # as MaltParser's FeatureDivideModel: a value with at most -T instances goes to the default
        # model, and the default model's instances come value by value (ascending symbol codes,
        # a TreeMap), each value's in training order
        big = values[counts > s.split_threshold]
        order = np.argsort(split_values, kind="stable")
        sorted_vals = split_values[order]
        groups = []
        for v in big:
            lo, hi = np.searchsorted(sorted_vals, v), np.searchsorted(sorted_vals, v, side="right")
            groups.append(order[lo:hi])
        rest = order[~np.isin(sorted_vals, big)]
        groups.append(rest if len(rest) else None)  # default model; all instances if nothing is pooled
        n_values = int(max(split_values.max(initial=0), 0)) + 1
        split_map = np.full(n_values, len(groups) - 1, dtype=np.int32)
        for k, v in enumerate(big):
            if v >= 0:
                split_map[v] = k
        return groups, split_map, len(groups) - 1

    def describe(self) -> dict:
        """What this trained parser is, as plain data (``maltpy info`` prints it): the training
        settings that differ from the defaults, learner, feature model, labels, the training data's
        figures, and with ``-dir both`` the combination chosen and the right-to-left parser."""
        self.check_fitted()
        defaults = Settings()
        changed = {k: v for k, v in self.settings.__dict__.items()
                   if k not in RUN_SETTINGS and k not in ("input_format", "output_format",   # of a run too
                                                          "algorithm", "learner", "learner_options")  # keys of their own
                   and v != getattr(defaults, k)}
        info = {
            # the version that wrote the model file (None: the file does not say); this one if not saved yet
            "written_by": getattr(self, "written_by", __version__),
            "format": self.format,
            "algorithm": self.settings.algorithm,
            "settings": changed,
            "learner": self.settings.learner,
            "learner_options": self.learner.options_string(),
            "feature_model": {"name": self.feature_model.name, "features": len(self.feature_model.features)},
            "labels": list(self.labels),
            "classes": self.classes.n_classes,
            "split_models": len(self.splits),
            "training": dict(getattr(self, "train_stats", None) or {}),
            "constituents": self.reduction is not None,
        }
        if self.settings.direction == "both":
            info["combination"] = dict(self.combination)
            info["right_to_left"] = self.reverse_parser.describe()
        return info

    # ------------------------------------------------------------------ parsing
    def check_fitted(self):
        """Raise a one-line error unless the parser is trained or loaded."""
        if not self._fitted:
            raise MaltpyError("this parser is not trained: call fit() or load a model file")

    def weights(self):
        """The scoring tables of the C loop: Weights (linear) or KernelModels (kernel)."""
        if self._weights is None:
            if self.learner.kind == "kernel":
                from maltpy.search.kernel import KernelModels   # BLAS through scipy: kernel models only
                left_out = [0 if k == self.default_split else len(self.compiled.split_templates)
                            for k in range(len(self.splits))]
                self._weights = KernelModels(self.splits, self.split_map, self.default_split,
                                             self.learner.kernel_function(), self.classes.n_classes, left_out)
            else:
                from maltpy.search.weights import Weights
                models = [(k, W, b) for k, W, b in self.splits]
                self._weights = Weights(models, self.split_map, self.default_split, self.classes.n_classes)
        return self._weights

    def search_model(self) -> SearchModel:
        """What a search strategy parses with: system, feature extractor, classes and scorer."""
        return SearchModel(self.system(training=False), self.extractor, self.classes, self.weights())

    def strategy(self):
        """The search strategy of the ``search`` setting (:mod:`maltpy.search`)."""
        return search_strategy(self.settings.search)

    def parse_arrays(self, sentences: Sequence[Sentence], progress: bool = False, record_end: bool = False,
                     record_moves: bool = False):
        """Parse and return (corpus offsets, heads, label ids[, end flags][, moves]) per corpus row, as
        the model reads the sentences (:meth:`parse_trees` reverses them for a right-to-left model and
        maps the trees back; here they are taken as given). ``record_moves``: also the move (an index
        into the system's ``moves``) that built each word's arc, -1 where the end of parsing did."""
        self.check_fitted()
        corpus = self.encode(sentences)
        self.check_input(corpus, lambda ci: list(dict.fromkeys(column_values(sentences, ci))))
        moves = np.empty(corpus.n_rows, dtype=np.int32) if record_moves else None
        bar = _progress_bar(len(sentences), "parsing", progress)
        try:
            out = self.strategy().parse(self.search_model(), corpus, progress=bar.update if bar else None,
                                        record_end=record_end, moves_out=moves,
                                        n_threads=threads(self.settings.jobs))
        finally:
            if bar:
                bar.close()
        return (corpus.offsets,) + tuple(out) + ((moves,) if record_moves else ())

    def check_input(self, corpus, examples) -> None:
        """The warnings about an encoded input (``examples(ci)``: a few values of column ci):
        tags never seen in training, and sentences too long for a quadratic system."""
        self.unseen_tags.check(corpus, examples)
        if not self.warned_long:
            self.warned_long = warn_long_sentences(corpus.offsets, self.system_cls, training=False)

    @property
    def decodes_output(self) -> bool:
        """Whether :meth:`parse_trees` rewrites the C loop's trees (pseudo-projective decoding);
        when it does not, the heads and label ids of :meth:`parse_arrays` are the output."""
        return self.pseudo_projective().active or self.settings.direction != "ltr"

    def one_root(self, output_format: Optional[str] = None) -> bool:
        """Whether output in this format (default: the model's) gets one word on the root (``-ro``;
        :mod:`maltpy.transform.single_root`)."""
        return wants_one_root(self.settings.roots, output_format or self.format)

    def parse_trees(self, sentences, progress: bool = False, one_root: Optional[bool] = None):
        """Parse sentences (a list of :class:`Sentence`, or a
        :class:`~maltpy.parsing.encode.ColumnBatch`) and return each one's tree as (heads, labels):
        two lists with one entry per word (head 0 = the root), pseudo-projective labels decoded,
        right-to-left parses mapped back, both directions combined for ``-dir both``, and one word
        on the root when ``one_root`` (default: :meth:`one_root` of the model's format)."""
        trees = self._parse_trees_one_way(sentences, progress)
        if self.settings.direction == "both":
            from maltpy.transform.combine import combine_trees
            c = self.combination
            other = self.reverse_parser._parse_trees_one_way(sentences, False)
            trees = [combine_trees(a, b, c["criterion"], c["param"], c["first"])[:2] for a, b in zip(trees, other)]
        if one_root if one_root is not None else self.one_root():
            trees = [single_root(h, l, self.settings.root_label) for h, l in trees]
        return trees

    def _parse_trees_one_way(self, sentences, progress: bool = False):
        if not len(sentences):
            return []
        offsets, heads, labels = self.parse_arrays(self._model_order(sentences), progress)
        names = self.output_labels
        pp = self.pseudo_projective()
        rtl = self.settings.direction == "rtl"
        out = []
        bounds = offsets.tolist()
        for r0, r1 in zip(bounds, bounds[1:]):
            h = heads[r0 + 1:r1].tolist()
            l = [names[x] for x in labels[r0 + 1:r1].tolist()]
            if pp.active:   # in the model's word order: the encoding was made there
                h, l = pp.deprojectivize([-1] + h, ["_"] + l)
                h, l = h[1:], l[1:]
            if rtl:
                h, l = reverse_tree(h, l)
            out.append((h, l))
        return out

    def parse(self, sentences, progress: bool = False, one_root: Optional[bool] = None):
        """Parse sentences (HEAD/DEPREL ignored); return copies with HEAD and DEPREL filled.

        A list (or tuple) gives a list. Any other iterable, such as :func:`maltpy.iter_conll`
        or a generator, gives an iterator that parses as it reads (see :meth:`iter_parse`).
        ``one_root``: see :meth:`parse_trees`."""
        if isinstance(sentences, (str, Sentence)):
            raise MaltpyError("parse takes a list of sentences (Sentence objects or lists of words); "
                              "for one text: parser.parse([text.split()])")
        if not isinstance(sentences, (list, tuple)):
            return self.iter_parse(sentences, progress=progress, one_root=one_root)
        self.check_fitted()
        sentences = [_as_sentence(s) for s in sentences]
        check_sentences(sentences, self.format, need_heads=False)
        return [sent._with_tree(h, l) for sent, (h, l) in zip(sentences, self.parse_trees(sentences, progress, one_root))]

    def iter_parse(self, sentences: Iterable, chunk_size: int = 1000, progress: bool = False,
                   one_root: Optional[bool] = None) -> Iterator[Sentence]:
        """Parse any iterable of sentences ``chunk_size`` at a time, yielding each parse in
        input order; memory stays that of one chunk however long the input is."""
        self.check_fitted()
        bar = _progress_bar(None, "parsing", progress)
        try:
            for chunk in chunked(sentences, chunk_size):
                yield from self.parse(chunk, one_root=one_root)
                if bar:
                    bar.update(len(chunk))
        finally:
            if bar:
                bar.close()

    def parse_file(self, source, target, input_format: Optional[str] = None,
                   output_format: Optional[str] = None, jobs: Optional[int] = None,
                   progress: bool = False):
        """Parse a CoNLL file (a path, or ``-`` for stdin) into ``target`` (a path, ``-`` for
        stdout); return (sentences, tokens).

        Reading, parsing and writing run chunk by chunk in compiled code on ``jobs`` threads
        (default: the ``jobs`` setting; 0 = all cores): memory stays flat, the output is the same
        bytes as :meth:`parse` and :func:`~maltpy.formats.conll.write_conll` give, a file appears
        only whole. ``input_format``: conllx or conllu (default: from the file name, else the
        model's); ``output_format``: conllx turns CoNLL-U input into CoNLL-X."""
        from maltpy.formats.conll import detect_format, iter_conll, to_conllx, write_conll
        from maltpy.output import open_output
        from maltpy.parsing.stream import parse_stream, unsupported
        self.check_fitted()
        fmt = input_format or (detect_format(source) if source not in ("-", None) else self.format)
        if self.reduction is not None:   # a constituent parser: bracketed trees out
            return self.reduction.parse_file(self, source, target, fmt, output_format, progress)
        if fmt == "ptb":
            raise MaltpyError(f"{source}: bracketed trees (.mrg) are parsed by a constituent parser; this model "
                              "parses CoNLL (train one on a .mrg file for constituents)")
        if fmt not in FORMATS or (output_format or fmt) not in FORMATS:
            raise MaltpyError(f"unknown format {input_format if fmt not in FORMATS else output_format!r}; "
                              f"use one of {', '.join(FORMATS)}")
        drop_extra = (output_format or fmt) == "conllx" and fmt == "conllu"
        jobs = self.settings.jobs if jobs is None else coerce("jobs", jobs, "parse_file")
        bar = _progress_bar(None, "parsing", progress, unit="tok")
        try:
            if unsupported(self) is None:
                with open_output(target, binary=True, stream=True) as out:
                    return parse_stream(self, source, out, fmt, drop_extra, jobs,
                                        progress=(lambda n_sent, n_tok: bar.update(n_tok)) if bar else None)
            counts = [0, 0]   # the Python path: a Split with a regular-expression separator

            def counted(parsed):
                for sentence in parsed:
                    counts[0] += 1
                    counts[1] += len(sentence)
                    if bar:
                        bar.update(len(sentence))
                    yield to_conllx(sentence) if drop_extra else sentence

            parsed = self.iter_parse(iter_conll(source, fmt), one_root=self.one_root(output_format or fmt))
            write_conll(counted(parsed), target)
            return counts[0], counts[1]
        finally:
            if bar:
                bar.close()

    # ------------------------------------------------------------------ files
    def save(self, path: str) -> None:
        """Write the trained parser to one model file (:mod:`maltpy.parsing.storage`)."""
        from maltpy.parsing.storage import save_parser
        save_parser(self, path)

    def model_bytes(self) -> bytes:
        """This parser's model file as bytes."""
        from maltpy.parsing.storage import parser_bytes
        return parser_bytes(self)

    @classmethod
    def load(cls, path: str, **overrides) -> "Parser":
        """Load a model file. ``overrides``: parse-time settings (e.g. ``enforce_tree=True``).

        Every header value and array is checked, so that a model either loads completely or is
        refused with :class:`~maltpy.errors.ModelFileError`; nothing damaged reaches the C loops
        (:mod:`maltpy.parsing.storage`)."""
        from maltpy.parsing.storage import load_parser
        return load_parser(cls, path, **overrides)


#: training on fewer sentences than this draws a warning
FEW_SENTENCES = 20


def _format_read(sentences) -> Optional[str]:
    """The format the sentences were read in when they agree on one (a CoNLL-U treebank trains a
    CoNLL-U model, whether given as a path or as read_conll's sentences)."""
    formats = {getattr(s, "format", None) for s in sentences} - {None}
    return formats.pop() if len(formats) == 1 else None


def _check_training_sentences(sentences, fmt: str) -> None:
    """Gold trees as the reader checks them (one validator, maltpy.formats.validate): the compiled
    loops trust every head to be a word of its sentence. Few of them draw a warning."""
    if not sentences:
        raise MaltpyError("no training sentences")
    check_sentences(sentences, fmt, need_heads=True, what="training sentence")
    if len(sentences) < FEW_SENTENCES:
        import warnings
        from maltpy.errors import MaltpyWarning
        warnings.warn(MaltpyWarning(
            f"training on {len(sentences)} sentence(s): the parser learns its decisions from the examples "
            f"these give, so it will parse poorly (treebanks have thousands of sentences; the example "
            f"treebank in examples/ has 160)"), stacklevel=4)


def log_nothing(msg: str) -> None:
    """The log of a model trained inside another's training (a cross-validation's)."""


def _as_sentence(s) -> Sentence:
    """A Sentence, or a list of words made into one; anything else is refused."""
    if isinstance(s, Sentence):
        return s
    if isinstance(s, str) or not hasattr(s, "__iter__"):
        raise MaltpyError(f"each sentence must be a Sentence or a list of words, not {type(s).__name__} "
                          f"{str(s)[:40]!r}")
    return Sentence.from_words(list(s))


def load(path: str, **overrides) -> Parser:
    """Load a trained parser from a model file: ``maltpy.load("en.mpz").parse(sentences)``."""
    return Parser.load(path, **overrides)
