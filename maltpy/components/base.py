"""What a component of a model file is (:class:`Component`): a step that reads some CoNLL columns
of the sentences and writes others, learned from a treebank, saved as bytes.

A model file holds an ordered list of components (:class:`maltpy.components.pipeline.Pipeline`),
run in order as spaCy's ``Language`` runs its pipes and UDPipe runs tokenizer, tagger and
parser from one model file. Today's parser is a component (:mod:`maltpy.components.parser`);
a tagger or a tokenizer is one more in front of it.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple


class Component:
    """One step of a model file's pipeline. A subclass sets :attr:`name` (its registry key in
    :data:`maltpy.components.COMPONENTS`), :attr:`reads` and :attr:`writes` (CoNLL column names),
    and implements:

    - :meth:`fit` (learn from gold sentences; returns self),
    - :meth:`__call__` (the batch call: a list of :class:`~maltpy.formats.conll.Sentence` in, the
      same sentences with the columns it writes filled, out),
    - :meth:`to_bytes` and :meth:`from_bytes` (what it learned; no code is run when loading),

    and may implement :meth:`parse_file` (the compiled streaming path from a file to a file;
    :attr:`streams` says it does: a pipeline whose components all stream runs that way)."""

    #: the registry key, stored in model files
    name: str = ""
    #: the CoNLL columns it reads and those it writes (names as in maltpy.formats.conll.COLUMNS)
    reads: Tuple[str, ...] = ()
    writes: Tuple[str, ...] = ()
    #: whether parse_file runs the compiled streaming path
    streams = False
    #: whether it reads raw text (a tokenizer: the first component; skipped on input that is words)
    reads_text = False

    def fit(self, sentences, fmt: str = "conllx", log=None) -> "Component":
        raise NotImplementedError

    def __call__(self, sentences: Sequence) -> List:
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def from_bytes(cls, data: bytes, **overrides) -> "Component":
        raise NotImplementedError

    def chunk_work(self, fmt: str, drop_extra: bool):
        """The compiled streaming step, if the component has one: a function of the input's name
        that makes a callable from a scanned :class:`~maltpy.formats.scan.Chunk` to its output
        bytes (read only, so that threads share it). ``fmt``: the input's format;
        ``drop_extra``: CoNLL-U in, CoNLL-X out. None: the component runs on Python sentences."""
        return None

    def describe(self) -> dict:
        """What the component is, as plain data (``maltpy info``)."""
        return {"component": self.name, "reads": list(self.reads), "writes": list(self.writes)}
