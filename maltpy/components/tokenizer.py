"""The tokenizer as a component: the first step of a model file's pipeline, which reads raw text
(``-if text``) and writes the sentences, tokens and words the components after it read. On
input that is already words (CoNLL, horizontal, vertical) it has nothing to do."""
from __future__ import annotations

from typing import List, Sequence

from maltpy.components.base import Component


class TokenizerComponent(Component):
    """A trained :class:`~maltpy.tokenizing.tokenizer.Tokenizer` as a pipeline's step; its bytes
    are :meth:`Tokenizer.to_bytes`."""

    name = "tokenizer"
    reads = ()
    writes = ("ID", "FORM", "MISC")
    reads_text = True

    def __init__(self, tokenizer=None, **settings):
        from maltpy.tokenizing.tokenizer import Tokenizer
        self.tokenizer = tokenizer if tokenizer is not None else Tokenizer(**settings)

    def fit(self, sentences, fmt=None, log=None) -> "TokenizerComponent":
        self.tokenizer.fit(sentences, log=log)
        return self

    def __call__(self, sentences: Sequence) -> List:
        return list(sentences)      # words already: nothing to cut

    def text_source(self, source, lines: bool = False):
        """A text input read as the CoNLL-U of its sentences (a binary stream)."""
        from maltpy.tokenizing.stream import TextAsConll
        return TextAsConll(source, self.tokenizer, lines)

    def to_bytes(self) -> bytes:
        return self.tokenizer.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes, **overrides) -> "TokenizerComponent":
        from maltpy.tokenizing.tokenizer import Tokenizer
        return cls(Tokenizer.from_bytes(data))

    def describe(self) -> dict:
        return {**super().describe(), **self.tokenizer.describe()}
