"""The maltpy command end to end, and the Python API, on the shipped example treebank."""
import os
from dataclasses import replace
import random
import shutil
import signal
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest

import maltpy
from maltpy.cli.main import main
from maltpy.errors import MaltpyError, ModelFileError
from maltpy.formats.conll import read_conll
from conftest import EXAMPLES, is_projective, is_tree, shared_file

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")



def run(*args, stdin=None):
    # run outside the source tree so that the installed (compiled) package is imported
    return subprocess.run([sys.executable, "-m", "maltpy", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, cwd=EXAMPLES)


def test_learn_parse_eval_end_to_end(model, tmp_path):
    out = tmp_path / "out.conll"
    assert main(["-c", model, "-i", TEST, "-o", str(out), "-q"]) == 0
    gold, system = read_conll(TEST), read_conll(str(out), need_heads=True)
    assert [s.forms for s in gold] == [s.forms for s in system]
    from maltpy.evaluation import evaluate
    scores = evaluate(gold, system)
    assert scores["all"].las > 80  # a learnable grammar: the parser must have learned it
    r = run("eval", TEST, str(out))
    assert r.returncode == 0 and "LAS" in r.stdout and "no punct" in r.stdout


def test_yaml_config_learn_and_parse_with_flags_overriding(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"model: m.mpz\ninput: {TRAIN}\nalgorithm: nivrestandard\nparsing_algorithm: nivrestandard\n")
    assert main(["-c", str(cfg), "-m", "learn", "-a", "nivreeager", "-q"]) == 0
    p = maltpy.load(str(tmp_path / "m.mpz"))
    assert p.settings.algorithm == "nivreeager"
    r = run("-c", str(cfg), "-i", TEST, "-nt", "true")
    assert r.returncode == 0 and r.stdout.count("\n\n") == len(read_conll(TEST))


def test_stdin_to_stdout_pipe_is_quiet(model):
    with open(TEST) as f:
        text = f.read()
    r = run("-c", model, stdin=text)
    assert r.returncode == 0 and r.stderr == ""
    assert len(read_conll_text(r.stdout)) == len(read_conll(TEST))


@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize("mode", ["parse", "convert", "draw"])
def test_an_output_closed_early_is_status_141_and_no_message(model, tmp_path, unbuffered, mode):
    """``maltpy ... | head -1``: the command stops as ``cat`` would (141, SIGPIPE's status), with
    nothing on stderr. With unbuffered output (PYTHONUNBUFFERED, as containers often set it) the
    one large write of a drawing (or of a discontinuous conversion) was cut short in silence and
    the status was 0."""
    with open(TEST) as f:
        one = f.read().rstrip("\n") + "\n\n"
    big = tmp_path / "big.conll"
    big.write_text(one * 200)         # far more than a pipe holds
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    args = {"parse": ["-c", model, "-i", str(big), "-q"], "draw": ["draw", str(big)],
            "convert": ["-m", "convert", "-i", str(big), "-of", "conllu", "-q"]}[mode]
    p = subprocess.Popen([sys.executable, "-m", "maltpy", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd=EXAMPLES)
    try:
        assert p.stdout.readline()
        p.stdout.close()                # the reader leaves, as head -1 does
        status = p.wait(timeout=120)
        err = p.stderr.read().decode()
    finally:
        p.kill()
    assert status == 141 and err == "", (status, err)


@pytest.mark.parametrize("args", [["-c", "MODEL", "-q"], ["-c", "MODEL", "-j", "2", "-q"], ["eval", "-", TEST]])
def test_a_closed_standard_input_is_a_one_line_error(model, args):
    """Started with standard input closed (``<&-``), where Python leaves sys.stdin None: this was
    an internal error (AttributeError)."""
    args = [model if a == "MODEL" else a for a in args]
    r = subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, cwd=EXAMPLES,
                       timeout=120, preexec_fn=lambda: os.close(0))
    assert r.returncode == 1 and r.stderr == "maltpy: error: standard input is closed: give the input with -i FILE\n", \
        r.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full (a device that is always full)")
@pytest.mark.parametrize("args", [["-c", "MODEL", "-i", TEST, "-q"], ["-c", "MODEL", "-i", TEST, "-j", "2", "-q"],
                                  ["draw", TEST]])
def test_a_full_disk_is_a_one_line_error(model, args):
    """Output to a full device (a full disk) was an internal error (OSError: No space left)."""
    args = [model if a == "MODEL" else a for a in args]
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "maltpy", *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, cwd=EXAMPLES, timeout=120)
    assert r.returncode == 1 and r.stderr.startswith("maltpy: error: cannot write: ") and \
        r.stderr.count("\n") == 1 and "internal" not in r.stderr, r.stderr


def read_conll_text(text):
    from maltpy.formats.conll import parse_conll
    return parse_conll(text, "conllx", need_heads=True)


def test_bad_input_exits_nonzero_without_output(model, tmp_path):
    bad = tmp_path / "bad.conll"
    bad.write_text("1\tDogs\tdog\tN\tNNS\t_\n2\tbark\n\n")
    out = tmp_path / "out.conll"
    r = run("-c", model, "-i", str(bad), "-o", str(out))
    assert r.returncode != 0
    assert r.stderr.strip().count("\n") == 0 and f"{bad}:2:" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ["-c", "{long}.yaml", "-m", "learn"], ["-c", "{dir}.yaml", "-m", "learn"],
    ["-c", "m.mpz", "-m", "learn", "-i", "{long}.conll"], ["eval", "{long}.conll", "{train}"],
    ["-c", "{model}", "-i", "{long}.conll", "-o", "out.conll"], ["convert-features", "{model}"],
    ["-c", "{model}", "-i", "*.nothing", "-o", ""], ["-c", "{model}", "-i", "", "-o", "out.conll"]])
def test_unreadable_paths_are_one_line_errors(tmp_path, capsys, monkeypatch, model, argv):
    """Names too long for the file system, directories and binary files where text is expected:
    each was an internal error (OSError, IsADirectoryError, UnicodeDecodeError) in one of these places."""
    (tmp_path / "d.yaml").mkdir()
    (tmp_path / "a.nothing").write_text("")
    monkeypatch.chdir(tmp_path)
    names = {"long": "x" * 300, "dir": "d", "train": TRAIN, "model": model}
    quiet = [] if argv[0] in ("eval", "convert-features") else ["-q"]
    assert main([a.format(**names) for a in argv] + quiet) == 1
    err = capsys.readouterr().err
    assert err.startswith("maltpy: error:") and err.count("\n") == 1 and "internal" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.nothing", "d.yaml"]


def test_missing_and_corrupt_model_files(tmp_path, model):
    r = run("-c", str(tmp_path / "nope.mpz"), "-i", TEST)
    assert r.returncode == 1 and "not found" in r.stderr
    truncated = tmp_path / "t.mpz"
    truncated.write_bytes(open(model, "rb").read()[:500])
    with pytest.raises(ModelFileError, match="corrupt|truncated|not a maltpy"):
        maltpy.load(str(truncated))
    other = tmp_path / "o.mpz"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("maltpy.json", '{"magic": "maltpy-model", "format_version": 999}')
    with pytest.raises(ModelFileError, match="version 999"):
        maltpy.load(str(other))


def test_model_file_holds_no_pickle(model):
    with zipfile.ZipFile(model) as z:
        for name in z.namelist():
            if name.endswith(".npy"):
                import io
                arr = np.lib.format.read_array(io.BytesIO(z.read(name)), allow_pickle=False)
                assert arr.dtype != object


def test_help_and_unknown_settings(tmp_path):
    r = run("--help")
    assert r.returncode == 0 and "-nt" in r.stdout and "eval" in r.stdout
    import maltpy
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"maltpy {maltpy.__version__}"
    cfg = tmp_path / "c.yaml"
    cfg.write_text("modle: x.mpz\n")
    r = run("-c", str(cfg), "-m", "learn")
    assert r.returncode == 1 and "unknown setting 'modle'" in r.stderr


def test_convert_mode_and_convert_features(tmp_path):
    src = tmp_path / "a.conllu"
    src.write_text("# c\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\ta\tX\tXX\t_\t0\troot\t_\t_\n"
                   "2\tb\tb\tY\tYY\t_\t1\tdep\t_\t_\n\n")
    out = tmp_path / "a.conll"
    assert main(["-m", "convert", "-i", str(src), "-o", str(out), "-q"]) == 0
    assert out.read_text() == "1\ta\ta\tX\tXX\t_\t0\troot\t_\t_\n2\tb\tb\tY\tYY\t_\t1\tdep\t_\t_\n\n"
    xml = tmp_path / "m.xml"
    xml.write_text("<featuremodels><featuremodel name='x'><feature>InputColumn(POSTAG, Stack[0])</feature>"
                   "<feature>Merge(InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, ldep(Input[0])))</feature>"
                   "</featuremodel></featuremodels>")
    r = run("convert-features", str(xml))
    assert r.returncode == 0
    from maltpy.features.spec import load_feature_model
    assert len(load_feature_model(r.stdout).features) == 2


def test_python_api_and_enforce_tree(model):
    p = maltpy.load(model, enforce_tree=True)
    s = maltpy.Sentence.from_words(["the", "dog", "slept", "."], postags=["DT", "NN", "VBD", "."])
    out = p.parse([s])[0]
    assert is_tree([-1] + out.heads)
    p2 = maltpy.train(TRAIN, algorithm="nivrestandard", verbose=False)
    assert p2.parse([s])[0].heads[2] == 0


def test_a_model_keeps_its_tree_constraint_unless_the_parse_names_it(tmp_path):
    """As MaltParser keeps a model's process options: -m parse without -nt parses with the value the
    model was learned with (it used to take the flag's default, false); -nt false turns it off."""
    from maltpy.cli.main import _main_parser, _settings_from_args
    from maltpy.cli.parse import parse_overrides

    def overrides(*argv):
        settings, _, explicit, _ = _settings_from_args(_main_parser().parse_args(list(argv)))
        return parse_overrides(settings, explicit)
    assert "enforce_tree" not in overrides("-c", "m.mpz")
    assert overrides("-c", "m.mpz", "-nt", "false")["enforce_tree"] is False
    assert overrides("-c", "m.mpz", "-nt", "true")["enforce_tree"] is True
    learned = str(tmp_path / "nt.mpz")
    assert main(["-c", learned, "-m", "learn", "-i", TRAIN, "-nt", "true", "-q"]) == 0
    for flags, enforce in (([], True), (["-nt", "false"], False)):
        out = tmp_path / "out.conll"
        assert main(["-c", learned, "-i", TEST, "-o", str(out), "-q", *flags]) == 0
        expected = maltpy.load(learned, enforce_tree=enforce).parse(read_conll(TEST))
        assert [s.heads for s in read_conll(str(out), need_heads=True)] == [s.heads for s in expected]


def test_random_weights_parse_loop_gives_trees(model):
    """The C loop with random classifier scores: the tree constraint always yields one projective
    tree; without it, the output is a tree after the root heuristic."""
    rng = np.random.default_rng(7)
    for enforce in (True, False):
        p = maltpy.load(model, enforce_tree=enforce)
        p._set_model(replace(p.model, splits=[(k, rng.normal(size=(len(k), len(b))).astype(np.float32), b)
                                              for k, _, b in p.splits]))
        sents = read_conll(TEST) * 3
        for s in p.parse(sents):
            heads = [-1] + s.heads
            assert is_tree(heads)
            if enforce:
                assert is_projective(heads)


def test_train_on_swedish_sample_with_split(tmp_path):
    path = shared_file("swemalt-mini", "train.conll")
    sents = read_conll(path, need_heads=True)
    train, test = sents[:-100], sents[-100:]
    p = maltpy.Parser(split_column="POSTAG", split_structure="Input[0]", split_threshold=100,
                      verbose=False).fit(train)
    assert len(p.splits) > 2
    from maltpy.evaluation import evaluate
    assert evaluate(test, p.parse(test))["all"].las > 60


def test_learner_options_may_start_with_a_dash_as_in_maltparser(tmp_path):
    # -lo "-s 4 -c 0.2" is how MaltParser (and the README) writes learner options
    m = str(tmp_path / "lo.mpz")
    assert main(["-c", m, "-m", "learn", "-i", TRAIN, "-lo", "-s 4 -c 0.2 -e 0.1 -B -1", "-q"]) == 0
    assert maltpy.load(m).settings.learner_options == "-s 4 -c 0.2 -e 0.1 -B -1"


def test_python_api_refuses_strings_and_treeless_training_data(model):
    from maltpy.errors import MaltpyError
    parser = maltpy.load(model)
    with pytest.raises(MaltpyError, match="list of sentences"):
        parser.parse("Dogs bark")
    with pytest.raises(MaltpyError, match="list of words"):
        parser.parse(["Dogs", "bark"])
    assert len(parser.parse([["Dogs", "bark"]])[0]) == 2
    with pytest.raises(MaltpyError, match="gold trees"):
        maltpy.train([maltpy.Sentence.from_words(["Dogs", "bark"])])


def test_parse_never_reads_the_configurations_training_file(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"model: m.mpz\ninput: {TRAIN}\n")
    assert main(["-c", str(cfg), "-m", "learn", "-q"]) == 0          # input: is the learning input
    assert main(["-c", str(cfg), "-m", "parse", "-q"]) == 1          # ... and never parsed by accident
    assert "ambiguous" in capsys.readouterr().err
    cfg.write_text(f"model: m.mpz\nlearn_input: {TRAIN}\nparse_input: {TEST}\noutput: out.conll\n")
    assert main(["-c", str(cfg), "-m", "parse", "-q"]) == 0
    assert len(read_conll(str(tmp_path / "out.conll"))) == len(read_conll(TEST))
    # as in the shipped example (learn_input only): -m parse < file reads standard input
    cfg.write_text(f"model: m.mpz\nlearn_input: {TRAIN}\n")
    with open(TEST) as f:
        r = run("-c", str(cfg), "-m", "parse", "-q", stdin=f.read())
    assert r.returncode == 0 and r.stdout.count("\n\n") == len(read_conll(TEST))
    assert "learn_input:" in open(os.path.join(EXAMPLES, "toy.yaml")).read()


@pytest.mark.parametrize("solver", [0, 1, 2, 3, 5, 6, 7])
def test_every_advertised_liblinear_solver_trains_and_parses(tmp_path, solver):
    m, out = str(tmp_path / "s.mpz"), str(tmp_path / "s.conll")
    assert main(["-c", m, "-m", "learn", "-i", TRAIN, "-lo", f"-s {solver}", "-q"]) == 0
    assert main(["-c", m, "-i", TEST, "-o", out, "-q"]) == 0
    from maltpy.evaluation import evaluate
    assert evaluate(read_conll(TEST), read_conll(out, need_heads=True))["all"].las > 80


@pytest.mark.parametrize("args", [["-lo", "-c -1"], ["-lo", "-e 0"], ["-lo", "-c nan"], ["-lo", "-s 9"],
                                  ["-l", "libsvm", "-lo", "-c 0"], ["-l", "libsvm", "-lo", "-d 0"]])
def test_invalid_learner_options_are_refused(tmp_path, capsys, args):
    m = tmp_path / "bad.mpz"
    assert main(["-c", str(m), "-m", "learn", "-i", TRAIN, *args, "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("maltpy: error:") and err.count("\n") == 1
    assert not m.exists()


@pytest.mark.parametrize("args,setting", [(["-j", "-3"], "jobs"), (["-T", "-5"], "split_threshold"),
                                          (["-dir", "both", "-cv", "1"], "combination_folds")])
def test_out_of_range_numbers_are_refused(tmp_path, capsys, model, args, setting):
    m, out = tmp_path / "bad.mpz", tmp_path / "out.conll"
    assert main(["-c", str(m), "-m", "learn", "-i", TRAIN, *args, "-q"]) == 2   # a usage error
    err = capsys.readouterr().err
    assert err.startswith("maltpy: error:") and err.count("\n") == 1 and setting in err
    assert not m.exists()
    if setting == "jobs":   # parsing with -j -3 was an internal error (a semaphore with -3 permits)
        assert main(["-c", model, "-i", TEST, "-o", str(out), *args, "-q"]) == 2
        assert "jobs must be at least 0" in capsys.readouterr().err and not out.exists()
        with pytest.raises(MaltpyError, match="jobs"):
            maltpy.load(model).parse_file(TEST, str(out), jobs=-1)
        config = tmp_path / "c.yaml"
        config.write_text(f"model: {model}\njobs: -1\n")
        assert main(["-c", str(config), "-m", "parse", "-i", TEST, "-o", str(out), "-q"]) == 1
        assert "jobs must be at least 0" in capsys.readouterr().err and not out.exists()


def _slow_treebank(path, n_sentences=10000, seed=0):
    """Random words, tags, labels and trees: many features, a solver that takes well over the
    test's 4 s (4000 sentences took 4 s in all once learning got faster)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n_sentences):
        n = rng.randint(3, 15)
        for i in range(1, n + 1):
            h = 0 if i == 1 else rng.randint(1, i - 1)
            tag = f"T{rng.randint(0, 30)}"
            lines.append(f"{i}\tw{rng.randint(0, 3000)}\t_\t{tag}\t{tag}\t_\t{h}\tl{rng.randint(0, 20)}")
        lines.append("")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("learner_options", ["-e 0.0001", "-s 1 -e 0.0001"])
def test_ctrl_c_during_training_stops_at_once_without_a_model(tmp_path, learner_options):
    """maltpy's solver checks for the interrupt between instances; a scikit-learn solver is left
    behind (the process exits without waiting for it). Either way: no model file, exit 130."""
    train = tmp_path / "train.conll"
    _slow_treebank(train)
    model = tmp_path / "m.mpz"
    p = subprocess.Popen([sys.executable, "-m", "maltpy", "-c", str(model), "-m", "learn", "-i", str(train),
                          "-lo", learner_options], stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(4.0)  # reading and collecting take about a second; then the solver runs for many more
    assert p.poll() is None, "training ended before the interrupt: make the treebank harder"
    t0 = time.perf_counter()
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=30)[1]
    waited = time.perf_counter() - t0
    assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert waited < 2.0, f"took {waited:.1f} s to stop"
    assert sorted(tmp_path.iterdir()) == [train]


def test_internal_errors_are_one_line_and_debug_shows_tracebacks(monkeypatch, capsys, model):
    import maltpy.cli.main as cli

    def broken(*args, **kwargs):
        raise TypeError("a bug")

    monkeypatch.setattr(cli, "run_parse", broken)
    assert main(["-c", model, "-i", TEST]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (TypeError: a bug)" in err and "--debug" in err
    with pytest.raises(TypeError):
        main(["-c", model, "-i", TEST, "--debug"])
    monkeypatch.undo()
    with pytest.raises(ModelFileError):
        main(["--debug", "-c", os.path.join(os.path.dirname(model), "missing.mpz"), "-i", TEST])


@pytest.mark.parametrize("enabled", [True, False])
def test_reading_for_good_pauses_the_collector_and_puts_it_back(enabled):
    """The CLI reads whole treebanks with the cyclic garbage collector paused and then exempts
    what it read; the collector comes back as it was, also when reading fails."""
    import gc
    from maltpy.cli.common import _read_for_good
    from maltpy.errors import InputFormatError
    from maltpy.formats.conll import read_conll

    def read_and_look(path):
        assert not gc.isenabled()       # paused while the objects are made
        return read_conll(path, need_heads=True)

    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        frozen = gc.get_freeze_count()
        sentences = _read_for_good(read_and_look, os.path.join(EXAMPLES, "toy-test.conll"))
        assert gc.isenabled() == enabled and len(sentences) == 40
        assert gc.get_freeze_count() > frozen       # exempt from later collections
        with pytest.raises(InputFormatError):
            _read_for_good(read_conll, __file__)    # not CoNLL
        assert gc.isenabled() == enabled
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()


@pytest.mark.skipif(not (hasattr(os, "sched_getaffinity") and shutil.which("taskset")),
                    reason="no CPU affinity here")
def test_all_cores_means_the_cores_the_process_may_use(tmp_path):
    """-j 0 (the default) follows taskset or a container's cpuset, not the machine's core count."""
    code = "from maltpy.config import available_cores; print(available_cores())"
    # (started outside the checkout: Python started in it finds the unbuilt source first)
    pinned = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], capture_output=True,
                            text=True, check=True, cwd=tmp_path)
    assert pinned.stdout.split() == ["1"]
    from maltpy.config import available_cores
    assert available_cores() == len(os.sched_getaffinity(0))


_BLAS_THREADS = """
import contextlib, io
from maltpy.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["-h"])
    except SystemExit:
        pass
import numpy, threadpoolctl  # noqa: E401
print(*[i["num_threads"] for i in threadpoolctl.threadpool_info() if i["internal_api"] == "openblas"])
"""


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="one core: OpenBLAS starts no extra thread anyway")
def test_the_command_runs_blas_on_one_thread_unless_the_user_says(tmp_path):
    """maltpy's own threads do the parallel work: numpy's OpenBLAS gets one thread (its pool would
    busy-wait on the other cores), and a user's OPENBLAS_NUM_THREADS / OMP_NUM_THREADS is kept."""
    from maltpy.cli.main import BLAS_THREAD_VARIABLES
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    run = lambda env: subprocess.run([sys.executable, "-c", _BLAS_THREADS], capture_output=True,  # noqa: E731
                                     text=True, check=True, env=env, cwd=tmp_path).stdout.split()
    threads = run(clean)
    if not threads:
        pytest.skip("numpy is not built with OpenBLAS here")
    assert threads == ["1"]
    assert run({**clean, "OMP_NUM_THREADS": "2"}) == ["2"]
    assert run({**clean, "OPENBLAS_NUM_THREADS": "2"}) == ["2"]


def test_every_flag_refuses_a_value_its_setting_does_not_take_in_one_line(tmp_path, capsys):
    """A flag's values are checked by its setting (as YAML files and the API are), so a bad one
    is one line naming the flag and what it takes, exit status 2 (a usage error), for every flag alike."""
    from maltpy.config import choices, cli_flags
    allowed = choices()
    m = tmp_path / "bad.mpz"
    checked = []
    for name, flag in cli_flags():
        if name in allowed:
            bad = "no-such-value"
        elif name in ("jobs", "split_threshold", "combination_folds"):
            bad = "many"
        elif name in ("allow_root", "allow_reduce", "enforce_tree", "allow_shift", "acyclicity",
                      "no_covered_roots", "reduceonswitch"):
            bad = "maybe"
        else:
            continue
        assert main(["-c", str(m), "-m", "learn", "-i", TRAIN, flag.flag, bad, "-q"]) == 2, flag.flag
        err = capsys.readouterr().err
        assert err.startswith(f"maltpy: error: option {flag.flag}: {name} ") and err.count("\n") == 1, err
        assert all(value in err for value in allowed.get(name, ())), err
        checked.append(flag.flag)
    assert not m.exists()
    assert {"-a", "-l", "-if", "-bo", "-bal", "-ud", "-dir", "-pp", "-j", "-nr", "-cr", "-cv"} <= set(checked)
    # a negative number after a flag is its value, not a flag (argparse takes "-2" for "-2pr")
    assert main(["-c", str(m), "-m", "learn", "-i", TRAIN, "-j", "-2", "-q"]) == 2
    assert "jobs must be at least 0" in capsys.readouterr().err
    # a number too large for the C loops is one line too (it was an OverflowError; found by atheris)
    from maltpy.config import INT_MAXIMUM
    huge = "1" + "8" * 28
    for name, flag in cli_flags():
        if name in INT_MAXIMUM:
            assert main(["-c", str(m), "-m", "learn", "-i", TRAIN, flag.flag, huge, "-q"]) == 2, flag.flag
            err = capsys.readouterr().err
            assert f"{name} must be at most {INT_MAXIMUM[name][0]}" in err and err.count("\n") == 1, err
    assert {"jobs", "beam_width", "tagger_epochs"} <= set(INT_MAXIMUM)
    assert not m.exists()


def test_the_readme_lists_every_setting_with_its_flags():
    """Settings declares each setting once; the README's settings table names each of them with its
    flags, so a new option cannot arrive without a line for users."""
    import dataclasses
    from maltpy.config import Settings, cli_flags
    with open(os.path.join(os.path.dirname(EXAMPLES), "README.md"), encoding="utf-8") as f:
        rows = [line for line in f if line.startswith("| `")]
    flags = {}
    for name, flag in cli_flags():
        flags.setdefault(name, []).append(flag.flag)
    for field in dataclasses.fields(Settings):
        if field.name == "verbose":     # the CLI's -v / -q, not a setting a user writes
            continue
        row = [r for r in rows if f"`{field.name}`" in r.split(" | ")[0]]
        assert len(row) == 1, field.name
        assert all(f"`{flag}`" in row[0] for flag in flags.get(field.name, ())), (field.name, row[0])


def test_every_flags_help_names_its_settings_default():
    """A flag's help says its default in words; it must be the default its setting declares."""
    import dataclasses
    from maltpy.config import Settings, cli_flags
    defaults = {f.name: f.default for f in dataclasses.fields(Settings)}
    named = 0
    for name, flag in cli_flags():
        default = defaults[name]
        if default is None or default == "":      # decided from the data, or MaltParser's options
            continue
        text = str(default).lower() if isinstance(default, bool) else str(default)
        assert any(form in flag.help for form in (f"{text} (default", f"default {text}", f"({text}, default")), \
            (flag.flag, text, flag.help)
        named += 1
    assert named >= 25


def test_info_tells_what_a_model_holds(model, tmp_path, capsys):
    """maltpy info: the training settings that differ from the defaults (as flags), the learner, the
    training data's figures, the feature model (--features, usable with -F) and --json."""
    import json
    from maltpy.features.spec import load_feature_model
    n_sentences = len(read_conll(TRAIN))
    assert main(["info", model]) == 0
    out = capsys.readouterr().out
    lines = dict(line.split(None, 1) for line in out.splitlines() if line and not line.startswith(" "))
    assert lines["parser"] == "nivreeager" and lines["settings"] == "the defaults"
    assert lines["learner"] == "liblinear -s 4 -c 0.1 -e 0.1 -B -1"
    assert lines["training"].startswith(f"{n_sentences} sentences")
    # an undirected model: its setting as the flag a user would type
    undirected = str(tmp_path / "u.mpz")
    assert main(["-c", undirected, "-m", "learn", "-i", TRAIN, "-a", "2planar", "-ud", "label", "-q"]) == 0
    capsys.readouterr()
    assert main(["info", undirected, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["algorithm"] == "2planar" and info["settings"] == {"undirected": "label"}
    assert all(label.endswith(("_l", "_r")) for label in info["labels"] if label != "ROOT")
    assert main(["info", undirected]) == 0
    assert "settings     -ud label\n" in capsys.readouterr().out
    # the feature model comes out as a file -F takes
    assert main(["info", undirected, "--features"]) == 0
    text = capsys.readouterr().out
    assert str(load_feature_model(text, "info")) == str(maltpy.load(undirected).feature_model)
    # a damaged or missing file: one line
    bad = tmp_path / "bad.mpz"
    bad.write_bytes(b"PK\x03\x04 not a model")
    for path in (str(bad), str(tmp_path / "none.mpz")):
        assert main(["info", path]) == 1
        err = capsys.readouterr().err
        assert err.startswith("maltpy: error:") and err.count("\n") == 1


def test_info_shows_the_combination_a_both_ways_model_chose(tmp_path, capsys):
    both = str(tmp_path / "both.mpz")
    assert main(["-c", both, "-m", "learn", "-i", TRAIN, "-dir", "both", "-cv", "2", "-q"]) == 0
    combination = maltpy.load(both).combination
    assert main(["info", both]) == 0
    out = capsys.readouterr().out
    assert f"combination  {combination['criterion']} <= {combination['param']}, {combination['first']} first" in out
    assert "settings     -dir both -cv 2\n" in out
    assert "right-to-left parser:\n  parser       nivreeager\n  settings     -dir rtl -cv 2\n" in out


def test_info_never_trusts_the_figures_a_model_file_keeps(tmp_path, capsys):
    """train_stats and the combination's figures are for people: values that are not numbers
    (a hand-edited or damaged file) are left out, not printed or crashed on."""
    import json
    both = str(tmp_path / "both.mpz")
    assert main(["-c", both, "-m", "learn", "-i", TRAIN, "-dir", "both", "-cv", "2", "-q"]) == 0
    with zipfile.ZipFile(both) as z:
        members = {name: z.read(name) for name in z.namelist()}
    header = json.loads(members["maltpy.json"])
    header["train_stats"] = {"sentences": "many", "tokens": [1], "seconds": True, "instances": 5}
    header["combination"].update(las="high", sentences=None)
    members["maltpy.json"] = json.dumps(header).encode()
    edited = str(tmp_path / "edited.mpz")
    with zipfile.ZipFile(edited, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    capsys.readouterr()
    assert main(["info", edited]) == 0
    out = capsys.readouterr().out
    assert "training     5 decisions\n" in out
    assert f"combination  {header['combination']['criterion']} <= {header['combination']['param']}, " \
           f"{header['combination']['first']} first\n" in out
    assert main(["info", edited, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["training"] == {"instances": 5} and "las" not in info["combination"]
