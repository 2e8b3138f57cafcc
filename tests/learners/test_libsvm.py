"""The LIBSVM learner and the batched kernel parse loop."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.formats.conll import read_conll
from maltpy.learners import LibsvmLearner, parse_libsvm_options
from maltpy.learners.liblinear import first_appearance_order
from maltpy.search.greedy import parse_batched
from maltpy.parsing.parser import Parser
import maltpy
from maltpy.systems import SYSTEMS

from conftest import EXAMPLES

import os

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


def random_binary(rng, n, f, density):
    X = sp.random(n, f, density=density, random_state=int(rng.integers(1 << 30)), format="csr")
    X.data[:] = 1
    return X


@pytest.mark.parametrize("n_classes", [2, 3, 6])
@pytest.mark.parametrize("kernel", [0, 1, 2, 3])
def test_exported_model_reproduces_sklearn_decisions(n_classes, kernel):
    from sklearn.svm import SVC
    rng = np.random.default_rng(n_classes * 10 + kernel)
    X = random_binary(rng, 300, 40, 0.15)
    y = rng.integers(0, n_classes, 300) * 3 + 1  # class ids need not be 0..k-1
    learner = LibsvmLearner(kernel=kernel)
    model = learner.fit(X, y, 3 * n_classes + 1)
    first_seen = list(dict.fromkeys(y.tolist()))       # LIBSVM's class order
    assert list(model.classes) == first_seen
    y_local = np.array([first_seen.index(c) for c in y.tolist()])
    est = SVC(kernel=["linear", "poly", "rbf", "sigmoid"][kernel], degree=2, gamma=0.2, coef0=0.0, C=learner.C,
              tol=1.0, decision_function_shape="ovo").fit(X, y_local)
    expected = est.decision_function(X)
    if n_classes == 2:  # scikit-learn reports the binary decision with the opposite sign
        expected = -expected[:, None]
    got = model.decision(X, learner.kernel_function())
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def _sklearn_libsvm(X, y_local, kernel, C=1.0, eps=1.0):
    """scikit-learn's copy of LIBSVM on the same problem: sv rows, sv_coef, -rho, nSV."""
    import warnings
    from sklearn.svm import SVC
    est = SVC(kernel=["linear", "poly", "rbf", "sigmoid"][kernel], degree=2, gamma=0.2, coef0=0.0, C=C,
              tol=eps, cache_size=100, shrinking=True, decision_function_shape="ovo")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y_local)
    coef = est._dual_coef_
    coef = coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef)
    return est.support_, coef, est._intercept_, est.n_support_


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 400), n_classes=st.integers(2, 6), templates=st.integers(1, 8),
       values=st.integers(1, 6), kernel=st.sampled_from([0, 1, 2, 3]), threads=st.sampled_from([1, 3]),
       C=st.sampled_from([0.5, 1.0, 4.0]), eps=st.sampled_from([1.0, 0.1, 0.001]), seed=st.integers(0, 2**31))
def test_solver_reaches_libsvms_solution_to_the_bit(n, n_classes, templates, values, kernel, threads, C, eps, seed):
    """maltpy's LIBSVM solver (maltpy.learners.svc) against scikit-learn's copy of LIBSVM on
    parser-like rows (one 0/1 feature per template, some templates missing): the same support
    vectors, coefficients and intercepts, every bit (zeros may differ in sign), on any thread count."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, values, size=(n, templates)) + np.arange(templates) * values
    present = rng.random((n, templates)) < 0.9
    X = sp.csr_matrix((np.ones(present.sum()), cols[present], np.concatenate([[0], np.cumsum(present.sum(1))])),
                      shape=(n, templates * values))
    X.sort_indices()
    # labels that follow a feature for some rows, so that the classes are partly separable
    y = np.where(rng.random(n) < 0.5, cols[:, 0] % n_classes, rng.integers(0, n_classes, n))
    _, y_local = first_appearance_order(y)
    if len(np.unique(y_local)) < 2:
        return
    learner = LibsvmLearner(kernel=kernel, C=C, eps=eps, cache_mb=0.01)   # a tiny cache: evictions too
    learner.n_threads = threads
    rows, coef, intercept, n_support = learner.one_vs_one(X, y_local)
    ref_rows, ref_coef, ref_intercept, ref_n_support = _sklearn_libsvm(X, y_local, kernel, C, eps)
    np.testing.assert_array_equal(rows, ref_rows)
    np.testing.assert_array_equal(n_support, ref_n_support)
    assert coef.shape == ref_coef.shape
    assert coef.tobytes() == np.where(ref_coef == 0, coef, ref_coef).tobytes()
    assert intercept.tobytes() == np.asarray(ref_intercept, dtype=np.float64).tobytes()


def test_solver_refuses_values_other_than_one():
    X = sp.csr_matrix(np.array([[1.0, 2.0], [1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="0/1"):
        LibsvmLearner().one_vs_one(X, np.array([0, 1, 0]))


def test_single_class_training_data_gives_a_model_without_support_vectors():
    X = random_binary(np.random.default_rng(0), 20, 10, 0.3)
    model = LibsvmLearner().fit(X, np.full(20, 4), 9)
    assert model.n_sv == 0 and list(model.classes) == [4]


def test_options_follow_svm_train_flags():
    o = parse_libsvm_options("-s_0_-t_1_-d_3_-g_0.5_-r_1_-c_2_-e_0.01")
    assert (o["t"], o["d"], o["g"], o["r"], o["c"], o["e"]) == (1, 3, 0.5, 1.0, 2.0, 0.01)
    defaults = parse_libsvm_options("")   # MaltParser's LibSvm.getDefaultLibOptions
    assert (defaults["t"], defaults["d"], defaults["g"], defaults["r"], defaults["c"], defaults["e"]) == \
        (1, 2, 0.2, 0.0, 1.0, 1.0)
    assert parse_libsvm_options("-c 0.5")["c"] == 0.5   # Nivre (2008)
    for bad in ("-t 7", "-s 1", "-x 1", "-c", "-g high"):
        with pytest.raises(MaltpyError):
            parse_libsvm_options(bad)


@pytest.fixture(scope="module")
def toy():
    return read_conll(TRAIN, need_heads=True), read_conll(TEST, need_heads=True)


def _fit(train, algorithm, options=""):
    structure = "Right[0]" if algorithm.startswith("cov") else "Input[0]"  # the next input word
    return Parser(algorithm=algorithm, learner="libsvm", learner_options=options, split_column="POSTAG",
                  split_structure=structure, split_threshold=40, verbose=False).fit(train)


def maltparser_ranking(votes):
    """MaltLibsvmModel.predict's ranking of LIBSVM's classes: a selection sort by votes that swaps
    (not stable: ties end up in the order the swaps leave them)."""
    votes, order = list(votes), list(range(len(votes)))
    for i in range(len(votes) - 1):
        m = max(range(i, len(votes)), key=lambda j: (votes[j], -j))   # the first maximum
        votes[i], votes[m] = votes[m], votes[i]
        order[i], order[m] = order[m], order[i]
    return order


def test_maltparser_ranking_is_not_a_stable_sort():
    assert maltparser_ranking([1, 1, 3]) == [2, 1, 0]     # the swap moved class 0 behind class 1
    assert maltparser_ranking([2, 0, 2, 1]) == [0, 2, 3, 1]


def test_classes_keep_libsvm_order_of_first_appearance():
    from maltpy.learners.libsvm import LibsvmLearner
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((60, 12)) < 0.3).astype(np.float64))
    y = np.array([7, 3, 9] * 20)
    model = LibsvmLearner().fit(X, y, 10)
    assert model.classes.tolist() == [7, 3, 9]


def _reference_parse(p, sentence):
    """One decision at a time through Python: keys -> SvmModel.decision -> votes -> best valid class."""
    corpus = p.encode([sentence])
    tok = np.asarray(corpus.tok)
    system = p.system(training=False)
    config = system.new_configuration(len(sentence))
    kernel = p.learner.kernel_function()
    lookup = [{int(k): i for i, k in enumerate(keys)} for keys, _ in p.splits]
    n_moves = system.n_moves
    labeled = [p.classes.move_and_label(c)[1] >= 0 for c in range(p.classes.n_classes)]
    move_of = [p.classes.move_and_label(c)[0] for c in range(p.classes.n_classes)]
    steps = 0
    while not config.is_terminal() and steps < 10000:
        steps += 1
        valid = config.valid_moves()
        if not valid:
            break
        first_class = {m: move_of.index(m) for m in range(n_moves)}
        if len(valid) == 1 and not labeled[first_class[valid[0]]]:
            config.apply(valid[0])
            continue
        keys, split = p.extractor.keys(config, tok)
        sp_id = int(p.split_map[split]) if 0 <= split < len(p.split_map) else p.default_split
        _, svm = p.splits[sp_id]
        fids = sorted({lookup[sp_id][int(k)] for k in keys if int(k) in lookup[sp_id]})
        x = sp.csr_matrix((np.ones(len(fids)), fids, [0, len(fids)]), shape=(1, len(lookup[sp_id])))
        k = len(svm.classes)
        votes = np.zeros(k, dtype=int)
        if svm.n_sv:
            left_out = len(p.compiled.split_templates) if sp_id != p.default_split else 0   # the split feature
            dec = svm.decision(x, kernel, xnorm=[len(keys) - left_out])[0]
            pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
            for (i, j), d in zip(pairs, dec):
                votes[i if d > 0 else j] += 1
        ok = [c for c in maltparser_ranking(votes) if move_of[svm.classes[c]] in valid]
        if ok:
            best = ok[0]
            move, label = p.classes.move_and_label(int(svm.classes[best]))
        else:
            move, label = p.classes.move_and_label(first_class[valid[0]])
        config.apply(move, label)
    config.finish()
    return config.heads[1:], config.labels[1:]


@pytest.mark.parametrize("algorithm", sorted(SYSTEMS))
def test_batched_loop_makes_the_decisions_of_a_one_at_a_time_reference(toy, algorithm):
    train, test = toy
    p = _fit(train, algorithm)
    assert len(p.splits) > 1  # the split models are exercised
    offsets, heads, labels = p.parse_arrays(test)
    mismatches = 0
    for k, sentence in enumerate(test):
        r0 = offsets[k]
        h, l = _reference_parse(p, sentence)
        n = len(sentence)
        if h != heads[r0 + 1:r0 + n + 1].tolist() or l != labels[r0 + 1:r0 + n + 1].tolist():
            mismatches += 1
    assert mismatches == 0


@pytest.mark.parametrize("options", ["-t 0", "-t 2 -g 0.05", "-t 3 -g 0.01", "-t 1 -d 3 -r 1"])
def test_other_kernels_make_the_decisions_of_the_reference(toy, options):
    train, test = toy
    p = _fit(train, "nivreeager", options)
    offsets, heads, labels = p.parse_arrays(test)
    for k, sentence in enumerate(test[:20]):
        r0, n = offsets[k], len(sentence)
        h, l = _reference_parse(p, sentence)
        assert h == heads[r0 + 1:r0 + n + 1].tolist() and l == labels[r0 + 1:r0 + n + 1].tolist()


def test_window_batch_and_thread_counts_do_not_change_the_parse(toy):
    train, test = toy
    p = _fit(train, "nivreeager")
    corpus = p.encode(test)
    model = p.search_model()

    def parse(window, batch, n_threads):
        model.scorer.batch = batch
        return parse_batched(model.step(corpus.max_n), corpus, window=window, n_threads=n_threads, record_end=True)

    runs = [parse(w, b, t) for w, b, t in ((1, 1, 1), (3, 2, 1), (1000, 0, 1), (1000, 1, 4), (7, 2, 3))]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_array_equal(a, b)


def test_kernel_model_file_round_trip_and_corruption(toy, tmp_path):
    train, test = toy
    p = _fit(train, "nivreeager")
    path = str(tmp_path / "svm.mpz")
    p.save(path)
    q = maltpy.load(path)
    assert [s.rows for s in q.parse(test)] == [s.rows for s in p.parse(test)]
    # a model whose support vectors name a class the system does not have is refused
    from maltpy.parsing.modelfile import load_model, save_model
    header, arrays = load_model(path)
    arrays = dict(arrays)
    big = max(range(len(p.splits)), key=lambda k: p.splits[k][1].n_sv)
    arrays["svm0_classes"] = arrays["svm0_classes"] + 10_000
    bad = str(tmp_path / "bad.mpz")
    save_model(bad, header, arrays)
    with pytest.raises(ModelFileError):
        maltpy.load(bad)
    arrays["svm0_classes"] = arrays["svm0_classes"] - 10_000
    arrays[f"svm{big}_sv_indptr"] = arrays[f"svm{big}_sv_indptr"][::-1].copy()
    save_model(bad, header, arrays)
    with pytest.raises(ModelFileError):
        maltpy.load(bad)


def test_libsvm_learns_a_useful_parser_from_the_command_line(tmp_path):
    from maltpy.cli.main import main
    model, out = str(tmp_path / "m.mpz"), str(tmp_path / "out.conll")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-l", "libsvm", "-q"]) == 0
    assert main(["-c", model, "-m", "parse", "-i", TEST, "-o", out, "-q"]) == 0
    from maltpy.evaluation import evaluate
    scores = evaluate(read_conll(TEST, need_heads=True), read_conll(out, need_heads=True))
    assert scores["all"].las > 80.0


@pytest.mark.parametrize("algorithm", ["nivreeager", "covnonproj", "2planar"])
def test_studies_libsvm_set_up_splits_on_each_familys_first_buffer_word(algorithm):
    """``--learner libsvm`` of the studies: the split structure must exist in the system's feature
    model (Right[0] for Covington), or the study would fail after its first minutes."""
    from maltpy.config import make_settings
    from maltpy.experiments.languages import learner_settings
    sentences = read_conll(TRAIN, "conllu", need_heads=True)   # CoNLL-X columns read as UPOS, XPOS
    settings = learner_settings("libsvm", algorithm)
    assert settings["split_structure"] == ("Right[0]" if algorithm == "covnonproj" else "Input[0]")
    settings["split_threshold"] = 20   # the toy treebank is too small for 1000
    p = Parser(make_settings(algorithm=algorithm, input_format="conllu", verbose=False, jobs=1, **settings))
    p.fit(sentences, fmt="conllu")
    assert len(p.splits) > 1
    out = p.parse(sentences[:3])
    assert [len(s) for s in out] == [len(s) for s in sentences[:3]]
    assert learner_settings("liblinear", algorithm) == {}
    assert learner_settings("thesis", algorithm, "ar") == learner_settings("libsvm", algorithm)
    assert learner_settings("thesis", algorithm, "cs") == {}
    with pytest.raises(MaltpyError):
        learner_settings("perceptron", algorithm)


@pytest.mark.parametrize("learner", ["libsvm", "liblinear"])
def test_recorded_moves_built_the_arcs_they_are_recorded_for(learner):
    """``parse_arrays(record_moves=True)`` (both parse loops): a word's move is the arc move that
    gave it its head, pointing the right way; -1 only for words the end of parsing attached."""
    sentences = read_conll(TRAIN, "conllx", need_heads=True)
    from maltpy.config import make_settings
    p = Parser(make_settings(algorithm="nivreeager", learner=learner, verbose=False, jobs=2)).fit(sentences)
    names = p.system(training=False).moves
    offsets, heads, labels, moves = p.parse_arrays(sentences, record_moves=True)
    _, heads_again, labels_again = p.parse_arrays(sentences)
    assert np.array_equal(heads, heads_again) and np.array_equal(labels, labels_again)
    built = 0
    for k in range(len(sentences)):
        for row in range(offsets[k] + 1, offsets[k + 1]):
            word, head, m = row - offsets[k], heads[row], moves[row]
            if m < 0:
                assert head in (0, -1)       # attached to the root when parsing ended
                continue
            built += 1
            assert names[m] in ("LA", "RA")
            assert (head > word) if names[m] == "LA" else (head < word)
    assert built > len(sentences)
    # a moves array shorter than the corpus is refused, not written past its end
    corpus = p.encode(sentences)
    with pytest.raises(ValueError, match="moves_out"):
        p.strategy().parse(p.search_model(), corpus, moves_out=np.empty(corpus.n_rows - 1, dtype=np.int32))
