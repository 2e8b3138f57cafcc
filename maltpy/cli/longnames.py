"""MaltParser's long option names on the command line.

MaltParser takes every option three ways (its user guide, "Controlling MaltParser"): the flag
(``-c test``), the option group and name (``--config-name=test``), and the name alone where no
other group has it (``--name=test``). maltpy's flags are MaltParser's; this module turns the two
long forms into them, so that a MaltParser command line or script runs unchanged.
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, List, Tuple

from maltpy.errors import UsageError

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
#: MaltParser's -v takes a level (info, silent...); maltpy's -v is a switch, so the long name
#: is not translated
_DIFFERENT = {"v"}
#: a negative number: a value, not a flag
NEGATIVE_NUMBER = re.compile(r"-[0-9]+(\.[0-9]*)?")


def maltparser_options() -> List[Tuple[str, str, str]]:
    """MaltParser's options as (group, name, flag without its dash), in its order."""
    return [tuple(item.split()) for line in _OPTIONS.strip().splitlines() for item in line.split(";")]


def _long_names() -> Tuple[Dict[str, str], Dict[str, List[str]]]:
    """(``group-name`` -> flag, ``name`` -> the flags of every group that has that name)."""
    full, by_name = {}, {}
    for group, name, flag in maltparser_options():
        full[f"{group}-{name}"] = flag
        by_name.setdefault(name, []).append(flag)
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
            flag = by_name[key][0]
        elif key in by_name:
            groups = [f"--{g}-{n}" for g, n, f in maltparser_options() if n == key]
            raise UsageError(f"{head} is MaltParser's name of more than one option: say which, "
                             f"{' or '.join(groups)} (see 'maltpy --help')")
        else:
            out.append(arg)     # not MaltParser's: argparse names what is wrong with it
            continue
        if flag in _DIFFERENT or f"-{flag}" not in flags:
            raise UsageError(f"{head} (MaltParser's -{flag}) is not an option of maltpy (see 'maltpy --help')")
        out.append(f"-{flag}")
        if flag in _UNARY:
            if eq:
                raise UsageError(f"{head} takes no value")
        elif eq:
            out.append(value)
        elif k < len(args) and (not args[k].startswith("-") or flag == "lo" or NEGATIVE_NUMBER.fullmatch(args[k])):
            out.append(args[k])     # (learner options start with a dash, as in MaltParser's -lo)
            k += 1
        else:
            raise UsageError(f"{head} needs a value ({head}=VALUE)")
    return out
