"""Very long sentences: every linear system parses them (the transition bound once wrapped in C
int past 23,168 words and gave a silent flat tree), and what would take hours is refused in one
line before anything is written."""
import os
import random
import warnings

import pytest

import maltpy
from conftest import EXAMPLES, is_forest
from maltpy.cli.main import main
from maltpy.errors import MaltpyError
from maltpy.formats.conll import Sentence, read_conll
from maltpy.parsing.encode import BEAM_MAX_WORDS, BEAM_QUADRATIC_MAX_WORDS, QUADRATIC_MAX_WORDS, check_sentence_lengths
from maltpy.systems import SYSTEMS

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
#: the first length whose old transition bound, 4 (n + 1) (n + 2) + 16, did not fit in a C int
WRAPPED = 23_169


def _words(n, seed=0):
    """n words of the example treebank in a random order, with their tags: a sentence whose only
    oddity is its length."""
    rows = [r for s in read_conll(TRAIN) for r in s.rows]
    rng = random.Random(seed)
    picked = [rng.choice(rows) for _ in range(n)]
    return Sentence.from_words([r[1] for r in picked], cpostags=[r[3] for r in picked],
                               postags=[r[4] for r in picked])


def _write(path, n, seed=0):
    rows = [r for s in read_conll(TRAIN) for r in s.rows]
    rng = random.Random(seed)
    with open(path, "w") as f:
        for i in range(1, n + 1):
            r = rng.choice(rows)
            f.write(f"{i}\t{r[1]}\t_\t{r[3]}\t{r[4]}\t_\t_\t_\t_\t_\n")
        f.write("\n")


@pytest.fixture(scope="module")
def trained():
    sentences = read_conll(TRAIN, need_heads=True)
    return {name: maltpy.train(sentences, algorithm=name, verbose=False, jobs=1) for name in SYSTEMS}


@pytest.mark.parametrize("name", sorted(n for n, cls in SYSTEMS.items() if not cls.quadratic))
def test_linear_systems_parse_a_sentence_past_the_old_wrap(trained, name):
    sentence = _words(WRAPPED, seed=len(name))
    heads = trained[name].parse([sentence])[0].heads
    assert len(heads) == WRAPPED
    assert is_forest([-1] + heads)
    # the flat tree of the wrapped bound: every word on word 1
    assert len(set(heads)) > WRAPPED // 20


def test_the_beam_parses_a_sentence_past_the_old_wrap(trained, tmp_path):
    trained["nivreeager"].save(str(tmp_path / "m.mpz"))
    parser = maltpy.load(str(tmp_path / "m.mpz"), beam_width=4)
    heads = parser.parse([_words(WRAPPED)])[0].heads
    assert is_forest([-1] + heads) and len(set(heads)) > WRAPPED // 20


def test_a_million_words_parse_from_the_command_line(tmp_path, model):
    src, out = str(tmp_path / "long.conll"), str(tmp_path / "out.conll")
    _write(src, 1_000_000)
    assert main(["-c", model, "-i", src, "-o", out, "-q"]) == 0
    heads = []
    with open(out) as f:
        for line in f:
            if line.strip():
                heads.append(int(line.split("\t")[6]))
    assert len(heads) == 1_000_000
    assert is_forest([-1] + heads) and len(set(heads)) > 10_000


@pytest.mark.parametrize("name,beam,limit", [("covnonproj", 1, QUADRATIC_MAX_WORDS),
                                             ("nivreeager", 8, BEAM_MAX_WORDS),
                                             ("covproj", 8, BEAM_QUADRATIC_MAX_WORDS)])
def test_what_would_take_hours_is_refused_in_one_line(tmp_path, capsys, trained, name, beam, limit):
    model, src, out = str(tmp_path / "m.mpz"), str(tmp_path / "long.conll"), str(tmp_path / "out.conll")
    trained[name].save(model)
    _write(src, limit + 1)
    with open(src) as f:   # a short sentence first: nothing of it may be written either
        text = "1\tDogs\t_\tN\tNN\t_\t_\t_\t_\t_\n\n" + f.read()
    with open(src, "w") as f:
        f.write(text)
    assert main(["-c", model, "-i", src, "-o", out, "-b", str(beam)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "long.conll:3:" in err[0] and f"{limit + 1:,} words" in err[0], err
    assert not os.path.exists(out)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".maltpy")]
    # exactly at the limit the sentence is taken (checked without parsing it: the check alone)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_sentence_lengths([0, limit + 1], SYSTEMS[name], training=False, beam_width=beam)
        with pytest.raises(MaltpyError, match=f"{limit + 1:,} words"):
            check_sentence_lengths([0, limit + 2], SYSTEMS[name], training=False, beam_width=beam)


def test_a_beam_warns_of_a_long_sentence_once_and_parses_it(tmp_path, capsys, trained):
    """Past BEAM_LONG_SENTENCE words a beam's copies of its configurations dominate (they grow
    with the square of the length): a warning says so and where, and the sentence is parsed."""
    from maltpy.parsing.encode import BEAM_LONG_SENTENCE
    linear = SYSTEMS["nivreeager"]
    for beam, n, warns in ((4, BEAM_LONG_SENTENCE + 1, True), (4, BEAM_LONG_SENTENCE, False),
                           (1, BEAM_LONG_SENTENCE + 1, False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert check_sentence_lengths([0, 3, 3 + n + 1], linear, training=False, beam_width=beam) == warns
        assert len(caught) == warns
        if warns:
            assert f"{n:,} words" in str(caught[0].message) and "-b 1" in str(caught[0].message)
    model, src, out = str(tmp_path / "m.mpz"), str(tmp_path / "long.conll"), str(tmp_path / "out.conll")
    trained["nivreeager"].save(model)
    _write(src, BEAM_LONG_SENTENCE + 1)
    with open(src) as f:
        text = "1\tDogs\t_\tN\tNN\t_\t_\t_\t_\t_\n\n" + f.read() + "1\tCats\t_\tN\tNN\t_\t_\t_\t_\t_\n\n"
    with open(src, "w") as f:
        f.write(text)
    assert main(["-c", model, "-i", src, "-o", out, "-b", "4"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "words:" in line]
    assert len(err) == 1 and "long.conll:3:" in err[0] and f"{BEAM_LONG_SENTENCE + 1:,} words" in err[0], err
    heads = [int(line.split("\t")[6]) for line in open(out) if line.strip()]
    assert len(heads) == BEAM_LONG_SENTENCE + 3
    assert is_forest([-1] + heads[1:-1])
