"""MaltParser's long option names and option files on the command line.

MaltParser takes every option four ways (its user guide, "Controlling MaltParser"): the flag
(``-c test``), the option group and name (``--config-name=test``), the name alone where no
other group has it (``--name=test``), and an XML option file (``-f options.xml``) whose options
the command line's override. maltpy's flags are MaltParser's; this module turns the other three
into them, so that a MaltParser command line, script or option file runs unchanged.
"""
from __future__ import annotations

import functools
import re
from typing import Dict, Iterable, List, Tuple

from maltpy.errors import MaltpyError, MaltpyWarning, UsageError

#: MaltParser 1.9's options (its options.xml) as group, name and flag
_OPTIONS = """
system option_file f; system help h; system verbosity v
config name c; config url u; config flowchart m; config type t; config workingdir w; config logging cl
config logfile lfi
singlemalt mode sm; singlemalt parsing_algorithm a; singlemalt guide_model gm; singlemalt null_value nv
singlemalt diagnostics di; singlemalt diafile dif; singlemalt use_partial_tree up; singlemalt propagation fp
input infile i; input format if; input reader ir; input charset ic; input reader_options iro; input iterations it
output outfile o; output format of; output writer ow; output charset oc; output writer_options owo
graph max_sentence_length gsl; graph root_label grl; graph head_rules ghr
nivre allow_root nr; nivre allow_reduce ne; nivre enforce_tree nt
multiplanar planar_root_handling prh
planar connectedness pcon; planar acyclicity pacy; planar no_covered_roots pcov
2planar reduceonswitch 2pr
covington allow_root cr; covington allow_shift cs
lib options lo; lib external lx; lib save_instance_files li; lib verbosity lv
guide features F; guide data_split_column d; guide data_split_structure s; guide data_split_threshold T
guide kbest k; guide kbest_type kt; guide learner l; guide decision_settings gds; guide classitem_separator gcs
pproj marking_strategy pp; pproj covered_root pcr; pproj lifting_order plo
"""

#: MaltParser's options that take no value
_UNARY = {"h"}
#: flags whose value may itself start with '-' (learner options are svm-train/train flags)
DASH_VALUE_FLAGS = ("-lo",)
#: a negative number: a value, not a flag
NEGATIVE_NUMBER = re.compile(r"-[0-9]+(\.[0-9]*)?")


def maltparser_options() -> List[Tuple[str, str, str]]:
    """MaltParser's options as (group, name, flag without its dash), in its order."""
    return [tuple(item.split()) for line in _OPTIONS.strip().splitlines() for item in line.split(";")]


@functools.lru_cache(maxsize=None)
def _long_names() -> Tuple[Dict[str, str], Dict[str, List[Tuple[str, str]]]]:
    """(``group-name`` -> flag, ``name`` -> (group, flag) of every group that has that name);
    made once, read only."""
    full, by_name = {}, {}
    for group, name, flag in maltparser_options():
        full[f"{group}-{name}"] = flag
        by_name.setdefault(name, []).append((group, flag))
    return full, by_name


def translate(argv: Iterable[str], known_long: Iterable[str], known_flags: Iterable[str]) -> List[str]:
    """``argv`` with MaltParser's long options (``--input-infile=F``, ``--infile=F``, or the value
    as the next argument) as their flags (``-i F``). ``known_long``: maltpy's own long options,
    which keep their meaning; ``known_flags``: the flags maltpy takes. A MaltParser option that
    maltpy does not offer, or a name that more than one group has, is a usage error saying so."""
    full, by_name = _long_names()
    own = set(known_long)
    flags = set(known_flags)
    args = list(argv)
    out, k = [], 0
    while k < len(args):
        arg = args[k]
        k += 1
        if arg == "--":     # what follows is not options
            out.extend(args[k - 1:])
            break
        head, eq, value = arg.partition("=")
        if not head.startswith("--") or head in own:
            out.append(arg)
            continue
        key = head[2:]
        if key in full:
            flag = full[key]
        elif key in by_name and len(by_name[key]) == 1:
            flag = by_name[key][0][1]
        elif key in by_name:
            groups = [f"--{group}-{key}" for group, _ in by_name[key]]
            raise UsageError(f"{head} is MaltParser's name of more than one option: say which, "
                             f"{' or '.join(groups)} (see 'maltpy --help')")
        else:
            out.append(arg)     # not MaltParser's: argparse names what is wrong with it
            continue
        if f"-{flag}" not in flags:
            raise UsageError(f"{head} (MaltParser's -{flag}) is not an option of maltpy (see 'maltpy --help')")
        out.append(f"-{flag}")
        if flag in _UNARY:
            if eq:
                raise UsageError(f"{head} takes no value")
        elif eq:
            out.append(value)
        elif k < len(args) and (not args[k].startswith("-") or f"-{flag}" in DASH_VALUE_FLAGS
                                or NEGATIVE_NUMBER.fullmatch(args[k])):
            out.append(args[k])
            k += 1
        else:
            raise UsageError(f"{head} needs a value ({head}=VALUE)")
    return out


def _flag_of(group: str, name: str, known_flags, where: str) -> str:
    """The maltpy flag of MaltParser's option ``group``/``name`` (``where`` names it in errors)."""
    full, _ = _long_names()
    flag = full.get(f"{group}-{name}")
    if flag is None:
        raise MaltpyError(f"{where}: {group}/{name} is not one of MaltParser's options (see 'maltpy --help')")
    if flag == "f":
        raise MaltpyError(f"{where}: an option file cannot name another option file")
    if flag in _UNARY or f"-{flag}" not in known_flags:
        raise MaltpyError(f"{where}: {group}/{name} (MaltParser's -{flag}) is not an option of maltpy "
                          "(see 'maltpy --help')")
    return flag


def option_file(path: str, known_flags: Iterable[str]) -> List[str]:
    """The options of MaltParser's option file ``path`` as flags (``-c test -m learn ...``), in
    the file's order: the options of its first ``optioncontainer`` (MaltParser reads no other),
    each ``<option name=... value=...>`` of an ``<optiongroup groupname=...>``. An option that is
    not MaltParser's or not maltpy's, or a file that is not an option file, is an error naming
    the file and line."""
    from xml.parsers import expat   # only here: option files are rare
    flags = set(known_flags)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MaltpyError(f"{path}: cannot read the option file ({e.strerror or e})") from None
    out: List[str] = []
    stack: List[str] = []
    state = {"group": None, "containers": 0}
    reader = expat.ParserCreate()

    def where() -> str:
        return f"{path}:{reader.CurrentLineNumber}"

    def start(tag, attrs):
        parent = stack[-1] if stack else None
        stack.append(tag)
        if parent is None:
            if tag != "experiment":
                raise MaltpyError(f"{where()}: a MaltParser option file begins with <experiment>, not <{tag}>")
        elif tag == "optioncontainer" and parent == "experiment":
            state["containers"] += 1
        elif state["containers"] > 1:
            return      # the containers after the first: not read, as MaltParser does
        elif tag == "optiongroup" and parent == "optioncontainer":
            if not attrs.get("groupname"):
                raise MaltpyError(f"{where()}: <optiongroup> without a groupname")
            state["group"] = attrs["groupname"]
        elif tag == "option" and parent == "optiongroup":
            if "name" not in attrs or "value" not in attrs:
                raise MaltpyError(f"{where()}: <option> needs a name and a value (<option name=... value=.../>)")
            out.extend([f"-{_flag_of(state['group'], attrs['name'], flags, where())}", attrs["value"]])
        else:
            raise MaltpyError(f"{where()}: <{tag}> inside <{parent}> is not part of a MaltParser option file")

    def entity(name, *_):     # an option file needs none; expanding them is how XML bombs work
        raise MaltpyError(f"{where()}: the option file declares an entity ({name}); option files have none")

    reader.StartElementHandler = start
    reader.EntityDeclHandler = entity
    reader.EndElementHandler = lambda tag: stack.pop()
    try:
        reader.Parse(data, True)
    except expat.ExpatError as e:
        raise MaltpyError(f"{path}:{e.lineno}: not an XML option file ({expat.ErrorString(e.code)})") from None
    if not state["containers"]:
        raise MaltpyError(f"{path}: no <optioncontainer> in the option file")
    if state["containers"] > 1:
        import warnings
        warnings.warn(f"{path}: only the first of its {state['containers']} option containers is read "
                      "(as MaltParser does)", MaltpyWarning, stacklevel=2)
    return out


def expand_option_file(argv: List[str], known_flags: Iterable[str]) -> List[str]:
    """``argv`` with ``-f FILE`` (MaltParser's option file) replaced by the file's options,
    put first so that the command line's own override them, as MaltParser has it."""
    files = [k for k, a in enumerate(argv) if a == "-f" or a.startswith("-f=")]
    if not files:
        return argv
    if len(files) > 1:
        raise UsageError("-f: one option file at most, as in MaltParser")
    k = files[0]
    if argv[k] == "-f":
        if k + 1 >= len(argv):
            raise UsageError("-f needs the option file's path (-f options.xml)")
        path, rest = argv[k + 1], argv[:k] + argv[k + 2:]
    else:
        path, rest = argv[k][3:], argv[:k] + argv[k + 1:]
    return option_file(path, known_flags) + rest
