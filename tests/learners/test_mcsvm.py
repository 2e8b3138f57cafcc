"""maltpy's Crammer-Singer solver (LIBLINEAR -s 4) against scikit-learn's LIBLINEAR."""
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

from maltpy.learners import LiblinearLearner
from maltpy.learners.liblinear import UNSEEN, liblinear_order
from maltpy.learners.mcsvm import java_random_ints, train_crammer_singer


def random_problem(seed, n=600, n_features=80, n_classes=5, empty_rows=0):
    """0/1 instances whose classes follow a noisy linear rule (so the SVM has something to learn)."""
    rng = np.random.default_rng(seed)
    rows = [np.sort(rng.choice(n_features, size=rng.integers(1, 9), replace=False)) for _ in range(n)]
    rows += [np.zeros(0, dtype=np.int64)] * empty_rows
    indptr = np.r_[0, np.cumsum([len(r) for r in rows])].astype(np.int32)
    indices = np.concatenate(rows).astype(np.int32)
    X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(rows), n_features))
    scores = X @ rng.normal(size=(n_features, n_classes)) + rng.normal(scale=0.5, size=(len(rows), n_classes))
    return X, np.asarray(scores.argmax(1), dtype=np.int32)


def train(X, y, n_classes, **kw):
    return train_crammer_singer(X.indptr, X.indices, y, X.shape[1], n_classes, **kw)


def primal_objective(X, y, W, b, C):
    """1/2 |W|^2 + C sum_i max(0, 1 + max_{m != y_i} s_im - s_iy) with s = XW + b."""
    s = X @ W + b
    true = s[np.arange(len(y)), y].copy()
    s[np.arange(len(y)), y] = -np.inf
    return 0.5 * float((W ** 2).sum()) + C * float(np.maximum(0.0, 1.0 + s.max(1) - true).sum())


@pytest.mark.parametrize("n_classes", [2, 5])
@pytest.mark.parametrize("bias", [-1.0, 1.0, 2.5])
def test_tight_solution_equals_liblinear(n_classes, bias):
    from sklearn.svm import LinearSVC
    X, y = random_problem(n_classes, n_classes=n_classes)
    W, b, n_iter = train(X, y, n_classes, C=0.1, eps=1e-6, bias=bias, max_iter=100000)
    est = LinearSVC(multi_class="crammer_singer", C=0.1, tol=1e-6, max_iter=100000, fit_intercept=bias > 0,
                    intercept_scaling=max(bias, 1.0)).fit(X, y)
    assert 1 < n_iter < 100000
    if n_classes == 2:  # scikit-learn reports the difference of the two classes' weights
        np.testing.assert_allclose(W[:, 1] - W[:, 0], est.coef_[0], atol=1e-4)
        np.testing.assert_allclose(b[1] - b[0], est.intercept_[0] if bias > 0 else 0.0, atol=1e-4)
    else:
        np.testing.assert_allclose(W, est.coef_.T, atol=1e-4)
        np.testing.assert_allclose(b, est.intercept_ if bias > 0 else 0.0, atol=1e-4)
    assert np.all(b == 0) if bias <= 0 else np.any(b != 0)


def test_default_tolerance_is_near_the_optimum():
    X, y = random_problem(7)
    optimum = primal_objective(X, y, *train(X, y, 5, eps=1e-7, max_iter=100000)[:2], 0.1)
    W, b, n_iter = train(X, y, 5)  # MaltParser's eps 0.1
    assert n_iter < 1000
    assert optimum <= primal_objective(X, y, W, b, 0.1) <= 1.05 * optimum


def test_seed_fixes_the_result_and_threads_do_not_change_it():
    X, y = random_problem(3)
    serial = [train(X, y, 5, seed=s)[0] for s in (1, 2, 1, 2)]
    np.testing.assert_array_equal(serial[0], serial[2])
    assert not np.array_equal(serial[0], serial[1])  # another visiting order stops elsewhere
    with ThreadPoolExecutor(4) as pool:  # the solver runs without the GIL
        threaded = list(pool.map(lambda s: train(X, y, 5, seed=s)[0], (1, 2, 1, 2)))
    for a, b in zip(serial, threaded):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed, n_features, n_classes, bias", [
    (0, 60, 6, -1.0), (1, 300, 4, -1.0), (2, 40, 9, 1.0), (3, 2000, 3, 2.5)])
def test_helper_thread_gives_the_same_weights_bit_for_bit(seed, n_features, n_classes, bias):
    """Two threads: the helper's gradient sums are used only where they are exactly the
    solver's own (and they are used: the test would not see a wrong one otherwise)."""
    X, y = random_problem(seed, n=25_000, n_features=n_features, n_classes=n_classes)
    alone = train(X, y, n_classes, bias=bias)
    stats = {}
    helped = train(X, y, n_classes, bias=bias, n_threads=2, stats=stats)
    np.testing.assert_array_equal(alone[0], helped[0])
    np.testing.assert_array_equal(alone[1], helped[1])
    assert alone[2] == helped[2]
    assert 0 < stats["helper_sums_used"] <= stats["helper_sums"]


def test_helper_thread_waits_for_small_problems_and_one_thread():
    X, y = random_problem(4)
    for n_threads in (1, 2):
        stats = {}
        train(X, y, 5, n_threads=n_threads, stats=stats)
        assert stats == {"helper_sums": 0, "helper_sums_used": 0}


def test_progress_follows_every_pass_and_its_errors_stop_training():
    X, y = random_problem(6)
    seen = []
    _, _, n_iter = train(X, y, 5, progress=lambda n, violation: seen.append((n, violation)))
    assert [n for n, _ in seen] == list(range(1, n_iter + 1))
    assert seen[-1][1] < 0.1  # the last pass is the one that met the tolerance

    def cancel(n, violation):
        if n == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        train(X, y, 5, progress=cancel)


def test_instances_without_features_are_skipped():
    X, y = random_problem(4, empty_rows=5)
    W, b, _ = train(X, y, 5, eps=1e-6, max_iter=100000)
    W_without, _, _ = train(X[:-5], y[:-5], 5, eps=1e-6, max_iter=100000)
    np.testing.assert_allclose(W, W_without, atol=1e-4)


@pytest.mark.parametrize("bad", [
    dict(y=np.array([0, 1, 5], dtype=np.int32)),      # class out of range
    dict(y=np.array([0, -1, 1], dtype=np.int32)),
    dict(indices=np.array([0, 1, 9], dtype=np.int32)),  # feature out of range
    dict(n_classes=1),
    dict(y=np.array([0, 1], dtype=np.int32)),          # y and indptr disagree
    dict(indptr=np.array([0, 2, 1, 3], dtype=np.int32)),  # not CSR
    dict(indptr=np.array([0, 1, 2, 4], dtype=np.int32)),
])
def test_bad_input_is_refused(bad):
    args = dict(indptr=np.array([0, 1, 2, 3], dtype=np.int32), indices=np.array([0, 1, 2], dtype=np.int32),
                y=np.array([0, 1, 1], dtype=np.int32), n_features=3, n_classes=2)
    args.update(bad)
    with pytest.raises(ValueError):
        train_crammer_singer(**args)


def test_learner_scores_unseen_classes_out_and_keeps_class_ids():
    X, y = random_problem(5, n_classes=3)
    y_ids = np.array([2, 7, 4])[y]  # the parser's class ids are sparse among its 9 classes
    W, bias = LiblinearLearner().fit(X, y_ids, 9)
    assert W.shape == (X.shape[1], 9) and W.dtype == np.float64   # the solver's own precision (near ties)
    unseen = [c for c in range(9) if c not in (2, 4, 7)]
    assert np.all(W[:, unseen] == 0) and np.all(bias[unseen] == UNSEEN)
    assert np.all(bias[[2, 4, 7]] == 0)
    predicted = np.asarray((X @ W + bias).argmax(1)).ravel()
    assert (predicted == y_ids).mean() > 0.8


def test_learner_does_not_import_scikit_learn_for_crammer_singer():
    assert LiblinearLearner().import_estimator() is None
    assert LiblinearLearner(solver=1).import_estimator() is not None
    # only maltpy's own solver reports its passes to the learning progress bar
    assert LiblinearLearner().reports_passes and not LiblinearLearner(solver=1).reports_passes


def test_learner_refuses_more_classes_than_the_solver_takes():
    from maltpy.errors import MaltpyError
    X = sp.csr_matrix(np.ones((70000, 1)))
    with pytest.raises(MaltpyError, match="at most 65535"):
        LiblinearLearner().fit(X, np.arange(70000), 70000)


class JavaRandom:
    """java.util.Random as its Javadoc specifies it, written plainly as a reference."""
    MASK = (1 << 48) - 1

    def __init__(self, seed):
        self.seed = (seed ^ 0x5DEECE66D) & self.MASK

    def next(self, bits):
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & self.MASK
        return self.seed >> (48 - bits)

    def next_int(self, bound):
        if bound & -bound == bound:
            return (bound * self.next(31)) >> 31
        while True:
            bits = self.next(31)
            val = bits % bound
            if bits - val + (bound - 1) < 2 ** 31:  # Java: no 32-bit overflow
                return val


BOUNDS = [10, 7, 1024, 382817, 2 ** 31 - 1, 3, 1, 1_000_000_007, 65536, 1_500_000_000]


@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 40 + 7])
def test_solver_draws_the_numbers_of_java_util_random(seed):
    bounds = [BOUNDS[k % len(BOUNDS)] for k in range(3000)]
    reference = JavaRandom(seed)
    expected = [reference.next_int(b) for b in bounds]
    assert java_random_ints(seed, bounds) == expected
    assert len(set(expected[4::len(BOUNDS)])) > 250  # bound 2**31-1 exercises the rejection step


@pytest.mark.skipif(not (shutil.which("java") and shutil.which("javac")), reason="no Java on this machine")
def test_solver_draws_the_numbers_java_draws(tmp_path):
    src = tmp_path / "Draw.java"
    src.write_text("public class Draw { public static void main(String[] a) {\n"
                   "  java.util.Random r = new java.util.Random(Long.parseLong(a[0]));\n"
                   "  for (int k = 1; k < a.length; k++) System.out.println(r.nextInt(Integer.parseInt(a[k]))); } }\n")
    subprocess.run(["javac", str(src)], check=True, cwd=tmp_path)
    bounds = [BOUNDS[k % len(BOUNDS)] for k in range(500)]
    out = subprocess.run(["java", "-cp", str(tmp_path), "Draw", "0", *map(str, bounds)], check=True,
                         capture_output=True, text=True).stdout.split()
    assert java_random_ints(0, bounds) == [int(v) for v in out]


def test_liblinear_order_groups_instances_by_first_occurring_class():
    rng = np.random.default_rng(11)
    X, _ = random_problem(11, n=300, n_classes=4)
    y = rng.choice([9, 2, 40, 7, 3], size=X.shape[0]).astype(np.int32)
    shuffled = X.tolil()  # rows with their features out of order, as the feature extractor emits them
    for r in shuffled.rows:
        rng.shuffle(r)
    X_unsorted = sp.csr_matrix((np.ones(X.nnz), np.concatenate(shuffled.rows).astype(np.int32), X.indptr),
                               shape=X.shape)
    classes, rows, yg = liblinear_order(X_unsorted, y)
    Xg = X_unsorted[rows]
    _, first = np.unique(y, return_index=True)
    assert list(classes) == list(np.unique(y)[np.argsort(first)])
    assert np.all(np.diff(yg) >= 0) and yg.dtype == np.int32
    originals = np.concatenate([np.flatnonzero(y == c) for c in classes])  # stable within a class
    np.testing.assert_array_equal(classes[yg], y[originals])
    assert Xg.has_sorted_indices
    np.testing.assert_array_equal(Xg.toarray(), X.toarray()[originals])
