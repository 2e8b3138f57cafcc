"""Discontinuous constituent trees: the Negra **export** format (TIGER, NEGRA, disco-dop, the
Alpino treebank of ``../shared/data/alpino``) and disco-dop's **discbracket** format.

An export sentence is a block ``#BOS key`` ... ``#EOS key``: a line per token in sentence order
(word, lemma, tag, morph, edge label, parent, then pairs of secondary edge label and parent),
then a line per phrasal node (``#500``, ``#501``, ...: ``--``, its category, ``--``, edge,
parent, secondary edges); parent ``0`` is the root. Format 4 has the lemma column, format 3 not;
a ``#FORMAT`` line or the ``%%`` header says which, else the first token line's field count.
:func:`read_export` and :func:`format_export` give back the bytes they read (a test reads and
writes every sentence of the Alpino training file).

discbracket writes a tree on one line with each terminal's index, so that a discontinuous
constituent fits in brackets: ``(ROOT (SMAIN (NP (lid 0=Het) (n 1=bulletin)) ...))``; children
are ordered by their first terminal. It keeps words, tags and categories (lemmas, morphology,
edge labels and secondary edges are export's alone).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.conll import CARRIAGE_RETURN
# brackets and white space inside words and labels, as disco-dop writes them (-LRB-, _)
from maltpy.formats.ptb import ptb_escape as _escape

#: the formats of discontinuous trees (``-if``/``-of``, by file name: .export, .discbracket)
DISCONTINUOUS_FORMATS = ("export", "discbracket")
#: the first phrasal node's number (export's convention)
FIRST_NODE = 500
_NODE = re.compile(r"#([0-9]+)$")


@dataclass
class ExportLine:
    """A token or phrasal node line: ``word`` is the token, or ``#5xx`` for a node (its ``tag``
    then its category)."""
    word: str
    lemma: str
    tag: str
    morph: str
    edge: str
    parent: int
    secedges: Tuple[Tuple[str, int], ...] = ()


@dataclass
class ExportSentence:
    """One ``#BOS`` ... ``#EOS`` block: its key (kept, so that evaluators match sentences), the
    text after ``%%`` on its ``#BOS`` line (as it is), its tokens and its phrasal nodes in file
    order."""
    key: str
    tokens: List[ExportLine]
    nodes: List[ExportLine] = field(default_factory=list)
    comment: Optional[str] = None

    @property
    def words(self) -> List[str]:
        return [t.word for t in self.tokens]

    def node_ids(self) -> List[int]:
        return [int(n.word[1:]) for n in self.nodes]

    def constituents(self) -> List[Tuple[str, frozenset]]:
        """(category, the set of its token positions, from 0) of every phrasal node."""
        ids = self.node_ids()
        below: Dict[int, set] = {i: set() for i in ids}
        parents = {i: n.parent for i, n in zip(ids, self.nodes)}
        for k, t in enumerate(self.tokens):
            p = t.parent
            seen = set()
            while p in below and p not in seen:
                seen.add(p)
                below[p].add(k)
                p = parents[p]
        return [(n.tag, frozenset(below[i])) for i, n in zip(ids, self.nodes)]


@dataclass
class ExportFile:
    """What an export file holds besides its sentences: the format (3 or 4) and the lines before
    the first sentence (the ``%%`` header, ``#FORMAT``), written back as they were."""
    sentences: List[ExportSentence]
    version: int = 4
    preamble: List[str] = field(default_factory=list)


def _fail(path, lineno, message):
    raise InputFormatError(path, lineno, message)


def _fits(fields: List[str], version: int) -> bool:
    """Whether ``fields`` make a token or node line of format ``version``: a word, the columns,
    a parent that is 0 or a node number, and pairs of secondary edges to such parents."""
    base = 6 if version == 4 else 5
    if len(fields) < base or (len(fields) - base) % 2 or not fields[0]:
        return False
    parents = [fields[base - 1]] + fields[base + 1::2]
    return all(p.isdigit() and p.isascii() and (int(p) == 0 or int(p) >= FIRST_NODE) for p in parents)


def _split_line(line: str, version: Optional[int]) -> Tuple[List[str], int]:
    """A token or node line's fields and the file's format (``version`` None: no header said it,
    so the first such line's field count says). Fields are split at each tab, as maltpy and
    disco-dop write them; a line that does not fit so (or whose fields begin or end with a
    space) but fits split at runs of tabs and spaces is split so, as disco-dop reads it: TIGER's
    and NEGRA's own files align their columns with several tabs."""
    tabbed = line.split("\t")
    # spaces that pad a column: the line is split at runs of blanks only
    padded = " " in line and any(f[:1] == " " or f[-1:] == " " for f in tabbed)
    if not padded and _fits(tabbed, _format_of(version, tabbed)):
        return tabbed, _format_of(version, tabbed)
    spaced = _RUNS.split(line.strip(" \t"))
    if _fits(spaced, _format_of(version, spaced)):
        return spaced, _format_of(version, spaced)
    return tabbed, _format_of(version, tabbed)      # refused by _parse_line, with its reason


def _format_of(version: Optional[int], fields: List[str]) -> int:
    """The file's format: ``version``, or where no header said it the first token line's field
    count (even: 4, odd: 3)."""
    return version if version is not None else 4 if len(fields) % 2 == 0 else 3


_RUNS = re.compile(r"[ \t]+")


def _parse_line(fields: List[str], version: int, path: str, lineno: int) -> ExportLine:
    base = 6 if version == 4 else 5
    if len(fields) < base or (len(fields) - base) % 2:
        _fail(path, lineno, f"expected {base} tab-separated fields and pairs of secondary edges (format "
                            f"{version}), found {len(fields)}")
    if version == 3:
        fields = fields[:1] + ["--"] + fields[1:]
    word, lemma, tag, morph, edge, parent = fields[:6]
    try:
        parent_id = int(parent)
        secedges = tuple((fields[k], int(fields[k + 1])) for k in range(6, len(fields), 2)) if len(fields) > 6 \
            else ()
    except ValueError:
        _fail(path, lineno, f"a parent must be a node number (0 for the root, 500 and up), not {parent!r}")
    if parent_id != 0 and parent_id < FIRST_NODE or (secedges and any(p != 0 and p < FIRST_NODE for _, p in secedges)):
        _fail(path, lineno, f"parent {parent_id} is neither 0 (the root) nor a node number ({FIRST_NODE} and up)")
    if not word:
        _fail(path, lineno, "the word field is empty")
    return ExportLine(word, lemma, tag, morph, edge, parent_id, secedges)


def header_version(line: str, version: Optional[int]) -> Optional[int]:
    """The format a line before the first sentence says (``#FORMAT 3``, a ``%%`` header with or
    without a lemma column), else ``version`` as it was."""
    m = re.match(r"#FORMAT\s+([34])\s*$", line)
    if m:
        return int(m.group(1))
    if line.startswith("%%") and version is None:
        return 4 if "lemma" in line.split() else 3
    return version


def parse_export(text: str, path: str = "<input>", first_line: int = 1, version: Optional[int] = None) -> ExportFile:
    """The sentences of export text; a malformed line is an :class:`InputFormatError` naming its
    file and line.

    A piece of a file read in pieces (:func:`~maltpy.formats.pieces.tree_pieces`): its first line
    is the file's line ``first_line``; ``version``: the format the file's earlier lines set. A
    piece after the first follows a sentence: it has no header, and no sentence is no error."""
    continued = first_line > 1
    if text.startswith("\ufeff") and first_line == 1:     # a byte-order mark, dropped as the CoNLL readers drop it
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    preamble: List[str] = []
    sentences: List[ExportSentence] = []
    current: Optional[ExportSentence] = None
    bos_line = 0
    for lineno, raw in enumerate(lines, first_line):
        line = raw.rstrip("\r")
        if current is None:
            if line.startswith("#BOS"):
                rest = line[len("#BOS"):]
                if not rest.strip() or rest.strip().startswith("%%"):
                    _fail(path, lineno, "#BOS needs a sentence key")
                key = rest.split()[0]
                # the comment as it is, spaces and all (written back byte for byte)
                comment = rest.split("%%", 1)[1] if "%%" in rest else None
                current, bos_line = ExportSentence(key, [], [], comment), lineno
                continue
            if sentences or continued:
                if line.strip():
                    _fail(path, lineno, "a line between sentences (after #EOS, before #BOS)")
                continue
            preamble.append(line)
            version = header_version(line, version)
            continue
        if line.startswith("#EOS"):
            key = line[len("#EOS"):].split()
            if not key or key[0] != current.key:
                _fail(path, lineno, f"#EOS {key[0] if key else ''} closes #BOS {current.key} of line {bos_line}")
            if not current.tokens:
                _fail(path, lineno, f"sentence {current.key} has no tokens")
            _check_tree(current, path, bos_line)
            sentences.append(current)
            current = None
            continue
        if "\r" in line:      # a word holding one could not be written as CoNLL, nor read by line-end readers
            _fail(path, lineno, CARRIAGE_RETURN)
        if "%%" in line:     # a comment at the end of a token or node line: dropped, as disco-dop drops it
            line = line[:line.index("%%")].rstrip(" \t")
        if "\t\t" in line or " " in line:      # perhaps aligned columns (or empty fields)
            fields, version = _split_line(line, version)
        else:
            fields = line.split("\t")
            version = _format_of(version, fields)
        item = _parse_line(fields, version, path, lineno)
        m = _NODE.match(item.word)
        # a phrasal node: #500 and up (in format 4 with lemma --); a token such as #5 stays a token
        if m and int(m.group(1)) >= FIRST_NODE and (version == 3 or item.lemma == "--"):
            current.nodes.append(item)
            continue
        if current.nodes:
            _fail(path, lineno, "a token line after the phrasal nodes")
        current.tokens.append(item)
    last = first_line - 1 + len(lines)
    if current is not None:
        _fail(path, last, f"sentence {current.key} (line {bos_line}) has no #EOS")
    if not sentences and not continued:
        _fail(path, last, "no sentences found (#BOS ... #EOS)")
    return ExportFile(sentences, version or 4, preamble)


def _check_tree(sentence: ExportSentence, path: str, bos_line: int) -> None:
    """Every parent exists and the nodes form a tree under the root (no cycle)."""
    ids = sentence.node_ids()
    if len(set(ids)) != len(ids):
        _fail(path, bos_line, f"sentence {sentence.key} numbers two nodes alike")
    parents = {i: n.parent for i, n in zip(ids, sentence.nodes)}
    for item in sentence.tokens + sentence.nodes:
        for p in (item.parent,) + tuple(p for _, p in item.secedges):
            if p and p not in parents:
                _fail(path, bos_line, f"sentence {sentence.key}: {item.word} hangs from #{p}, which it does not have")
    # each node's path up, walked once in all: a walk stops at a node known to reach the root
    # (linear, where a walk from every node is quadratic in a deep chain of nodes)
    reaches_root = set()
    for i in ids:
        walked, p = set(), i
        while p and p not in reaches_root:
            if p in walked:
                _fail(path, bos_line, f"sentence {sentence.key}: node #{i} is its own ancestor")
            walked.add(p)
            p = parents[p]
        reaches_root |= walked


#: bytes of an export or discbracket file read at a time by :func:`iter_tree_pieces`
PIECE_SIZE = 1 << 20


def iter_tree_pieces(source, fmt: str, piece_size: int = PIECE_SIZE) -> Iterator[ExportFile]:
    """The trees of an export or discbracket file (a path, ``-`` for stdin) a piece of about
    ``piece_size`` bytes at a time, in flat memory: an :class:`ExportFile` a piece, the first
    with the file's preamble; errors name the file and line as :func:`read_export` and
    :func:`read_discbracket` name them (for a file of gigabytes)."""
    from maltpy.formats.pieces import read_in_pieces

    def read(path, piece, text, first_line, version):
        doc = parse_export(text, path, first_line, version) if fmt == "export" else \
            read_discbracket_text(text, path, first_line, piece=True)
        return doc, len(doc.sentences), doc.version
    return read_in_pieces(source, fmt, piece_size, read)


def read_export(source) -> ExportFile:
    """An export file (a path, ``-`` for stdin), as :func:`parse_export` reads it."""
    from maltpy.formats.conll import read_text
    return parse_export(*read_text(source))


def unwritable(value: str, version: int = 4, word: bool = False, lemma: str = "--") -> Optional[str]:
    """Why a field of a token line (the ``word`` itself when so, with its ``lemma``) would not read
    back from an export file, which has no escapes; None when it would. Its readers (maltpy's,
    disco-dop's) take ``%%`` for a comment, a field that begins or ends with a space for aligned
    columns, and a word ``#500`` (500 or more; format 3, or lemma ``--``) or ``#EOS...`` for a
    phrasal node or a sentence's end."""
    if "%%" in value:
        return "holds %%, which begins a comment there"
    if value[:1] == " " or value[-1:] == " ":
        return "begins or ends with a space, which reads as aligned columns there"
    if word and value[:1] == "#":
        m = _NODE.match(value)
        if value.startswith("#EOS") or (m and int(m.group(1)) >= FIRST_NODE and (version == 3 or lemma == "--")):
            return "reads as a phrasal node or a sentence's end there"
    return None


def check_writable(words, tags, lemmas, morphs, version: int, where, underscore: str = "_") -> None:
    """A :class:`MaltpyError` for the first word of a sentence whose fields an export file
    cannot hold (:func:`unwritable`), named by ``where()`` (its sentence) and its number.
    ``underscore``: what a lemma ``_`` is written as (the parse path writes ``--``)."""
    # the usual sentence passes in one look at its fields joined (no %%, no space at a field's
    # end, no field starting with #)
    joined = "\t" + "\t".join([*words, *tags, *(lemmas or ()), *(morphs or ())]) + "\t"
    if "%%" not in joined and " \t" not in joined and "\t " not in joined and "\t#" not in joined:
        return
    for k, word in enumerate(words):
        lemma = lemmas[k] if lemmas else "--"
        lemma = underscore if lemma == "_" else lemma
        for value, is_word in ((word, True), (lemma, False), (tags[k], False), (morphs[k] if morphs else "--", False)):
            problem = unwritable(value, version, is_word, lemma)
            if problem is not None:
                raise MaltpyError(f"{where()}, word {k + 1}: {value!r} {problem}, so an export file cannot hold it "
                                  "(write -of discbracket or conllu)")


def _line(item: ExportLine, version: int) -> str:
    fields = [item.word] + ([item.lemma] if version == 4 else []) + [item.tag, item.morph, item.edge,
                                                                      str(item.parent)]
    for label, parent in item.secedges:
        fields += [label, str(parent)]
    return "\t".join(fields)


def format_export(doc: ExportFile, source: Optional[str] = None) -> str:
    """Export text: the preamble, then each sentence's block; an error (naming ``source``, where
    the trees come from, and the sentence) for a word an export file cannot hold."""
    out = list(doc.preamble)
    for s in doc.sentences:
        check_writable([t.word for t in s.tokens], [t.tag for t in s.tokens], [t.lemma for t in s.tokens],
                       [t.morph for t in s.tokens], doc.version,
                       lambda: f"{source}: sentence {s.key}" if source else f"sentence {s.key}")
        out.append(f"#BOS {s.key}" + (f" %%{s.comment}" if s.comment is not None else ""))
        out.extend(_line(t, doc.version) for t in s.tokens)
        out.extend(_line(n, doc.version) for n in s.nodes)
        out.append(f"#EOS {s.key}")
    return "\n".join(out) + "\n"


def write_export(doc: ExportFile, target) -> None:
    """Write export text to a path or ``-`` (whole or not at all)."""
    from maltpy.output import open_output
    with open_output(target) as f:
        f.write(format_export(doc))


# ---------------------------------------------------------------- discbracket
def _children(sentence: ExportSentence) -> Dict[int, List[Tuple[int, object]]]:
    """Node id (0: the root) -> its children as (first terminal, token index or node id); a node
    with no word under it has the first terminal ``len(sentence.tokens)``, after every word."""
    # each token goes up until a node that an earlier (smaller) token already reached: every
    # node is passed once, where the nodes' whole spans would take time of tokens x depth
    parents = {i: n.parent for i, n in zip(sentence.node_ids(), sentence.nodes)}
    spans: Dict[int, int] = {}
    for k, t in enumerate(sentence.tokens):
        p = t.parent
        while p in parents and p not in spans:
            spans[p] = k
            p = parents[p]
    kids: Dict[int, List[Tuple[int, object]]] = {0: []}
    for i in sentence.node_ids():
        kids.setdefault(i, [])
    for k, t in enumerate(sentence.tokens):
        kids[t.parent].append((k, ("token", k)))
    for i, n in zip(sentence.node_ids(), sentence.nodes):
        kids[n.parent].append((spans.get(i, len(sentence.tokens)), ("node", i)))
    for v in kids.values():
        v.sort(key=lambda x: (x[0], x[1][0] == "node"))
    return kids


def _postorder(root, children) -> list:
    """``root`` and everything under it, each after all of its children, the children visited
    in the order ``children(node)`` gives (a stack, not recursion: trees may be thousands of nodes
    deep)."""
    out, stack = [], [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            out.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children(node)))
    return out


def to_discbracket(sentence: ExportSentence, root: str = "ROOT") -> str:
    """One tree in discbracket notation (``index=word`` leaves under their tags). A phrasal node
    with no word under it, which export allows and discbracket cannot hold, is left out."""
    kids = _children(sentence)
    labels = {i: n.tag for i, n in zip(sentence.node_ids(), sentence.nodes)}
    empty = len(sentence.tokens)      # the first terminal _children gives a node with no word

    # written with a stack, not recursion: a tree may be thousands of nodes deep
    parts: List[str] = []
    stack: List[object] = [")", *reversed([c for first, c in kids[0] if first < empty])]
    parts.append(f"({root}")
    while stack:
        item = stack.pop()
        if item == ")":
            parts.append(")")
            continue
        kind, i = item
        if kind == "token":
            t = sentence.tokens[i]
            parts.append(f" ({_escape(t.tag)} {i}={_escape(t.word)})")
        else:
            parts.append(f" ({_escape(labels[i])}")
            stack.append(")")
            stack.extend(reversed([c for first, c in kids[i] if first < empty]))
    return "".join(parts)


_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse_discbracket(line: str, key: str, path: str = "<input>", lineno: int = 0) -> ExportSentence:
    """A discbracket tree as an export sentence (edge labels ``--``; lemma and morph ``--``;
    nodes numbered from 500 bottom-up in the order their brackets close)."""
    tokens = _TOKEN.findall(line)
    pos = 0
    leaves: Dict[int, Tuple[str, str, int]] = {}
    nodes: List[list] = []

    def fail(message):
        _fail(path, lineno, message)

    def leaf_or_label():
        """At a '(' : the leaf (TAG i=word) it opens, or the label of a constituent."""
        nonlocal pos
        if pos >= len(tokens) or tokens[pos] != "(":
            fail("expected '(' in the bracketed tree")
        pos += 1
        if pos >= len(tokens) or tokens[pos] in "()":
            fail("a bracket without a label")
        label = tokens[pos]
        pos += 1
        if pos < len(tokens) and tokens[pos] not in "()" and "=" in tokens[pos]:   # (TAG i=word)
            index, _, word = tokens[pos].partition("=")
            if not index.isdecimal() or not word:      # isdigit() would let a superscript through to int()
                fail(f"a leaf must be index=word, not {tokens[pos]!r}")
            pos += 1
            if pos >= len(tokens) or tokens[pos] != ")":
                fail("a preterminal holds one index=word leaf")
            pos += 1
            return ("leaf", int(index), label, word)
        return ("open", label)

    # a stack of open constituents (label, children), not recursion: trees may be deep
    first = leaf_or_label()
    if first[0] == "leaf":
        tree = first
    else:
        tree = None
        open_nodes = [(first[1], [])]
        while open_nodes:
            if pos < len(tokens) and tokens[pos] == "(":
                item = leaf_or_label()
                if item[0] == "leaf":
                    open_nodes[-1][1].append(item)
                else:
                    open_nodes.append((item[1], []))
                continue
            if pos < len(tokens) and tokens[pos] not in "()":
                fail(f"a leaf must be index=word under its tag, as (TAG 3=word), not {tokens[pos]!r}")
            if pos >= len(tokens) or tokens[pos] != ")":
                fail("unbalanced brackets")
            pos += 1
            label, children = open_nodes.pop()
            if not children:
                fail(f"the constituent {label} has no children")
            done = ("node", label, children)
            if open_nodes:
                open_nodes[-1][1].append(done)
            else:
                tree = done
    if pos != len(tokens):
        fail("text after the tree's last bracket")

    def number(root) -> int:
        """Give ids bottom-up (in the order brackets close); return the root's id."""
        ids: Dict[int, int] = {}
        for item in _postorder(root, lambda x: x[2] if x[0] != "leaf" else ()):
            if item[0] == "leaf":
                continue
            node_id = FIRST_NODE + len(nodes)
            ids[id(item)] = node_id
            nodes.append([item[1], node_id])
            for child in item[2]:
                if child[0] == "leaf":
                    if child[1] in leaves:
                        fail(f"terminal {child[1]} appears twice")
                    leaves[child[1]] = (child[3], child[2], node_id)
                else:
                    parents[ids[id(child)]] = node_id
        return ids.get(id(root), -1)

    parents: Dict[int, int] = {}
    root_id = number(tree)
    if tree[0] == "leaf":       # a tree that is one word: the word, on the root
        leaves[tree[1]] = (tree[3], tree[2], root_id)
    if sorted(leaves) != list(range(len(leaves))):
        fail("the terminals' indices must be 0, 1, ..., n-1")
    # the root bracket itself is the export root (0)
    lines_out = []
    for k in range(len(leaves)):
        word, tag, parent = leaves[k]
        lines_out.append(ExportLine(_unescape(word), "--", _unescape(tag), "--", "--", 0 if parent == root_id else parent))
    node_lines = []
    for label, node_id in nodes:
        if node_id == root_id:
            continue
        parent = parents[node_id]
        node_lines.append(ExportLine(f"#{node_id}", "--", _unescape(label), "--", "--", 0 if parent == root_id else parent))
    return ExportSentence(key, lines_out, node_lines)


def _unescape(text: str) -> str:
    return text.replace("-LRB-", "(").replace("-RRB-", ")")


def read_discbracket(source) -> ExportFile:
    """A discbracket file (one tree a line; blank lines skipped); keys are line numbers."""
    from maltpy.formats.conll import read_text
    return read_discbracket_text(*read_text(source))


def read_discbracket_text(text: str, path: str = "<input>", first_line: int = 1,
                          piece: bool = False) -> ExportFile:
    """:func:`read_discbracket` of a file's text (a byte-order mark dropped), or of a piece of it
    (``piece``: no tree is then no error, the reader of the pieces says whether the file had one)
    whose first line is the file's line ``first_line``."""
    if text.startswith("\ufeff") and first_line == 1:    # a byte-order mark, at the file's start only
        text = text[1:]
    sentences = [parse_discbracket(line, str(k), path, k) for k, line in enumerate(text.split("\n"), first_line)
                 if line.strip()]
    if not sentences and not piece:
        raise InputFormatError(path, 0, "no trees found")
    return ExportFile(sentences)


def format_discbracket(doc: ExportFile) -> str:
    return "".join(to_discbracket(s) + "\n" for s in doc.sentences)


def write_discbracket(doc: ExportFile, target) -> None:
    from maltpy.output import open_output
    with open_output(target) as f:
        f.write(format_discbracket(doc))


def same_trees(a: ExportSentence, b: ExportSentence) -> bool:
    """Whether two sentences have the same words, tags and labelled constituents (as sets of
    token positions): what discbracket keeps of a tree."""
    return ([(t.word, t.tag) for t in a.tokens] == [(t.word, t.tag) for t in b.tokens]
            and sorted(a.constituents(), key=repr) == sorted(b.constituents(), key=repr))


# ---------------------------------------------------------------- as head-ordered dependency trees
#: the label of the sentence's root: its modifiers (Alpino's and NEGRA's punctuation) attach to
#: the root word with ROOT#k; decoding hangs them from the root again
VIRTUAL_ROOT = "ROOT"


def head_child(sentence: ExportSentence, nodes: Dict[int, ExportLine], children: List[object],
               category: str = "", rules=None) -> object:
    """The head among a constituent's children (``("token", k)`` or ``("node", id)``), by head
    rules (:class:`~maltpy.transform.headrules.HeadRules`, which read the children's edge labels,
    categories and tags); without them, the child whose edge is ``hd`` or ``HD``, else the first
    phrasal child, else the first token. ``nodes``: the sentence's nodes by id."""
    lines = [sentence.tokens[c[1]] if c[0] == "token" else nodes[c[1]] for c in children]
    if rules is not None:
        return children[rules.head_child(category, [x.tag for x in lines], [x.edge for x in lines])]
    for c, line in zip(children, lines):
        if line.edge in ("hd", "HD"):
            return c
    for c in children:
        if c[0] == "node":
            return c
    return children[0]


def encode_discontinuous(sentence: ExportSentence, rules=None) -> Tuple[List[int], List[str]]:
    """A (possibly discontinuous) tree as a head-ordered dependency tree, direct encoding
    (Algorithm 1 of Fernández-González & Martins 2015): 1-based heads (0: the root word) and
    labels ``Z#k`` (Z: the constituent the word attaches at, k: the attachment event on its
    head's spine; the root word ``ROOT``). Unary constituents and constituents with no word under
    them leave no trace. ``rules``: head rules (see :func:`head_child`)."""
    kids = _children(sentence)
    nodes_by_id = dict(zip(sentence.node_ids(), sentence.nodes))
    labels_of = {i: n.tag for i, n in nodes_by_id.items()}
    labels_of[0] = VIRTUAL_ROOT
    n = len(sentence.tokens)
    heads, labels = [0] * n, [VIRTUAL_ROOT] * n
    lexical: Dict[object, int] = {("token", k): k + 1 for k in range(n)}
    events = [1] * (n + 1)
    for node_id in _postorder(0, lambda i: [c[1] for _, c in kids[i] if c[0] == "node"]):
        # a node with no word under it (an empty constituent: no bracket) leaves no trace either
        children = [c for _, c in kids[node_id] if c in lexical]
        if not children:
            continue
        head = head_child(sentence, nodes_by_id, children, labels_of[node_id], rules)
        h = lexical[head]
        lexical[("node", node_id)] = h
        modifiers = [lexical[c] for c in children if c != head]
        for m in modifiers:
            heads[m - 1] = h
            labels[m - 1] = f"{labels_of[node_id]}#{events[h]}"
        if modifiers:
            events[h] += 1
    return heads, labels


#: the largest attachment event a label may say (larger ones count as it: the compiled decoder's int)
MAX_EVENT = 2 ** 31 - 1


def split_label(label: str) -> Tuple[str, int]:
    """(the constituent, the attachment event) of an encoded label ``Z#k``; a label without an
    event (``ROOT``, ``Z#x``) has event 0, and one without ``#`` is its own constituent."""
    z, _, k = label.rpartition("#")
    return z or label, min(int(k), MAX_EVENT) if k.isascii() and k.isdigit() else 0


def decode_discontinuous(words: List[str], tags: List[str], heads: List[int], labels: List[str],
                         key: str = "1", lemmas: Optional[List[str]] = None,
                         morphs: Optional[List[str]] = None) -> ExportSentence:
    """A head-ordered dependency tree back to a tree (Algorithm 2): each head's modifiers in
    classes by their event index, one constituent per class, labelled as the class's modifier
    closest to the head says; constituents may be discontinuous. A ``ROOT`` constituent is the
    sentence's root (one below another constituent, from an ill-formed parse, dissolves into it). The dependency tree must be a tree with one root word. ``lemmas`` and ``morphs``:
    the tokens' (``--`` where not given)."""
    n = len(words)
    if not (len(tags) == len(heads) == len(labels) == n):
        raise MaltpyError("decode: words, tags, heads and labels differ in length")
    dependents: Dict[int, List[int]] = {h: [] for h in range(n + 1)}
    for m, h in enumerate(heads, 1):
        dependents[h].append(m)
    if len(dependents[0]) != 1:
        raise MaltpyError(f"decode: the tree has {len(dependents[0])} root words, not one")
    psi: Dict[int, Tuple[str, int]] = {}
    nodes: List[Tuple[int, str, List[Tuple[str, int]]]] = []
    # the dependency tree's postorder, the dependents last to first (the order nodes are numbered in)
    order = _postorder(dependents[0][0], lambda h: dependents[h][::-1])
    if len(order) != n:
        raise MaltpyError("decode: the heads do not form a tree")
    for h in order:
        psi[h] = ("token", h - 1)
        classes: Dict[int, List[int]] = {}
        for m in dependents[h]:
            classes.setdefault(split_label(labels[m - 1])[1], []).append(m)
        for k in sorted(classes):
            members = classes[k]
            closest = min(members, key=lambda m: (abs(m - h), m))
            label = split_label(labels[closest - 1])[0]
            node_id = FIRST_NODE + len(nodes)
            nodes.append((node_id, label, [psi[h]] + [psi[m] for m in members]))
            psi[h] = ("node", node_id)
    parent: Dict[Tuple[str, int], int] = {}
    for node_id, _, children in nodes:
        for c in children:
            parent[c] = node_id
    roots = {node_id for node_id, label, _ in nodes if label == VIRTUAL_ROOT}

    # A ROOT constituent is the root itself (export parent 0) where it is the top of the tree;
    # one that an ill-formed parse puts lower dissolves into the constituent above it, so that
    # no constituent is left without a word under it.
    def above(p):
        while p in roots:
            p = parent.get(("node", p), 0)
        return p
    parent = {c: above(p) for c, p in parent.items()}
    lemmas, morphs = lemmas or ["--"] * n, morphs or ["--"] * n
    tokens = [ExportLine(words[k], lemmas[k], tags[k], morphs[k], "--", parent.get(("token", k), 0))
              for k in range(n)]
    lines = [ExportLine(f"#{node_id}", "--", label, "--", "--", parent.get(("node", node_id), 0))
             for node_id, label, _ in nodes if node_id not in roots]
    return ExportSentence(key, tokens, lines)


def unaryless_constituents(sentence: ExportSentence) -> List[Tuple[str, frozenset]]:
    """The constituents an encoding keeps: those of two or more children, as (label, yield)."""
    kids = _children(sentence)
    return sorted(((lab, span) for (lab, span), i in zip(sentence.constituents(), sentence.node_ids())
                   if len(kids[i]) >= 2), key=repr)


def to_conll(sentence: ExportSentence, rules=None):
    """A tree as the CoNLL-U sentence of its head-ordered dependency tree (``# sent_id`` the
    ``#BOS`` key; LEMMA the lemma, UPOS the tag, XPOS the morphology, DEPREL ``Z#k``), what a
    dependency parser learns from (:func:`from_conll` reads a parse back). ``rules``: head rules."""
    from maltpy.formats.conll import Sentence
    heads, labels = encode_discontinuous(sentence, rules)

    def field(v):
        return v if v and v != "--" else "_"

    rows = [[str(k), t.word, field(t.lemma), field(t.tag), field(t.morph), "_", str(h), lab, "_", "_"]
            for k, (t, h, lab) in enumerate(zip(sentence.tokens, heads, labels), 1)]
    return Sentence(rows, [(0, f"# sent_id = {sentence.key}")], format="conllu")


_SENT_ID = re.compile(r"#\s*sent_id\s*=(.*)")


def conll_key(sentence, number: int) -> str:
    """A CoNLL sentence's ``#BOS`` key: the value of its ``# sent_id = ...`` comment (blanks
    inside made ``_``, since a key is one field), else ``number``. A ``# sent_id`` line with no
    ``=`` or no value gives the number (it stopped -m convert with an internal error)."""
    for _, line in sentence.extra:
        m = _SENT_ID.match(line)
        if m and m.group(1).strip():
            return "_".join(m.group(1).split())
    return str(number)


def from_conll(sentence, number: int) -> ExportSentence:
    """A CoNLL sentence whose tree is a head-ordered dependency tree (a parse) as a tree; the
    key is its ``# sent_id`` where it has one, else its number (:func:`conll_key`)."""
    key = conll_key(sentence, number)
    tree = decode_discontinuous(sentence.forms, [r[3] for r in sentence.rows], sentence.heads,
                                [lab or VIRTUAL_ROOT for lab in sentence.labels], key)
    for token, row in zip(tree.tokens, sentence.rows):
        token.lemma = row[2] if row[2] != "_" else "--"
        token.morph = row[4] if row[4] != "_" else "--"
    return tree
