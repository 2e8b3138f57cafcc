"""maltpy as a spaCy pipeline component (the optional extra ``maltpy[spacy]``).

    import spacy
    nlp = spacy.blank("en")            # or any pipeline that tags: tagger, morphologizer, ...
    nlp.add_pipe("maltpy_parser", config={"model": "model.mpz"})
    doc = nlp("Dogs bark .")
    [(t.text, t.head.text, t.dep_) for t in doc]

The component reads each token's text and tags, parses with the maltpy model and
sets ``token.head`` and ``token.dep_`` (a model with a tagger sets ``pos_``, ``tag_``, ``morph``
and ``lemma_`` first; one learned with ``--parser false`` only those), so ``displacy``, ``doc.sents`` and
``doc.noun_chunks`` (where the language has noun chunks and the labels are the
ones it knows) work on maltpy's parses. Which token attribute feeds which CoNLL
column is the ``columns`` setting; the default follows the model's format:
CoNLL-X models read CPOSTAG from ``pos_`` and POSTAG from ``tag_``, CoNLL-U
models UPOSTAG from ``pos_`` and XPOSTAG from ``tag_``. A doc whose sentences are
already set (a sentencizer or senter before this component) is parsed sentence by
sentence; otherwise the whole doc is one sentence. As in spaCy, every word maltpy
attaches to the root starts a sentence of its own in ``doc.sents``.

Whitespace tokens (``token.is_space``: spaCy keeps a run of extra spaces or a newline as a
token) are not words: they are left out of the parse and attached as spaCy's own parser
attaches them, to the word before (the word after at the start of a sentence), labelled
``dep``; :func:`doc_to_sentences` leaves them out of the CoNLL output. A tab, newline or
carriage return inside a word's text or tags becomes a space, so that what is written is
always read back.

The factory is found through the ``spacy_factories`` entry point, so ``add_pipe``
works without importing maltpy first.
"""
from __future__ import annotations

import os
from typing import Dict, Iterable, Iterator, List, Optional, Sequence

import numpy as np
from spacy.attrs import DEP, HEAD, IS_SPACE
from spacy.language import Language
from spacy.parts_of_speech import IDS as UPOS_IDS
from spacy.tokens import Doc

from maltpy.errors import MaltpyError
from maltpy.formats.conll import COLUMNS, Sentence
from maltpy.parsing.encode import ColumnBatch

#: Token attribute for each CoNLL column, per model format (columns not named stay ``_``).
DEFAULT_COLUMNS = {
    "conllx": {"FORM": "text", "LEMMA": "lemma_", "CPOSTAG": "pos_", "POSTAG": "tag_", "FEATS": "morph"},
    "conllu": {"FORM": "text", "LEMMA": "lemma_", "UPOSTAG": "pos_", "XPOSTAG": "tag_", "FEATS": "morph"},
}
MODEL_FILE = "model.mpz"
#: the token attribute and the Doc annotation name of each column a tagger writes
_TOKEN_ATTRIBUTE = {"upos": "pos_", "xpos": "tag_", "feats": "morph", "lemma": "lemma_"}
_ANNOTATION = {"upos": "POS", "xpos": "TAG", "feats": "MORPH", "lemma": "LEMMA"}


def _column_getters(columns: Dict[str, str], fmt: str):
    """(column index, attribute name) pairs, checked against the format's column names."""
    names = COLUMNS[fmt]
    out = []
    for column, attr in columns.items():
        if column not in names or column in ("ID", "HEAD", "DEPREL"):
            raise MaltpyError(f"maltpy_parser: columns: {column!r} is not an input column of {fmt} "
                              f"(use {', '.join(n for n in names if n not in ('ID', 'HEAD', 'DEPREL'))})")
        if not isinstance(attr, str) or not attr:
            raise MaltpyError(f"maltpy_parser: columns: the attribute for {column} must be a token "
                              "attribute name such as 'tag_'")
        out.append((names.index(column), attr))
    return out


#: Token attributes read in bulk with Doc.to_array (others are read token by token).
ARRAY_ATTRS = {"text": "ORTH", "orth_": "ORTH", "lemma_": "LEMMA", "norm_": "NORM", "lower_": "LOWER",
               "shape_": "SHAPE", "tag_": "TAG", "pos_": "POS", "morph": "MORPH", "dep_": "DEP",
               "ent_type_": "ENT_TYPE"}


#: characters a CoNLL field cannot hold (they end a column or a line), and what replaces them
_BREAKS = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
#: the label of a whitespace token's arc (spaCy's parser gives them ``dep`` too)
SPACE_LABEL = "dep"


def _field(value: str) -> str:
    """A token attribute as a CoNLL field: ``_`` for nothing, no tab or line break inside."""
    value = value.translate(_BREAKS).strip(" ") if value else value
    return value if value else "_"


def _value(token, attr: str) -> str:
    return _field(str(getattr(token, attr)))


def _words(doc, span, space) -> np.ndarray:
    """The doc indices of ``span``'s words: its tokens that are not whitespace."""
    return np.flatnonzero(~space[span.start:span.end]) + span.start


def _space_flags(doc) -> np.ndarray:
    return doc.to_array([IS_SPACE]).reshape(len(doc)).astype(bool)


def words_to_columns(pieces, getters) -> ColumnBatch:
    """The CoNLL columns of sentences given as (doc, doc indices of their words) pairs, as a
    :class:`ColumnBatch` maltpy can parse.

    Attributes with an array form are read with one ``Doc.to_array`` per doc (not per sentence:
    a long doc's sentences would each copy the whole doc) and each distinct value is decoded
    once; other attributes are read token by token."""
    from spacy.attrs import IDS
    from spacy.parts_of_speech import NAMES as POS_NAMES
    lengths = [len(idx) for _, idx in pieces]
    total = sum(lengths)
    bulk = [(ci, attr) for ci, attr in getters if attr in ARRAY_ATTRS]
    columns: Dict[int, List[str]] = {}
    if bulk and total:
        attr_ids = [IDS[ARRAY_ATTRS[attr]] for _, attr in bulk]
        parts, doc_seen, whole = [], None, None
        for doc, idx in pieces:
            if doc is not doc_seen:     # a doc's sentences come one after the other
                doc_seen, whole = doc, doc.to_array(attr_ids).reshape(len(doc), len(bulk))
            if len(idx):
                parts.append(whole[idx])
        arr = np.concatenate(parts)
        strings = pieces[0][0].vocab.strings
        for j, (ci, attr) in enumerate(bulk):
            uniq, inv = np.unique(arr[:, j], return_inverse=True)
            if attr == "pos_":   # POS is an enum, not a string hash
                names = [POS_NAMES.get(int(h), "") for h in uniq]
            else:
                names = [strings[int(h)] for h in uniq]
            names = np.array([_field(v) for v in names], dtype=object)
            columns[ci] = names[inv.ravel()].tolist()
    for ci, attr in getters:
        if attr not in ARRAY_ATTRS:
            columns[ci] = [_value(doc[i], attr) for doc, idx in pieces for i in idx.tolist()]
    return ColumnBatch(lengths, columns)


def spans_to_columns(spans, getters) -> ColumnBatch:
    """The CoNLL columns of the words (tokens but whitespace) of spaCy Docs or Spans, as a
    :class:`ColumnBatch` maltpy can parse (:func:`words_to_columns`)."""
    spaces = {}
    pieces = []
    for span in spans:
        doc = span.doc
        if id(doc) not in spaces:
            spaces[id(doc)] = _space_flags(doc)
        pieces.append((doc, _words(doc, span, spaces[id(doc)])))
    return words_to_columns(pieces, getters)


def spans_to_sentences(spans, getters) -> List[Sentence]:
    """Blind :class:`Sentence` objects (no HEAD/DEPREL) from spaCy Docs or Spans; whitespace tokens
    are not words (a span of nothing else gives a sentence of no words)."""
    batch = spans_to_columns(spans, getters)
    ids = [str(k) for k in range(1, max(batch.lengths, default=0) + 1)]
    columns = [batch.column(ci) for ci in range(1, 10)]
    out, a = [], 0
    for n in batch.lengths:
        rows = [list(r) for r in zip(ids[:n], *(c[a:a + n] for c in columns))]
        out.append(Sentence(rows, source="<spacy>"))
        a += n
    return out


def doc_to_sentences(doc, columns: Optional[Dict[str, str]] = None, fmt: str = "conllx") -> List[Sentence]:
    """A Doc as maltpy sentences: one per ``doc.sents`` when the doc has sentences, else one.
    Whitespace tokens are not words: they are left out (a sentence of nothing else is dropped).

    HEAD and DEPREL are filled when the doc is parsed (head 0 for a token that is its own head; a
    word whose head is a whitespace token takes that token's head, up to a word or the root)."""
    getters = _column_getters(columns or DEFAULT_COLUMNS[fmt], fmt)
    spans = list(doc.sents) if doc.has_annotation("SENT_START") or doc.has_annotation("DEP") else [doc[:]]
    if doc.has_annotation("DEP"):
        spans = _closed_under_heads(doc, spans)
    out = spans_to_sentences(spans, getters)
    if doc.has_annotation("DEP"):
        space = _space_flags(doc)
        for span, sent in zip(spans, out):
            words = _words(doc, span, space).tolist()
            position = {i: k + 1 for k, i in enumerate(words)}
            for row, i in zip(sent.rows, words):
                head = doc[i].head
                for _ in range(len(doc)):    # up from whitespace tokens (spaCy never makes them heads)
                    if not space[head.i] or head.head.i == head.i:
                        break
                    head = head.head
                row[6] = "0" if head.i == i or space[head.i] else str(position.get(head.i, 0))
                row[7] = _field(doc[i].dep_)
    return [sent for sent in out if len(sent)]


def _closed_under_heads(doc, spans):
    """Merge neighbouring spans where an arc crosses the boundary between them (spaCy starts a
    sentence at every root, so one parsed sentence with two root words is two of doc.sents)."""
    n = len(doc)
    delta = [0] * (n + 2)
    for t in doc:
        lo, hi = sorted((t.i, t.head.i))
        if lo < hi:   # the arc crosses every boundary b with lo < b <= hi (b: before token b)
            delta[lo + 1] += 1
            delta[hi + 1] -= 1
    crossed, running = [], 0
    for b in range(n + 1):
        running += delta[b]
        crossed.append(running > 0)
    out, start = [], 0
    for span in spans[1:]:
        if not crossed[span.start]:
            out.append(doc[start:span.start])
            start = span.start
    out.append(doc[start:])
    return out


def sentences_to_doc(vocab, sentences: Sequence[Sentence], fmt: str = "conllx") -> Doc:
    """maltpy sentences as one spaCy Doc: words, tags (POSTAG/XPOSTAG), UD part-of-speech tags
    where CPOSTAG/UPOSTAG holds one, lemmas, FEATS as morphology, sentence starts, and heads and labels when every
    word has them. CoNLL-U ``SpaceAfter=No`` is honoured."""
    words, spaces, tags, lemmas, morphs, upos, heads, deps, starts = [], [], [], [], [], [], [], [], []
    parsed = all(h >= 0 for s in sentences for h in s.heads)
    for s in sentences:
        base = len(words)
        for k, r in enumerate(s.rows):
            words.append(r[1])
            spaces.append(not (fmt == "conllu" and "SpaceAfter=No" in r[9]))
            tags.append(r[4] if r[4] != "_" else "")
            lemmas.append(r[2] if r[2] != "_" else "")
            morphs.append(r[5] if r[5] != "_" else "")
            upos.append(r[3])
            starts.append(k == 0)
            if parsed:
                h = int(r[6])
                heads.append(base + k if h == 0 else base + h - 1)
                deps.append(r[7])
    doc = Doc(vocab, words=words, spaces=spaces, tags=tags, lemmas=lemmas, morphs=morphs,
              heads=heads if parsed else None, deps=deps if parsed else None,
              sent_starts=None if parsed else starts)
    for token, p in zip(doc, upos):
        if p in UPOS_IDS and p != "":
            token.pos_ = p
    return doc


def _attach_spaces(head: np.ndarray, start: int, end: int, words: np.ndarray) -> None:
    """Whitespace tokens of a sentence (doc indices ``start`` to ``end``, its words at ``words``)
    attach to the word before them, those before the first word to the first word."""
    tokens = np.arange(start, end)
    is_word = np.zeros(end - start, dtype=bool)
    is_word[words - start] = True
    if is_word.all():
        return
    # the last word at or before each token (-1 before the first word)
    last = np.maximum.accumulate(np.where(is_word, tokens, -1))
    spaces = ~is_word
    head[tokens[spaces]] = np.where(last[spaces] >= 0, last[spaces], words[0])


class MaltpyParser:
    """The spaCy pipeline component: parses each doc with a maltpy model."""

    def __init__(self, nlp: Language, name: str, model: Optional[str], columns: Optional[Dict[str, str]] = None,
                 batch_size: int = 1000, beam_width: Optional[int] = None, retag: bool = False,
                 beam_margin: Optional[float] = None):
        self.name = name
        #: with a model that has a tagger: whether it replaces the tags a doc already has
        self.retag = bool(retag)
        self.tagger = None
        #: the beam to parse with (None: the model's own, 1 for a greedy model)
        self.beam_width = beam_width
        #: the beam's margin (--beam-margin; None: the model's own)
        self.beam_margin = beam_margin
        self.vocab = nlp.vocab
        self.columns = dict(columns) if columns else None
        self.batch_size = int(batch_size)
        self.parser = None
        self._label_hashes = None   # the model's label strings as spaCy hashes, by label id
        self.model_path = model
        if model:
            self._load(model)

    def _load(self, path: str):
        from maltpy.components import Pipeline, TaggerComponent
        overrides = {"beam_width": self.beam_width} if self.beam_width else {}
        if self.beam_margin is not None:
            overrides["beam_margin"] = self.beam_margin
        self.pipeline = Pipeline.load(str(path), **overrides)
        self.parser = self.pipeline.parser
        taggers = [c.tagger for c in self.pipeline.components if isinstance(c, TaggerComponent)]
        self.tagger = taggers[0] if taggers else None
        if self.parser is None and self.tagger is None:
            raise MaltpyError(f"{path}: this model file has neither a parser nor a tagger for maltpy_parser")
        self._label_hashes = None
        if self.parser is not None:
            fmt = self.parser.format
            self.getters = _column_getters(self.columns or DEFAULT_COLUMNS[fmt], fmt)

    def _check(self):
        if self.parser is None and self.tagger is None:
            raise MaltpyError("maltpy_parser has no model: add it with config={'model': 'model.mpz'}")

    def __call__(self, doc: Doc) -> Doc:
        self._check()
        self._parse_batch([doc])
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        """Parse docs in batches (one call into maltpy's C loop per batch)."""
        self._check()
        size = max(1, int(batch_size or self.batch_size))
        batch = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= size:
                yield from self._parse_batch(batch)
                batch = []
        if batch:
            yield from self._parse_batch(batch)

    def _parse_batch(self, docs: List[Doc]) -> List[Doc]:
        pieces, spans = [], []     # each sentence's words (doc indices), and the sentence
        docs_with_tokens = [doc for doc in docs if len(doc)]
        for doc in docs_with_tokens:
            space = _space_flags(doc)
            for span in (doc.sents if doc.has_annotation("SENT_START") else [doc[:]]):
                spans.append((doc, span))
                pieces.append((doc, _words(doc, span, space)))
        parsed = [(doc, idx) for doc, idx in pieces if len(idx)]     # a sentence of whitespace: no parse
        tagged = self._tag(parsed) if self.tagger is not None and parsed else {}
        if self.parser is None:     # a model learned with --parser false: tags, no trees
            return docs
        columns = words_to_columns(parsed, self.getters)
        for ci, attr in self.getters:     # the parser reads the tagger's tags as they came out of it
            if attr in tagged:
                columns.columns[ci] = tagged[attr]
        strings = self.vocab.strings
        if not parsed:
            heads = np.zeros(0, dtype=np.int64)
            labels = np.zeros(0, dtype=np.uint64)
        elif self.parser.decodes_output:
            trees = self.parser.parse_trees(columns)
            heads = np.fromiter((h for hs, _ in trees for h in hs), dtype=np.int64, count=sum(columns.lengths))
            labels = np.fromiter((strings.add(l) for _, ls in trees for l in ls), dtype=np.uint64,
                                 count=len(heads))
        else:   # the loop's arrays are the parse: no per-word Python on the way back
            offsets, row_heads, row_labels = self.parser.parse_arrays(columns)
            word = np.ones(len(row_heads), dtype=bool)
            word[offsets[:-1]] = False
            heads = row_heads[word].astype(np.int64)
            if self._label_hashes is None:
                self._label_hashes = np.array([strings.add(l) for l in self.parser.labels], dtype=np.uint64)
            labels = self._label_hashes[row_labels[word]]
        # each word's head as a doc index (a root is its own head), sentence by sentence
        words = np.concatenate([idx for _, idx in parsed]) if parsed else np.zeros(0, dtype=np.int64)
        bounds = np.cumsum([0] + [len(idx) for _, idx in parsed])
        first_word = np.repeat(bounds[:-1], np.diff(bounds))
        head_index = np.where(heads == 0, words, words[np.maximum(first_word + heads - 1, 0)]) \
            if len(words) else words
        space_label = strings.add(SPACE_LABEL)
        # every token its own head at first, labelled as whitespace; the words' arcs then go in
        by_doc = {id(doc): (np.arange(len(doc), dtype=np.int64), np.full(len(doc), space_label, np.uint64))
                  for doc in docs_with_tokens}
        at = 0
        for (doc, span), (_, idx) in zip(spans, pieces):
            head, label = by_doc[id(doc)]
            if len(idx):
                head[idx] = head_index[at:at + len(idx)]
                label[idx] = labels[at:at + len(idx)]
                at += len(idx)
                _attach_spaces(head, span.start, span.end, idx)
            else:    # only whitespace: the first token heads the rest
                head[span.start + 1:span.end] = span.start
        for doc in docs_with_tokens:
            head, label = by_doc[id(doc)]
            batch = np.empty((len(doc), 2), dtype=np.uint64)
            batch[:, 0] = (head - np.arange(len(doc), dtype=np.int64)).astype(np.uint64)  # spaCy: relative
            batch[:, 1] = label
            doc.from_array([HEAD, DEP], batch)
        return docs

    def _tag(self, parsed) -> Dict[str, List[str]]:
        """The model's tagger on the words: sets ``pos_``, ``tag_``, ``morph`` and ``lemma_``
        where the doc has none of that annotation (or everywhere with ``retag``); a doc's own
        tags are kept and read by the tagger's later columns, as ``-m parse`` keeps given columns.
        Returns each tagged column's values by token attribute, word after word: what the parser
        reads, also where spaCy cannot hold them (``pos_`` takes UD's 17 tags only)."""
        from maltpy.tagging.templates import TAG_COLUMNS
        columns = [c for g in self.tagger.model_.groups for c in g.columns]
        sentences, written = [], []
        for doc, idx in parsed:
            kept = set() if self.retag else {c for c in columns if doc.has_annotation(_ANNOTATION[c])}
            rows = []
            for k, i in enumerate(idx.tolist()):
                token = doc[i]
                row = [str(k + 1), _field(token.text)] + ["_"] * 8
                for c in kept:
                    row[TAG_COLUMNS[c]] = _value(token, _TOKEN_ATTRIBUTE[c])
                rows.append(row)
            sentences.append(Sentence(rows, format="conllu"))
            written.append([c for c in columns if c not in kept])
        out = self.tagger.tag(sentences)
        values = {_TOKEN_ATTRIBUTE[c]: [row[TAG_COLUMNS[c]] for s in out for row in s.rows] for c in columns}
        for (doc, idx), sentence, todo in zip(parsed, out, written):
            for i, row in zip(idx.tolist(), sentence.rows):
                token = doc[i]
                for c in todo:
                    value = row[TAG_COLUMNS[c]]
                    if c == "upos":
                        if value in UPOS_IDS:     # spaCy takes UD's 17 tags only (CoNLL-X CPOSTAG may be others)
                            token.pos_ = value
                    elif c == "xpos":
                        token.tag_ = value
                    elif c == "feats":
                        token.set_morph(value if value != "_" else None)
                    else:
                        token.lemma_ = value
        return values

    # serialization: the model file travels with the pipeline
    def to_disk(self, path, exclude=tuple()):
        self._check()
        os.makedirs(path, exist_ok=True)
        # a parser's own file stays one
        target = self.parser if len(self.pipeline.components) == 1 and self.parser is not None else self.pipeline
        target.save(os.path.join(path, MODEL_FILE))

    def from_disk(self, path, exclude=tuple()):
        self._load(os.path.join(path, MODEL_FILE))
        return self


@Language.factory("maltpy_parser", default_config={"model": None, "columns": None, "batch_size": 1000,
                                                   "beam_width": None, "retag": False, "beam_margin": None})
def make_maltpy_parser(nlp: Language, name: str, model: Optional[str], columns: Optional[Dict[str, str]],
                       batch_size: int, beam_width: Optional[int], retag: bool, beam_margin: Optional[float]):
    """spaCy factory: ``nlp.add_pipe("maltpy_parser", config={"model": "model.mpz"})``;
    ``beam_width``: parse with a beam of that width (default: the model's own); ``beam_margin``: a
    threshold beam's margin (``--beam-margin``; default: the model's own). A model with a
    tagger (``-m learn --tagger``) also sets ``pos_``, ``tag_``, ``morph`` and ``lemma_``, where
    the doc has none of them (``retag``: everywhere)."""
    return MaltpyParser(nlp, name, model, columns, batch_size, beam_width, retag, beam_margin)
