"""The tagger trainer's pieces held to plain definitions: its weight rows and their averages, its
choice of the best class, and the unique-rows helpers that number classes and count pairs."""
import numpy as np
from hypothesis import given, settings, strategies as st

from maltpy.tagging import perceptron
from maltpy.tagging.tagger import unique_pairs, unique_rows


def plain_average(updates, n_features, now):
    """The averaged perceptron's weights by definition: each (feature, class) weight held from
    one update's time to the next, summed over the time and divided by it."""
    history = {}
    for f, c, delta, t in updates:
        history.setdefault((f, c), []).append((t, delta))
    rows = {}
    for (f, c), changes in history.items():
        total, w = 0.0, 0.0
        for (t, delta), nxt in zip(changes, [t for t, _ in changes[1:]] + [now]):
            w = np.float32(w + np.float32(delta))
            total += float(w) * (nxt - t)
        rows.setdefault(f, {})[c] = np.float32(total / now)
    return rows


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_weight_rows_average_as_defined(data):
    n_features = data.draw(st.integers(1, 6))
    n_classes = data.draw(st.integers(1, 40))    # many classes a row: rows grow several times
    steps = data.draw(st.lists(st.tuples(st.integers(0, n_features - 1), st.integers(0, n_classes - 1),
                                         st.sampled_from([1.0, -1.0, 2.0]), st.integers(0, 3)), max_size=200))
    updates, t = [], 1
    for f, c, delta, gap in steps:
        t += gap
        updates.append((f, c, delta, t))
    now = t + data.draw(st.integers(0, 5))
    keys, indptr, classes, weights, _ = perceptron.averaged_after_updates(updates, n_features, now)
    # rows that turn dense once they hold a quarter of the classes give the same rows to the bit
    dense = perceptron.averaged_after_updates(updates, n_features, now, max(n_classes, 8))
    for a, b in zip((keys, indptr, classes, weights), dense):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    expected = plain_average(updates, n_features, now)
    got = {}
    for k, key in enumerate(keys.tolist()):
        row = {int(c): w for c, w in zip(classes[indptr[k]:indptr[k + 1]], weights[indptr[k]:indptr[k + 1]])}
        assert row, "a feature is kept only with some weight"
        got[key - 1] = row
    want = {f: {c: w for c, w in row.items() if w != 0} for f, row in expected.items()}
    want = {f: row for f, row in want.items() if row}
    assert got.keys() == want.keys()
    for f in want:
        assert got[f].keys() == want[f].keys()
        for c in want[f]:
            assert np.isclose(got[f][c], want[f][c], rtol=1e-6, atol=1e-9), (f, c, got[f][c], want[f][c])
    # the classes of a row come in the order they were first updated
    for f, row in got.items():
        first = list(dict.fromkeys(c for g, c, _, _ in updates if g == f))
        assert list(row) == [c for c in first if c in row]


def test_rows_turn_dense_at_a_quarter_of_the_classes():
    # feature 0 votes for 3 of 16 classes, feature 1 for 4: only the second turns dense
    updates = [(0, c, 1.0, 1 + c) for c in range(3)] + [(1, c, -1.0, 5 + c) for c in range(4)]
    assert perceptron.averaged_after_updates(updates, 2, 20, 16)[-1] == 1
    assert perceptron.averaged_after_updates(updates, 2, 20, 17)[-1] == 0    # 17 classes: 5 needed
    assert perceptron.averaged_after_updates(updates, 2, 20, 0)[-1] == 0     # 0: rows stay sparse
    assert perceptron.averaged_after_updates(updates, 2, 20, 7)[-1] == 0     # too few classes to bother


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(8, 40), st.integers(1, 4))
def test_dense_training_rows_learn_the_same_model_to_the_bit(seed, n_classes, epochs):
    """Random words with random tags of many classes (errors everywhere, so that the bias and the
    tag-history rows turn dense): the model is the same with dense rows as with sparse ones."""
    from maltpy.formats.conll import Sentence
    from maltpy.tagging.templates import ROW, compile_templates
    from maltpy.tagging.words import words_of
    rng = np.random.default_rng(seed)
    lexicon = ["w%d" % k for k in range(30)]
    sentences = [Sentence([[str(i + 1), str(rng.choice(lexicon))] + ["_"] * 8 for i in range(int(rng.integers(1, 12)))])
                 for _ in range(40)]
    words = words_of(sentences)
    gold = rng.integers(0, n_classes, words.n_words).astype(np.int32)
    values = np.full((len(ROW), words.n_words), -1, dtype=np.int32)
    values[ROW["upos"]] = gold
    templates = compile_templates(["Lower(InputColumn(FORM, Input[0]))", "Suffix(Lower(InputColumn(FORM, Input[0])), 1)",
                                   "OutputColumn(UPOSTAG, pred(Input[0]))"], [], [ROW["upos"]], "test")
    class_values = np.arange(n_classes, dtype=np.int32).reshape(-1, 1)
    rows = np.array([ROW["upos"]], dtype=np.int32)
    args = (words.cps, words.low, words.shp, words.wstart, words.sstart)
    dense = perceptron.train(*args, values.copy(), gold, class_values, rows, templates, epochs, seed, None, None)
    sparse = perceptron.train(*args, values.copy(), gold, class_values, rows, templates, epochs, seed, None, None,
                              dense_rows=False)
    for a, b in zip(dense, sparse):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([-2.5, -1.0, 0.0, 0.5, 1.0, 3.0, 1e300, -1e300]), max_size=50))
def test_the_best_class_is_the_first_largest_score(scores):
    array = np.array(scores, dtype=np.float64)
    expected = int(np.argmax(array)) if len(array) else 0
    assert perceptron.first_max_index(array) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-1, 4)), max_size=60),
       st.sampled_from([0, 2 ** 40, 2 ** 63]))
def test_unique_pairs_is_numpys_unique_of_rows(pairs, offset):
    first = np.array([a + offset if a + offset < 2 ** 64 else a for a, _ in pairs], dtype=np.uint64)
    second = np.array([b for _, b in pairs], dtype=np.int64).astype(np.uint64)   # -1 wraps, as in use
    want_rows, want_counts = np.unique(np.stack([first, second], axis=1).reshape(-1, 2), axis=0,
                                       return_counts=True)
    rows, counts = unique_pairs(first, second)
    assert rows.dtype == np.uint64 and rows.shape == want_rows.shape
    assert (rows == want_rows).all() and (counts == want_counts).all()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 3), st.lists(st.integers(-1, 300), min_size=1, max_size=90))
def test_unique_rows_is_numpys_unique_of_rows(width, cells):
    rows = np.array(cells[:len(cells) // width * width] or cells[:1] * width, dtype=np.int32).reshape(-1, width)
    want, want_inverse = np.unique(rows, axis=0, return_inverse=True)
    found, inverse = unique_rows(rows)
    assert found.dtype == rows.dtype and (found == want).all()
    assert (inverse == want_inverse.reshape(-1)).all()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 2 ** 31 - 2), st.integers(-1, 2 ** 31 - 2), st.integers(-1, 3)),
                min_size=1, max_size=30))
def test_unique_rows_of_large_values_is_numpys_too(cells):
    # values too many for one int64 key take np.unique's own way; the answer is the same
    rows = np.array(cells, dtype=np.int32)
    want, want_inverse = np.unique(rows, axis=0, return_inverse=True)
    found, inverse = unique_rows(rows)
    assert (found == want).all() and (inverse == want_inverse.reshape(-1)).all()
