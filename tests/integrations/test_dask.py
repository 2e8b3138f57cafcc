"""Parsing and experiments on a Dask LocalCluster with two workers: the same bytes as one process."""
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("distributed")

import maltpy  # noqa: E402
from maltpy.cli.main import main  # noqa: E402
from maltpy.errors import MaltpyError  # noqa: E402
from maltpy.formats.conll import parse_conll as read_conll_text, read_conll  # noqa: E402
from conftest import EXAMPLES  # noqa: E402

TEST = os.path.join(EXAMPLES, "toy-test.conll")
TRAIN = os.path.join(EXAMPLES, "toy-train.conll")


def assert_as_one_process(model, pairs, tmp_path):
    """Each output the cluster wrote is the bytes `maltpy -m parse -j 1` writes for its input."""
    for src, dst in pairs:
        single = tmp_path / "single.conll"
        assert main(["-c", model, "-i", src, "-o", str(single), "-j", "1", "-q"]) == 0
        with open(dst, "rb") as a:
            assert a.read() == single.read_bytes()


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            Client(c) as client:
        yield client


@pytest.fixture
def corpus(tmp_path):
    """Four input files of different sizes, one CoNLL-U with comments."""
    with open(TEST, "rb") as f:
        text = f.read()
    files = []
    for k in range(3):
        path = tmp_path / "in" / f"part{k}.conll"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(text * (k + 1))
        files.append(str(path))
    return files


def test_parse_files_on_two_workers_equals_one_process(model, corpus, cluster, tmp_path):
    from maltpy.integrations.dask import parse_files
    pairs = [(src, str(tmp_path / "dask" / os.path.basename(src))) for src in corpus]
    os.makedirs(tmp_path / "dask")
    results = parse_files(cluster, model, pairs)
    assert [r[:2] for r in results] == pairs
    workers = cluster.run(lambda: len(__import__("maltpy.integrations.dask", fromlist=["_PARSERS"])._PARSERS))
    assert len(workers) == 2 and all(n <= 1 for n in workers.values()), "a model loads once per worker"
    assert_as_one_process(model, pairs, tmp_path)


def test_a_beam_model_parses_on_the_cluster_as_in_one_process(corpus, cluster, tmp_path):
    """A globally trained beam model keeps its width and its raw sums on every worker."""
    from maltpy.integrations.dask import parse_files
    model = str(tmp_path / "beam.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-l", "perceptron", "-lo", "-i 3", "-b", "4",
                 "-j", "1", "-q"]) == 0
    pairs = [(src, str(tmp_path / "dask" / os.path.basename(src))) for src in corpus]
    os.makedirs(tmp_path / "dask")
    parse_files(cluster, model, pairs)
    assert_as_one_process(model, pairs, tmp_path)


def test_cli_dask_local_cluster_four_files(model, corpus, tmp_path):
    """maltpy -m parse --dask local:2 -i 'glob' -o outdir/: one output per input, the same bytes."""
    extra = tmp_path / "in" / "part3.conll"
    shutil.copy(corpus[0], extra)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-m", "parse", "--dask", "local:2",
                        "-i", str(tmp_path / "in" / "*.conll"), "-o", str(out) + "/", "-v"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=300)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == [f"part{k}.conll" for k in range(4)]
    assert "parsed 4 file(s)" in r.stderr
    for name in os.listdir(out):
        single = tmp_path / "single.conll"
        assert main(["-c", model, "-i", str(tmp_path / "in" / name), "-o", str(single), "-q"]) == 0
        assert (out / name).read_bytes() == single.read_bytes()


def test_parse_bag_equals_one_process(model, cluster, tmp_path):
    import dask.bag as db
    from maltpy.integrations.dask import parse_bag
    bag = db.read_text(TEST, linedelimiter="\n\n", blocksize=None).repartition(3)
    parsed = "".join(parse_bag(bag, model).compute())
    single = tmp_path / "single.conll"
    assert main(["-c", model, "-i", TEST, "-o", str(single), "-q"]) == 0
    assert parsed == single.read_text(encoding="utf-8")
    # Sentence objects too
    sents = db.from_sequence(read_conll(TEST), npartitions=4)
    assert "".join(parse_bag(sents, model).compute()) == parsed


def test_experiment_grid_on_the_cluster_equals_local(cluster):
    from maltpy.experiments.runner import Experiment, Treebank, run_experiments
    treebanks = [Treebank("toy", TRAIN)]
    experiments = [Experiment("nivreeager", "-a nivreeager"), Experiment("stackproj", "-a stackproj")]
    local = run_experiments(treebanks, experiments, 0.2, 1, log=lambda m: None)
    remote = run_experiments(treebanks, experiments, 0.2, 1, log=lambda m: None, client=cluster)
    for name in ("nivreeager", "stackproj"):
        assert remote["toy"][name]["las"] == local["toy"][name]["las"] > 50


def test_dask_errors_are_one_line(model, tmp_path):
    cases = [
        (["--dask", "local:2", "-i", TEST], "give an output directory"),
        (["--dask", "local:0", "-i", TEST, "-o", str(tmp_path) + "/"], "local:N with N >= 1"),
        (["--dask", "local:2", "-i", str(tmp_path / "none*.conll"), "-o", str(tmp_path) + "/"], "no files match"),
        (["--dask", "local:2", "-m", "learn", "-i", TEST], "--dask runs -m parse"),
        (["-i", str(tmp_path / "*.nothing"), "-o", str(tmp_path / "x") + "/"], "no files match"),
    ]
    for args, message in cases:
        r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model] + args, capture_output=True, text=True,
                           cwd=str(tmp_path), timeout=120)
        assert r.returncode == 1 and message in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)


def test_a_bad_file_on_the_cluster_is_one_line_and_the_others_are_written(model, corpus, tmp_path):
    """A bad input among several with --dask: its one-line error and the summary, nothing from the
    workers' logs (a task that raised made each worker log 'Compute Failed' and a traceback)."""
    bad = tmp_path / "in" / "zbad.conll"
    bad.write_text("not a CoNLL line\n")
    r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "--dask", "local:2", "-i",
                        str(tmp_path / "in" / "*.conll"), "-o", str(tmp_path / "out") + "/"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 1 and "Compute Failed" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and "zbad.conll:1:" in lines[0] and "1 of 4 files could not be parsed" in lines[1]
    assert sorted(os.listdir(tmp_path / "out")) == ["part0.conll", "part1.conll", "part2.conll"]


def test_several_files_without_dask(model, corpus, tmp_path):
    """-i 'glob' -o outdir/ also works in one process."""
    out = tmp_path / "plain"
    assert main(["-c", model, "-i", str(tmp_path / "in" / "part*.conll"), "-o", str(out) + "/", "-q"]) == 0
    assert sorted(os.listdir(out)) == ["part0.conll", "part1.conll", "part2.conll"]
    parser = maltpy.load(model)
    assert (out / "part0.conll").read_text(encoding="utf-8") == "".join(
        "\n".join(s.to_lines()) + "\n\n" for s in parser.parse(read_conll(corpus[0])))


def test_a_model_with_a_tagger_tags_and_parses_on_the_cluster_as_in_one_process(cluster, tmp_path):
    """A tagger-and-parser model file: files of untagged words, and a bag, give the bytes that
    one process gives."""
    import dask.bag as db
    from maltpy.formats.conll import format_sentences
    from maltpy.integrations.dask import parse_bag, parse_files
    model = str(tmp_path / "tagged.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "--tagger", "upos,xpos", "--tagger-folds", "2",
                 "-q"]) == 0
    words = [s.__class__([r[:2] + ["_"] * 8 for r in s.rows], format="conllx") for s in read_conll(TEST)]
    (tmp_path / "in").mkdir()
    sources = []
    for k in range(2):
        src = tmp_path / "in" / f"w{k}.conll"
        src.write_text(format_sentences(words[k * 10:(k + 1) * 30]))
        sources.append(str(src))
    pairs = [(src, str(tmp_path / "out" / os.path.basename(src))) for src in sources]
    os.makedirs(tmp_path / "out")
    parse_files(cluster, model, pairs)
    assert_as_one_process(model, pairs, tmp_path)
    bag = db.from_sequence([format_sentences([s]) for s in words[:20]], npartitions=3)
    out = parse_bag(bag, model).compute(scheduler=cluster.get)
    assert "".join(out) == format_sentences(maltpy.load(model).parse(words[:20]))
    tagged = parse_bag(bag, model, mode="tag").compute(scheduler=cluster.get)
    assert "".join(tagged) == format_sentences(maltpy.load(model).tag(words[:20]))
    assert all(row[6] == "_" for s in read_conll_text("".join(tagged)) for row in s.rows)


def test_tag_and_tokenize_run_on_the_cluster_as_in_one_process(model, cluster, tmp_path):
    """parse_files(mode='tag' / 'tokenize'), as -m tag and -m tokenize --dask run it: each file's
    output is the bytes the mode writes in one process; a model without a tagger is refused
    before anything is sent."""
    from maltpy.integrations.dask import parse_files
    parser_only = model
    model = str(tmp_path / "text.mpz")
    assert main(["-c", model, "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-text-train.conllu"), "--tokenizer",
                 "--tagger", "upos,xpos", "-q"]) == 0
    text = open(os.path.join(EXAMPLES, "toy-text-test.txt"), encoding="utf-8").read().split("\n\n")
    (tmp_path / "in").mkdir()
    sources = []
    for k in range(3):
        sources.append(str(tmp_path / "in" / f"t{k}.txt"))
        (tmp_path / "in" / f"t{k}.txt").write_text("\n\n".join(text[k::3]), encoding="utf-8")
    for mode in ("tag", "tokenize"):
        (tmp_path / mode).mkdir()
        pairs = [(src, str(tmp_path / mode / f"t{k}.conllu")) for k, src in enumerate(sources)]
        parse_files(cluster, model, pairs, "text" if mode == "tokenize" else None, mode=mode)
        for src, dst in pairs:
            single = tmp_path / "single.conllu"
            assert main(["-c", model, "-m", mode, "-i", src, "-o", str(single), "-j", "1", "-q"]) == 0
            with open(dst, "rb") as written:
                assert written.read() == single.read_bytes() != b""
    with pytest.raises(MaltpyError, match="has no tagger"):
        parse_files(cluster, parser_only, pairs, mode="tag")


def test_raw_text_files_become_trees_on_the_cluster_as_in_one_process(tmp_path):
    """A tokenizer, tagger and parser model over a directory of .txt files with --dask: each file's
    CoNLL-U (named .conllu) is the bytes one process writes for it."""
    model = str(tmp_path / "text.mpz")
    assert main(["-c", model, "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-text-train.conllu"), "--tokenizer",
                 "--tagger", "upos,xpos", "-q"]) == 0
    (tmp_path / "in").mkdir()
    text = open(os.path.join(EXAMPLES, "toy-text-test.txt"), encoding="utf-8").read()
    paragraphs = text.split("\n\n")
    for k in range(3):
        (tmp_path / "in" / f"t{k}.txt").write_text("\n\n".join(paragraphs[k::3]), encoding="utf-8")
    assert main(["-c", model, "-m", "parse", "--dask", "local:2", "-i", str(tmp_path / "in" / "*.txt"),
                 "-o", str(tmp_path / "out") + os.sep, "-q"]) == 0
    assert sorted(os.listdir(tmp_path / "out")) == ["t0.conllu", "t1.conllu", "t2.conllu"]
    assert_as_one_process(model, [(str(tmp_path / "in" / f"t{k}.txt"), str(tmp_path / "out" / f"t{k}.conllu"))
                                  for k in range(3)], tmp_path)
