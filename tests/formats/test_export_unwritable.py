"""Export files have no escapes: a word that would not read back (a space at an end, ``%%``, a
``#500`` that reads as a phrasal node, ``#EOS``) is refused when export is written, in one line
naming where it comes from, instead of a file that maltpy itself then refuses or misreads."""
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError
from maltpy.formats.export import ExportFile, ExportLine, ExportSentence, format_export, parse_export, unwritable

from conftest import EXAMPLES

PIECES = ["a", " ", "%", "#", "5", "0", "1", "EOS", "BOS", "-", "é"]
FIELD = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join)


@pytest.mark.parametrize("word, lemma, version, refused", [
    ("New York", "--", 4, False), ("a%b", "--", 4, False), ("#", "--", 4, False), ("#5", "--", 4, False),
    ("#499", "--", 4, False), ("#500", "500", 4, False), ("#metoo", "--", 4, False),
    (" eeft", "--", 4, True), ("eeft ", "--", 4, True), ("a%%b", "--", 4, True), ("#500", "--", 4, True),
    ("#2024", "x", 3, True), ("#EOS", "x", 4, True), ("#EOS 7", "x", 4, True),
])
def test_what_an_export_file_cannot_hold(word, lemma, version, refused):
    assert (unwritable(word, version, True, lemma) is not None) == refused


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(FIELD, FIELD, FIELD), min_size=1, max_size=4), st.sampled_from([3, 4]))
def test_export_written_reads_back_or_is_refused(fields, version):
    """Whatever the words, lemmas and tags: format_export refuses them in one line, or what it
    writes reads back with the same words, lemmas and tags."""
    tokens = [ExportLine(w, lemma if version == 4 else "--", tag, "--", "--", 0) for w, lemma, tag in fields]
    doc = ExportFile([ExportSentence("1", tokens)], version)
    try:
        text = format_export(doc, "in.conllu")
    except MaltpyError as e:
        assert str(e).startswith("in.conllu: sentence 1, word ") and "\n" not in str(e)
        return
    back = parse_export(text, "<t>").sentences[0].tokens
    assert [(t.word, t.lemma, t.tag) for t in back] == [(t.word, t.lemma, t.tag) for t in tokens]


@pytest.mark.parametrize("word", [" eeft", "a%%b", "#500"])
def test_parsing_to_export_refuses_the_word_and_writes_nothing(tmp_path, word):
    """CoNLL words parsed by a discontinuous parser: export out is refused naming the file and
    sentence; discbracket out takes the word (its spaces as _)."""
    model = tmp_path / "disc.mpz"
    train = tmp_path / "train.export"
    train.write_text("#BOS 1\nDe\t--\tlid\t--\tdet\t500\nkat\t--\tn\t--\thd\t500\nslaapt\t--\tww\t--\thd\t0\n"
                     "#500\t--\tnp\t--\tsu\t0\n#EOS 1\n", encoding="utf-8")
    run = lambda *args: subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True,  # noqa: E731
                                       text=True, cwd=EXAMPLES)
    assert run("-c", str(model), "-m", "learn", "-i", str(train), "-a", "covnonproj", "-q").returncode == 0
    words = tmp_path / "words.conllu"
    words.write_text(f"1\t{word}\t_\tn\t_\t_\t_\t_\t_\t_\n2\tslaapt\t_\tww\t_\t_\t_\t_\t_\t_\n\n", encoding="utf-8")
    out = tmp_path / "out.export"
    r = run("-c", str(model), "-m", "parse", "-i", str(words), "-if", "conllu", "-of", "export", "-o", str(out))
    assert r.returncode == 1 and not out.exists()
    assert r.stderr.strip().splitlines()[-1].startswith(f"maltpy: error: {words}: sentence 1, word 1: {word!r}")
    r = run("-c", str(model), "-m", "parse", "-i", str(words), "-if", "conllu", "-of", "discbracket", "-o", "-")
    assert r.returncode == 0 and f"0={word.replace(' ', '_')})" in r.stdout
