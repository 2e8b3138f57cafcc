"""The model's view of a sentence as one pipeline of transforms, built once from the settings.

Encoding runs the steps in order before training and parsing; decoding runs them backwards
after parsing. The steps, in encoding order:

1. right to left (``-dir rtl``, :mod:`maltpy.transform.reverse`): the words reversed;
2. pseudo-projective (``-pp``/``-pcr``, :mod:`maltpy.transform.pseudoproj`): gold trees
   projectivized, parses deprojectivized;
3. direction labels (``-ud label``, :mod:`maltpy.transform.direction`): each arc's direction in
   its label, dropped from the output.

Around the view, ``-dir both`` combines the trees of two parsers, one reading each way
(:mod:`maltpy.transform.combine`), and one root (``-ro``, :mod:`maltpy.transform.single_root`)
is the last step of the output. Each step's module decides from the settings whether it takes
part (its ``from_settings``); no other module reads those settings.
"""
from __future__ import annotations

from maltpy.transform.base import Transform
from maltpy.transform.direction import DirectionLabels
from maltpy.transform.pseudoproj import PseudoProjective
from maltpy.transform.reverse import RightToLeft

#: the steps, in encoding order
STEPS = (RightToLeft, PseudoProjective, DirectionLabels)


class View:
    """The transforms of one model, in encoding order (see the module docstring)."""

    def __init__(self, steps):
        self.steps = [s for s in steps if s is not None]

    @classmethod
    def from_settings(cls, settings) -> "View":
        """The steps ``settings`` ask for."""
        return cls(step.from_settings(settings) for step in STEPS)

    @property
    def reverses_words(self) -> bool:
        return any(s.reverses_words for s in self.steps)

    @property
    def changes_trees(self) -> bool:
        """Whether parses are decoded into other trees (else the parser's arrays are the output)."""
        return any(type(s).decode is not Transform.decode or type(s).decode_rows is not Transform.decode_rows
                   for s in self.steps)

    def encode(self, sentences, conllu: bool):
        for s in self.steps:
            sentences = s.encode(sentences, conllu)
        return sentences

    def encode_gold(self, sentences, conllu: bool):
        for s in self.steps:
            sentences = s.encode_gold(sentences, conllu)
        return sentences

    def encode_labels(self, heads, label_ids, labels, root_label: str):
        for s in self.steps:
            labels, label_ids = s.encode_labels(heads, label_ids, labels, root_label)
        return labels, label_ids

    def root_label(self, root_label: str) -> str:
        for s in self.steps:
            root_label = s.root_label(root_label)
        return root_label

    def setup_system(self, system, labels) -> None:
        for s in self.steps:
            s.setup_system(system, labels)

    def feature_values(self, labels):
        for s in self.steps:
            values = s.feature_values(labels)
            if values is not None:
                return values
        return None

    def output_labels(self, labels):
        for s in reversed(self.steps):
            labels = s.output_labels(labels)
        return list(labels)

    def decode(self, heads, labels):
        """One tree over words 1..n (lists without the root entry), label names from
        :meth:`output_labels`, in the input's view."""
        heads, labels = [-1] + list(heads), ["_"] + list(labels)
        for s in reversed(self.steps):
            heads, labels = s.decode(heads, labels)
        return heads[1:], labels[1:]

    def decode_rows(self, offsets, heads, labels, names):
        """A chunk's parse in the input's view (see :meth:`Transform.decode_rows`)."""
        for s in reversed(self.steps):
            heads, labels, names = s.decode_rows(offsets, heads, labels, names)
        return heads, labels, names
