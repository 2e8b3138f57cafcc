"""Writing output files safely: whole or not at all, and without surprises.

* A regular file (or a path that does not exist yet) is written through a temporary file
  in the same directory and renamed into place, so a failure leaves no half-written file.
  The new file gets the old file's mode, or the user's umask for a new one.
* A symbolic link is followed: the file it points to is replaced, the link stays.
* Anything else (a FIFO, ``/dev/null``, a terminal) is written straight to.
* ``-`` or ``None`` is standard output, written at the end in one piece, or as it comes
  with ``stream=True`` (a pipe then sees output while the input is still arriving; after an
  error, what was written before it stays written).
* Every problem a user can cause (a directory, no permission, a full disk, a closed
  standard output) is a :class:`~maltpy.errors.MaltpyError` naming the file.
"""
from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from contextlib import contextmanager

from maltpy.errors import MaltpyError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_output_path(target) -> None:
    """Refuse, before any work is done, an output path that cannot be written."""
    if target in ("-", None):
        if sys.stdout is None:
            raise MaltpyError("standard output is closed")
        return
    target = str(target)
    if target == "":
        raise MaltpyError("the output file name is empty")
    real = os.path.realpath(target)
    if os.path.isdir(real):
        raise MaltpyError(f"{target}: is a directory; give a file name")
    if os.path.exists(real):
        if not os.access(real, os.W_OK):
            raise MaltpyError(f"{target}: permission denied (the file is not writable)")
        if not stat.S_ISREG(os.stat(real).st_mode):
            return   # written straight to
    directory = os.path.dirname(real)
    if not os.path.isdir(directory):
        raise MaltpyError(f"{target}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise MaltpyError(f"{target}: permission denied (cannot create files in {directory})")


@contextmanager
def open_output(target, binary: bool = False, stream: bool = False):
    """Yield a writable stream for ``target`` following the rules of this module."""
    check_output_path(target)
    if target in ("-", None) and stream:
        yield sys.stdout.buffer if binary else sys.stdout
        sys.stdout.flush()
        return
    if target in ("-", None):
        buf = io.BytesIO() if binary else io.StringIO()
        yield buf
        try:
            if binary:
                sys.stdout.flush()
                sys.stdout.buffer.write(buf.getvalue())
            else:
                sys.stdout.write(buf.getvalue())
            sys.stdout.flush()
        except (AttributeError, ValueError):
            raise MaltpyError("standard output is closed") from None
        return
    target = str(target)
    real = os.path.realpath(target)
    mode = "wb" if binary else "w"
    text_args = {} if binary else {"encoding": "utf-8", "newline": "\n"}
    exists = os.path.exists(real)
    if exists and not stat.S_ISREG(os.stat(real).st_mode):
        try:
            with open(real, mode, **text_args) as f:
                yield f
        except OSError as e:
            raise MaltpyError(f"{target}: {e.strerror or e}") from None
        return
    file_mode = stat.S_IMODE(os.stat(real).st_mode) if exists else 0o666 & ~_umask()
    try:
        with _signals_held():    # a signal between creating and noting the file would leave it
            fd, tmp = tempfile.mkstemp(prefix=".maltpy-", dir=os.path.dirname(real))
            _PENDING.add(tmp)
    except OSError as e:   # the output is written beside its place first: that must be allowed
        raise MaltpyError(f"{target}: cannot write: no file can be made in {os.path.dirname(real)} "
                          f"({e.strerror or e})") from None
    try:
        with os.fdopen(fd, mode, **text_args) as f:
            yield f
        os.chmod(tmp, file_mode)
        with _signals_held():
            os.replace(tmp, real)
            _PENDING.discard(tmp)
    except BaseException as e:
        remove_pending(tmp)
        if isinstance(e, OSError):
            raise MaltpyError(f"{target}: cannot write ({e.strerror or e})") from None
        raise


#: temporary files being written (removed by remove_pending when a signal ends the command
#: wherever it is, even between two statements of open_output)
_PENDING = set()


def remove_pending(path=None) -> None:
    """Remove the temporary file ``path`` (default: every one still being written)."""
    for tmp in [path] if path is not None else list(_PENDING):
        _PENDING.discard(tmp)
        try:
            os.unlink(tmp)
        except OSError:
            pass


@contextmanager
def _signals_held():
    """SIGINT, SIGTERM and SIGHUP wait (in the main thread) until the block is done."""
    import signal
    held = {signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM)}
    if not hasattr(signal, "pthread_sigmask"):   # Windows: no masks
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
