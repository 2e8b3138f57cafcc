"""The tagger and lemmatizer as a component: a :class:`~maltpy.tagging.tagger.Tagger` that reads
FORM and writes the columns it learned (UPOS, XPOS, FEATS, LEMMA), in front of the parser."""
from __future__ import annotations

from typing import List, Sequence

from maltpy.components.base import Component

#: CoNLL-U's names of the columns a tagger writes
_COLUMN_NAMES = {"upos": "UPOSTAG", "xpos": "XPOSTAG", "feats": "FEATS", "lemma": "LEMMA"}


class TaggerComponent(Component):
    """A trained tagger as a pipeline's step; its bytes are :meth:`Tagger.to_bytes`. Columns that
    a sentence gives whole are kept unless the tagger's ``retag`` is set (``--retag``)."""

    name = "tagger"
    reads = ("FORM",)

    def __init__(self, tagger=None, **settings):
        from maltpy.tagging.tagger import Tagger
        self.tagger = tagger if tagger is not None else Tagger(**settings)

    @property
    def writes(self):
        model = self.tagger.model_     # the columns learned ("all": those the data had), else those asked for
        columns = model.columns if model is not None else [c for g in self.tagger.groups for c in g]
        return tuple(_COLUMN_NAMES[c] for c in columns)

    def fit(self, sentences, fmt=None, log=None) -> "TaggerComponent":
        self.tagger.fit(sentences, log=log)
        return self

    def __call__(self, sentences: Sequence) -> List:
        return self.tagger.tag(sentences)

    def chunk_work(self, fmt, drop_extra):
        from maltpy.tagging.stream import ChunkTagger
        work = ChunkTagger(self.tagger)
        return lambda path: work

    def to_bytes(self) -> bytes:
        return self.tagger.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes, retag=None, ensemble_margin=None, **overrides) -> "TaggerComponent":
        from maltpy.tagging.tagger import Tagger
        return cls(Tagger.from_bytes(data, retag=retag, ensemble_margin=ensemble_margin))

    def describe(self) -> dict:
        return {**super().describe(), **self.tagger.describe()}
