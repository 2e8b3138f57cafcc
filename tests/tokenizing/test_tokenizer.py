"""The tokenizer (maltpy.tokenizing): training data from a treebank's text, segmentation, multiword
tokens, the CoNLL-U it writes (the text comes back exactly), raw text on the command line, and
eval.py's alignment of differing tokenizations (maltpy.evaluation.aligned)."""
import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES, shared_file
from maltpy.components import Pipeline, TokenizerComponent
from maltpy.errors import MaltpyError, ModelFileError
from maltpy.evaluation.aligned import aligned_scores
from maltpy.evaluation.official import official_scores, official_tag_scores
from maltpy.formats.conll import Sentence, parse_conll, read_conll
from maltpy.formats.text import iter_paragraphs
from maltpy.tokenizing.gold import raw_text, sentence_tokens, treebank_text
from maltpy.tokenizing.multiword import Multiword
from maltpy.tokenizing.tokenizer import Tokenizer, escape_spaces, unescape_spaces

TRAIN = os.path.join(EXAMPLES, "toy-text-train.conllu")
TEST = os.path.join(EXAMPLES, "toy-text-test.conllu")
TEST_TEXT = os.path.join(EXAMPLES, "toy-text-test.txt")


@pytest.fixture(scope="module")
def toy_tokenizer():
    return Tokenizer().fit(read_conll(TRAIN, "conllu"))


def _pipeline(tokenizer):
    return Pipeline([TokenizerComponent(tokenizer)])


# ---------------------------------------------------------------- what the treebank says
def _cut(gold):
    """The tokens and sentence ends the gold labels give (the labels' meaning, spelled out)."""
    tokens, start, sentence_ends = [], None, 0
    for i, ch in enumerate(gold.text):
        label = gold.labels[i]
        if label < 0:
            assert ch.isspace()
            continue
        start = i if start is None else start
        if label > 0:
            tokens.append(gold.text[start:i + 1])
            start = None
            sentence_ends += label == 2
    return tokens, sentence_ends


def test_the_treebank_text_is_labelled_at_its_token_and_sentence_ends():
    sentences = read_conll(TRAIN, "conllu")
    gold = treebank_text(sentences)
    tokens, ends = _cut(gold)
    assert tokens == [t.form for s in sentences for t in sentence_tokens(s)]
    assert ends == len(sentences)
    assert len(gold.pstart) - 1 == sum(any(l.startswith("# newpar") for _, l in s.extra) for s in sentences)
    # a multiword token is one token of the text, with its words
    assert any(t.words == ("did", "n't") and t.form == "didn't" for t in gold.tokens)


def test_text_is_rebuilt_where_a_sentence_has_none():
    rows = [["1", "Hello", "_", "_", "_", "_", "0", "root", "_", "SpaceAfter=No"],
            ["2", ",", "_", "_", "_", "_", "1", "punct", "_", "_"], ["3", "you", "_", "_", "_", "_", "1", "obj", "_", "_"]]
    gold = treebank_text([Sentence(rows, [], 1, "x", "conllu")])
    assert gold.text == "Hello, you\n\n"
    assert _cut(gold) == (["Hello", ",", "you"], 1)


def test_ewt_text_matches_its_tokens():
    sentences = read_conll(shared_file("ud", "en_ewt", "dev.conllu"), "conllu")
    gold = treebank_text(sentences)
    assert _cut(gold)[0] == [t.form for s in sentences for t in sentence_tokens(s)]
    # the study's raw text: paragraphs where the treebank has them
    assert raw_text(sentences).count("\n\n") == len(gold.pstart) - 2


# ---------------------------------------------------------------- multiword tokens
def test_multiword_tokens_by_dictionary_rules_and_case():
    pairs = [("don't", ("do", "n't"))] * 3 + [("can't", ("ca", "n't"))] * 2 + [("del", ("de", "el"))] * 2 + \
            [("del", ("del",))] + [("won't", ("wo", "n't"))] * 2 + [("dont", ("dont",))] * 3
    mw = Multiword.learn(pairs)
    assert mw.split("don't") == ("do", "n't")
    assert mw.split("Don't") == ("Do", "n't")          # cut from the token: case kept
    assert mw.split("DON'T") == ("DO", "N'T")
    assert mw.split("Del") == ("De", "el")             # not spelled by its words: capitalised
    assert mw.split("isn't") == ("is", "n't")          # unseen: the n't rule
    assert mw.split("dont") is None and mw.split("house") is None
    assert mw.split_many(["x", "don't", "isn't", "y"]) == {1: ("do", "n't"), 2: ("is", "n't")}
    again = Multiword.from_data(mw.to_data(), lambda ok, what: None)
    assert again.split("haven't") == ("have", "n't") and again.table == mw.table


def test_a_form_mostly_left_whole_is_not_split():
    mw = Multiword.learn([("its", ("it", "s"))] * 2 + [("its", ("its",))] * 5)
    assert mw.split("its") is None


# ---------------------------------------------------------------- segmenting
def test_it_learns_the_toy_language(toy_tokenizer):
    gold = read_conll(TEST, "conllu")
    with open(TEST_TEXT, encoding="utf-8") as f:
        system = _pipeline(toy_tokenizer).tokenize(f.read())
    scores = aligned_scores(gold, system)
    assert scores["Tokens"].f1 == 100.0 and scores["Words"].f1 == 100.0 and scores["Sentences"].f1 == 100.0
    assert any("-" in l.split("\t")[0] for s in system for _, l in s.extra)


def _ranges(sentence):
    """A sentence's multiword tokens: first word -> (last word, form, MISC)."""
    ranges = {}
    for _, line in sentence.extra:
        f = line.split("\t")
        if len(f) == 10 and "-" in f[0]:
            a, b = map(int, f[0].split("-"))
            ranges[a] = (b, f[1], f[9])
    return ranges


def _rebuilt_text(sentences):
    """The text that tokens with SpacesBefore, SpaceAfter=No and SpacesAfter stand for."""
    out = []
    for s in sentences:
        ranges = _ranges(s)
        k = 0
        while k < len(s.rows):
            if k + 1 in ranges:
                end, form, misc = ranges[k + 1]
                k = end
            else:
                form, misc = s.rows[k][1], s.rows[k][9]
                k += 1
            fields = dict(x.split("=", 1) for x in misc.split("|") if "=" in x)
            out.append(unescape_spaces(fields.get("SpacesBefore", "")) + form)
            if "SpacesAfter" in fields:
                out.append(unescape_spaces(fields["SpacesAfter"]))
            elif fields.get("SpaceAfter") != "No":
                out.append(" ")
    return "".join(out)


ALPHABET = st.sampled_from(list("ab Z.,'\n\t\r!?-") + ["  ", "\n\n", "didn't", "Anna", " . ", "\u00a0", "\u2028",
                                                        "😀", "e\u0301", "漢字", "\x00", "\x1f", "\\", "|", "="])


@settings(max_examples=150, deadline=None)
@given(st.lists(ALPHABET, min_size=1, max_size=60).map("".join))
def test_the_text_comes_back_exactly(toy_tokenizer, text):
    pipeline = _pipeline(toy_tokenizer)
    if not text.strip():
        with pytest.raises(MaltpyError, match="only whitespace"):
            pipeline.tokenize(text)
        return
    sentences = pipeline.tokenize(text)
    assert _rebuilt_text(sentences) == text
    for number, s in enumerate(sentences, 1):
        assert s.rows and [r[0] for r in s.rows] == [str(k) for k in range(1, len(s.rows) + 1)]
        assert all(r[1] and not any(c.isspace() for c in r[1]) for r in s.rows)
        comments = [l for _, l in s.extra if l.startswith("#")]
        assert f"# sent_id = {number}" in comments
        tokens = sentence_tokens(s)
        joined = "".join(t.form + (" " if t.space_after else "") for t in tokens).rstrip(" ")
        assert f"# text = {joined}" in comments


@settings(max_examples=40, deadline=None)
@given(st.lists(ALPHABET, min_size=1, max_size=40).map("".join), st.booleans())
def test_one_sentence_a_line(toy_tokenizer, text, lines):
    if not text.strip():
        return
    sentences = _pipeline(toy_tokenizer).tokenize(text, lines=lines)
    assert _rebuilt_text(sentences) == text
    if lines:   # no sentence spans a line break, and each line's tokens are one sentence
        n_lines = sum(1 for line in text.replace("\u2028", "\n").split("\n") if line.strip())
        assert all("\n" not in _rebuilt_text([s]).strip() for s in sentences)
        assert len(sentences) <= n_lines or "\r" in text or "\x1f" in text or "\u2028" in text


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_line_break_inside_a_paragraph_reads_as_a_space(toy_tokenizer, data):
    """Text of a sentence a line, or wrapped, cuts as the same text with spaces does (the treebank
    joins its sentences by spaces; a line break there read as an unknown character kept sentences
    together: EWT dev a sentence a line, Sentences F1 11.14, now 72.35; --presegmented 100)."""
    with open(TEST_TEXT, encoding="utf-8") as f:
        paragraph = f.read().split("\n\n")[data.draw(st.integers(0, 2))].strip("\n")
    gaps = [m.start() for m in re.finditer(" ", paragraph)]
    broken = data.draw(st.sets(st.sampled_from(gaps), max_size=len(gaps)))
    wrapped = "".join("\n" if i in broken else c for i, c in enumerate(paragraph))
    pipeline = _pipeline(toy_tokenizer)
    assert [s.forms for s in pipeline.tokenize(wrapped)] == [s.forms for s in pipeline.tokenize(paragraph)]


def _word_lines(sentences):
    """The text's line of each word's token (:func:`_rebuilt_text`'s walk through the text)."""
    out, text = [], ""
    for s in sentences:
        ranges = _ranges(s)
        lines, k = [], 0
        while k < len(s.rows):
            end, form, misc = ranges[k + 1] if k + 1 in ranges else (k + 1, s.rows[k][1], s.rows[k][9])
            fields = dict(x.split("=", 1) for x in misc.split("|") if "=" in x)
            text += unescape_spaces(fields.get("SpacesBefore", ""))
            lines += [text.count("\n") + 1] * (end - k)
            text += form + (unescape_spaces(fields["SpacesAfter"]) if "SpacesAfter" in fields else
                            "" if fields.get("SpaceAfter") == "No" else " ")
            k = end
        out.append(lines)
    return out


@settings(max_examples=100, deadline=None)
@given(st.lists(ALPHABET, min_size=1, max_size=80).map("".join), st.integers(1, 40), st.integers(1, 300),
       st.booleans())
def test_each_word_of_raw_text_is_named_by_its_texts_line(toy_tokenizer, text, block_chars, block, lines):
    """Text tokenized a block of paragraphs at a time and read as CoNLL-U in chunks: every
    word's line (for messages) is the line of the text its token starts on."""
    from maltpy.formats.scan import Scanner
    from maltpy.parsing.stream import read_chunks
    from maltpy.tokenizing.stream import TextAsConll
    if not text.strip():
        return
    expected = _word_lines(_pipeline(toy_tokenizer).tokenize(text, lines=lines))
    source = TextAsConll(io.BytesIO(text.encode("utf-8", "surrogatepass")), toy_tokenizer, lines, block_chars)
    got = []
    for chunk in read_chunks(source, Scanner("conllu", "<text>"), block):
        for k in range(chunk.n_sentences):
            got.append([chunk.word_line(k, i) for i in range(1, len(expected[len(got)]) + 1)])
    assert got == expected


def test_long_paragraphs_come_in_pieces_that_make_the_input():
    text = "x" * 950 + " yy zz\n\n" + "a b " * 100
    pieces = list(iter_paragraphs(io.BytesIO(text.encode()), block_size=64, max_paragraph=100))
    assert "".join(p for _, p, _ in pieces) == text
    assert all(len(p) <= 100 + 64 for _, p, _ in pieces)     # a piece: at most the limit and a block
    assert [b for _, _, b in pieces].count(True) == 2       # two paragraphs, the rest continue them
    second = [p for _, p, _ in pieces][[b for _, _, b in pieces].index(True, 1):]
    assert len(second) > 1 and all(p[-1] == " " for p in second)   # cut after whitespace where there is some


def test_escapes_round_trip():
    for gap in ["  ", "\n", "\t\r\n", "\u00a0\u3000", "\\ "]:
        assert unescape_spaces(escape_spaces(gap)) == gap
        assert not any(c.isspace() for c in escape_spaces(gap))


def test_bytes_round_trip_and_damage(toy_tokenizer):
    again = Tokenizer.from_bytes(toy_tokenizer.to_bytes())
    with open(TEST_TEXT, encoding="utf-8") as f:
        text = f.read()
    assert again.conllu([text]) == toy_tokenizer.conllu([text])
    data = bytearray(toy_tokenizer.to_bytes())
    with pytest.raises(ModelFileError):
        Tokenizer.from_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(MaltpyError, match="not been trained"):
        Tokenizer().conllu(["a b"])


def test_segmenting_is_linear_and_keeps_every_character(toy_tokenizer):
    """Any text: tokens are the non-whitespace runs cut further, none empty, in order."""
    rng = np.random.default_rng(5)
    chars = list("abc .,'\n") + ["漢", "😀"]
    text = "".join(rng.choice(chars, 5000))
    labels = toy_tokenizer.labels(text, [0, len(text)])
    assert ((labels == -1) == np.array([c.isspace() for c in text])).all()
    # before whitespace and at the end a token always ends
    for i in range(len(text) - 1):
        if not text[i].isspace() and text[i + 1].isspace():
            assert labels[i] >= 1
    last = max(i for i, c in enumerate(text) if not c.isspace())
    assert labels[last] == 2


# ---------------------------------------------------------------- eval.py's alignment
def _words(spec):
    """eval.py's own test notation: "abc a b c" is a multiword token abc of words a b c."""
    rows, extra = [], []
    for token in spec:
        parts = token.split(" ")
        if len(parts) == 1:
            rows.append([str(len(rows) + 1), parts[0], "_", "_", "_", "_", str(int(bool(rows))), "dep", "_", "_"])
            continue
        extra.append((len(rows), f"{len(rows) + 1}-{len(rows) + len(parts) - 1}\t{parts[0]}\t_\t_\t_\t_\t_\t_\t_\t_"))
        for part in parts[1:]:
            rows.append([str(len(rows) + 1), part, "_", "_", "_", "_", str(int(bool(rows))), "dep", "_", "_"])
    return [Sentence(rows, extra, 1, "mem", "conllu")]


@pytest.mark.parametrize("gold, system, correct", [
    (["a"], ["a"], 1), (["a", "b", "c"], ["a", "b", "c"], 3),
    (["abc a b c"], ["a", "b", "c"], 3), (["a", "bc b c", "d"], ["a", "b", "c", "d"], 4),
    (["abcd a b c d"], ["ab a b", "cd c d"], 4), (["abc a b c", "de d e"], ["a", "bcd b c d", "e"], 5),
    (["abcd"], ["a", "b", "c", "d"], 0), (["abc", "d"], ["a", "b", "c", "d"], 1),
    (["a", "bc", "d"], ["a", "b", "c", "d"], 2), (["a", "bc b c", "d"], ["a", "b", "cd"], 2),
    (["abc a BX c", "def d EX f"], ["ab a b", "cd c d", "ef e f"], 4), (["ab a b", "cd bc d"], ["a", "bc", "d"], 2),
    (["a", "bc b c", "d"], ["ab AX BX", "cd CX a"], 1)])
def test_words_are_aligned_as_eval_py_aligns_them(gold, system, correct):
    """The cases of eval.py's own unit tests, with the counts they expect."""
    assert aligned_scores(_words(gold), _words(system))["Words"].correct == correct


def test_texts_that_differ_are_an_error():
    with pytest.raises(MaltpyError, match="do not spell"):
        aligned_scores(_words(["a"]), _words(["b"]))


def test_with_the_same_words_the_aligned_figures_are_the_word_by_word_ones(model):
    from maltpy.parsing.parser import Parser
    gold = read_conll(os.path.join(EXAMPLES, "toy-test.conll"), "conllx")
    gold = [Sentence(s.rows, s.extra, s.first_line, s.source, "conllu") for s in gold]
    system = Parser.load(model).parse(gold)
    aligned = aligned_scores(gold, system)
    official = {**official_scores(gold, system), **official_tag_scores(gold, system)}
    for name, f in official.items():
        assert (aligned[name].correct, aligned[name].gold, aligned[name].system) == (f.correct, f.gold, f.system), name
    assert aligned["Tokens"].f1 == aligned["Words"].f1 == aligned["Sentences"].f1 == 100.0


# ---------------------------------------------------------------- the command line
def _run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, cwd=EXAMPLES, **kwargs)


@pytest.fixture(scope="module")
def text_model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("text") / "toy.mpz")
    r = _run("-c", path, "-m", "learn", "-i", TRAIN, "--tokenizer", "--tagger", "all", "-q")
    assert r.returncode == 0, r.stderr
    return path


def test_raw_text_in_ud_trees_out(text_model, tmp_path):
    out = tmp_path / "out.conllu"
    r = _run("-c", text_model, "-i", TEST_TEXT, "-o", str(out))       # .txt: raw text by its name
    assert r.returncode == 0, r.stderr
    r = _run("eval", TEST, str(out))
    assert r.returncode == 0, r.stderr
    las = float(re.search(r"LAS (\d+\.\d+)", r.stdout.decode()).group(1))
    assert las > 90
    with open(TEST_TEXT, "rb") as f:
        text = f.read()
    piped = _run("-c", text_model, "-if", "text", input=text)            # stdin to stdout
    assert piped.returncode == 0 and piped.stdout == out.read_bytes()
    for jobs in ("1", "2"):
        r = _run("-c", text_model, "-if", "text", "-j", jobs, input=text * 30)
        assert r.returncode == 0
        if jobs == "1":
            first = r.stdout
    assert r.stdout == first
    tokenized = _run("-c", text_model, "-m", "tokenize", input=text)
    assert tokenized.returncode == 0
    sentences = parse_conll(tokenized.stdout.decode(), "conllu")
    assert [s.forms for s in sentences] == [s.forms for s in read_conll(TEST, "conllu")]
    assert all(r[3] == "_" and r[6] == "_" for s in sentences for r in s.rows)
    scored = _run("eval", TEST, "-", input=tokenized.stdout)     # words without trees: eval.py's table
    assert scored.returncode == 0 and re.search(rb"Words +\| +100.00 \| +100.00 \| +100.00", scored.stdout)
    r = _run("info", text_model)
    assert b"tokenizer" in r.stdout and b"multiword" in r.stdout


def test_tag_reads_text_through_the_tokenizer_and_words_without_it(text_model, tmp_path):
    """-m tag of a model with a tokenizer: a .txt file (or -if text) is tokenized first; a CoNLL-U
    file is not (its tokenizer is left unread), and its words get the same tags."""
    from_text, from_words = tmp_path / "t.conllu", tmp_path / "w.conllu"
    r = _run("-c", text_model, "-m", "tag", "-i", TEST_TEXT, "-o", str(from_text))
    assert r.returncode == 0, r.stderr
    r = _run("-c", text_model, "-m", "tag", "-i", str(from_text), "-o", str(from_words), "--retag", "true")
    assert r.returncode == 0, r.stderr
    tagged = [[row[1:6] for row in s.rows] for s in read_conll(str(from_text), "conllu")]
    assert tagged and tagged == [[row[1:6] for row in s.rows] for s in read_conll(str(from_words), "conllu")]
    with open(TEST_TEXT, "rb") as f:
        piped = _run("-c", text_model, "-m", "tag", "-if", "text", input=f.read())
    assert piped.returncode == 0 and piped.stdout == from_text.read_bytes()


def test_words_are_tagged_and_parsed_without_reading_the_tokenizer(text_model, tmp_path, monkeypatch):
    """-m parse and -m tag of CoNLL-U words leave a model's tokenizer unread (its loading is made
    to fail here); raw text reads it."""
    from maltpy.cli.main import main

    def unread(*args, **kwargs):
        raise ModelFileError("the tokenizer was read")
    monkeypatch.setattr(TokenizerComponent, "from_bytes", unread)
    for mode in ("parse", "tag"):
        assert main(["-q", "-c", text_model, "-m", mode, "-i", TEST, "-o", str(tmp_path / f"{mode}.conllu")]) == 0
    assert main(["-q", "-c", text_model, "-m", "parse", "-i", TEST_TEXT, "-o", str(tmp_path / "text.conllu")]) == 1


def test_tag_and_tokenize_run_on_several_files_as_on_each(text_model, tmp_path):
    """-m tag and -m tokenize with -i 'glob' -o outdir/ (as -m parse): each output is the bytes the
    mode writes for its file alone, named as -m parse names it (.txt -> .conllu); one input and
    outdir/ writes into the directory. Until 2026-11-29 -m tag read the pattern as a file's name
    and wrote one input to a file named as the directory."""
    text = open(TEST_TEXT, encoding="utf-8").read().split("\n\n")
    (tmp_path / "in").mkdir()
    for k in range(2):
        (tmp_path / "in" / f"t{k}.txt").write_text("\n\n".join(text[k::2]), encoding="utf-8")
    words = _run("-c", text_model, "-m", "tokenize", "-i", str(tmp_path / "in" / "t0.txt"))
    assert words.returncode == 0, words.stderr
    (tmp_path / "in" / "w.conllu").write_bytes(words.stdout)
    for mode, pattern, names in (("tag", "*", ["t0.conllu", "t1.conllu", "w.conllu"]),
                                 ("tokenize", "*.txt", ["t0.conllu", "t1.conllu"])):
        out = tmp_path / f"{mode}-out"
        r = _run("-c", text_model, "-m", mode, "-i", str(tmp_path / "in" / pattern), "-o", str(out) + os.sep)
        assert r.returncode == 0, r.stderr
        assert sorted(os.listdir(out)) == names
        for name in names:
            source = tmp_path / "in" / (name if name == "w.conllu" else name.replace(".conllu", ".txt"))
            alone = _run("-c", text_model, "-m", mode, "-i", str(source))
            assert alone.returncode == 0 and alone.stdout == (out / name).read_bytes() != b""
    r = _run("-c", text_model, "-m", "tag", "-i", str(tmp_path / "in" / "w.conllu"), "-o", str(tmp_path / "one") + os.sep)
    assert r.returncode == 0 and os.listdir(tmp_path / "one") == ["w.conllu"]
    # --retag reaches every file (it was dropped with several files): tags given as X are replaced
    (tmp_path / "x").mkdir()
    for k in range(2):
        (tmp_path / "x" / f"x{k}.conllu").write_text("".join(
            "\t".join(c[:3] + ["X"] + c[4:]) if len(c) == 10 else line
            for line in open(TEST, encoding="utf-8") for c in [line.split("\t")]), encoding="utf-8")
    for mode in ("tag", "parse"):
        r = _run("-c", text_model, "-m", mode, "--retag", "true", "-i", str(tmp_path / "x" / "*.conllu"),
                 "-o", str(tmp_path / f"x-{mode}") + os.sep)
        assert r.returncode == 0, r.stderr
        for k in range(2):
            upos = [row[3] for s in read_conll(str(tmp_path / f"x-{mode}" / f"x{k}.conllu"), "conllu") for row in s.rows]
            assert upos and upos.count("X") < len(upos) / 2


def test_raw_text_on_standard_input_without_if_text_says_to_give_it(text_model):
    """Standard input has no name to say it is raw text: read as CoNLL-U, its first line is one
    error that tells the user what to give."""
    for mode in ("parse", "tag"):
        r = _run("-c", text_model, "-m", mode, input=b"The dog barks.\n")
        assert r.returncode == 1 and r.stdout == b""
        assert r.stderr.decode().strip().endswith("give -if text") and len(r.stderr.decode().strip().splitlines()) == 1


def test_one_sentence_a_line_from_the_command_line(text_model):
    """--presegmented true: each line is a sentence (and is not called a setting fixed when learning)."""
    lines = b"This house arrived yesterday\nThe dog\nsees the house.\n"
    r = _run("-c", text_model, "-if", "text", "--presegmented", "true", input=lines)
    assert r.returncode == 0, r.stderr
    assert b"fixed when learning" not in r.stderr
    sentences = parse_conll(r.stdout.decode(), "conllu")
    assert [s.forms for s in sentences] == [["This", "house", "arrived", "yesterday"], ["The", "dog"],
                                            ["sees", "the", "house", "."]]


def test_hostile_text_parses_or_fails_in_one_line(text_model, tmp_path):
    hostile = tmp_path / "hostile.txt"
    word = "x" * 10000
    text = (f"Anna saw {word}. 😀 e\u0301 \x00 NUL.\n\n\n   \n" + "Bert runs " * 3000 + "\n\n"
            + "漢字漢字。" * 50 + "\n")
    hostile.write_bytes(text.encode())
    out = tmp_path / "out.conllu"
    r = _run("-c", text_model, "-i", str(hostile), "-o", str(out))
    assert r.returncode == 0, r.stderr
    parsed = read_conll(str(out), "conllu")
    assert _rebuilt_text(parsed) == text
    assert any(row[1].startswith(word) for s in parsed for row in s.rows)
    assert all(sum(row[6] == "0" for row in s.rows) == 1 for s in parsed)
    for data, message in ((b"Anna runs.\n\xff\xfe oops\n", b"invalid UTF-8 at byte 11"), (b" \n\t\n\n  ", b"only whitespace"),
                          (b"", b"only whitespace")):
        bad = tmp_path / "bad.txt"
        bad.write_bytes(data)
        target = tmp_path / "none.conllu"
        r = _run("-c", text_model, "-i", str(bad), "-o", str(target))
        assert r.returncode == 1 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1
        assert not target.exists()
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Anna saw the caf\u00e9.\n".encode("latin-1"))
    r = _run("-c", text_model, "-i", str(latin), "-ic", "ISO-8859-1", "-oc", "UTF-8")
    assert r.returncode == 0 and "caf\u00e9".encode() in r.stdout


def test_text_mistakes_are_one_line(text_model, model, tmp_path):
    r = _run("-c", model, "-if", "text", input=b"Anna runs.\n")
    assert r.returncode == 1 and b"no tokenizer" in r.stderr
    r = _run("-c", model, "-m", "tokenize", input=b"Anna runs.\n")
    assert r.returncode == 1 and b"no tokenizer" in r.stderr
    r = _run("-c", str(tmp_path / "x"), "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-train.conll"), "--tokenizer")
    assert r.returncode == 1 and b"CoNLL-U" in r.stderr and not (tmp_path / "x.mpz").exists()
    r = _run("-c", text_model, "-m", "tokenize", "-of", "conllx", input=b"Anna runs.\n")
    assert r.returncode == 1 and b"writes CoNLL-U" in r.stderr
    r = _run("-c", text_model, "-m", "tokenize", "-if", "conllu", "-i", TEST)
    assert r.returncode == 1 and b"reads raw text" in r.stderr
    tagger = str(tmp_path / "tagger.mpz")            # a tagger and a parser, no tokenizer
    assert _run("-c", tagger, "-m", "learn", "-i", TRAIN, "--tagger", "upos", "-q").returncode == 0
    r = _run("-c", tagger, "-m", "tokenize", input=b"Anna runs.\n")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    assert b"has no tokenizer (it has tagger, parser): learn one with -m learn --tokenizer" in r.stderr
    # files that are not CoNLL, to models that read CoNLL: what to give instead, on one line, no output
    export = tmp_path / "t.export"
    export.write_text("#BOS 1\nAnna\tn\t--\t--\t500\nruns\tww\t--\thd\t500\n#500\tSMAIN\t--\t--\t0\n#EOS 1\n")
    words = tmp_path / "words.txt"
    words.write_text("Anna runs .\n")
    for m in (model, tagger):
        for mode in ("parse", "tag") if m == tagger else ("parse",):
            for source, message in ((export, b"discontinuous"), (words, b"give -if horizontal")):
                target = tmp_path / "none.conllu"
                r = _run("-c", m, "-m", mode, "-i", str(source), "-o", str(target))
                assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
                assert str(source).encode() in r.stderr and message in r.stderr and not target.exists()
            r = _run("-c", m, "-m", mode, "-i", str(words), "-if", "horizontal")
            assert r.returncode == 0 and r.stdout.count(b"\tAnna\t") == 1


def test_ewt_tokenizer_is_as_good_as_the_papers_say(tmp_path):
    """On real data: EWT's tokenizer learned from part of its training file cuts dev's raw
    text into tokens and words at UDPipe 1's level (Words 98.9 on test; docs/raw-text.md)."""
    train = read_conll(shared_file("ud", "en_ewt", "train.conllu"), "conllu")[:6000]
    dev = read_conll(shared_file("ud", "en_ewt", "dev.conllu"), "conllu")[:600]
    tokenizer = Tokenizer(epochs=5).fit(train)
    system = _pipeline(tokenizer).tokenize(raw_text(dev))
    scores = aligned_scores(dev, system)
    assert scores["Tokens"].f1 > 98.5 and scores["Words"].f1 > 98.0 and scores["Sentences"].f1 > 70
