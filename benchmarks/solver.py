"""maltpy's Crammer-Singer solver against scikit-learn's LIBLINEAR (-s 4) on real parser instances.

    python benchmarks/solver.py [--shared ../shared] [--algorithm nivreeager] [--seeds 0,1,2]
                                [--setting marking_strategy=head]

Collects the oracle's instances of EWT train.conllu (CoNLL-X, XPOS as POSTAG, the
algorithm's default liblinear feature model), trains both solvers with MaltParser's
settings (C 0.1, eps 0.1, no bias) and prints training time, passes over the data,
the primal objective reached and training accuracy. Prints figures; it is not a test.
"""
import time
import warnings

import numpy as np

from _ewt import read_ewt, seeded_argument_parser


def primal_objective(X, y, W, C):
    """1/2 |W|^2 + C sum_i max(0, 1 + max_{m != y_i} s_im - s_iy), s = XW."""
    s = np.asarray(X @ W)
    rows = np.arange(len(y))
    true = s[rows, y].copy()
    s[rows, y] = -np.inf
    return 0.5 * float((W.astype(np.float64) ** 2).sum()) + C * float(np.maximum(0, 1 + s.max(1) - true).sum())


def main():
    a = seeded_argument_parser(__doc__).parse_args()
    sentences = read_ewt(a.shared, "train")

    from sklearn.svm import LinearSVC

    from maltpy.learners.liblinear import liblinear_order
    from maltpy.learners.mcsvm import train_crammer_singer
    from maltpy.parsing.parser import Parser

    settings = dict(kv.split("=", 1) for kv in a.setting)
    X, y, _, _ = Parser(algorithm=a.algorithm, verbose=False, **settings).training_instances(sentences, "conllx")
    # the instance order the learner hands to the solver (grouped by class, as LIBLINEAR does)
    classes, rows, y = liblinear_order(X, y)
    X = X[rows]
    print(f"{a.algorithm} {' '.join(a.setting)}: {X.shape[0]} instances, {X.shape[1]} features, {len(classes)} classes, "
          f"{X.nnz} non-zeros")
    print(f"{'solver':<22}{'seed':>5}{'time, s':>9}{'passes':>8}{'objective':>12}{'train acc':>11}")
    for seed in map(int, a.seeds.split(",")):
        t = time.perf_counter()
        W, _, passes = train_crammer_singer(X.indptr, X.indices, y, X.shape[1], len(classes), C=0.1, eps=0.1,
                                            seed=seed)
        ours = time.perf_counter() - t
        acc = float((np.asarray(X @ W).argmax(1) == y).mean())
        print(f"{'maltpy mcsvm':<22}{seed:>5}{ours:>9.1f}{passes:>8}{primal_objective(X, y, W, 0.1):>12.1f}"
              f"{acc:>11.4f}", flush=True)
        est = LinearSVC(multi_class="crammer_singer", C=0.1, tol=0.1, fit_intercept=False, random_state=seed)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        theirs = time.perf_counter() - t
        W = est.coef_.T
        acc = float((np.asarray(X @ W).argmax(1) == y).mean())
        print(f"{'scikit-learn LIBLINEAR':<22}{seed:>5}{theirs:>9.1f}{int(est.n_iter_):>8}"
              f"{primal_objective(X, y, W, 0.1):>12.1f}{acc:>11.4f}", flush=True)


if __name__ == "__main__":
    main()
