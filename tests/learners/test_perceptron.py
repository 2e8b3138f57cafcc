"""The averaged perceptron learner (-l perceptron)."""
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import maltpy
from maltpy.errors import MaltpyError
from maltpy.formats.conll import read_conll
from maltpy.learners import make_learner
from maltpy.learners.averaged_perceptron import train_averaged_perceptron
from conftest import EXAMPLES


def _brute_force_average(indptr, indices, y, n_features, n_classes, order):
    """The averaged perceptron written out: the mean of the weights before the first step and
    after every step."""
    w = np.zeros((n_features, n_classes))
    b = np.zeros(n_classes)
    total_w, total_b, steps = np.zeros_like(w), np.zeros_like(b), 1
    for epoch_order in order:
        for r in epoch_order:
            feats = indices[indptr[r]:indptr[r + 1]]
            scores = b + w[feats].sum(axis=0)
            pred = int(np.argmax(scores))
            if pred != y[r]:
                w[feats, y[r]] += 1
                w[feats, pred] -= 1
                b[y[r]] += 1
                b[pred] -= 1
            total_w += w
            total_b += b
            steps += 1
    return total_w / steps, total_b / steps


def test_the_averaging_trick_equals_the_plain_average():
    rng = np.random.default_rng(3)
    n, n_features, n_classes = 60, 12, 4
    rows = [np.sort(rng.choice(n_features, size=rng.integers(1, 5), replace=False)) for _ in range(n)]
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    indices = np.concatenate(rows).astype(np.int32)
    y = rng.integers(0, n_classes, size=n).astype(np.int32)
    epochs, seed = 4, 11
    W, bias = train_averaged_perceptron(indptr, indices, y, n_features, n_classes, epochs, seed)
    perm_rng = np.random.default_rng(seed)
    order = [perm_rng.permutation(n) for _ in range(epochs)]
    W_ref, b_ref = _brute_force_average(indptr, indices, y, n_features, n_classes, order)
    assert np.allclose(W, W_ref, atol=1e-5) and np.allclose(bias, b_ref, atol=1e-5)
    assert np.abs(W_ref).max() > 0


def test_learns_a_separable_problem_and_reports_each_epoch():
    X = sp.csr_matrix(np.eye(6, dtype=np.float64))
    y = np.array([0, 1, 2, 0, 1, 2], dtype=np.int32)
    notes = []
    learner = make_learner("perceptron", "-i 5 -s 3")
    W, bias = learner.fit(X, y, 4, progress=lambda epoch, error: notes.append((epoch, error)))
    assert [e for e, _ in notes] == [1, 2, 3, 4, 5] and notes[-1][1] == 0.0
    assert (np.argmax(X.toarray() @ W + bias, axis=1) == y).all()
    assert bias[3] < -1e20    # a class never seen is never chosen


def test_options_are_checked():
    assert make_learner("perceptron", "").options_string() == "-i 15 -s 0 -k 1 -p 0.9"
    for bad, message in (("-i 0", "1 to 10000"), ("-x 1", "not supported"), ("-i", "needs a value"),
                         ("-p 1.5", "from 0 to 1"), ("-k -1", "0 or later")):
        with pytest.raises(MaltpyError, match=message):
            make_learner("perceptron", bad)


def test_perceptron_model_trains_parses_saves_and_reloads(tmp_path):
    model = str(tmp_path / "p.mpz")
    r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-m", "learn", "-i",
                        f"{EXAMPLES}/toy-train.conll", "-l", "perceptron", "-lo", "-i 8", "-v"],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "epoch 8/8: training accuracy" in r.stderr
    parser = maltpy.load(model)
    gold = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)
    from maltpy.evaluation.scores import evaluate
    assert evaluate(gold, parser.parse(gold))["all"].las > 85
    again = maltpy.Parser(learner="perceptron", learner_options="-i 8", verbose=False).fit(
        read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True))
    assert [s.heads for s in again.parse(gold)] == [s.heads for s in parser.parse(gold)]   # seeded


def test_dynamic_oracle_training_explores_and_beats_the_static_oracle_on_the_toy_grammar():
    """-or dynamic trains inside the transition loop: seeded, and better than the static oracle here."""
    from maltpy.evaluation.scores import evaluate
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    gold = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)
    las = {}
    for oracle in ("static", "dynamic"):
        p = maltpy.Parser(learner="perceptron", oracle=oracle, verbose=False).fit(train)
        las[oracle] = evaluate(gold, p.parse(gold))["all"].las
    assert las["dynamic"] >= las["static"] > 85
    notes = []
    a = maltpy.Parser(learner="perceptron", oracle="dynamic", learner_options="-i 4 -k 0 -p 1", verbose=False)
    a.fit(train, log=notes.append)
    b = maltpy.Parser(learner="perceptron", oracle="dynamic", learner_options="-i 4 -k 0 -p 1", verbose=False).fit(train)
    assert [s.heads for s in a.parse(gold)] == [s.heads for s in b.parse(gold)]
    assert sum("training accuracy" in n for n in notes) == 4


@pytest.mark.parametrize("settings,message", [
    ({"learner": "liblinear"}, "use -l perceptron"),
    ({"learner": "perceptron", "algorithm": "nivrestandard"}, "no dynamic oracle yet"),
    ({"learner": "perceptron", "buffer_transitions": "lba"}, r"does not cover buffer transitions \(-bt\)"),
    ({"learner": "perceptron", "algorithm": "covnonproj", "undirected": "label"}, "not -ud"),
    ({"learner": "perceptron", "split_column": "POSTAG", "split_structure": "Input[0]"}, "data split"),
])
def test_dynamic_oracle_refusals(settings, message):
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)[:20]
    with pytest.raises(MaltpyError, match=message):
        maltpy.Parser(oracle="dynamic", verbose=False, **settings).fit(train)


def test_every_learner_declares_its_capabilities():
    """The parser reads a learner's declared capabilities (maltpy.learners.base.Learner), never probes."""
    from maltpy.learners import LEARNERS, make_learner
    from maltpy.learners.base import Learner
    for name in LEARNERS:
        learner = make_learner(name, "")
        assert isinstance(learner, Learner)
        assert learner.kind in ("linear", "kernel")
        assert all(isinstance(getattr(learner, c), bool)
                   for c in ("reports_passes", "logs_passes", "online", "threaded"))
        assert not learner.threaded or learner.n_threads >= 1
    assert [n for n in LEARNERS if make_learner(n, "").online] == ["perceptron"]
