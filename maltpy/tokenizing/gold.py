"""What a UD treebank says about its own text: each sentence's tokens (a multiword token with its
words), the text they were cut from (``# text``, else the forms joined as ``SpaceAfter=No``
says), and the paragraphs (``# newpar``, ``# newdoc``) -- the tokenizer's training data, and the
raw text of a treebank's sentences for a study from raw text."""
from __future__ import annotations

from typing import List, NamedTuple, Sequence, Tuple

import numpy as np

from maltpy.errors import MaltpyError


class Token(NamedTuple):
    """A surface token: its form, its syntactic words (the form alone unless it is a multiword
    token), and whether a space follows it."""
    form: str
    words: Tuple[str, ...]
    space_after: bool


def _space_after(misc: str) -> bool:
    return "SpaceAfter=No" not in misc.split("|")


def sentence_tokens(sentence) -> List[Token]:
    """The tokens of a CoNLL-U :class:`~maltpy.formats.conll.Sentence` (range lines make a
    multiword token of the words they span; empty nodes are not tokens)."""
    from maltpy.formats.conll import surface_tokens
    return [Token(form, tuple(r[1] for r in sentence.rows[a:b]), _space_after(misc))
            for a, b, form, misc in surface_tokens(sentence)]


def _comment(sentence, name: str):
    prefix = f"# {name} ="
    for _, line in sentence.extra:
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    return None


def _starts_paragraph(sentence) -> bool:
    return any(line.startswith(("# newpar", "# newdoc")) for _, line in sentence.extra)


def _placed(text: str, tokens: Sequence[Token]):
    """Each token's start in ``text`` (whitespace between tokens skipped), or None if the tokens
    are not the text's."""
    starts, pos = [], 0
    for token in tokens:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if not text.startswith(token.form, pos):
            return None
        starts.append(pos)
        pos += len(token.form)
    return starts if text[pos:].strip() == "" else None


def _rebuilt(tokens: Sequence[Token]) -> str:
    return "".join(t.form + (" " if t.space_after else "") for t in tokens).rstrip(" ")


class Paragraphs(NamedTuple):
    """A treebank's text as the tokenizer learns from it."""
    text: str                 # the paragraphs one after another (each ends with a blank line)
    pstart: np.ndarray        # int64, paragraph starts in ``text`` (one more than paragraphs)
    labels: np.ndarray        # int8 per character: 0 inside a token, 1 token end, 2 sentence end
    tokens: List[Token]       # every token, in order


def treebank_text(sentences) -> Paragraphs:
    """The text of CoNLL-U sentences in paragraphs (a new one where a sentence says ``# newpar``
    or ``# newdoc``), sentences joined by a space (none where the last token has
    ``SpaceAfter=No``), with the label after each character. A sentence's text is its
    ``# text`` where the tokens match it, else the tokens joined as ``SpaceAfter`` says."""
    parts, labels, pstart, all_tokens = [], [], [0], []
    length = 0
    open_paragraph = False
    for sentence in sentences:
        tokens = sentence_tokens(sentence)
        if not tokens:
            continue
        text = _comment(sentence, "text")
        starts = _placed(text, tokens) if text is not None else None
        if starts is None:
            text = _rebuilt(tokens)
            starts = _placed(text, tokens)
        if open_paragraph and _starts_paragraph(sentence):
            parts.append("\n\n")
            labels.append(np.full(2, -1, np.int8))
            length += 2
            pstart.append(length)
        elif open_paragraph:
            gap = " " if all_tokens[-1].space_after else ""
            parts.append(gap)
            labels.append(np.full(len(gap), -1, np.int8))
            length += len(gap)
        open_paragraph = True
        own = np.zeros(len(text), np.int8)
        for token, start in zip(tokens, starts):
            own[start + len(token.form) - 1] = 1
        own[starts[-1] + len(tokens[-1].form) - 1] = 2
        own[[i for i, c in enumerate(text) if c.isspace()]] = -1      # whitespace: no decision
        parts.append(text)
        labels.append(own)
        length += len(text)
        all_tokens.extend(tokens)
    if not all_tokens:
        raise MaltpyError("the tokenizer learns from CoNLL-U sentences with words; these have none")
    parts.append("\n\n")
    labels.append(np.full(2, -1, np.int8))
    length += 2
    pstart.append(length)
    return Paragraphs("".join(parts), np.array(pstart, np.int64), np.concatenate(labels), all_tokens)


def raw_text(sentences) -> str:
    """The raw text of CoNLL-U sentences as a study gives it to a tokenizer: each paragraph's
    sentences one after another, a blank line between paragraphs."""
    return treebank_text(sentences).text.rstrip("\n") + "\n"
