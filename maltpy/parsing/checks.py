"""What every search strategy must do, as a test an extension author runs on a new one (the
counterpart of :func:`maltpy.systems.checks.check_transition_system` for strategies):

    from maltpy.parsing.checks import check_strategy
    check_strategy(MyStrategy())                      # raises AssertionError naming what failed

On parsers trained on a random treebank with systems of every class of trees (a fixed seed: the
same treebank every run), the strategy's parse of held-out random sentences must be:

1. **the right shape**: one head and one label id per corpus row, -1 on the sentences' root rows,
   heads within the sentence, label ids of the model's labels;
2. **a tree of the system's class** for every sentence (one head per word, no cycle, every word
   attached: the end of parsing attaches what the moves left), projective for a projective
   system, planar for a planar one, ...;
3. **deterministic**: the same trees every run, and with two threads as with one.
"""
from __future__ import annotations

import random
from typing import Sequence

import numpy as np

#: systems covering the classes of trees: projective (a stack), any (lists), 2-planar (two stacks)
ALGORITHMS = ("nivreeager", "covnonproj", "2planar")


def _random_treebank(rng: random.Random, n_sentences: int, projective: bool):
    """Sentences of random words, tags and trees (gold: HEAD and DEPREL filled)."""
    from maltpy.formats.conll import Sentence
    from maltpy.systems.checks import random_projective_tree, random_tree
    words = [f"w{k}" for k in range(40)]
    out = []
    for _ in range(n_sentences):
        n = rng.randint(1, 15)
        heads = (random_projective_tree if projective else random_tree)(rng, n)
        rows = []
        for d in range(1, n + 1):
            word = rng.choice(words)
            tag = f"T{int(word[1:]) % 7}"
            label = "ROOT" if heads[d] == 0 else f"l{rng.randrange(4)}"
            rows.append([str(d), word, "_", tag, tag, "_", str(heads[d]), label, "_", "_"])
        out.append(Sentence(rows, format="conllx"))
    return out


def check_strategy(strategy, algorithms: Sequence[str] = ALGORITHMS, n_train: int = 60, n_test: int = 30,
                   seed: int = 0) -> None:
    """Run the module's checks on the strategy object ``strategy`` (an instance of a
    :class:`~maltpy.search.strategy.Strategy` subclass) and raise :class:`AssertionError` naming the
    first that fails."""
    from maltpy.parsing.parser import Parser
    from maltpy.systems import system_class
    from maltpy.systems.checks import TREE_CLASSES
    rng = random.Random(seed)
    for algorithm in algorithms:
        cls = system_class(algorithm)
        projective = cls.covers == "projective"
        train = _random_treebank(rng, n_train, projective)
        test = _random_treebank(rng, n_test, projective)     # their trees are not read: no constraints
        parser = Parser(algorithm=algorithm, learner="perceptron", learner_options="-i 2", verbose=False,
                        jobs=1).fit(train, fmt="conllx")
        model = parser.search_model()
        corpus = parser.encode(test)
        out = strategy.parse(model, corpus)
        heads, labels = np.asarray(out[0]), np.asarray(out[1])
        name = f"{type(strategy).__name__} with {algorithm}"
        assert heads.shape == (corpus.n_rows,) and labels.shape == (corpus.n_rows,), \
            f"{name}: {heads.shape} heads and {labels.shape} labels for {corpus.n_rows} corpus rows"
        offsets = np.asarray(corpus.offsets)
        assert np.all(heads[offsets[:-1]] == -1), f"{name}: a root row has a head"
        builds = TREE_CLASSES[model.system.builds]
        for k in range(corpus.n_sentences):
            r0, r1 = int(offsets[k]), int(offsets[k + 1])
            h = [-1] + heads[r0 + 1:r1].tolist()
            n = r1 - r0 - 1
            assert all(0 <= x <= n for x in h[1:]), f"{name}: sentence {k + 1}'s heads {h[1:]} leave it"
            assert all(0 <= x < len(parser.labels) for x in labels[r0 + 1:r1].tolist()), \
                f"{name}: sentence {k + 1} has label ids outside the model's {len(parser.labels)}"
            assert _is_tree(h), f"{name}: sentence {k + 1}'s heads {h[1:]} are not a tree"
            assert builds(h), f"{name}: sentence {k + 1}'s tree {h[1:]} is not {model.system.builds}"
        again = strategy.parse(model, corpus)
        assert np.array_equal(again[0], heads) and np.array_equal(again[1], labels), \
            f"{name}: a second parse of the same sentences differs"
        threaded = strategy.parse(model, corpus, n_threads=2)
        assert np.array_equal(threaded[0], heads) and np.array_equal(threaded[1], labels), \
            f"{name}: two threads parse differently from one"


def _is_tree(heads) -> bool:
    """Every word reaches node 0 without a cycle."""
    for d in range(1, len(heads)):
        seen, a = set(), d
        while a != 0:
            if a in seen or a < 0:
                return False
            seen.add(a)
            a = heads[a]
    return True
