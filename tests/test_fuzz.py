"""A short run of the fuzz targets (fuzz/targets.py), the crashes fuzzing found, and hypothesis
strategies over the Python API. The long run is benchmarks/fuzzing.py."""
import io
import json
import os
import random
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, random_tree

sys.path.append(ROOT)  # after the installed maltpy: only fuzz/ comes from the checkout
from fuzz import targets as F  # noqa: E402

import maltpy  # noqa: E402
from maltpy.config import make_settings  # noqa: E402
from maltpy.errors import MaltpyError, ModelFileError  # noqa: E402
from maltpy.formats.conll import Sentence, format_sentences, parse_conll  # noqa: E402
from maltpy.parsing.parser import Parser  # noqa: E402


@pytest.fixture(scope="module")
def harness():
    return F.Harness()


@pytest.mark.parametrize("target,cases", [("conll", 600), ("features", 40), ("model", 80), ("parse", 200),
                                          ("ptb", 300), ("export", 600), ("discbracket", 600), ("discparse", 300),
                                          ("cli", 300),
                                          ("config", 150), ("api", 400), ("tag", 400), ("pipeline_model", 150)])
def test_short_fuzz_run(harness, target, cases):
    """Random mutations of the seeds: maltpy's own error or correct behaviour, nothing else."""
    rng = random.Random(f"short-{target}")
    fn, seeds = getattr(harness, target), harness.seeds(target)
    mutate = F.MUTATORS.get(target, F.mutate)
    failures = []
    for _ in range(cases):
        data = mutate(rng.choice(seeds), rng)
        err = F.run_one(fn, data)
        if err is not None:
            failures.append((type(err).__name__, str(err)[:200], data[:120]))
    assert failures == []


REGRESSIONS = os.path.join(ROOT, "fuzz", "regressions")


@pytest.mark.parametrize("name", sorted(os.listdir(REGRESSIONS)))
def test_inputs_the_fuzzer_found(harness, name):
    """Saved fuzzer finds, named TARGET-what.bin: each once ended in an exception or a broken invariant."""
    with open(os.path.join(REGRESSIONS, name), "rb") as f:
        data = f.read()
    err = F.run_one(getattr(harness, name.split("-")[0]), data)
    assert err is None, f"{type(err).__name__}: {err}"


def test_seeds_go_all_the_way(harness, monkeypatch):
    """The seeds are valid: each one parses (a refused seed would fuzz only the error paths)."""
    parsed = []
    monkeypatch.setattr(F.Harness, "_check_parses",
                        lambda self, p, s: parsed.append(len(p.parse(s))))
    for target in ("features", "model", "parse"):
        seeds = harness.seeds(target)
        if target == "model":  # the raw and the header-only seeds; the others change values
            seeds = [d for d in seeds if d[0] % 4 in (0, 1)]
        before = len(parsed)
        for data in seeds:
            getattr(harness, target)(data)
        assert len(parsed) - before == len(seeds), target


def test_command_line_seeds_succeed_and_failures_are_caught(harness, monkeypatch):
    """Every cli and config seed runs to status 0 in the scratch directory, which is restored afterwards;
    a status other than 0 or 2 is a failure of the target."""
    import maltpy.cli.main as cli
    before = {name: open(os.path.join(harness.cli_dir, name), "rb").read() for name in os.listdir(harness.cli_dir)}
    # maltpy's own error would raise here, and a usage error returns 2: a seed that only reaches an error path
    assert [harness.cli(data) for data in harness.seeds("cli")] == [0] * len(harness.seeds("cli"))
    assert [harness.config(data) for data in harness.seeds("config")] == [0] * len(harness.seeds("config"))
    after = {name: open(os.path.join(harness.cli_dir, name), "rb").read() for name in os.listdir(harness.cli_dir)}
    assert after == before
    assert F.run_one(harness.cli, b"--bogus-flag") is None          # a usage error (2) is behaviour
    assert F.run_one(harness.cli, b"eval\n..\nx") is None            # outside the scratch directory: not run
    monkeypatch.setattr(cli, "cmd_eval", lambda argv: 1 / 0)
    monkeypatch.setitem(cli.SUBCOMMANDS, "eval", cli.cmd_eval)
    assert isinstance(F.run_one(harness.cli, b"eval\ntrain.conll\ntrain.conll"), ZeroDivisionError)


def _with_header(harness, change, model=0):
    """A model file whose JSON header is the valid one changed by ``change(header)``."""
    blob = harness.model_bytes[model]
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        header = json.loads(z.read(F.HEADER))
    change(header)
    text = json.dumps(header) if not isinstance(header, bytes) else header
    return F._replace_member(blob, F.HEADER, text.encode("utf-8") if isinstance(text, str) else text)


def _set(path, value):
    def change(h):
        node = h
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


# Each of these ended in a traceback (TypeError, AttributeError, OverflowError, KeyError,
# IndexError, tokenize.TokenError...) before the header and arrays were checked at load time.
HEADER_CASES = [
    ("arrays", None), ("arrays", [1]), ("feature_model", 7), ("format", "\t"), ("format", None),
    ("labels", ["a", 5]), ("labels", ["a\tb"]), ("labels", []), ("labels", ["x", "x"]),
    ("n_classes", 2 ** 70), ("n_classes", True), ("n_splits", 0), ("n_splits", 10 ** 9),
    ("default_split", -1), ("default_split", 1.5), ("token_tables", [[1, 2]]), ("token_tables", []),
    ("rag_tables", None), ("deprel_values", [0]), ("deprel_values", "x"), ("train_stats", []),
    ("settings", None), ("settings", {"algorithm": None}), ("settings", {"planar_root_handling": "bogus"}),
    ("settings", {"split_threshold": [1]}), ("settings", {"learner_options": "-c -1"}),
    ("settings", {"learner": "perceptron"}), ("settings", {"bogus": 1}), ("magic", "x"),
]


@pytest.mark.parametrize("key,value", HEADER_CASES)
def test_damaged_header_is_refused_with_one_line(harness, tmp_path, key, value):
    path = tmp_path / "m.mpz"
    path.write_bytes(_with_header(harness, _set([key], value)))
    with pytest.raises(ModelFileError) as e:
        Parser.load(str(path))
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_json_constants_infinity_and_nan_are_refused(harness, tmp_path):
    path = tmp_path / "m.mpz"
    blob = _with_header(harness, _set(["n_splits"], 1))
    path.write_bytes(blob.replace(b'"n_splits": 1', b'"n_splits": Infinity'))
    with pytest.raises(ModelFileError, match="corrupt"):
        Parser.load(str(path))


ARRAY_CASES = [
    ("split_map", np.array([5], dtype=np.int32)),           # a split model that does not exist
    ("split_map", np.array(["a"])),                          # text
    ("keys0", np.array([1, 1], dtype=np.uint64)),            # repeated feature keys
    ("keys0", np.zeros((2, 2), dtype=np.uint64)),            # wrong rank
    ("w0_indptr", np.array([0, -1], dtype=np.int64)),
    ("w0_cols", np.array([70000], dtype=np.int64)),          # a class that does not exist
    ("w0_cols", np.array([-1], dtype=np.int64)),
    ("w0_cols", np.array([2 ** 40], dtype=np.int64)),        # wraps to a class if read as int32
    ("w0_cols", np.zeros((1, 1), dtype=np.uint16)),          # wrong rank
    ("w0_cols", np.array([1.0])),                            # classes that are not integers
    ("w0_vals", np.array([np.nan], dtype=np.float32)),
    ("w0_vals", np.zeros(0, dtype=np.float32)),              # fewer weights than classes
    ("w0_vals", np.array([1], dtype=np.int32)),              # weights that are not floats
    ("bias0", np.array([np.inf], dtype=np.float32)),
]


@pytest.mark.parametrize("name,array", ARRAY_CASES, ids=[f"{n}-{k}" for k, (n, _) in enumerate(ARRAY_CASES)])
def test_damaged_array_is_refused(harness, tmp_path, name, array):
    path = tmp_path / "m.mpz"
    path.write_bytes(F._replace_member(harness.model_bytes[F.ALGORITHMS.index("nivreeager")],
                                       f"arrays/{name}.npy", F._npy(array)))
    with pytest.raises(ModelFileError) as e:
        Parser.load(str(path))
    assert "\n" not in str(e.value)


def _with_array(blob, name, change):
    """The model ``blob`` with its array ``name`` passed through ``change``."""
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        arr = np.load(io.BytesIO(z.read(f"arrays/{name}.npy")))
    return F._replace_member(blob, f"arrays/{name}.npy", F._npy(change(arr)))


def test_classes_and_weights_are_read_in_any_integer_and_float_type_that_holds_them(harness, tmp_path):
    """Loading inflates them piece by piece into the table's records, converting as it goes."""
    blob = harness.model_bytes[F.ALGORITHMS.index("nivreeager")]
    path = tmp_path / "m.mpz"
    sentences = harness.gold[:20]
    expected = [(s.heads, s.labels) for s in Parser.load(_write(path, blob)).parse(sentences)]
    wide = _with_array(_with_array(blob, "w0_cols", lambda a: a.astype(np.int64)),
                       "w0_vals", lambda a: a.astype(np.float64))
    assert [(s.heads, s.labels) for s in Parser.load(_write(path, wide)).parse(sentences)] == expected

    def too_big(a):
        a = a.astype(np.int64)
        a[len(a) // 2] += 2 ** 40     # read as an int32 it would wrap to the class it was
        return a
    with pytest.raises(ModelFileError, match="do not fit") as e:
        Parser.load(_write(path, _with_array(blob, "w0_cols", too_big)))
    assert "\n" not in str(e.value)


def _write(path, blob):
    path.write_bytes(blob)
    return str(path)


def test_damaged_npy_header_is_refused(harness, tmp_path):
    """numpy's .npy header reader raised tokenize.TokenError on this."""
    bad = F._npy(np.zeros(3, dtype=np.int32)).replace(b"'fortran_order': False,", b"'fortran_order': ,)False,")
    path = tmp_path / "m.mpz"
    path.write_bytes(F._replace_member(harness.model_bytes[0], "arrays/split_map.npy", bad))
    with pytest.raises(ModelFileError, match="corrupt"):
        Parser.load(str(path))


def test_byte_flips_load_identically_or_are_refused(harness, tmp_path):
    """A sample of benchmarks/fuzzing.py's sweep (every 23rd byte; the benchmark does them all)."""
    blob = harness.model_bytes[F.ALGORITHMS.index("nivreeager")]
    path = str(tmp_path / "m.mpz")
    sentences = harness.gold[:5]

    def parse_with(data):
        with open(path, "wb") as f:
            f.write(data)
        return [(s.heads, s.labels) for s in Parser.load(path).parse(sentences)]

    expected = parse_with(blob)
    outcomes = {"same": 0, "refused": 0}
    for pos in range(0, len(blob), 23):
        try:
            assert parse_with(blob[:pos] + bytes([blob[pos] ^ 0xFF]) + blob[pos + 1:]) == expected
            outcomes["same"] += 1
        except ModelFileError as e:
            assert "\n" not in str(e)
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0


def test_unchecked_integer_column_with_a_huge_value(harness, tmp_path):
    """PHEAD is not checked by the reader; InputArc(PHEAD, ..) read 99999999999 as an int32 (OverflowError)."""
    feats = tmp_path / "f.yaml"
    feats.write_text(F.RICH_FEATURES)
    p = Parser(features=str(feats), verbose=False).fit(harness.train_sample, fmt="conllx")
    text = F.RICH_CONLLX.decode().replace("\t2\tnsubj\n", "\t99999999999\tnsubj\n")
    out = p.parse(parse_conll(text, "conllx"))
    assert len(out[0]) == 3


# ------------------------------------------------------------------ the Python API
words = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentence=st.lists(words, min_size=0, max_size=12))
def test_from_words_either_refuses_or_parses_and_round_trips(harness, sentence):
    parser = harness.parsers[F.ALGORITHMS.index("nivreeager")]
    try:
        s = Sentence.from_words(sentence)
    except MaltpyError:
        assert any(w == "" or set(w) & set("\t\n\r") for w in sentence) or not sentence
        return
    out = parser.parse([s])
    back = parse_conll(format_sentences(out), "conllx", need_heads=True)
    assert back[0].forms == [str(w) for w in sentence]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10 ** 6), algorithm=st.sampled_from(F.ALGORITHMS))
def test_train_on_random_trees_then_parse_well_formed(seed, algorithm):
    """maltpy.train on random sentences and trees (any algorithm, projective or not): outputs are trees."""
    rng = random.Random(seed)
    sentences = []
    for _ in range(rng.randint(1, 6)):
        n = rng.randint(1, 7)
        heads = random_tree(rng, n)
        tags = [rng.choice("ABC") for _ in range(n)]
        s = Sentence.from_words([f"w{rng.randint(0, 5)}" for _ in range(n)], postags=tags)
        sentences.append(s.with_tree(heads[1:], [rng.choice(["x", "y", "root"]) for _ in range(n)]))
    parser = maltpy.train(sentences, algorithm=algorithm, verbose=False, jobs=1)
    for s in parser.parse(sentences):
        heads = s.heads
        assert all(0 <= h <= len(heads) and h != k + 1 for k, h in enumerate(heads))


odd_heads = st.one_of(st.integers(-3, 12), st.integers(-2 ** 70, 2 ** 70), st.none(), st.booleans(),
                      st.floats(), st.text(max_size=3))
odd_labels = st.one_of(st.sampled_from(["root", "nsubj", "obj", "_", "nsubj:pass"]), st.none(), st.integers(),
                       st.text(max_size=4))


@settings(max_examples=300, deadline=None)
@given(trees=st.lists(st.tuples(st.integers(1, 6), st.lists(odd_heads, max_size=7),
                                st.lists(odd_labels, max_size=7)), min_size=1, max_size=3),
       algorithm=st.sampled_from(F.ALGORITHMS), fmt=st.sampled_from(["conllx", "conllu"]))
def test_api_refuses_bad_trees_in_one_line_or_trains_and_parses(trees, algorithm, fmt):
    """Random heads, labels and lengths through Sentence.with_tree, maltpy.train and parse: maltpy's own
    one-line error, or a parser whose parses are trees; never a crash or another exception. Whatever
    trains must be a gold tree the CoNLL reader accepts, and whatever is refused, the reader refuses."""
    sentences = []
    try:
        for n, heads, labels in trees:
            sentences.append(Sentence.from_words(["w"] * n, postags=["T"] * n).with_tree(heads, labels))
    except MaltpyError as e:
        assert "\n" not in str(e)
        return
    text = format_sentences(sentences)
    try:
        parse_conll(text, fmt, need_heads=True)
        readable = True
    except MaltpyError:
        readable = False
    try:
        parser = maltpy.train(sentences, algorithm=algorithm, input_format=fmt, verbose=False, jobs=1)
    except MaltpyError as e:
        assert "\n" not in str(e) and not readable
        return
    assert readable
    for s in parser.parse([s.forms for s in sentences]):
        heads = s.heads
        assert all(0 <= h <= len(heads) and h != k + 1 for k, h in enumerate(heads))


setting_values = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(),
                           st.text(max_size=12), st.lists(st.integers(), max_size=2))


@settings(max_examples=200, deadline=None)
@given(values=st.dictionaries(st.sampled_from(["algorithm", "split_threshold", "enforce_tree", "null_value",
                                               "marking_strategy", "learner", "jobs", "root_label",
                                               "input_format", "covered_root", "nonsense"]),
                              setting_values, max_size=3))
def test_settings_are_checked_at_the_boundary(values):
    try:
        s = make_settings(**values)
    except MaltpyError as e:
        assert "\n" not in str(e)
        return
    assert isinstance(s.algorithm, str) and isinstance(s.split_threshold, int)
