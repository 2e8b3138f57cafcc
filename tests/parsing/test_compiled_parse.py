"""The compiled parse path (maltpy.formats.scan, maltpy.parsing.intern, maltpy.parsing.stream)
against the Python path it replaces on -m parse: the same bytes out, the same errors."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import maltpy
from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.conll import format_sentences, read_conll, to_conllx
from maltpy.formats.scan import Scanner
from maltpy.parsing.intern import ByteTable
from maltpy.parsing.parser import Parser
from maltpy.parsing.stream import parse_bytes, read_chunks, unsupported
from maltpy.search.step import Scoring
from conftest import EXAMPLES, ROOT

sys.path.append(ROOT)  # the fuzzing harness's checks (append: the installed maltpy stays first)
from fuzz.targets import RICH_CONLLU, RICH_CONLLX, RICH_FEATURES, FuzzFailure, check_compiled_reader  # noqa: E402

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")

# pieces of CoNLL lines, valid and not: what the reader must treat exactly as Python does
WORDS = ["a", "é", "日本", "x|y", "_", "#", "1"]
NOISE = [b"\t", b"1", b"0", b"-", b".", b"#", b"_", b"\r", b" ", b"\n", b"\n\n", "\u3000".encode(),
         "\u00a0".encode(), "\u2028".encode(), b"\x1c", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf",
         b"-0", b"007", b"-3", b"|"]


@st.composite
def conll_bytes(draw, conllu: bool):
    """Sentences of CoNLL lines with a few random edits: mostly valid, sometimes not."""
    out = []
    for _ in range(draw(st.integers(0, 4))):
        n = draw(st.integers(1, 5))
        if draw(st.booleans()):
            out.append("# sent id")
        for i in range(1, n + 1):
            if conllu and i < n and draw(st.integers(0, 6)) == 0:
                out.append(f"{i}-{i + 1}\tab" + "\t_" * 8)
            if conllu and draw(st.integers(0, 8)) == 0:
                out.append(f"{i - 1}.1\tz" + "\t_" * 8)
            ncol = 10 if conllu else draw(st.sampled_from([6, 7, 8, 10]))
            head = draw(st.sampled_from(["_", str(draw(st.integers(0, n)))]))
            cols = [str(i), draw(st.sampled_from(WORDS)), "l", "N", "NN", "F=1|G=2", head, "dep", "_", "_"]
            out.append("\t".join(cols[:ncol]))
        out.append(draw(st.sampled_from(["", "", "\r", " ", "\u3000"])))
    if draw(st.booleans()):
        out.append("# trailing comment")
    data = bytearray("\n".join(out).encode("utf-8") + draw(st.sampled_from([b"", b"\n"])))
    for _ in range(draw(st.integers(0, 2))):
        pos = draw(st.integers(0, len(data)))
        data[pos:pos + draw(st.integers(0, 2))] = draw(st.sampled_from(NOISE))
    return bytes(data)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), conllu=st.booleans(), block=st.sampled_from([1, 2, 5, 64, 1 << 20]))
def test_compiled_reader_agrees_with_the_python_reader(data, conllu, block):
    """Accepts what Python accepts and writes it back the same, or refuses it with the same
    one-line error (file:line), whatever the block size."""
    raw = data.draw(conll_bytes(conllu))
    fmt = "conllu" if conllu else "conllx"
    try:
        expected = read_conll(io.BytesIO(raw), fmt)
    except MaltpyError as e:
        expected = str(e)
    check_compiled_reader(raw, fmt, expected, block)


def test_the_check_itself_can_fail():
    """check_compiled_reader notices a different message and a different output."""
    raw = b"1\ta\t_\tN\tN\t_\n\n"
    with pytest.raises(FuzzFailure):
        check_compiled_reader(raw, "conllx", "<input>:1: some other message", 64)
    with pytest.raises(FuzzFailure):
        check_compiled_reader(raw, "conllx", read_conll(io.BytesIO(raw + raw)), 64)


def _chunks_of(raw: bytes, fmt: str, drop_extra: bool, block: int):
    """The chunks the compiled reader cuts ``raw`` into; None where it refuses the input."""
    try:
        return list(read_chunks(io.BytesIO(raw), Scanner(fmt, "in", drop_extra), block))
    except MaltpyError:
        return None


@settings(max_examples=300, deadline=None)
@given(data=st.data(), conllu=st.booleans(), drop_extra=st.booleans(), block=st.sampled_from([5, 64, 1 << 20]))
def test_a_chunk_made_while_fields_are_written_is_the_scan_of_what_is_written(data, conllu, drop_extra, block):
    """``Chunk.with_fields`` (a pipeline's tagger handing its chunk to the parser) gives the chunk
    that scanning ``render_fields``'s bytes gives: the same bytes, words, fields, sentences and
    lines, the same output when the parser renders its trees into it (comments, multiword
    lines, trailing comments of the last chunk and CoNLL-U to CoNLL-X included)."""
    fmt = "conllu" if conllu else "conllx"
    chunks = _chunks_of(data.draw(conll_bytes(conllu)), fmt, drop_extra and conllu, block)
    if chunks is None:
        return
    between = "conllx" if drop_extra and conllu else fmt
    values = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r"), min_size=1,
                     max_size=4)
    for chunk in chunks:
        # a tagger's columns and others; never ID or HEAD, which a scan checks (with_fields refuses them)
        columns = data.draw(st.lists(st.sampled_from([1, 2, 3, 4, 5, 7, 8, 9]), max_size=4, unique=True))
        pool_values = data.draw(st.lists(values, min_size=1, max_size=5))
        pool = "".join(pool_values).encode("utf-8")
        offsets = np.cumsum([0] + [len(v.encode("utf-8")) for v in pool_values])
        n = chunk.n_words
        picks = np.array(data.draw(st.lists(st.integers(-1, len(pool_values) - 1), min_size=len(columns) * n,
                                            max_size=len(columns) * n)), dtype=np.int64).reshape(len(columns), n)
        starts = np.where(picks >= 0, offsets[np.maximum(picks, 0)], -1).astype(np.int64)
        ends = np.where(picks >= 0, offsets[np.maximum(picks, 0) + 1], -1).astype(np.int64)
        cols = np.array(columns, dtype=np.int32)
        written = chunk.render_fields(cols, starts, ends, pool)
        if not chunk.n_sentences:
            continue
        made = chunk.with_fields(cols, starts, ends, pool)
        scanned = Scanner(between, "in").feed(written)
        assert (made.n_words, made.n_items, made.n_sentences) == (scanned.n_words, scanned.n_items,
                                                                   scanned.n_sentences)
        assert made.lengths() == scanned.lengths()
        assert (made.conllu, made.drop_extra, made.final) == (scanned.conllu, scanned.drop_extra, scanned.final)
        for k in range(10):
            for spans in (made.field_spans(k, (k + 3) % 10), made.word_spans(k)):
                other = scanned.field_spans(k, (k + 3) % 10) if len(spans[1]) != n else scanned.word_spans(k)
                assert spans[0] == other[0] == written
                assert spans[1].tolist() == other[1].tolist() and spans[2].tolist() == other[2].tolist()
        heads, labels = [], []
        for length in made.lengths():
            heads += [-1] + [(i + 1) % (length + 1) for i in range(1, length + 1)]
            labels += [-1] + [i % 2 for i in range(1, length + 1)]
        trees = (np.array(heads, dtype=np.int32), np.array(labels, dtype=np.int32), [b"nsubj", b"obj"])
        assert made.render(*trees) == scanned.render(*trees)
        assert made.word_line(0, 1) == chunk.word_line(0, 1)


def test_a_chunk_is_not_made_with_fields_that_would_break_its_lines():
    """A replaced field that is empty or holds a tab or a line break would make lines of other
    columns, a replaced ID or HEAD sentences a scan refuses: refused (the bytes alone are
    written as given)."""
    chunk = _chunks_of(b"1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "conllu", False, 64)[0]
    cols = np.array([3], dtype=np.int32)
    for pool, start, end in ((b"A\tB", 0, 3), (b"A\nB", 0, 3), (b"X", 0, 0)):
        with pytest.raises(ValueError):
            chunk.with_fields(cols, np.array([[start]], dtype=np.int64), np.array([[end]], dtype=np.int64), pool)
    for column in (0, 6):     # ID and HEAD: what a scan checks, never replaced unchecked
        with pytest.raises(ValueError):
            chunk.with_fields(np.array([column], dtype=np.int32), np.array([[0]], dtype=np.int64),
                              np.array([[1]], dtype=np.int64), b"1")
    twice = (np.array([3, 3], dtype=np.int32), np.zeros((2, 1), dtype=np.int64), np.ones((2, 1), dtype=np.int64), b"N")
    for write in (chunk.render_fields, chunk.with_fields):     # a column replaced twice: which one?
        with pytest.raises(ValueError):
            write(*twice)
    made = chunk.with_fields(cols, np.array([[0]], dtype=np.int64), np.array([[4]], dtype=np.int64), b"NOUN")
    assert made.word_spans(3)[0] == b"1\ta\t_\tNOUN\t_\t_\t0\troot\t_\t_\n\n"


def test_errors_name_file_and_line_and_come_after_the_sentences_before_them():
    good = b"1\tDogs\t_\tN\tN\t_\n2\tbark\t_\tV\tV\t_\n\n" * 5
    scanner = Scanner("conllx", "in.conll")
    chunks = read_chunks(io.BytesIO(good + b"1\tno tabs here\n\n"), scanner, 1 << 20)
    assert next(chunks).n_sentences == 5
    with pytest.raises(InputFormatError, match=r"^in.conll:16: expected 6 to 10 tab-separated columns"):
        next(chunks)
    with pytest.raises(InputFormatError, match=r"^in.conll:3: no sentences found: .* only comments"):
        list(read_chunks(io.BytesIO(b"# only a comment\n\n\n"), Scanner("conllx", "in.conll"), 64))
    with pytest.raises(InputFormatError, match=r"in.conll:3: invalid UTF-8 \(byte 0xff\)"):
        list(read_chunks(io.BytesIO(b"\n\n1\tb\xffd\t_\tN\tN\t_\n"), Scanner("conllx", "in.conll"), 64))


def test_a_sentence_that_never_ends_is_refused_past_the_limit(monkeypatch):
    """/dev/zero (or a file that lost its blank lines) is one sentence that grows until memory
    runs out: past MAX_HELD_BYTES it is a one-line error naming the line it starts on, and
    the sentences before it come out first. A sentence under the limit is read whole."""
    import maltpy.formats.pieces as pieces
    monkeypatch.setattr(pieces, "MAX_HELD_BYTES", 4096)
    good = b"1\tDogs\t_\tN\tN\t_\n2\tbark\t_\tV\tV\t_\n\n" * 3
    chunks = read_chunks(io.BytesIO(good + b"\0" * 100_000), Scanner("conllx", "in.conll"), 256)
    assert next(chunks).n_sentences == 3
    with pytest.raises(MaltpyError, match=r"^in.conll:10: the sentence that starts here runs past 0 MB"):
        list(chunks)
    long_one = b"".join(b"%d\tw\t_\tN\tN\t_\n" % (k + 1) for k in range(200)) + b"\n"   # about 3 KB
    assert sum(c.n_sentences for c in read_chunks(io.BytesIO(long_one), Scanner("conllx", "in.conll"), 256)) == 1


def test_byte_table_looks_up_what_the_symbol_table_holds():
    table = ByteTable({"dog": 1, "é": 2, "日本": 3, None: 4, "\ud800": 5})
    assert [table.get(s) for s in ("dog", "é", "日本", "cat", "", "\ud800")] == [1, 2, 3, -1, -1, 5]


# spellings as a clusters file's table keeps them: no line break, none empty
SPELLING = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(SPELLING, min_size=1, max_size=60, unique=True), st.lists(SPELLING, max_size=20),
       st.booleans())
def test_a_table_of_lines_finds_each_line_and_nothing_else(spellings, others, as_array):
    """The cluster tables' form (UTF-8 lines and an id each, bytes or a model file's uint8
    array) finds every line's id and the missing id for anything else, as the dict form does."""
    ids = np.arange(3, 3 + len(spellings), dtype=np.int32)
    lines = "\n".join(spellings).encode("utf-8")
    table = ByteTable(ids, np.frombuffer(lines, dtype=np.uint8) if as_array else lines, 2)
    by_dict = ByteTable(dict(zip(spellings, ids.tolist())))
    for s, i in zip(spellings, ids.tolist()):
        assert table.get(s) == by_dict.get(s) == i
    for s in others:
        if s not in spellings:
            assert table.get(s) == 2 and by_dict.get(s) == -1
    for s in {s[:-1] for s in spellings} | {s + "x" for s in spellings}:   # a prefix or extension is another string
        if s not in spellings:
            assert table.get(s) == 2


def test_a_table_of_lines_refuses_ids_of_another_number():
    for lines, n in ((b"a\nb", 1), (b"a", 2), (b"a\nb\nc", 2), (b"", 0)):
        with pytest.raises(ValueError, match="the lines and their ids do not match"):
            ByteTable(np.arange(3, 3 + n, dtype=np.int32), lines, 2)


@pytest.fixture(scope="module")
def parsers(tmp_path_factory):
    """Models that exercise every column kind: plain, Suffix/Prefix, Split, InputArc, pseudo-projective
    labels, CoNLL-U input, a data split."""
    tmp = tmp_path_factory.mktemp("compiled")
    features = tmp / "rich.yaml"
    features.write_text(RICH_FEATURES, encoding="utf-8")
    gold = read_conll(TRAIN, need_heads=True)[:120]
    rich = read_conll(io.BytesIO(RICH_CONLLX), need_heads=True) * 5
    conllu = read_conll(io.BytesIO(RICH_CONLLU), "conllu", need_heads=True) * 5
    out = {
        "default": Parser(verbose=False).fit(gold, fmt="conllx"),
        "rich": Parser(verbose=False, features=str(features)).fit(gold + rich, fmt="conllx"),
        "head+path": Parser(verbose=False, marking_strategy="head+path", algorithm="nivrestandard").fit(
            gold, fmt="conllx"),
        "split": Parser(verbose=False, split_column="POSTAG", split_structure="Input[0]", split_threshold=20).fit(
            gold, fmt="conllx"),
        "conllu": Parser(verbose=False).fit(conllu + [to_conllu(s) for s in gold[:40]], fmt="conllu"),
        "2planar": Parser(verbose=False, algorithm="2planar").fit(gold, fmt="conllx"),
        "libsvm": Parser(verbose=False, learner="libsvm", split_column="POSTAG", split_structure="Input[0]",
                         split_threshold=30).fit(gold, fmt="conllx"),
    }
    return out


def to_conllu(sentence):
    return maltpy.Sentence([r[:8] + ["_", "_"] for r in sentence.rows], [], 0, "<x>")


def _python_output(parser, data: bytes, fmt: str, drop_extra: bool = False) -> bytes:
    parsed = parser.parse(read_conll(io.BytesIO(data), fmt))
    if drop_extra:
        parsed = [to_conllx(s) for s in parsed]
    return format_sentences(parsed).encode("utf-8")


@pytest.mark.parametrize("name", ["default", "rich", "head+path", "split", "2planar", "libsvm"])
@pytest.mark.parametrize("jobs,block", [(1, 1 << 20), (2, 300), (1, 7)])
def test_compiled_parse_writes_the_python_paths_bytes(parsers, name, jobs, block):
    """Whatever the model, the chunking or the number of threads: the same output bytes."""
    parser = parsers[name]
    assert unsupported(parser) is None
    with open(TEST, "rb") as f:
        data = f.read() + RICH_CONLLX * 3
    assert parse_bytes(parser, data, "conllx", jobs=jobs, block_size=block) == _python_output(parser, data, "conllx")


def test_pseudo_projective_sentences_are_decoded(parsers):
    """The head+path model decodes some sentences (moves words, strips marks) and the compiled path
    decodes the same ones."""
    parser = parsers["head+path"]
    with open(TRAIN, "rb") as f:
        data = f.read()
    out = parse_bytes(parser, data, "conllx", jobs=2, block_size=4096).decode("utf-8")
    assert "|" not in "".join(line.split("\t")[7] for line in out.splitlines() if line)
    assert out.encode("utf-8") == _python_output(parser, data, "conllx")


@pytest.mark.parametrize("drop_extra", [False, True])
def test_conllu_multiword_tokens_comments_and_conversion(parsers, drop_extra):
    parser = parsers["conllu"]
    data = RICH_CONLLU * 4 + b"# trailing comment\n"
    out = parse_bytes(parser, data, "conllu", drop_extra=drop_extra, block_size=50)
    assert out == _python_output(parser, data, "conllu", drop_extra)
    assert (b"1-2\tDon't" in out) != drop_extra and (b"# trailing" in out) != drop_extra


def test_a_regular_expression_split_uses_the_python_path(tmp_path):
    features = tmp_path / "re.yaml"
    features.write_text("features:\n  - InputColumn(POSTAG, Stack[0])\n  - Split(InputColumn(FEATS, Input[0]), [|;])\n")
    parser = Parser(verbose=False, features=str(features)).fit(read_conll(io.BytesIO(RICH_CONLLX), need_heads=True))
    assert unsupported(parser)
    out = tmp_path / "out.conll"
    src = tmp_path / "in.conll"
    src.write_bytes(RICH_CONLLX)
    assert parser.parse_file(str(src), str(out), jobs=2) == (1, 3)
    assert out.read_bytes() == _python_output(parser, RICH_CONLLX, "conllx")


def test_cli_parse_output_is_the_same_with_one_or_two_threads(model, tmp_path):
    """-j 1 and -j 2 through the command, a file and a pipe."""
    with open(TEST, "rb") as f:
        data = f.read() * 20
    src = tmp_path / "in.conll"
    src.write_bytes(data)
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}.conll"
        r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-i", str(src), "-o", str(out), "-j", jobs],
                           capture_output=True, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr
        outputs.append(out.read_bytes())
        r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-j", jobs], input=data,
                           capture_output=True, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr
        outputs.append(r.stdout)
    assert len(set(outputs)) == 1
    assert outputs[0] == _python_output(maltpy.load(model), data, "conllx")


@pytest.mark.parametrize("options", [
    {"algorithm": "covnonproj"},
    {"algorithm": "covproj", "allow_root": False},
    {"algorithm": "covnonproj", "allow_shift": True},
    {"algorithm": "covnonproj", "undirected": "label"},
    {"algorithm": "covnonproj", "undirected": "naive"},
    # the split feature reads Left[0]: the split model changes during a walk over λ1
    {"algorithm": "covnonproj", "split_column": "POSTAG", "split_structure": "Left[0]", "split_threshold": 5},
    {"algorithm": "covproj", "split_column": "POSTAG", "split_structure": "Right[0]", "split_threshold": 5},
])
def test_kept_scores_give_the_decisions_of_scores_computed_at_every_decision(options):
    """Covington keeps the scores of the features of Right[i] over a walk of Left[0]; they must
    be what computing them afresh gives, whatever the context, the arcs and the split model do."""
    from maltpy.search.greedy import parse_sequential
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    test = read_conll(f"{EXAMPLES}/toy-test.conll", need_heads=True)
    p = Parser(verbose=False, jobs=1, **options).fit(train)
    system = p.system(False)
    features = p.feature_model.features
    stable = p.extractor.stable_parts(system)[-len(features):]     # one flag per template, last
    kept = {str(f) for f, s in zip(features, stable) if s}
    # exactly the features whose addresses are all Right[i]
    assert kept and kept == {str(f) for f in features if "Left" not in str(f) and "Context" not in str(f)}
    # and the scores remembered per Left[0]: exactly the features whose addresses are all Left[i]
    cached = {str(f) for f, c in zip(features, p.extractor.cached_templates(system)) if c}
    assert cached and cached == {str(f) for f in features if "Right" not in str(f) and "Context" not in str(f)}
    corpus = p.encode(test + test[::-1])
    model = p.search_model()
    kept_heads, kept_labels = parse_sequential(model.step(corpus.max_n), corpus)
    fresh_heads, fresh_labels = parse_sequential(model.step(corpus.max_n, Scoring.KEPT_AFRESH), corpus)
    assert kept_heads.tolist() == fresh_heads.tolist() and kept_labels.tolist() == fresh_labels.tolist()
    assert (kept_heads[1:] >= 0).sum() > len(test)   # it parsed


def test_systems_without_stable_addresses_keep_nothing_and_arc_eager_caches_for_beams_only():
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)[:30]
    for algorithm in ("nivreeager", "2planar", "stackproj"):
        p = Parser(algorithm=algorithm, verbose=False, jobs=1).fit(train)
        assert not p.extractor.stable_parts(p.system(False)).any()
        cached = p.extractor.cached_templates(p.system(False))
        model = p.search_model()
        assert model.step(50).caches == 0
        # arc-eager remembers scores per buffer front, stack top and pair, in a beam's step only
        assert model.step(50, Scoring.CACHED).caches == (3 if algorithm == "nivreeager" else 0)
        assert cached.any() == (algorithm == "nivreeager")


def _first_best(scores, runs):
    """The arg-max as the loop wrote it before: a scan that keeps the first of equal scores."""
    best = -1
    for lo, end in runs:
        for c in range(lo, end):
            if best < 0 or scores[c] > scores[best]:
                best = c
    return best


def _scores_and_runs(data, max_classes):
    """(the values scores are drawn from, scores, runs over them): ties (few distinct values,
    signed zeros), runs of every length and position."""
    n = data.draw(st.integers(1, max_classes))
    values = data.draw(st.sampled_from([[-1.0, 0.0, -0.0, 2.5], [float(v) for v in range(-3, 4)]]))
    scores = np.array(data.draw(st.lists(st.sampled_from(values) | st.floats(-1e3, 1e3, width=32),
                                         min_size=n, max_size=n)), dtype=np.float32)
    cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=0, max_size=6)))
    return values, scores, [(a, b) for a, b in zip(cuts[::2], cuts[1::2]) if a < b]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_arg_max_over_runs_is_the_first_best_permissible_class(data):
    """Ties (few distinct values, signed zeros), runs of every length and position."""
    from maltpy.search.decision import best_of_runs
    _, scores, runs = _scores_and_runs(data, 40)
    got = best_of_runs(scores, [a for a, _ in runs], [b for _, b in runs])
    assert got == _first_best(scores, runs)
    if runs:
        assert any(a <= got < b for a, b in runs)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_maximum_and_the_classes_reaching_a_floor_over_runs(data):
    """A beam step's bookkeeping (sixteen classes at a time, then four, then one) against a
    plain scan: runs of every length and position, ties, signed zeros, floors at a score."""
    from maltpy.search.decision import classes_reaching, max_of_runs
    values, scores, runs = _scores_and_runs(data, 90)
    lo, hi = [a for a, _ in runs], [b for _, b in runs]
    inside = [c for a, b in runs for c in range(a, b)]
    assert max_of_runs(scores, lo, hi) == (max(scores[inside]) if inside else -np.inf)
    floor = data.draw(st.sampled_from(values) | st.floats(-1e3, 1e3, width=32) | st.just(-np.inf))
    assert classes_reaching(scores, lo, hi, floor) == [c for c in inside if scores[c] >= np.float32(floor)]
