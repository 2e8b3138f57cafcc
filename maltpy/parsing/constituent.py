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
from dataclasses import replace
from typing import Iterable, List, Optional, Sequence, Tuple

from maltpy.config import threads
from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.conll import Sentence, blank_columns
from maltpy.formats.ptb import PtbTree, Tree
import numpy as np

from maltpy.chunks import chunked
from maltpy.formats.ptb import ptb_escape
from maltpy.transform.constituents import (
    ENCODINGS, FALLBACK_LABEL, decode, encode, format_unaries, parse_unaries, split_label,
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
            raise InputFormatError(sentence.source, sentence.first_line, _no_tag(r[0], r[1], fmt))
        words.append(r[1])
        tags.append(tag)
    return words, tags


def _untagged(chunk, row: int, path, fmt: str) -> InputFormatError:
    """The error for the untagged word at corpus row ``row`` of a chunk (each sentence's rows: its
    root, then its words), named by its file and line as :func:`words_and_tags` names it; the
    input is not read again, so that standard input gets it too (it got 'no sentences found')."""
    k, first = 0, 0
    for k, n in enumerate(chunk.lengths()):
        if row <= first + n:
            break
        first += n + 1
    i = row - first
    number, form = chunk.sentence_lines(k)[i - 1][:2]
    return InputFormatError(path, chunk.word_line(k, i), _no_tag(number, form, fmt))


def _no_tag(number: str, form: str, fmt: str) -> str:
    """What an untagged word's error says (the Python and the compiled readers alike)."""
    return (f"word {number} ({form}) has no POS tag: constituent parsing needs tagged words (the "
            f"{'XPOS' if fmt == 'conllu' else 'POSTAG'} column; a model learned with --tagger all tags them)")


def pack(words_tags: Sequence[Tuple[Sequence[str], Sequence[str]]]):
    """(data, offsets, word start, word end, tag start, tag end): the words and tags of a batch
    as one UTF-8 buffer and byte spans per corpus row (a root row before each sentence)."""
    pieces: List[bytes] = []
    sizes: List[int] = []
    for words, tags in words_tags:
        sizes.append(len(words))
        for w, t in zip(words, tags):
            pieces.append(w.encode("utf-8", "surrogatepass"))
            pieces.append(t.encode("utf-8", "surrogatepass"))
    lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
    ends = np.cumsum(lengths)
    starts = ends - lengths
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(np.asarray(sizes, dtype=np.int64) + 1, out=offsets[1:])
    rows = int(offsets[-1])
    word_rows = np.ones(rows, dtype=bool)
    word_rows[offsets[:-1]] = False
    ws, we, ts, te = (np.zeros(rows, dtype=np.int64) for _ in range(4))
    ws[word_rows], we[word_rows] = starts[0::2], ends[0::2]
    ts[word_rows], te[word_rows] = starts[1::2], ends[1::2]
    return b"".join(pieces), offsets, ws, we, ts, te


class Reduction:
    """The constituent side of a parser: head rules, encoding, the training trees' wrapper
    style, and the unary classifier."""

    kind = "constituent"
    tree_format = "ptb"        # the trees it writes unless told otherwise

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
        labels = sorted({l for e in encoded for l in e.labels})
        ids = {l: k for k, l in enumerate(labels)}
        batch = pack([(e.words, e.tags) for e in encoded])
        heads = np.zeros(len(batch[2]), dtype=np.int32)
        label_ids = np.zeros(len(batch[2]), dtype=np.int32)
        offsets = batch[1]
        for k, e in enumerate(encoded):
            r = int(offsets[k]) + 1
            heads[r:r + len(e.heads)] = e.heads
            label_ids[r:r + len(e.labels)] = [ids[l] for l in e.labels]
        decoder = self._decoder(labels, with_unary=False)
        info, keys = decoder.decode(batch[0], offsets, heads, label_ids, *batch[2:], np.zeros(len(encoded), np.uint8),
                                    unaries=False, features=True)
        chains = [encoded[s].unaries[h - 1].get(level, ()) for s, h, level in info[:, :3].tolist()]
        self.unary = UnaryClassifier().fit(info, keys, chains, make_learner(name, options), log=log)
        self._decoders = {}
        if log:
            log(f"unary recovery trained with {name} in {time.perf_counter() - t0:.1f} s")
        return self

    # ------------------------------------------------------------------ compiled decoding
    def _decoder(self, labels: Sequence[str], with_unary: bool = True):
        """The compiled decoder for a parser's dependency labels (cached)."""
        from maltpy.transform.reduce import Decoder
        cache = self.__dict__.setdefault("_decoders", {})
        key = (tuple(labels), with_unary)
        if key not in cache:
            symbols, index = [], {}

            def symbol(label):
                if label not in index:
                    index[label] = len(symbols)
                    symbols.append(ptb_escape(label).encode("utf-8", "surrogatepass"))
                return index[label]
            zk = [split_label(l) for l in labels]
            label_z = np.array([symbol(z) if z else -1 for z, _ in zk] or [0], dtype=np.int32)
            label_k = np.array([k for _, k in zk] or [1], dtype=np.int32)
            fallback = symbol(FALLBACK_LABEL)
            unary = self.unary.tables(symbol) if (with_unary and self.unary is not None) else None
            cache[key] = Decoder(label_z, label_k, self.encoding == "delta", symbols, fallback, unary)
        return cache[key]

    def render_batch(self, parser, words_tags, wrapped, unaries: bool = True) -> bytes:
        """Bracketed trees (one line each) of tagged words, parsed by ``parser``."""
        sentences = [Sentence(tree_rows(w, t)) for w, t in words_tags]
        batch = pack(words_tags)
        data, offsets, ws, we, ts, te = batch
        heads, labels = self._parse(parser, sentences, offsets)
        return self._decoder(parser.labels).decode(data, offsets, heads, labels, ws, we, ts, te,
                                                   np.asarray(wrapped, dtype=np.uint8), unaries=unaries)

    @staticmethod
    def _parse(parser, sentences, offsets):
        """Heads and label ids per corpus row (``offsets``: a root row before each sentence)."""
        if not parser.decodes_output:
            _, heads, labels = parser.parse_arrays(sentences)
            return np.ascontiguousarray(heads, dtype=np.int32), np.ascontiguousarray(labels, dtype=np.int32)
        ids = {l: k for k, l in enumerate(parser.labels)}
        heads = np.zeros(int(offsets[-1]), dtype=np.int32)
        labels = np.zeros(int(offsets[-1]), dtype=np.int32)
        for k, (h, l) in enumerate(parser.parse_trees(sentences)):
            r = int(offsets[k]) + 1
            heads[r:r + len(h)] = h
            labels[r:r + len(l)] = [ids.get(x, -1) for x in l]
        return heads, labels

    def decode_trees(self, words_tags: Sequence[Tuple[List[str], List[str]]], trees=None, parser=None,
                     unaries: bool = True) -> List[Tree]:
        """Parse (``parser``) or take the parsed (heads, labels) ``trees`` of tagged words, and
        decode them into :class:`~maltpy.formats.ptb.Tree` objects (unary chains predicted
        unless ``unaries=False``)."""
        from maltpy.formats.ptb import parse_ptb
        if not words_tags:
            return []
        batch = pack(words_tags)
        data, offsets, ws, we, ts, te = batch
        wrapped = np.zeros(len(words_tags), dtype=np.uint8)
        if trees is None:
            text = self.render_batch(parser, words_tags, wrapped, unaries)
        else:
            labels_seen = sorted({l for _, ls in trees for l in ls if l is not None})
            ids = {l: k for k, l in enumerate(labels_seen)}
            heads = np.zeros(len(ws), dtype=np.int32)
            labels = np.zeros(len(ws), dtype=np.int32)
            for k, (h, l) in enumerate(trees):
                r = int(offsets[k]) + 1
                heads[r:r + len(h)] = h
                labels[r:r + len(l)] = [ids.get(x, -1) if x is not None else -1 for x in l]
            text = self._decoder(labels_seen, with_unary=unaries).decode(
                data, offsets, heads, labels, ws, we, ts, te, wrapped, unaries=unaries)
        return [t.tree for t in parse_ptb(text.decode("utf-8", "surrogatepass"), "<decoded>", clean=False)]

    def parse_file(self, parser, source, target, input_format: Optional[str], output_format: Optional[str],
                   progress: bool = False):
        """Parse tagged words (CoNLL, or the words and tags of a bracketed file) into bracketed
        trees (or, with a CoNLL output format, into the encoded dependency trees); return
        (sentences, tokens)."""
        from maltpy.formats.conll import FORMATS
        out_fmt = output_format or "ptb"
        if out_fmt not in FORMATS + ("ptb",):
            raise MaltpyError(f"unknown output format {out_fmt!r}; use ptb, conllx or conllu")
        if out_fmt != "ptb":
            return self._parse_file_conll(parser, source, target, input_format, out_fmt, progress)
        if input_format != "ptb":
            return self._parse_file_compiled(parser, source, target, input_format, progress)
        return self._parse_file_python(parser, source, target, input_format, progress)

    def _parse_file_compiled(self, parser, source, target, fmt, progress):
        """CoNLL in, trees out, in compiled code from the input's bytes to the output's, chunks
        side by side on the ``jobs`` threads of the parser's settings (output in input order)."""
        from maltpy.formats.conll import open_input
        from maltpy.formats.scan import Scanner
        from maltpy.output import open_output
        from maltpy.progress import progress_bar as _progress_bar
        from maltpy.parsing.stream import BLOCK_SIZE, ChunkParser, OrderedOutput, _parse_in_threads, read_chunks
        chunk_parser = ChunkParser(parser)
        tag_field, fallback = 4, 3
        jobs = threads(parser.settings.jobs)

        def work(chunk) -> bytes:
            if not chunk.n_sentences:
                return b""
            offsets, heads, labels, names = chunk_parser.output_rows(chunk)
            data, ws, we = chunk.field_spans(1)
            _, ts, te = chunk.field_spans(tag_field, fallback)
            if np.any(ts < 0):
                raise _untagged(chunk, int(np.flatnonzero(ts < 0)[0]), path, fmt or "conllx")
            wrapped = np.full(chunk.n_sentences, self.wrapped, dtype=np.uint8)
            return self._decoder(names).decode(data, np.ascontiguousarray(offsets, dtype=np.int64),
                                               np.ascontiguousarray(heads, dtype=np.int32),
                                               np.ascontiguousarray(labels, dtype=np.int32), ws, we, ts, te, wrapped)

        bar = _progress_bar(None, "parsing", progress, unit="tok")
        stream, path, close = open_input(source)
        try:
            with open_output(target, binary=True, stream=True) as out:
                writer = OrderedOutput(out, (lambda n_sent, n_tok: bar.update(n_tok)) if bar else None)
                chunks = read_chunks(stream, Scanner(fmt or "conllx", path, False), BLOCK_SIZE)
                if jobs == 1:
                    for chunk in chunks:
                        writer.write(chunk, work(chunk))
                else:
                    _parse_in_threads(chunks, work, writer, jobs)
                writer.close()
        finally:
            if close:
                stream.close()
            if bar:
                bar.close()
        return writer.n_sentences, writer.n_tokens

    def _parse_file_python(self, parser, source, target, input_format, progress):
        from maltpy.formats.conll import iter_conll
        from maltpy.formats.ptb import iter_ptb
        from maltpy.output import open_output
        from maltpy.progress import progress_bar as _progress_bar
        if input_format == "ptb":
            items = ((pt.tree.words(), pt.tree.tags(), pt.wrapped) for pt in iter_ptb(source))
        else:
            items = ((*words_and_tags(s, input_format), self.wrapped) for s in iter_conll(source, input_format))
        counts = [0, 0]
        bar = _progress_bar(None, "parsing", progress, unit="tok")
        try:
            with open_output(target, binary=True, stream=True) as out:
                for batch in chunked(items, CHUNK):
                    out.write(self.render_batch(parser, [(w, t) for w, t, _ in batch], [wr for _, _, wr in batch]))
                    counts[0] += len(batch)
                    counts[1] += sum(len(w) for w, _, _ in batch)
                    if bar:
                        bar.update(sum(len(w) for w, _, _ in batch))
        finally:
            if bar:
                bar.close()
        return counts[0], counts[1]

    def _parse_file_conll(self, parser, source, target, input_format, out_fmt, progress):
        """A constituent model's dependency parses (the encoded trees) as CoNLL."""
        from maltpy.formats.conll import format_sentences, iter_conll
        from maltpy.formats.ptb import iter_ptb
        from maltpy.output import open_output
        if input_format == "ptb":
            items = ((pt.tree.words(), pt.tree.tags()) for pt in iter_ptb(source))
        else:
            items = (words_and_tags(s, input_format) for s in iter_conll(source, input_format))
        counts = [0, 0]
        with open_output(target, stream=True) as out:
            for batch in chunked(items, CHUNK):
                sentences = [Sentence(tree_rows(w, t)) for w, t in batch]
                parsed = parser.parse_trees(sentences)
                out.write(format_sentences(s.with_tree(h, l) for s, (h, l) in zip(sentences, parsed)))
                counts[0] += len(batch)
                counts[1] += sum(len(w) for w, _ in batch)
        return counts[0], counts[1]

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
        words, tags = [ptb_escape(w) for w in words], [ptb_escape(t) for t in tags]
        try:
            d = decode(words, tags, heads, s.labels, encoding, unaries=unaries)
        except MaltpyError as e:
            raise InputFormatError(s.source, s.first_line, str(e)) from None
        out.append(PtbTree(d.tree, True, s.first_line, s.source))
    return out


def fit_constituent_parser(parser, trees: Sequence[PtbTree], log=None, blank=(), encoding=None):
    """Train ``parser`` (a :class:`~maltpy.parsing.parser.Parser` with its settings) as a
    constituent parser on bracketed trees: the dependency parser on their encodings (``encoding``:
    what :meth:`Reduction.encode_trees` gave for them, made here when not given; the CoNLL columns
    ``blank`` _: those a tagger in front of it leaves untagged), then unary recovery. Returns the
    parser, which then parses into trees (:meth:`Parser.parse_file`, :func:`parse_constituents`)
    and saves both parts in one model file."""
    log = log or (lambda msg: None)
    s = parser.settings
    if s.marking_strategy != "none" and s.constituent_encoding == "delta":
        log("note: pseudo-projective parsing is not needed for continuous trees, whose encodings are projective")
    reduction = Reduction.from_settings(s)
    t0 = time.perf_counter()
    sentences, encoded = encoding if encoding is not None else reduction.encode_trees(trees)
    labels = {l for e in encoded for l in e.labels}
    log(f"encoded {len(trees)} trees ({s.constituent_encoding} encoding, {reduction.rules.name} head rules): "
        f"{len(labels)} dependency labels" + (f", in {time.perf_counter() - t0:.1f} s" if encoding is None else ""))
    parser.fit(blank_columns(sentences, blank), fmt="conllx", log=log)
    reduction.fit_unary(encoded, s.learner, log)
    parser._set_model(replace(parser.model, reduction=reduction))
    return parser


def parse_constituents(parser, sentences: Sequence[Tuple[Sequence[str], Sequence[str]]]) -> List[Tree]:
    """Parse (words, tags) pairs with a constituent parser into :class:`~maltpy.formats.ptb.Tree` objects."""
    if parser.reduction is None:
        raise MaltpyError("this parser was trained on dependency trees; train one on bracketed trees (.mrg)")
    pairs = [(list(w), list(t)) for w, t in sentences]
    for w, t in pairs:
        if not w or len(w) != len(t):
            raise MaltpyError("each sentence is (words, tags) with one tag per word and at least one word")
    return parser.reduction.decode_trees(pairs, parser=parser)
