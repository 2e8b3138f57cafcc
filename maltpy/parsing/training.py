"""How a :class:`~maltpy.parsing.parser.Parser` is trained: the model's view of the gold trees,
the static oracle's instances and the learner's split models, online training with a dynamic
oracle, and ``-dir both``'s two parsers with their cross-validated combination."""
from __future__ import annotations

import threading
import time
from dataclasses import replace
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple, Optional

import numpy as np

from maltpy.config import threads
from maltpy.errors import MaltpyError
from maltpy.formats.validate import check_sentences
from maltpy.features.extract import KEY_TEMPLATE_SHIFT
from maltpy.features.featmap import FEATMAP_START, FeatMap
from maltpy.learners import make_learner, request_stop
from maltpy.parsing.encode import ClusterTable, SymbolTable, check_sentence_lengths, gold_arrays
from maltpy.parsing.base import ParserBase
from maltpy.parsing.model import ParserModel, Parts
from maltpy.parsing.models import LinearSplit, models_of
from maltpy.chunks import folds as cv_folds
from maltpy.progress import progress_bar
from maltpy.search import SearchModel, trains_globally
from maltpy.systems.classes import ClassTable
from maltpy.search.step import Scoring
from maltpy.systems import SYSTEMS
from maltpy.transform.reverse import one_way


def training_tables(parser) -> list:
    """Empty symbol tables for the feature model's token columns (they grow as training encodes),
    and for its cluster columns the tables of ``--clusters``' file."""
    columns = parser.compiled.token_columns
    if not any(transform == "cluster" for _, transform, _ in columns):
        if parser.settings.clusters and not parser.settings.tagger:
            import warnings
            from maltpy.errors import MaltpyWarning
            warnings.warn(f"--clusters: the feature model {parser.feature_model.name} reads no word clusters, so the "
                          "parser does not use them (-F NivreEagerMorphClusters does; a tagger, --tagger, reads them "
                          "too)", MaltpyWarning, stacklevel=2)
        return [SymbolTable() for _ in columns]
    if not parser.settings.clusters:
        raise MaltpyError(f"the feature model {parser.feature_model.name} reads word clusters (Cluster): give the "
                          "clusters file with --clusters FILE (brown-cluster's paths file)")
    from maltpy.formats.clusters import WordClusters
    clusters = WordClusters.shared(parser.settings.clusters)
    return [ClusterTable.from_clusters(clusters, length) if transform == "cluster" else SymbolTable()
            for _, transform, length in columns]


def prepare(parser, sentences, fmt: str):
    """Set the parser up for training on gold ``sentences`` (checked): feature model, labels,
    symbol tables and classes. Returns (corpus, gold heads, gold label ids, training system)."""
    parser._setup(fmt)
    view = parser.view
    sentences = view.encode_gold(sentences, fmt == "conllu")
    root_label = parser.settings.root_label
    labels = sorted({r[7] for sent in sentences for r in sent.rows if r[6] != "_"} | {root_label})
    heads, label_ids = gold_arrays(sentences, {l: k for k, l in enumerate(labels)})
    labels, label_ids = view.encode_labels(heads, label_ids, labels, root_label)
    # the model training encodes with: labels and symbol tables (which grow as the data is encoded)
    parser._set_model(ParserModel(labels=list(labels), deprel_values=view.feature_values(labels),
                                  token_tables=training_tables(parser),
                                  multi_tables=[SymbolTable() for _ in parser.compiled.multi_columns]))
    corpus = parser.encode(sentences, grow=True)
    check_sentence_lengths(corpus.offsets, parser.system_cls, training=True, beam_width=parser.settings.beam_width,
                        where=lambda k: f"{sentences[k].source}:{sentences[k].first_line}")
    system = parser.system(training=True)
    parser._set_model(replace(parser.model, classes=ClassTable(system.labeled, len(labels)),
                              train_stats={"sentences": len(sentences), "tokens": int(corpus.n_rows - len(sentences))}))
    return corpus, heads, label_ids, system


def training_instances(parser, sentences, fmt: str, log):
    """The static oracle's instances: ``(X, y, split_values, feature_keys)`` (see
    :meth:`Parser.training_instances`)."""
    from maltpy.search.oracle import collect_instances
    t0 = time.perf_counter()
    corpus, heads, label_ids, system = prepare(parser, sentences, fmt)
    fmap = FeatMap(FEATMAP_START)
    bar = progress_bar(len(sentences), "instances", parser.settings.verbose)
    try:
        step = SearchModel(system, parser.extractor, parser.classes, None).step(corpus.max_n)
        inst = collect_instances(step, fmap, corpus, heads, label_ids, progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    n_inst = len(inst["y"])
    parser._set_model(replace(parser.model, train_stats={**parser.train_stats, "instances": n_inst,
                                                         "features": len(fmap),
                                                         "oracle_errors": int(inst["oracle_errors"])}))
    log(f"{n_inst} instances, {len(fmap)} features, {parser.classes.n_classes} classes "
        f"({time.perf_counter() - t0:.1f} s)")
    if inst["oracle_errors"]:
        log(f"note: the {parser.settings.algorithm} oracle could not reproduce {inst['oracle_errors']} of "
            f"{len(sentences)} training trees (non-projective trees need a non-projective "
            "algorithm or pseudo-projective parsing)")
    import scipy.sparse as sp   # here, not at the top: parsing never needs scipy
    # int8 ones: the solvers read the pattern (scikit-learn's convert), an eighth of float64's bytes
    X = sp.csr_matrix((np.ones(len(inst["indices"]), dtype=np.int8), inst["indices"], inst["indptr"]),
                      shape=(n_inst, len(fmap)))
    return X, inst["y"], inst["split"], fmap.keys_in_order()


class Trained(NamedTuple):
    """What training produced: the parts the settings built for the data's format, and the
    model learned with them."""
    parts: Parts
    model: ParserModel


def fit(settings, sentences, fmt: str = "conllx", log=None, parser_type=ParserBase) -> Trained:
    """Train on checked gold sentences the way ``settings`` say; return what training produced
    (:meth:`Parser.fit <maltpy.parsing.parser.Parser.fit>` takes it). The settings are not changed.
    ``parser_type``: the class of training's workbench; ``-dir both`` parses its cross-validation
    folds with it, so it needs :class:`~maltpy.parsing.parser.Parser` (which passes itself)."""
    from maltpy.transform.reverse import both_ways
    if both_ways(settings) and not hasattr(parser_type, "parse_trees"):
        raise MaltpyError("-dir both parses its cross-validation folds while it learns: train with Parser.fit")
    bench = parser_type(settings)
    _fit_into(bench, sentences, fmt, log or log_nothing)
    return Trained(bench.parts, bench.model)


def _fit_into(parser, sentences, fmt: str, log):
    """Train ``parser`` (training's own workbench) on checked gold sentences."""
    from maltpy.transform.reverse import both_ways
    s = parser.settings
    if both_ways(s):
        return fit_both(parser, sentences, fmt, log)
    learner = make_learner(s.learner, s.learner_options)    # the one learner of this training
    if trains_globally(s) and learner.online:
        return fit_global(parser, sentences, fmt, log, learner)
    if s.oracle == "dynamic":
        return fit_online(parser, sentences, fmt, log, learner)
    return fit_static(parser, sentences, fmt, log, learner)


def fit_static(parser, sentences, fmt: str, log, learner):
    """The static oracle's instances, one model per data-split value, trained by ``learner``."""
    s = parser.settings
    t0 = time.perf_counter()
    models = models_of(learner)
    # importing scikit-learn takes seconds; do it while the C loop collects instances without the GIL
    warm_up = threading.Thread(target=learner.import_estimator, daemon=True)
    warm_up.start()
    X, y, split_values, all_keys = training_instances(parser, sentences, fmt, log)
    warm_up.join()
    n_inst = len(y)
    groups, split_map, default_split = split_groups(s.split_threshold, parser.compiled.split_atom, split_values)
    C = parser.classes.n_classes
    largest = max(n_inst if g is None else len(g) for g in groups)
    if not models.side_by_side and largest > 100_000:
        # kernel SVM training grows faster than linearly with the instances of one model
        log(f"note: one {s.learner} model gets {largest} instances, which can take hours; "
            "a data split keeps the models small (e.g. -d POSTAG -s Input[0] -T 1000)")
    # MaltParser's split models leave out the split feature itself (FeatureModel's divide
    # feature vectors); the default model keeps it
    template_of_key = (all_keys.astype(np.uint64) >> np.uint64(KEY_TEMPLATE_SHIFT)).astype(np.int64)
    split_feature_column = np.isin(template_of_key, parser.compiled.split_templates)

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
        if learner.min_count > 1:    # the frequency cut-off: rarer feature values get no weights
            frequent = np.flatnonzero(np.bincount(Xs.indices, minlength=Xs.shape[1]) >= learner.min_count)
            Xs, cols = Xs[:, frequent].tocsr(), cols[frequent]
            Xs.sort_indices()
        report = pass_bar is not None or (learner.logs_passes and len(groups) == 1)
        return models.train(learner, Xs, ys, C, all_keys[cols], progress=on_pass if report else None)

    jobs = threads(s.jobs)
    # one model (no split): follow the solver's passes instead of a one-step bar
    pass_bar = (progress_bar(None, "training", s.verbose, unit="pass")
                if len(groups) == 1 and learner.reports_passes else None)

    def on_pass(n_passes, value):
        note = learner.pass_note(n_passes, value)
        if pass_bar is not None:
            pass_bar.update(1)
            pass_bar.set_postfix_str(note, refresh=False)
        if learner.logs_passes:
            log(note)

    bar = None if pass_bar is not None else progress_bar(len(groups), "training", s.verbose, unit="model")
    t1 = time.perf_counter()
    results = [None] * len(groups)
    # largest groups first so the pool finishes together; liblinear releases the GIL
    order = sorted(range(len(groups)), key=lambda g: -(n_inst if groups[g] is None else len(groups[g])))
    request_stop(False)
    workers = max(1, min(jobs, len(groups))) if models.side_by_side else 1
    if learner.threaded:   # the threads the models leave free go to their solvers
        learner.n_threads = max(1, jobs // workers)
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = {pool.submit(train, groups[g], g != default_split): g for g in order}
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
    log(f"trained {len(groups)} model(s) with {s.learner} {learner.options_string()} "
        f"in {time.perf_counter() - t1:.1f} s")
    parser._set_model(replace(parser.model, splits=results, split_map=split_map, default_split=default_split,
                              learner=learner, train_stats={**parser.train_stats,
                                                            "seconds": time.perf_counter() - t0}))
    return parser


def fit_online(parser, sentences, fmt: str, log, learner):
    """-or dynamic: the perceptron trained inside the transition loop with the dynamic oracle,
    exploring its own errors (:mod:`maltpy.search.online`)."""
    from maltpy.search.online import train_online
    s = parser.settings
    if not learner.online:
        raise MaltpyError(f"the dynamic oracle (-or dynamic) trains online: use -l perceptron, not -l {s.learner}")
    if s.split_column or s.split_structure:
        raise MaltpyError("the dynamic oracle trains one model: leave out the data split (-d/-s)")
    t0 = time.perf_counter()
    annotated = [x for x in sentences if any(r[6] != "_" for r in x.rows)]
    if len(annotated) < len(sentences):
        log(f"{len(sentences) - len(annotated)} of {len(sentences)} training sentences have no head given: skipped")
        if not annotated:
            raise MaltpyError("no training sentence gives a head (HEAD is _ everywhere)")
    if any(r[6] == "_" for x in annotated for r in x.rows):
        from maltpy.transform.pseudoproj import PseudoProjective
        if PseudoProjective.from_settings(s) is not None:
            raise MaltpyError("pseudo-projective parsing (-pp) needs complete trees; partial trees train without it")
    sentences = annotated
    corpus, heads, label_ids, system = prepare(parser, sentences, fmt)
    if not system.has_costs:
        with_costs = [name for name, cls in SYSTEMS.items() if cls(1, 0).has_costs]
        raise MaltpyError(f"{system.no_costs_reason}; use -or static (dynamic oracles, with their default "
                          f"options: {', '.join(with_costs)})")
    t1 = time.perf_counter()
    fmap, step = trainable_step(parser, learner, system, corpus, heads, label_ids, log)
    keep_trained(parser, learner, fmap, train_online(
        step, corpus, heads, label_ids, learner.epochs, learner.seed, dynamic=True,
        explore_after=learner.explore_after, explore_p=learner.explore_p,
        progress=lambda epoch, accuracy, seconds: log(learner.pass_note(epoch, 1.0 - accuracy) + f", {seconds:.1f} s")),
        t0)
    log(f"trained with perceptron {learner.options_string()} and the dynamic oracle in "
        f"{time.perf_counter() - t1:.1f} s ({len(fmap)} features, {parser.classes.n_classes} classes)")
    return parser


def fit_global(parser, sentences, fmt: str, log, learner):
    """-l perceptron -b B: a structured perceptron over whole transition sequences with a beam of
    B, the static oracle's sequence as gold, or with -or dynamic the model's best among the moves
    the dynamic oracle says lose no gold arc (:func:`maltpy.search.beam.train_global`)."""
    from maltpy.search.beam import train_global
    s = parser.settings
    if s.oracle == "dynamic" and any(r[6] == "_" for x in sentences for r in x.rows):
        raise MaltpyError("global training (-b > 1) needs complete trees: a word without a head (HEAD _) "
                          "trains with the greedy dynamic oracle (-b 1) only")
    if s.split_column or s.split_structure:
        raise MaltpyError("global training trains one model: leave out the data split (-d/-s)")
    t0 = time.perf_counter()
    corpus, heads, label_ids, system = prepare(parser, sentences, fmt)
    if s.oracle == "dynamic" and not system.has_costs:
        with_costs = [name for name, cls in SYSTEMS.items() if cls(1, 0).has_costs]
        raise MaltpyError(f"{system.no_costs_reason}; use -or static (dynamic oracles, with their default "
                          f"options: {', '.join(with_costs)})")
    fmap, step = trainable_step(parser, learner, system, corpus, heads, label_ids, log)
    t1 = time.perf_counter()
    keep_trained(parser, learner, fmap, train_global(
        step, corpus, heads, label_ids, learner.epochs, learner.seed, s.beam_width,
        max_violation=learner.update == "max", batch=learner.batch, n_threads=threads(s.jobs),
        dynamic_gold=s.oracle == "dynamic",
        progress=lambda epoch, clean, seconds, updates: log(
            f"epoch {epoch}/{learner.epochs}: {100 * clean:.2f}% of the sentences without an update "
            f"({updates} updates), {seconds:.1f} s")), t0, trained_globally=True)
    log(f"trained with perceptron {learner.options_string()} globally, beam {s.beam_width}"
        f"{', gold from the dynamic oracle' if s.oracle == 'dynamic' else ''}, in "
        f"{time.perf_counter() - t1:.1f} s ({len(fmap)} features, {parser.classes.n_classes} classes)")
    return parser


def trainable_step(parser, learner, system, corpus, heads, label_ids, log):
    """The feature map and the decision step over fresh trainable weights for an online learner
    (its frequency cut-off counted on the gold trees' oracle walk first)."""
    from maltpy.search.trainable import TrainableWeights
    fmap = FeatMap(FEATMAP_START)
    if learner.min_count > 1:
        fmap = frequent_features(parser, system, corpus, heads, label_ids, learner.min_count, log)
    scorer = TrainableWeights(fmap, parser.classes.n_classes, parser.extractor.max_keys, grow=learner.min_count <= 1)
    # weights that change as they are walked keep no sums: every decision scored whole
    return fmap, SearchModel(system, parser.extractor, parser.classes, scorer).step(corpus.max_n, Scoring.FRESH)


def keep_trained(parser, learner, fmap, trained, t0: float, trained_globally: bool = False) -> None:
    """The averaged weights an online trainer returned, as the parser's one model."""
    rows, W, bias = trained
    parser._set_model(replace(parser.model, splits=[LinearSplit(fmap.keys_in_order()[rows], W, bias)],
                              split_map=np.zeros(1, dtype=np.int32), default_split=0, learner=learner,
                              trained_globally=trained_globally,
                              train_stats={**parser.train_stats, "features": len(fmap),
                                           "seconds": time.perf_counter() - t0}))


def frequent_features(parser, system, corpus, heads, label_ids, min_count: int, log) -> FeatMap:
    """The feature keys that occur in at least ``min_count`` of the static oracle's decisions on
    the gold trees, as a feature map (ids in order of first occurrence)."""
    from maltpy.search.oracle import collect_instances
    seen = FeatMap(FEATMAP_START)
    step = SearchModel(system, parser.extractor, parser.classes, None).step(corpus.max_n)
    inst = collect_instances(step, seen, corpus, heads, label_ids)
    counts = np.bincount(inst["indices"], minlength=len(seen))
    keys = seen.keys_in_order()[counts >= min_count]
    log(f"frequency cut-off -f {min_count}: {len(keys)} of {len(seen)} feature values get weights")
    return FeatMap.from_keys(keys)


def _one_way(parser, direction: str):
    """An untrained parser with these settings, reading in one direction."""
    from maltpy.config import make_settings
    return type(parser)(make_settings(**one_way(parser.settings, direction)))


def log_nothing(msg: str) -> None:
    """The log of a model trained inside another's training (a cross-validation's)."""


def fit_both(parser, sentences, fmt: str, log):
    """-dir both: a parser each way on all the data, and the combination (criterion, which
    parser is first, parameter) that scores best over a cross-validation on the training
    data, as the paper tuned it: in each fold, both parsers trained on the other folds parse
    it, and every combination is scored on it."""
    from maltpy.transform.combine import choose_combination
    s = parser.settings
    folds = s.combination_folds
    if folds < 2 or folds > len(sentences):
        raise MaltpyError(f"combination_folds (-cv) {folds}: use 2 to {len(sentences)} (the training sentences)")
    t0 = time.perf_counter()
    held_out = []
    for k, (train, part) in enumerate(cv_folds(sentences, folds)):
        trees = [_one_way(parser, d)._fit(train, fmt, log_nothing).parse_trees(part) for d in ("ltr", "rtl")]
        held_out.append((part, trees[0], trees[1]))
        log(f"combination cross-validation: fold {k + 1}/{folds} parsed ({time.perf_counter() - t0:.0f} s)")
    c = choose_combination(held_out)
    log(f"combination: {c['criterion']} <= {c['param']}, {c['first']} first: cross-validated LAS "
        f"{c['las']:.2f} (left to right alone {c['las_ltr']:.2f}, right to left {c['las_rtl']:.2f})")
    ltr = _one_way(parser, "ltr")._fit(sentences, fmt, log)
    rtl = _one_way(parser, "rtl")._fit(sentences, fmt, log)
    # this parser is the left-to-right one, with the settings it was given and the other beside it
    parser._adopt(ltr, combination=c, reverse_parser=rtl,
                  train_stats={**ltr.train_stats, "combination_seconds": time.perf_counter() - t0})
    return parser


def split_groups(threshold: int, split_atom: int, split_values):
    """Instance rows per split model (MaltParser's -d/-s/-T; None = all instances), the map from
    split value to model, and the default model."""
    if split_atom < 0:
        return [None], np.zeros(1, dtype=np.int32), 0
    values, counts = np.unique(split_values, return_counts=True)
    # as MaltParser's FeatureDivideModel: a value with at most -T instances goes to the default
    # model, and the default model's instances come value by value (ascending symbol codes,
    # a TreeMap), each value's in training order
    big = values[counts > threshold]
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


#: training on fewer sentences than this draws a warning
FEW_SENTENCES = 20


def format_read(sentences) -> Optional[str]:
    """The format the sentences were read in when they agree on one (a CoNLL-U treebank trains a
    CoNLL-U model, whether given as a path or as read_conll's sentences)."""
    formats = {getattr(s, "format", None) for s in sentences} - {None}
    return formats.pop() if len(formats) == 1 else None


def takes_partial_trees(settings) -> bool:
    """Whether training with these settings takes partial trees (HEAD ``_`` where a head is
    unknown): a learner that trains online, with the dynamic oracle."""
    return settings.oracle == "dynamic" and make_learner(settings.learner, settings.learner_options).online


def check_training_sentences(sentences, fmt: str, partial: bool = False) -> None:
    """Gold trees as the reader checks them (one validator, maltpy.formats.validate): the compiled
    loops trust every head to be a word of its sentence. ``partial``: words may lack a head.
    Few sentences draw a warning."""
    if not sentences:
        raise MaltpyError("no training sentences")
    check_sentences(sentences, fmt, need_heads="partial" if partial else True, what="training sentence")
    if len(sentences) < FEW_SENTENCES:
        import warnings
        from maltpy.errors import MaltpyWarning
        warnings.warn(MaltpyWarning(
            f"training on {len(sentences)} sentence(s): the parser learns its decisions from the examples "
            f"these give, so it will parse poorly (treebanks have thousands of sentences; the example "
            f"treebank in examples/ has 160)"), stacklevel=4)
