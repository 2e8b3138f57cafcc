"""A parse stopped by a signal at any moment (SIGTERM as ``timeout`` and ``kill`` send it, SIGINT,
SIGHUP) leaves nothing in the output's folder: the output appears whole or not at all."""
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLES

TEST = os.path.join(EXAMPLES, "toy-test.conll")


@pytest.fixture(scope="module")
def big_input(tmp_path_factory):
    """The example test set many times over: with -b 8, a parse of about a second and a half."""
    path = tmp_path_factory.mktemp("in") / "big.conll"
    with open(TEST) as f:
        text = f.read().rstrip("\n") + "\n\n"
    path.write_text(text * 1000)
    return str(path)


@pytest.mark.parametrize("sig,jobs", [(signal.SIGTERM, "1"), (signal.SIGTERM, "2"), (signal.SIGINT, "1"),
                                      (signal.SIGHUP, "2")])
def test_a_signal_at_a_random_moment_of_a_parse_leaves_no_file(tmp_path, model, big_input, sig, jobs):
    rng = random.Random(int(sig) * 10 + int(jobs))
    whole = tmp_path / "whole.conll"
    command = [sys.executable, "-m", "maltpy", "-c", model, "-i", big_input, "-j", jobs, "-b", "8", "-o"]
    subprocess.run(command + [str(whole)], check=True, capture_output=True, cwd=str(tmp_path))
    stopped = 0
    for attempt in range(5):
        out_dir = tmp_path / f"out{attempt}"
        out_dir.mkdir()
        out = out_dir / "p.conll"
        p = subprocess.Popen(command + [str(out)], stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
        time.sleep(rng.uniform(0.05, 1.6))     # start-up, model loading, parsing, writing
        p.send_signal(sig)
        err = p.communicate(timeout=60)[1]
        left = sorted(os.listdir(out_dir))
        if left:                                # it finished first (the signal may still have come
            assert left == ["p.conll"]          # before the exit): the output is whole
            assert out.read_bytes() == whole.read_bytes()
            continue
        stopped += 1
        assert p.returncode in (128 + sig, -sig), (p.returncode, err)
        assert "Traceback" not in err, err
    assert stopped, "every parse ended before the signal: make the input longer"


def test_timeout_during_a_parse_leaves_no_file(tmp_path, model, big_input):
    if not os.path.exists("/usr/bin/timeout"):
        pytest.skip("no timeout command")
    out = tmp_path / "o" / "p.conll"
    out.parent.mkdir()
    r = subprocess.run(["/usr/bin/timeout", "0.9", sys.executable, "-m", "maltpy", "-c", model, "-i", big_input,
                        "-b", "8", "-o", str(out)], capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode in (124, 0)
    assert os.listdir(out.parent) == ([] if r.returncode else ["p.conll"])


def test_the_command_restores_the_signal_handlers_it_sets(model, tmp_path):
    """main() is called in-process by tests and by programs: its handlers do not outlive it."""
    from maltpy.cli.main import main
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    assert main(["-c", model, "-i", TEST, "-o", str(tmp_path / "p.conll"), "-q"]) == 0
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before


@pytest.mark.parametrize("stop,status", [(KeyboardInterrupt(), 130), ("terminated", 128 + 1)])
def test_a_signal_a_library_wrapped_is_still_a_signal(monkeypatch, capsys, stop, status):
    """numpy turns a signal that arrives while it is imported into an ImportError: the command
    still stops as the signal asks (its exit status, no "internal error")."""
    from maltpy.cli import main as cli
    from maltpy.errors import Terminated
    cause = Terminated(1) if stop == "terminated" else stop

    class Importing:
        def parse_args(self, argv):
            raise ImportError("IMPORTANT: PLEASE READ THIS FOR ADVICE") from cause

    monkeypatch.setattr(cli, "_main_parser", lambda with_choices=False: Importing())
    # _stop_now exits at once when other threads run, as pytest's may: only its status is wanted here
    monkeypatch.setattr(cli, "_stop_now", lambda status: status)
    assert cli._run(["-c", "model.mpz"], False) == status
    err = capsys.readouterr().err
    assert "internal error" not in err and ("interrupted" in err or "terminated" in err)


@pytest.mark.parametrize("sig,status,word", [(signal.SIGHUP, 128 + 1, "terminated"),
                                             (signal.SIGINT, 130, "interrupted")])
def test_a_signal_a_library_swallowed_is_still_a_signal(monkeypatch, capsys, sig, status, word):
    """numpy's import may also raise its ImportError without the signal's exception behind it
    (CI saw it for SIGHUP): the signal the command's handler noted stands for it."""
    from maltpy.cli import main as cli

    class Importing:
        def parse_args(self, argv):
            try:
                os.kill(os.getpid(), sig)
                time.sleep(5)               # the handler raises here
            except BaseException:
                pass
            raise ImportError("IMPORTANT: PLEASE READ THIS FOR ADVICE")     # nothing chained

    monkeypatch.setattr(cli, "_main_parser", lambda with_choices=False: Importing())
    monkeypatch.setattr(cli, "_stop_now", lambda status: status)
    with cli._terminate_as_exception():
        assert cli._run(["-c", "model.mpz"], False) == status
    err = capsys.readouterr().err
    assert "internal error" not in err and word in err
    with cli._terminate_as_exception():     # the next run starts with no signal noted
        assert cli._stop_behind(ImportError("another")) is None


@pytest.mark.parametrize("sig,status,word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 128 + signal.SIGTERM, "terminated")])
def test_a_signal_as_the_run_ends_is_no_traceback(monkeypatch, capsys, sig, status, word):
    """A Ctrl-C that came as a quick run was ending (after its error was said, before the
    handlers were restored) escaped the run's own handling: Python printed a traceback and the
    status was -2 (seen with a learn stopped by a bad option). It is the signal's status now."""
    from maltpy.cli import main as cli

    def ending(argv, debug):
        print("maltpy: error: a bad option", file=sys.stderr)
        os.kill(os.getpid(), sig)
        time.sleep(5)               # the handler raises here, outside _run's own handling
        return 1

    monkeypatch.setattr(cli, "_run", ending)
    monkeypatch.setattr(cli, "_stop_now", lambda status: status)
    assert cli.main(["-c", "model.mpz"]) == status
    err = capsys.readouterr().err
    assert "a bad option" in err and word in err and "Traceback" not in err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_threaded_parse_stopped_while_its_input_pipe_stays_open_exits_cleanly(model, sig):
    """The reader thread is then blocked in a read of standard input, holding its lock, which
    Python's shutdown takes: the command exits with the signal's status instead of aborting."""
    with open(TEST, "rb") as f:
        first = f.read().split(b"\n\n")[0] + b"\n\n"
    p = subprocess.Popen([sys.executable, "-m", "maltpy", "-c", model, "-j", "2", "-q"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.stdin.write(first)
        p.stdin.flush()
        assert p.stdout.readline()          # the sentence is parsed and written: the reader waits for more
        p.send_signal(sig)
        status = p.wait(timeout=60)
        err = p.stderr.read().decode()
    finally:
        p.kill()
        p.stdin.close()
    assert status == 128 + sig and "Fatal Python error" not in err, (status, err)
