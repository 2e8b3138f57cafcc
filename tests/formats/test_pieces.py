"""A file read in pieces of whole lines (maltpy.formats.pieces), as the export and discbracket
parse paths read it."""
import io

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.formats.pieces import line_pieces

LINES = st.lists(st.sampled_from(["#BOS 1", "#EOS 1", "a\tb", "", "#EOS", "x #EOS", "\r", "é"]), max_size=30)


class Trickle(io.RawIOBase):
    """A pipe that hands over at most ``step`` bytes a read."""

    def __init__(self, data: bytes, step: int):
        self.data, self.step = data, step

    def readable(self):
        return True

    def read1(self, n=-1):
        piece, self.data = self.data[:min(n, self.step)], self.data[min(n, self.step):]
        return piece


@settings(max_examples=300, deadline=None)
@given(LINES, st.booleans(), st.integers(1, 40), st.integers(1, 50), st.sampled_from([None, b"#EOS"]),
       st.booleans())
def test_pieces_are_the_streams_bytes_cut_after_whole_lines(lines, final_newline, block, step, ends_after, opened):
    data = "\n".join(lines).encode("utf-8") + (b"\n" if final_newline and lines else b"")
    opened_by = b"#BOS" if opened and ends_after else None
    pieces = list(line_pieces(Trickle(data, step), block, ends_after, opened_by))
    if opened_by and len(pieces) > 1:      # the first cut comes after the first line starting with #BOS
        first = pieces[0][0].split(b"\n")
        opening = next(k for k, line in enumerate(first) if line.startswith(opened_by))
        assert any(line.startswith(ends_after) for line in first[opening + 1:])
    assert b"".join(p for p, _ in pieces) == data
    line = 1
    for k, (piece, first_line) in enumerate(pieces):
        assert piece and first_line == line
        line += piece.count(b"\n")
        if k < len(pieces) - 1:     # all but the last end after a whole line (one starting with the mark)
            assert piece.endswith(b"\n")
            last = piece[:-1].rsplit(b"\n", 1)[-1]
            assert ends_after is None or (last.startswith(ends_after) and piece != last + b"\n")
            # cut after the last such line of at least a block: the rest of that block has none whole
            rest = b"\n" + data[sum(len(p) for p, _ in pieces[:k + 1]):][:max(0, block - len(piece))]
            if opened_by and k == 0 and not any(line.startswith(opened_by) for line in piece.split(b"\n")):
                continue
            at = rest.find(b"\n" + (ends_after or b""))
            assert at < 0 or rest.find(b"\n", at + 1) < 0


def test_a_text_stream_is_read_as_utf8():
    pieces = list(line_pieces(io.StringIO("é\n#EOS 1\nx\n"), 2, b"#EOS"))
    assert pieces == [("é\n#EOS 1\n".encode("utf-8"), 1), (b"x\n", 3)]


@pytest.mark.parametrize("kind", ["export", "discbracket", "brackets"])
def test_an_input_where_nothing_ends_is_refused_past_the_limit(monkeypatch, kind):
    """/dev/zero as a treebank: no tree's end and no line's end, so the piece held grew until
    memory ran out; past MAX_HELD_BYTES it is a one-line error naming the line the piece starts
    on, after the pieces before it. A piece under the limit is read whole."""
    import maltpy.formats.pieces as pieces
    from maltpy.errors import MaltpyError
    monkeypatch.setattr(pieces, "MAX_HELD_BYTES", 4096)
    good = {"export": b"#BOS 1\nw\tN\t--\t--\t0\n#EOS 1\n", "discbracket": b"(S (N 0=w))\n",
            "brackets": b"(S (N w))\n"}[kind] * 200

    def cut(stream):
        return pieces.bracket_pieces(stream, 512) if kind == "brackets" else pieces.tree_pieces(stream, 512, kind)

    stream = io.BytesIO(good + b"\0" * 100_000)
    stream.name = "in.file"
    with pytest.raises(MaltpyError, match=r"^in.file:\d+: nothing ends in the 0 MB that start here"):
        for piece, line in cut(stream):
            assert piece.endswith(b"\n")     # whole trees come out before the error
    assert b"".join(p for p, _ in cut(io.BytesIO(good))) == good
