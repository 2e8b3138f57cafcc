"""Helpers the sub-commands share: logging, reading treebanks to keep, input encodings."""
from __future__ import annotations

import argparse
import os
import sys

from maltpy.acyclic import acyclic


class ArgumentParser(argparse.ArgumentParser):
    """argparse's, but a usage error is the one line that matters and a pointer to ``--help``
    (exit status 2), not the whole usage block."""

    def error(self, message):
        from maltpy.errors import UsageError
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _log(enabled):
    def log(msg):
        if enabled:
            print(f"maltpy: {msg}", file=sys.stderr, flush=True)
    return log


def _detect(path, given):
    from maltpy.formats.conll import detect_format
    if given:
        return given
    return detect_format(path) if path not in (None, "-") else None


def _input(settings):
    """What the readers read for -i with -ic's charset (:func:`_decoded`)."""
    return _decoded(settings.input, settings.input_charset)


def _decoded(path, charset):
    """What the readers read: the path (or ``-``) itself for UTF-8, else a UTF-8 stream decoded
    from it."""
    from maltpy.formats.charset import TranscodedInput, is_utf8
    return path if is_utf8(charset) else TranscodedInput(path, charset)


def _in_output_charset(settings, write):
    """``write(target)`` (which writes UTF-8 to ``target``) made to leave -o in -oc's encoding,
    the input's (-ic) by default: written to a temporary UTF-8 file first, then copied in that
    encoding, whole or not at all. Returns what ``write`` returns."""
    from maltpy.formats.charset import is_utf8
    charset = settings.output_charset or settings.input_charset
    if is_utf8(charset):
        return write(settings.output)
    import tempfile
    from maltpy.formats.charset import write_transcoded
    with tempfile.TemporaryDirectory(prefix="maltpy-") as tmp:
        utf8 = os.path.join(tmp, "out")
        result = write(utf8)
        write_transcoded(utf8, settings.output, charset)
    return result


def _read_for_good(read, *args, **kwargs):
    """``read(*args, **kwargs)`` for objects that live until the command ends (a treebank read
    whole, a model loaded to parse with): the cyclic garbage collector is paused while they are made and exempts them
    afterwards (``gc.freeze``). Otherwise the allocations set it off again and again, and every
    collection walks them all and frees nothing (EWT train: 0.4 s of an 11 s learn; evaluating
    EWT dev x10: 1.5 s of 3.1 s). They hold no reference cycles, so there is nothing for it to
    collect."""
    with acyclic(keep=True):
        return read(*args, **kwargs)


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value}: use 0 or more (positions and arc lengths start at 1)")
    return value


def _model_path(name, reading: bool = True):
    """A model name as MaltParser's -c: ``.mpz`` is added when there is no extension. A model
    being read may also be the bare name when only that exists (written by an older maltpy);
    one being written (``reading`` False) is always NAME.mpz, so no other file is replaced."""
    if os.path.splitext(name)[1]:
        return name
    if reading and not os.path.exists(name + ".mpz") and os.path.isfile(name):
        return name
    return name + ".mpz"
