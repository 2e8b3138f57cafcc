"""Exceptions that the command line turns into one-line messages."""


class MaltpyError(Exception):
    """Base class: anything a user can fix by changing input, options or files."""


class InputFormatError(MaltpyError):
    """Malformed treebank input; the message names the file and line."""

    def __init__(self, path, line, message):
        self.path, self.line, self.reason = path, line, message
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        # picklable, so that an error in a worker process (Dask, a process pool) arrives whole
        return type(self), (self.path, self.line, self.reason)


class UsageError(MaltpyError):
    """A command line that names an unknown flag or gives a flag a value it cannot take: the
    command prints one line and exits with status 2, as argparse's usage errors."""


class ModelFileError(MaltpyError):
    """A model file that is missing, truncated, corrupt or from another version."""


class MaltpyWarning(UserWarning):
    """Something that works but is likely not what the user meant (the command line prints it as
    one line, once)."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP reached the ``maltpy`` command: raised where it is, so that outputs being
    written are removed on the way out (a BaseException: nothing that catches errors stops it)."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"signal {signum}")
