"""Learning a model file of several components from one treebank: a tokenizer, a tagger and a parser."""
from __future__ import annotations


def train_pipeline(settings, sentences, fmt, log=None):
    """A tokenizer (``tokenizer``), a tagger (``tagger``) and a parser learned from gold
    ``sentences`` with ``settings`` (:class:`~maltpy.config.Settings`: ``tokenizer``,
    ``tokenizer_epochs``, ``tagger``, ``tagger_folds``, ``tagger_epochs``, ``tagger_templates``
    and the parser's), as one :class:`~maltpy.components.Pipeline`: the parser learns from
    jackknifed tags (gold ones with ``tagger_folds`` 1)."""
    from maltpy.components.parser import ParserComponent
    from maltpy.components.pipeline import Pipeline
    from maltpy.components.tagger import TaggerComponent
    from maltpy.config import threads
    from maltpy.parsing.parser import Parser
    from maltpy.tagging.jackknife import jackknife
    from maltpy.tagging.tagger import Tagger

    def make_tagger(jobs=1):
        return Tagger(settings.tagger, templates=settings.tagger_templates, epochs=settings.tagger_epochs,
                      retag=settings.retag, jobs=jobs)

    components = []
    if settings.tokenizer:
        from maltpy.components.tokenizer import TokenizerComponent
        from maltpy.tokenizing.tokenizer import Tokenizer
        components.append(TokenizerComponent(Tokenizer(epochs=settings.tokenizer_epochs).fit(sentences, log=log)))
    tagged = sentences
    if settings.tagger:
        make_tagger()   # a bad column list is said before anything trains
        jobs = threads(settings.jobs)
        if settings.tagger_folds > 1:
            # fold taggers tag only what the parser will read (and the groups those read)
            from maltpy.parsing.assemble import assemble
            from maltpy.tagging.jackknife import fold_groups
            from maltpy.tagging.templates import TAG_COLUMNS
            read = {ci for ci, _, _ in assemble(settings, fmt).compiled.token_columns}
            probe = make_tagger()
            groups = fold_groups(probe.groups, [c for c, ci in TAG_COLUMNS.items() if ci in read], sentences,
                                 probe.every_column)
            spec = ",".join("+".join(g) for g in groups)

            def make_fold_tagger():
                return Tagger(spec, templates=settings.tagger_templates, epochs=settings.tagger_epochs,
                              retag=settings.retag, jobs=1)
            if groups:
                # the folds first, on every thread; then the full tagger beside the parser, which
                # needs only the folds' tags
                _, tagged = jackknife(sentences, make_tagger, settings.tagger_folds, jobs, log,
                                      make_fold_tagger, full=False)
                from concurrent.futures import ThreadPoolExecutor
                with ThreadPoolExecutor(1) as pool:
                    full = pool.submit(lambda: make_tagger(max(1, jobs - 1)).fit(sentences)) if jobs > 1 else None
                    parser = Parser(settings).fit(tagged, fmt=fmt, log=log)
                    tagger = full.result() if full is not None else make_tagger(jobs).fit(sentences)
                if log is not None:
                    log(tagger.describe_training())
                components.append(TaggerComponent(tagger))
                return Pipeline(components + [ParserComponent(parser)])
            # the parser reads no tag: nothing to jackknife
            tagger = make_tagger(jobs).fit(sentences, log=log)
        else:   # the parser learns from gold tags: the one tagger gets every thread
            tagger = make_tagger(jobs).fit(sentences, log=log)
        components.append(TaggerComponent(tagger))
    parser = Parser(settings).fit(tagged, fmt=fmt, log=log)
    return Pipeline(components + [ParserComponent(parser)])
