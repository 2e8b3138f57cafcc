"""The model-file container (maltpy.parsing.modelfile): arrays that deflate shrinks little are
stored as they are, the others deflated, and both read back the same; arrays read as the fields of
one record array arrive whole, converted, and checked."""
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maltpy.errors import ModelFileError
from maltpy.parsing.modelfile import DEFLATE_WHEN, load_model, save_model

RECORD = np.dtype([("cls", np.int32), ("w", np.float32)])


def _saved(tmp_path, arrays):
    path = str(tmp_path / "m.mpz")
    save_model(path, {"what": "test"}, arrays)
    return path


def test_noise_is_stored_and_what_deflates_well_is_deflated(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"noise": rng.normal(size=50_000).astype(np.float32),      # deflate keeps ~90 %
              "steps": np.repeat(np.arange(500, dtype=np.int64), 100),   # deflate keeps a few %
              "tiny": np.arange(10, dtype=np.int32)}
    path = _saved(tmp_path, arrays)
    with zipfile.ZipFile(path) as z:
        kinds = {i.filename: i.compress_type for i in z.infolist()}
        sizes = {i.filename: (i.compress_size, i.file_size) for i in z.infolist()}
    assert kinds["arrays/noise.npy"] == zipfile.ZIP_STORED
    assert kinds["arrays/steps.npy"] == zipfile.ZIP_DEFLATED
    assert sizes["arrays/steps.npy"][0] <= DEFLATE_WHEN * sizes["arrays/steps.npy"][1]
    _, back = load_model(path)
    for name, arr in arrays.items():
        assert back[name].dtype == arr.dtype and np.array_equal(back[name], arr)


def test_the_same_model_makes_the_same_bytes_whenever_it_is_written(monkeypatch):
    """Model files do not hold the time they were written (zip's member times, to two seconds,
    made a model written twice differ now and then: a round-trip test failed by the clock)."""
    import zipfile as zipfile_module

    from maltpy.parsing.modelfile import model_bytes
    arrays = {"noise": np.random.default_rng(0).normal(size=5_000).astype(np.float32), "tiny": np.arange(3)}
    made = []
    for now in (1_000_000_000.0, 1_000_000_003.0):      # three seconds apart
        monkeypatch.setattr(zipfile_module.time, "time", lambda: now)
        made.append(model_bytes({"what": "test"}, arrays))
    assert made[0] == made[1]


def test_arrays_not_wanted_are_not_read(tmp_path):
    """``wanted`` leaves the other members unread: one damaged beyond reading does not matter."""
    # values that neither narrow nor deflate: the damage lands in the member's own bytes
    arrays = {"a": np.random.default_rng(0).integers(0, 2 ** 62, 5_000), "b": np.arange(7, dtype=np.int32)}
    path = _saved(tmp_path, arrays)
    with pytest.raises(ModelFileError, match="corrupt"):
        load_model(_damaged(path, tmp_path, "arrays/a.npy"))
    header, back = load_model(_damaged(path, tmp_path, "arrays/a.npy"), wanted=lambda h: {"b"})
    assert set(back) == {"b"} and np.array_equal(back["b"], arrays["b"])
    assert header["arrays"] == ["a", "b"]      # the header still lists them all


def _damaged(path, tmp_path, member):
    """A copy of the model file ``path`` whose ``member``'s stored bytes are flipped (its CRC fails)."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    data = bytearray(open(path, "rb").read())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + 200, start + 210):
        data[i] ^= 0xFF
    out = tmp_path / "damaged.mpz"
    out.write_bytes(bytes(data))
    return str(out)


def _fields(names):
    return {"rec": (RECORD, {"cls": "c", "w": "v"})}


def test_fields_are_read_into_one_record_array_in_their_place(tmp_path):
    rng = np.random.default_rng(1)
    c = rng.integers(0, 300, size=100_000).astype(np.uint16)     # several 64 KB pieces
    v = rng.normal(size=100_000)                                  # float64, read as float32
    path = _saved(tmp_path, {"c": c, "v": v, "other": np.arange(3)})
    _, arrays = load_model(path, records=_fields)
    assert set(arrays) == {"rec", "other"}
    rec = arrays["rec"]
    assert rec.dtype == RECORD and len(rec) == len(c)
    assert np.array_equal(rec["cls"], c) and np.array_equal(rec["w"], v.astype(np.float32))


@pytest.mark.parametrize("c,v,why", [
    (np.array([1, 2 ** 40]), np.zeros(2, np.float32), "do not fit"),
    (np.array([1, 2]), np.array([0.0, np.inf], np.float32), "not finite"),
    (np.array([1, 2]), np.array([0.0, 1e300]), "not finite"),            # overflows float32
    (np.array([1, 2]), np.zeros(3, np.float32), "differ in length"),
    (np.array([1.5, 2.0]), np.zeros(2, np.float32), "not a column"),
    (np.zeros((2, 1), np.int32), np.zeros(2, np.float32), "not a column"),
])
def test_fields_that_do_not_fit_are_refused_on_one_line(tmp_path, c, v, why):
    path = _saved(tmp_path, {"c": c, "v": v})
    with pytest.raises(ModelFileError, match=why) as e:
        load_model(path, records=_fields)
    assert "\n" not in str(e.value)


def test_a_model_goes_to_bytes_and_back_in_memory(monkeypatch):
    """to_bytes/from_bytes make and read the model file in memory: no temporary file (-dir both
    keeps its right-to-left model inside), and the same parses as a file."""
    import tempfile
    import maltpy
    from maltpy.formats.conll import read_conll
    from maltpy.parsing.parser import Parser
    from conftest import EXAMPLES
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    test = read_conll(f"{EXAMPLES}/toy-test.conll")
    parser = maltpy.train(train, direction="both", combination_folds=2, verbose=False, jobs=1)

    def no_files(*args, **kwargs):
        raise AssertionError("a temporary file was made")
    monkeypatch.setattr(tempfile, "mkstemp", no_files)
    data = parser.to_bytes()
    again = Parser.from_bytes(data)
    assert Parser.from_bytes(again.to_bytes()).to_bytes() == again.to_bytes()   # a loaded model's bytes are stable
    assert [s.rows for s in again.parse(test)] == [s.rows for s in parser.parse(test)]
    with pytest.raises(ModelFileError, match="<model bytes>: corrupt or truncated"):
        Parser.from_bytes(data[:len(data) // 2])


def _with_header(data: bytes, change) -> bytes:
    """A model file's bytes with its JSON header changed by ``change`` (the arrays as they are)."""
    import io
    import json
    src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            payload = src.read(info)
            if info.filename == "maltpy.json":
                header = json.loads(payload)
                change(header)
                payload = json.dumps(header).encode("utf-8")
            dst.writestr(info, payload)
    return out.getvalue()


@pytest.fixture(scope="module")
def toy_parser():
    """A parser learned from the example treebank, and its model file's bytes."""
    import maltpy
    from maltpy.formats.conll import read_conll
    from conftest import EXAMPLES
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    parser = maltpy.train(train, verbose=False, jobs=1, features="NivreEagerLeanWords")
    return parser, parser.to_bytes()


def test_the_parsed_feature_model_is_stored_and_read_without_yaml(tmp_path, toy_parser):
    """A model file keeps its features parsed (``feature_list``) beside the YAML text: loading
    reads them (no YAML parsed), a file without them reads the text as before, and a damaged
    list is refused on one line."""
    import subprocess
    import sys
    from maltpy.formats.conll import read_conll
    from maltpy.parsing.parser import Parser
    from conftest import EXAMPLES
    test = read_conll(f"{EXAMPLES}/toy-test.conll")
    parser, data = toy_parser
    loaded = Parser.from_bytes(data)
    assert loaded.feature_model == parser.feature_model
    assert loaded.feature_text == parser.feature_text
    old = Parser.from_bytes(_with_header(data, lambda h: h.pop("feature_list")))    # a file of before
    assert old.feature_model == parser.feature_model
    assert [s.rows for s in old.parse(test)] == [s.rows for s in loaded.parse(test)] == \
        [s.rows for s in parser.parse(test)]
    code = ("import sys, maltpy.parsing.parser as p; p.Parser.from_bytes(sys.stdin.buffer.read()); "
            "print('yaml' in sys.modules)")
    # started outside the clone, as a user's Python: in it the uncompiled source would come first
    assert subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, cwd=tmp_path,
                          check=True).stdout.strip() == b"False"

    def damage(h):
        h["feature_list"]["features"][0] = "InputColumn(FORM, Input[0]"
    for change in (damage, lambda h: h.update(feature_list=[]), lambda h: h["feature_list"].update(features=[3])):
        with pytest.raises(ModelFileError, match="feature_list") as e:
            Parser.from_bytes(_with_header(data, change))
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("damage", [
    lambda t: t.append(7),                 # not a string
    lambda t: t.append(t[-1]),             # a symbol twice
    lambda t: t.append([t[-1]]),           # a list inside
])
def test_symbol_tables_that_are_not_distinct_strings_are_refused_on_one_line(damage, toy_parser):
    from maltpy.parsing.parser import Parser
    data = toy_parser[1]
    assert Parser.from_bytes(_with_header(data, lambda h: None)).to_bytes() == data
    with pytest.raises(ModelFileError, match="token_tables must hold lists of distinct strings") as e:
        Parser.from_bytes(_with_header(data, lambda h: damage(next(t for t in h["token_tables"] if t))))
    assert "\n" not in str(e.value)


INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@st.composite
def integer_arrays(draw):
    """An integer array of any width, its values anywhere in its type's range or near 0, sorted
    (row pointers, offsets) or not, or empty."""
    dtype = np.dtype(draw(st.sampled_from(INTEGER_TYPES)))
    info = np.iinfo(dtype)
    span = draw(st.sampled_from([(info.min, info.max), (max(info.min, -3), min(info.max, 300)), (0, 1)]))
    values = draw(st.lists(st.integers(*span), max_size=60))
    arr = np.array(values, dtype=dtype)
    return np.sort(arr) if draw(st.booleans()) else arr


@settings(max_examples=300, deadline=None)
@given(arrays=st.lists(integer_arrays(), min_size=1, max_size=4), as_record=st.booleans())
def test_integer_arrays_come_back_as_they_were_written(arrays, as_record):
    """Integer arrays are written in the narrowest type that holds them (or as their steps, where
    they never fall) and read back in their own type, value for value; also as a record's field."""
    from maltpy.parsing.modelfile import model_bytes
    named = {f"a{i}": a for i, a in enumerate(arrays)}
    data = model_bytes({"what": "test"}, named)
    _, back = load_model("<bytes>", data=data)
    for name, arr in named.items():
        assert back[name].dtype == arr.dtype and np.array_equal(back[name], arr)
    arr = arrays[0]
    if as_record and arr.ndim == 1 and (not arr.size or (arr.min() >= -2 ** 31 and arr.max() < 2 ** 31)):
        data = model_bytes({"what": "test"}, {"c": arr, "v": np.zeros(len(arr), np.float32)})
        _, back = load_model("<bytes>", data=data, records=_fields)
        assert np.array_equal(back["rec"]["cls"], arr)


def test_row_pointers_are_written_a_byte_a_row():
    """A parser's row pointers (int64, small steps) take a byte a row in the file, and its
    classes (few) a byte each: the bytes inflated on loading, most of it."""
    import io
    from maltpy.parsing.modelfile import model_bytes
    rng = np.random.default_rng(0)
    indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 20, 100_000))]).astype(np.int64)
    cols = rng.integers(0, 126, int(indptr[-1])).astype(np.uint16)
    with zipfile.ZipFile(io.BytesIO(model_bytes({"what": "test"}, {"indptr": indptr, "cols": cols}))) as z:
        sizes = {i.filename: i.file_size for i in z.infolist()}
    assert sizes["arrays/indptr.npy"] < len(indptr) + 200
    assert sizes["arrays/cols.npy"] < len(cols) + 200


def test_a_file_of_format_version_1_is_read():
    """Files written before arrays were narrowed (format version 1) read as they always did."""
    import io
    import json
    out = io.BytesIO()
    arr = np.arange(1_000, dtype=np.int64)
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("maltpy.json", json.dumps({"magic": "maltpy-model", "format_version": 1, "arrays": ["a"]}))
        buf = io.BytesIO()
        np.lib.format.write_array(buf, arr)
        z.writestr("arrays/a.npy", buf.getvalue())
    _, back = load_model("<bytes>", data=out.getvalue())
    assert back["a"].dtype == np.int64 and np.array_equal(back["a"], arr)


@pytest.mark.parametrize("record", [
    ["object", "values"], ["int64", "squeezed"], "int64", ["int64"], ["float64", "values"],
    ["int8", "values"],            # narrower than the array as written
])
def test_a_damaged_record_of_narrowed_arrays_is_refused_on_one_line(record):
    from maltpy.parsing.modelfile import model_bytes
    data = model_bytes({"what": "test"}, {"a": np.random.default_rng(0).permutation(1_000)})    # as uint16
    for change in (lambda h: h["narrowed"].update(a=record), lambda h: h["narrowed"].update(b=["int64", "values"])):
        with pytest.raises(ModelFileError, match="corrupt or truncated") as e:
            load_model("<bytes>", data=_with_header(data, change))
        assert "\n" not in str(e.value)


def test_steps_that_would_overflow_their_type_are_refused():
    from maltpy.parsing.modelfile import model_bytes
    data = model_bytes({"what": "test"}, {"a": np.array([0, 200, 400], dtype=np.int16)})
    assert load_model("<bytes>", data=data)[1]["a"].tolist() == [0, 200, 400]
    with pytest.raises(ModelFileError, match="do not fit"):
        load_model("<bytes>", data=_with_header(data, lambda h: h["narrowed"].update(a=["int8", "deltas"])))
