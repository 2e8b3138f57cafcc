"""A maltpy model's tokenizer as spaCy's tokenizer (the optional extra ``maltpy[spacy]``), so that
a spaCy pipeline gets the tokens and sentences of the treebank the model learned from.

    import spacy
    from maltpy.integrations.spacy_tokenizer import MaltpyTokenizer
    nlp = spacy.blank("en")
    nlp.tokenizer = MaltpyTokenizer(nlp.vocab, "ewt.mpz")   # a model learned with --tokenizer
    nlp.add_pipe("maltpy_parser", config={"model": "ewt.mpz"})
    doc = nlp("I didn't see it. Did you?")

spaCy's tokens spell the text, so a multiword token becomes its words where they spell it
(``didn't`` -> ``did``, ``n't``; UD's ``del`` -> ``de el`` stays ``del``). Whitespace other than
one space after a token is a token of its own, as spaCy's tokenizer makes it (``token.is_space``).
The sentences the tokenizer found are the doc's (``doc.sents``; ``token.is_sent_start``), and the
``maltpy_parser`` component parses them one by one. In a configuration file::

    [nlp.tokenizer]
    @tokenizers = "maltpy.Tokenizer.v1"
    model = "ewt.mpz"
"""
from __future__ import annotations

import io
from typing import List

from spacy.tokens import Doc
from spacy.util import registry

from maltpy.errors import MaltpyError


class MaltpyTokenizer:
    """``tokenizer(text) -> Doc`` with a maltpy model file's tokenizer (its first component)."""

    def __init__(self, vocab, model: str):
        self.vocab = vocab
        self.model = model
        self._load(model)

    def _load(self, model):
        from maltpy.components import Pipeline
        pipeline = Pipeline.load(model) if isinstance(model, str) else Pipeline.from_bytes(model)
        if pipeline.tokenizer is None:
            raise MaltpyError(f"{model if isinstance(model, str) else 'the model'}: it has no tokenizer (learn one "
                              "with maltpy -m learn --tokenizer)")
        self.tokenizer = pipeline.tokenizer.tokenizer
        self._bytes = pipeline.tokenizer.to_bytes()

    def __call__(self, text: str) -> Doc:
        from maltpy.formats.text import iter_paragraphs
        words: List[str] = []
        spaces: List[bool] = []
        starts: List[bool] = []
        if text.strip():
            paragraphs = [p for _, p, _ in iter_paragraphs(io.BytesIO(text.encode("utf-8", "surrogatepass")))]
            for sentence in self.tokenizer.sentences(paragraphs):
                if sentence is None:
                    continue
                first = True
                for form, split, gap in sentence:
                    if form == "":                  # a paragraph's leading whitespace opens its sentence
                        words.append(gap)
                        spaces.append(False)
                        starts.append(True)
                        first = False
                        continue
                    pieces = list(split) if split and "".join(split) == form else [form]
                    for k, piece in enumerate(pieces):
                        words.append(piece)
                        spaces.append(False)
                        starts.append(first and k == 0)
                    first = False
                    if gap.startswith(" "):
                        spaces[-1] = True
                        gap = gap[1:]
                    if gap:                         # other whitespace: a token of its own
                        words.append(gap)
                        spaces.append(False)
                        starts.append(False)
        elif text:
            words, spaces, starts = [text], [False], [True]
        return Doc(self.vocab, words=words, spaces=spaces, sent_starts=starts if words else None)

    def pipe(self, texts, batch_size=1000):
        for text in texts:
            yield self(text)

    # spaCy saves and loads a pipeline's tokenizer with these
    def to_bytes(self, exclude=tuple(), **kwargs) -> bytes:
        return self._bytes

    def from_bytes(self, data: bytes, exclude=tuple(), **kwargs) -> "MaltpyTokenizer":
        from maltpy.components import TokenizerComponent
        component = TokenizerComponent.from_bytes(data)
        self.tokenizer, self._bytes = component.tokenizer, data
        return self

    def to_disk(self, path, exclude=tuple(), **kwargs) -> None:
        with open(path, "wb") as f:
            f.write(self._bytes)

    def from_disk(self, path, exclude=tuple(), **kwargs) -> "MaltpyTokenizer":
        with open(path, "rb") as f:
            return self.from_bytes(f.read())


@registry.tokenizers("maltpy.Tokenizer.v1")
def create_maltpy_tokenizer(model: str):
    """spaCy's registry: ``@tokenizers = "maltpy.Tokenizer.v1"`` with ``model = "file.mpz"``."""
    def make(nlp):
        return MaltpyTokenizer(nlp.vocab, model)
    return make
