"""A file read in pieces of whole lines, so that what reads it holds one piece at a time instead of
the whole file: export and discbracket files parsed (:mod:`maltpy.parsing.discontinuous`) and
converted (:func:`maltpy.formats.export.iter_tree_pieces`)."""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

#: the most bytes a reader holds while waiting for the end of what it reads (a tree, a line, a
#: CoNLL sentence: :func:`maltpy.parsing.stream.read_chunks` too): past it the input is no
#: treebank (/dev/zero, a binary file) or lost its separators, and memory would run out (a
#: sentence of 50,000 words takes about 3 MB)
MAX_HELD_BYTES = 256 << 20


def _cut(data: bytes, ends_after: Optional[bytes], not_before: int = 0) -> int:
    """Where a piece of ``data`` ends: after its last whole line, or after its last whole line
    that starts with ``ends_after`` at ``not_before`` or later; 0 where there is none."""
    if ends_after is None:
        return data.rfind(b"\n") + 1
    mark = b"\n" + ends_after
    at = data.rfind(mark, max(0, not_before - 1))
    while at >= 0:
        end = data.find(b"\n", at + 1)
        if end >= 0:
            return end + 1
        at = data.rfind(mark, max(0, not_before - 1), at)     # that line is not whole yet: the one before it
    return 0


def _line_start(data: bytes, prefix: bytes) -> int:
    """Where the first line of ``data`` that starts with ``prefix`` starts (a byte-order mark
    before the first line skipped), or -1."""
    if data.startswith(prefix) or data.startswith(b"\xef\xbb\xbf" + prefix):
        return 0
    at = data.find(b"\n" + prefix)
    return at + 1 if at >= 0 else -1


def line_pieces(stream, block_size: int, ends_after: Optional[bytes] = None,
                opened_by: Optional[bytes] = None) -> Iterator[Tuple[bytes, int]]:
    """(bytes, the number of their first line) of a binary stream, in pieces of about
    ``block_size`` bytes that end after a whole line: after a line starting with ``ends_after``
    where that is given, and not before the first line that starts with ``opened_by`` (export:
    ``b"#EOS"`` after ``b"#BOS"``, so that each piece holds whole sentences: after the first
    ``#BOS`` a line that starts with ``#EOS`` always closes a sentence or is an error; before it
    the line is the header's). The last piece is what is left, whole lines or not; the pieces put
    together are the stream's bytes."""
    opened = opened_by is None

    def cut(data: bytes) -> int:
        nonlocal opened
        not_before = 0
        if not opened:
            not_before = _line_start(data, opened_by)
            if not_before < 0:
                return 0
        at = _cut(data, ends_after, not_before)
        opened = opened or at > 0
        return at
    return cut_pieces(stream, block_size, cut)


def _bracket_cut(data: bytes) -> int:
    """Where a piece of bracketed trees ends: after its last whole line at which every bracket
    opened since the piece began is closed (every ``(`` and ``)`` is a bracket in that format,
    words hold none), so that a piece holds whole trees; 0 where there is no such line."""
    if b"\n" not in data:     # no whole line yet (nor the arrays below, 16 bytes per byte of data)
        return 0
    import numpy as np
    chars = np.frombuffer(data, np.uint8)
    depth = np.cumsum((chars == ord("(")).astype(np.int32) - (chars == ord(")")))
    ends = np.flatnonzero(chars == ord("\n"))
    closed = ends[depth[ends] == 0]
    return int(closed[-1]) + 1 if len(closed) else 0


def bracket_pieces(stream, block_size: int) -> Iterator[Tuple[bytes, int]]:
    """:func:`cut_pieces` of a file of bracketed trees (Penn Treebank), each piece whole trees."""
    return cut_pieces(stream, block_size, _bracket_cut)


def cut_pieces(stream, block_size: int, cut) -> Iterator[Tuple[bytes, int]]:
    """(bytes, the number of their first line) of a binary stream (or a text stream, its text as
    UTF-8), in pieces of about ``block_size`` bytes, each ending where ``cut(data)`` says (the
    length of the piece that ``data`` begins; 0 where it holds none yet). The last piece is what
    is left; the pieces put together are the stream's bytes."""
    read = getattr(stream, "read1", stream.read)     # read1: what a pipe has, as it comes
    carry, line = b"", 1
    while True:
        # a piece not yet complete after a block: read more at once, so that the bytes held
        # over are not copied again block after block
        if len(carry) > MAX_HELD_BYTES:
            from maltpy.errors import MaltpyError
            from maltpy.formats.conll import input_name
            raise MaltpyError(f"{input_name(stream)}:{line}: nothing ends in the {MAX_HELD_BYTES >> 20} MB that "
                              "start here, neither a tree nor a line (the input is not a treebank file)")
        block = read(max(block_size, len(carry)))
        if isinstance(block, str):
            block = block.encode("utf-8", "surrogatepass")
        if not block:
            if carry:
                yield carry, line
            return
        data = carry + block if carry else block
        if len(data) < block_size:
            carry = data
            continue
        at = cut(data)
        if not at:
            carry = data
            continue
        piece, carry = data[:at], data[at:]
        yield piece, line
        line += piece.count(b"\n")


def tree_pieces(stream, block_size: int, fmt: str) -> Iterator[Tuple[bytes, int]]:
    """:func:`line_pieces` of an export file (pieces of whole sentences) or a discbracket file
    (whole lines: a tree a line)."""
    if fmt == "export":
        return line_pieces(stream, block_size, b"#EOS", b"#BOS")
    return line_pieces(stream, block_size)


def read_in_pieces(source, fmt: str, piece_size: int, read) -> Iterator:
    """What ``read(path, piece, text, first_line, version)`` makes of each piece of an export or
    discbracket input (a path, ``-`` for stdin; :func:`tree_pieces`): it returns (what to yield,
    the piece's trees, the file's format so far). Invalid UTF-8 is an error naming its line; an
    input without a tree is "no trees found" at its end (an export file says so at its first
    piece, which holds its first sentence or all of it)."""
    from maltpy.errors import InputFormatError
    from maltpy.formats.conll import _decode, open_input
    stream, path, close = open_input(source)
    version, n_trees = None, 0
    try:
        for piece, first_line in tree_pieces(stream, piece_size, fmt):
            made, trees, version = read(path, piece, _decode(piece, path, first_line - 1), first_line, version)
            n_trees += trees
            yield made
    finally:
        if close:
            stream.close()
    if not n_trees:
        raise InputFormatError(path, 0, "no trees found")
