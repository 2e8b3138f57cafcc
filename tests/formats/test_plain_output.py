"""Words out as UDPipe writes them (``-of horizontal``, ``-of vertical``), and horizontal input
reading UDPipe's no-break space inside a word as a space of the word."""
import os

import pytest
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES
from maltpy.cli.main import main
from maltpy.formats.conll import read_conll
from maltpy.formats.plain import horizontal_words, iter_plain, write_plain

TOY_TEST = os.path.join(EXAMPLES, "toy-test.conll")

# words as a treebank may hold them: any character but tab, newline and carriage return
# (CoNLL's separators), sometimes with a space inside
WORD = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r\u00a0"),
               min_size=1, max_size=6).filter(lambda w: w.strip(" ") == w and w.strip(" ") != "")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(WORD, min_size=1, max_size=8), min_size=1, max_size=6),
       st.sampled_from(["horizontal", "vertical"]))
def test_words_written_plain_read_back_the_same(tmp_path_factory, sentences, fmt):
    """CoNLL-U sentences written as horizontal or vertical words and read back give the same
    words, a word with a space inside included (horizontal: written with a no-break space, read
    as a space, as UDPipe writes and reads it)."""
    if fmt == "vertical":   # a vertical line is one word, spaces around it dropped
        sentences = [[w for w in s if w.strip(" ")] or ["x"] for s in sentences]
    folder = tmp_path_factory.mktemp("plain")
    conll = folder / "in.conllu"
    conll.write_text("".join("# sent_id = %d\n" % k + "".join(f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                                             for i, w in enumerate(s, 1)) + "\n"
                             for k, s in enumerate(sentences, 1)), encoding="utf-8")
    out = folder / "out.txt"
    write_plain(str(conll), str(out), fmt)
    assert [[r[1] for r in s.rows] for s in iter_plain(str(out), fmt)] == sentences


def test_a_horizontal_line_splits_at_spaces_and_tabs_as_udpipe_reads_it():
    """Spaces and tabs separate words; a no-break space is a space inside a word; other white
    space is part of a word (UDPipe's horizontal input)."""
    assert horizontal_words(" a  b\tc New\u00a0York \u3000 d\x0be ") == ["a", "b", "c", "New York", "\u3000", "d\x0be"]
    assert horizontal_words(" \t ") == []


def test_multiword_tokens_and_empty_nodes_are_not_words(tmp_path):
    """UDPipe writes the syntactic words: not a multiword token's surface form, not an empty node."""
    conll = tmp_path / "in.conllu"
    conll.write_text("# text = zum Haus\n1-2\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n1\tzu\t_\t_\t_\t_\t_\t_\t_\t_\n"
                     "2\tdem\t_\t_\t_\t_\t_\t_\t_\t_\n2.1\tgone\t_\t_\t_\t_\t_\t_\t_\t_\n"
                     "3\tHaus\t_\t_\t_\t_\t_\t_\t_\t_\n\n", encoding="utf-8")
    write_plain(str(conll), str(tmp_path / "h.txt"), "horizontal")
    write_plain(str(conll), str(tmp_path / "v.txt"), "vertical")
    assert (tmp_path / "h.txt").read_text(encoding="utf-8") == "zu dem Haus\n"
    assert (tmp_path / "v.txt").read_text(encoding="utf-8") == "zu\ndem\nHaus\n\n"


def test_a_last_sentence_without_its_blank_line_is_written_too(tmp_path):
    conll = tmp_path / "in.conllu"
    conll.write_text("1\ta b\t_\t_\t_\t_\t_\t_\t_\t_\n\n# c\n1\tz\t_\t_\t_\t_\t_\t_\t_\t_\n"
                     "2\ty\t_\t_\t_\t_\t_\t_\t_\t_", encoding="utf-8")
    write_plain(str(conll), str(tmp_path / "h.txt"), "horizontal")
    assert (tmp_path / "h.txt").read_text(encoding="utf-8") == "a\u00a0b\nz y\n"


@pytest.fixture(scope="module")
def tagger_and_parser(tmp_path_factory):
    model = str(tmp_path_factory.mktemp("plain_out") / "m.mpz")
    assert main(["-q", "-c", model, "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-train.conll"),
                 "--tagger", "all"]) == 0
    return model


@pytest.mark.parametrize("mode", ["parse", "tag"])
@pytest.mark.parametrize("fmt", ["horizontal", "vertical"])
def test_parse_and_tag_write_the_words_of_what_they_write(tagger_and_parser, tmp_path, mode, fmt):
    """-of horizontal (vertical) writes the words of the CoNLL that -m parse (-m tag) writes, and
    reads back as the same words; several files are written as .txt."""
    conll, plain = tmp_path / "out.conll", tmp_path / "out.txt"
    assert main(["-q", "-c", tagger_and_parser, "-m", mode, "-i", TOY_TEST, "-o", str(conll)]) == 0
    assert main(["-q", "-c", tagger_and_parser, "-m", mode, "-i", TOY_TEST, "-o", str(plain), "-of", fmt]) == 0
    words = [[r[1] for r in s.rows] for s in read_conll(str(conll))]
    assert [[r[1] for r in s.rows] for s in iter_plain(str(plain), fmt)] == words
    assert main(["-q", "-c", tagger_and_parser, "-m", mode, "-i", os.path.join(EXAMPLES, "toy-*.conll"),
                 "-o", str(tmp_path / "many") + "/", "-of", fmt]) == 0
    assert sorted(os.listdir(tmp_path / "many")) == ["toy-test.txt", "toy-train.txt"]
    assert (tmp_path / "many" / "toy-test.txt").read_bytes() == plain.read_bytes()


def test_convert_writes_and_reads_words(tmp_path):
    """-m convert: a treebank's words as horizontal text, and horizontal text as CoNLL-U."""
    plain, back = tmp_path / "words.txt", tmp_path / "back.conllu"
    assert main(["-q", "-m", "convert", "-i", TOY_TEST, "-o", str(plain), "-of", "horizontal"]) == 0
    assert main(["-q", "-m", "convert", "-i", str(plain), "-if", "horizontal", "-o", str(back), "-of", "conllu"]) == 0
    assert [[r[1] for r in s.rows] for s in read_conll(str(back))] == \
        [[r[1] for r in s.rows] for s in read_conll(TOY_TEST)]
