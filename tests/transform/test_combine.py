"""Combining left-to-right and right-to-left parses (spec §5.5, [RP] Fig. 6 and 7)."""
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.formats.conll import read_conll, write_conll
from maltpy.transform.combine import combine_trees, has_cycle
from conftest import EXAMPLES, is_tree, random_tree

# Fig. 7: positions in the original order; X and Y are REV's (unstated) labels of its wrong arcs
ARC = ([2, 0, 4, 5, 2], ["SBJ", "ROOT", "DET", "DET", "PRED"])
REV = ([0, 1, 5, 5, 2], ["X", "Y", "DET", "NMOD", "PRED"])
GOLD = ([2, 0, 5, 5, 2], ["SBJ", "ROOT", "DET", "NMOD", "PRED"])


def test_c1_position_p2_arc_first_gives_the_gold_tree():
    heads, labels, fell_back = combine_trees(ARC, REV, "position", 2, "ltr")
    assert (heads, labels) == GOLD and not fell_back   # token 4 takes NMOD from REV: same head, label too


def test_c2_c3_a_cycle_falls_back_to_the_left_to_right_tree():
    for criterion, param in (("position", 1), ("length", 1)):
        heads, labels, fell_back = combine_trees(ARC, REV, criterion, param, "ltr")
        assert (heads, labels) == ARC and fell_back


def test_c4_c5_extreme_parameters():
    assert combine_trees(ARC, REV, "position", 0, "rtl")[:2] == ARC       # nothing for REV: the baseline
    assert combine_trees(ARC, REV, "length", 0, "rtl")[:2] == ARC
    assert combine_trees(ARC, REV, "position", 0, "ltr")[:2] == REV       # everything from REV
    assert combine_trees(ARC, REV, "position", 5, "ltr")[:2] == ARC


def test_c6_c7_length_is_the_first_parsers_arc_and_a_root_arc_is_as_long_as_the_position():
    first = ([0, 3, 2, 3], ["a", "b", "c", "d"])       # token 3: head 2 (length 1)
    second = ([0, 1, 1, 3], ["e", "f", "g", "h"])      # token 3: head 1 (length 2)
    heads, labels, _ = combine_trees(first, second, "length", 1, "ltr")
    assert heads[2] == 2 and labels[2] == "c"          # the first parser's length decides
    # token 1's root arc has length 1: with l = 0 the second parser decides it, with l = 1 the first
    assert combine_trees(first, second, "length", 0, "ltr")[1][0] == "e"
    assert combine_trees(first, second, "length", 1, "ltr")[1][0] == "a"


def test_c8_fallback_is_the_left_to_right_tree_whoever_is_first():
    ltr = ([0, 1, 2], ["root", "x", "y"])
    rtl = ([2, 0, 2], ["u", "root", "w"])
    # REV first, p = 1: token 1 takes REV's head 2, token 2 ARC's head 1: a cycle
    heads, labels, fell_back = combine_trees(ltr, rtl, "position", 1, "rtl")
    assert fell_back and (heads, labels) == ltr
    # ARC first, p = 1: token 1 from ARC (root), tokens 2-3 from REV: no cycle
    heads, labels, fell_back = combine_trees(ltr, rtl, "position", 1, "ltr")
    assert not fell_back and heads == [0, 0, 2]


def test_c10_the_comparison_includes_the_parameter():
    assert combine_trees(ARC, REV, "position", 2, "ltr")[0][1] == 0         # position 2 from ARC
    first = ([0, 1, 1, 1, 1, 1], list("abcdef"))
    second = ([0, 1, 2, 3, 4, 5], list("ghijkl"))
    heads, _, _ = combine_trees(first, second, "length", 5, "ltr")
    assert heads[5] == 1                                                      # length exactly 5: first


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 15), param=st.integers(0, 40),
       criterion=st.sampled_from(["position", "length"]), first=st.sampled_from(["ltr", "rtl"]))
def test_c9_always_a_tree_and_identical_inputs_come_back(seed, n, param, criterion, first):
    rng = random.Random(seed)
    a = (random_tree(rng, n)[1:], [f"l{rng.randrange(3)}" for _ in range(n)])
    b = (random_tree(rng, n)[1:], [f"l{rng.randrange(3)}" for _ in range(n)])
    heads, labels, fell_back = combine_trees(a, b, criterion, param, first)
    assert is_tree([-1] + heads) and not has_cycle([-1] + heads)
    assert all(h != d for d, h in enumerate(heads, 1))
    assert combine_trees(a, a, criterion, param, first)[:2] == a


def test_combine_command(tmp_path):
    gold = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)
    other = [s.with_tree([0] * len(s), ["dep"] * len(s)) for s in gold]   # all flat: a different parse
    write_conll(gold, str(tmp_path / "ltr.conll"))
    write_conll(other, str(tmp_path / "rtl.conll"))
    run = lambda *a: subprocess.run([sys.executable, "-m", "maltpy", "combine", *a], capture_output=True,  # noqa: E731
                                    text=True, cwd=str(tmp_path))
    r = run("ltr.conll", "rtl.conll", "--criterion", "position", "--param", "3", "-o", "out.conll")
    assert r.returncode == 0, r.stderr
    out = read_conll(str(tmp_path / "out.conll"), need_heads=True)
    for s, g in zip(out, gold):
        assert s.heads == [h if d <= 3 else 0 for d, h in enumerate(g.heads, 1)]
    write_conll(gold[:-1], str(tmp_path / "short.conll"))
    r = run("ltr.conll", "short.conll", "--param", "3")
    assert r.returncode == 1 and "combine parses of the same text" in r.stderr
    r = run("ltr.conll", "rtl.conll", "--param", "-1", "-o", "neg.conll")
    assert r.returncode == 2 and "use 0 or more" in r.stderr and not (tmp_path / "neg.conll").exists()


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10 ** 9), param=st.integers(0, 12), criterion=st.sampled_from(["position", "length"]),
       first=st.sampled_from(["ltr", "rtl"]))
def test_the_row_version_equals_the_per_sentence_rule(seed, param, criterion, first):
    """combine_rows (numpy, all sentences at once) gives combine_trees's trees and fallbacks."""
    import numpy as np
    from maltpy.transform.combine import combine_rows
    rng = random.Random(seed)
    trees, offsets = [], [0]
    for _ in range(rng.randint(1, 6)):
        n = rng.randint(1, 12)
        trees.append(((random_tree(rng, n)[1:], [rng.randrange(4) for _ in range(n)]),
                      (random_tree(rng, n)[1:], [rng.randrange(4) for _ in range(n)])))
        offsets.append(offsets[-1] + n + 1)
    rows = lambda part, which: np.array([x for t in trees for x in [-1] + t[which][part]])  # noqa: E731
    heads, labels, fallbacks = combine_rows(offsets, rows(0, 0), rows(1, 0), rows(0, 1), rows(1, 1),
                                            criterion, param, first)
    expected = [combine_trees(a, b, criterion, param, first) for a, b in trees]
    assert heads.tolist() == [x for h, _, _ in expected for x in [-1] + h]
    assert [x for k, x in enumerate(labels.tolist()) if heads[k] >= 0] == [x for _, l, _ in expected for x in l]
    assert fallbacks == sum(f for _, _, f in expected)


def test_dir_both_model_trains_saves_loads_and_parses_the_same_everywhere(tmp_path):
    """-dir both: one model file with both parsers and the cross-validated combination; the Python
    path, the compiled path (one or two threads) and a reloaded model write the same bytes, which
    are the combination of the two directions' own parses."""
    import io
    import maltpy
    from maltpy.formats.conll import format_sentences
    from maltpy.parsing.parser import Parser
    from maltpy.parsing.stream import parse_bytes
    gold = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    p = Parser(verbose=False, direction="both", combination_folds=3, algorithm="nivrestandard").fit(gold)
    c = p.combination
    assert c["criterion"] in ("position", "length") and c["las"] >= c["las_ltr"] and c["sentences"] == len(gold)
    path = str(tmp_path / "both.mpz")
    p.save(path)
    again = maltpy.load(path)
    assert again.combination == c and again.reverse_parser.settings.direction == "rtl"
    with open(f"{EXAMPLES}/toy-test.conll", "rb") as f:
        data = f.read()
    test = read_conll(io.BytesIO(data))
    expected = format_sentences(p.parse(test)).encode("utf-8")
    for parser in (p, again):
        for jobs, block in ((1, 1 << 20), (2, 300)):
            assert parse_bytes(parser, data, "conllx", jobs=jobs, block_size=block) == expected
    from maltpy.parsing.tail import split_trees
    offsets, heads, labels = p._raw_rows(test)       # the left-to-right parser's trees alone
    ltr = split_trees(offsets, *p.view.decode_rows(offsets, heads, labels, p.output_labels))
    rtl = p.reverse_parser.parse_trees(test)
    assert [(s.heads, s.labels) for s in p.parse(test)] == [
        combine_trees(a, b, c["criterion"], c["param"], c["first"])[:2] for a, b in zip(ltr, rtl)]


def test_dir_both_trains_the_right_to_left_parser_with_its_own_feature_model(tmp_path):
    """-Frtl gives the right-to-left parser of -dir both its own feature model (the paper tuned
    each direction's apart); the model file keeps both; it means nothing without -dir both."""
    import maltpy
    from maltpy.errors import MaltpyError
    from maltpy.features.resolve import resolve_feature_model
    from maltpy.parsing.parser import Parser
    gold = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    p = Parser(verbose=False, direction="both", combination_folds=2, reverse_features="NivreEagerLean").fit(gold)
    lean = resolve_feature_model("NivreEagerLean", "nivreeager", "liblinear", "conllx")[1]
    default = resolve_feature_model(None, "nivreeager", "liblinear", "conllx")[1]
    assert lean != default
    path = str(tmp_path / "both.mpz")
    p.save(path)
    for parser in (p, maltpy.load(path)):
        assert parser.feature_text == default and parser.reverse_parser.feature_text == lean
    with pytest.raises(MaltpyError, match="-Frtl"):
        Parser(verbose=False, direction="rtl", reverse_features="NivreEagerLean").fit(gold)


def test_choose_combination_prefers_the_left_to_right_parse_on_ties_and_finds_a_better_one():
    from maltpy.transform.combine import choose_combination
    gold = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)[:5]
    same = [(s.heads, s.labels) for s in gold]
    c = choose_combination([(gold, same, same)])
    assert (c["first"], c["param"], c["las"]) == ("rtl", 0, 100.0)
    # left to right wrong from position 4 on, right to left right there: position <= 3, ltr first
    broken = [([h if d <= 3 else (0 if h != 0 else 1) for d, h in enumerate(s.heads, 1)], s.labels) for s in gold]
    c = choose_combination([(gold, broken, same)])
    assert c["las"] == 100.0 and c["las_ltr"] < 100.0


def test_the_out_of_fold_choice_of_each_part_is_made_on_the_other_parts_alone():
    """Nested cross-validation: where right to left is right on two parts and left to right on the
    third, the third part gets the choice of the other two (right to left's trees, wrong there),
    though its own choice would have been right."""
    from maltpy.transform.combine import choose_combination, choose_out_of_fold
    gold = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)[:8]
    parts = [gold[0:1], gold[1:2], gold[2:8]]
    # the third part outweighs the others: a choice that saw it would take its parser, right there
    assert sum(len(s) for s in parts[2]) > sum(len(s) for s in parts[0] + parts[1])
    right = [[(s.heads, s.labels) for s in p] for p in parts]
    wrong = [[([0] * len(s.heads), s.labels) for s in p] for p in parts]      # flat: a tree, not gold
    held_out = [(parts[0], wrong[0], right[0]), (parts[1], wrong[1], right[1]), (parts[2], right[2], wrong[2])]
    out = choose_out_of_fold(held_out)
    assert [choice == choose_combination(held_out[:k] + held_out[k + 1:]) for k, (choice, _) in enumerate(out)] \
        == [True] * 3
    assert out[2][1] == [(list(h), list(l)) for h, l in wrong[2]] != right[2]
    assert choose_combination(held_out[2:])["las"] == 100.0    # the part's own choice would be right


def test_gold_labels_written_as_underscore_count_as_labels(tmp_path):
    """CoNLL 2007 Spanish writes DEPREL _ for most words: a parser trained there outputs '_' as a
    label, and the cross-validation must score those words as the parser does (was: LAS ~0)."""
    from maltpy.transform.combine import choose_combination
    gold = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)[:5]
    for s in gold:
        for r in s.rows[::2]:
            r[7] = "_"
    trees = [(s.heads, s.column(7)) for s in gold]
    c = choose_combination([(gold, trees, trees)])
    assert c["las"] == c["las_ltr"] == c["las_rtl"] == 100.0
    # and end to end: -dir both trains on it and its parses keep the "_" labels
    path = tmp_path / "u.conll"
    write_conll(gold * 8, str(path))
    import maltpy
    parser = maltpy.train(str(path), direction="both", combination_folds=2, verbose=False, jobs=1)
    assert parser.combination["las_ltr"] > 50
