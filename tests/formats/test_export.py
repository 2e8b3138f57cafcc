"""Discontinuous constituent trees: the Negra export format and disco-dop's discbracket format
(maltpy.formats.export), and -m convert between them."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from maltpy.errors import InputFormatError
from maltpy.formats.export import (ExportFile, ExportLine, ExportSentence, encode_discontinuous, format_discbracket,
                                   format_export, parse_discbracket, parse_export, read_export, same_trees,
                                   to_discbracket)

from conftest import EXAMPLES, shared_file

#: a discontinuous sentence (VP over tokens 0 and 2, around the verb), with a comment, a
#: secondary edge and a punctuation token on the root
SMALL = """%% word\tlemma\ttag\tmorph\tedge\tparent\tsecedge
#BOS 7 %% a comment  with  spaces\x20
Gelezen\tlezen\tww\tWW(vd)\thd\t501
heeft\thebben\tww\tWW(pv)\thd\t502
hij\thij\tvnw\tVNW()\tsu\t502\tsu\t501
boeken\tboek\tn\tN(mv)\tobj1\t501
.\t.\tlet\tLET()\t--\t0
#501\t--\tPPART\t--\tvc\t502
#502\t--\tSMAIN\t--\t--\t0
#EOS 7
"""


def test_a_sentence_reads_and_writes_back_byte_for_byte():
    doc = parse_export(SMALL)
    s = doc.sentences[0]
    assert (s.key, s.comment, s.words) == ("7", " a comment  with  spaces ", ["Gelezen", "heeft", "hij", "boeken", "."])
    assert s.tokens[2].secedges == (("su", 501),)
    assert sorted(s.constituents(), key=repr) == sorted([("PPART", frozenset({0, 3})),
                                                         ("SMAIN", frozenset({0, 1, 2, 3}))], key=repr)
    assert format_export(doc) == SMALL


def test_discbracket_keeps_words_tags_and_discontinuous_constituents():
    s = parse_export(SMALL).sentences[0]
    text = to_discbracket(s)
    assert text == "(ROOT (SMAIN (PPART (ww 0=Gelezen) (n 3=boeken)) (ww 1=heeft) (vnw 2=hij)) (let 4=.))"
    back = parse_discbracket(text, "7")
    assert same_trees(s, back) and to_discbracket(back) == text


def test_a_tree_that_is_one_word_keeps_its_word():
    """``(TAG 0=word)``, a tree with no constituent, is the word on the root (it used to read as a
    sentence of no words, and parsing it failed with no line named); written back under ROOT."""
    s = parse_discbracket("(n 0=-LRB-)", "3")
    assert [(t.word, t.tag, t.parent) for t in s.tokens] == [("(", "n", 0)] and s.nodes == []
    assert to_discbracket(s) == "(ROOT (n 0=-LRB-))"
    assert same_trees(parse_discbracket(to_discbracket(s), "3"), s)
    with pytest.raises(InputFormatError, match="0, 1, ..., n-1"):
        parse_discbracket("(n 1=a)", "1")


def test_a_byte_order_mark_is_dropped_not_read_as_a_preamble(tmp_path):
    """A file that starts with a byte-order mark (as Windows editors write them) reads as the
    same sentences, by the Python reader, the compiled one and the discbracket reader; before,
    the first sentence's lines became the preamble and the sentence was lost without a word."""
    from maltpy.formats.export import read_discbracket
    from maltpy.parsing.discontinuous import compiled_export_words
    two = SMALL + SMALL.split("\n", 1)[1].replace(" 7", " 8")
    for text in (two, two.split("\n", 1)[1]):      # with a header line first, and #BOS first
        plain, marked = parse_export(text), parse_export("\ufeff" + text)
        assert [s.key for s in marked.sentences] == ["7", "8"] and format_export(marked) == format_export(plain)
        for conll in (False, True):
            fast = compiled_export_words("\ufeff" + text, conll, raw=("\ufeff" + text).encode("utf-8"))
            assert fast is not None and fast[0] == ["7", "8"]
    bracketed = tmp_path / "bom.discbracket"
    bracketed.write_bytes(b"\xef\xbb\xbf" + format_discbracket(plain).encode("utf-8"))
    assert [s.words for s in read_discbracket(str(bracketed)).sentences] == [s.words for s in plain.sentences]


def test_columns_aligned_with_runs_of_tabs_or_spaces_read_as_disco_dop_reads_them():
    """TIGER's and NEGRA's own export files align their columns with several tabs (and some
    files use spaces): such lines are split at runs of whitespace, as disco-dop splits them,
    with or without a header (format 4, and format 3 without its lemma column); single-tab
    lines keep their empty fields; a %% comment at the end of a token line is dropped."""
    plain = parse_export(SMALL)
    aligned = "\n".join(line if line.startswith(("#", "%%")) else line.replace("\t", "\t\t\t", 1).replace("\t", "  ", 2)
                        for line in SMALL.split("\n"))
    for text in (aligned, aligned.split("\n", 1)[1]):          # with the %% header, and without it
        doc = parse_export(text)
        assert doc.version == 4
        assert format_export(ExportFile(doc.sentences, 4)) == format_export(ExportFile(plain.sentences, 4))
    three = format_export(ExportFile(plain.sentences, 3))
    aligned3 = "\n".join(line if line.startswith(("#", "%%")) else line.replace("\t", "\t\t\t", 1)
                         for line in three.split("\n"))
    doc = parse_export(aligned3)     # no header: the first token line says format 3
    assert doc.version == 3 and same_trees(doc.sentences[0], plain.sentences[0])
    # NEGRA's header tables, and a comment at the end of a token line (dropped, as disco-dop drops it)
    negra = "#FORMAT 3\n#BOT ORIGIN\n0\tnegra\n#EOT ORIGIN\n" + aligned3.replace("\t501\n", "\t501\t%% seen\n", 1)
    doc = parse_export(negra)
    assert doc.version == 3 and same_trees(doc.sentences[0], plain.sentences[0])
    assert "seen" not in format_export(doc) and format_export(doc).startswith("#FORMAT 3\n#BOT ORIGIN\n")
    # a single-tab line with an empty field is read as it was: the field empty
    empty = SMALL.replace("hij\thij\t", "hij\t\t")
    assert parse_export(empty).sentences[0].tokens[2].lemma == ""
    with pytest.raises(InputFormatError, match=":2:"):
        parse_export("#BOS 1\na  b  c\n#EOS 1\n")


def test_format_3_has_no_lemma_column():
    text = "#FORMAT 3\n#BOS 1\nDogs\tNN\t--\tSB\t500\nbark\tVB\t--\tHD\t500\n#500\tS\t--\t--\t0\n#EOS 1\n"
    doc = parse_export(text)
    assert doc.version == 3 and doc.sentences[0].tokens[0].tag == "NN" and format_export(doc) == text


@pytest.mark.parametrize("text, where, what", [
    ("#BOS 1\na\tb\tc\td\te\t500\n", 2, "no #EOS"),
    ("#BOS 1\na\tb\tc\td\te\t499\n#EOS 1\n", 2, "neither 0"),
    ("#BOS 1\na\tb\tc\td\te\tx\n#EOS 1\n", 2, "node number"),
    ("#BOS 1\na\tb\tc\td\te\t500\n#EOS 1\n", 1, "does not have"),
    ("#BOS 1\na\tb\tc\td\te\t500\n#500\t--\tS\t--\t--\t501\n#501\t--\tS\t--\t--\t500\n#EOS 1\n", 1, "own ancestor"),
    ("#BOS 1\na\tb\tc\td\te\t500\n#500\t--\tS\t--\t--\t0\nb\tb\tc\td\te\t0\n#EOS 1\n", 4, "after the phrasal"),
    ("#BOS 1\na\tb\tc\td\te\t0\n#EOS 2\n", 3, "closes #BOS 1"),
    ("#BOS 1\na\tb\tc\n#EOS 1\n", 2, "fields"),
    ("", 0, "no sentences"),
])
def test_bad_export_is_one_error_with_its_line(text, where, what):
    with pytest.raises(InputFormatError) as e:
        parse_export(text, "x.export")
    assert what in str(e.value) and (e.value.line == where or where == 0)
    assert str(e.value).startswith("x.export")
    # the compiled reader leaves what Python refuses to Python, which names it
    from maltpy.formats.exportread import export_words
    start = text.find("#BOS")
    assert start < 0 or export_words(text[start:].encode("utf-8"), 4) is None


def test_a_constituent_with_no_word_under_it_leaves_no_trace_in_the_encoding():
    """Export lets a phrasal node have no word under it (maltpy's own decoder can write one):
    it is read, scored and written back as it is, and encoded as if it were not there (it was
    an internal error when such a file was converted or learned from, found by the fuzzer)."""
    with_empty = ("#BOS 1\na\tb\tc\td\te\t500\nz\tb\tc\td\te\t501\n#500\t--\tS\t--\t--\t0\n"
                  "#501\t--\tNP\t--\t--\t500\n#502\t--\tPP\t--\t--\t501\n#503\t--\tAP\t--\t--\t502\n#EOS 1\n")
    without = "#BOS 1\na\tb\tc\td\te\t500\nz\tb\tc\td\te\t501\n#500\t--\tS\t--\t--\t0\n#501\t--\tNP\t--\t--\t500\n#EOS 1\n"
    doc = parse_export(with_empty)
    assert format_export(doc) == with_empty
    assert encode_discontinuous(doc.sentences[0]) == encode_discontinuous(parse_export(without).sentences[0])
    # discbracket cannot hold one: it is left out there, so that maltpy reads back what it writes
    line = to_discbracket(doc.sentences[0])
    assert line == to_discbracket(parse_export(without).sentences[0])
    assert same_trees(parse_discbracket(line, "1"), parse_export(without).sentences[0])


@pytest.mark.parametrize("line, what", [("(S (A 0=a) (B 0=b))", "twice"), ("(S (A 0=a) (B 2=b))", "indices"),
                                        ("(S (A 0=a)", "unbalanced"), ("(S)", "no children"),
                                        ("(S (A a))", "index=word"), ("(S (A 0=a)) x", "after the tree"),
                                        ("(S (A \u00b2=a))", "index=word")])
def test_bad_discbracket_is_one_error(line, what):
    with pytest.raises(InputFormatError, match=what):
        parse_discbracket(line, "1", "x.discbracket", 3)


@st.composite
def discontinuous_trees(draw):
    """A random tree over n tokens whose constituents may be discontinuous: each node takes a
    random non-empty subset of what is still unattached below it."""
    n = draw(st.integers(1, 12))
    items = [("token", k) for k in range(n)]
    nodes = []
    while len(items) > 1 and draw(st.booleans()):
        picked = draw(st.lists(st.sampled_from(items), min_size=1, max_size=len(items), unique=True))
        node_id = 500 + len(nodes)
        nodes.append((node_id, draw(st.sampled_from(["NP", "VP", "S", "PP"])), picked))
        items = [i for i in items if i not in picked] + [("node", node_id)]
    parent = {}
    for node_id, _, picked in nodes:
        for item in picked:
            parent[item] = node_id
    tokens = [ExportLine(draw(st.sampled_from(["a", "b(", "c d", "é"])), "--", draw(st.sampled_from(["N", "V"])),
                         "--", "--", parent.get(("token", k), 0)) for k in range(n)]
    lines = [ExportLine(f"#{i}", "--", label, "--", "--", parent.get(("node", i), 0)) for i, label, _ in nodes]
    return ExportSentence("1", tokens, lines)


@settings(max_examples=200, deadline=None)
@given(discontinuous_trees())
def test_random_discontinuous_trees_round_trip(sentence):
    doc = ExportFile([sentence])
    again = parse_export(format_export(doc)).sentences[0]
    assert format_export(ExportFile([again])) == format_export(doc)
    back = parse_discbracket(to_discbracket(sentence), "1")
    words_ok = [t.word.replace(" ", "_") for t in sentence.tokens] == [t.word for t in back.tokens]
    assert words_ok and sorted(back.constituents(), key=repr) == sorted(
        [c for c in sentence.constituents() if c[1]], key=repr)


def test_every_alpino_tree_round_trips():
    """The Alpino training file reads and writes back byte for byte; through discbracket every
    tree keeps its words, tags and labelled constituents."""
    for part in ("train", "dev"):
        path = shared_file("alpino", f"{part}.export")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        doc = read_export(path)
        assert format_export(doc) == text
        assert all(same_trees(s, parse_discbracket(to_discbracket(s), s.key)) for s in doc.sentences)
    discontinuous = sum(any(max(c) - min(c) + 1 > len(c) for _, c in s.constituents() if c) for s in doc.sentences)
    assert discontinuous == 450     # dev: 63.0 % of 714 sentences, as the data's README counts


def test_sent_id_comments_become_keys_or_the_sentence_number(tmp_path):
    """CoNLL-U -> export: '# sent_id = X' gives the #BOS key X (blanks made _, a key is one field);
    '# sent_id' with no '=' or no value gives the sentence's number (the first stopped -m convert
    and a discontinuous parser's -m parse with an internal error, the second wrote '#BOS ')."""
    from maltpy.formats.conll import parse_conll
    from maltpy.formats.export import conll_key
    comments = ["# sent_id", "# sent_id = ", "# sent_id = a b", "#sent_id=7", "# text = x"]
    text = "".join(f"{c}\n1\tHet\thet\tlid\tLID\t_\t0\tROOT\t_\t_\n\n" for c in comments)
    assert [conll_key(s, k) for k, s in enumerate(parse_conll(text, "conllu"), 1)] == ["1", "2", "a_b", "7", "5"]
    src = tmp_path / "k.conllu"
    src.write_text(text)
    r = subprocess.run([sys.executable, "-m", "maltpy", "-m", "convert", "-i", str(src), "-o", str(tmp_path / "k.export")],
                       capture_output=True, text=True, cwd=EXAMPLES)
    assert r.returncode == 0, r.stderr
    assert [s.key for s in read_export(str(tmp_path / "k.export")).sentences] == ["1", "2", "a_b", "7", "5"]


def test_convert_on_the_command_line(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "maltpy", *a], capture_output=True, text=True,  # noqa: E731
                                    cwd=EXAMPLES)
    src = tmp_path / "small.export"
    src.write_text(SMALL)
    assert run("-m", "convert", "-i", str(src), "-o", str(tmp_path / "small.discbracket")).returncode == 0
    assert (tmp_path / "small.discbracket").read_text() == format_discbracket(parse_export(SMALL))
    assert run("-m", "convert", "-i", str(tmp_path / "small.discbracket"), "-o", str(tmp_path / "b.export")).returncode == 0
    assert same_trees(read_export(str(tmp_path / "b.export")).sentences[0], parse_export(SMALL).sentences[0])
    r = run("-m", "learn", "-c", str(tmp_path / "m"), "-i", str(src), "--tokenizer")
    assert r.returncode == 1 and "discontinuous trees have none" in r.stderr and not (tmp_path / "m.mpz").exists()
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("-m", "convert", "-i", str(src), "-o", str(tmp_path / "x.mrg"))
    assert r.returncode == 1 and "export and discbracket" in r.stderr
    bad = tmp_path / "bad.export"
    bad.write_text("#BOS 1\na\tb\n")
    r = run("-m", "convert", "-i", str(bad), "-o", str(tmp_path / "o.discbracket"))
    assert r.returncode == 1 and "bad.export:2" in r.stderr and not (tmp_path / "o.discbracket").exists()


def test_encoding_as_head_ordered_dependencies_round_trips():
    from maltpy.formats.export import decode_discontinuous, encode_discontinuous, unaryless_constituents
    s = parse_export(SMALL).sentences[0]
    heads, labels = encode_discontinuous(s)
    # heeft heads the sentence; Gelezen heads the discontinuous PPART (its hd) and attaches at SMAIN
    assert heads == [2, 0, 2, 1, 2] and labels == ["SMAIN#1", "ROOT", "SMAIN#1", "PPART#1", "ROOT#2"]
    back = decode_discontinuous(s.words, [t.tag for t in s.tokens], heads, labels)
    assert unaryless_constituents(back) == unaryless_constituents(s)
    assert back.tokens[4].parent == 0      # the punctuation hangs from the root again


@settings(max_examples=300, deadline=None)
@given(discontinuous_trees())
def test_random_discontinuous_trees_encode_and_decode(sentence):
    """Algorithms 1 and 2: any tree comes back with its constituents of two or more children
    (unary ones are the unary recovery's), whatever its discontinuities."""
    from maltpy.formats.export import decode_discontinuous, encode_discontinuous, unaryless_constituents
    heads, labels = encode_discontinuous(sentence)
    assert heads.count(0) == 1
    back = decode_discontinuous(sentence.words, [t.tag for t in sentence.tokens], heads, labels)
    assert unaryless_constituents(back) == unaryless_constituents(sentence)


@pytest.mark.parametrize("rules", [None, "alpino"])
def test_every_alpino_tree_encodes_and_decodes(rules):
    from maltpy.formats.export import decode_discontinuous, encode_discontinuous, unaryless_constituents
    from maltpy.transform.headrules import HeadRules
    doc = read_export(shared_file("alpino", "train.export"))
    head_rules = HeadRules.load(rules) if rules else None
    for s in doc.sentences:
        heads, labels = encode_discontinuous(s, head_rules)
        back = decode_discontinuous(s.words, [t.tag for t in s.tokens], heads, labels, s.key)
        assert unaryless_constituents(back) == unaryless_constituents(s), s.key


#: a coordination without hd: Jan en Piet lopen (CONJ of cnj, crd, cnj), a multiword name
COORDINATION = """#BOS 3
Jan\tJan\tn\tN(eigen)\tcnj\t500
en\ten\tvg\tVG(neven)\tcrd\t500
Piet\tPiet\tn\tN(eigen)\tmwp\t501
Smit\tSmit\tn\tN(eigen)\tmwp\t501
lopen\tlopen\tww\tWW(pv)\thd\t502
#500\t--\tCONJ\t--\tsu\t502
#501\t--\tMWU\t--\tcnj\t500
#502\t--\tSMAIN\t--\t--\t0
#EOS 3
"""


def test_head_rules_read_edge_labels():
    """-hr alpino: a coordination's head is its first conjunct, a multiword unit's its first
    part; without rules the first phrasal child (here the MWU) heads the CONJ."""
    from maltpy.formats.export import encode_discontinuous
    from maltpy.transform.headrules import HeadRules
    s = parse_export(COORDINATION).sentences[0]
    heads, labels = encode_discontinuous(s, HeadRules.load("alpino"))
    assert heads == [5, 1, 1, 3, 0] and labels == ["SMAIN#1", "CONJ#1", "CONJ#1", "MWU#1", "ROOT"]
    heads, _ = encode_discontinuous(s)
    assert heads[:4] == [3, 3, 5, 3]
    negra = HeadRules.load("negra")
    assert negra.head_child("NP", ["ART", "ADJA", "NN"], ["NK", "NK", "NK"]) == 2
    assert negra.head_child("PP", ["APPR", "ART", "NN"], ["AC", "NK", "NK"]) == 0
    assert negra.head_child("CNP", ["NP", "KON", "NP"], ["CJ", "CD", "CJ"]) == 0


def test_a_bad_edge_rule_is_one_error():
    from maltpy.errors import MaltpyError
    from maltpy.transform.headrules import HeadRules
    with pytest.raises(MaltpyError, match="edges for CONJ: direction 'up'"):
        HeadRules.from_text("edges:\n  CONJ: [[up, cnj]]\n", "my.yaml")


def test_convert_to_the_encoded_dependency_trees_and_back(tmp_path):
    from maltpy.cli.main import main
    from maltpy.formats.export import unaryless_constituents
    src = tmp_path / "small.export"
    src.write_text(SMALL)
    conll = tmp_path / "small.conllu"
    assert main(["-m", "convert", "-i", str(src), "-o", str(conll), "-q"]) == 0
    lines = conll.read_text().splitlines()
    assert lines[0] == "# sent_id = 7" and lines[1].split("\t")[6:8] == ["2", "SMAIN#1"]
    back = tmp_path / "back.export"
    assert main(["-m", "convert", "-i", str(conll), "-o", str(back), "-q"]) == 0
    again = read_export(str(back)).sentences[0]
    original = parse_export(SMALL).sentences[0]
    assert again.key == "7" and unaryless_constituents(again) == unaryless_constituents(original)
    assert [t.lemma for t in again.tokens] == [t.lemma for t in original.tokens]


def test_secondary_edges_are_kept_unless_asked(tmp_path):
    from maltpy.cli.main import main
    src = tmp_path / "small.export"
    src.write_text(SMALL)
    kept, dropped = tmp_path / "kept.export", tmp_path / "dropped.export"
    assert main(["-m", "convert", "-i", str(src), "-o", str(kept), "-q"]) == 0
    assert main(["-m", "convert", "-i", str(src), "-o", str(dropped), "--secondary-edges", "false", "-q"]) == 0
    assert kept.read_text() == SMALL
    hij = [line for line in dropped.read_text().splitlines() if line.startswith("hij")][0]
    assert hij.split("\t")[-2:] == ["su", "502"]          # its primary edge only
    assert read_export(str(dropped)).sentences[0].tokens[2].secedges == ()


def test_ten_thousand_nested_nodes_convert_both_ways():
    """A tree 10,000 phrasal nodes deep: no recursion limit in writing, reading, encoding or
    scoring it."""
    from maltpy.evaluation.discontinuous import evaluate_brackets
    from maltpy.formats.export import decode_discontinuous, encode_discontinuous
    n = 10000
    lines = ["#BOS 1", "a\t--\tn\t--\thd\t500", "b\t--\tn\t--\t--\t500"]
    lines += [f"#{500 + k}\t--\tNP\t--\thd\t{501 + k if k < n - 1 else 0}" for k in range(n)] + ["#EOS 1"]
    doc = parse_export("\n".join(lines) + "\n")
    text = format_discbracket(doc)
    back = parse_discbracket(text.strip(), "1")
    assert same_trees(back, doc.sentences[0])
    heads, labels = encode_discontinuous(doc.sentences[0])
    assert heads == [0, 1] and labels == ["ROOT", "NP#1"]
    assert decode_discontinuous(["a", "b"], ["n", "n"], heads, labels).nodes[0].tag == "NP"
    assert evaluate_brackets(doc, doc).all.exact == 1


MUTATIONS = [
    lambda line: line.replace("\t", "", 1),                  # a field fewer
    lambda line: line + "\tsec\t0",                          # a secondary edge to the root
    lambda line: line + "\tsec\t777",                        # ... to a node the sentence lacks
    lambda line: line + "\tsec",                             # half a pair
    lambda line: line.rsplit("\t", 1)[0] + "\t12",           # a parent below 500
    lambda line: line.rsplit("\t", 1)[0] + "\t0500",         # leading zeros (a number still)
    lambda line: line.rsplit("\t", 1)[0] + "\tx",            # not a number
    lambda line: line.rsplit("\t", 1)[0] + "\t500",          # perhaps its own parent: a cycle
    lambda line: line.rsplit("\t", 1)[0] + "\t 500",         # a space Python's int() takes
    lambda line: "",                                         # an empty line
    lambda line: line + "\r\r",                              # carriage returns
    lambda line: "#BOSx" if line.startswith("#BOS") else line,
    lambda line: line.replace("#BOS 1", "#BOS 1\u00a0a").replace("#EOS 1", "#EOS 1\u00a0b"),
    lambda line: line.replace("#EOS 1", "#EOS 2"),
    lambda line: "#" + "9" * 20 + line[line.index("\t"):] if "\t" in line else line,
    lambda line: "#500" + line[line.index("\t"):] if "\t" in line else line,   # a token made a node
    lambda line: "\t" + line,                                # an empty word
    lambda line: line + "\n" + line,                         # a line twice
    lambda line: "stray text\n" + line,
    lambda line: line.replace("--", "", 1),                  # an empty lemma
    lambda line: line.replace("\t", "\t\t\t"),                 # columns aligned with runs of tabs
    lambda line: line.replace("\t", "  \t", 1),               # ... padded with spaces
    lambda line: line.replace("\t", " ", 1),                  # a space for a tab
    lambda line: line + "\t%% a note",                        # a comment at the end of a line
]


@settings(max_examples=400, deadline=None)
@given(st.lists(discontinuous_trees(), min_size=1, max_size=3), st.sampled_from([3, 4]),
       st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, len(MUTATIONS) - 1)), max_size=3),
       st.sampled_from(["", "#FORMAT 3\n", "#FORMAT 4\n", "%% word lemma tag\n", "%% word tag\n"]))
def test_the_compiled_reader_reads_what_python_reads_or_leaves_it_to_python(trees, version, mutations, header):
    """Where the compiled reader of export words answers, parse_export reads the same words, tags,
    lemmas and morphology (and the same format); anything it does not answer, parse_export
    reads or names the error of, so both paths say the same of every input."""
    from maltpy.formats.exportread import export_words
    from maltpy.formats.export import header_version
    from maltpy.formats.scan import Scanner
    from maltpy.parsing.discontinuous import export_input
    for k, tree in enumerate(trees):
        tree.key = str(k + 1)
    lines = format_export(ExportFile(trees, version)).split("\n")
    for at, which in mutations:
        i = at % len(lines)
        lines[i] = MUTATIONS[which](lines[i])
    text = header + "\n".join(lines)
    head = None
    for line in header.split("\n"):
        head = header_version(line, head)
    fast = export_words(text[len(header):].encode("utf-8"), head or 0) if text[len(header):].startswith("#BOS") \
        else None
    try:
        doc = parse_export(text)
    except InputFormatError:
        event("an error")
        assert fast is None
        return
    event("read compiled" if fast is not None else "left to Python")
    conll = export_words(text[len(header):].encode("utf-8"), head or 0, True) if fast is not None else None
    if fast is not None:
        keys, words, tags, lemmas, morphs, found = fast
        assert (list(zip(words, tags)), keys, lemmas, morphs) == export_input(doc.sentences)
        assert found == doc.version
        # the same words as CoNLL-U lines (None only where a tag is empty: not a CoNLL field)
        if conll is None:
            assert any("" in t for t in tags)
        else:
            assert conll[0] == keys and conll[2] == found
            chunk = conll[1]
            data = chunk.word_spans(0)[0]
            blocks = data.decode("utf-8").split("\n\n")
            assert blocks[-1] == "" and len(blocks) == len(keys) + 1
            for block, w, t, lem, mor in zip(blocks, words, tags, lemmas, morphs):
                rows = [line.split("\t") for line in block.split("\n")]
                assert rows == [[str(i), *v, "_", "_", "_", "_", "_"]
                                for i, v in enumerate(zip(w, lem, t, mor), 1)]
            # the chunk, built as the lines were written, is the one the CoNLL-U scanner makes of them
            scanner = Scanner("conllu", "<lines>")
            scanned = [c for c in (scanner.feed(data), scanner.finish()) if c is not None and c.n_sentences]
            assert len(scanned) == 1
            assert (chunk.n_words, chunk.n_items, chunk.lengths()) == \
                (scanned[0].n_words, scanned[0].n_items, scanned[0].lengths())
            for k in range(10):
                assert all((a == b).all() for a, b in zip(chunk.word_spans(k)[1:], scanned[0].word_spans(k)[1:]))
            rows = chunk.n_words + chunk.n_sentences
            heads, labels = np.arange(rows, dtype=np.int32) % 3, np.arange(rows, dtype=np.int32) % 2
            assert chunk.render(heads, labels, [b"a", b"b"]) == scanned[0].render(heads, labels, [b"a", b"b"])


@pytest.mark.parametrize("n_nodes", [63, 64, 65, 200, 2048, 2049, 3000])
def test_the_compiled_reader_reads_sentences_of_many_nodes(n_nodes):
    """A chain of phrasal nodes over two tokens: the compiled reader grows its node arrays (past
    64), and past 2,048 nodes leaves the sentence to parse_export; both give the same words."""
    from maltpy.parsing.discontinuous import export_input, read_export_input
    import io
    chain = "".join(f"#{500 + i}\t--\tNP\t--\t--\t{0 if i == 0 else 500 + i - 1}\n" for i in range(n_nodes))
    text = (f"#BOS 1\nDe\tde\tlid\tLID()\tdet\t{500 + n_nodes - 1}\nman\tman\tn\tN()\thd\t500\t--\t{500 + n_nodes // 2}\n"
            + chain + "#EOS 1\n#BOS 2\nJa\tja\ttsw\tTSW()\t--\t0\n#EOS 2\n")
    doc = parse_export(text)
    assert read_export_input(io.BytesIO(text.encode("utf-8"))) == export_input(doc.sentences) + (doc.version,)


def test_a_sentence_of_ten_thousand_nodes_parses(tmp_path):
    """The issue's bad input that is valid: 10,000 phrasal nodes in one sentence parse into a tree
    (export in, export out)."""
    chain = "".join(f"#{500 + i}\t--\tNP\t--\t--\t{0 if i == 0 else 500 + i - 1}\n" for i in range(10000))
    big = tmp_path / "big.export"
    big.write_text("#BOS 1\nDe\tde\tlid\tLID()\tdet\t10499\nman\tman\tn\tN()\thd\t500\n" + chain + "#EOS 1\n"
                   + SMALL.split("\n", 1)[1], encoding="utf-8")
    model = tmp_path / "m.mpz"
    train = tmp_path / "train.export"
    train.write_text(SMALL, encoding="utf-8")
    run = lambda *a: subprocess.run([sys.executable, "-m", "maltpy", *a], capture_output=True, cwd=tmp_path)  # noqa: E731
    r = run("-c", str(model), "-m", "learn", "-i", str(train), "-a", "stacklazy")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out.export"
    r = run("-c", str(model), "-i", str(big), "-o", str(out))
    assert r.returncode == 0, r.stderr
    trees = parse_export(out.read_text(encoding="utf-8")).sentences
    assert [t.words for t in trees] == [["De", "man"], ["Gelezen", "heeft", "hij", "boeken", "."]]


#: what a discbracket line may be mutated with: brackets, the leaf's =, comment and node marks,
#: escapes, and whitespace that Python splits at and the compiled reader leaves to Python
_MUTATIONS = ["(", ")", " ", "=", "#", "%%", "-LRB-", "-RRB-", "\u00a0", "\x0c", "\t", "\r", "7", "\u00b2", "\n"]


@st.composite
def discbracket_texts(draw):
    """Discbracket text of random discontinuous trees, with blank lines, a byte-order mark, and
    random damage (characters cut or put in) in some of them."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        lines.append(to_discbracket(draw(discontinuous_trees())))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", " ", "\t\r"])))
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()) and at < len(text):
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + draw(st.sampled_from(_MUTATIONS)) + text[at:]
    return ("\ufeff" if draw(st.booleans()) else "") + text


@settings(max_examples=400, deadline=None)
@given(discbracket_texts())
def test_compiled_discbracket_words_are_pythons_or_left_to_python(text):
    """The compiled reader of discbracket words (maltpy.formats.discbracketio) gives, for every
    text it reads, the words, tags and keys that read_discbracket_text gives; and it leaves to
    Python every text that Python refuses, so that the error names its line."""
    from maltpy.formats.discbracketio import discbracket_export
    from maltpy.formats.export import read_discbracket_text
    raw = text.encode("utf-8")
    export = discbracket_export(raw, 3 if text.startswith("\ufeff") else 0)
    try:
        doc = read_discbracket_text(text, "<test>")
    except InputFormatError:
        assert export is None
        return
    event("compiled" if export is not None else "left to Python")
    if export is not None:
        again = parse_export(export.decode("utf-8"), "<test>").sentences
        assert [(s.key, [(t.word, t.tag) for t in s.tokens]) for s in again] == \
            [(s.key, [(t.word, t.tag) for t in s.tokens]) for s in doc.sentences]


def test_compiled_discbracket_words_of_a_plain_file():
    """A plain file is read compiled (not left to Python), escapes and blank lines included."""
    from maltpy.formats.discbracketio import discbracket_export
    text = "(ROOT (S (N 0=-LRB-a) (V 2=b=c)) (P 1=x-RRB-))\n\n(ROOT (N 0=é))\n"
    export = discbracket_export(text.encode("utf-8"), 0).decode("utf-8")
    assert export == ("#BOS 1\n(a\t--\tN\t--\t--\t0\nx)\t--\tP\t--\t--\t0\nb=c\t--\tV\t--\t--\t0\n#EOS 1\n"
                      "#BOS 3\né\t--\tN\t--\t--\t0\n#EOS 3\n")


def damaged(text: str, fmt: str, damage: int, draw) -> str:
    """``text`` (export or discbracket) with one line, drawn from anywhere in the file, damaged:
    0 none, 1 a parent that is no node, 2 a missing #EOS, 3 aligned columns that only Python's
    reader takes (export) or a broken bracket (discbracket), 4 a blank line added after it."""
    lines = text.split("\n")
    export = fmt == "export"
    fits = {0: lambda line: False, 1: lambda line: export and line[:1] not in ("#", "%", ""),
            2: lambda line: line.startswith("#EOS"), 3: lambda line: bool(line) and line[:1] not in ("#", "%"),
            4: lambda line: True}[damage]
    where = [k for k, line in enumerate(lines[:-1]) if fits(line)]
    if where:
        at = draw(st.sampled_from(where))
        if damage == 1:
            lines[at] = lines[at].rsplit("\t", 1)[0] + "\t499"
        elif damage == 2:
            del lines[at]
        elif damage == 3:
            lines[at] = lines[at].replace("\t", "\t\t", 1) if export else lines[at].replace(")", "", 1)
        else:
            lines.insert(at + 1, "")
    return "\n".join(lines)


@settings(max_examples=150, deadline=None)
@given(st.lists(discontinuous_trees(), min_size=1, max_size=6), st.sampled_from([3, 4]),
       st.sampled_from(["export", "discbracket"]), st.integers(1, 300), st.integers(0, 4), st.booleans(), st.data())
def test_trees_read_in_pieces_are_the_trees_read_whole(trees, version, fmt, piece_size, damage, eos_header, data):
    """iter_tree_pieces (-m convert's reader) gives the trees of the file read whole, written back
    piece by piece to the same text, or the same error naming the same line; ``damage``: as
    :func:`damaged` breaks a line anywhere in the file."""
    import io
    from maltpy.errors import InputFormatError
    from maltpy.formats.export import iter_tree_pieces, read_discbracket_text
    for k, tree in enumerate(trees):
        tree.key = str(k + 1)
    # a header line that starts as a sentence's end does: the header's, before the first #BOS
    doc = ExportFile(trees, version, [f"#FORMAT {version}"] + (["#EOS 0 in the header"] * 3 if eos_header else []))
    text = format_export(doc) if fmt == "export" else format_discbracket(doc)
    text = damaged(text, fmt, damage, data.draw)
    write = format_export if fmt == "export" else format_discbracket

    def read(size):
        source = io.BytesIO(text.encode("utf-8"))
        source.name = "in"
        try:
            return "".join(write(piece) for piece in iter_tree_pieces(source, fmt, size) if piece.sentences)
        except InputFormatError as e:
            return str(e)
    whole = read(1 << 30)
    event(f"damage {damage}: {'an error' if whole.startswith('in:') else 'trees'}")
    assert read(piece_size) == whole
    try:
        expected = write(parse_export(text, "in") if fmt == "export" else read_discbracket_text(text, "in"))
    except InputFormatError as e:
        expected = str(e)
    assert whole == expected


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.lists(st.integers(0, n), min_size=n, max_size=n)))
def test_a_cycle_among_the_nodes_is_named_as_a_walk_up_from_each_node_finds_it(parents):
    """The tree check (linear) names the node a walk up from each node in turn first finds on a
    cycle, as the plain walk from every node (quadratic in a deep chain) does; or none."""
    from maltpy.formats.export import _check_tree
    ids = [500 + k for k in range(len(parents))]
    number = [0] + ids                       # parent index 0: the root, k: node #(499 + k)
    nodes = [ExportLine(f"#{i}", "--", "NP", "--", "--", number[p]) for i, p in zip(ids, parents)]
    sentence = ExportSentence("1", [ExportLine("a", "--", "n", "--", "--", ids[0])], nodes)
    of = {i: number[p] for i, p in zip(ids, parents)}
    expected = None
    for i in ids:                            # the plain walk
        seen, p = set(), i
        while p and expected is None:
            if p in seen:
                expected = i
            seen.add(p)
            p = of[p]
        if expected is not None:
            break
    if expected is None:
        _check_tree(sentence, "x", 1)
    else:
        with pytest.raises(InputFormatError, match=f"node #{expected} is its own ancestor"):
            _check_tree(sentence, "x", 1)
