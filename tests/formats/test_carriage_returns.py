"""A carriage return inside a line (not the CR of a CRLF line end) is refused by every reader of
lines, with the file and line: a field or word holding one could not be written as CoNLL, and
readers of universal line ends (Python's open(), UD's validate.py) would cut its line in two."""
import io

import pytest

from maltpy.cli.main import main
from maltpy.errors import InputFormatError
from maltpy.formats.conll import read_conll
from maltpy.formats.export import read_export
from maltpy.formats.plain import iter_plain

WORD = "\t_" * 8


@pytest.mark.parametrize("fmt, text", [
    ("conllx", f"1\ta{WORD}\n2\tb\rc{WORD}\n\n"),
    ("conllu", f"1\ta{WORD}\n# text = b\rc\n2\tb{WORD}\n\n"),
    ("conllu", f"1\ta{WORD}\n2\tb{WORD[:-1]}\r_\n\n"),
    ("horizontal", "a b\nc\rd e\n"),
    ("vertical", "a\r\nc\rd\n\n"),
])
def test_words_readers_name_the_line(fmt, text):
    with pytest.raises(InputFormatError, match=r"in\.txt:2: a carriage return inside the line"):
        if fmt in ("horizontal", "vertical"):
            list(iter_plain(_named(text), fmt))
        else:
            read_conll(_named(text), fmt)


def test_a_crlf_line_end_is_still_a_line_end():
    sentences = read_conll(io.BytesIO(f"1\ta{WORD}\r\n2\tb{WORD}\r\n\r\n".encode()), "conllx")
    assert [s.forms for s in sentences] == [["a", "b"]]
    assert [s.forms for s in iter_plain(io.BytesIO(b"a b\r\nc\r\n"), "horizontal")] == [["a", "b"], ["c"]]


def test_export_reader_names_the_line():
    text = "#BOS 1\nab\t--\tn\t--\thd\t500\nc\rd\t--\tn\t--\t--\t0\n#500\t--\tNP\t--\t--\t0\n#EOS 1\n"
    with pytest.raises(InputFormatError, match=r":3: a carriage return inside the line"):
        read_export(io.BytesIO(text.encode()))


@pytest.mark.parametrize("name, text", [
    ("in.conll", f"1\ta{WORD}\n2\tb\rc{WORD}\n\n"),
    ("in.conll", f"1\ta{WORD}\n# b\rc\n2\tb{WORD}\n\n"),
    ("in.export", "#BOS 1\nab\t--\tn\t--\thd\t500\nc\rd\t--\tn\t--\t--\t0\n#500\t--\tNP\t--\t--\t0\n#EOS 1\n"),
])
def test_the_compiled_paths_refuse_it_and_write_nothing(model, tmp_path, capsys, name, text):
    """-m parse reads CoNLL with the compiled scanner, -m convert export files with the compiled
    export reader: both give the Python reader's one-line error and leave no output."""
    src = tmp_path / name
    src.write_bytes(text.encode())
    out = tmp_path / "out.conllu"
    args = ["-c", model, "-m", "parse"] if name.endswith(".conll") else ["-m", "convert", "-of", "conllu"]
    assert main(args + ["-i", str(src), "-o", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    line = 3 if name.endswith(".export") else 2
    assert f"{src}:{line}: a carriage return inside the line" in err
    assert len(err.splitlines()) == 1
    assert not out.exists()


class _named(io.BytesIO):
    """Bytes that a reader names in.txt."""

    def __init__(self, text):
        super().__init__(text.encode())
        self.name = "in.txt"


def test_what_maltpy_writes_holds_none():
    """A sentence made in Python with a carriage return in a field is refused when written, as
    one with a tab or line feed is, since no reader would take it back."""
    from maltpy.errors import MaltpyError
    from maltpy.formats.conll import Sentence, format_sentences
    sentence = Sentence([["1", "a\rb"] + ["_"] * 8], format="conllu")
    with pytest.raises(MaltpyError, match="column 2"):
        format_sentences([sentence])
