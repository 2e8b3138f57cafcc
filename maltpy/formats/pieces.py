"""A file read in pieces of whole lines, so that what reads it holds one piece at a time instead of
the whole file (the export and discbracket parse paths: :mod:`maltpy.parsing.discontinuous`)."""
from __future__ import annotations

from typing import Iterator, Optional, Tuple


def _cut(data: bytes, ends_after: Optional[bytes]) -> int:
    """Where a piece of ``data`` ends: after its last whole line, or after its last whole line
    that starts with ``ends_after``; 0 where there is none."""
    if ends_after is None:
        return data.rfind(b"\n") + 1
    mark = b"\n" + ends_after
    at = data.rfind(mark)
    while at >= 0:
        end = data.find(b"\n", at + 1)
        if end >= 0:
            return end + 1
        at = data.rfind(mark, 0, at)     # that line is not whole yet: the one before it
    return 0


def line_pieces(stream, block_size: int, ends_after: Optional[bytes] = None) -> Iterator[Tuple[bytes, int]]:
    """(bytes, the number of their first line) of a binary stream, in pieces of about
    ``block_size`` bytes that end after a whole line: after a line starting with ``ends_after``
    where that is given (export: ``b"#EOS"``, so that each piece holds whole sentences; a line
    that starts so always closes a sentence or is an error). The last piece is what is left,
    whole lines or not; the pieces put together are the stream's bytes."""
    read = getattr(stream, "read1", stream.read)     # read1: what a pipe has, as it comes
    carry, line = b"", 1
    while True:
        # a piece not yet complete after a block: read more at once, so that the bytes held
        # over are not copied again block after block
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
        cut = _cut(data, ends_after)
        if not cut:
            carry = data
            continue
        piece, carry = data[:cut], data[cut:]
        yield piece, line
        line += piece.count(b"\n")
