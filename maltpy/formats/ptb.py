"""Penn Treebank bracketed trees: reading, clean-up and writing.

A file holds trees one after another, each over one or many lines, each either bare
(``(S (NP (DT The) ...))``) or inside the treebank's unlabelled wrapper (``( (S ...) )``).
:func:`read_ptb` returns :class:`PtbTree` items that remember their wrapper, so that
:func:`write_ptb` writes one tree per line in the input's style, which EVALB reads.

Clean-up (``clean=True``, the usual practice before training or decoding): ``-NONE-``
elements and the constituents they leave empty are dropped, and function tags and indices
are stripped from phrase labels (``NP-SBJ-1`` and ``NP=2`` become ``NP``; POS tags such as
``-LRB-`` are left alone).
"""
from __future__ import annotations

import bisect
import re
from typing import Iterable, Iterator, List, Optional

from maltpy.errors import InputFormatError, MaltpyError
from maltpy.output import open_output

#: file-name endings read and written as bracketed trees
EXTENSIONS = (".mrg", ".ptb")
_TOKEN = re.compile(r"\(|\)|[^\s()]+")
EMPTY = "-NONE-"


class Tree:
    """A constituent: ``label`` and ``children`` (Trees), or a pre-terminal: ``label`` (the POS
    tag) and ``word`` (``children`` is empty)."""
    __slots__ = ("label", "children", "word")

    def __init__(self, label: str, children=None, word: Optional[str] = None):
        self.label = label
        self.children = children if children is not None else []
        self.word = word

    @property
    def is_preterminal(self) -> bool:
        return self.word is not None

    def __repr__(self):
        return f"Tree({self.to_string()!r})"

    def __eq__(self, other):
        return isinstance(other, Tree) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def preterminals(self) -> List["Tree"]:
        """The pre-terminals, left to right."""
        out, stack = [], [self]
        while stack:
            t = stack.pop()
            if t.word is not None:
                out.append(t)
            else:
                stack.extend(reversed(t.children))
        return out

    def words(self) -> List[str]:
        return [t.word for t in self.preterminals()]

    def tags(self) -> List[str]:
        return [t.label for t in self.preterminals()]

    def to_string(self) -> str:
        parts: List[str] = []
        _write(self, parts)
        return "".join(parts)


def _write(t: Tree, parts: List[str]) -> None:
    # iterative: deep trees do not reach Python's recursion limit
    stack: List[object] = [t]
    while stack:
        t = stack.pop()
        if isinstance(t, str):
            parts.append(t)
        elif t.word is not None:
            parts.append(f"({t.label} {t.word})")
        else:
            parts.append("(" + t.label)
            stack.append(")")
            for c in reversed(t.children):
                stack.append(c)
                stack.append(" ")


class PtbTree:
    """One tree of a file: ``tree``, whether it came inside the unlabelled wrapper
    (``wrapped``), and where it starts (``source``, ``first_line``) for messages."""
    __slots__ = ("tree", "wrapped", "first_line", "source")

    def __init__(self, tree: Tree, wrapped: bool = False, first_line: int = 0, source: str = "<input>"):
        self.tree, self.wrapped, self.first_line, self.source = tree, wrapped, first_line, source

    def __len__(self):
        return len(self.tree.preterminals())

    def to_line(self) -> str:
        text = self.tree.to_string()
        return f"( {text})" if self.wrapped else text


def is_ptb_path(path) -> bool:
    return path not in (None, "-") and str(path).lower().endswith(EXTENSIONS)


#: every character the readers split tokens at (``\s``: the 29 of ``str.isspace``, a no-break
#: space among them; maltpy/formats/blanks.pxd), listed: finding them among the code points took
#: 6 ms of every start-up
WHITE_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
#: brackets as the treebank writes them, white space as _
_ESCAPES = str.maketrans({"(": "-LRB-", ")": "-RRB-", **dict.fromkeys(WHITE_SPACE, "_")})


def ptb_escape(text: str) -> str:
    """A word or tag as a bracketed tree (Penn Treebank or discbracket) can hold it: brackets as
    the treebank writes them (``-LRB-``, ``-RRB-``), spaces and other white space as ``_``."""
    return text.translate(_ESCAPES)


def strip_function_tags(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``NP=2`` -> ``NP``; labels that begin with '-' (``-NONE-``,
    ``-LRB-``) are kept."""
    if not label or label[0] == "-":
        return label
    cut = len(label)
    for sep in "-=":
        k = label.find(sep)
        if 0 < k < cut:
            cut = k
    return label[:cut]


def clean_tree(t: Tree) -> Optional[Tree]:
    """A copy without ``-NONE-`` elements, empty constituents and function tags; None when
    nothing is left."""
    built = {}
    stack = [(t, False)]
    while stack:
        node, done = stack.pop()
        if node.word is not None:
            built[id(node)] = None if node.label == EMPTY else Tree(node.label, word=node.word)
        elif done:
            kids = [built.pop(id(c)) for c in node.children]
            kids = [c for c in kids if c is not None]
            built[id(node)] = Tree(strip_function_tags(node.label), kids) if kids else None
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children)
    return built[id(t)]


class _Reader:
    """Tokens of one text with their line numbers, and the trees they make."""

    def __init__(self, text: str, path: str, first_line: int = 1):
        self.text, self.path, self.first_line = text, path, first_line
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + self.first_line

    def fail(self, pos: int, message: str):
        raise InputFormatError(self.path, self.line(pos), message)

    def trees(self, clean: bool):
        """(tree, wrapped, first line) for every top-level bracket of the text."""
        tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(self.text)]
        k, n = 0, len(tokens)
        while k < n:
            tok, pos = tokens[k]
            if tok == ")":
                self.fail(pos, "unbalanced brackets: ')' without a matching '('")
            if tok != "(":
                self.fail(pos, f"word {tok!r} outside a tree: every word needs its own (TAG word) bracket")
            tree, k = self._tree(tokens, k, clean)
            wrapped = tree.label == "" and len(tree.children) == 1 and tree.word is None
            if wrapped:
                tree = tree.children[0]
            elif tree.label == "" and tree.word is None:
                self.fail(pos, f"a tree without a label holds {len(tree.children)} trees; "
                               "the unlabelled wrapper ( ... ) holds exactly one")
            if clean:
                tree = clean_tree(tree)
                if tree is None:
                    continue   # only -NONE- elements
            yield tree, wrapped, self.line(pos)

    def _tree(self, tokens, k, clean: bool = True):
        """The bracket opening at tokens[k], and the index after it (iterative: deep trees
        do not reach Python's recursion limit)."""
        n = len(tokens)
        stack: List[Tree] = []
        opened: List[int] = []
        while k < n:
            tok, pos = tokens[k]
            if tok == "(":
                label = ""
                if k + 1 < n and tokens[k + 1][0] not in "()":
                    label = tokens[k + 1][0]
                    k += 1
                # a pre-terminal: (TAG word)
                if k + 2 < n and tokens[k + 1][0] not in "()" and tokens[k + 2][0] == ")":
                    if not label:
                        self.fail(pos, f"word {tokens[k + 1][0]!r} has no POS tag: write (TAG word)")
                    leaf = Tree(label, word=tokens[k + 1][0])
                    k += 3
                    if not stack:
                        return leaf, k
                    stack[-1].children.append(leaf)
                    continue
                if k + 1 < n and tokens[k + 1][0] not in "()":
                    self.fail(tokens[k + 1][1], f"word {tokens[k + 1][0]!r} outside a pre-terminal: "
                                                f"in ({label} ...) every word needs its own (TAG word) bracket")
                node = Tree(label, [])
                if stack and not label and clean and k + 1 < n and tokens[k + 1][0] != ")":
                    self.fail(pos, "a constituent without a label: only the outermost bracket ( ... ) may have none")
                if stack:
                    stack[-1].children.append(node)
                stack.append(node)
                opened.append(pos)
                k += 1
            elif tok == ")":
                node = stack.pop()
                start = opened.pop()
                if not node.children:
                    self.fail(start, f"empty bracket ({node.label})" if node.label else "empty bracket ()")
                k += 1
                if not stack:
                    return node, k
            else:
                self.fail(pos, f"word {tok!r} outside a pre-terminal: every word needs its own (TAG word) bracket")
        self.fail(opened[0] if opened else len(self.text),
                  "unbalanced brackets: the tree that begins here is not closed")


def parse_ptb(text: str, path: str = "<input>", clean: bool = True) -> List[PtbTree]:
    """Trees of a bracketed text (see the module docstring); errors name file and line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = _Reader(text, path)
    trees = [PtbTree(t, w, line, path) for t, w, line in reader.trees(clean)]
    if not trees:
        raise InputFormatError(path, 0, "no trees found (the input is empty)")
    return trees


#: bytes of a bracketed-tree file read at a time by :func:`iter_ptb`
PIECE_SIZE = 1 << 20


def iter_ptb(source, clean: bool = True, piece_size: int = PIECE_SIZE) -> Iterator[PtbTree]:
    """The trees of a bracketed-tree file (a path, ``-``/None for standard input, or a file
    object), read a piece of whole trees at a time (flat memory on a treebank of any size); the
    same trees and errors, on the same lines, as :func:`parse_ptb` of the whole text."""
    from maltpy.formats.conll import _decode, open_input
    from maltpy.formats.pieces import bracket_pieces
    stream, path, close = open_input(source)
    n_trees = 0
    try:
        for piece, first_line in bracket_pieces(stream, piece_size):
            text = _decode(piece, path, first_line - 1)
            if first_line == 1 and text.startswith("\ufeff"):
                text = text[1:]
            for tree, wrapped, line in _Reader(text, path, first_line).trees(clean):
                n_trees += 1
                yield PtbTree(tree, wrapped, line, path)
    finally:
        if close:
            stream.close()
    if not n_trees:
        raise InputFormatError(path, 0, "no trees found (the input is empty)")


def read_ptb(source, clean: bool = True) -> List[PtbTree]:
    """Read a bracketed-tree file (a path, ``-``/None for standard input, or a file object)."""
    return list(iter_ptb(source, clean))


def format_ptb(trees: Iterable[PtbTree]) -> str:
    return "".join(t.to_line() + "\n" for t in trees)


def write_ptb(trees: Iterable[PtbTree], target) -> None:
    """Write one tree per line to a path (atomically: the file appears whole or not at all) or
    ``-`` (standard output: a list in one piece, any other iterable as it comes), a thousand
    trees at a time."""
    from maltpy.chunks import chunked
    streaming = not isinstance(trees, (list, tuple))
    with open_output(target, stream=streaming) as f:
        for part in chunked(trees, 1000):
            f.write(format_ptb(part))
            if streaming:
                f.flush()


def tree_from_string(text: str) -> Tree:
    """One tree from its bracketed string (cleaned), for the Python API and tests."""
    trees = parse_ptb(text, "<string>")
    if len(trees) != 1:
        raise MaltpyError(f"expected one tree, found {len(trees)}")
    return trees[0].tree
