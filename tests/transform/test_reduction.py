"""Constituent parsing as reduction (spec oracle_reduction.md part B, test cases C.2): bracketed
trees, head rules, the direct and delta encodings, decoding and its repairs, unary recovery,
EVALB's scores, and the command line."""
import io
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import InputFormatError, MaltpyError, ModelFileError
from maltpy.evaluation.evalb import evalb
from maltpy.formats.ptb import PtbTree, Tree, format_ptb, iter_ptb, parse_ptb, read_ptb, tree_from_string
from maltpy.transform.constituents import (
    constituents, decode, delta_decode, delta_encode, encode, format_unaries, insert_unaries, node_chains,
    parse_unaries, strip_unaries,
)
from maltpy.transform.headrules import HeadRules
from maltpy.transform.pseudoproj import nonprojective_arcs
from conftest import is_projective, shared_file

COLLINS = HeadRules.load("collins")
B3 = "(TOP (S (NP (DT The) (NN man)) (VP (VBD saw) (NP (PRP her)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)))"


# ---------------------------------------------------------------------- the spec's cases
def test_b3_example_encodes_exactly():
    t = tree_from_string(B3)
    direct = encode(t, COLLINS, "direct")
    assert direct.heads == [2, 3, 0, 3, 3, 7, 5, 3]
    assert direct.labels == ["NP#1", "S#2", "ROOT", "VP#1", "VP#1", "NP#1", "PP#1", "S#2"]
    assert encode(t, COLLINS, "delta").labels == ["NP#1", "S#2", "ROOT", "VP#1", "VP#0", "NP#1", "PP#1", "S#1"]
    assert direct.unaries[2] == {2: ("TOP",)} and direct.unaries[3] == {0: ("NP",)}


@pytest.mark.parametrize("encoding", ["direct", "delta"])
def test_b3_example_decodes_to_the_unaryless_tree_and_back(encoding):
    t = tree_from_string(B3)
    e = encode(t, COLLINS, encoding)
    d = decode(e.words, e.tags, e.heads, e.labels, encoding)
    assert d.tree.to_string() == ("(S (NP (DT The) (NN man)) (VP (VBD saw) (PRP her) (PP (IN with) "
                                  "(NP (DT a) (NN telescope)))) (. .))")
    assert insert_unaries(d, node_chains(d, e.unaries)) == t
    assert decode(e.words, e.tags, e.heads, e.labels, encoding, unaries=e.unaries).tree == t


@pytest.mark.parametrize("text,really,caution", [
    ("(VP (RB really) (VBZ needs) (NN caution))", "VP#1", "VP#1"),
    ("(VP (VP (RB really) (VBZ needs)) (NN caution))", "VP#1", "VP#2"),
    ("(VP (RB really) (VP (VBZ needs) (NN caution)))", "VP#2", "VP#1"),
])
def test_figure_2_ambiguity_is_resolved_by_the_order(text, really, caution):
    t = tree_from_string(text)
    e = encode(t, COLLINS, "direct")
    assert e.heads == [2, 0, 2] and e.labels == [really, "ROOT", caution]
    assert decode(e.words, e.tags, e.heads, e.labels, "direct").tree == t


def test_delta_codec_footnote_5():
    # head 5; left modifiers 4, 3, 2 (outwards) with #1, #3, #4; right 6..9 with #2, #3, #3, #5
    heads = [-1, 5, 5, 5, 5, 0, 5, 5, 5, 5]
    index = [0, 9, 4, 3, 1, 0, 2, 3, 3, 5]
    delta = delta_encode(heads, index)
    assert [delta[m] for m in (4, 3, 2)] == [1, 2, 1]
    assert [delta[m] for m in (6, 7, 8, 9)] == [2, 1, 0, 2]
    assert delta_decode(heads, delta)[2:] == index[2:]
    with pytest.raises(MaltpyError, match="non-nested"):
        delta_encode([-1, 0, 1, 1], [0, 0, 2, 1])


def test_label_consistency_repair_takes_the_closest_modifiers_label():
    # head 1; modifiers 2 (VP, distance 1) and 4 (NP, distance 3) in one class; 3 hangs from 4
    d = decode(list("abcd"), ["X"] * 4, [0, 1, 4, 1], ["ROOT", "VP#1", "NP#1", "NP#1"], "direct")
    assert d.tree.to_string() == "(VP (X a) (X b) (NP (X c) (X d)))"


def test_nesting_repair_and_non_nested_order():
    # 1 -> 3 (X#1), 1 -> 2 (Y#2): continuous decoding repairs into one flat Y constituent
    d = decode(list("abc"), ["T"] * 3, [0, 1, 1], ["ROOT", "Y#2", "X#1"], "direct")
    assert d.tree.to_string() == "(Y (T a) (T b) (T c))"
    # without the repair, the order makes X over {1, 3}: a discontinuous constituent
    d = decode(list("abc"), ["T"] * 3, [0, 1, 1], ["ROOT", "Y#2", "X#1"], "direct", continuous=False)
    assert ("X", 0, 3) not in constituents(d.tree)
    assert sorted(w.word for w in d.tree.children[0].preterminals()) == ["a", "c"]


def test_unary_classes_and_single_word():
    t = tree_from_string("(S (ADJP (JJ fine)))")
    e = encode(t, COLLINS, "delta")
    assert e.heads == [0] and e.labels == ["ROOT"] and e.unaries == [{0: ("S", "ADJP")}]
    d = decode(e.words, e.tags, e.heads, e.labels, "delta")
    assert d.tree.to_string() == "(JJ fine)"
    assert insert_unaries(d, node_chains(d, e.unaries)) == t
    assert parse_unaries(format_unaries({0: ("S", "ADJP"), 2: ("VP",)})) == {0: ("S", "ADJP"), 2: ("VP",)}


def test_several_roots_join_the_largest_subtree():
    d = decode(list("abcd"), ["T"] * 4, [0, 1, 0, 0], ["ROOT", "NP#1", "ROOT", "ROOT"], "delta")
    assert [p.word for p in d.tree.preterminals()] == list("abcd")
    assert d.tree.label == "NP"


# ---------------------------------------------------------------------- properties
LABELS = ["S", "NP", "VP", "PP", "ADJP", "SBAR"]
TAGS = ["NN", "VB", "DT", "IN", "JJ", "CC", ",", "RB"]


def random_constituent_tree(rng, n, unary_rate=0.2):
    """A random continuous tree over n words, with unary chains."""
    def build(lo, hi):
        if hi - lo == 1:
            node = Tree(rng.choice(TAGS), word=f"w{lo}")
        else:
            cuts = sorted(rng.sample(range(lo + 1, hi), rng.randint(1, min(3, hi - lo - 1))))
            bounds = [lo] + cuts + [hi]
            node = Tree(rng.choice(LABELS), [build(a, b) for a, b in zip(bounds, bounds[1:])])
        while rng.random() < unary_rate:
            node = Tree(rng.choice(LABELS), [node])
        return node
    return build(0, n)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 25), st.integers(0, 10 ** 9), st.sampled_from(["direct", "delta"]),
       st.sampled_from(["collins", "leftmost", "rightmost"]))
def test_encode_decode_round_trip(n, seed, encoding, rules):
    rng = random.Random(seed)
    t = random_constituent_tree(rng, n)
    r = HeadRules.load(rules)
    e = encode(t, r, encoding)
    heads = [-1] + e.heads
    assert is_projective(heads) and sum(h == 0 for h in e.heads) == 1
    assert decode(e.words, e.tags, e.heads, e.labels, encoding, unaries=e.unaries).tree == t
    d = decode(e.words, e.tags, e.heads, e.labels, encoding)
    assert constituents(d.tree) == constituents(strip_unaries(t))
    assert insert_unaries(d, node_chains(d, e.unaries)) == t
    # nesting: on each side, farther modifiers attach no earlier (the delta encoding exists)
    absolute = encode(t, r, "direct")
    delta_encode([-1] + absolute.heads, [0] + [int(l.rpartition("#")[2]) if "#" in l else 0
                                               for l in absolute.labels])


def random_parser_output(rng, n):
    """Heads (1-based, with a dummy at 0) and labels such as a dependency parser may write:
    several roots, non-projective arcs, labels without an index or none at all."""
    heads = [-1] + [0] * n
    order = list(range(1, n + 1))
    rng.shuffle(order)
    attached = [0]
    for m in order:
        heads[m] = rng.choice(attached) if rng.random() < 0.85 else 0
        attached.append(m)
    labels = [rng.choice(["NP#1", "VP#0", "S#2", "PP#7", "ROOT", "X", "S#x", "#3", None]) for _ in range(n)]
    return heads, labels


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 20), st.integers(0, 10 ** 9), st.sampled_from(["direct", "delta"]))
def test_any_parser_output_decodes_into_a_well_formed_tree(n, seed, encoding):
    """Whatever a dependency parser writes, decoding gives one tree over the words in order."""
    rng = random.Random(seed)
    heads, labels = random_parser_output(rng, n)
    words = [f"w{k}" for k in range(n)]
    d = decode(words, ["T"] * n, heads[1:], labels, encoding)
    assert [p.word for p in d.tree.preterminals()] == words
    spans = constituents(d.tree)
    assert all(0 <= a < b <= n for _, a, b in spans)
    assert len(d.nodes) == n + sum(1 for node, _, _ in d.nodes if node.word is None)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 20), st.integers(0, 10 ** 9), st.sampled_from(["direct", "delta"]))
def test_compiled_decoder_equals_the_python_decoder(n, seed, encoding):
    """maltpy.transform.reduce (the parse path) builds the trees maltpy.transform.constituents does,
    on any parser output, and writes words and tags with brackets as -LRB-/-RRB-."""
    from maltpy.parsing.constituent import Reduction
    rng = random.Random(seed)
    heads, labels = random_parser_output(rng, n)
    words = [rng.choice(["w", "(", ")", "a b", "é"]) + str(k) for k in range(n)]
    tags = [rng.choice(["NN", "-LRB-", "("]) for _ in range(n)]
    escaped = [w.replace("(", "-LRB-").replace(")", "-RRB-").replace(" ", "_") for w in words]
    python = decode(escaped, [t.replace("(", "-LRB-") for t in tags], heads[1:], labels, encoding).tree
    compiled = Reduction(COLLINS, encoding).decode_trees([(words, tags)], [(heads[1:], labels)], unaries=False)[0]
    assert compiled == python


def test_nonprojective_parse_is_lifted_before_decoding():
    heads = [0, 4, 1, 1]     # 2 -> 4 crosses 1 -> 3
    assert nonprojective_arcs([-1] + heads)
    d = decode(list("abcd"), ["T"] * 4, heads, ["ROOT", "NP#1", "VP#1", "VP#1"], "direct")
    assert [p.word for p in d.tree.preterminals()] == list("abcd")


# ---------------------------------------------------------------------- PTB files
def test_reader_wrappers_multiline_and_clean_up():
    text = ("( (S \n    (NP-SBJ-1 (NNP Mr.) (NNP Vinken) )\n    (VP (VBZ is) (S (NP-SBJ (-NONE- *-1)) "
            "(ADJP=2 (JJ old))))\n    (. .) ))\n(S (NP (-LRB- -LRB-) (PRP it)) (VP (VB go)))\n")
    trees = parse_ptb(text, "x.mrg")
    assert [t.wrapped for t in trees] == [True, False]
    assert [t.first_line for t in trees] == [1, 5]
    assert trees[0].tree.to_string() == "(S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (S (ADJP (JJ old)))) (. .))"
    assert trees[1].tree.to_string() == "(S (NP (-LRB- -LRB-) (PRP it)) (VP (VB go)))"
    assert format_ptb(trees) == ("( (S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (S (ADJP (JJ old)))) (. .)))\n"
                                 "(S (NP (-LRB- -LRB-) (PRP it)) (VP (VB go)))\n")
    raw = parse_ptb(text, "x.mrg", clean=False)
    assert "(-NONE- *-1)" in raw[0].tree.to_string() and "NP-SBJ-1" in raw[0].tree.to_string()


@pytest.mark.parametrize("text,line,message", [
    ("(S (NP (DT a) (NN b))\n(VP (VB c))", 1, "not closed"),
    ("(S (NP (DT a)))\n)", 2, "without a matching"),
    ("(S\n (NP word (DT a)))", 2, "outside a pre-terminal"),
    ("(S (NP (DT a)) stray)", 1, "outside a pre-terminal"),
    ("word (S (DT a))", 1, "outside a tree"),
    ("(S ())", 1, "empty bracket"),
    ("( (S (DT a)) (S (DT b)))", 1, "wrapper"),
    ("(S\n ( (DT a) (NN b)))", 2, "without a label"),
    ("", 0, "no trees"),
])
def test_bad_bracketed_input_is_one_line_with_file_and_line(text, line, message):
    with pytest.raises(InputFormatError, match=message) as e:
        parse_ptb(text, "bad.mrg")
    assert e.value.line == line and e.value.path == "bad.mrg"


PTB_PARTS = st.sampled_from(["(", ")", " ", "\n", "(S ", "(NP ", "(DT a)", "(NN b)", "(-NONE- *)", "( ", "x",
                             "))", "\ufeff", "é", "\r\n", "(VP (VB c))\n"])


def _outcome(read):
    """The trees (as lines, with where they start) or the error a reader gives."""
    try:
        return [(t.to_line(), t.wrapped, t.first_line) for t in read()]
    except InputFormatError as e:
        return (e.line, str(e))


@settings(max_examples=400, deadline=None)
@given(st.lists(PTB_PARTS, max_size=60), st.integers(1, 64), st.booleans())
def test_bracketed_files_read_in_pieces_give_what_the_whole_text_gives(parts, piece_size, clean):
    """iter_ptb cuts the file between whole trees at any piece size: the same trees, wrappers and
    lines, and on a damaged file the same error on the same line, as the whole text read at once."""
    text = "".join(parts)
    data = text.encode("utf-8")
    whole = _outcome(lambda: parse_ptb(text, "<input>", clean))
    assert _outcome(lambda: iter_ptb(io.BytesIO(data), clean, piece_size)) == whole


def test_evalb_of_two_streams_counts_their_trees(tmp_path):
    """Two files read a tree at a time give the figures of the lists, and files of different
    lengths are refused with both counts, as lists are."""
    gold = "".join(f"(S (NP (DT a{k}) (NN b)) (VP (VB c)))\n" for k in range(40))
    test = gold.replace("(VP (VB c))", "(VB c)")
    (tmp_path / "g.mrg").write_text(gold)
    (tmp_path / "t.mrg").write_text(test)
    (tmp_path / "short.mrg").write_text("".join(test.splitlines(True)[:39]))
    streamed = evalb(iter_ptb(str(tmp_path / "g.mrg"), False, 64), iter_ptb(str(tmp_path / "t.mrg"), False, 64))
    listed = evalb(read_ptb(str(tmp_path / "g.mrg"), False), read_ptb(str(tmp_path / "t.mrg"), False))
    assert streamed == listed and streamed.all.sentences == 40 and streamed.all.matched < streamed.all.gold_brackets
    for a, b, counts in (("g.mrg", "short.mrg", "40 trees and .* 39"), ("short.mrg", "g.mrg", "39 trees and .* 40")):
        with pytest.raises(MaltpyError, match=counts):
            evalb(iter_ptb(str(tmp_path / a), False, 64), iter_ptb(str(tmp_path / b), False, 64))


def test_deep_trees_do_not_reach_the_recursion_limit():
    depth = 5000
    text = "(S " * depth + "(NN x)" + ")" * depth
    t = parse_ptb(text, "deep.mrg")[0].tree
    e = encode(t, COLLINS, "delta")
    assert e.heads == [0] and len(e.unaries[0][0]) == depth
    assert decode(e.words, e.tags, e.heads, e.labels, "delta", unaries=e.unaries).tree.to_string() == \
        t.to_string()


# ---------------------------------------------------------------------- head rules
def test_collins_rules():
    h = COLLINS.head_child
    assert h("NP", ["DT", "JJ", "NN", "NNS"]) == 3          # rightdis over nouns
    assert h("NP", ["NP", ",", "NP"]) == 0                  # then left NP
    assert h("NP", ["DT", "CD"]) == 1                       # right CD
    assert h("NP", ["DT", "VBG"]) == 1                      # nothing: the last child
    assert h("VP", ["MD", "VP"]) == 0 and h("PP", ["IN", "NP"]) == 0
    assert h("S", ["NP", "VP", "."]) == 1 and h("ADVP", ["RB", "RB"]) == 1
    assert h("UCP", ["NN", "CC", "JJ"]) == 0                # coordination: CC before the head moves it left
    assert h("UNKNOWN", ["A", "B"]) == 0
    assert HeadRules.load("rightmost").head_child("NP", ["NN", "DT"]) == 1
    assert HeadRules.load("leftmost").head_child("NP", ["DT", "NN"]) == 0


@pytest.mark.parametrize("text,message", [
    ("rules: {NP: [[up, NN]]}", "direction"), ("rules: [1, 2]", "maps each"), ("default: middle", "left or right"),
    ("rules: {NP: [[left, yes]]}", "quote it"), ("foo: 1", "unknown key"), ("rules: {NP: [", "valid YAML"),
])
def test_bad_head_rule_files(text, message):
    with pytest.raises(MaltpyError, match=message):
        HeadRules.from_text(text, "rules.yaml")


def test_head_rules_file_not_found():
    with pytest.raises(MaltpyError, match="no such file"):
        HeadRules.load("/nonexistent/rules.yaml")


# ---------------------------------------------------------------------- EVALB
def _trees(*texts):
    return parse_ptb("\n".join(texts), "t.mrg", clean=False)


def test_evalb_by_hand():
    gold = _trees("( (S (NP (DT The) (NN man)) (VP (VBD saw) (NP (PRP her))) (. .)))")
    test = _trees("( (S (NP (DT The) (NN man)) (VP (VBD saw) (PRP her)) (. .)))")
    r = evalb(gold, test)
    # gold: wrapper, S, NP, VP, NP(her); test: wrapper, S, NP, VP ('.' is not counted)
    assert (r.all.gold_brackets, r.all.test_brackets, r.all.matched) == (5, 4, 4)
    assert round(r.all.recall, 2) == 80.0 and r.all.precision == 100.0
    r = evalb(gold, test, ignore_wrapper=True)
    assert (r.all.gold_brackets, r.all.test_brackets, r.all.matched) == (4, 3, 3)
    assert r.all.words == 4 and r.all.correct_tags == 4


def test_evalb_conventions():
    # PRT = ADVP, function tags stripped, TOP and -NONE- not counted, punctuation-only brackets dropped
    gold = _trees("(TOP (S (NP-SBJ (-NONE- *)) (VP (VB look) (PRT (RP up))) (FRAG (, ,))))")
    test = _trees("(TOP (S (VP (VB look) (ADVP (RP up))) (, ,)))")
    r = evalb(gold, test)
    assert (r.all.gold_brackets, r.all.test_brackets, r.all.matched) == (3, 3, 3)
    assert r.all.complete == 1


def test_evalb_error_and_skip_sentences_and_cutoff():
    long = "(S " + " ".join(f"(NN w{k})" for k in range(45)) + ")"
    gold = _trees("(S (NN a) (NN b))", "(S (NN a) (NN b))", long)
    test = _trees("(S (NN a) (NN c))", "(S (-NONE- a) (, b))", long)
    r = evalb(gold, test)
    assert (r.all.errors, r.all.skipped, r.all.valid) == (1, 1, 1)
    assert (r.short.sentences, r.short.valid) == (2, 0)
    with pytest.raises(MaltpyError, match="same sentences"):
        evalb(gold, test[:2])


# ---------------------------------------------------------------------- the command line
def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def treebank(tmp_path_factory):
    """Random trees written as a .mrg file: 150 to train on, 30 to test."""
    d = tmp_path_factory.mktemp("ptb")
    rng = random.Random(7)
    trees = [PtbTree(random_constituent_tree(rng, rng.randint(1, 15), 0.1), wrapped=True) for _ in range(180)]
    (d / "train.mrg").write_text(format_ptb(trees[:150]))
    (d / "test.mrg").write_text(format_ptb(trees[150:]))
    r = run("-c", "m.mpz", "-m", "learn", "-i", "train.mrg", "-q", cwd=d)
    assert r.returncode == 0, r.stderr
    r = run("-m", "convert", "-i", "test.mrg", "-o", "test.conll", "-q", cwd=d)
    assert r.returncode == 0, r.stderr
    return d


def test_learn_parse_convert_eval(treebank):
    d = treebank
    back = run("-m", "convert", "-i", "test.conll", "-o", "back.mrg", "-q", cwd=d)
    assert back.returncode == 0, back.stderr
    assert (d / "back.mrg").read_text() == (d / "test.mrg").read_text()
    r = run("-c", "m.mpz", "-i", "test.conll", "-o", "out.mrg", "-q", cwd=d)
    assert r.returncode == 0, r.stderr
    # .mrg input: its words and tags are parsed, its trees ignored
    r = run("-c", "m.mpz", "-i", "test.mrg", "-o", "out2.mrg", "-q", cwd=d)
    assert r.returncode == 0, r.stderr
    assert (d / "out2.mrg").read_text() == (d / "out.mrg").read_text()
    out = read_ptb(str(d / "out.mrg"))
    gold = read_ptb(str(d / "test.mrg"))
    assert [t.tree.words() for t in out] == [t.tree.words() for t in gold]
    assert [t.tree.tags() for t in out] == [t.tree.tags() for t in gold]
    r = run("eval", "test.mrg", "out.mrg", cwd=d)
    assert r.returncode == 0 and "Bracketing FMeasure" in r.stdout and "len<=40" in r.stdout
    r = run("eval", "--constituents", "test.mrg", "back.mrg", cwd=d)
    assert "Bracketing FMeasure       = 100.00" in r.stdout
    # CoNLL output of a constituent model: the encoded dependency trees
    r = run("-c", "m.mpz", "-i", "test.conll", "-o", "out.conll", "-q", cwd=d)
    assert r.returncode == 0 and "#" in (d / "out.conll").read_text()


def test_a_tagger_in_front_of_a_constituent_parser(treebank, tmp_path):
    """-m learn --tagger on bracketed trees: a tagger from their words and tags, and the parser as
    without it (.mrg in: the same trees as m.mpz's); untagged words are tagged, then parsed into
    trees whose words are the input's: the bytes of -m tag's output parsed by the same model."""
    m = str(tmp_path / "t.mpz")
    r = run("-c", m, "-m", "learn", "-i", "train.mrg", "--tagger", "all", "-q", cwd=treebank)
    assert r.returncode == 0, r.stderr
    for model, out in ((m, "a.mrg"), ("m.mpz", "b.mrg")):
        assert run("-c", model, "-i", "test.mrg", "-o", str(tmp_path / out), "-q", cwd=treebank).returncode == 0
    assert (tmp_path / "a.mrg").read_text() == (tmp_path / "b.mrg").read_text()
    words = tmp_path / "words.conll"
    words.write_text("".join("".join(f"{k}\t{w}" + "\t_" * 8 + "\n" for k, w in enumerate(t.tree.words(), 1)) + "\n"
                             for t in read_ptb(str(treebank / "test.mrg"))))
    for src, dst, extra in ((words, "p.mrg", []), (words, "t.conll", ["-m", "tag"]), (tmp_path / "t.conll", "q.mrg", [])):
        r = run("-c", m, "-i", str(src), "-o", str(tmp_path / dst), "-q", *extra, cwd=treebank)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "p.mrg").read_text() == (tmp_path / "q.mrg").read_text()
    out = read_ptb(str(tmp_path / "p.mrg"))
    assert [t.tree.words() for t in out] == [t.tree.words() for t in read_ptb(str(treebank / "test.mrg"))]


def test_an_untagged_word_is_named_from_a_file_and_from_standard_input(treebank, tmp_path):
    """A word without a POS tag: its file (or <stdin>) and line, whichever way the words come (the
    compiled reader's fallback read standard input a second time and said 'no sentences found')."""
    words = "1\tA\t_\tDT\tDT\t_\n\n1\tThe\t_\tDT\tDT\t_\n2\tdog\t_\t_\t_\t_\n\n"
    (tmp_path / "u.conll").write_text(words)
    r = run("-c", "m.mpz", "-i", str(tmp_path / "u.conll"), "-o", str(tmp_path / "o.mrg"), cwd=treebank)
    assert r.returncode == 1 and "u.conll:4: word 2 (dog) has no POS tag" in r.stderr and "--tagger all" in r.stderr
    assert not (tmp_path / "o.mrg").exists()
    piped = subprocess.run([sys.executable, "-m", "maltpy", "-c", "m.mpz", "-if", "conllx"], input=words,
                           capture_output=True, text=True, cwd=treebank)
    assert piped.returncode == 1 and "<stdin>:4: word 2 (dog) has no POS tag" in piped.stderr, piped.stderr
    r = subprocess.run([sys.executable, "-m", "maltpy", "-c", "m.mpz", "-if", "horizontal"], input="The dog\n",
                       capture_output=True, text=True, cwd=treebank)
    assert r.returncode == 1 and "<stdin>:1: word 1 (The) has no POS tag" in r.stderr, r.stderr
    # the same from a pipe that stays open, on two threads: the reader is then blocked in a read
    # of standard input (holding its lock, which Python's shutdown takes) when the error stops the
    # command, which exits instead of aborting
    p = subprocess.Popen([sys.executable, "-m", "maltpy", "-c", "m.mpz", "-if", "conllx", "-j", "2"],
                         stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=treebank)
    try:
        p.stdin.write(words.encode())
        p.stdin.flush()
        status = p.wait(timeout=60)
        err = p.stderr.read().decode()
    finally:
        p.kill()
        p.stdin.close()
    assert status == 1 and "<stdin>:4: word 2 (dog) has no POS tag" in err and "Fatal" not in err, (status, err)


@pytest.mark.parametrize("options", [["-l", "perceptron"], ["-dir", "both", "-cv", "2"], ["-pp", "head"],
                                     ["-a", "covnonproj"]])
def test_compiled_and_python_paths_write_the_same_trees(treebank, tmp_path, options):
    """CoNLL input goes through the compiled reader and decoder; .mrg input through Python
    objects: the same trees whatever the algorithm, learner, direction or pseudo-projective step."""
    m = str(tmp_path / "m.mpz")
    assert run("-c", m, "-m", "learn", "-i", "train.mrg", "-q", *options, cwd=treebank).returncode == 0
    for src, dst in (("test.conll", "a.mrg"), ("test.mrg", "b.mrg")):
        r = run("-c", m, "-i", src, "-o", str(tmp_path / dst), "-q", cwd=treebank)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.mrg").read_text() == (tmp_path / "b.mrg").read_text()
    assert len(read_ptb(str(tmp_path / "a.mrg"))) == 30


def test_constituent_model_round_trip_and_damage(treebank, tmp_path):
    import json
    import zipfile
    from maltpy.parsing.constituent import parse_constituents
    from maltpy.parsing.parser import Parser
    m = str(tmp_path / "m.mpz")
    assert run("-c", m, "-m", "learn", "-i", "train.mrg", "-q", "-ce", "direct", "-hr", "rightmost",
               cwd=treebank).returncode == 0
    p = Parser.load(m)
    assert p.reduction.encoding == "direct" and p.reduction.rules.name == "rightmost"
    gold = read_ptb(str(treebank / "test.mrg"))
    trees = parse_constituents(p, [(t.tree.words(), t.tree.tags()) for t in gold])
    assert [t.words() for t in trees] == [t.tree.words() for t in gold]
    with zipfile.ZipFile(m) as z:
        files = {n: z.read(n) for n in z.namelist()}
    header = json.loads(files["maltpy.json"])
    header["constituents"]["unary"]["classes"] = ["", "NP+"]
    files["maltpy.json"] = json.dumps(header).encode()
    bad = str(tmp_path / "bad.mpz")
    with zipfile.ZipFile(bad, "w") as z:
        for n, b in files.items():
            z.writestr(n, b)
    with pytest.raises(ModelFileError, match="unary"):
        Parser.load(bad)


def test_cli_errors(treebank, tmp_path):
    (tmp_path / "bad.mrg").write_text("(S (NP (DT a) (NN b))\n(VP (VB c)")
    r = run("-c", "m.mpz", "-m", "learn", "-i", "bad.mrg", cwd=tmp_path)
    assert r.returncode == 1 and "bad.mrg:1:" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "m.mpz").exists()
    r = run("-c", str(treebank / "m.mpz"), "-i", str(treebank / "test.conll"), "-o", "y.mrg", "-hr", "nope",
            cwd=tmp_path)
    assert r.returncode == 0      # head rules are fixed when learning
    (tmp_path / "untagged.conll").write_text("1\tword\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    r = run("-c", str(treebank / "m.mpz"), "-i", "untagged.conll", "-o", "x.mrg", cwd=tmp_path)
    assert r.returncode == 1 and "no POS tag" in r.stderr and not (tmp_path / "x.mrg").exists()
    r = run("-m", "learn", "-c", "m2.mpz", "-i", str(treebank / "train.mrg"), "-hr", "missing.yaml", cwd=tmp_path)
    assert r.returncode == 1 and "missing.yaml" in r.stderr


# ---------------------------------------------------------------------- the PTB sample
def test_ptb_sample_round_trip_is_exact():
    path = shared_file("ptb-sample", "train.mrg")
    trees = read_ptb(path)
    raw = read_ptb(path, clean=False)
    out = []
    for pt in trees:
        e = encode(pt.tree, COLLINS, "delta")
        d = decode(e.words, e.tags, e.heads, e.labels, "delta", unaries=e.unaries)
        assert d.tree == pt.tree
        out.append(PtbTree(d.tree, pt.wrapped))
    assert evalb(raw, out).all.f1 == 100.0
    unaryless = [PtbTree(strip_unaries(pt.tree), pt.wrapped) for pt in trees]
    assert evalb(raw, unaryless).all.f1 < 100.0


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.just("X"), st.integers(0, n), st.integers(0, n)).map(lambda b: (b[0], min(b[1:]), max(b[1:]))),
             max_size=40),
    st.lists(st.tuples(st.just("X"), st.integers(0, n), st.integers(0, n)).map(lambda b: (b[0], min(b[1:]), max(b[1:]))),
             max_size=40))))
def test_crossing_brackets_counted_by_the_sweep_as_pair_by_pair(brackets):
    """EVALB's crossing brackets, counted in O(b log b) for long sentences, are the test
    brackets that cross some gold bracket, as comparing every pair finds them."""
    from maltpy.evaluation.evalb import _crossing_sweep
    gold, test = brackets
    pairwise = sum(any((s1 < s2 < e1 < e2) or (s2 < s1 < e2 < e1) for _, s1, e1 in gold) for _, s2, e2 in test)
    assert _crossing_sweep(gold, test) == pairwise
