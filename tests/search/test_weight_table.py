"""The parse-time weight table (maltpy.search.weights): a decision's scores are the bias plus its
features' rows, added in the features' order, class by class, bit for bit as float32 adds of
dense rows would give, whatever the number of classes and whichever rows are kept sparse, by the
narrow version of the sums and by the AVX-512 one where the processor has it."""
import numpy as np
from hypothesis import given, settings, strategies as st

from maltpy.search.weights import DENSE_ROW, Weights, _set_wide_tiles, sparse_rows


@st.composite
def tables(draw):
    n_classes = draw(st.sampled_from([1, 2, 7, 8, 9, 15, 16, 17, 107, 111, 112, 113, 120, 126, 127, 128, 129, 136, 200, 225, 256, 300]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 2 ** 64 - 1, size=draw(st.integers(0, 40)), dtype=np.uint64))
    n_rows = len(keys)
    W = np.zeros((n_rows, n_classes), dtype=np.float32)
    for r in range(n_rows):
        # rows of every density: a few classes (kept sparse), most classes (kept dense)
        share = rng.choice([0.02, DENSE_ROW / 2, DENSE_ROW * 2, 0.5, 1.0])
        nz = rng.random(n_classes) < share
        W[r, nz] = rng.normal(size=nz.sum()).astype(np.float32) * rng.choice([1e-3, 1.0, 1e3])
    bias = rng.normal(size=n_classes).astype(np.float32)
    absent = rng.integers(0, 2 ** 64 - 1, size=5, dtype=np.uint64)
    pool = np.concatenate([keys, absent[~np.isin(absent, keys)]])
    asked = rng.choice(pool, size=draw(st.integers(0, 80))) if len(pool) else np.zeros(0, np.uint64)
    return keys, W, bias, asked


@st.composite
def runs_of(draw, n_classes):
    """Ascending, disjoint (first, end) ranges of classes, at least one: the permissible ones."""
    cuts = sorted(set(draw(st.lists(st.integers(0, n_classes), min_size=2, max_size=8))))
    runs = [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b][::2]
    return runs or [(0, n_classes)]


@settings(max_examples=300, deadline=None)
@given(tables(), st.booleans(), st.booleans(), st.data())
def test_scores_are_the_rows_added_in_order_class_by_class(table, as_sparse_rows, wide, data):
    keys, W, bias, asked = table
    n_classes = len(bias)
    runs = data.draw(st.one_of(st.none(), runs_of(n_classes)))
    w = sparse_rows(W) if as_sparse_rows else W
    try:
        _set_wide_tiles(wide)
        scores = Weights([(keys, w, bias)], np.zeros(1, dtype=np.int32), 0, n_classes).scores(asked, runs=runs)
    finally:
        _set_wide_tiles(True)       # as the processor allows, for the other tests
    row = {int(k): r for r, k in enumerate(keys)}
    expected = bias.copy()
    for k in asked:
        if int(k) in row:
            expected += W[row[int(k)]]      # float32 adds, one row after the other
    permissible = np.concatenate([np.arange(a, b) for a, b in (runs or [(0, n_classes)])])
    assert scores.dtype == np.float32 and scores.shape == (n_classes,)
    assert scores[permissible].tobytes() == expected[permissible].tobytes()
