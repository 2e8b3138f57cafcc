"""The ``maltpy`` command: MaltParser's flags for learning and parsing, plus sub-commands.

    maltpy -c config.yaml -m learn            train (settings from the YAML file)
    maltpy -c model.mpz -i test.conll -m parse   parse (stdin/stdout when -i/-o are absent or -)
    maltpy -c ewt -m learn -i train.conllu --tagger upos,xpos,feats,lemma   a tagger and a parser
    maltpy -c ewt -m tag -i words.txt -if horizontal   tag and lemmatize only
    maltpy -c ewt -m learn -i train.conllu --tokenizer --tagger all   from raw text: tokenizer, tagger, parser
    maltpy -c ewt -i story.txt -o story.conllu    raw text to UD trees (-m tokenize: sentences and words only)
    maltpy -m convert -i in.conllu -o out.conll  CoNLL-U -> CoNLL-X (trees.mrg <-> trees.conll: constituents)
    maltpy -c ptb.yaml -m learn -i train.mrg  a constituent parser (parsing as reduction)
    maltpy -c alp -m learn -i train.export    a discontinuous constituent parser (export, discbracket)
    maltpy eval GOLD SYSTEM                   LAS, UAS, LA (--report FILE.html: grouped figures, plots)
    maltpy eval --constituents GOLD.mrg OUT.mrg   EVALB's figures (COLLINS.prm)
    maltpy draw FILE -o trees.html            trees as pictures (--gold GOLD marks the errors)
    maltpy combine LTR RTL --param P          combine left-to-right and right-to-left parses
    maltpy convert-features MODEL.xml         MaltParser XML feature model -> YAML
    maltpy info MODEL                         what a model file holds (--features, --json)
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import threading
import warnings

from maltpy.cli.combine import cmd_combine
from maltpy.cli.common import ArgumentParser, _log, _model_path
from maltpy.cli.convert import run_convert
from maltpy.cli.convert_features import cmd_convert_features
from maltpy.cli.draw import cmd_draw
from maltpy.cli.evaluate import cmd_eval
from maltpy.cli.experiment import cmd_experiment
from maltpy.cli.fragmentation import cmd_fragmentation
from maltpy.cli.info import cmd_info
from maltpy.cli.learn import run_learn
from maltpy.cli.longnames import DASH_VALUE_FLAGS, NEGATIVE_NUMBER, expand_option_file, translate
from maltpy.cli.parse import run_parse
from maltpy.cli.proj import run_pseudo_projective
from maltpy.config import Settings, choices, cli_flags, coerce, load_config
from maltpy.errors import MaltpyError, Terminated, UsageError

MODES = ("learn", "parse", "tag", "tokenize", "convert", "proj", "deproj")
#: -v's levels (MaltParser's log4j ones): whether progress messages are printed (no -v: in a terminal only)
VERBOSITY = {"off": False, "fatal": False, "error": False, "warn": False, "info": True, "debug": True}


def _main_parser(with_choices: bool = True):
    """The command's argument parser; ``with_choices``: help texts list the values the modules
    implement (imports them all: only worth it when --help is shown)."""
    p = ArgumentParser(
        prog="maltpy",
        description="MaltParser-style transition-based dependency parsing. Settings come from a "
                    "YAML file (-c config.yaml) and MaltParser's flags, which override it.",
        epilog="sub-commands: 'maltpy eval GOLD SYSTEM [--compare SYSTEM_B] [--report FILE.html]' prints "
               "LAS/UAS/LA (and a permutation test, and writes a MaltEval-style report), 'maltpy eval --constituents "
               "GOLD.mrg OUT.mrg' EVALB's figures; 'maltpy draw FILE "
               "[--gold GOLD] -o trees.html' draws the trees; 'maltpy fragmentation MODEL GOLD' reports what is left on "
               "the stack at the end of the input; 'maltpy combine LTR RTL --param P' combines a left-to-right "
               "and a right-to-left parse; 'maltpy experiment TRAIN...' runs multilingual "
               "experiments; "
               "'maltpy convert-features MODEL.xml' converts a MaltParser feature model to YAML; 'maltpy info "
               "MODEL' shows what a model file holds (its settings, learner, labels, training figures). "
               "Run 'maltpy eval -h' for their options.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from maltpy.version import __version__
    p.add_argument("--version", action="version", version=f"maltpy {__version__}")
    p.add_argument("-c", metavar="CONFIG|MODEL",
                   help="YAML configuration file (.yaml/.yml), or the model file itself (.mpz is "
                        "added when there is no extension), like MaltParser's configuration name")
    p.add_argument("-f", metavar="FILE", help="MaltParser's option file (XML: <experiment><optioncontainer>"
                   "<optiongroup groupname=...><option name=... value=...>): its options, which the command "
                   "line's override (MaltParser's long names work too: --config-name=test, --input-infile=FILE)")
    p.add_argument("-m", choices=MODES, default=None,
                   help="learn (a .mrg file of bracketed trees trains a constituent parser, an .export or "
                        ".discbracket file a discontinuous one; --tagger learns a "
                        "tagger and lemmatizer with the parser, --tokenizer a tokenizer), parse (default; a model "
                        "with a tagger tags first, one with a tokenizer reads raw text: -if text or .txt), "
                        "tag (tag and lemmatize only, with a model that has a tagger), "
                        "tokenize (raw text to CoNLL-U sentences and words only, with a model that has a tokenizer), "
                        "convert (CoNLL-U to CoNLL-X; bracketed or discontinuous trees to their dependency "
                        "encoding and back; export <-> discbracket; words a line: -of horizontal), "
                        "proj (projectivize a treebank with -pp/-pcr/-plo) or deproj (undo it on a parsed file)")
    g = p.add_argument_group("MaltParser options (override the YAML file)")
    allowed = None
    for name, flag in cli_flags():
        # no argparse choices: the setting checks its values (coerce), one line for any bad one
        bare = {"nargs": "?", "const": flag.bare} if flag.bare else {}
        text = flag.help
        if "{choices}" in text and with_choices:   # from the modules that implement them
            allowed = allowed or choices()
            text = text.replace("{choices}", ", ".join(allowed[name]))
        g.add_argument(*filter(None, (flag.flag, flag.long)), dest=flag.dest, metavar=flag.metavar, help=text,
                       **bare)
    p.add_argument("--dask", metavar="ADDRESS", help="-m parse (tag, tokenize) on a Dask cluster: a scheduler "
                   "address (tcp://host:8786) or local:N (N worker processes here); with -i 'corpus/*.conllu' "
                   "-o outdir/ every file is parsed into outdir under its own name (pip install \"maltpy[dask]\")")
    p.add_argument("-v", "--verbose", nargs="?", const="info", default=None, metavar="LEVEL",
                   help="print progress messages even in pipes; MaltParser's levels: off, fatal, error and warn "
                        "print none (as -q), info and debug print them")
    p.add_argument("-q", "--quiet", action="store_true", help="no messages or progress bars")
    # read by main() before parsing (it works with the sub-commands too); listed here for --help
    p.add_argument("--debug", action="store_true", help="show Python tracebacks instead of one-line errors")
    return p


def _settings_from_args(args):
    """(settings, the configuration file read or None, the settings given by flags, the settings
    given by flags or the configuration file)."""
    values = {}
    explicit = set()
    config_path = None
    if args.c:
        if args.c.endswith((".yaml", ".yml")):
            config_path = args.c
            values.update(load_config(args.c))
            if values.get("model"):    # as for -c NAME: the model file is NAME.mpz
                values["model"] = _model_path(values["model"], reading=args.m != "learn")
        else:
            values["model"] = _model_path(args.c, reading=args.m != "learn")
    for name, flag in cli_flags():
        value = getattr(args, flag.dest)
        if value is not None:
            try:
                values[name] = coerce(name, value, f"option {flag.flag}")
            except MaltpyError as e:   # a value the flag cannot take: a usage error (exit 2)
                raise UsageError(f"{e} (see 'maltpy --help')") from None
            explicit.add(name)
    settings = Settings(**values)
    return settings, config_path, explicit, explicit | set(values) - {"model"}


SUBCOMMANDS = {"eval": cmd_eval, "combine": cmd_combine, "draw": cmd_draw, "convert-features": cmd_convert_features,
               "fragmentation": cmd_fragmentation, "experiment": cmd_experiment, "info": cmd_info}


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):     # closed or replaced by something without isatty
        return False


def _choose_input(settings, mode, given_input, config_path):
    """Which file a mode reads: -i, else the configuration's learn_input/parse_input. A plain
    ``input:`` in a configuration is a learning input for -m learn (and the file tools) but
    never read by -m parse, so that parsing cannot read a training file by accident."""
    if given_input:
        return
    if mode == "learn":
        settings.input = settings.learn_input or settings.input
    elif mode in ("parse", "tag", "tokenize"):
        if settings.parse_input:
            settings.input = settings.parse_input
        elif settings.input:
            raise MaltpyError(f"{config_path}: 'input: {settings.input}' is ambiguous for parsing (it is "
                              "usually the training file): give -i FILE, '-i -' for standard input, or "
                              "'parse_input:' in the configuration")


def _attach_dash_values(argv):
    """``-lo "-s 0"`` as MaltParser takes it: argparse would read "-s 0" as a flag, so the
    value is attached (``-lo=-s 0``). So is a negative number after a setting's flag (``-j -2``),
    which argparse would take for a flag too (there is a ``-2pr``), so that the setting says
    what is wrong with it."""
    value_flags = {name for _, flag in cli_flags() for name in (flag.flag, flag.long) if name}
    out, k = [], 0
    while k < len(argv):
        if k + 1 < len(argv) and (argv[k] in DASH_VALUE_FLAGS or (
                argv[k] in value_flags and NEGATIVE_NUMBER.fullmatch(argv[k + 1]))):
            out.append(f"{argv[k]}={argv[k + 1]}")
            k += 2
        else:
            out.append(argv[k])
            k += 1
    return out


#: the variables OpenBLAS reads for its thread count, in its order
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _single_threaded_blas():
    """One BLAS thread for the command, unless the user chose a number. maltpy runs its own threads
    and calls BLAS only on small products; numpy's OpenBLAS otherwise starts a thread per core at
    import, each busy-waiting about 0.1 s of CPU time, which on a two-core machine competes with the
    parsing and learning threads (docs/benchmarks.md). Must run before numpy is imported."""
    if not any(name in os.environ for name in BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """maltpy's warnings (:class:`~maltpy.errors.MaltpyWarning`) as one line on stderr, like its
    errors, shown even with -q (they say the output is likely not what was meant); others as
    Python shows them."""
    from maltpy.errors import MaltpyWarning
    if issubclass(category, MaltpyWarning):
        print(f"maltpy: warning: {message}", file=sys.stderr, flush=True)
    else:
        _PYTHON_SHOWWARNING(message, category, filename, lineno, file, line)


_PYTHON_SHOWWARNING = warnings.showwarning


def main(argv=None):
    """The maltpy command. Every error a user can cause is one line on stderr and exit status 1
    (2 for usage errors: an unknown flag, a missing or bad flag value); ``--debug`` (anywhere)
    shows tracebacks instead."""
    if "numpy" not in sys.modules:
        _single_threaded_blas()
    as_command = argv is None     # the process's own command (not a call from Python)
    if as_command:
        _whole_writes_to_stdout()
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    warnings.showwarning = _show_warning
    try:
        with _terminate_as_exception():
            status = _run(argv, debug)
    except (KeyboardInterrupt, Terminated) as stop:
        # a signal that came after the run had ended, or while it was ending (its error said,
        # its output whole or removed), before the handlers were restored: still no traceback
        interrupted = isinstance(stop, KeyboardInterrupt)
        print("maltpy: interrupted" if interrupted else "maltpy: terminated", file=sys.stderr)
        status = _stop_now(130 if interrupted else 128 + stop.signum)
    if as_command:
        _exit_past_blocked_reader(status)
    return status


def _whole_writes_to_stdout() -> None:
    """Unbuffered standard output (``python -u``, ``PYTHONUNBUFFERED``, common in containers) is
    a raw file whose ``write`` may take only part of the bytes and return how many: the text
    layer drops the rest without an error (an output cut short when its reader left exited 0,
    not 141). Put a buffer in between, which writes everything or raises, and keep the output
    prompt: line by line for text."""
    import io
    raw = getattr(sys.stdout, "buffer", None)
    if not isinstance(raw, io.FileIO):
        return
    sys.stdout.flush()
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=sys.stdout.encoding,
                                  errors=sys.stdout.errors, line_buffering=True, write_through=True)


def _exit_past_blocked_reader(status: int) -> None:
    """Exit at once when the thread that reads the input is still blocked in a read of a pipe
    that stays open (an error, Ctrl-C or a closed output stopped the command first): Python's
    shutdown would wait for the lock that read holds on standard input and abort the process."""
    streaming = sys.modules.get("maltpy.parsing.stream")     # not imported: no reader ever ran
    if streaming is not None and streaming.reader_running():
        _exit_now(status)


def _exit_now(status: int) -> None:
    """Exit without Python's shutdown (which would wait for a thread that cannot be stopped):
    what was being written removed (no atexit handler runs after os._exit), the rest flushed."""
    from maltpy.output import remove_pending
    remove_pending()
    for out in (sys.stdout, sys.stderr):
        try:
            out.flush()
        except Exception:   # noqa: BLE001 - a closed pipe: nothing more can be said
            pass
    os._exit(status)


#: the last SIGINT, SIGTERM or SIGHUP that reached the command while it ran (None: none), for an
#: exception that a library raised in its place without keeping it (numpy's import)
_signal_seen = None


def _raise_terminated(signum, frame):
    """The command's handler of SIGTERM and SIGHUP (Terminated) and of SIGINT (KeyboardInterrupt,
    as Python's own), which also notes the signal (:func:`_stop_behind`)."""
    global _signal_seen
    _signal_seen = signum
    raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)


class _terminate_as_exception:
    """SIGTERM (``timeout``, ``kill``) and SIGHUP raise :class:`~maltpy.errors.Terminated`
    while the command runs, as SIGINT raises KeyboardInterrupt, so that no temporary output file
    is left behind; the handlers before are restored after (``main`` is also called in-process)."""

    def __enter__(self):
        global _signal_seen
        self.saved = {}
        if threading.current_thread() is not threading.main_thread():
            return self
        _signal_seen = None     # noted by this run's handlers only
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None:
                self.saved[signum] = signal.signal(signum, _raise_terminated)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:   # Python's own: the same, noted
            self.saved[signal.SIGINT] = signal.signal(signal.SIGINT, _raise_terminated)
        return self

    def __exit__(self, *exc):
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)
        return False


def _stop_now(status: int) -> int:
    """After Ctrl-C or a termination: remove what was being written and return ``status``, or
    exit at once when a thread that cannot be stopped (a scikit-learn solver) still runs."""
    from maltpy.output import remove_pending
    remove_pending()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        # exit now rather than wait for it at interpreter shutdown (no model file has been
        # written; outputs were cleaned up)
        _exit_now(status)
    return status


def _stop_behind(error: BaseException):
    """The Ctrl-C or termination an exception was raised from, if any: numpy turns one that
    arrives while it is imported into an ImportError, chained to it or not (then the signal
    noted by the handler stands for it)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, (KeyboardInterrupt, Terminated)):
            return error
        error = error.__cause__ or error.__context__
    if _signal_seen is None:
        return None
    return KeyboardInterrupt() if _signal_seen == signal.SIGINT else Terminated(_signal_seen)


def first_use() -> str:
    """What ``maltpy`` without arguments prints, as MaltParser prints its usage when run without
    any (its user guide's first step): the main commands, and where the rest is."""
    from maltpy.version import __version__
    examples = [line for line in __doc__.splitlines() if line.startswith("    maltpy")]
    return (f"maltpy {__version__}: MaltParser-style transition-based dependency parsing\n\nUsage:\n"
            + "\n".join(examples) + "\n\nmaltpy -h lists every option (MaltParser's flags and maltpy's own), and "
            "'maltpy eval -h' (draw, combine, ...) a sub-command's.")


#: the errors of the system that only a write gets (the disk or quota is full, a read-only file
#: system, a file past its largest size)
_WRITE_ERRORS = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EROFS", "EFBIG") if hasattr(errno, name)}


def _run(argv, debug: bool) -> int:
    try:
        if not argv:
            print(first_use())
            return 0
        if argv and argv[0] in SUBCOMMANDS:
            SUBCOMMANDS[argv[0]](argv[1:])
            return 0
        parser = _main_parser(with_choices=any(a in ("-h", "--help", "--system-help") for a in argv))
        if any(a.startswith(("--", "-f")) for a in argv):
            # MaltParser's long names (--input-infile=F is -i F) and option file (-f options.xml)
            options = parser._option_string_actions     # argparse's table of the option strings
            argv = expand_option_file(translate(argv, [o for o in options if o.startswith("--")], options), options)
        args = parser.parse_args(_attach_dash_values(argv))
        settings, config_path, explicit, chosen = _settings_from_args(args)
        if args.verbose is not None and args.verbose not in VERBOSITY:
            raise UsageError(f"-v takes one of MaltParser's levels {', '.join(VERBOSITY)}, not {args.verbose!r} "
                             "(see 'maltpy --help')")
        level = VERBOSITY.get(args.verbose)     # None: no level given
        settings.verbose = not args.quiet and level is not False and (level or sys.stderr.isatty())
        log = _log(settings.verbose)
        mode = args.m or "parse"
        if args.dask and mode not in ("parse", "tag", "tokenize"):
            raise MaltpyError(f"--dask runs -m parse, tag and tokenize (and 'maltpy experiment'), not -m {mode}")
        _choose_input(settings, mode, given_input=args.i is not None, config_path=config_path)
        if settings.input in (None, "-") and _stdin_is_terminal():
            # a command typed without -i waits for standard input: say so, instead of seeming to hang
            log(f"-m {mode} reads standard input: type or paste it, and end it with Ctrl-D (-i FILE reads a file)")
        if mode == "learn":
            if args.o is not None:
                raise MaltpyError(f"-m learn writes the model that -c names ({settings.model}); -o is the "
                                  "output of -m parse, -m convert, -m proj and -m deproj")
            run_learn(settings, log, chosen)
        elif mode == "parse":
            run_parse(settings, log, explicit, dask=args.dask)
        elif mode == "tag":
            run_parse(settings, log, explicit, dask=args.dask, mode="tag")
        elif mode == "tokenize":
            run_parse(settings, log, explicit, dask=args.dask, mode="tokenize")
        elif mode in ("proj", "deproj"):
            run_pseudo_projective(settings, log, mode)
        else:
            run_convert(settings, log)
        return 0
    except MaltpyError as e:
        if debug:
            raise
        print(f"maltpy: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, UsageError) else 1
    except KeyboardInterrupt:
        print("maltpy: interrupted", file=sys.stderr)
        return _stop_now(130)
    except Terminated as e:
        print("maltpy: terminated", file=sys.stderr)
        return _stop_now(128 + e.signum)
    except BrokenPipeError:
        try:
            sys.stdout = None
        except Exception:
            pass
        return 141
    except OSError as e:    # the system refused a read or a write (a full disk, an I/O error)
        if debug:
            raise
        where = f"{e.filename}: " if e.filename else ("cannot write: " if e.errno in _WRITE_ERRORS else "")
        print(f"maltpy: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except MemoryError:
        print("maltpy: error: out of memory", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug in maltpy, not the user's doing
        stop = _stop_behind(e)
        if stop is not None:    # a signal that came while a library (numpy's import) wrapped it
            print("maltpy: interrupted" if isinstance(stop, KeyboardInterrupt) else "maltpy: terminated",
                  file=sys.stderr)
            return _stop_now(130 if isinstance(stop, KeyboardInterrupt) else 128 + stop.signum)
        if debug:
            raise
        what = " ".join(f"{type(e).__name__}: {e}".split())[:300]
        print(f"maltpy: internal error ({what}); please report it with the command that caused it "
              "(--debug shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
