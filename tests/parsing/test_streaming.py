"""Streaming: iter_conll reads block by block, Parser.parse takes any iterable, and
-m parse reads, parses and writes chunk by chunk (flat memory, early output in pipes)."""
import io
import os
import select
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import maltpy
from maltpy.errors import InputFormatError, MaltpyError
from maltpy.formats.conll import iter_conll, parse_conll, read_conll
from maltpy.chunks import chunked
from conftest import EXAMPLES

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")



lines = st.lists(st.sampled_from([
    "1\tDogs\tdog\tN\tNNS\t_\t2\tnsubj", "2\tbark\tbark\tV\tVBP\t_\t0\troot", "", "# a comment",
    "1\tJa\tja\tX\tX\t_\t0\troot\t_\t_", "\ufeff1\tx\tx\tX\tX\t_\t0\troot", "1\tä\tä\tX\tX\t_\t0\troot\r",
]), max_size=14)


@settings(max_examples=200, deadline=None)
@given(lines=lines, block=st.integers(1, 64), final_newline=st.booleans())
def test_iter_conll_reads_blocks_as_read_conll_reads_the_whole(lines, block, final_newline):
    """Whatever the block size: the same sentences, or the same error at the same line."""
    text = "\n".join(lines) + ("\n" if final_newline else "")
    data = text.encode("utf-8")
    try:
        expected = [(s.rows, s.extra, s.first_line) for s in parse_conll(data.decode("utf-8").lstrip("\ufeff"))]
    except MaltpyError as e:
        expected = str(e)
    try:
        got = [(s.rows, s.extra, s.first_line) for s in iter_conll(io.BytesIO(data), "conllx", block_size=block)]
    except MaltpyError as e:
        got = str(e)
    assert got == expected


def test_invalid_utf8_in_a_later_block_names_its_line(tmp_path):
    path = tmp_path / "bad.conll"
    good = b"1\tDogs\t_\tN\tN\t_\n2\tbark\t_\tV\tV\t_\n\n" * 50
    path.write_bytes(good + b"1\tb\xffd\t_\tN\tN\t_\n\n")
    with pytest.raises(InputFormatError, match=r"bad.conll:151: invalid UTF-8"):
        list(iter_conll(str(path), block_size=100))


def test_iter_conll_is_lazy(tmp_path):
    """The first sentence comes before a bad line further on is read."""
    path = tmp_path / "late-error.conll"
    path.write_text("1\tDogs\t_\tN\tN\t_\n\n" * 3 + "1 no tabs here\n\n")
    sentences = iter_conll(str(path), block_size=16)
    assert len(next(sentences)) == 1
    with pytest.raises(InputFormatError, match=":7:"):
        list(sentences)


def test_chunks_grow_to_their_size():
    assert [len(c) for c in chunked(range(100), 40, first=8)] == [8, 16, 32, 40, 4]


def test_parse_takes_any_iterable_and_yields_the_list_results(model):
    parser = maltpy.load(model)
    expected = parser.parse(read_conll(TEST))
    stream = parser.parse(iter_conll(TEST))
    assert not isinstance(stream, list)
    got = list(stream)
    assert [s.to_lines() for s in got] == [s.to_lines() for s in expected]
    from_generator = list(parser.parse(s for s in read_conll(TEST)))
    assert [s.heads for s in from_generator] == [s.heads for s in expected]
    words = [s.forms for s in read_conll(TEST)]   # lists of words are sentences too
    assert [s.forms for s in parser.parse(iter(words))] == words


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True,
                          timeout=120, cwd=EXAMPLES, **kwargs)


def test_parse_output_equals_the_whole_file_parse(model, tmp_path):
    """-m parse writes, chunk by chunk, what Parser.parse gives on the whole file (several chunks)."""
    big = tmp_path / "big.conll"
    with open(TEST) as f:
        big.write_text(f.read() * 60)   # 2,400 sentences: chunks of 16, 32, ... 1000
    out = tmp_path / "out.conll"
    assert run("-c", model, "-i", str(big), "-o", str(out)).returncode == 0
    expected = maltpy.load(model).parse(read_conll(str(big)))
    assert out.read_text() == "".join("\n".join(s.to_lines()) + "\n\n" for s in expected)


@pytest.mark.skipif(os.name == "nt", reason="select() on pipes is POSIX")
def test_pipe_output_starts_before_the_input_ends(model):
    with open(TEST) as f:
        blocks = f.read().strip("\n").split("\n\n")
    p = subprocess.Popen([sys.executable, "-m", "maltpy", "-c", model], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, cwd=EXAMPLES, bufsize=1)
    try:
        for block in blocks[:20]:   # more than the first chunk (16), input left open
            p.stdin.write(block + "\n\n")
        p.stdin.flush()
        # maltpy must write before the input ends (waiting for EOF would wait forever here)
        ready, _, _ = select.select([p.stdout], [], [], 60)
        assert ready, "no output within 60 s while the input stays open"
        assert p.stdout.readline().startswith("1\t")
    finally:
        p.stdin.close()
        p.stdout.read()
        p.wait(timeout=60)
    assert p.returncode == 0


def test_error_mid_stream_leaves_no_output_file_and_stdout_keeps_what_came_before(model, tmp_path):
    with open(TEST) as f:
        good = f.read()
    bad = tmp_path / "bad.conll"
    bad.write_text(good * 3 + "1\tno\theads\n\n")
    out = tmp_path / "out.conll"
    r = run("-c", model, "-i", str(bad), "-o", str(out))
    assert r.returncode == 1 and f"{bad}:{good.count(chr(10)) * 3 + 1}:" in r.stderr
    assert not out.exists() and os.listdir(tmp_path) == ["bad.conll"]
    r = run("-c", model, "-i", str(bad))
    assert r.returncode == 1 and r.stdout.count("\n\n") >= 16


def test_closed_pipe_ends_quietly(model, tmp_path):
    big = tmp_path / "big.conll"
    with open(TEST) as f:
        big.write_text(f.read() * 100)
    r = subprocess.run(f"'{sys.executable}' -m maltpy -c '{model}' -i '{big}' | head -n 3",
                       shell=True, capture_output=True, text=True, cwd=EXAMPLES, timeout=120)
    assert r.stdout.count("\n") == 3 and r.stderr == ""


def test_write_conll_streams_an_iterator_into_a_file_that_appears_whole(model, tmp_path):
    parser = maltpy.load(model)
    out = tmp_path / "out.conll"

    def parses_then_fails():
        yield from parser.parse(iter_conll(TEST))
        assert not out.exists()   # still being written, under a temporary name
        raise MaltpyError("stop")

    with pytest.raises(MaltpyError):
        maltpy.write_conll(parses_then_fails(), str(out))
    assert os.listdir(tmp_path) == []
    maltpy.write_conll(parser.parse(iter_conll(TEST)), str(out))
    assert out.read_text() == "".join("\n".join(s.to_lines()) + "\n\n" for s in parser.parse(read_conll(TEST)))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(1, 12))
def test_cross_validation_folds_cover_the_items_once_each(n, k):
    """chunks.folds: k contiguous parts in order that make up the items, each with the others as
    its training items, sizes within one of each other."""
    from maltpy.chunks import folds
    items = list(range(n))
    parts = folds(items, k)
    assert len(parts) == k
    assert [x for _, part in parts for x in part] == items
    for rest, part in parts:
        assert sorted(rest + part) == items and not set(rest) & set(part)
        if part:                                            # contiguous (k > n leaves some empty)
            assert part == list(range(part[0], part[0] + len(part)))
    sizes = [len(part) for _, part in parts]
    assert max(sizes) - min(sizes) <= 1
