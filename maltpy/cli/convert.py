"""``maltpy -m convert``: CoNLL-U to CoNLL-X, and bracketed trees to their dependency encoding and back."""
from __future__ import annotations


from maltpy.cli.common import _detect, _in_output_charset, _input


class _Counted:
    """An iterable's items, counted as they pass (for the log line of a conversion that streams),
    on a progress bar in a terminal (``bar``, from :func:`~maltpy.progress.progress_bar`)."""

    def __init__(self, items, bar=None):
        self.items, self.n, self.bar = items, 0, bar

    def __iter__(self):
        for item in self.items:
            self.n += 1
            if self.bar and not self.n % 256:
                self.bar.update(256)
            yield item


def run_convert(settings, log):
    """-m convert, reading -i in -ic's encoding and writing -o in -oc's (the input's by default),
    as -m parse does; a bar counts what is converted in a terminal."""
    from maltpy.progress import progress_bar
    bar = progress_bar(None, "converting", settings.verbose)
    try:
        return _in_output_charset(settings, lambda target: _convert(settings, log, _input(settings), target, bar))
    finally:
        if bar:
            bar.close()


def _convert(settings, log, source, target, bar=None):
    """-m convert from ``source`` (what the readers read) to ``target`` (UTF-8); the formats from
    -if/-of or the file names."""
    from maltpy.acyclic import acyclic
    from maltpy.formats.conll import iter_conll, to_conllx, write_conll
    from maltpy.formats.export import DISCONTINUOUS_FORMATS
    from maltpy.formats.plain import PLAIN_FORMATS, iter_sentences, words_out
    fmt = _detect(settings.input, settings.input_format) or "conllu"
    named = _detect(settings.output, None)
    out_fmt = settings.output_format or (named if named in ("ptb",) + DISCONTINUOUS_FORMATS else "conllx")
    if out_fmt in PLAIN_FORMATS:    # the words of what converting to CoNLL-U gives
        import dataclasses
        as_conllu = dataclasses.replace(settings, output_format="conllu")
        return words_out(lambda conll: _convert(as_conllu, log, source, conll, bar), target, out_fmt)
    if fmt in DISCONTINUOUS_FORMATS or out_fmt in DISCONTINUOUS_FORMATS:
        return _convert_discontinuous(settings, log, fmt, out_fmt, source, target, bar)
    if fmt == "ptb" or out_fmt == "ptb":
        return _convert_constituents(settings, log, fmt, out_fmt, source, target, bar)
    sentences = _Counted(iter_sentences(source, fmt), bar)   # a sentence at a time: flat memory
    with acyclic():
        write_conll((to_conllx(s) if out_fmt == "conllx" else s for s in sentences), target)
    log(f"converted {sentences.n} sentences from {fmt} to {out_fmt}")


def _convert_constituents(settings, log, fmt, out_fmt, source, target, bar=None):
    """-m convert between bracketed trees and their head-ordered dependency encoding, a thousand
    trees at a time as the input is read (flat memory)."""
    from maltpy.acyclic import acyclic
    from maltpy.chunks import chunked
    from maltpy.formats.conll import iter_conll, write_conll
    from maltpy.formats.ptb import iter_ptb, write_ptb
    from maltpy.parsing.constituent import convert_conll_to_trees, convert_trees_to_conll
    from maltpy.transform.headrules import HeadRules
    with acyclic():
        if fmt == "ptb" and out_fmt == "ptb":
            trees = _Counted(iter_ptb(source), bar)
            write_ptb(trees, target)
            log(f"cleaned {trees.n} trees (-NONE- elements and function tags removed)")
        elif fmt == "ptb":
            rules = HeadRules.load(settings.head_rules)
            trees = _Counted(iter_ptb(source), bar)
            write_conll((s for part in chunked(trees, 1000)
                         for s in convert_trees_to_conll(part, rules, settings.constituent_encoding)), target)
            log(f"encoded {trees.n} trees as dependency trees ({settings.constituent_encoding} encoding, "
                f"{settings.head_rules} head rules; unary chains in the last column)")
        else:
            sentences = _Counted(iter_conll(source, fmt, need_heads=True), bar)
            write_ptb((t for part in chunked(sentences, 1000)
                       for t in convert_conll_to_trees(part, settings.constituent_encoding)), target)
            log(f"decoded {sentences.n} dependency trees into bracketed trees ({settings.constituent_encoding} "
                "encoding)")


def _convert_discontinuous(settings, log, fmt, out_fmt, source, target, bar=None):
    """-m convert between export and discbracket (discontinuous constituent trees) and their
    encoded dependency trees, a piece of the input at a time (flat memory)."""
    from maltpy.acyclic import acyclic
    from maltpy.chunks import chunked
    from maltpy.errors import MaltpyError
    from maltpy.formats.conll import iter_conll, write_conll
    from maltpy.formats.export import (DISCONTINUOUS_FORMATS, ExportFile, format_discbracket, format_export,
                                       from_conll, iter_tree_pieces, to_conll)
    from maltpy.output import open_output
    if fmt in DISCONTINUOUS_FORMATS and out_fmt in ("conllu", "conllx"):
        # head rules: -hr alpino, negra or a file; the default (collins, for bracketed trees) leaves the
        # export file's own hd/HD edges and the first phrasal child
        rules = None
        if settings.head_rules != "collins":
            from maltpy.transform.headrules import HeadRules
            rules = HeadRules.load(settings.head_rules)
        trees = _Counted((s for doc in iter_tree_pieces(source, fmt) for s in doc.sentences), bar)
        with acyclic():
            write_conll((to_conll(s, rules) for s in trees), target)
        log(f"encoded {trees.n} trees as head-ordered dependency trees (CoNLL-U; # sent_id keeps "
            "each #BOS key)")
        return
    from maltpy.formats.conll import input_name
    name = input_name(source)
    write = (lambda doc: format_export(doc, name)) if out_fmt == "export" else format_discbracket
    if fmt in ("conllu", "conllx") and out_fmt in DISCONTINUOUS_FORMATS:
        sentences = _Counted(iter_conll(source, fmt, need_heads=True), bar)
        with acyclic(), open_output(target) as f:
            for part in chunked(enumerate(sentences, 1), 1000):      # k: the key of a sentence without # sent_id
                f.write(write(ExportFile([from_conll(s, k) for k, s in part])))
        log(f"decoded {sentences.n} head-ordered dependency trees into {out_fmt} trees")
        return
    if fmt not in DISCONTINUOUS_FORMATS or out_fmt not in DISCONTINUOUS_FORMATS:
        raise MaltpyError(f"-m convert turns export and discbracket into each other and into their encoded "
                          f"dependency trees (conllu); {fmt} to {out_fmt} is not one of those")
    n_trees = 0
    with acyclic(), open_output(target) as f:
        for doc in iter_tree_pieces(source, fmt):
            if not settings.secondary_edges:      # --secondary-edges false: the primary tree alone
                from dataclasses import replace
                doc = replace(doc, sentences=[replace(s, tokens=[replace(t, secedges=()) for t in s.tokens],
                                                      nodes=[replace(n, secedges=()) for n in s.nodes])
                                             for s in doc.sentences])
            n_trees += len(doc.sentences)
            if bar:
                bar.update(len(doc.sentences))
            if doc.sentences or doc.preamble:
                f.write(write(doc))
    log(f"converted {n_trees} trees from {fmt} to {out_fmt}"
        + (" (words, tags and labelled constituents; lemmas, morphology, edge labels and secondary edges are "
           "export's alone)" if out_fmt == "discbracket" and fmt == "export" else ""))
