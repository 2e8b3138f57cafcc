"""What a new user trips over: tag columns (from_words' upos=/xpos=, a model keeping its sentences'
format, the unseen-tags warning) and Python started in a clone whose extensions were never built."""
import os
import shutil
import subprocess
import sys
import warnings

import pytest

import maltpy
from conftest import EXAMPLES, ROOT
from maltpy.cli.main import main
from maltpy.errors import MaltpyError, MaltpyWarning
from maltpy.formats.conll import Sentence, read_conll, write_conll

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


def test_from_words_fills_the_tag_columns_it_is_told_to():
    s = Sentence.from_words(["Dogs", "bark"], upos=["NOUN", "VERB"], xpos=["NNS", "VBP"])
    assert [r[3:5] for r in s.rows] == [["NOUN", "NNS"], ["VERB", "VBP"]]
    s = Sentence.from_words(["Dogs", "bark"], postags=["NNS", "VBP"])   # as the README says: both columns
    assert [r[3:5] for r in s.rows] == [["NNS", "NNS"], ["VBP", "VBP"]]
    s = Sentence.from_words(["Dogs", "bark"], postags=["NNS", "VBP"], upos=["NOUN", "VERB"])
    assert [r[3:5] for r in s.rows] == [["NOUN", "NNS"], ["VERB", "VBP"]]
    with pytest.raises(MaltpyError, match="upos"):
        Sentence.from_words(["Dogs", "bark"], upos=["NOUN"])
    with pytest.raises(MaltpyError, match="one of them"):
        Sentence.from_words(["Dogs"], upos=["NOUN"], cpostags=["N"])


@pytest.fixture(scope="module")
def conllu_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("u")
    paths = []
    for src in (TRAIN, TEST):
        dst = str(d / (os.path.basename(src) + "u"))
        write_conll(read_conll(src, "conllx"), dst)
        paths.append(dst)
    return paths


def test_a_model_trained_on_read_sentences_keeps_their_format(conllu_files):
    train, _ = conllu_files
    assert all(s.format == "conllu" for s in read_conll(train))
    from_path = maltpy.train(train, verbose=False, jobs=1)
    from_sentences = maltpy.train(maltpy.read_conll(train), verbose=False, jobs=1)
    assert from_path.format == from_sentences.format == "conllu"
    assert from_path.feature_text == from_sentences.feature_text
    made = [s.with_tree(s.heads, s.labels) for s in read_conll(TRAIN)]   # with_tree keeps it too
    assert maltpy.train(made, verbose=False, jobs=1).format == "conllx"
    assert maltpy.train(made, input_format="conllu", verbose=False, jobs=1).format == "conllu"


def test_unseen_tags_warn_once_naming_the_column(conllu_files):
    train, test = conllu_files
    parser = maltpy.train(train, verbose=False, jobs=1)
    sentences = read_conll(test)
    swapped = [Sentence.from_words(s.forms, upos=[f"X{t}" for t in s.column(3)]) for s in sentences]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parser.parse(sentences)
        assert caught == []
        parser.parse(swapped)
        parser.parse(swapped)
    assert len(caught) == 1 and issubclass(caught[0].category, MaltpyWarning)
    assert "UPOSTAG" in str(caught[0].message) and "upos=" in str(caught[0].message)


def test_the_command_line_prints_the_warning_as_one_line(conllu_files, tmp_path, capsys):
    train, test = conllu_files
    model = str(tmp_path / "u.mpz")
    assert main(["-c", model, "-m", "learn", "-i", train, "-q"]) == 0
    capsys.readouterr()
    assert main(["-c", model, "-i", test, "-o", str(tmp_path / "a.conllu"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    bad = read_conll(test)
    for s in bad:
        for r in s.rows:
            r[3] = "Z" + r[3]
    write_conll(bad, str(tmp_path / "bad.conllu"))
    assert main(["-c", model, "-i", str(tmp_path / "bad.conllu"), "-o", str(tmp_path / "b.conllu"), "-q"]) == 0
    err = capsys.readouterr().err.strip().split("\n")
    assert len(err) == 1 and err[0].startswith("maltpy: warning:") and "UPOSTAG" in err[0]


def _unbuilt_clone(tmp_path, version=None):
    """The package's Python files without the compiled extensions, as in a fresh clone."""
    clone = tmp_path / "clone"
    shutil.copytree(os.path.join(ROOT, "maltpy"), clone / "maltpy",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.html", "__pycache__"))
    if version is not None:
        (clone / "maltpy" / "version.py").write_text(f'__version__ = "{version}"\n')
    return clone


def test_python_in_an_unbuilt_source_folder_says_what_to_do(tmp_path):
    # a version no built maltpy has: nothing can stand in for the source
    clone = _unbuilt_clone(tmp_path, version="0.0.0.dev-unbuilt")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", "import maltpy"], cwd=clone, capture_output=True, text=True,
                       env=env)
    assert r.returncode != 0 and "source folder" in r.stderr and "build_ext --inplace" in r.stderr
    r = subprocess.run([sys.executable, "-m", "maltpy", "--help"], cwd=clone, capture_output=True, text=True,
                       env=env)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("maltpy: error:")


def test_python_in_an_unbuilt_clone_takes_the_installed_maltpy(tmp_path):
    import maltpy
    built = os.path.dirname(os.path.abspath(maltpy.__file__))       # what the tests run: installed, built
    clone = _unbuilt_clone(tmp_path)
    env = dict({k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, PYTHONPATH=os.path.dirname(built))
    code = ("import maltpy, maltpy.search.step, os; print(os.path.dirname(maltpy.__file__)); "
            "print(os.path.dirname(maltpy.search.step.__file__)); print(maltpy.Sentence.__module__)")
    r = subprocess.run([sys.executable, "-c", code], cwd=clone, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    package, step, _ = r.stdout.split("\n")[:3]
    assert os.path.samefile(package, built) and os.path.samefile(step, os.path.join(built, "search"))
    r = subprocess.run([sys.executable, "-m", "maltpy", "--version"], cwd=clone, capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0 and maltpy.__version__ in r.stdout + r.stderr, r.stderr



def test_an_input_of_comments_only_names_its_last_line(tmp_path, capsys, model):
    path = tmp_path / "c.conllu"
    path.write_text("# sent_id = 1\n# text = nothing\n\n")
    assert main(["-c", model, "-i", str(path), "-o", str(tmp_path / "o.conllu"), "-q"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3:" in err and "comments" in err
    with pytest.raises(MaltpyError, match=":3: .*comments"):
        read_conll(str(path))
    path.write_text("")
    with pytest.raises(MaltpyError, match="empty"):
        read_conll(str(path))


def test_training_on_a_few_sentences_warns(tmp_path):
    few = read_conll(TRAIN, need_heads=True)[:3]
    with pytest.warns(MaltpyWarning, match="3 sentence"):
        maltpy.train(few, verbose=False, jobs=1)


def test_learn_refuses_an_output_file_it_would_ignore(tmp_path, capsys):
    assert main(["-c", str(tmp_path / "m"), "-m", "learn", "-i", TRAIN, "-o", str(tmp_path / "x"), "-q"]) == 1
    assert "-c names" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "m.mpz")


def test_a_very_long_sentence_for_a_quadratic_system_warns(tmp_path):
    from maltpy.parsing.encode import LONG_SENTENCE
    n = LONG_SENTENCE + 1
    tag = read_conll(TRAIN)[0].rows[0][4]   # a tag the models know: only the length is odd
    long = Sentence.from_words(["w"] * n, postags=[tag] * n)
    parser = maltpy.train(read_conll(TRAIN, need_heads=True), algorithm="covnonproj", verbose=False, jobs=1)
    with pytest.warns(MaltpyWarning, match=f"{n:,} words"):
        parser.parse([long])
    linear = maltpy.train(read_conll(TRAIN, need_heads=True), verbose=False, jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MaltpyWarning)
        linear.parse([long])


def test_other_input_and_output_charsets(tmp_path, capsys):
    """MaltParser's -ic/-oc: a Latin-1 treebank trains and parses; the output is in the input's
    encoding unless -oc says otherwise; what an encoding cannot hold is a one-line error."""
    sentences = read_conll(TRAIN, need_heads=True)
    for s in sentences[::3]:
        s.rows[0][1] = s.rows[0][1] + "é"
    utf8 = tmp_path / "train.utf8.conll"
    write_conll(sentences, str(utf8))
    latin = tmp_path / "train.conll"
    latin.write_bytes(utf8.read_text(encoding="utf-8").encode("latin-1"))
    model = str(tmp_path / "m")
    assert main(["-c", model, "-m", "learn", "-i", str(latin), "-q"]) == 1
    assert "-ic" in capsys.readouterr().err
    assert main(["-c", model, "-m", "learn", "-i", str(latin), "-ic", "ISO-8859-1", "-q"]) == 0
    out = tmp_path / "out.conll"
    assert main(["-c", model, "-i", str(latin), "-o", str(out), "-ic", "ISO-8859-1", "-q"]) == 0
    text = out.read_bytes().decode("latin-1")
    assert "é" in text and out.read_bytes().count(b"\xe9") == text.count("é")
    out8 = tmp_path / "out8.conll"
    assert main(["-c", model, "-i", str(latin), "-o", str(out8), "-ic", "ISO-8859-1", "-oc", "UTF-8", "-q"]) == 0
    assert out8.read_bytes().decode("utf-8") == text
    # the same trees as a model trained on the UTF-8 file
    assert main(["-c", str(tmp_path / "u"), "-m", "learn", "-i", str(utf8), "-q"]) == 0
    assert main(["-c", str(tmp_path / "u"), "-i", str(utf8), "-o", str(tmp_path / "u.conll"), "-q"]) == 0
    assert (tmp_path / "u.conll").read_text(encoding="utf-8") == text
    capsys.readouterr()
    ascii_out = tmp_path / "a.conll"
    assert main(["-c", model, "-i", str(latin), "-o", str(ascii_out), "-ic", "ISO-8859-1", "-oc", "US-ASCII", "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ascii" in err and not ascii_out.exists()
    assert main(["-c", model, "-i", str(latin), "-ic", "NO-SUCH-CHARSET", "-q"]) == 2
    assert "unknown character encoding" in capsys.readouterr().err


def test_other_charsets_reach_every_reader_whole(tmp_path, capsys):
    """-ic reaches the readers of whole files too (export, discbracket, bracketed trees) in
    -m convert, -m learn, -m parse and maltpy eval, past the first megabyte: before, the
    transcoding stream gave a whole-file read one megabyte, and convert and eval read export
    files as UTF-8 whatever -ic said."""
    from maltpy.formats.charset import TranscodedInput
    block = ("#BOS {k}\nGelezen\tlezen\tww\tWW(vd)\thd\t501\nhé\thij\tvnw\tVNW()\tsu\t502\n"
             "#501\t--\tPPART\t--\tvc\t502\n#502\t--\tSMAIN\t--\t--\t0\n#EOS {k}\n")
    text = "".join(block.format(k=k) for k in range(1, 12001))
    latin = tmp_path / "big.export"
    latin.write_bytes(text.encode("latin-1"))
    assert latin.stat().st_size > 1 << 20
    assert TranscodedInput(str(latin), "ISO-8859-1").read() == text.encode("utf-8")
    assert TranscodedInput(str(latin), "ISO-8859-1").read(1) == b"#"
    out = tmp_path / "big.discbracket"
    assert main(["-m", "convert", "-i", str(latin), "-ic", "ISO-8859-1", "-o", str(out), "-q"]) == 0
    lines = out.read_bytes().decode("latin-1").splitlines()        # written in the input's encoding
    assert len(lines) == 12000 and all("hé" in line for line in lines)
    model = str(tmp_path / "m")
    assert main(["-c", model, "-m", "learn", "-i", str(latin), "-ic", "ISO-8859-1", "-a", "stacklazy", "-q"]) == 0
    parsed = tmp_path / "parsed.export"
    assert main(["-c", model, "-i", str(latin), "-ic", "ISO-8859-1", "-o", str(parsed), "-q"]) == 0
    assert parsed.read_bytes().decode("latin-1").count("#BOS") == 12000
    capsys.readouterr()
    assert main(["eval", "-ic", "ISO-8859-1", str(latin), str(parsed)]) == 0
    assert "labeled f-measure" in capsys.readouterr().out
    # -m proj too (MaltParser's pseudo-projective transformation of a file): -ic read, -oc written
    conll = tmp_path / "encoded.conll"
    assert main(["-m", "convert", "-i", str(latin), "-ic", "ISO-8859-1", "-o", str(conll), "-q"]) == 0
    projective = tmp_path / "projective.conll"
    assert main(["-m", "proj", "-pp", "head", "-i", str(conll), "-if", "conllu", "-ic", "ISO-8859-1",
                 "-o", str(projective), "-q"]) == 0
    assert projective.read_bytes().decode("latin-1").count("hé") == 12000


def test_a_bare_model_name_in_a_configuration_gets_mpz_everywhere(tmp_path, capsys):
    config = tmp_path / "abc.yaml"
    config.write_text(f"model: abc\nlearn_input: {TRAIN}\n")
    assert main(["-c", str(config), "-m", "learn", "-q"]) == 0
    assert sorted(os.listdir(tmp_path)) == ["abc.mpz", "abc.yaml"]
    out = tmp_path / "p.conll"
    assert main(["-c", str(tmp_path / "abc"), "-i", TEST, "-o", str(out), "-q"]) == 0 and out.exists()
    assert main(["info", str(tmp_path / "abc")]) == 0
    assert main(["-c", str(config), "-i", TEST, "-o", str(out), "-q"]) == 0
    # a model written under a bare name (by hand, or an older maltpy) is still read by that name,
    # but learning never writes to a bare name
    os.rename(tmp_path / "abc.mpz", tmp_path / "old")
    assert main(["-c", str(tmp_path / "old"), "-i", TEST, "-o", str(out), "-q"]) == 0
    assert main(["-c", str(tmp_path / "old"), "-m", "learn", "-i", TRAIN, "-q"]) == 0
    assert (tmp_path / "old.mpz").exists()


@pytest.mark.parametrize("flag", ["--constraints", "--arc-scores", "--confidence"])
def test_boolean_flags_alone_mean_true(flag):
    from maltpy.cli.main import _main_parser, _settings_from_args
    settings = _settings_from_args(_main_parser().parse_args([flag, "-i", TEST]))[0]
    name = flag.lstrip("-").replace("-", "_")
    assert getattr(settings, name) in (True, "true")
    settings = _settings_from_args(_main_parser().parse_args([flag, "false"]))[0]
    assert getattr(settings, name) in (False, "false")
    assert _settings_from_args(_main_parser().parse_args(["--constraints", "strict"]))[0].constraints == "strict"


@pytest.mark.parametrize("argv,says", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["-j", "2.5"], "jobs must be an integer"),
    (["-nr"], "-nr: expected one argument"),          # MaltParser's short flags still take a value
    (["-b", "0"], "beam_width must be at least 1"),
    (["eval"], "required: gold, system"),
    (["draw", "--bogus", "x"], "unrecognized arguments"),
])
def test_usage_errors_are_one_line_pointing_to_help_and_exit_2(capsys, argv, says):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "--help" in err and "usage:" not in err, err


def test_an_integer_setting_refuses_a_fraction_in_a_configuration(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(f"model: m\nlearn_input: {TRAIN}\njobs: 2.5\n")
    assert main(["-c", str(config), "-m", "learn"]) == 1
    assert "jobs must be an integer, got 2.5" in capsys.readouterr().err
    assert not (tmp_path / "m.mpz").exists()


@pytest.mark.parametrize("options,says", [({"nbest": 0}, "at least 1"), ({"nbest": -1}, "at least 1"),
                                          ({"nbest": "x"}, "must be an integer"),
                                          ({"nbest": 3}, "beam_width=2"),
                                          ({"confidence": "maybe"}, "true or false")])
def test_parse_options_are_checked_as_settings_are(model, options, says):
    parser = maltpy.load(model)
    with pytest.raises(MaltpyError, match=says):
        parser.parse(read_conll(TEST)[:2], **options)


def test_nothing_maltpy_writes_is_unreadable_by_maltpy(tmp_path):
    s = read_conll(TEST)[:2]
    path = tmp_path / "x.conll"
    for bad, says in (("a\tb", "holds a tab"), ("a\nb", "holds a line break"), ("", "is empty")):
        broken = [Sentence([list(r) for r in x.rows]) for x in s]
        broken[1].rows[2][1] = bad
        with pytest.raises(MaltpyError, match=f"sentence 2: column 2 of word 3 .*{says}"):
            write_conll(broken, str(path))
        assert not path.exists() and not os.listdir(tmp_path)
    spaced = [Sentence([list(r) for r in x.rows]) for x in s]
    spaced[0].rows[0][1] = "New York"                   # a space in a field reads back
    write_conll(spaced, str(path))
    assert [x.rows for x in read_conll(str(path))] == [x.rows for x in spaced]
    with pytest.raises(MaltpyError, match="no sentences to write"):
        write_conll([], str(tmp_path / "empty.conll"))
    with pytest.raises(MaltpyError, match="no sentences to write"):
        write_conll(iter([]), str(tmp_path / "empty.conll"))
    assert not (tmp_path / "empty.conll").exists()


def test_a_bad_file_in_a_batch_is_reported_and_the_others_parsed(tmp_path, capsys, model):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("a.conll", "c.conll"):
        shutil.copy(TEST, corpus / name)
    (corpus / "b.conll").write_text("")
    out = tmp_path / "out"
    assert main(["-c", model, "-i", str(corpus / "*.conll"), "-o", f"{out}/", "-q"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert sorted(os.listdir(out)) == ["a.conll", "c.conll"]
    assert len(err) == 2 and "b.conll" in err[0] and "no sentences" in err[0] and "1 of 3 files" in err[1]


def test_an_output_in_a_folder_that_takes_no_new_file_says_so(capsys, model):
    if not os.path.exists("/proc/version"):
        pytest.skip("no /proc")
    assert main(["-c", model, "-i", TEST, "-o", "/proc/version", "-q"]) == 1
    assert "no file can be made in /proc" in capsys.readouterr().err


def test_learning_flags_given_to_a_parse_get_a_note(tmp_path, capsys, model):
    assert main(["-c", model, "-i", TEST, "-o", str(tmp_path / "o.conll"), "-a", "covnonproj", "-q"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-a is fixed when learning" in err


def test_a_given_deps_column_becomes_the_new_basic_arc(conllu_files, tmp_path, model):
    """A DEPS column passed through unchanged would contradict the parse's HEAD; _ stays _."""
    train, test = conllu_files
    parser = maltpy.train(train, verbose=False, jobs=1)
    sentences = read_conll(test)
    for s in sentences[::2]:
        for r in s.rows:
            r[8] = "1:nsubj"
    path, out = str(tmp_path / "in.conllu"), str(tmp_path / "out.conllu")
    write_conll(sentences, path)
    parser.save(str(tmp_path / "m.mpz"))
    assert main(["-c", str(tmp_path / "m.mpz"), "-i", path, "-o", out, "-q"]) == 0
    compiled, python = read_conll(out), parser.parse(read_conll(path))
    for k, (a, b) in enumerate(zip(compiled, python)):
        assert a.rows == b.rows
        for r in a.rows:
            assert r[8] == (f"{r[6]}:{r[7]}" if k % 2 == 0 else "_")


def test_a_dense_weight_matrix_larger_than_memory_is_refused_before_it_is_asked_for(monkeypatch):
    import maltpy.learners.liblinear as liblinear
    monkeypatch.setattr(liblinear, "physical_memory", lambda: 1 << 16)   # the toy model needs 0.3 MB
    with pytest.raises(MaltpyError, match="too many labels.*-l perceptron"):
        maltpy.train(read_conll(TRAIN, need_heads=True), verbose=False, jobs=1)


def test_eval_compare_says_which_minus_which(tmp_path, capsys, model):
    a = str(tmp_path / "a.conll")
    assert main(["-c", model, "-i", TEST, "-o", a, "-q"]) == 0
    worse = read_conll(a)
    for s in worse[:20]:
        s.rows[0][6] = "0" if s.rows[0][6] != "0" else "2"
    write_conll(worse, str(tmp_path / "b.conll"))
    assert main(["eval", TEST, str(tmp_path / "b.conll"), "--compare", a, "--rounds", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if "p-value" in line)
    las = next(line for line in lines if line.startswith("LAS"))
    a_score, b_score, diff = (float(x) for x in las.split()[1:4])
    assert "A - B" in header and a_score < b_score and diff == pytest.approx(a_score - b_score, abs=0.01)
