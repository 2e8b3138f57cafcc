"""maltpy typed in a terminal: progress bars, a command waiting for typed input, and maltpy
alone (tests run without a terminal, so these make one)."""
import io
import os
import sys

import pytest

from conftest import EXAMPLES
from maltpy.cli.main import main
from maltpy.progress import progress_bar


class Terminal(io.StringIO):
    """Standard error as a terminal."""

    def isatty(self):
        return True


def on_terminal(monkeypatch) -> Terminal:
    """Standard error made a terminal (in the test's body: pytest sets its own capture back
    between a fixture's setup and the test)."""
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    return err


@pytest.mark.parametrize("total", [None, 0, 5])
def test_a_bar_on_a_terminal_is_true_whatever_its_total(monkeypatch, total):
    on_terminal(monkeypatch)
    bar = progress_bar(total, "parsing", True, unit="tok")
    assert bar
    bar.update(3)
    bar.close()
    assert progress_bar(total, "parsing", False) is None


def test_learning_and_parsing_on_a_terminal_draw_bars_and_finish(monkeypatch, tmp_path):
    """-m learn and -m parse (CoNLL, the compiled path) in a terminal: no internal error from
    the bars (tqdm 4.70 made bool() of a bar without a total a TypeError)."""
    terminal = on_terminal(monkeypatch)
    train, test = os.path.join(EXAMPLES, "toy-train.conll"), os.path.join(EXAMPLES, "toy-test.conll")
    model, out = str(tmp_path / "m.mpz"), str(tmp_path / "out.conll")
    for args in (["-c", model, "-m", "learn", "-i", train], ["-c", model, "-m", "parse", "-i", test, "-o", out]):
        try:
            main(args)
        except SystemExit as e:
            assert e.code in (0, None), terminal.getvalue()[-300:]
    assert os.path.getsize(out) > 0


def test_a_conversion_on_a_terminal_counts_what_it_converts(monkeypatch, tmp_path):
    """-m convert in a terminal draws a bar for the sentences it converts (and not with -q)."""
    terminal = on_terminal(monkeypatch)
    monkeypatch.setenv("COLUMNS", "100")       # the bar's width: a terminal of none shows nothing
    source = os.path.join(EXAMPLES, "toy-train.conll")
    assert main(["-m", "convert", "-i", source, "-o", str(tmp_path / "out.conllu")]) == 0
    assert "converting: 0sent" in terminal.getvalue()
    assert main(["-q", "-m", "convert", "-i", source, "-o", str(tmp_path / "out2.conllu")]) == 0
    assert terminal.getvalue().count("converting:") == 1


def test_scoring_on_a_terminal_draws_a_bar_and_prints_the_figures(monkeypatch, capsys):
    """maltpy eval in a terminal: a bar on standard error while it reads, the figures on standard
    output as in a pipe."""
    terminal = on_terminal(monkeypatch)
    monkeypatch.setenv("COLUMNS", "100")
    gold = os.path.join(EXAMPLES, "toy-test.conll")
    assert main(["eval", gold, gold]) == 0
    assert "scoring: 0sent" in terminal.getvalue()
    assert "LAS" in capsys.readouterr().out


class TerminalInput(io.BytesIO):
    """Standard input as a terminal that a user types a sentence into."""

    def isatty(self):
        return True

    @property
    def buffer(self):
        return self


def test_a_command_waiting_for_typed_input_says_so(monkeypatch, tmp_path):
    """-m parse without -i in a terminal reads standard input: it says so (and how to end it)
    instead of seeming to hang; the sentence typed is parsed."""
    train = os.path.join(EXAMPLES, "toy-train.conll")
    model = str(tmp_path / "m.mpz")
    main(["-q", "-c", model, "-m", "learn", "-i", train])
    err = on_terminal(monkeypatch)
    monkeypatch.setattr(sys, "stdin", TerminalInput(b"1\tDogs\t_\tNN\tNNS\t_\t_\t_\t_\t_\n2\tbark\t_\tVB\tVBP\t_\t_\t_\t_\t_\n\n"))
    out = str(tmp_path / "out.conll")
    try:
        main(["-c", model, "-m", "parse", "-o", out])
    except SystemExit as e:
        assert e.code in (0, None), err.getvalue()[-300:]
    assert "reads standard input" in err.getvalue() and "Ctrl-D" in err.getvalue()
    with open(out, encoding="utf-8") as f:
        assert [line.split("\t")[1] for line in f if line.strip()] == ["Dogs", "bark"]


def test_maltpy_without_arguments_shows_how_to_use_it(capsys):
    """As MaltParser run without arguments prints its usage (its user guide's first step)."""
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "Usage:" in out and "-m learn" in out and "-m parse" in out and "maltpy -h" in out
