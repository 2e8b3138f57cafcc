"""The compiled decoding of discontinuous parses into export text (maltpy.transform.discdecode)
against the Python reference: decode_discontinuous, UnaryRules.apply and format_export."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError
from maltpy.formats.export import ExportFile, decode_discontinuous, format_export
from maltpy.parsing.discontinuous import DiscontinuousReduction, UnaryRules, batch_columns

from conftest import shared_file

CATEGORIES = ["NP", "VP", "S", "PP", "ROOT"]
TAGS = ["n", "ww", "adj"]
MORPHS = ["--", "WW(pv,tgw)", "WW(vd", "N(soort,ev)", "_", ""]


@st.composite
def parses(draw):
    """Sentences of random dependency trees (one root word) with labels Z#k, Z, or Z#x, words,
    tags, lemmas and morphology, and a unary table over the labels that occur."""
    sentences = []
    for s in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 9))
        order = draw(st.permutations(range(1, n + 1)))
        heads = [0] * n
        for i, m in enumerate(order[1:], 1):
            heads[m - 1] = order[draw(st.integers(0, i - 1))]
        # events: small, none, not a number, a digit int() refuses (2 superscript), past int32
        events = ["#1", "#2", "#3", "", "#x", "#12", "#\u00b2", "#99999999999"]
        labels = [draw(st.sampled_from(CATEGORIES)) + draw(st.sampled_from(events)) for _ in range(n)]
        words = [draw(st.sampled_from(["a", "b(", "é", "#5", "x y"])) for _ in range(n)]
        tags = [draw(st.sampled_from(TAGS)) for _ in range(n)]
        lemmas = [draw(st.sampled_from(["_", "loop", "é"])) for _ in range(n)]
        morphs = [draw(st.sampled_from(MORPHS)) for _ in range(n)]
        sentences.append((f"k{s}", words, tags, lemmas, morphs, heads, labels))
    table = {}
    for _ in range(draw(st.integers(0, 4))):
        child = draw(st.sampled_from(TAGS + CATEGORIES))
        parent = draw(st.sampled_from(CATEGORIES))
        morph = draw(st.sampled_from(["", "WW(pv", "WW(vd", "N(soort"]))
        table[(child, parent, morph)] = draw(st.sampled_from(["INF", "PPART", "NP"]))
    return sentences, table


def python_text(sentences, table, version):
    unary = UnaryRules(table)
    trees = [unary.apply(decode_discontinuous(w, t, h, lab, key, [x if x != "_" else "--" for x in lem],
                                              [x if x != "_" else "--" for x in mor]))
             for key, w, t, lem, mor, h, lab in sentences]
    return format_export(ExportFile(trees, version)).encode("utf-8")


def compiled_text(sentences, table, version):
    names = sorted({x for s in sentences for x in s[6]})
    offsets, heads, labels = [0], [], []
    for _, _, _, _, _, h, lab in sentences:
        heads += [-1] + h
        labels += [0] + [names.index(x) for x in lab]
        offsets.append(len(heads))
    reduction = DiscontinuousReduction(None, UnaryRules(table))
    batch = reduction.column_batch([(s[1], s[2]) for s in sentences], [s[3] for s in sentences],
                                   [s[4] for s in sentences])
    return reduction.rows_text(np.array(offsets), np.array(heads, dtype=np.int32), np.array(labels, dtype=np.int32),
                               names, batch_columns(batch), [s[0] for s in sentences], version)


@settings(max_examples=400, deadline=None)
@given(parses(), st.sampled_from([3, 4]))
def test_compiled_decoding_writes_what_python_writes(batch, version):
    sentences, table = batch
    assert compiled_text(sentences, table, version) == python_text(sentences, table, version)


def test_two_root_words_are_an_error_in_both():
    sentences = [("s1", ["a", "b"], ["n", "n"], ["_", "_"], ["_", "_"], [0, 0], ["NP#1", "NP#1"])]
    with pytest.raises(MaltpyError, match="2 root words"):
        python_text(sentences, {}, 4)
    with pytest.raises(MaltpyError, match="sentence s1: the tree has 2 root words"):
        compiled_text(sentences, {}, 4)


def test_a_cycle_is_an_error_in_both():
    sentences = [("s1", ["a", "b", "c"], ["n", "n", "n"], ["_"] * 3, ["_"] * 3, [0, 3, 2], ["S#1", "NP#1", "NP#1"])]
    with pytest.raises(MaltpyError, match="not form a tree"):
        python_text(sentences, {}, 4)
    with pytest.raises(MaltpyError, match="sentence s1: the heads do not form a tree"):
        compiled_text(sentences, {}, 4)


def test_alpino_dev_trees_encoded_and_decoded_give_the_same_text():
    """Every gold dev tree, encoded and decoded by both, with unary rules learned from it."""
    path = shared_file("alpino", "dev.export")
    from maltpy.formats.export import encode_discontinuous, read_export
    from maltpy.parsing.discontinuous import export_input
    trees = read_export(path).sentences
    sentences = []
    words_tags, keys, lemmas, morphs = export_input(trees)
    for (w, t), key, lem, mor, tree in zip(words_tags, keys, lemmas, morphs, trees):
        heads, labels = encode_discontinuous(tree)
        sentences.append((key, w, t, lem, mor, heads, labels))
    table = UnaryRules.learn(trees).table
    assert table
    assert compiled_text(sentences, table, 4) == python_text(sentences, table, 4)


@settings(max_examples=300, deadline=None)
@given(parses(), st.sampled_from([3, 4]))
def test_what_the_decoder_writes_reads_back_and_encodes(batch, version):
    """Whatever the classifier predicted, the export text maltpy writes is a file maltpy reads
    again (to score it, to convert it) with the same words, and encodes."""
    from maltpy.formats.export import encode_discontinuous, parse_export
    sentences, table = batch
    doc = parse_export(python_text(sentences, table, version).decode("utf-8"), "<decoded>")
    assert [[t.word for t in s.tokens] for s in doc.sentences] == [s[1] for s in sentences]
    for tree in doc.sentences:
        heads, labels = encode_discontinuous(tree)
        assert len(heads) == len(labels) == len(tree.tokens)


@settings(max_examples=300, deadline=None)
@given(parses(), st.sampled_from([3, 4]))
def test_every_constituent_the_decoder_writes_has_a_word_under_it(batch, version):
    """A ROOT label below the top of the tree (an ill-formed parse) dissolves into the
    constituent above it instead of leaving that constituent with no word (export allows one;
    no evaluator counts it as disco-dop's brackets are sets of words)."""
    from maltpy.formats.export import parse_export
    sentences, table = batch
    doc = parse_export(python_text(sentences, table, version).decode("utf-8"), "<decoded>")
    for tree in doc.sentences:
        assert all(span for _, span in tree.constituents()), tree


@settings(max_examples=400, deadline=None)
@given(parses(), st.sampled_from([3, 4]))
def test_compiled_discbracket_of_the_decoders_text_is_pythons(batch, version):
    """The decoder's export text as discbracket, compiled (maltpy.formats.discbracketio), is what
    to_discbracket writes of the Python decoder's trees; it leaves to Python only text it cannot
    take for the decoder's (a word with a space or %%, or starting with #)."""
    from maltpy.formats.discbracketio import export_discbracket
    from maltpy.formats.export import format_discbracket
    sentences, table = batch
    unary = UnaryRules(table)
    trees = [unary.apply(decode_discontinuous(w, t, h, lab, key, [x if x != "_" else "--" for x in lem],
                                              [x if x != "_" else "--" for x in mor]))
             for key, w, t, lem, mor, h, lab in sentences]
    compiled = export_discbracket(compiled_text(sentences, table, version), version)
    odd = any(" " in w or "%%" in w or w.startswith("#") for s in sentences for w in s[1])
    assert (compiled is None) == odd
    if compiled is not None:
        assert compiled.decode("utf-8") == format_discbracket(ExportFile(trees, version))


def test_compiled_discbracket_leaves_other_export_to_python():
    from maltpy.formats.discbracketio import export_discbracket
    good = b"#BOS 1\na\t--\tN\t--\t--\t500\n#500\t--\tNP\t--\t--\t0\n#EOS 1\n"
    assert export_discbracket(good, 4) == b"(ROOT (NP (N 0=a)))\n"
    for bad in (good.replace(b"--\t500\n", b"--\t501\n"),          # a parent it does not have
                good.replace(b"\t0\n#EOS", b"\t500\n#EOS"),        # a node its own parent
                good.replace(b"#EOS 1\n", b""),                    # no #EOS
                good.replace(b"\tN\t", b"\tN\tx\t"),               # a field more
                good + good.replace(b"a\t", b"#7\t")):             # a word starting with #
        assert export_discbracket(bad, 4) is None
    with pytest.raises(ValueError):
        export_discbracket(good, 5)
