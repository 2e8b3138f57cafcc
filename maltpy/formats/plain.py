"""Pre-tokenized text as UDPipe reads it: ``horizontal`` (one sentence a line, words separated by
spaces) and ``vertical`` (one word a line, a blank line after each sentence). Each sentence
becomes a CoNLL-U sentence whose other columns are ``_``, for a model with a tagger to tag and
parse."""
from __future__ import annotations

from typing import Iterator, Optional

from maltpy.errors import InputFormatError
from maltpy.formats.conll import Sentence, _numbered_lines, open_input

#: the pre-tokenized input formats
PLAIN_FORMATS = ("horizontal", "vertical")


def _sentence(words, first_line, path) -> Sentence:
    rows = [[str(k + 1), w, "_", "_", "_", "_", "_", "_", "_", "_"] for k, w in enumerate(words)]
    return Sentence(rows, (), first_line, path, "conllu")


def iter_plain(source, fmt: str, block_size: int = 1 << 20) -> Iterator[Sentence]:
    """Sentences of a horizontal or vertical file (a path, ``-`` for standard input), one at a
    time. Tabs inside a vertical line's word are an error (CoNLL could not hold them); an input
    without a word is an error at its end."""
    stream, path, close = open_input(source)
    try:
        n = 0
        words, start, lineno = [], 0, 0
        for lineno, line in _numbered_lines(stream, path, block_size):
            line = line.rstrip("\r")
            if fmt == "horizontal":
                tokens = line.split()
                if tokens:
                    n += 1
                    yield _sentence(tokens, lineno, path)
                continue
            word = line.strip(" ")
            if not word:
                if words:
                    n += 1
                    yield _sentence(words, start, path)
                    words = []
                continue
            if "\t" in word:
                raise InputFormatError(path, lineno, "a vertical file has one word a line; this line has a tab "
                                                     "(for CoNLL input give -if conllu or conllx)")
            if not words:
                start = lineno
            words.append(word)
        if words:
            n += 1
            yield _sentence(words, start, path)
        if not n:
            raise InputFormatError(path, 0, f"no words in its {lineno} line(s) of {fmt} input")
    finally:
        if close:
            stream.close()


def iter_sentences(source, fmt: Optional[str]) -> Iterator[Sentence]:
    """Sentences of a CoNLL, horizontal or vertical file."""
    if fmt in PLAIN_FORMATS:
        return iter_plain(source, fmt)
    from maltpy.formats.conll import iter_conll
    return iter_conll(source, fmt)
