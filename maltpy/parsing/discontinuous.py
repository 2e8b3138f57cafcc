"""A discontinuous constituent parser: a dependency parser trained on the head-ordered dependency
trees of discontinuous trees (Fernández-González & Martins 2015, §4 and §5.3), decoding its
parses back into trees with crossing branches.

``maltpy -m learn -i train.export`` encodes the treebank's trees (Algorithm 1, direct encoding,
heads by ``-hr``: :mod:`maltpy.formats.export`), trains the parser chosen by the settings on them
(any system; a non-projective one builds the crossing arcs that discontinuities need) and keeps
the head rules in the model file. ``-m parse`` reads tagged words (export or discbracket files,
whose trees are ignored, or CoNLL: FORM and UPOS/POSTAG) and writes trees (export, discbracket)
with the input's sentence keys, or the encoded dependency trees (CoNLL-U).

Unary constituents, which the encoding leaves out (0.4 % of Alpino's brackets; the gold trees
encoded and decoded score 99.57 F1 with disco-dop's proper.prm), are put back by a table learned
from the training trees (:class:`UnaryRules`).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import List, Optional

import numpy as np

from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.conll import Sentence, blank_columns, input_name

#: what a discontinuous parser writes
TREE_FORMATS = ("export", "discbracket")
#: bytes of export or discbracket read at a time when parsing (whole sentences; the last piece
#: may be longer): memory stays flat whatever the file's size (docs/discontinuous.md, "Memory")
PIECE_SIZE = 1 << 20
#: sentences of CoNLL input parsed at a time (the first batches smaller: a pipe sees output early)
CONLL_BATCH = 2048


def _morph_class(line) -> str:
    """A token's morphology up to its first feature (``WW(vd`` of ``WW(vd,prenom,zonder)``)."""
    return line.morph.split(",")[0] if line.morph not in ("", "--", "_") else ""


def _rule_key(line, parent_label: str, token: bool) -> tuple:
    """What a unary rule is keyed on: the child's label, its parent's, and a token's morphology
    class (a phrasal child has none)."""
    return line.tag, parent_label, _morph_class(line) if token else ""


#: a unary node is put back where training had it in at least this share of its key's cases (chosen
#: on the last 10 % of Alpino train against 0.5, 0.9 and no rules: docs/discontinuous.md)
UNARY_SHARE = 0.7
#: ... and at least this many times
UNARY_MIN_COUNT = 3


class UnaryRules:
    """Unary recovery (the article's §4.4) as a table learned from the training trees: a
    constituent of one child X is put back between X and its parent P where, in training, X
    under P (by their labels, and a token's morphology class) had that unary node in at least
    :data:`UNARY_SHARE` of its cases, at least :data:`UNARY_MIN_COUNT` times. The encoding drops
    unary nodes; this puts the common ones back."""

    def __init__(self, table=None):
        #: (child label, parent label, child's morphology class) -> the unary node's label
        self.table = dict(table or {})
        self._tables = None     # the table compiled (tables), when first asked for

    @classmethod
    def learn(cls, trees) -> "UnaryRules":
        from collections import Counter, defaultdict
        from maltpy.formats.export import _children
        seen, unary_seen = Counter(), defaultdict(Counter)
        for s in trees:
            kids = _children(s)
            nodes = dict(zip(s.node_ids(), s.nodes))
            unary = {i for i in nodes if len(kids[i]) == 1}

            def label(i):
                return nodes[i].tag if i else "ROOT"
            for parent in list(nodes) + [0]:
                if parent in unary:
                    continue
                for _, (kind, i) in kids[parent]:
                    line = s.tokens[i] if kind == "token" else nodes[i]
                    if kind == "node" and i in unary:     # counted below, from the node under the chain
                        continue
                    seen[_rule_key(line, label(parent), kind == "token")] += 1
            for u in unary:
                if nodes[u].parent in unary:              # a chain: its lowest node is what is restored
                    continue
                below = kids[u][0][1]
                while below[0] == "node" and below[1] in unary:
                    below = kids[below[1]][0][1]
                line = s.tokens[below[1]] if below[0] == "token" else nodes[below[1]]
                key = _rule_key(line, label(nodes[u].parent), below[0] == "token")
                seen[key] += 1
                lowest = u
                while True:       # the chain's node right above ``below``
                    child = kids[lowest][0][1]
                    if child[0] == "node" and child[1] in unary:
                        lowest = child[1]
                        continue
                    break
                unary_seen[key][nodes[lowest].tag] += 1
        table = {}
        for key, counts in unary_seen.items():
            name, n = counts.most_common(1)[0]
            if n >= UNARY_MIN_COUNT and n >= UNARY_SHARE * seen[key]:
                table[key] = name
        return cls(table)

    def apply(self, sentence):
        """The tree with the table's unary nodes put back (new nodes numbered after the others)."""
        from dataclasses import replace
        from maltpy.formats.export import ExportLine
        if not self.table:
            return sentence
        nodes = {int(n.word[1:]): n for n in sentence.nodes}
        next_id = max(list(nodes) + [499]) + 1
        tokens, new_nodes = list(sentence.tokens), list(sentence.nodes)

        def parent_label(p):
            return nodes[p].tag if p else "ROOT"
        added = []
        for k, t in enumerate(tokens):
            name = self.table.get(_rule_key(t, parent_label(t.parent), True))
            if name is not None:
                added.append(ExportLine(f"#{next_id}", "--", name, "--", "--", t.parent))
                tokens[k] = replace(t, parent=next_id)
                next_id += 1
        for k, n in enumerate(new_nodes):
            name = self.table.get(_rule_key(n, parent_label(n.parent), False))
            if name is not None:
                added.append(ExportLine(f"#{next_id}", "--", name, "--", "--", n.parent))
                new_nodes[k] = replace(n, parent=next_id)
                next_id += 1
        return replace(sentence, tokens=tokens, nodes=new_nodes + added) if added else sentence

    def tables(self):
        """The rules as :func:`maltpy.transform.discdecode.decode_export` reads them: the unary
        nodes' labels, a FeatMap of the keys (:func:`~maltpy.transform.discdecode.unary_key`) and
        each key's label (an index into the labels); made once."""
        if self._tables is None:
            from maltpy.features.featmap import FeatMap
            from maltpy.transform.discdecode import unary_key
            items = sorted(self.table.items())
            names = sorted({v for _, v in items})
            keys = np.array([unary_key(*(x.encode("utf-8") for x in k)) for k, _ in items], dtype=np.uint64)
            self._tables = (names, FeatMap.from_keys(keys),
                            np.array([names.index(v) for _, v in items], dtype=np.int32))
        return self._tables

    def header(self):
        return [list(k) + [v] for k, v in sorted(self.table.items())]

    @classmethod
    def from_header(cls, rows, fail) -> "UnaryRules":
        if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == 4 and
                                                 all(isinstance(x, str) for x in r) for r in rows):
            fail("its unary rules are damaged")
        return cls({tuple(r[:3]): r[3] for r in rows})


class DiscontinuousReduction:
    """The constituent side of a discontinuous parser: its head rules (None: each constituent's
    hd/HD child, else its first phrasal child) and its unary recovery."""

    kind = "discontinuous"
    tree_format = "export"     # the trees it writes unless told otherwise

    def __init__(self, rules=None, unary: Optional[UnaryRules] = None):
        self.rules = rules
        self.unary = unary or UnaryRules()

    @classmethod
    def from_settings(cls, settings) -> "DiscontinuousReduction":
        if settings.head_rules == "collins":      # the default, for bracketed trees: the edges' own heads
            return cls(None)
        from maltpy.transform.headrules import HeadRules
        return cls(HeadRules.load(settings.head_rules))

    @property
    def rules_name(self) -> str:
        return self.rules.name if self.rules is not None else "hd edges"

    def encode(self, sentences) -> List[Sentence]:
        """Training trees (:class:`~maltpy.formats.export.ExportSentence`) -> CoNLL-U sentences."""
        from maltpy.formats.export import to_conll
        return [to_conll(s, self.rules) for s in sentences]

    # ------------------------------------------------------------------ parsing
    def parse_export(self, parser, sentences):
        """Trees (ExportSentence objects, the same keys) parsed from the words, tags, lemmas and
        morphology of export sentences (their trees are not read)."""
        return self.parse_sentences(parser, *export_input(sentences))[1]

    @staticmethod
    def column_batch(words_tags, lemmas=None, morphs=None):
        """(words, tags) pairs and per sentence their lemmas and morphology as the parser reads
        them: a :class:`~maltpy.formats.columns.ColumnBatch` (FORM, LEMMA, UPOS, XPOS)."""
        from maltpy.formats.columns import ColumnBatch
        flat = lambda parts: [v for part in parts for v in part]     # noqa: E731
        columns = {1: flat(w for w, _ in words_tags), 3: flat(t for _, t in words_tags)}
        if lemmas:
            columns[2] = flat(lemmas)
        if morphs:
            columns[4] = flat(morphs)
        return ColumnBatch([len(w) for w, _ in words_tags], columns)

    def export_text(self, parser, words_tags, keys, lemmas=None, morphs=None, version: int = 4,
                    source: str = "<input>") -> bytes:
        """Export text of the trees parsed from (words, tags) pairs, keyed by ``keys``, as
        :meth:`parse_sentences` and :func:`~maltpy.formats.export.format_export` make it, compiled
        (:mod:`maltpy.transform.discdecode`); an error, naming ``source`` and the sentence, for a
        word an export file cannot hold."""
        if not words_tags:
            return b""
        from maltpy.formats.export import check_writable
        for i, (words, tags) in enumerate(words_tags):
            check_writable(words, tags, lemmas[i] if lemmas else None, morphs[i] if morphs else None, version,
                           lambda: f"{source}: sentence {keys[i]}", underscore="--")
        batch = self.column_batch(words_tags, lemmas, morphs)
        return self.rows_text(*parser.parse_rows(batch), batch_columns(batch), keys, version)

    def conll_export_text(self, parser, keys, chunk, version: int = 4, source: str = "<input>", step=None):
        """(:meth:`export_text`, the number of words) of words given as the CoNLL-U lines that
        :func:`~maltpy.formats.exportread.export_words` writes (``chunk``: as the CoNLL-U
        scanner's :class:`~maltpy.formats.scan.Chunk`), parsed by the compiled chunk path
        (:class:`~maltpy.parsing.stream.ChunkParser`; ``step``: one made already) without a
        Python object per word; None where that path cannot parse them (the caller then takes
        :meth:`export_text`'s)."""
        from maltpy.transform.discdecode import Columns
        if step is None:
            step = self.chunk_step(parser)
        if step is None or chunk.n_sentences != len(keys):
            return None
        columns = [Columns.of_spans(*chunk.word_spans(k)) for k in (1, 2, 3, 4)]
        rows = step.output_rows(chunk, lambda k: f"{source}: sentence {keys[k]}")
        return self.rows_text(*rows, columns, keys, version), chunk.n_words

    @staticmethod
    def chunk_step(parser):
        """The :class:`~maltpy.parsing.stream.ChunkParser` of :meth:`conll_export_text` (on the
        ``jobs`` threads of the parser's settings), or None where the compiled path cannot parse
        with this parser."""
        from maltpy.config import threads
        from maltpy.parsing.stream import ChunkParser, unsupported
        if unsupported(parser) is not None:
            return None
        return ChunkParser(parser, threads(parser.settings.jobs), one_root=parser.one_root())

    def rows_text(self, offsets, heads, labels, names, columns, keys, version: int = 4) -> bytes:
        """Export text of parses given as corpus rows (each sentence's first row the root's;
        ``names``: the label ids' names) of words whose FORM, LEMMA, UPOS and XPOS (the tag and
        morphology) are ``columns``, four :class:`~maltpy.transform.discdecode.Columns` as the
        encoding reads them (:func:`batch_columns`); the rest as :meth:`export_text`."""
        from maltpy.transform.discdecode import Columns, decode_export
        from maltpy.formats.export import VIRTUAL_ROOT, split_label
        roots = np.asarray(offsets[:-1])
        tok_heads = np.ascontiguousarray(np.delete(heads, roots), dtype=np.int32)
        tok_labels = np.ascontiguousarray(np.delete(labels, roots), dtype=np.int32)
        tok_offsets = np.ascontiguousarray(np.asarray(offsets, dtype=np.int64) - np.arange(len(offsets)))
        unary_names, unary_map, unary_of = self.unary.tables()
        symbols = dict.fromkeys([VIRTUAL_ROOT] + unary_names)          # symbol -> its number, in order
        parts = [split_label(name) for name in names]
        symbols.update((z, None) for z, _ in parts if z not in symbols)
        number = {z: i for i, z in enumerate(symbols)}
        return decode_export(tok_offsets, tok_heads, tok_labels, *columns, Columns(list(keys)),
                             np.array([number[z] for z, _ in parts], dtype=np.int32),
                             np.array([k for _, k in parts], dtype=np.int32), Columns(list(symbols)),
                             number[VIRTUAL_ROOT], unary_map,
                             np.array([number[unary_names[i]] for i in unary_of], dtype=np.int32), version)

    def parse_sentences(self, parser, words_tags, keys, lemmas=None, morphs=None):
        """(words, tags) pairs parsed: (their (heads, labels), the trees as ExportSentence
        objects keyed by ``keys``); ``lemmas`` and ``morphs``: per sentence, what the encoding
        puts in LEMMA and XPOS (a feature model may read them; the trees keep them)."""
        from maltpy.formats.export import decode_discontinuous
        parses = parser.parse_trees(self.column_batch(words_tags, lemmas, morphs))

        def back(values):
            return [to_export(v) for v in values] if values is not None else None
        trees = [self.unary.apply(decode_discontinuous(list(w), list(t), heads, labels, key,
                                                       back(lemmas[j] if lemmas else None),
                                                       back(morphs[j] if morphs else None)))
                 for j, ((w, t), (heads, labels), key) in enumerate(zip(words_tags, parses, keys))]
        return parses, trees

    def parse_file(self, parser, source, target, input_format: Optional[str], output_format: Optional[str],
                   progress: bool = False):
        """Tagged words (export, discbracket or CoNLL) -> trees (export, discbracket) or the
        encoded dependency trees (CoNLL-U); returns (sentences, tokens). The input is read, parsed
        and written a piece at a time, in flat memory: trees to trees by :meth:`parse_pieces`,
        the rest by :meth:`input_batches`."""
        from maltpy.acyclic import acyclic
        from maltpy.formats.conll import FORMATS, write_conll
        from maltpy.output import open_output
        from maltpy.progress import progress_bar
        out_fmt = output_format or "export"
        if out_fmt not in TREE_FORMATS + FORMATS:
            raise MaltpyError(f"a discontinuous parser writes export, discbracket or the encoded trees as CoNLL-U, "
                              f"not {out_fmt}")
        fmt = input_format or "export"
        if fmt not in TREE_FORMATS + FORMATS:
            raise MaltpyError(f"a discontinuous parser reads export, discbracket or CoNLL, not {fmt}")
        if fmt in TREE_FORMATS and out_fmt in TREE_FORMATS:
            return self.parse_pieces(parser, source, target, fmt, out_fmt, progress)
        counts = [0, 0]
        bar = progress_bar(None, "parsing", progress, unit="tok")

        def counted(batches):
            for batch in batches:
                n_tokens = sum(len(w) for w, _ in batch[0])
                counts[0] += len(batch[1])
                counts[1] += n_tokens
                if bar:
                    bar.update(n_tokens)
                yield batch
        batches = counted(self.input_batches(source, fmt))
        try:
            with acyclic():     # the file's sentences and trees hold no reference cycles
                if out_fmt in FORMATS:
                    write_conll(self.encoded_parses(parser, batches), target)
                else:
                    with open_output(target, binary=True, stream=True) as out:
                        for words_tags, keys, lemmas, morphs, version in batches:
                            if out_fmt == "export":
                                out.write(self.export_text(parser, words_tags, keys, lemmas, morphs, version,
                                                           input_name(source)))
                            else:
                                out.write(self.discbracket_text(parser, words_tags, keys, lemmas, morphs))
        finally:
            if bar:
                bar.close()
        return counts[0], counts[1]

    @staticmethod
    def input_batches(source, fmt: str):
        """What the parser reads of an input (export, discbracket or CoNLL), a batch at a time:
        ((words, tags) pairs, keys, lemmas, morphology, the export format)."""
        from maltpy.chunks import chunked
        from maltpy.formats.conll import iter_conll
        from maltpy.formats.export import conll_key
        from maltpy.formats.pieces import read_in_pieces
        if fmt in TREE_FORMATS:
            def read(path, piece, text, first_line, version):
                batch = read_piece(text, path, first_line, fmt, version)
                return batch, len(batch[1]), batch[4]
            yield from read_in_pieces(source, fmt, PIECE_SIZE, read)
            return
        tag = 3 if fmt == "conllu" else 4
        number = 0
        for sentences in chunked(iter_conll(source, fmt), CONLL_BATCH):
            words_tags, keys = [], []
            for s in sentences:
                tags = [r[tag] if r[tag] != "_" else r[3] for r in s.rows]
                if "_" in tags:
                    raise InputFormatError(s.source, s.first_line, "a word without a tag: a discontinuous "
                                                                   "parser reads tagged words (a model learned "
                                                                   "with --tagger all tags them)")
                words_tags.append((s.forms, tags))
                number += 1
                keys.append(conll_key(s, number))
            yield (words_tags, keys, [s.column(2) for s in sentences],
                   [s.column(4) if fmt == "conllu" else ["_"] * len(s) for s in sentences], 4)

    def encoded_parses(self, parser, batches):
        """The parses of :meth:`input_batches`' batches as the encoded trees, CoNLL-U sentences
        as ``-m convert`` writes them (``# sent_id``: the key), for ``-m convert`` back."""
        for words_tags, keys, lemmas, morphs, _ in batches:
            parses = self.parse_sentences(parser, words_tags, keys, lemmas, morphs)[0]
            for (w_, t_), lem, mor, (h, lab), key in zip(words_tags, lemmas, morphs, parses, keys):
                yield Sentence([[str(k), w, l, t, m, "_", "_", "_", "_", "_"] for k, w, t, l, m in
                                zip(range(1, len(w_) + 1), w_, t_, lem, mor)], [(0, f"# sent_id = {key}")],
                               0, "<input>", "conllu")._with_tree(h, lab)

    def discbracket_text(self, parser, words_tags, keys, lemmas=None, morphs=None) -> bytes:
        """The trees parsed from (words, tags) pairs as discbracket lines (Python's decoder and
        :func:`~maltpy.formats.export.to_discbracket`)."""
        from maltpy.formats.export import ExportFile, format_discbracket
        trees = self.parse_sentences(parser, words_tags, keys, lemmas, morphs)[1]
        return format_discbracket(ExportFile(trees)).encode("utf-8")

    def parse_pieces(self, parser, source, target, fmt: str, out_fmt: str, progress: bool = False,
                     piece_size: Optional[int] = None):
        """Export or discbracket in, export or discbracket out, a piece of whole sentences
        (:data:`PIECE_SIZE` bytes) at a time, so that memory stays flat whatever the file's
        size; returns (sentences, tokens). Each piece is read compiled where it is plain (else by
        the Python readers, which name the line of an error), parsed by the compiled chunk path
        and decoded compiled; the output is the same bytes as when the file is read whole. An
        error in a piece is raised after the pieces before it are written (a file appears only
        whole)."""
        from maltpy.acyclic import acyclic
        from maltpy.formats.pieces import read_in_pieces
        from maltpy.output import open_output
        from maltpy.progress import progress_bar
        step = self.chunk_step(parser)
        bar = progress_bar(None, "parsing", progress, unit="tok")
        n_sentences = n_tokens = 0

        def read(path, piece, text, first_line, version):
            data, n_sent, n_tok, version = self.parse_piece(parser, step, path, piece, text, first_line, fmt,
                                                            out_fmt, version)
            return (data, n_sent, n_tok), n_sent, version
        try:
            with open_output(target, binary=True, stream=True) as out, acyclic():
                for data, n_sent, n_tok in read_in_pieces(source, fmt, piece_size or PIECE_SIZE, read):
                    out.write(data)
                    n_sentences += n_sent
                    n_tokens += n_tok
                    if bar:
                        bar.update(n_tok)
        finally:
            if bar:
                bar.close()
        return n_sentences, n_tokens

    def parse_piece(self, parser, step, path: str, piece: bytes, text: str, first_line: int, fmt: str,
                    out_fmt: str, version: Optional[int]):
        """(output bytes, sentences, tokens, the file's format so far) of one piece of
        :meth:`parse_pieces` (its bytes and their text; ``first_line``: its first line's number
        in the file; ``version``: the format the file's earlier pieces set; ``step``:
        :meth:`chunk_step`'s)."""
        if fmt == "export":
            fast = compiled_export_words(text, True, piece, version, first_line > 1)
        else:
            fast = compiled_discbracket_words(piece, first_line)
        if fast is not None and step is not None:
            keys, chunk, version = fast
            parsed = self.conll_export_text(parser, keys, chunk, version, path, step)
            out = parsed[0] if parsed is not None else None
            if out is not None and out_fmt == "discbracket":
                from maltpy.formats.discbracketio import export_discbracket
                out = export_discbracket(out, version)
            if out is not None:
                return out, len(keys), chunk.n_words, version
        # the compiled reader, where it already refused the text, is not asked again
        words_tags, keys, lemmas, morphs, version = read_piece(text, path, first_line, fmt, version, fast is not None)
        n_tokens = sum(len(w) for w, _ in words_tags)
        if out_fmt == "export":
            return (self.export_text(parser, words_tags, keys, lemmas, morphs, version, path), len(keys), n_tokens,
                    version)
        return self.discbracket_text(parser, words_tags, keys, lemmas, morphs), len(keys), n_tokens, version

    # ------------------------------------------------------------------ model files
    def header(self) -> dict:
        return {"kind": self.kind, "head_rules": self.rules.text if self.rules is not None else None,
                "unary": self.unary.header()}

    def arrays(self) -> dict:
        return {}

    @classmethod
    def from_model(cls, header: dict, arrays: dict, fail) -> "DiscontinuousReduction":
        text = header.get("head_rules")
        if text is not None and not isinstance(text, str):
            fail("its head rules are damaged")
        unary = UnaryRules.from_header(header.get("unary", []), fail)
        if text is None:
            return cls(None, unary)
        from maltpy.transform.headrules import HeadRules
        try:
            return cls(HeadRules.from_text(text, "the model's head rules"), unary)
        except MaltpyError as e:
            fail(str(e))


def batch_columns(batch):
    """The FORM, LEMMA, UPOS and XPOS of a :meth:`DiscontinuousReduction.column_batch` as
    :class:`~maltpy.transform.discdecode.Columns` for :meth:`DiscontinuousReduction.rows_text`."""
    from maltpy.transform.discdecode import Columns
    return [Columns(batch.column(k)) for k in (1, 2, 3, 4)]


def to_export(value: str) -> str:
    """A LEMMA or XPOS value of the encoding as export writes it: the encoding's ``_`` is ``--``."""
    return value if value != "_" else "--"


def read_piece(text: str, path: str, first_line: int, fmt: str, version: Optional[int], compiled: bool = True):
    """What the parser reads of a piece of an export or discbracket file (its text; its first
    line is the file's line ``first_line``; ``version``: the format the file's earlier pieces
    set): ((words, tags) pairs, keys, lemmas, morphology, the format). ``compiled`` False: export
    read by the Python reader alone (for text the compiled reader refused)."""
    from maltpy.formats.export import read_discbracket_text
    if fmt == "export":
        return export_input_of_text(text, path, compiled, first_line, version)
    doc = read_discbracket_text(text, path, first_line, piece=True)
    return export_input(doc.sentences) + (doc.version,)


def read_export_input(source):
    """:func:`export_input` of an export file (a path, ``-`` for stdin) and its format (3 or 4):
    read compiled (:mod:`maltpy.formats.exportread`) where the file is plain, valid export, else
    by :func:`~maltpy.formats.export.parse_export`, which names what is wrong and where."""
    from maltpy.formats.conll import read_text
    return export_input_of_text(*read_text(source))


def export_input_of_text(text: str, path: str, compiled: bool = True, first_line: int = 1,
                         version: Optional[int] = None):
    """:func:`read_export_input` of the file's text (``compiled`` False: by ``parse_export`` alone,
    for text the compiled reader refused), or of a piece of it (``first_line``, ``version``: as
    :func:`~maltpy.formats.export.parse_export` takes them)."""
    from maltpy.formats.export import parse_export
    fast = compiled_export_words(text, version=version, continued=first_line > 1) if compiled else None
    if fast is not None:
        keys, words, tags, lemmas, morphs, version = fast
        return list(zip(words, tags)), keys, lemmas, morphs, version
    doc = parse_export(text, path, first_line, version)
    return export_input(doc.sentences) + (doc.version,)


def compiled_discbracket_words(raw: bytes, first_line: int = 1):
    """:func:`compiled_export_words` (as CoNLL-U lines) of a discbracket file's UTF-8 bytes (or
    of a piece of it whose first line is the file's line ``first_line``): the words and tags of
    each tree, keyed by its line's number; None where the file is anything
    :func:`~maltpy.formats.export.read_discbracket` might read otherwise or refuse (the caller
    then reads it so, and an error names its line)."""
    from maltpy.formats.discbracketio import discbracket_export
    from maltpy.formats.exportread import export_words
    bom = 3 if first_line == 1 and raw.startswith(b"\xef\xbb\xbf") else 0     # a byte-order mark
    export = discbracket_export(raw, bom, first_line)
    return export_words(export, 4, True) if export is not None else None


def compiled_export_words(text: str, conll: bool = False, raw: Optional[bytes] = None,
                          version: Optional[int] = None, continued: bool = False):
    """:func:`~maltpy.formats.exportread.export_words` of export text (``conll``: as CoNLL-U
    lines), the format taken from the header; None where the text is not plain, valid export.
    ``raw``: the UTF-8 bytes ``text`` was decoded from, read instead of encoding it again. A
    piece of a file after its first sentence (``continued``) has no header: ``version`` is the
    format the file's earlier lines set."""
    import re
    from maltpy.formats.export import header_version
    from maltpy.formats.exportread import export_words
    if continued:
        return export_words(raw if raw is not None else text.encode("utf-8"), version or 0, conll)
    bom = 3 if text.startswith("\ufeff") else 0     # a byte-order mark: dropped, as parse_export drops it
    if bom:
        text = text[1:]
    first = re.search(r"^#BOS", text, re.M)
    if first is None:
        return None
    for line in text[:first.start()].split("\n"):
        version = header_version(line.rstrip("\r"), version)
    if raw is None:
        return export_words(text[first.start():].encode("utf-8"), version or 0, conll)
    return export_words(raw, version or 0, conll, len(text[:first.start()].encode("utf-8")) + bom)


def export_input(sentences):
    """What a parser reads of export sentences, as the encoding writes it (``--`` is ``_``):
    ((words, tags) pairs, keys, lemmas, morphology)."""
    def column(s, name):
        return [v if v and v != "--" else "_" for v in (getattr(t, name) for t in s.tokens)]
    return ([(s.words, [t.tag for t in s.tokens]) for s in sentences], [s.key for s in sentences],
            [column(s, "lemma") for s in sentences], [column(s, "morph") for s in sentences])


def fit_discontinuous_parser(parser, trees, log=None, blank=(), encoding=None):
    """Train ``parser`` (a :class:`~maltpy.parsing.parser.Parser` with its settings) on
    discontinuous trees (ExportSentence objects): the dependency parser on their encodings
    (``encoding``: what :meth:`DiscontinuousReduction.encode` gave for them, made here when not
    given), with the CoNLL columns ``blank`` _ (those a tagger in front of it leaves untagged).
    Returns the parser, which then parses into trees and saves its head rules with the model."""
    log = log or (lambda msg: None)
    reduction = DiscontinuousReduction.from_settings(parser.settings)
    t0 = time.perf_counter()
    sentences = encoding if encoding is not None else reduction.encode(trees)
    labels = {r[7] for s in sentences for r in s.rows}
    log(f"encoded {len(sentences)} discontinuous trees ({reduction.rules_name} head rules): {len(labels)} "
        f"dependency labels" + (f", in {time.perf_counter() - t0:.1f} s" if encoding is None else ""))
    parser.fit(blank_columns(sentences, blank), fmt="conllu", log=log)
    reduction.unary = UnaryRules.learn(trees)
    log(f"unary recovery: {len(reduction.unary.table)} rules")
    parser._set_model(replace(parser.model, reduction=reduction))
    return parser
