"""The dependency parser as a component: a :class:`~maltpy.parsing.parser.Parser` that reads the
word and tag columns its feature model names and writes HEAD and DEPREL."""
from __future__ import annotations

from typing import List, Sequence

from maltpy.components.base import Component


class ParserComponent(Component):
    """A trained :class:`~maltpy.parsing.parser.Parser` as a pipeline's step; its bytes are the
    parser's own model file, so a parser's model file is a one-component pipeline."""

    name = "parser"
    writes = ("HEAD", "DEPREL")
    streams = True

    def __init__(self, parser=None, **settings):
        from maltpy.parsing.parser import Parser
        self.parser = parser if parser is not None else Parser(**settings)

    @property
    def reads(self):
        from maltpy.formats.conll import COLUMNS
        names = COLUMNS[self.parser.format]
        compiled = self.parser.compiled
        # each column once (a word's form is read as itself, as its suffix and as its cluster)
        return tuple(dict.fromkeys(names[c[0]] for c in (*compiled.token_columns, *compiled.multi_columns)))

    def fit(self, sentences, fmt=None, log=None) -> "ParserComponent":
        self.parser.fit(sentences, fmt=fmt, log=log)
        return self

    def __call__(self, sentences: Sequence) -> List:
        sentences = list(sentences)
        # CoNLL-U sentences (pre-tokenized words are read as CoNLL-U) get one word on the root,
        # as UD's tools want, whatever the model's own format (-ro auto)
        fmt = sentences[0].format if sentences and getattr(sentences[0], "format", None) else None
        return self.parser.parse(sentences, one_root=self.parser.one_root(fmt) if fmt else None)

    def parse_file(self, source, target, input_format=None, output_format=None, progress=False, jobs=None):
        return self.parser.parse_file(source, target, input_format, output_format, progress=progress, jobs=jobs)

    def chunk_work(self, fmt, drop_extra):
        from maltpy.parsing.stream import ChunkParser, unsupported
        parser = self.parser
        if parser.reduction is not None or unsupported(parser) is not None:
            return None
        one_root = parser.one_root("conllx" if drop_extra else fmt)
        return lambda path: ChunkParser(parser, one_root=one_root, source=path or "<stdin>")

    def to_bytes(self) -> bytes:
        return self.parser.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes, **overrides) -> "ParserComponent":
        from maltpy.parsing.parser import Parser
        return cls(Parser.from_bytes(data, **overrides))

    def describe(self) -> dict:
        return {**super().describe(), **self.parser.describe()}
