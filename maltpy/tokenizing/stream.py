"""Raw text read as the CoNLL-U of its tokens (:class:`TextAsConll`): what the components after
a tokenizer read, by the same compiled path as CoNLL input."""
from __future__ import annotations

from maltpy.errors import InputFormatError
from maltpy.formats.plain import MadeInput


class TextAsConll(MadeInput):
    """A text input (a path, ``-`` for standard input, a binary stream) read as the CoNLL-U text
    the tokenizer makes of it: a binary stream with ``read``. Sentences are numbered from 1
    through the whole input; ``lines``: one sentence a line."""

    def __init__(self, source, tokenizer, lines: bool = False):
        from maltpy.formats.text import paragraph_blocks
        self.name = source if isinstance(source, str) else "<stdin>"
        self._blocks = paragraph_blocks(source)
        self._tokenizer, self._lines = tokenizer, lines
        self._number = 1
        #: words written so far
        self.n_tokens = 0

    def _more(self) -> bytes:
        """The CoNLL-U of the next block of paragraphs; a block without a word gives none, and
        an input without one is an error."""
        for self.name, paragraphs, begins in self._blocks:
            data, n, words = self._tokenizer.conllu_bytes(paragraphs, self._number, self._lines, begins)
            self._number += n
            self.n_tokens += words
            if data:
                return data
        if self._number == 1:
            self._number = 0        # said once
            raise InputFormatError(self.name, 0, "no text: the input is empty or only whitespace")
        return b""

    @property
    def n_sentences(self) -> int:
        """Sentences written so far."""
        return max(self._number - 1, 0)
