"""Raw text read as the CoNLL-U of its tokens (:class:`TextAsConll`): what the components after
a tokenizer read, by the same compiled path as CoNLL input."""
from __future__ import annotations

from maltpy.errors import InputFormatError


class TextAsConll:
    """A text input (a path, ``-`` for standard input, a binary stream) read as the CoNLL-U text
    the tokenizer makes of it: a binary stream with ``read``. Sentences are numbered from 1
    through the whole input; ``lines``: one sentence a line."""

    def __init__(self, source, tokenizer, lines: bool = False):
        from maltpy.formats.text import paragraph_blocks
        self.name = source if isinstance(source, str) else "<stdin>"
        self._blocks = paragraph_blocks(source)
        self._tokenizer, self._lines = tokenizer, lines
        self._buffer = b""
        self._number = 1
        self._done = False
        #: words written so far
        self.n_tokens = 0

    def _more(self) -> bytes:
        found = next(self._blocks, None)
        if found is None:
            if not self._done and self._number == 1:
                self._done = True
                raise InputFormatError(self.name, 0, "no text: the input is empty or only whitespace")
            self._done = True
            return b""
        self.name, paragraphs, begins = found
        data, n, words = self._tokenizer.conllu_bytes(paragraphs, self._number, self._lines, begins)
        self._number += n
        self.n_tokens += words
        return data

    def read(self, size: int = -1) -> bytes:
        parts, have = [self._buffer], len(self._buffer)
        while (size < 0 or have < size) and not self._done:
            block = self._more()
            parts.append(block)
            have += len(block)
        data = b"".join(parts)
        if size < 0:
            self._buffer = b""
            return data
        self._buffer = data[size:]
        return data[:size]

    read1 = read

    @property
    def n_sentences(self) -> int:
        """Sentences written so far."""
        return self._number - 1
