"""Right-to-left parsing (-dir rtl): the reversal mapping (spec §5.4) and parsers trained on it."""
import io
import random

import pytest
from hypothesis import given, settings, strategies as st

import maltpy
from maltpy.formats.conll import format_sentences, read_conll
from maltpy.parsing.parser import Parser
from maltpy.parsing.stream import parse_bytes
from maltpy.transform.reverse import rev, reverse_sentence, reverse_tree
from conftest import EXAMPLES, is_projective, random_tree

TRAIN = f"{EXAMPLES}/toy-train.conll"
TEST = f"{EXAMPLES}/toy-test.conll"

# E1 of the spec and its reversal, E9 ([RP] Fig. 4)
E1_HEADS, E1_LABELS = [2, 0, 5, 5, 2], ["SBJ", "ROOT", "DET", "NMOD", "PRED"]
E9_HEADS, E9_LABELS = [4, 1, 1, 0, 4], ["PRED", "NMOD", "DET", "ROOT", "SBJ"]


def test_reversing_the_spec_example():
    """R2: E1 reversed is E9; R1: and back."""
    assert reverse_tree(E1_HEADS, E1_LABELS) == (E9_HEADS, E9_LABELS)
    assert reverse_tree(E9_HEADS, E9_LABELS) == (E1_HEADS, E1_LABELS)
    assert rev(0, 5) == 0 and rev(1, 5) == 5 and rev(5, 5) == 1


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 20))
def test_reversal_is_an_involution_keeping_root_arcs_and_projectivity(seed, n):
    """R1 and R3."""
    rng = random.Random(seed)
    heads = random_tree(rng, n)[1:]
    labels = [f"l{rng.randrange(5)}" for _ in range(n)]
    h2, l2 = reverse_tree(heads, labels)
    assert reverse_tree(h2, l2) == (heads, labels)
    assert [d for d in range(1, n + 1) if heads[d - 1] == 0] == sorted(n + 1 - d for d in range(1, n + 1)
                                                                        if h2[d - 1] == 0)
    assert is_projective([-1] + heads) == is_projective([-1] + h2)


def test_reverse_sentence_keeps_every_column_of_each_word():
    s = read_conll(TEST)[0]
    r = reverse_sentence(s)
    n = len(s)
    assert [row[1:6] for row in r.rows] == [row[1:6] for row in reversed(s.rows)]
    assert [row[0] for row in r.rows] == [str(k) for k in range(1, n + 1)]
    assert r.heads == [rev(h, n) for h in reversed(s.heads)]


@pytest.fixture(scope="module")
def models():
    gold = read_conll(TRAIN, need_heads=True)
    return {
        "rtl": Parser(verbose=False, direction="rtl", marking_strategy="head").fit(gold, fmt="conllx"),
        # the same model by hand: a left-to-right parser trained on the reversed treebank
        "by_hand": Parser(verbose=False, marking_strategy="head").fit([reverse_sentence(s) for s in gold],
                                                                      fmt="conllx"),
    }


def test_rtl_model_is_a_left_to_right_model_of_the_reversed_sentences(models):
    """R4: training reverses the treebank and parsing reverses the input and maps the trees back."""
    sentences = read_conll(TEST)
    out = models["rtl"].parse(sentences)
    by_hand = models["by_hand"].parse([reverse_sentence(s) for s in sentences])
    for a, b in zip(out, by_hand):
        assert (a.heads, a.labels) == reverse_tree(b.heads, b.labels)
        assert a.forms == [r[1] for r in a.rows]   # in the input's order


def test_rtl_compiled_path_writes_the_python_paths_bytes(models, tmp_path):
    with open(TEST, "rb") as f:
        data = f.read()
    parser = models["rtl"]
    expected = format_sentences(parser.parse(read_conll(io.BytesIO(data)))).encode("utf-8")
    for jobs, block in ((1, 1 << 20), (2, 500)):
        assert parse_bytes(parser, data, "conllx", jobs=jobs, block_size=block) == expected
    path = tmp_path / "rtl.mpz"
    parser.save(str(path))
    again = maltpy.load(str(path))
    assert again.settings.direction == "rtl"
    assert parse_bytes(again, data, "conllx") == expected


def test_rtl_parses_as_well_as_ltr_on_the_toy_grammar(models):
    gold = read_conll(TEST, need_heads=True)
    ltr = Parser(verbose=False, marking_strategy="head").fit(read_conll(TRAIN, need_heads=True), fmt="conllx")
    from maltpy.evaluation.scores import evaluate
    a, b = evaluate(gold, ltr.parse(gold))["all"].las, evaluate(gold, models["rtl"].parse(gold))["all"].las
    assert a > 80 and b > 80
