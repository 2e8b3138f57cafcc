"""Files in other character encodings than UTF-8: MaltParser's ``-ic`` (input charset) and ``-oc``
(output charset), with Java's charset names (``ISO-8859-1``, ``UTF-8``, ``windows-1252`` ...).

maltpy reads and writes UTF-8 inside; another input charset is decoded to UTF-8 as it is read
(:class:`TranscodedInput`, a binary stream the CoNLL readers take like a file), and the output is
encoded on the way out (:func:`write_transcoded`). Lines and their numbers are unchanged, so
errors still name the file and line.
"""
from __future__ import annotations

import codecs

from maltpy.errors import MaltpyError


def codec_name(name: str, flag: str = "-ic") -> str:
    """Python's name for a charset (Java's names are accepted: ISO-8859-1, UTF-8, US-ASCII,
    windows-1252 ...), or a one-line error."""
    try:
        return codecs.lookup(str(name)).name
    except LookupError:
        raise MaltpyError(f"{flag} {name}: unknown character encoding (e.g. UTF-8, ISO-8859-1, "
                          "windows-1252)") from None


def is_utf8(name) -> bool:
    return name is None or codec_name(name) == "utf-8"


class TranscodedInput:
    """A binary stream of UTF-8 from a file (a path, or ``-`` for standard input) in ``charset``;
    ``name`` is the file's, for messages."""

    def __init__(self, source, charset: str):
        from maltpy.formats.conll import open_input
        self.raw, self.name, self._close = open_input(source)
        self.charset = codec_name(charset)
        self.decoder = codecs.getincrementaldecoder(self.charset)()
        self.lines = 0   # lines decoded so far, to place a decoding error

    def read1(self, size: int = -1) -> bytes:
        """What the next block of the file (``size`` bytes of it, or a megabyte) decodes to; b""
        only at the end (a block whose last character is cut reads on)."""
        while True:
            block = self.raw.read(size if size and size > 0 else 1 << 20)
            try:
                text = self.decoder.decode(block, final=not block)
            except UnicodeDecodeError as e:
                line = self.lines + block.count(b"\n", 0, e.start) + 1
                raise MaltpyError(f"{self.name}:{line}: byte 0x{block[e.start]:02x} is not {self.charset} "
                                  "(give the input's encoding with -ic)") from None
            self.lines += block.count(b"\n")
            if text or not block:
                return text.encode("utf-8", "surrogatepass")

    def read(self, size: int = -1) -> bytes:
        """As a file's ``read``: with no size (or a negative one) everything up to the end, as the
        readers that take a whole file ask for it; else :meth:`read1`."""
        if size == 0:
            return b""
        if size is not None and size > 0:
            return self.read1(size)
        parts = []
        while True:
            part = self.read1()
            if not part:
                return b"".join(parts)
            parts.append(part)

    def close(self) -> None:
        if self._close:
            self.raw.close()


def write_transcoded(utf8_path: str, target, charset: str) -> None:
    """Copy a UTF-8 file to ``target`` (a path, whole or not at all, or ``-``) in ``charset``; a
    character that charset cannot hold is a one-line error naming its line."""
    from maltpy.output import open_output
    charset = codec_name(charset, "-oc")
    with open(utf8_path, encoding="utf-8", errors="surrogatepass", newline="") as src, \
            open_output(target, binary=True, stream=True) as out:
        for lineno, line in enumerate(src, 1):
            try:
                out.write(line.encode(charset))
            except UnicodeEncodeError as e:
                raise MaltpyError(f"output line {lineno}: {line[e.start]!r} cannot be written in {charset} "
                                  "(choose another output encoding with -oc, e.g. UTF-8)") from None

