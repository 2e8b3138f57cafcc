"""Constituent parsing with a dependency parser (parsing as reduction, Fernández-González &
Martins 2015): training trees are encoded as head-ordered dependency trees
(:mod:`maltpy.transform.constituents`), any maltpy dependency parser learns them, and its
parses are decoded back into bracketed trees, with unary chains predicted by
:class:`~maltpy.transform.unary.UnaryClassifier`.

    maltpy -c ptb.yaml -m learn -i train.mrg                 # a .mrg file trains a constituent parser
    maltpy -c ptb.yaml -m parse -i tagged.conll -o out.mrg   # POS-tagged words in, trees out
"""
from __future__ import annotations

import time
from typing import Iterable, List, Optional, Sequence, Tuple

from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.conll import Sentence
from maltpy.formats.ptb import PtbTree, Tree
from maltpy.transform.constituents import (
    ENCODINGS, decode, encode, format_unaries, insert_unaries, node_chains, parse_unaries,
)
from maltpy.transform.headrules import HeadRules
from maltpy.transform.unary import UnaryClassifier

#: the unary classifier's learner options, per parser learner (tuned on a split of the PTB
#: sample's training part; LIBSVM parsers get a LIBLINEAR unary classifier)
UNARY_LEARNERS = {"liblinear": ("liblinear", "-s 4 -c 0.5"), "perceptron": ("perceptron", ""),
                  "libsvm": ("liblinear", "-s 4 -c 0.5")}
CHUNK = 1000


def tree_rows(words: Sequence[str], tags: Sequence[str], heads=None, labels=None, unaries=None) -> List[List[str]]:
    """CoNLL-X rows of a sentence: FORM, the tag as CPOSTAG and POSTAG, and when given HEAD,
    DEPREL and the unary chains (in PDEPREL, as ``-m convert`` writes them)."""
    rows = []
    for k, (w, t) in enumerate(zip(words, tags)):
        rows.append([str(k + 1), w, "_", t, t, "_",
                     str(heads[k]) if heads is not None else "_",
                     labels[k] if labels is not None else "_", "_",
                     format_unaries(unaries[k]) if unaries is not None else "_"])
    return rows


def words_and_tags(sentence: Sentence, fmt: str) -> Tuple[List[str], List[str]]:
    """FORM and the POS tag of each word of a CoNLL sentence: POSTAG (CoNLL-U: XPOS), else
    CPOSTAG (UPOS) when that column is ``_``."""
    words, tags = [], []
    for r in sentence.rows:
        tag = r[4] if r[4] != "_" else r[3]
        if tag == "_":
            raise InputFormatError(sentence.source, sentence.first_line,
                                   f"word {r[0]} ({r[1]}) has no POS tag: constituent parsing needs tagged words "
                                   f"(the {'XPOS' if fmt == 'conllu' else 'POSTAG'} column)")
        words.append(r[1])
        tags.append(tag)
    return words, tags


def _check_tree_text(items: Sequence[str], what: str, where: str):
    bad = next((x for x in items if any(c in x for c in "() \t")), None)
    if bad is not None:
        raise MaltpyError(f"{where}: {what} {bad!r} cannot be written in a bracketed tree "
                          "(it holds a bracket or a space)")


class Reduction:
    """The constituent side of a parser: head rules, encoding, the training trees' wrapper
    style, and the unary classifier."""

    def __init__(self, rules: HeadRules, encoding: str = "delta", wrapped: bool = True,
                 unary: Optional[UnaryClassifier] = None):
        if encoding not in ENCODINGS:
            raise MaltpyError(f"constituent encoding {encoding!r}: use one of {', '.join(ENCODINGS)}")
        self.rules, self.encoding, self.wrapped, self.unary = rules, encoding, wrapped, unary

    @classmethod
    def from_settings(cls, settings) -> "Reduction":
        return cls(HeadRules.load(settings.head_rules), settings.constituent_encoding)

    # ------------------------------------------------------------------ training
    def encode_trees(self, trees: Sequence[PtbTree]):
        """Training trees -> (CoNLL-X sentences for the dependency parser, their encodings)."""
        sentences, encoded = [], []
        for pt in trees:
            e = encode(pt.tree, self.rules, self.encoding)
            encoded.append(e)
            sentences.append(Sentence(tree_rows(e.words, e.tags, e.heads, e.labels, e.unaries), [],
                                      pt.first_line, pt.source))
        self.wrapped = sum(pt.wrapped for pt in trees) * 2 >= len(trees)
        return sentences, encoded

    def fit_unary(self, encoded, learner_name: str, log=None):
        """Train unary recovery on the gold unaryless trees of ``encoded``."""
        from maltpy.learners import make_learner
        name, options = UNARY_LEARNERS.get(learner_name, UNARY_LEARNERS["liblinear"])
        t0 = time.perf_counter()
        examples = []
        for e in encoded:
            d = decode(e.words, e.tags, e.heads, e.labels, self.encoding)
            examples.append((d, node_chains(d, e.unaries)))
        self.unary = UnaryClassifier().fit(examples, make_learner(name, options), log=log)
        if log:
            log(f"unary recovery trained with {name} in {time.perf_counter() - t0:.1f} s")
        return self

    # ------------------------------------------------------------------ parsing
    def decode_trees(self, words_tags: Sequence[Tuple[List[str], List[str]]], trees, unaries=True) -> List[Tree]:
        """Parsed (heads, labels) -> bracketed trees, unary chains predicted (``unaries=True``),
        taken from the given per-word chains (a list per sentence), or left out (False)."""
        decoded = []
        for (words, tags), (heads, labels) in zip(words_tags, trees):
            given = unaries[len(decoded)] if isinstance(unaries, list) else None
            decoded.append(decode(words, tags, heads, labels, self.encoding, unaries=given))
        if unaries is True and self.unary is not None:
            chains = self.unary.predict_many(decoded)
            return [insert_unaries(d, c) for d, c in zip(decoded, chains)]
        return [d.tree for d in decoded]

    def parse_file(self, parser, source, target, input_format: Optional[str], output_format: Optional[str],
                   progress: bool = False):
        """Parse tagged words (CoNLL, or the words and tags of a bracketed file) into bracketed
        trees (or, with a CoNLL output format, into the encoded dependency trees); return
        (sentences, tokens)."""
        from maltpy.formats.conll import FORMATS, format_sentences, iter_conll
        from maltpy.formats.ptb import format_ptb, read_ptb
        from maltpy.output import open_output
        from maltpy.parsing.parser import _progress_bar
        out_fmt = output_format or "ptb"
        if out_fmt not in FORMATS + ("ptb",):
            raise MaltpyError(f"unknown output format {out_fmt!r}; use ptb, conllx or conllu")
        if input_format == "ptb":
            items = ((pt.tree.words(), pt.tree.tags(), pt.wrapped, pt) for pt in read_ptb(source))
        else:
            items = ((*words_and_tags(s, input_format), self.wrapped, s)
                     for s in iter_conll(source, input_format))
        counts = [0, 0]
        bar = _progress_bar(None, "parsing", progress, unit="tok")
        try:
            with open_output(target, stream=True) as out:
                batch = []
                for item in items:
                    batch.append(item)
                    if len(batch) == CHUNK:
                        out.write(self._parse_batch(parser, batch, out_fmt, counts, format_ptb, format_sentences))
                        batch = []
                        if bar:
                            bar.update(counts[1] - bar.n)
                if batch:
                    out.write(self._parse_batch(parser, batch, out_fmt, counts, format_ptb, format_sentences))
        finally:
            if bar:
                bar.close()
        return counts[0], counts[1]

    def _parse_batch(self, parser, batch, out_fmt, counts, format_ptb, format_sentences) -> str:
        sentences = [Sentence(tree_rows(w, t), [], getattr(src, "first_line", 0), getattr(src, "source", "<input>"))
                     for w, t, _, src in batch]
        parsed = parser.parse_trees(sentences)
        counts[0] += len(batch)
        counts[1] += sum(len(w) for w, _, _, _ in batch)
        if out_fmt != "ptb":
            return format_sentences(s.with_tree(h, l) for s, (h, l) in zip(sentences, parsed))
        for w, t, _, src in batch:
            where = f"{getattr(src, 'source', '<input>')}:{getattr(src, 'first_line', 0)}"
            _check_tree_text(w, "word", where)
            _check_tree_text(t, "tag", where)
        trees = self.decode_trees([(w, t) for w, t, _, _ in batch], parsed)
        return format_ptb(PtbTree(tree, wrapped) for tree, (_, _, wrapped, _) in zip(trees, batch))

    # ------------------------------------------------------------------ model files
    def header(self) -> dict:
        return {"encoding": self.encoding, "head_rules": self.rules.text, "head_rules_name": self.rules.name,
                "wrapped": self.wrapped, "unary": self.unary.header() if self.unary is not None else None}

    def arrays(self) -> dict:
        return self.unary.arrays() if self.unary is not None else {}

    @classmethod
    def from_model(cls, header: dict, arrays: dict, fail) -> "Reduction":
        if not isinstance(header, dict) or header.get("encoding") not in ENCODINGS \
                or not isinstance(header.get("head_rules"), str) or not isinstance(header.get("wrapped"), bool):
            fail("its constituent settings are damaged")
        try:
            rules = HeadRules.from_text(header["head_rules"], "the model's head rules")
        except MaltpyError as e:
            fail(str(e))
        unary = None
        if header.get("unary") is not None:
            unary = UnaryClassifier.from_model(header["unary"], arrays, fail)
        return cls(rules, header["encoding"], header["wrapped"], unary)


def convert_trees_to_conll(trees: Sequence[PtbTree], rules: HeadRules, encoding: str) -> List[Sentence]:
    """``-m convert`` from bracketed trees: the encoded dependency trees, unary chains in PDEPREL."""
    return Reduction(rules, encoding).encode_trees(trees)[0]


def convert_conll_to_trees(sentences: Iterable[Sentence], encoding: str) -> List[PtbTree]:
    """``-m convert`` to bracketed trees: decode encoded dependency trees (with the unary chains
    of their PDEPREL column, when present)."""
    out = []
    for s in sentences:
        words, tags = words_and_tags(s, "conllx")
        heads = s.heads
        if any(h < 0 for h in heads):
            raise InputFormatError(s.source, s.first_line, "a word without HEAD: decoding needs parsed sentences")
        where = f"{s.source}:{s.first_line}: "
        unaries = [parse_unaries(r[9], where) for r in s.rows]
        _check_tree_text(words, "word", where.rstrip(": "))
        _check_tree_text(tags, "tag", where.rstrip(": "))
        try:
            d = decode(words, tags, heads, s.labels, encoding, unaries=unaries)
        except MaltpyError as e:
            raise InputFormatError(s.source, s.first_line, str(e)) from None
        out.append(PtbTree(d.tree, True, s.first_line, s.source))
    return out


def fit_constituent_parser(parser, trees: Sequence[PtbTree], log=None):
    """Train ``parser`` (a :class:`~maltpy.parsing.parser.Parser` with its settings) as a
    constituent parser on bracketed trees: the dependency parser on their encodings, then unary
    recovery. Returns the parser, which then parses into trees (:meth:`Parser.parse_file`,
    :func:`parse_constituents`) and saves both parts in one model file."""
    log = log or (lambda msg: None)
    s = parser.settings
    if s.marking_strategy != "none" and s.constituent_encoding == "delta":
        log("note: pseudo-projective parsing is not needed for continuous trees, whose encodings are projective")
    reduction = Reduction.from_settings(s)
    t0 = time.perf_counter()
    sentences, encoded = reduction.encode_trees(trees)
    labels = {l for e in encoded for l in e.labels}
    log(f"encoded {len(trees)} trees ({s.constituent_encoding} encoding, {reduction.rules.name} head rules): "
        f"{len(labels)} dependency labels, in {time.perf_counter() - t0:.1f} s")
    parser.fit(sentences, fmt="conllx", log=log)
    reduction.fit_unary(encoded, s.learner, log)
    parser.reduction = reduction
    return parser


def parse_constituents(parser, sentences: Sequence[Tuple[Sequence[str], Sequence[str]]]) -> List[Tree]:
    """Parse (words, tags) pairs with a constituent parser into :class:`~maltpy.formats.ptb.Tree` objects."""
    if parser.reduction is None:
        raise MaltpyError("this parser was trained on dependency trees; train one on bracketed trees (.mrg)")
    pairs = [(list(w), list(t)) for w, t in sentences]
    for w, t in pairs:
        if not w or len(w) != len(t):
            raise MaltpyError("each sentence is (words, tags) with one tag per word and at least one word")
    parsed = parser.parse_trees([Sentence(tree_rows(w, t)) for w, t in pairs])
    return parser.reduction.decode_trees(pairs, parsed)
