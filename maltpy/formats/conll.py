"""Reading and writing CoNLL-X and CoNLL-U.

A :class:`Sentence` keeps every input line so that writing it back changes
only HEAD and DEPREL: comments, multiword-token ranges (``1-2``) and empty
nodes (``1.1``) pass through untouched. Column names follow MaltParser's
data-format files.
"""
from __future__ import annotations

import io
import itertools
import numbers
import re
import sys
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

from maltpy.chunks import chunked
from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.validate import BREAKS, tree_problem
from maltpy.output import open_output

#: MaltParser's column names per format, in file order.
COLUMNS = {
    "conllx": ("ID", "FORM", "LEMMA", "CPOSTAG", "POSTAG", "FEATS", "HEAD", "DEPREL", "PHEAD", "PDEPREL"),
    "conllu": ("ID", "FORM", "LEMMA", "UPOSTAG", "XPOSTAG", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"),
}
#: Columns that feature models may read with InputColumn, per format.
INPUT_COLUMNS = {
    "conllx": ("FORM", "LEMMA", "CPOSTAG", "POSTAG", "FEATS"),
    "conllu": ("FORM", "LEMMA", "UPOSTAG", "XPOSTAG", "FEATS", "DEPS", "MISC"),
}
#: Integer columns usable by InputArc / InputArcDir.
HEAD_COLUMNS = {"conllx": ("HEAD", "PHEAD"), "conllu": ("HEAD",)}
FORMATS = tuple(COLUMNS)
#: a carriage return inside a line (CoNLL, words a line, export): lines end at line feeds (a CRLF
#: end is read as one), and readers of universal line ends (UD's validate.py, Python's open)
#: would cut such a line in two
CARRIAGE_RETURN = ("a carriage return inside the line, which no field or word can hold (lines end with a "
                   "line feed or CRLF; a file whose lines end with carriage returns alone needs them made "
                   "line feeds)")
#: CoNLL-U's other token IDs: a multiword token's range (3-4) and an empty node (3.1)
_RANGE_OR_EMPTY_NODE = re.compile(r"[1-9][0-9]*-[1-9][0-9]*|(0|[1-9][0-9]*)\.[1-9][0-9]*")
HEAD, DEPREL = 6, 7


class Sentence:
    """One sentence: its word rows (lists of column strings) and its other lines.

    ``rows[k]`` is word k+1, always padded to 10 columns. ``extra`` holds the
    non-word lines as ``(position, line)`` where position is the number of word
    rows that precede the line. ``heads``/``labels`` are the HEAD and DEPREL
    columns (-1 / None where the column is ``_`` or absent). ``format``: the
    format it was read in (``conllx``/``conllu``; None when made in Python), which
    :func:`maltpy.train` keeps for a model trained on these sentences.
    """
    __slots__ = ("rows", "extra", "first_line", "source", "format")

    def __init__(self, rows, extra=(), first_line=0, source="<input>", format=None):
        self.rows = rows
        self.extra = list(extra)
        self.first_line = first_line
        self.source = source
        self.format = format

    def __len__(self):
        return len(self.rows)

    def __repr__(self):
        return f"Sentence({' '.join(self.column(1))!r})"

    def __str__(self):
        """The sentence as its CoNLL lines (comments, multiword tokens and empty nodes in place),
        each ending in a newline, with the blank line that ends a sentence: what ``print`` shows
        and a file of CoNLL holds."""
        return "".join(line + "\n" for line in self.to_lines()) + "\n"

    def column(self, index: int) -> List[str]:
        return [r[index] for r in self.rows]

    def _tags(self, index: int) -> List[Optional[str]]:
        """Column ``index``, None where it is ``_``."""
        return [r[index] if r[index] != "_" else None for r in self.rows]

    @property
    def forms(self):
        return self.column(1)

    @property
    def lemmas(self) -> List[Optional[str]]:
        """The LEMMA column, None where it is ``_``."""
        return self._tags(2)

    @property
    def upos(self) -> List[Optional[str]]:
        """CoNLL-U's UPOS (CoNLL-X's CPOSTAG), None where it is ``_``."""
        return self._tags(3)

    @property
    def xpos(self) -> List[Optional[str]]:
        """CoNLL-U's XPOS (CoNLL-X's POSTAG), None where it is ``_``."""
        return self._tags(4)

    @property
    def feats(self) -> List[Optional[str]]:
        """The FEATS column (``Number=Sing|Person=3``), None where it is ``_``."""
        return self._tags(5)

    @property
    def heads(self) -> List[int]:
        return [int(r[HEAD]) if r[HEAD] != "_" else -1 for r in self.rows]

    @property
    def labels(self) -> List[Optional[str]]:
        return self._tags(DEPREL)

    def with_tree(self, heads, labels) -> "Sentence":
        """A copy whose HEAD and DEPREL columns are replaced: one head per word (an integer,
        0 = the root) and one label (a non-empty string without tabs or line breaks). Whether the
        heads form a tree is checked where a tree is needed (training, evaluation)."""
        heads, labels = list(heads), list(labels)
        n = len(self.rows)
        if len(heads) != n or len(labels) != n:
            raise MaltpyError(f"with_tree: {len(heads)} heads and {len(labels)} labels for a sentence of "
                              f"{n} words; give one of each per word")
        for k, (h, l) in enumerate(zip(heads, labels)):
            if isinstance(h, bool) or not isinstance(h, numbers.Integral):
                raise MaltpyError(f"with_tree: the head of word {k + 1} is {h!r}, not an integer "
                                  "(0 = the root)")
            if not isinstance(l, str) or l == "" or BREAKS.search(l):
                raise MaltpyError(f"with_tree: the label of word {k + 1} is {l!r}; a label is a non-empty "
                                  "string without tabs or line breaks (use _ for none)")
        return self._with_tree(heads, labels)

    def _with_tree(self, heads, labels) -> "Sentence":
        """:meth:`with_tree` for a tree the parser made (ints and its own label strings). A CoNLL-U
        DEPS column that is given becomes the new basic arc (``HEAD:DEPREL``), so that it does not
        contradict the new tree; ``_`` stays ``_``."""
        rows = []
        deps = self.format == "conllu"
        for r, h, l in zip(self.rows, heads, labels):
            r = list(r)
            r[HEAD] = str(h)
            r[DEPREL] = l
            if deps and r[8] != "_":
                r[8] = f"{h}:{l}"
            rows.append(r)
        return Sentence(rows, self.extra, self.first_line, self.source, self.format)

    def to_lines(self) -> List[str]:
        out, k = [], 0
        extra = self.extra
        for pos, row in enumerate(self.rows):
            while k < len(extra) and extra[k][0] <= pos:
                out.append(extra[k][1])
                k += 1
            out.append("\t".join(row))
        while k < len(extra):
            out.append(extra[k][1])
            k += 1
        return out

    @classmethod
    def from_words(cls, forms, postags=None, lemmas=None, cpostags=None, feats=None, upos=None,
                   xpos=None) -> "Sentence":
        """A blind sentence from word forms and optional tags.

        ``upos`` fills the universal tag column (CoNLL-U's UPOSTAG, CoNLL-X's CPOSTAG), ``xpos``
        the language-specific one (XPOSTAG, POSTAG): a model reads the columns it was trained
        on (CoNLL-U models UPOS, CoNLL-X models POSTAG), and ``maltpy info`` shows which.
        ``postags`` fills both columns with the same tags, unless ``upos`` or ``xpos`` (or
        ``cpostags``, CoNLL-X's name for ``upos``) gives that column.
        """
        if cpostags is not None and upos is not None:
            raise MaltpyError("Sentence.from_words: cpostags is CoNLL-X's name for upos; give one of them")
        upos = upos if upos is not None else cpostags
        upos = upos if upos is not None else postags
        xpos = xpos if xpos is not None else postags
        if isinstance(forms, str):
            raise MaltpyError("Sentence.from_words takes a list of words, not a string: "
                              "split it first, e.g. text.split()")
        forms = list(forms)
        if not forms:
            raise MaltpyError("Sentence.from_words: a sentence needs at least one word (CoNLL has no empty sentences)")
        given = {1: forms, 2: lemmas, 3: upos, 4: xpos, 5: feats}
        names = {1: "forms", 2: "lemmas", 3: "upos", 4: "xpos", 5: "feats"}
        for ci, values in given.items():
            if values is None:
                continue
            if isinstance(values, str) or len(values) != len(forms):
                raise MaltpyError(f"Sentence.from_words: {names[ci]} must be a list with one entry per word "
                                  f"({len(forms)} words)")
            for v in values:
                text = str(v)
                if text == "" or BREAKS.search(text):
                    raise MaltpyError(f"Sentence.from_words: {names[ci]} entry {text!r} is empty or holds a "
                                      "tab or line break, which a CoNLL file cannot hold (use _ for none)")
        rows = []
        for k in range(len(forms)):
            row = [str(k + 1)] + ["_"] * 9
            for ci, values in given.items():
                if values is not None:
                    row[ci] = str(values[k])
            rows.append(row)
        return cls(rows)


def surface_tokens(sentence) -> List[Tuple[int, int, str, str]]:
    """The surface tokens of a CoNLL-U sentence as (first word, one past its last word, FORM,
    MISC), words counted from 0: a range line (``1-2 del``) makes one token of the words it
    spans, every other word is a token of its own; empty nodes are no tokens."""
    ranges = {}
    for _, line in sentence.extra:
        fields = line.split("\t")
        if len(fields) == 10 and "-" in fields[0]:
            a, _, b = fields[0].partition("-")
            if a.isdigit() and b.isdigit() and 0 < int(a) <= int(b) <= len(sentence.rows):
                ranges[int(a) - 1] = (int(b), fields[1], fields[9])
    out, k, n = [], 0, len(sentence.rows)
    while k < n:
        found = ranges.get(k)
        if found is not None:
            out.append((k, found[0], found[1], found[2]))
            k = found[0]
        else:
            out.append((k, k + 1, sentence.rows[k][1], sentence.rows[k][9]))
            k += 1
    return out


def detect_format(path: str) -> str:
    """MaltParser's default is conllx; files named *.conllu are CoNLL-U, *.mrg and *.ptb are
    bracketed trees (ptb)."""
    name = str(path).lower()
    if name.endswith((".mrg", ".ptb")):
        return "ptb"
    if name.endswith((".export", ".discbracket")):
        return name.rsplit(".", 1)[1]
    return "conllu" if name.endswith(".conllu") else "conllx"


def _decode(data: bytes, path: str, lines_before: int = 0) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = lines_before + data.count(b"\n", 0, e.start) + 1
        raise InputFormatError(path, line, f"invalid UTF-8 (byte 0x{data[e.start]:02x}); "
                                           "the file must be UTF-8, or its encoding given with -ic "
                                           "(e.g. -ic ISO-8859-1)") from None


def parse_conll(text: str, fmt: str = "conllx", path: str = "<input>",
                need_heads: bool = False) -> List[Sentence]:
    """Parse CoNLL text into sentences, validating as described in the module docstring.

    ``need_heads``: HEAD and DEPREL must be present and form a tree (training,
    gold standard); otherwise they may be ``_`` or absent (parsing input).
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    sentences = list(_sentences(enumerate(lines, 1), fmt, path, need_heads))
    if not sentences:
        raise no_sentences(path, len(lines))
    return sentences


def no_sentences(path: str, n_lines: int) -> InputFormatError:
    """The error for an input without a word line: empty, or only comments and blank lines (then
    naming its last line, so that a user sees it was read)."""
    if not n_lines:
        return InputFormatError(path, 0, "no sentences found (the input is empty)")
    return InputFormatError(path, n_lines, f"no sentences found: the input's {n_lines} line(s) hold no word "
                                           "line, only comments or blank lines")


def _sentences(numbered_lines, fmt: str, path: str, need_heads: bool):
    """Sentences from ``(line number, line)`` pairs, as they complete.

    A sentence is held back until the next one begins, because comment lines after
    the last sentence of the input belong to it."""
    if fmt == "ptb":
        raise MaltpyError(f"{path}: bracketed trees (.mrg/.ptb) where CoNLL is expected; convert them with "
                          f"'maltpy -m convert -i {path} -o FILE.conll', or give -if conllx if the file is CoNLL")
    if fmt in ("export", "discbracket"):
        raise MaltpyError(f"{path}: discontinuous constituent trees (.{fmt}) where CoNLL is expected; convert them "
                          f"with 'maltpy -m convert -i {path} -o FILE.conllu' (their words, tags and encoded trees), "
                          "or give -if conllx if the file is CoNLL")
    if fmt not in COLUMNS:
        raise MaltpyError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    conllu = fmt == "conllu"
    min_cols = 10 if conllu else (8 if need_heads else 6)
    names = COLUMNS[fmt]
    rows, extra, first, last_word_line = [], [], 0, []
    pending = None
    # a blank line after the input closes its last sentence like any other
    for lineno, line in itertools.chain(numbered_lines, [(None, "")]):
        line = line.rstrip("\r")  # Windows line ends (and stray carriage returns before them)
        if not line.strip():
            if rows:
                _check_heads(rows, last_word_line, path, fmt, need_heads)
                if pending is not None:
                    yield pending
                pending = Sentence(rows, extra, first, path, fmt)
                rows, extra, last_word_line = [], [], []
            # comments with no words after them stay for the next sentence
            continue
        if "\r" in line:
            raise InputFormatError(path, lineno, CARRIAGE_RETURN)
        if not rows and not extra:
            first = lineno
        if line.startswith("#"):
            extra.append((len(rows), line))
            continue
        fields = line.split("\t")
        if len(fields) < min_cols or len(fields) > 10:
            expect = "10" if conllu or min_cols == 10 else f"{min_cols} to 10"
            hint = " (columns must be separated by tabs)" if len(fields) == 1 and " " in line else ""
            raise InputFormatError(path, lineno, f"expected {expect} tab-separated columns for "
                                                 f"{fmt}, found {len(fields)}{hint}")
        if "" in fields:
            ci = fields.index("")
            raise InputFormatError(path, lineno, f"column {ci + 1} ({names[ci]}) is empty; "
                                                 "use _ for a missing value")
        tid = fields[0]
        if "-" in tid or "." in tid:
            if not conllu:
                raise InputFormatError(path, lineno, f"token ID {tid!r} is not an integer "
                                                     "(multiword tokens and empty nodes exist in CoNLL-U only)")
            if not _RANGE_OR_EMPTY_NODE.fullmatch(tid):
                raise InputFormatError(path, lineno, f"token ID {tid!r} is neither a word (3), a multiword "
                                                     "token (3-4) nor an empty node (3.1)")
            extra.append((len(rows), line))  # kept as it is, written back in place
            continue
        if tid != str(len(rows) + 1):   # ASCII digits, no leading zeros: "1", not "01" or "¹"
            raise InputFormatError(path, lineno, f"expected token ID {len(rows) + 1}, found {tid!r}")
        if len(fields) < 10:
            fields += ["_"] * (10 - len(fields))
        rows.append(fields)
        last_word_line.append(lineno)
        if pending is not None:  # a new sentence has begun: the previous one is complete
            yield pending
            pending = None
    if pending is not None:
        # trailing comment lines after the last sentence
        pending.extra.extend((len(pending.rows), l) for _, l in extra)
        yield pending


def _check_heads(rows, linenos, path, fmt, need_heads):
    problem = tree_problem(rows, fmt, need_heads)
    if problem is not None:
        k, message = problem
        raise InputFormatError(path, linenos[k], message)


def read_conll(source, fmt: Optional[str] = None, need_heads: bool = False) -> List[Sentence]:
    """Read a CoNLL file (path, ``-`` for stdin, or a binary/text file object)."""
    return list(iter_conll(source, fmt, need_heads))


def iter_conll(source, fmt: Optional[str] = None, need_heads: bool = False,
               block_size: int = 1 << 20) -> Iterator[Sentence]:
    """Sentences of a CoNLL file one at a time, reading ``block_size`` bytes at a time, so that
    memory does not grow with the file (``-`` or None: standard input, which can be a pipe).

    Errors name the file and line as :func:`read_conll`'s do; an input without any sentence
    raises at its end."""
    stream, path, close = open_input(source)
    fmt = fmt or detect_format(path)
    try:
        n, last = 0, [0]

        def counted(numbered):
            for lineno, line in numbered:
                last[0] = lineno
                yield lineno, line
        for sentence in _sentences(counted(_numbered_lines(stream, path, block_size)), fmt, path, need_heads):
            n += 1
            yield sentence
        if not n:
            raise no_sentences(path, last[0])
    finally:
        if close:
            stream.close()


def input_name(source) -> str:
    """How messages name an input (as :func:`open_input` does): a path, ``-``/None (standard
    input) or a file object."""
    if source in ("-", None):
        return "<stdin>"
    return getattr(source, "name", "<input>") if hasattr(source, "read") else str(source)


def standard_input():
    """Standard input as a binary stream; a one-line error when the command was started without
    one (``<&-``), where Python leaves ``sys.stdin`` None."""
    if sys.stdin is None:
        raise MaltpyError("standard input is closed: give the input with -i FILE")
    return sys.stdin.buffer


def open_input(source):
    """(binary stream, name for messages, whether to close it) for a path, ``-``/None (standard
    input) or a file object; a path that cannot be read is a one-line MaltpyError."""
    if source in ("-", None):
        return standard_input(), input_name(source), False
    if hasattr(source, "read"):
        return source, input_name(source), False
    path = str(source)
    if not path:
        raise MaltpyError("the input file name is empty")
    try:
        return open(path, "rb"), path, True
    except FileNotFoundError:
        raise MaltpyError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MaltpyError(f"{path}: is a directory, expected a CoNLL file") from None
    except PermissionError:
        raise MaltpyError(f"{path}: permission denied") from None
    except OSError as e:   # a name too long, a device that fails...
        raise MaltpyError(f"{path}: cannot read it ({e.strerror or e})") from None


def read_bytes(source):
    """(bytes, name for messages) of a whole input (a path, ``-``/None for standard input, or a
    file object; a text stream's text as UTF-8)."""
    stream, name, close = open_input(source)
    try:
        data = stream.read()
    finally:
        if close:
            stream.close()
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return data, name


def read_text(source):
    """(text, name for messages) of a whole input (as :func:`read_bytes`), decoded as UTF-8, a
    byte-order mark dropped; invalid UTF-8 is a one-line error with its line."""
    data, name = read_bytes(source)
    text = _decode(data, name)
    return (text[1:] if text.startswith("\ufeff") else text), name


def _numbered_lines(stream, path: str, block_size: int):
    """``(line number, line)`` of a binary or text stream, decoded as UTF-8 block by block
    (the BOM of a first line dropped). Invalid UTF-8 is reported with its line once the lines
    before it are out, so that an error on an earlier line comes first, as in the compiled
    reader (:mod:`maltpy.formats.scan`)."""
    # read1: what is there (at most block_size), so that a pipe's lines come as they arrive
    read = getattr(stream, "read1", stream.read)
    lineno, carry, first = 0, b"", True
    while True:
        block = read(block_size)
        if isinstance(block, str):
            block = block.encode("utf-8", "surrogatepass")
        if block:
            data = carry + block
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = data
                continue
            data, carry = data[:cut], data[cut + 1:]
        elif carry:  # a last line without a newline
            data, carry = carry, b""
        else:
            return
        try:
            text, bad = data.decode("utf-8"), None
        except UnicodeDecodeError as e:
            good = data.rfind(b"\n", 0, e.start)   # the lines before the bad one decode
            text, bad = data[:max(good, 0)].decode("utf-8"), data[good + 1:]
            if good < 0:
                text = None
        if text is not None:
            if first:
                text = text[1:] if text.startswith("\ufeff") else text
            first = False
            for line in text.split("\n"):
                lineno += 1
                yield lineno, line
        if bad is not None:
            _decode(bad, path, lineno)


def format_sentences(sentences: Iterable[Sentence]) -> str:
    """Sentences as CoNLL text; a :class:`MaltpyError` names a sentence that would not read back
    (a field with a tab, line feed or carriage return in it, or empty), so that nothing maltpy
    writes is unreadable by maltpy."""
    sentences = list(sentences)
    buf = io.StringIO()
    lines = tabs = 0
    for s in sentences:
        for line in s.to_lines():
            buf.write(line)
            buf.write("\n")
        buf.write("\n")
        lines += len(s.rows) + len(s.extra) + 1
        tabs += 9 * len(s.rows) + sum(line.count("\t") for _, line in s.extra)
    text = buf.getvalue()
    # one pass over the text in C decides for the whole chunk; the rows are looked at only if
    # it finds something
    if (text.count("\n") != lines or text.count("\t") != tabs or "\t\t" in text
            or "\t\n" in text or "\n\t" in text or text.startswith("\t") or "\r" in text):
        _check_writable(sentences)
    return text


def _check_writable(sentences: Sequence[Sentence]) -> None:
    """Raise for the first field or extra line of ``sentences`` that CoNLL cannot hold."""
    for k, s in enumerate(sentences, 1):
        for i, row in enumerate(s.rows, 1):
            if len(row) != 10:
                raise MaltpyError(f"cannot write sentence {k}: word {i} has {len(row)} columns, not 10")
            for j, field in enumerate(row):
                if not field or "\t" in field or "\n" in field or "\r" in field:
                    what = "is empty" if not field else \
                        f"holds a {'tab' if chr(9) in field else 'line break' if chr(10) in field else 'carriage return'}"
                    raise MaltpyError(f"cannot write sentence {k}: column {j + 1} of word {i} ({field[:30]!r}) "
                                      f"{what}, which CoNLL cannot hold (use _ for nothing; a space is allowed)")
        for _, line in s.extra:
            if not line or "\n" in line or "\r" in line:
                raise MaltpyError(f"cannot write sentence {k}: its line {line[:30]!r} "
                                  f"{'holds a line break' if line else 'is blank, which would end the sentence'}")


def atomic_output(target):
    """A text stream for ``target`` (a path, or ``-``/None for stdout) that appears whole or not
    at all; see :mod:`maltpy.output` for the rules (links, FIFOs, permissions, umask)."""
    return open_output(target)


def write_conll(sentences: Iterable[Sentence], target) -> None:
    """Write sentences to a path (atomically: the file appears whole or not at all) or ``-``
    (stdout). A list goes to stdout in one piece; any other iterable (a parse in progress) is
    written as it comes, in flat memory."""
    streaming = not isinstance(sentences, (list, tuple))
    if not streaming and not sentences:
        raise MaltpyError(f"{target}: no sentences to write (an empty file is no treebank: maltpy would not "
                          "read it back)")
    written = 0
    with open_output(target, stream=streaming) as f:
        for chunk in chunked(sentences, 1000):  # small chunks first: a pipe sees output early
            f.write(format_sentences(chunk))
            written += len(chunk)
            if streaming:
                f.flush()
        if not written:
            raise MaltpyError(f"{target}: no sentences to write (an empty file is no treebank: maltpy would "
                              "not read it back)")


def to_conllx(sentence: Sentence) -> Sentence:
    """CoNLL-U -> CoNLL-X the usual way: drop comments, multiword tokens and empty nodes;
    UPOS becomes CPOSTAG, XPOS becomes POSTAG; DEPS and MISC become PHEAD/PDEPREL ``_``."""
    rows = [r[:8] + ["_", "_"] for r in sentence.rows]
    return Sentence(rows, [], sentence.first_line, sentence.source, "conllx")


def blank_columns(sentences: Sequence[Sentence], columns) -> Sequence[Sentence]:
    """Copies of ``sentences`` whose ``columns`` (CoNLL indices) are ``_`` (the sentences
    themselves when there are none): what a parser learns from when a tagger in front of it will
    leave those columns untagged."""
    if not columns:
        return sentences
    out = []
    for s in sentences:
        rows = [list(r) for r in s.rows]
        for r in rows:
            for ci in columns:
                r[ci] = "_"
        out.append(Sentence(rows, s.extra, s.first_line, s.source, s.format))
    return out
