"""Raw text (``-if text``, ``.txt`` files) read in paragraphs, for a model with a tokenizer.

A paragraph ends at a blank line (a line of whitespace only). The paragraphs are pieces of the
input, whitespace included, that together are the input exactly (a byte order mark at its start
aside), so that tokens written with their spacing give the text back. The input is read a block
at a time: memory stays bounded, and a paragraph longer than :data:`MAX_PARAGRAPH` characters is
cut before that size at a line break in its second half, else at its last whitespace, else (a run
without whitespace) at that size; the pieces are tokenized one after another (a cut ends a
sentence).
"""
from __future__ import annotations

import codecs
import re
from typing import Iterator, List, Tuple

from maltpy.errors import InputFormatError
from maltpy.formats.conll import open_input

#: the raw-text input formats
TEXT_FORMATS = ("text",)
#: the longest piece of a paragraph tokenized at once (characters): a cut ends a sentence, about
#: one in a thousand at this size; the longest sentence it makes, some 25,000 words, parses in
#: a little memory (a 50 MB paragraph without a full stop: docs/raw-text.md)
MAX_PARAGRAPH = 1 << 17
#: a blank line and all whitespace after it, up to the next text
_PARAGRAPH_END = re.compile(r"\n[^\S\n]*\n\s*(?=\S)")
_LAST_SPACE = re.compile(r".*\s", re.DOTALL)
_LAST_BREAK = re.compile(r".*\n", re.DOTALL)


def _decoded_blocks(source, block_size: int) -> Iterator[Tuple[str, str]]:
    """(name, text) of an input's blocks, decoded as UTF-8; invalid UTF-8 is a one-line error
    with its byte offset."""
    stream, path, close = open_input(source)
    try:
        pending, offset, first = b"", 0, True
        while True:
            block = stream.read(block_size)
            if isinstance(block, str):
                block = block.encode("utf-8", "surrogatepass")
            final = not block
            data = pending + block
            try:
                text, used = codecs.utf_8_decode(data, "strict", final)
            except UnicodeDecodeError as e:
                raise InputFormatError(path, 0, f"invalid UTF-8 at byte {offset + e.start} (0x{data[e.start]:02x}); "
                                                "text must be UTF-8, or its encoding given with -ic") from None
            offset += used
            pending = data[used:]
            if first and text.startswith("\ufeff"):
                text = text[1:]
            first = first and not text
            yield path, text
            if final:
                return
    finally:
        if close:
            stream.close()


def iter_paragraphs(source, block_size: int = 1 << 20, max_paragraph: int = MAX_PARAGRAPH
                    ) -> Iterator[Tuple[str, str, bool]]:
    """(name, paragraph, whether it begins a paragraph) of a text input, in order; a paragraph
    longer than ``max_paragraph`` comes in pieces, all but the first not beginning one."""
    buffer, starts = "", True
    path = "<input>"
    for path, text in _decoded_blocks(source, block_size):
        buffer += text
        last = 0
        for m in _PARAGRAPH_END.finditer(buffer):
            if buffer[last:m.end()].isspace():      # whitespace before the first text: it opens the next piece
                continue
            yield path, buffer[last:m.end()], starts
            starts = True
            last = m.end()
        buffer = buffer[last:]
        while len(buffer) > max_paragraph:
            # at the last line break in the second half (likelier a sentence's end), else at the
            # last whitespace, else (a run without whitespace) at the limit
            cut = _LAST_BREAK.match(buffer, 0, max_paragraph)
            if not cut or cut.end() < max_paragraph // 2:
                cut = _LAST_SPACE.match(buffer, 0, max_paragraph)
            end = cut.end() if cut and cut.end() > 0 else max_paragraph
            if buffer[:end].isspace() and not buffer[end:].isspace():
                end += len(buffer[end:]) - len(buffer[end:].lstrip())   # whitespace goes with the text after it
            yield path, buffer[:end], starts
            starts = False
            buffer = buffer[end:]
    if buffer:
        yield path, buffer, starts


def paragraph_blocks(source, block_chars: int = 1 << 18) -> Iterator[Tuple[str, List[str], List[bool]]]:
    """(name, paragraphs, which begin a paragraph) of a text input, about ``block_chars``
    characters at a time (whole paragraphs or pieces of one)."""
    paragraphs, begins, size = [], [], 0
    path = "<input>"
    for path, paragraph, begin in iter_paragraphs(source):
        paragraphs.append(paragraph)
        begins.append(begin)
        size += len(paragraph)
        if size >= block_chars:
            yield path, paragraphs, begins
            paragraphs, begins, size = [], [], 0
    if paragraphs:
        yield path, paragraphs, begins
