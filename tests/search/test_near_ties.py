"""Near ties settled as MaltParser's double weights settle them: the parse loop scores in float32,
and where another permissible class comes within float32's rounding of the best, the classes are
scored again in double with the weights' low parts (maltpy.search.weights.Weights.settle)."""
from dataclasses import replace

import numpy as np
import pytest

import maltpy
from conftest import EXAMPLES
from maltpy.formats.conll import read_conll
from maltpy.search.weights import sparse_rows

TRAIN = f"{EXAMPLES}/toy-train.conll"
TEST = f"{EXAMPLES}/toy-test.conll"


def _double_parse(p, sentence):
    """A reference parse in Python: every decision the first permissible class of the highest
    double-precision score, with float64 weights (as LIBLINEAR's Java predict in MaltParser)."""
    corpus = p.encode([sentence])
    tok = np.asarray(corpus.tok)
    system = p.system(False)
    config = system.new_configuration(len(sentence))
    keys_arr, W64, bias = p.exact_weights
    row_of = {int(k): i for i, k in enumerate(keys_arr)}
    C = p.classes.n_classes
    move_of = [p.classes.move_and_label(c) for c in range(C)]
    while not config.is_terminal():
        valid = config.valid_moves()
        if not valid:
            break
        allowed = [c for c in range(C) if move_of[c][0] in valid]
        if len(valid) == 1 and move_of[allowed[0]][1] < 0:
            config.apply(valid[0])
            continue
        keys, _ = p.extractor.keys(config, tok)
        scores = bias.astype(np.float64).copy()
        for k in keys:
            r = row_of.get(int(k))
            if r is not None:
                scores += W64[r]
        best = max(allowed, key=lambda c: (scores[c], -c))
        move, label = move_of[best]
        config.apply(move, label)
    config.finish()
    return config.heads[1:], config.labels[1:]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_float32_ties_are_settled_by_the_double_weights(seed):
    """Weights made so that float32 rounds many of them to the same value: the parses follow the
    double sums (the reference), which the float32 sums alone would not."""
    p = maltpy.train(TRAIN, verbose=False, jobs=1)
    rng = np.random.default_rng(seed)
    keys, W, bias = p.splits[0]
    W = np.asarray(W if not isinstance(W, tuple) else np.zeros((len(keys), len(bias))))
    # halves (exact in float32, so float32 sums tie often) plus differences float32 cannot hold
    W64 = np.round(rng.normal(size=W.shape) * 2) / 2 + rng.normal(size=W.shape) * 1e-8
    bias64 = np.zeros(len(bias), dtype=np.float32)
    p._set_model(replace(p.model, splits=[(keys, W64, bias64)]))
    p.exact_weights = (keys, W64, bias64)
    p._weights = None
    assert sparse_rows(W64)[3] is not None
    sentences = read_conll(TEST)
    parsed = p.parse(sentences, one_root=False)
    differ_from_float32 = 0
    for s, out in zip(sentences, parsed):
        heads, labels = _double_parse(p, s)
        assert out.heads == heads and out.labels == [p.labels[x] for x in labels]
    # the same weights without their low parts: float32 alone decides otherwise somewhere
    p._set_model(replace(p.model, splits=[(keys, W64.astype(np.float32), bias64)]))
    p._weights = None
    for s, out in zip(sentences, p.parse(sentences, one_root=False)):
        differ_from_float32 += out.heads != _double_parse(p, s)[0]
    assert differ_from_float32 > 0


def test_a_liblinear_model_keeps_the_low_parts_and_loads_them(tmp_path):
    p = maltpy.train(TRAIN, verbose=False, jobs=1)
    path = str(tmp_path / "m.mpz")
    p.save(path)
    import zipfile
    with zipfile.ZipFile(path) as z:
        assert "arrays/w0_low.npy" in z.namelist()
    q = maltpy.load(path)
    assert q.splits[0][1][3] is not None
    sentences = read_conll(TEST)
    assert [s.rows for s in q.parse(sentences)] == [s.rows for s in p.parse(sentences)]
