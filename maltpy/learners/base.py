"""What a learner is to the parser: its options, ``fit``, and the capabilities it declares.

The parser reads these attributes and never probes for others, so a new learner states what it
can do here, by overriding them:

- ``kind``: the kind of model ``fit`` returns, each trained, scored and stored by its class in
  :mod:`maltpy.parsing.models`: ``"linear"`` (weights per feature and class, added by the
  parse-time table :mod:`maltpy.search.weights`) or ``"kernel"`` (LIBSVM-style models, scored in
  batches by :mod:`maltpy.search.kernel`);
- ``reports_passes``: ``fit`` calls ``progress(n_passes, value)`` after each pass, and
  :meth:`pass_note` says what the value means;
- ``logs_passes``: training logs each pass (the perceptron's epochs);
- ``online``: it can train inside the transition loop with a dynamic oracle (``-or dynamic``,
  :mod:`maltpy.search.online`);
- ``threaded``: ``fit`` uses ``n_threads`` threads, which the parser sets from ``-j``;
- ``min_count``: a frequency cut-off (``-lo "-f N"``): the parser gives ``fit`` only the feature
  values that occur in at least this many of a model's training instances.
"""
from __future__ import annotations


class Learner:
    """The capabilities every learner declares (see the module docstring), with their defaults."""
    kind = "linear"
    reports_passes = False
    logs_passes = False
    online = False
    threaded = False
    min_count = 1
    #: a beam over a model of this learner trained on single decisions adds the log-probabilities
    #: of a softmax over each decision's scores times this (``--beam-scores local``): the scale
    #: that makes the learner's scores probabilities (chosen on EWT dev, docs/beam.md)
    local_temperature = 1.0

    def import_estimator(self):
        """Import what :meth:`fit` needs ahead of it (scikit-learn takes seconds); nothing by default."""
        return None

    def pass_note(self, n_passes: int, value: float) -> str:
        """What the progress bar shows after a pass of a learner that reports passes."""
        return f"pass {n_passes}"
