"""The perceptron's trainable weights (maltpy/search/trainable.pyx): sparse rows that grow with
the updates, averaged without a second dense table, and the frequency cut-off (-lo "-f N")."""
import numpy as np
import pytest

from conftest import EXAMPLES
from maltpy.formats.conll import read_conll
from maltpy.parsing.parser import Parser

TRAIN = f"{EXAMPLES}/toy-train.conll"


@pytest.fixture(scope="module")
def train():
    return read_conll(TRAIN, need_heads=True)


def _fit(train, options="", **settings):
    return Parser(algorithm="nivreeager", learner="perceptron", oracle="dynamic", learner_options=options,
                  verbose=False, jobs=1, **settings).fit(train)


def _dense(p):
    """The trained model as one dense matrix over its feature keys (for comparisons)."""
    keys, (indptr, cols, vals, *_), bias = p.splits[0]
    W = np.zeros((len(keys), p.classes.n_classes), dtype=np.float32)
    for r in range(len(keys)):
        W[r, cols[indptr[r]:indptr[r + 1]]] = vals[indptr[r]:indptr[r + 1]]
    return dict(zip(keys.tolist(), W)), bias


def test_rows_hold_only_the_weights_that_survive_averaging(train):
    p = _fit(train)
    keys, (indptr, cols, vals, *_), bias = p.splits[0]
    assert len(keys) and np.all(vals != 0)                   # no zero kept
    assert np.all(np.diff(indptr) > 0)                       # no empty row kept
    for r in range(len(keys)):                               # classes ascending within a row
        assert np.all(np.diff(cols[indptr[r]:indptr[r + 1]]) > 0)
    # far fewer weights than features x classes
    assert len(vals) < 0.5 * len(keys) * p.classes.n_classes


def test_the_cut_off_keeps_the_frequent_feature_values_and_only_them(train):
    full = _fit(train)
    cut = _fit(train, "-f 3")
    w_full, _ = _dense(full)
    w_cut, _ = _dense(cut)
    assert 0 < len(w_cut) < len(w_full)
    # the kept keys are those the static oracle's instances have at least 3 times
    X, _, _, keys = Parser(algorithm="nivreeager", verbose=False).training_instances(train, "conllx")
    counts = dict(zip(keys.tolist(), np.bincount(X.indices, minlength=X.shape[1]).tolist()))
    assert all(counts.get(k, 0) >= 3 for k in w_cut)
    # and it still parses: a tree per sentence
    out = cut.parse(read_conll(f"{EXAMPLES}/toy-test.conll"))
    assert all(len(s.heads) == len(s) for s in out)
    # a cut-off nothing passes leaves the bias alone
    assert len(_fit(train, "-f 1000000").splits[0][0]) == 0


def test_the_static_perceptron_takes_the_cut_off_too(train):
    full = Parser(learner="perceptron", verbose=False, jobs=1).fit(train)
    cut = Parser(learner="perceptron", learner_options="-f 3", verbose=False, jobs=1).fit(train)
    assert 0 < len(cut.splits[0][0]) < len(full.splits[0][0])
    assert "-f 3" in cut.learner.options_string()


def test_a_cut_off_below_one_is_one_line():
    from maltpy.errors import MaltpyError
    with pytest.raises(MaltpyError, match="-f 0"):
        Parser(learner="perceptron", learner_options="-f 0", verbose=False).fit(read_conll(TRAIN, need_heads=True))


def test_liblinear_takes_the_cut_off_and_keeps_only_frequent_columns(train):
    full = Parser(verbose=False, jobs=1).fit(train)
    cut = Parser(learner_options="-f 3", verbose=False, jobs=1).fit(train)
    X, _, _, keys = Parser(verbose=False).training_instances(train, "conllx")
    counts = dict(zip(keys.tolist(), np.bincount(X.indices, minlength=X.shape[1]).tolist()))
    kept = cut.splits[0][0].tolist()
    assert 0 < len(kept) < len(full.splits[0][0]) and all(counts[k] >= 3 for k in kept)
    assert cut.learner.options_string().endswith("-f 3")
