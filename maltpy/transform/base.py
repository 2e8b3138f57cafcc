"""What one step of the model's view of a sentence does (:class:`Transform`); the steps are put
together by :class:`maltpy.transform.pipeline.View`."""
from __future__ import annotations


class Transform:
    """A transform between the sentences a user has and those a model is trained on and parses.
    Every hook has a default that does nothing, so a step overrides what it changes:

    - before training and parsing: :meth:`encode` (the sentences; :meth:`encode_gold` for
      training's), :meth:`encode_labels`
      (training's gold label ids), :meth:`root_label` and :meth:`setup_system` (the transition
      system's labels), :meth:`feature_values` (what label features read);
    - after parsing: :meth:`output_labels` (the label names written), :meth:`decode` (one tree,
      the Python path) and :meth:`decode_rows` (a chunk's arrays, the compiled path).
    """

    #: the step reverses the words (the compiled encoder reverses them as it encodes)
    reverses_words = False

    def encode(self, sentences, conllu: bool):
        """The sentences (Sentence objects, or a ColumnBatch to parse) as the model reads them."""
        return sentences

    def encode_gold(self, sentences, conllu: bool):
        """Training's gold sentences as the model learns from them (by default as :meth:`encode`)."""
        return self.encode(sentences, conllu)

    def encode_labels(self, heads, label_ids, labels, root_label: str):
        """Training's gold arrays (corpus rows; root rows -1) over ``labels``: ``(labels, ids)``."""
        return labels, label_ids

    def root_label(self, root_label: str) -> str:
        """The label the system gives a word it makes a root."""
        return root_label

    def setup_system(self, system, labels) -> None:
        """Tell the transition system what it needs to know of the labels."""

    def feature_values(self, labels):
        """What OutputColumn(DEPREL) features read for each label id (None: the id + 1)."""
        return None

    def output_labels(self, labels):
        """The names written for the model's labels."""
        return labels

    def decode(self, heads, labels):
        """One parsed tree (heads with -1 for the root entry first, label names), in the model's
        view before this step's encoding, as (heads, labels)."""
        return heads, labels

    def decode_rows(self, offsets, heads, labels, names):
        """A chunk's parse (corpus rows: sentence k owns rows offsets[k]..offsets[k+1], a root
        row first; label ids into ``names``) decoded: (heads, labels, names), where the names may
        be a longer list (labels the decoding made) and the arrays may be changed in place."""
        return heads, labels, names
