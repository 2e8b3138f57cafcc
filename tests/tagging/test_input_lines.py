"""Messages about words of horizontal or vertical input, and from a pipeline's later steps, name
the lines of the file the user gave (they used to name lines of the CoNLL-U made of it, or of a
chunk passed from step to step)."""
import os

import pytest
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES
from maltpy.cli.main import main
from maltpy.formats.plain import PlainAsConll
from maltpy.formats.scan import Scanner
from maltpy.parsing.stream import read_chunks


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=12), st.sampled_from(["horizontal", "vertical"]),
       st.integers(1, 200), st.lists(st.integers(0, 2), min_size=12, max_size=12))
def test_each_word_of_plain_input_is_named_by_its_files_line(tmp_path_factory, lengths, fmt, block, gaps):
    """Sentences of random lengths (0: a blank line), with blank lines between them, read as
    CoNLL-U in chunks of ``block`` bytes: every word's line is its line in the file."""
    lines, expected = [], []
    for k, n in enumerate(lengths):
        lines += [""] * gaps[k]
        if not n:
            continue
        words = [f"w{k}x{i}" for i in range(n)]
        if fmt == "horizontal":
            expected.append([len(lines) + 1] * n)
            lines.append(" ".join(words))
        else:
            expected.append(list(range(len(lines) + 1, len(lines) + n + 1)))
            lines += words + [""]
    if not expected:
        return
    path = tmp_path_factory.mktemp("plain") / "words.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = []
    for chunk in read_chunks(PlainAsConll(str(path), fmt), Scanner("conllu", str(path)), block):
        for k in range(chunk.n_sentences):
            got.append([chunk.word_line(k, i) for i in range(1, len(expected[len(got)]) + 1)])
    assert got == expected


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """A tagger and a covnonproj beam parser (which refuses sentences of more than 4,000 words)."""
    model = str(tmp_path_factory.mktemp("pipeline") / "m.mpz")
    assert main(["-q", "-c", model, "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-train.conll"),
                 "--tagger", "upos,xpos", "-a", "covnonproj", "-l", "perceptron", "-b", "2", "-lo", "-i 1"]) == 0
    return model


@pytest.mark.parametrize("fmt", ["conllx", "horizontal", "vertical"])
def test_the_parsers_refusal_behind_a_tagger_names_the_files_line(pipeline, tmp_path, capsys, fmt):
    """A sentence too long for the parser, refused by its step behind the tagger: the message
    names the line where the sentence starts in the file."""
    sentences = [["Dogs", "bark", "."], ["A", "cat", "sleeps", "."], ["x"] * 4001, ["Birds", "sing"]]
    lines, start = [], None
    for k, words in enumerate(sentences):
        if k == 2:
            start = len(lines) + 1
        if fmt == "horizontal":
            lines.append(" ".join(words))
        elif fmt == "vertical":
            lines += words + [""]
        else:
            lines += [f"{i}\t{w}" + "\t_" * 8 for i, w in enumerate(words, 1)] + [""]
    src = tmp_path / f"in.{fmt}"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["-q", "-c", pipeline, "-m", "parse", "-i", str(src), "-if", fmt, "-o", str(tmp_path / "out")]) == 1
    assert f"{src}:{start}: a sentence has 4,001 words" in capsys.readouterr().err


def test_the_parsers_refusal_of_raw_text_names_the_texts_line(tmp_path, capsys):
    """Raw text through a tokenizer: a sentence too long for the parser is named by the line of
    the text where it starts (it used to be a line of the CoNLL-U made of the text)."""
    model = str(tmp_path / "m.mpz")
    assert main(["-q", "-c", model, "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-text-train.conllu"),
                 "--tokenizer", "--tagger", "upos", "-a", "covnonproj", "-l", "perceptron", "-b", "2",
                 "-lo", "-i 1"]) == 0
    src = tmp_path / "story.txt"
    src.write_text("Dogs bark.\n\nA cat\nsleeps.\n\n\n" + " ".join(["x"] * 4500) + "\n\nBirds sing.\n", encoding="utf-8")
    assert main(["-q", "-c", model, "-m", "parse", "-i", str(src), "-o", str(tmp_path / "out.conllu")]) == 1
    assert f"{src}:7: a sentence has 4,500 words" in capsys.readouterr().err
    assert not (tmp_path / "out.conllu").exists()
