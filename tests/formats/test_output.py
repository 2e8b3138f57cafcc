"""Output files: written whole or not at all, links followed, FIFOs written to, the umask honoured,
and every problem a one-line error (the rules of maltpy.output)."""
import os
import stat
import subprocess
import sys
import threading

import pytest

from maltpy.cli.main import main
from conftest import EXAMPLES

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")



def test_empty_name_and_directory_are_refused(model, tmp_path, capsys):
    assert main(["-c", model, "-i", TEST, "-o", "", "-q"]) == 1
    assert "empty" in capsys.readouterr().err
    assert main(["-c", model, "-i", TEST, "-o", str(tmp_path), "-q"]) == 1
    assert "is a directory" in capsys.readouterr().err


def test_learn_checks_where_the_model_goes_before_training(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["-c", str(blocker / "m.mpz"), "-m", "learn", "-i", TRAIN, "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("maltpy: error:") and "Traceback" not in err


def test_new_files_follow_the_umask_and_existing_files_keep_their_mode(model, tmp_path):
    old = os.umask(0o027)
    try:
        out = tmp_path / "new.conll"
        assert main(["-c", model, "-i", TEST, "-o", str(out), "-q"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
        out.chmod(0o604)
        assert main(["-c", model, "-i", TEST, "-o", str(out), "-q"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o604
        m = tmp_path / "m.mpz"
        assert main(["-c", str(m), "-m", "learn", "-i", TRAIN, "-q"]) == 0
        assert stat.S_IMODE(m.stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_a_symbolic_link_stays_a_link(model, tmp_path):
    real = tmp_path / "real.conll"
    real.write_text("old\n")
    link = tmp_path / "link.conll"
    link.symlink_to(real)
    assert main(["-c", model, "-i", TEST, "-o", str(link), "-q"]) == 0
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8").startswith("1\t")


def test_a_fifo_is_written_to_not_replaced(model, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    # a daemon: if the FIFO were replaced by a file, the reader would wait forever for a writer
    reader = threading.Thread(target=lambda: got.append(open(fifo, encoding="utf-8").read()), daemon=True)
    reader.start()
    assert main(["-c", model, "-i", TEST, "-o", str(fifo), "-q"]) == 0
    reader.join(timeout=20)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    plain = tmp_path / "plain.conll"
    assert main(["-c", model, "-i", TEST, "-o", str(plain), "-q"]) == 0
    assert got == [plain.read_text(encoding="utf-8")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_places_are_one_line_errors(model, tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    assert main(["-c", model, "-i", TEST, "-o", str(ro / "x.conll"), "-q"]) == 1
    assert "permission denied" in capsys.readouterr().err
    locked = tmp_path / "locked.conll"
    locked.write_text("keep\n")
    locked.chmod(0o444)
    assert main(["-c", model, "-i", TEST, "-o", str(locked), "-q"]) == 1
    assert locked.read_text() == "keep\n"


def test_closed_standard_output_is_an_error_not_a_traceback(model):
    cmd = f"{sys.executable} -m maltpy -c {model} -i {TEST} -q >&-"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=300, cwd=EXAMPLES)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "maltpy:" in r.stderr
