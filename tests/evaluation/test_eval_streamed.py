"""``maltpy eval`` of two files of the same words reads them side by side, a thousand sentences
at a time (maltpy.cli.evaluate._eval_streamed): the same report as the whole files read at once,
for both CoNLL formats; anything else (other words, no trees) is left to the whole-file path."""
import os
import random

import pytest

from conftest import EXAMPLES
from maltpy.cli import evaluate as cli_eval
from maltpy.cli.main import main
from maltpy.formats.conll import format_sentences, read_conll


def _report(capsys, args, streamed: bool, monkeypatch):
    if not streamed:
        monkeypatch.setattr(cli_eval, "_eval_streamed", lambda a, fmt: False)
    code = main(["eval", *args])
    monkeypatch.undo()
    return code, capsys.readouterr()


def _damaged(sentences, seed):
    """The sentences with random heads and labels changed (each still a tree: attached to 0)."""
    rng = random.Random(seed)
    out = []
    for s in sentences:
        rows = [list(r) for r in s.rows]
        for r in rows:
            if rng.random() < 0.3:
                r[6], r[7] = "0", rng.choice(["root", "nsubj:pass", "obj", "punct"])
        if not any(r[6] == "0" for r in rows):
            rows[0][6] = "0"
        out.append(type(s)(rows, s.extra, s.first_line, s.source, s.format))
    return out


@pytest.mark.parametrize("fmt", ["conllx", "conllu"])
@pytest.mark.parametrize("copies", [1, 30])         # 30: 1,200 sentences, two pieces
def test_streamed_report_is_the_whole_files_report(tmp_path, capsys, monkeypatch, fmt, copies):
    gold = read_conll(os.path.join(EXAMPLES, "toy-test.conll"), "conllx") * copies
    gold = [type(s)(s.rows, [], s.first_line, s.source, fmt) for s in gold]
    paths = [tmp_path / f"gold.{fmt}", tmp_path / f"system.{fmt}"]
    paths[0].write_text(format_sentences(gold), encoding="utf-8")
    paths[1].write_text(format_sentences(_damaged(gold, copies)), encoding="utf-8")
    for extra in ([], ["--undirected"]):
        args = [str(paths[0]), str(paths[1]), *extra]
        whole = _report(capsys, args, False, monkeypatch)
        streamed = _report(capsys, args, True, monkeypatch)
        assert streamed == whole and whole[0] == 0 and "LAS" in whole[1].out


def test_files_of_other_words_or_lengths_go_the_whole_files_way(tmp_path, capsys, monkeypatch):
    """Other words (a parse of raw text), a tagged file without trees, or fewer sentences: the
    streamed reading gives up without printing, and the whole files say what they always said."""
    gold = read_conll(os.path.join(EXAMPLES, "toy-text-test.conllu"), "conllu")
    g = tmp_path / "g.conllu"
    g.write_text(format_sentences(gold), encoding="utf-8")
    fewer, other, untreed = tmp_path / "fewer.conllu", tmp_path / "other.conllu", tmp_path / "untreed.conllu"
    fewer.write_text(format_sentences(gold[:-1]), encoding="utf-8")
    renamed = [type(s)([r[:1] + ["w" + r[1]] + r[2:] for r in s.rows], s.extra, s.first_line, s.source, "conllu")
               for s in gold]
    other.write_text(format_sentences(renamed), encoding="utf-8")
    untreed.write_text(format_sentences([type(s)([r[:6] + ["_", "_"] + r[8:] for r in s.rows], s.extra,
                                                 s.first_line, s.source, "conllu") for s in gold]), encoding="utf-8")
    for system in (fewer, other, untreed):
        args = [str(g), str(system)]
        assert cli_eval._eval_streamed(type("A", (), {"gold": args[0], "system": args[1], "charset": "UTF-8",
                                                       "undirected": False})(), "conllu") is False
        assert capsys.readouterr().out == ""
        whole = _report(capsys, args, False, monkeypatch)
        assert _report(capsys, args, True, monkeypatch) == whole


def test_either_file_may_be_standard_input(tmp_path):
    """A CoNLL-U file on standard input (read twice by the whole-file path: once for its words,
    once for its trees) is read once and kept; the gold on standard input takes its format from
    the system file's name. Both used to fail: "<stdin>: no sentences found", and CoNLL-U read
    as CoNLL-X."""
    import subprocess
    import sys
    gold = read_conll(os.path.join(EXAMPLES, "toy-text-test.conllu"), "conllu")
    g, s = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    g.write_text(format_sentences(gold), encoding="utf-8")
    s.write_text(format_sentences(_damaged(gold, 1)), encoding="utf-8")

    def run(*args, stdin=None):
        return subprocess.run([sys.executable, "-m", "maltpy", "eval", *args], input=stdin, capture_output=True,
                              cwd=tmp_path)
    named = run(str(g), str(s))
    assert named.returncode == 0 and b"UPOS" in named.stdout
    assert run(str(g), "-", stdin=s.read_bytes()).stdout == named.stdout
    assert run("-", str(s), stdin=g.read_bytes()).stdout == named.stdout
    # words that differ (the aligned way, which reads each file twice) from standard input too
    other = [type(x)([r[:1] + ["w" + r[1]] + r[2:] for r in x.rows], x.extra, x.first_line, x.source, "conllu")
             for x in gold]
    o = tmp_path / "other.conllu"
    o.write_text(format_sentences(other), encoding="utf-8")
    piped, named = run(str(g), "-", stdin=o.read_bytes()), run(str(g), str(o))
    assert (piped.returncode, piped.stdout) == (named.returncode, named.stdout)
    assert piped.stderr == named.stderr.replace(str(o).encode(), b"<stdin>") and b"do not spell" in piped.stderr
