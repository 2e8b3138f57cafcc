"""Pre-tokenized text as UDPipe reads and writes it: ``horizontal`` (one sentence a line, words
separated by spaces; a no-break space, U+00A0, inside a word stands for a space of the word) and
``vertical`` (one word a line, a blank line after each sentence). Read, each sentence becomes a
CoNLL-U sentence whose other columns are ``_``, with ``# sent_id`` and ``# text`` as UD's
validator wants, for a model with a tagger to tag and parse; written (``-of horizontal``), the
words of CoNLL sentences."""
from __future__ import annotations

import re
from collections import deque
from typing import Iterator, Optional

from maltpy.errors import InputFormatError
from maltpy.formats.conll import CARRIAGE_RETURN, Sentence, _numbered_lines, open_input

#: the pre-tokenized input formats
PLAIN_FORMATS = ("horizontal", "vertical")

#: what separates the words of a horizontal line, as UDPipe reads it: spaces and tabs (other white
#: space is part of a word; a no-break space stands for a space inside a word: "New\u00a0York")
_BETWEEN_WORDS = re.compile(r"[ \t]+")
NO_BREAK_SPACE = "\u00a0"


def horizontal_words(line: str) -> list:
    """The words of a horizontal line, a no-break space inside a word read as a space (UDPipe's)."""
    return [w.replace(NO_BREAK_SPACE, " ") for w in _BETWEEN_WORDS.split(line) if w]


def _comments(number: int, words) -> list:
    """The comments UD's validator wants of every sentence: its id (its number in the input) and
    its text (the words with a space between them, as pre-tokenized text gives no spacing)."""
    return [f"# sent_id = {number}", f"# text = {' '.join(words)}"]


def _sentence(words, first_line, path, number) -> Sentence:
    rows = [[str(k + 1), w, "_", "_", "_", "_", "_", "_", "_", "_"] for k, w in enumerate(words)]
    return Sentence(rows, [(0, c) for c in _comments(number, words)], first_line, path, "conllu")


def _word_lists(source, fmt: str, block_size: int = 1 << 20) -> Iterator[tuple]:
    """(first line, words) of each sentence of a horizontal or vertical file (a path, ``-`` for
    standard input, a binary stream). Tabs inside a vertical line's word are an error (CoNLL
    could not hold them); an input without a word is an error at its end."""
    stream, path, close = open_input(source)
    try:
        n = 0
        words, start, lineno = [], 0, 0
        for lineno, line in _numbered_lines(stream, path, block_size):
            line = line.rstrip("\r")
            if "\r" in line:
                raise InputFormatError(path, lineno, CARRIAGE_RETURN)
            if fmt == "horizontal":
                tokens = horizontal_words(line)
                if tokens:
                    n += 1
                    yield lineno, tokens
                continue
            word = line.strip(" ")
            if not word:
                if words:
                    n += 1
                    yield start, words
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
            yield start, words
        if not n:
            raise InputFormatError(path, 0, f"no words in its {lineno} line(s) of {fmt} input")
    finally:
        if close:
            stream.close()


def iter_plain(source, fmt: str, block_size: int = 1 << 20) -> Iterator[Sentence]:
    """Sentences of a horizontal or vertical file (a path, ``-`` for standard input), one at a
    time, as CoNLL-U sentences whose columns but ID and FORM are ``_``."""
    path = source if isinstance(source, str) else "<input>"
    for number, (first_line, words) in enumerate(_word_lists(source, fmt, block_size), 1):
        yield _sentence(words, first_line, path, number)


class MadeInput:
    """A binary stream (``read``) whose bytes a subclass makes a block at a time: :meth:`_more`
    returns the next block, ``b""`` at the end."""

    name = "<input>"
    _buffer = b""

    def _more(self) -> bytes:
        raise NotImplementedError

    def read(self, size: int = -1) -> bytes:
        parts, have = [self._buffer], len(self._buffer)
        while size < 0 or have < size:
            block = self._more()
            if not block:
                break
            parts.append(block)
            have += len(block)
        data = b"".join(parts)
        if size < 0:
            self._buffer = b""
            return data
        self._buffer = data[size:]
        return data[:size]

    read1 = read


class PlainAsConll(MadeInput):
    """A horizontal or vertical file read as the CoNLL-U text of its words (a binary stream with
    ``read``), for the compiled path: what :func:`iter_plain` gives, written as CoNLL-U."""

    def __init__(self, source, fmt: str):
        self.name = source if isinstance(source, str) else "<stdin>"
        self._sentences = _word_lists(source, fmt)
        self._number = 0
        # the file's line of the first word of each sentence made and not yet in a chunk; a
        # vertical sentence's words are on the lines after it
        self._first_lines = deque()
        self._step = 1 if fmt == "vertical" else 0

    def _more(self) -> bytes:
        found = next(self._sentences, None)
        if found is None:
            return b""
        self._number += 1
        self._first_lines.append(found[0])
        text = "".join(c + "\n" for c in _comments(self._number, found[1])) + "".join(
            f"{k}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for k, w in enumerate(found[1], 1)) + "\n"
        return text.encode("utf-8", "surrogatepass")

    def word_lines(self, n_sentences: int):
        """(sentence k, word i) of the next ``n_sentences`` sentences (a chunk's) -> the file's line
        of that word; those sentences are then forgotten, so that memory stays flat."""
        first = [self._first_lines.popleft() for _ in range(min(n_sentences, len(self._first_lines)))]
        step = self._step
        return lambda k, i: first[k] + step * (i - 1)


def write_plain(conll_path: str, target, fmt: str) -> None:
    """The words of the CoNLL sentences in ``conll_path`` written to ``target`` (a path, ``-`` or
    None for standard output; whole or not at all) as ``fmt``: ``horizontal``, a sentence a line,
    a space inside a word written as a no-break space, or ``vertical``, a word a line and a blank
    line after each sentence (UDPipe's output formats). Words, not multiword tokens; no empty
    nodes. Read a line at a time: memory stays flat."""
    from maltpy.output import open_output
    with open(conll_path, encoding="utf-8", errors="surrogateescape") as src, \
            open_output(target, binary=True, stream=True) as out:
        words = []

        def sentence_out():
            if fmt == "horizontal":
                text = " ".join(w.replace(" ", NO_BREAK_SPACE) for w in words) + "\n"
            else:
                text = "".join(w + "\n" for w in words) + "\n"
            out.write(text.encode("utf-8", "surrogateescape"))

        for line in src:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                fields = line.split("\t")
                if len(fields) > 1 and fields[0].isdigit():
                    words.append(fields[1])
            elif not line and words:
                sentence_out()
                words = []
        if words:       # a last sentence without the blank line after it
            sentence_out()


def words_out(write, target, fmt: str):
    """``write(path)``, which writes CoNLL to ``path``, made to leave the words of what it writes
    in ``target`` as ``fmt`` (:func:`write_plain`): written to a temporary file first. Returns
    what ``write`` returns."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory(prefix="maltpy-") as tmp:
        conll = os.path.join(tmp, "out.conllu")
        result = write(conll)
        write_plain(conll, target, fmt)
    return result


def iter_sentences(source, fmt: Optional[str]) -> Iterator[Sentence]:
    """Sentences of a CoNLL, horizontal or vertical file."""
    if fmt in PLAIN_FORMATS:
        return iter_plain(source, fmt)
    from maltpy.formats.conll import iter_conll
    return iter_conll(source, fmt)
