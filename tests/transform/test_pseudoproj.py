"""Pseudo-projective parsing: projectivize/deprojectivize round trips, encodings, CLI modes."""
import os
import random

import numpy as np

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError
from maltpy.transform import PseudoProjective, nonprojective_arcs
from conftest import EXAMPLES, is_tree, random_tree, shared_file

# G1 of Nivre (2008): (5, AuxP, 1) is the one non-projective arc
G1_HEADS = [-1, 5, 1, 0, 5, 3, 3, 6, 0]
G1_LABELS = ["_", "AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]


def test_nonprojective_arcs_of_g1():
    assert nonprojective_arcs(G1_HEADS) == [1]


@pytest.mark.parametrize("strategy,label1,label5", [
    ("baseline", "AuxP", "Sb"), ("head", "AuxP|Sb", "Sb"),
    ("path", "AuxP|", "Sb%"), ("head+path", "AuxP|Sb", "Sb%"),
])
def test_g1_lift_and_encoding(strategy, label1, label5):
    pp = PseudoProjective(strategy)
    heads, labels = pp.projectivize(G1_HEADS, G1_LABELS)
    assert heads[1] == 3 and heads[2:] == G1_HEADS[2:]      # lifted to the head of 5
    assert labels[1] == label1 and labels[5] == label5
    back_heads, back_labels = pp.deprojectivize(heads, labels)
    assert back_labels == G1_LABELS
    assert back_heads == (heads if strategy == "baseline" else G1_HEADS)


def test_bad_option_names_what_is_allowed():
    with pytest.raises(MaltpyError, match="head\\+path"):
        PseudoProjective("heads")


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 20),
       st.sampled_from(["baseline", "head", "path", "head+path"]),
       st.sampled_from(["shortest", "deepest"]), st.sampled_from(["none", "left", "right", "head", "ignore"]))
def test_projectivize_gives_projective_tree_and_head_encodings_round_trip(seed, n, strategy, order, covered):
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    labels = ["_"] + [rng.choice("abcd") for _ in range(n)]
    pp = PseudoProjective(strategy, covered, order)
    h, l = pp.projectivize(heads, labels)
    assert is_tree(h)
    if covered != "ignore":         # "ignore" puts covered roots back under the root afterwards
        assert not nonprojective_arcs(h)
    if covered == "none" and strategy != "baseline":
        assert sum(x != y for x, y in zip(h, heads)) == sum(("|" in lab) for lab in l[1:])
    h2, l2 = pp.deprojectivize(h, l)
    assert is_tree(h2)
    assert l2 == labels, "marks are always stripped"
    for d in range(1, n + 1):
        if l[d].endswith("|null"):          # covered roots go back to the root
            assert h2[d] == 0 and heads[d] == 0
        elif strategy == "baseline":
            assert h2[d] == h[d]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 20))
def test_deprojectivize_survives_arbitrary_parser_labels(seed, n):
    """Parser output can carry any mix of marks; deprojectivization must still give a tree."""
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    marks = ["a", "b", "a|b", "b|a", "a%", "a|b%", "a|", "a|%", "b|null", "|", "%"]
    labels = ["_"] + [rng.choice(marks) for _ in range(n)]
    for strategy in ("head", "path", "head+path"):
        h, l = PseudoProjective(strategy).deprojectivize(heads, labels)
        assert is_tree(h)
        assert all("%" not in x and "|" not in x for x in l[1:])


@pytest.mark.parametrize("lang", ["cs", "sl"])
def test_head_path_round_trip_on_ud(lang):
    from maltpy.formats.conll import read_conll
    path = shared_file("ud", lang, "train.conllu")
    pp = PseudoProjective("head+path")
    total = restored = 0
    for sent in read_conll(path, "conllu", need_heads=True):
        heads, labels = [-1] + sent.heads, ["_"] + sent.column(7)
        bad = nonprojective_arcs(heads)
        h, l = pp.projectivize(heads, labels)
        assert not nonprojective_arcs(h)
        h2, l2 = pp.deprojectivize(h, l)
        total += len(bad)
        restored += sum(h2[d] == heads[d] and l2[d] == labels[d] for d in bad)
    assert total > 0
    assert restored >= 0.99 * total


def test_plain_labels_share_one_deprel_feature_value():
    pp = PseudoProjective("head+path", "left")
    labels = ["ROOT", "nsubj", "obj", "obj%", "obj|", "obj|xcomp", "obj|xcomp%", "xcomp", "nmod|null", "iobj|obl"]
    values = pp.deprel_feature_values(labels)
    plain = [pp.plain_label(l) for l in labels]
    assert plain == ["ROOT", "nsubj", "obj", "obj", "obj", "obj", "obj", "xcomp", "nmod", "iobj"]
    for a in range(len(labels)):
        for b in range(len(labels)):
            assert (values[a] == values[b]) == (plain[a] == plain[b])
    assert min(values) >= 1
    assert PseudoProjective("none").deprel_feature_values(labels) is None


def test_deprel_features_see_the_plain_label_as_in_maltparser(tmp_path):
    """MaltParser keeps the lifting marks in PPLIFTED/PPPATH columns: a DEPREL feature of a lifted
    arc labelled obj|xcomp has the value of obj (this made -pp differ from MaltParser's LAS)."""
    from maltpy.parsing.parser import Parser
    from maltpy.formats.conll import read_conll
    fm = tmp_path / "deprel.yaml"
    fm.write_text("name: deprel\nfeatures:\n  - OutputColumn(DEPREL, Stack[0])\n"
                  "  - OutputColumn(DEPREL, ldep(Stack[0]))\n  - InputColumn(POSTAG, Input[0])\n")
    # the example treebank, and one sentence where acl:relcl (lifted in the example) is not lifted
    relcl = "1\tthe\tthe\tDET\tDT\t_\t2\tdet\n2\tcat\tcat\tNOUN\tNN\t_\t0\troot\n" \
            "3\twho\twho\tPRON\tWP\t_\t4\tnsubj\n4\tsleeps\tsleep\tVERB\tVBZ\t_\t2\tacl:relcl\n" \
            "5\t.\t.\tPUNCT\t.\t_\t2\tpunct\n\n"
    from maltpy.formats.conll import parse_conll
    train = read_conll(os.path.join(EXAMPLES, "toy-train.conll"), need_heads=True) + \
        parse_conll(relcl, "conllx", need_heads=True)
    p = Parser(features=str(fm), marking_strategy="head", verbose=False)
    p.training_instances(train, fmt="conllx")
    assert any("|" in l for l in p.labels)          # the example treebank has lifted arcs
    # the same instances as a parser that never saw the marks: the projectivized trees with
    # plain labels give the same feature matrix (the classes differ, the features must not)
    enc = PseudoProjective("head")
    plain = []
    for sent in train:
        proj = enc.apply(enc.projectivize, sent)
        plain.append(proj.with_tree(proj.heads, [enc.plain_label(l) for l in proj.labels]))
    X, _, _, keys = p.training_instances(train, fmt="conllx")
    Xp, _, _, _ = Parser(features=str(fm), verbose=False).training_instances(plain, fmt="conllx")
    assert X.shape == Xp.shape
    assert np.array_equal(X.indptr, Xp.indptr) and np.array_equal(X.indices, Xp.indices)
    # and the model file keeps them: a loaded model parses as the trained one
    p.fit(train, fmt="conllx")
    p.save(str(tmp_path / "m.mpz"))
    q = Parser.load(str(tmp_path / "m.mpz"))
    test = read_conll(os.path.join(EXAMPLES, "toy-test.conll"))
    assert [s.heads for s in q.parse(test)] == [s.heads for s in p.parse(test)]
    assert q.deprel_values == p.deprel_values


def test_head_path_deprojectivization_as_maltparser():
    pp = PseudoProjective("head+path")
    # word 3 was lifted from a head labelled nmod; the only node on the path, 1, is nmod:poss:
    # MaltParser leaves word 3 where it is (no falling back to the end of the path)
    h, l = pp.deprojectivize([-1, 2, 0, 2], ["_", "nmod:poss%", "root", "appos|nmod"])
    assert h[3] == 2 and l[3] == "appos"
    # two nodes on the path have the label: the one where the path ends wins over the first found
    h, l = pp.deprojectivize([-1, 0, 1, 2, 1], ["_", "root", "nmod%", "nmod%", "x|nmod"])
    assert h[4] == 3 and l[4] == "x"
