"""End to end: every algorithm learns and parses, pseudo-projective modes, eval --compare,
fragmentation diagnostics and the experiment runner."""
import os
from dataclasses import replace

import numpy as np
import pytest

import maltpy
from maltpy.cli.main import main
from maltpy.evaluation import evaluate
from maltpy.evaluation.significance import permutation_test
from maltpy.formats.conll import read_conll
from maltpy.transform import nonprojective_arcs
from conftest import EXAMPLES, is_tree, is_planar, is_projective, is_two_planar

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")
ALGORITHMS = ["nivrestandard", "covproj", "covnonproj", "stackproj", "stackeager", "stacklazy",
              "planar", "2planar"]
OUTPUT_CLASS = {"covproj": is_projective, "stackproj": is_projective, "nivrestandard": is_projective,
                "planar": is_planar, "2planar": is_two_planar}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_learns_the_toy_grammar(algorithm, tmp_path):
    model = str(tmp_path / f"{algorithm}.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-a", algorithm, "-q"]) == 0
    p = maltpy.load(model)
    assert p.settings.algorithm == algorithm
    gold = read_conll(TEST, need_heads=True)
    out = p.parse(gold)
    assert evaluate(gold, out)["all"].las > 75, "the toy grammar is learnable"
    check = OUTPUT_CLASS.get(algorithm)
    rng = np.random.default_rng(3)
    # random weights: output is still a tree, and before the root heuristic of the promised class
    p._set_model(replace(p.model, splits=[(k, rng.normal(size=(len(k), len(b))).astype(np.float32), b)
                                              for k, _, b in p.splits]))
    p._weights = None
    offsets, heads, labels = p.parse_arrays(gold)
    heuristic = p.label_ids[p.settings.root_label]
    for k, sent in enumerate(gold):
        rows = slice(offsets[k] + 1, offsets[k] + len(sent) + 1)
        h = [-1] + heads[rows].tolist()
        assert all(0 <= x <= len(sent) for x in h[1:])
        if check:
            # leftover words go to the root with the default root label afterwards, which can
            # cross planar arcs (as in MaltParser); the arcs the transitions built must not cross
            built = [-1] + [-1 if x == 0 and l == heuristic else x for x, l in zip(h[1:], labels[rows].tolist())]
            assert check(built)
    for s in p.parse(gold):
        assert is_tree([-1] + s.heads)


def test_nonprojective_algorithms_recover_nonprojective_arcs(tmp_path):
    """On the toy treebank (18 non-projective trees), non-projective systems can output
    non-projective arcs; projective ones never do."""
    gold = read_conll(TEST, need_heads=True)
    assert any(nonprojective_arcs([-1] + s.heads) for s in gold)
    found = {}
    for algorithm in ("covnonproj", "stackproj"):
        p = maltpy.Parser(algorithm=algorithm, verbose=False).fit(read_conll(TRAIN, need_heads=True))
        found[algorithm] = sum(len(nonprojective_arcs([-1] + s.heads)) for s in p.parse(gold))
    assert found["stackproj"] == 0
    assert found["covnonproj"] > 0


def test_pseudo_projective_learning_and_modes(tmp_path):
    model = str(tmp_path / "pp.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-pp", "head", "-q"]) == 0
    p = maltpy.load(model)
    assert p.settings.marking_strategy == "head"
    assert any("|" in label for label in p.labels), "lifted arcs carry encoded labels"
    out = p.parse(read_conll(TEST))
    assert all("|" not in x for s in out for x in s.labels), "deprojectivized output has plain labels"
    proj, back = tmp_path / "proj.conll", tmp_path / "back.conll"
    assert main(["-m", "proj", "-i", TRAIN, "-o", str(proj), "-pp", "head+path", "-q"]) == 0
    projected = read_conll(str(proj), need_heads=True)
    assert not any(nonprojective_arcs([-1] + s.heads) for s in projected)
    assert main(["-m", "deproj", "-i", str(proj), "-o", str(back), "-pp", "head+path", "-q"]) == 0
    original = read_conll(TRAIN, need_heads=True)
    restored = read_conll(str(back), need_heads=True)
    assert [s.heads for s in restored] == [s.heads for s in original]
    assert [s.labels for s in restored] == [s.labels for s in original]
    assert main(["-m", "proj", "-i", TRAIN, "-o", str(proj), "-q"]) == 1   # no strategy given


def test_permutation_test_detects_real_differences_only():
    rng = np.random.default_rng(0)
    a = rng.integers(5, 10, size=300)
    assert permutation_test(a, a) == 1.0
    assert permutation_test(a, a - (rng.random(300) < 0.5)) < 0.01
    noise = a - rng.integers(-1, 2, size=300)
    assert permutation_test(a, noise) > 0.01 or abs(int((a - noise).sum())) > 30


def test_eval_compare_and_fragmentation(tmp_path, capsys):
    model = str(tmp_path / "e.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-q"]) == 0
    old, new = tmp_path / "old.conll", tmp_path / "new.conll"
    assert main(["fragmentation", model, TEST, "--old", str(old), "--new", str(new)]) == 0
    text = capsys.readouterr().out
    assert "Stack-Token" in text and "Recall" in text
    o, n = read_conll(str(old), need_heads=True), read_conll(str(new), need_heads=True)
    # one parse: the two outputs differ only on words left on the stack, and the new one is projective
    for s_o, s_n in zip(o, n):
        assert is_projective([-1] + s_n.heads) and is_tree([-1] + s_n.heads)
        for ho, hn in zip(s_o.heads, s_n.heads):
            assert ho == hn or ho == 0
    # the old output equals a normal parse without the tree constraint
    plain = maltpy.load(model).parse(read_conll(TEST))
    assert [s.heads for s in plain] == [s.heads for s in o]
    assert main(["eval", TEST, str(old), "--compare", str(new), "--rounds", "500"]) == 0
    assert "p-value" in capsys.readouterr().out


def test_experiment_runner_writes_tables(tmp_path, capsys):
    out = tmp_path / "table.md"
    assert main(["experiment", TRAIN, "-a", "nivreeager", "covnonproj", "--config",
                 "PP-E=-a nivreeager -pp head", "--test", f"examples={TEST}", "-o", str(out)]) == 0
    text = out.read_text()
    for piece in ("**LAS**", "**UAS**", "**LA**", "nivreeager", "covnonproj", "PP-E", "| examples |",
                  "**Average**", "Learning / parsing time"):
        assert piece in text
    assert main(["experiment", TRAIN, "-a", "nivreeager", "--holdout", "0.2", "-o", str(out)]) == 0
    assert main(["experiment", TRAIN, "--config", "bad=-a"]) == 1
