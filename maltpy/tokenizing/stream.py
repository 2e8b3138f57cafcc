"""Raw text read as the CoNLL-U of its tokens (:class:`TextAsConll`): what the components after
a tokenizer read, by the same compiled path as CoNLL input."""
from __future__ import annotations

from collections import deque

import numpy as np

from maltpy.errors import InputFormatError
from maltpy.formats.plain import MadeInput


class TextAsConll(MadeInput):
    """A text input (a path, ``-`` for standard input, a binary stream) read as the CoNLL-U text
    the tokenizer makes of it: a binary stream with ``read``. Sentences are numbered from 1
    through the whole input; ``lines``: one sentence a line."""

    def __init__(self, source, tokenizer, lines: bool = False, block_chars: int = 1 << 18):
        from maltpy.formats.text import paragraph_blocks
        self.name = source if isinstance(source, str) else "<stdin>"
        self._blocks = paragraph_blocks(source, block_chars)
        self._tokenizer, self._lines = tokenizer, lines
        self._number = 1
        #: words written so far
        self.n_tokens = 0
        # the text's line of the next block's start, and of each word of the sentences made and
        # not yet in a chunk: (lines of the words, where each sentence's words begin), a block each
        self._line = 1
        self._made = None       # a deque once a reader asks for the lines (want_word_lines)

    def _more(self) -> bytes:
        """The CoNLL-U of the next block of paragraphs; a block without a word gives none, and
        an input without one is an error."""
        for self.name, paragraphs, begins in self._blocks:
            made = self._tokenizer.conllu_bytes(paragraphs, self._number, self._lines, begins,
                                                with_lines=self._made is not None)
            data, n, words = made[:3]
            if n and self._made is not None:
                word_lines, sentence_starts = made[3]
                self._made.append((word_lines + self._line, sentence_starts, 0))
            self._line += sum(p.count("\n") for p in paragraphs)
            self._number += n
            self.n_tokens += words
            if data:
                return data
        if self._number == 1:
            self._number = 0        # said once
            raise InputFormatError(self.name, 0, "no text: the input is empty or only whitespace")
        return b""

    def want_word_lines(self) -> None:
        """Keep each word's line from now on, for :meth:`word_lines` (a reader that never asks,
        such as ``-m tokenize``'s copy, keeps none)."""
        if self._made is None:
            self._made = deque()

    def word_lines(self, n_sentences: int):
        """(sentence k, word i) of the next ``n_sentences`` sentences (a chunk's) -> the text's line
        of that word (a multiword token's words: the token's); those sentences are then
        forgotten, so that memory stays flat. None before :meth:`want_word_lines`."""
        if self._made is None:
            return None
        parts, bounds, taken = [], [0], 0
        while taken < n_sentences and self._made:
            lines, starts, first = self._made[0]
            last = min(len(starts) - 1, first + n_sentences - taken)
            parts.append(lines[starts[first]:starts[last]])
            bounds.extend((bounds[-1] + starts[first + 1:last + 1] - starts[first]).tolist())
            taken += last - first
            if last == len(starts) - 1:
                self._made.popleft()
            else:
                self._made[0] = (lines, starts, last)
        lines = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        return lambda k, i: int(lines[bounds[k] + i - 1])

    @property
    def n_sentences(self) -> int:
        """Sentences written so far."""
        return max(self._number - 1, 0)
