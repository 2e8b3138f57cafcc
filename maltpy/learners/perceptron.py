"""An averaged perceptron (``-l perceptron``): a fast linear learner trained online.

Trained on the static oracle's instances (:mod:`maltpy.learners.averaged_perceptron`, Cython
without the GIL), it exports weights of the same shape as LIBLINEAR's, so model files and the
parse loop are those of linear models. Options (``-lo``): ``-i`` epochs (default 15), ``-s`` the
seed of the order in which each epoch visits the instances (default 0); with the dynamic oracle
(``-or dynamic``, :mod:`maltpy.search.online`), ``-k`` the epochs before exploring (default 1)
and ``-p`` the probability of following a wrong prediction (default 0.9), Goldberg & Nivre's;
``-f N`` a frequency cut-off: a feature value gets weights only if it occurs in at least N of the
static oracle's training instances (default 1: all; the dynamic oracle counts them on the gold
trees' oracle walk before training). Global training (``-b`` above 1): ``-u`` max (default) or
early updates, ``-m N`` mini-batches of N sentences, each searched with the weights of the batch's
start (on up to N of the ``-j`` threads) and their updates then summed in order (default 4; 1: one sentence
at a time; the model depends on N, never on ``-j``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.learners.base import Learner
from maltpy.learners.liblinear import UNSEEN
from maltpy.learners.options import parse_flags


def parse_perceptron_options(text: str) -> dict:
    """``"-i 15 -s 0 -k 1 -p 0.9"`` (``-lo``, underscores allowed for spaces)."""
    opts = parse_flags(text, {"i": 15, "s": 0, "k": 1, "p": 0.9, "f": 1, "u": "max", "m": 4},
                       {"i": int, "s": int, "k": int, "p": float, "f": int, "u": str, "m": int}, "perceptron")
    if opts["u"] not in ("max", "early"):
        raise MaltpyError(f"perceptron option -u {opts['u']}: global training updates at the max violation (max) "
                          "or early (early)")
    if not 0 <= opts["p"] <= 1:
        raise MaltpyError(f"perceptron option -p {opts['p']:g}: the exploration probability is from 0 to 1")
    if opts["k"] < 0:
        raise MaltpyError(f"perceptron option -k {opts['k']}: the first epoch that explores is 0 or later")
    if not 1 <= opts["i"] <= 10_000:
        raise MaltpyError(f"perceptron option -i {opts['i']}: use 1 to 10000 epochs")
    if not 1 <= opts["f"] < 2 ** 31:
        raise MaltpyError(f"perceptron option -f {opts['f']}: a feature value needs at least 1 occurrence")
    if not 1 <= opts["m"] <= 4096:
        raise MaltpyError(f"perceptron option -m {opts['m']}: a mini-batch has 1 to 4096 sentences")
    if not 0 <= opts["s"] < 2 ** 32:
        raise MaltpyError(f"perceptron option -s {opts['s']}: the seed must be from 0 to 2^32 - 1")
    return opts


@dataclass
class PerceptronLearner(Learner):
    """Collins's averaged perceptron over the oracle's instances."""
    local_temperature = 0.1
    epochs: int = 15
    seed: int = 0
    explore_after: int = 1      # -k: epochs before exploring (dynamic oracle)
    explore_p: float = 0.9      # -p: probability of following a wrong prediction (dynamic oracle)
    min_count: int = 1          # -f: occurrences in the training instances a feature value needs for weights
    update: str = "max"         # -u: global training (-b > 1) updates at the max violation or early
    batch: int = 4              # -m: global training's mini-batch (sentences searched with the same weights)

    #: the parse loop adds weight rows (see maltpy.search.weights)
    kind = "linear"
    #: :meth:`fit` calls ``progress(epoch, error rate)`` once per epoch, and training logs it
    reports_passes = True
    logs_passes = True
    #: can train inside the transition loop (-or dynamic, maltpy.search.online)
    online = True

    @classmethod
    def from_options(cls, text: str) -> "PerceptronLearner":
        o = parse_perceptron_options(text)
        return cls(epochs=o["i"], seed=o["s"], explore_after=o["k"], explore_p=o["p"], min_count=o["f"], update=o["u"],
                   batch=o["m"])

    def options_string(self) -> str:
        cut = f" -f {self.min_count}" if self.min_count > 1 else ""
        early = " -u early" if self.update == "early" else ""
        batch = f" -m {self.batch}" if self.batch != 4 else ""
        return f"-i {self.epochs} -s {self.seed} -k {self.explore_after} -p {self.explore_p:g}{cut}{early}{batch}"

    def pass_note(self, epoch: int, error: float) -> str:
        """The line training shows after an epoch."""
        return f"epoch {epoch}/{self.epochs}: training accuracy {100.0 * (1.0 - error):.2f}%"

    def import_estimator(self):
        """Nothing to import (the trainer is maltpy's own)."""
        return None

    def fit(self, X, y, n_classes: int, progress=None):
        """Train on X (0/1 CSR, n x features), y (class ids). Returns (W float32 features x
        n_classes, bias float32); classes absent from y score :data:`UNSEEN`."""
        from maltpy.learners.averaged_perceptron import train_averaged_perceptron
        seen = np.unique(y)
        W = np.zeros((X.shape[1], n_classes), dtype=np.float32)
        bias = np.full(n_classes, UNSEEN, dtype=np.float32)
        bias[seen] = 0.0
        if len(seen) < 2:
            return W, bias
        local = np.searchsorted(seen, y).astype(np.int32)   # train over the seen classes only

        report = (lambda epoch, accuracy, seconds: progress(epoch, 1.0 - accuracy)) if progress else None  # noqa: E731
        W_seen, b_seen = train_averaged_perceptron(
            np.ascontiguousarray(X.indptr, dtype=np.int64), np.ascontiguousarray(X.indices, dtype=np.int32),
            local, X.shape[1], len(seen), self.epochs, self.seed, report)
        W[:, seen] = W_seen
        bias[seen] = b_seen
        return W, bias
