"""Learning a model file of several components from one treebank: a tokenizer, a tagger and a parser."""
from __future__ import annotations


def train_pipeline(settings, sentences, fmt, log=None):
    """A tokenizer (``tokenizer``), a tagger (``tagger``) and a parser learned from gold
    ``sentences`` with ``settings`` (:class:`~maltpy.config.Settings`: ``tokenizer``,
    ``tokenizer_epochs``, ``tagger``, ``tagger_folds``, ``tagger_epochs``, ``tagger_ensemble``,
    ``tagger_fold_ensemble``, ``tagger_templates``,
    ``clusters`` and the parser's), as one :class:`~maltpy.components.Pipeline`: the parser learns from
    jackknifed tags (gold ones with ``tagger_folds`` 1); ``parser`` False: no parser."""
    clusters = read_clusters(settings)
    try:
        return _train_pipeline(settings, sentences, fmt, log, clusters)
    finally:
        if clusters is not None:
            clusters.release()     # the tables a training made of them: kept in the model, not here


def _train_pipeline(settings, sentences, fmt, log, clusters):
    from maltpy.components.parser import ParserComponent
    from maltpy.components.pipeline import Pipeline
    from maltpy.components.tagger import TaggerComponent
    from maltpy.config import threads
    from maltpy.formats.conll import blank_columns
    from maltpy.parsing.parser import Parser
    from maltpy.tagging.tagger import Tagger

    def make_tagger(jobs=1):
        return Tagger(settings.tagger, jobs=jobs, **tagger_options(settings, clusters))

    components = []
    if settings.tokenizer:
        from maltpy.components.tokenizer import TokenizerComponent
        from maltpy.tokenizing.tokenizer import Tokenizer
        components.append(TokenizerComponent(Tokenizer(epochs=settings.tokenizer_epochs).fit(sentences, log=log)))
    tagged = sentences
    if settings.tagger:
        make_tagger()   # a bad column list is said before anything trains
        jobs = threads(settings.jobs)
        if not settings.parser:     # a tagger alone: no parser to learn from jackknifed tags
            tagger = make_tagger(jobs).fit(sentences, log=log)
            return Pipeline(components + [TaggerComponent(tagger)])
        read = _read_columns(settings, fmt)
        blank = _untagged_reads(settings, read, make_tagger(), sentences)
        tagged = blank_columns(sentences, blank)
        if settings.tagger_folds > 1:
            learned = _jackknifed(settings, sentences, fmt, read, make_tagger, jobs, log, blank, clusters)
            if learned is not None:
                tagger, parser = learned
                return Pipeline(components + [TaggerComponent(tagger), ParserComponent(parser)])
            tagger = make_tagger(jobs).fit(sentences, log=log)     # the parser reads no tag
        else:   # the parser learns from gold tags: the one tagger gets every thread
            tagger = make_tagger(jobs).fit(sentences, log=log)
        components.append(TaggerComponent(tagger))
    if not settings.parser:     # a tokenizer alone (the callers refuse a pipeline of nothing)
        return Pipeline(components)
    parser = Parser(settings).fit(tagged, fmt=fmt, log=log)
    if settings.tagger:
        _note_tags(parser, 1)
    return Pipeline(components + [ParserComponent(parser)])


def read_clusters(settings):
    """The word clusters ``settings.clusters`` names (None without), read once for every tagger
    and parser a training makes (:meth:`WordClusters.shared`)."""
    if not settings.clusters:
        return None
    from maltpy.formats.clusters import WordClusters
    return WordClusters.shared(settings.clusters)


def tagger_options(settings, clusters=None) -> dict:
    """The :class:`~maltpy.tagging.tagger.Tagger` settings of ``settings`` but its columns and
    threads (``clusters``: :func:`read_clusters`' of them)."""
    return dict(templates=settings.tagger_templates, epochs=settings.tagger_epochs, retag=settings.retag,
                clusters=clusters, ensemble=settings.tagger_ensemble, ensemble_margin=settings.ensemble_margin)


def _read_columns(settings, fmt) -> set:
    """The CoNLL columns (indices) the parser that ``settings`` make reads."""
    from maltpy.parsing.assemble import assemble
    return {ci for ci, _, _ in assemble(settings, fmt).compiled.token_columns}


def _untagged_reads(settings, read, tagger, sentences, trees=False):
    """The CoNLL columns the parser reads that the tagger will not tag (``--tagger upos`` behind a
    parser that reads XPOS too), said in a warning: the parser learns without them, since they are
    _ when it parses untagged words (learned from gold ones, it read _ there and parsed badly).
    ``read``: the columns the parser reads (:func:`_read_columns`); ``trees``: ``sentences`` are
    the words of constituent trees, whose CoNLL-X POSTAG _ reads the tagged CPOSTAG."""
    import warnings
    from maltpy.errors import MaltpyWarning
    from maltpy.tagging.templates import TAG_COLUMNS
    rows = [r for s in sentences for r in s.rows]
    tagged = {TAG_COLUMNS[c] for g in tagger.groups_to_learn(rows) for c in g}
    if trees and sentences and (sentences[0].format or "conllx") == "conllx" and TAG_COLUMNS["upos"] in tagged:
        tagged.add(TAG_COLUMNS["xpos"])     # bracketed trees' words: POSTAG _ reads CPOSTAG, the same tag
    # a column the treebank leaves _ throughout is _ when parsing too: nothing is lost
    missing = sorted(ci for ci in set(TAG_COLUMNS.values()) & read
                     if ci not in tagged and any(r[ci] != "_" for r in rows))
    if missing:
        names = [c for c, ci in TAG_COLUMNS.items() if ci in missing]
        them = "it" if len(names) == 1 else "them"
        warnings.warn(f"the parser reads {', '.join(names)}, which --tagger {settings.tagger} does not tag: it learns "
                      f"without {them}, as it will parse untagged words (--tagger all tags every column the "
                      f"treebank has)", MaltpyWarning, stacklevel=2)
    return missing


def _note_tags(parser, folds, agreement=None, fold_taggers=1):
    """Keep in the parser's training figures (``maltpy info``) which tags it learned from: gold
    ones (``folds`` 1) or ``folds``-fold jackknifed ones, given by ensembles of ``fold_taggers``
    taggers, and how often those equal the gold tags (``agreement``: column -> percentage)."""
    from dataclasses import replace
    figures = {"tag_folds": folds, **({"tag_fold_ensemble": fold_taggers} if folds > 1 else {}),
               **{f"jackknifed_{c}": pct for c, pct in (agreement or {}).items()}}
    parser._set_model(replace(parser.model, train_stats={**parser.train_stats, **figures}))


def _jackknifed(settings, sentences, fmt, read, make_tagger, jobs, log, blank=(), clusters=None):
    """(the tagger learned from every sentence, the parser learned from jackknifed tags), or None
    when the parser reads no tag column (``read``: the columns it reads; ``blank``: those the
    tagger does not tag, _ in what it learns from). The fold taggers learn only the groups up to
    the last column the parser reads; they run first, on every thread, and then the full tagger
    learns beside the parser, which needs only the folds' tags."""
    import time
    from concurrent.futures import ThreadPoolExecutor
    from maltpy.formats.conll import blank_columns
    from maltpy.parsing.parser import Parser
    from maltpy.tagging.jackknife import agreement_figures, fold_groups, jackknife, tag_agreement
    from maltpy.tagging.tagger import Tagger
    from maltpy.tagging.templates import TAG_COLUMNS
    groups = fold_groups(make_tagger(), [c for c, ci in TAG_COLUMNS.items() if ci in read], sentences)
    if not groups:
        return None
    spec = ",".join("+".join(g) for g in groups)

    # an ensemble too unless asked: the parser learns from tags like those it will read
    fold_ensemble = settings.tagger_fold_ensemble or settings.tagger_ensemble

    def make_fold_tagger():
        return Tagger(spec, jobs=1, skip_empty=True, **{**tagger_options(settings, clusters), "ensemble": fold_ensemble})
    t0 = time.perf_counter()
    _, tagged = jackknife(sentences, make_tagger, settings.tagger_folds, jobs, None, make_fold_tagger,
                          with_full=False)
    agreement = agreement_figures(sentences, tagged, groups)
    if log is not None:
        log(f"jackknifed tags for the parser: {settings.tagger_folds} folds, {time.perf_counter() - t0:.1f} s; "
            f"{tag_agreement(agreement)}")
    tagged = blank_columns(tagged, blank)     # the columns the tagger does not tag: _ as when parsing
    with ThreadPoolExecutor(1) as pool:
        full = pool.submit(lambda: make_tagger(jobs - 1).fit(sentences)) if jobs > 1 else None
        parser = Parser(settings).fit(tagged, fmt=fmt, log=log)
        tagger = full.result() if full is not None else make_tagger(jobs).fit(sentences)
    _note_tags(parser, settings.tagger_folds, agreement, fold_ensemble)
    if log is not None:
        log(tagger.describe_training())
    return tagger, parser


def tree_pipeline(settings, fmt, trees, log=None):
    """A constituent parser learned from ``trees`` (bracketed, ``fmt`` "ptb", or discontinuous,
    "export"/"discbracket"), behind a tagger learned from the trees' words and tags when
    ``settings.tagger`` asks for one: a :class:`~maltpy.components.Pipeline` then (the tagger
    alone with ``settings.parser`` False), else the parser. The parser learns from the trees' own
    tags (jackknifing, ``tagger_folds``, is for dependency treebanks), without the columns it reads
    that the tagger does not tag."""
    if not settings.tagger:
        return _fit_tree_parser(settings, fmt, trees, log)
    from maltpy.components.parser import ParserComponent
    from maltpy.components.pipeline import Pipeline
    from maltpy.components.tagger import TaggerComponent
    from maltpy.config import threads
    from maltpy.tagging.tagger import Tagger
    # the trees encoded once: their words and tags teach the tagger, their encodings the parser
    if fmt == "ptb":
        from maltpy.parsing.constituent import Reduction
        encoding = Reduction.from_settings(settings).encode_trees(trees)
        sentences = encoding[0]
    else:
        from maltpy.parsing.discontinuous import DiscontinuousReduction
        sentences = encoding = DiscontinuousReduction.from_settings(settings).encode(trees)
    clusters = read_clusters(settings)
    try:
        tagger = Tagger(settings.tagger, jobs=threads(settings.jobs), **tagger_options(settings, clusters))
        blank = ()
        if settings.parser and sentences:
            read = _read_columns(settings, sentences[0].format or "conllx")
            blank = _untagged_reads(settings, read, tagger, sentences, trees=True)
        tagger.fit(sentences, log=log)
        if not settings.parser:
            return Pipeline([TaggerComponent(tagger)])
        parser = _fit_tree_parser(settings, fmt, trees, log, blank, encoding)
        return Pipeline([TaggerComponent(tagger), ParserComponent(parser)])
    finally:
        if clusters is not None:
            clusters.release()


def _fit_tree_parser(settings, fmt, trees, log, blank=(), encoding=None):
    """The constituent parser of ``trees``: bracketed (``fmt`` "ptb") or discontinuous."""
    from maltpy.parsing.parser import Parser
    if fmt == "ptb":
        from maltpy.parsing.constituent import fit_constituent_parser
        return fit_constituent_parser(Parser(settings), trees, log, blank, encoding)
    from maltpy.parsing.discontinuous import fit_discontinuous_parser
    return fit_discontinuous_parser(Parser(settings), trees, log, blank, encoding)
