"""Reading, writing and validating CoNLL-X and CoNLL-U."""
import glob
import os

import pytest

from maltpy.errors import InputFormatError
from maltpy.formats.conll import format_sentences, parse_conll, read_conll, to_conllx, write_conll
from conftest import DATA, EXAMPLES

CONLLU = """# sent_id = 1
# text = Don't go.
1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_
2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_
3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_
3.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t3:conj\t_
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\tSpaceAfter=No

"""


def test_conllu_round_trip_keeps_other_lines():
    s = parse_conll(CONLLU, "conllu", need_heads=True)
    assert len(s) == 1 and len(s[0]) == 4
    assert format_sentences(s) == CONLLU


@pytest.mark.parametrize("name", ["toy-test.conll", "toy-text-test.conllu"])
def test_a_sentence_prints_as_its_conll_and_names_its_columns(name):
    """str(sentence) is the sentence as a CoNLL file holds it (comments and multiword tokens in
    place); lemmas, upos, xpos and feats are its columns, None for _."""
    path = os.path.join(EXAMPLES, name)
    sentences = read_conll(path)
    assert "".join(str(s) for s in sentences) == format_sentences(sentences)
    with open(path, encoding="utf-8") as f:
        assert "".join(str(s) for s in sentences).strip("\n") == f.read().strip("\n")
    for s in sentences:
        for k, name_index in ((2, s.lemmas), (3, s.upos), (4, s.xpos), (5, s.feats)):
            assert name_index == [None if r[k] == "_" else r[k] for r in s.rows]
    assert any(v is not None for s in sentences for v in s.upos)


def test_only_head_and_deprel_are_rewritten():
    s = parse_conll(CONLLU, "conllu")[0]
    out = s.with_tree([2, 0, 2, 2], ["x", "root", "y", "z"])
    lines = out.to_lines()
    assert lines[:3] == CONLLU.splitlines()[:3]
    assert lines[3].split("\t")[6:8] == ["2", "x"]
    assert lines[3].split("\t")[:6] == CONLLU.splitlines()[3].split("\t")[:6]
    assert lines[6] == CONLLU.splitlines()[6]  # the empty node is untouched


def test_conllx_six_columns_for_parsing():
    s = parse_conll("1\tDogs\tdog\tN\tNNS\t_\n2\tbark\tbark\tV\tVBP\t_\n\n", "conllx")
    assert s[0].heads == [-1, -1]
    assert s[0].to_lines()[0].count("\t") == 9


def test_conllu_to_conllx():
    s = to_conllx(parse_conll(CONLLU, "conllu")[0])
    assert s.extra == [] and len(s) == 4
    assert s.rows[0][3:5] == ["AUX", "VBP"] and s.rows[3][8:] == ["_", "_"]


@pytest.mark.parametrize("text,fmt,need,message,line", [
    ("1\ta\ta\tN\tN\t_\t0\troot\n", "conllu", False, "expected 10", 1),
    ("1\ta\ta\tN\n", "conllx", False, "6 to 10", 1),
    ("1\ta\ta\tN\tN\t_\tx\troot\t_\t_\n", "conllx", False, "not an integer", 1),
    ("1\ta\ta\tN\tN\t_\t0\troot\t_\t_\n2\tb\tb\tN\tN\t_\t7\tx\t_\t_\n", "conllx", False, "out of range", 2),
    ("1\ta\ta\tN\tN\t_\t2\tx\t_\t_\n2\tb\tb\tN\tN\t_\t1\tx\t_\t_\n", "conllx", True, "cycle", 1),
    ("1\ta\ta\tN\tN\t_\t1\tx\t_\t_\n", "conllx", True, "own head", 1),
    ("1\ta\ta\tN\tN\t_\t_\t_\t_\t_\n", "conllx", True, "HEAD is _", 1),
    ("1\ta\ta\tN\tN\t_\t0\tx\t_\t_\n3\tb\tb\tN\tN\t_\t1\tx\t_\t_\n", "conllx", False, "expected token ID 2", 2),
    ("1-2\ta\ta\tN\tN\t_\t0\tx\t_\t_\n", "conllx", False, "not an integer", 1),
    ("", "conllx", False, "no sentences", 0),
    ("1 a a N N _ 0 root _ _\n", "conllx", False, "separated by tabs", 1),
])
def test_bad_input_names_file_and_line(text, fmt, need, message, line):
    with pytest.raises(InputFormatError, match=message) as e:
        parse_conll(text, fmt, "bad.conll", need_heads=need)
    assert e.value.line == line
    assert str(e.value).startswith("bad.conll")


def test_invalid_utf8_reports_line(tmp_path):
    p = tmp_path / "bad.conll"
    p.write_bytes(b"1\ta\ta\tN\tN\t_\t0\tx\t_\t_\n\n1\t\xff\ta\tN\tN\t_\t0\tx\t_\t_\n")
    with pytest.raises(InputFormatError, match="UTF-8") as e:
        read_conll(str(p))
    assert e.value.line == 3


def test_write_is_atomic(tmp_path):
    target = tmp_path / "out.conll"

    class Boom(Exception):
        pass

    def sentences():
        yield parse_conll("1\ta\ta\tN\tN\t_\t0\tx\t_\t_\n", "conllx")[0]
        raise Boom()

    with pytest.raises(Boom):
        write_conll(sentences(), str(target))
    assert not target.exists() and os.listdir(tmp_path) == []


def test_example_treebank_is_valid_and_has_non_projective_trees():
    from conftest import is_projective
    sents = read_conll(os.path.join(EXAMPLES, "toy-train.conll"), need_heads=True)
    assert len(sents) >= 50
    assert sum(not is_projective([-1] + s.heads) for s in sents) >= 3


UD_FILES = sorted(glob.glob(os.path.join(DATA, "ud", "*", "*.conllu")))


@pytest.mark.skipif(not UD_FILES, reason="../shared/data/ud not available")
@pytest.mark.parametrize("path", UD_FILES, ids=lambda p: os.sep.join(p.split(os.sep)[-2:]))
def test_ud_round_trip(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    sents = parse_conll(text, "conllu", path, need_heads=True)
    expected = "\n".join(l.rstrip("\r") for l in text.split("\n"))
    out = format_sentences(sents)
    # the writer ends every sentence with one blank line
    assert out.strip("\n") == expected.strip("\n")


@pytest.mark.parametrize("tid, head", [("01", "0"), ("\u00b9", "0"), ("\u0661", "0"), ("1", "\u00b2"),
                                       ("1", "00"), ("1", " 0"), ("1", "+0")])
def test_ids_and_heads_must_be_plain_ascii_integers(tid, head):
    text = f"{tid}\tDogs\t_\tNOUN\tNNS\t_\t{head}\troot\n\n"
    with pytest.raises(InputFormatError, match=r"<input>:1: "):
        parse_conll(text, "conllx", need_heads=True)


def test_from_words_refuses_what_a_conll_file_cannot_hold():
    from maltpy.errors import MaltpyError
    from maltpy.formats.conll import Sentence
    assert Sentence.from_words(["Dogs", "bark"], postags=["NNS", "VBP"]).column(3) == ["NNS", "VBP"]
    for bad in (dict(forms=["a", "b"], postags=["X"]), dict(forms="Dogs bark"), dict(forms=["a\tb"]),
                dict(forms=[""]), dict(forms=["a"], lemmas=["x\ny"])):
        with pytest.raises(MaltpyError):
            Sentence.from_words(**bad)


def test_deprel_underscore_is_a_label_in_gold_data():
    """As in MaltParser (and the CoNLL 2007 Spanish treebank): a gold tree may label arcs _."""
    import io
    import maltpy
    data = b"1\tEl\tel\td\tda\t_\t2\t_\n2\taumento\taumento\tn\tnc\t_\t0\tROOT\n\n" * 30
    sentences = read_conll(io.BytesIO(data), "conllx", need_heads=True)
    assert sentences[0].rows[0][7] == "_"
    parser = maltpy.Parser(verbose=False).fit(sentences)
    assert "_" in parser.labels
    assert [r[7] for r in parser.parse(sentences[:1])[0].rows] == ["_", "ROOT"]


def test_input_errors_survive_pickling():
    """An error raised in a worker process (Dask, a process pool) reaches the caller whole."""
    import pickle
    e = pickle.loads(pickle.dumps(InputFormatError("in.conll", 3, "HEAD 'x' is not an integer")))
    assert isinstance(e, InputFormatError) and str(e) == "in.conll:3: HEAD 'x' is not an integer" and e.line == 3
