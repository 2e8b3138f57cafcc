"""Settings for learning and parsing: defaults, YAML configuration files, MaltParser flags.

Every setting has a maltpy name (used in YAML and the Python API) and, where
MaltParser has the same option, MaltParser's long name (accepted in YAML as
an alias) and short flag (accepted on the command line).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Optional

import yaml

from maltpy.errors import MaltpyError


def available_cores() -> int:
    """The cores this process may run on, which ``jobs = 0`` means: its CPU affinity (as taskset
    or a container's cpuset restricts it) where the system has one, else the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass
class Settings:
    """All settings. ``None`` means "decide from the data" (formats, feature model)."""
    model: Optional[str] = None            # -c / model file path
    input: Optional[str] = None            # -i  (None or '-' = stdin)
    learn_input: Optional[str] = None      # YAML only: what -m learn reads when -i is not given
    parse_input: Optional[str] = None      # YAML only: what -m parse reads when -i is not given
    output: Optional[str] = None           # -o  (None or '-' = stdout)
    input_format: Optional[str] = None     # -if conllx|conllu (default: from the file name)
    output_format: Optional[str] = None    # -of (default: the input format)
    algorithm: str = "nivreeager"          # -a
    features: Optional[str] = None         # -F  name or path (default: MaltParser's for -a, -l, -if)
    learner: str = "liblinear"             # -l
    learner_options: str = ""              # -lo (default: -s 4 -c 0.1 -e 0.1 -B -1)
    split_column: Optional[str] = None     # -d
    split_structure: Optional[str] = None  # -s
    split_threshold: int = 50              # -T
    root_label: str = "ROOT"               # -grl
    allow_root: bool = True                # -nr
    allow_reduce: bool = False             # -ne
    enforce_tree: bool = False             # -nt
    allow_shift: bool = False              # -cs  covington (-cr is allow_root)
    connectedness: str = "none"            # -pcon planar: none|reduceonly|full
    acyclicity: bool = True                # -pacy planar, 2planar
    no_covered_roots: bool = False         # -pcov planar, 2planar
    planar_root_handling: str = "normal"   # -prh planar, 2planar: normal|relaxed
    reduceonswitch: bool = False           # -2pr 2planar
    marking_strategy: str = "none"         # -pp  none|baseline|head|path|head+path
    covered_root: str = "none"             # -pcr none|ignore|left|right|head
    lifting_order: str = "shortest"        # -plo shortest|deepest
    null_value: str = "one"                # -nv one|rootnode|novalue: kinds of null feature values
    buffer_transitions: str = "none"       # -bt nivreeager: none, lba, rba, lnba, rnba or a +-joined set
    buffer_oracle: str = "always"          # -bo always|needed: when the oracle takes LNBA/RNBA
    buffer_arc_length: str = "one"         # -bal one|any: the gold arcs the oracle builds with LBA/RBA
    direction: str = "ltr"                 # -dir ltr|rtl|both: left to right, right to left, or both combined
    combination_folds: int = 10            # -cv: folds of the cross-validation that tunes -dir both
    reverse_features: Optional[str] = None  # -Frtl with -dir both: the right-to-left parser's feature model (default: -F's)
    oracle: str = "static"                 # -or static|dynamic (dynamic: online perceptron training)
    undirected: str = "none"               # -ud none|naive|label: undirected planar, 2planar, covnonproj
    constituent_encoding: str = "delta"    # -ce direct|delta: constituent trees as head-ordered dependencies
    head_rules: str = "collins"            # -hr collins|leftmost|rightmost or a YAML rule file
    jobs: int = 0                          # threads: split models trained (or one model's solver helped), kernel models scored (0 = all cores)
    verbose: bool = True                   # progress and messages on a terminal

    def system_options(self, cls) -> dict:
        """The options of this system class taken from these settings."""
        return {k: getattr(self, k) for k in cls.options if hasattr(self, k)}


#: MaltParser long option names accepted as YAML keys.
ALIASES = {
    "name": "model", "config": "model", "infile": "input", "outfile": "output",
    "parsing_algorithm": "algorithm", "guide_features": "features",
    "data_split_column": "split_column", "data_split_structure": "split_structure",
    "data_split_threshold": "split_threshold", "lib_options": "learner_options",
    "options": "learner_options", "format": "input_format",
    "pp": "marking_strategy", "pproj": "marking_strategy",
}

#: MaltParser short flags -> setting (the CLI adds them to argparse).
FLAGS = {
    "-i": "input", "-o": "output", "-if": "input_format", "-of": "output_format",
    "-a": "algorithm", "-F": "features", "-l": "learner", "-lo": "learner_options",
    "-d": "split_column", "-s": "split_structure", "-T": "split_threshold",
    "-grl": "root_label", "-nr": "allow_root", "-ne": "allow_reduce", "-nt": "enforce_tree",
    "-cr": "allow_root", "-cs": "allow_shift",
    "-pcon": "connectedness", "-pacy": "acyclicity", "-pcov": "no_covered_roots",
    "-prh": "planar_root_handling", "-2pr": "reduceonswitch",
    "-pp": "marking_strategy", "-pcr": "covered_root", "-plo": "lifting_order",
    "-nv": "null_value",
    "-bt": "buffer_transitions",
    "-bo": "buffer_oracle",
    "-bal": "buffer_arc_length",
    "-dir": "direction",
    "-cv": "combination_folds",
    "-Frtl": "reverse_features",
    "-or": "oracle",
    "-ud": "undirected",
    "-ce": "constituent_encoding",
    "-hr": "head_rules",
}

_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}
#: settings that name files (relative paths in a configuration file are relative to it)
PATH_SETTINGS = ("model", "input", "learn_input", "parse_input", "output")
#: settings of one run, not of the trained parser (not stored in model files)
RUN_SETTINGS = PATH_SETTINGS + ("verbose", "jobs")


NULL_VALUES = ("one", "rootnode", "novalue")

#: integer settings -> (smallest value, what it means); -cv's upper bound is checked on the data
INT_MINIMUM = {
    "jobs": (0, "0 means all cores"),
    "split_threshold": (0, "a split value needs more than this many instances for a model of its own"),
    "combination_folds": (2, "folds of the cross-validation"),
}


def choices() -> dict:
    """Setting -> its allowed values, taken from the modules that implement them."""
    from maltpy.formats.conll import FORMATS
    from maltpy.learners import LEARNERS
    from maltpy.systems import SYSTEMS
    from maltpy.systems.planar import CONNECTEDNESS, ROOT_HANDLING
    from maltpy.transform.pseudoproj import COVERED_ROOT, LIFTING_ORDERS, MARKING_STRATEGIES
    from maltpy.transform.constituents import ENCODINGS
    from maltpy.transform.reverse import DIRECTIONS
    from maltpy.systems.nivreeager import BUFFER_ARC_LENGTHS, BUFFER_ORACLES
    return {"algorithm": tuple(SYSTEMS), "learner": tuple(LEARNERS), "input_format": FORMATS + ("ptb",),
            "output_format": FORMATS + ("ptb",), "constituent_encoding": ENCODINGS,
            "undirected": ("none", "naive", "label"), "connectedness": CONNECTEDNESS, "planar_root_handling": ROOT_HANDLING,
            "marking_strategy": MARKING_STRATEGIES, "covered_root": COVERED_ROOT,
            "lifting_order": LIFTING_ORDERS, "null_value": NULL_VALUES, "direction": DIRECTIONS,
            "oracle": ("static", "dynamic"), "buffer_oracle": BUFFER_ORACLES,
            "buffer_arc_length": BUFFER_ARC_LENGTHS}


def coerce(name: str, value, source: str):
    """Convert a YAML or command-line value to the setting's type, with a clear error."""
    f = _FIELDS[name]
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    if value is None:
        if f.default is not None:
            raise MaltpyError(f"{source}: {name} needs a value (default: {f.default})")
        return None
    if "bool" in kind:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off"):
            return False
        raise MaltpyError(f"{source}: {name} must be true or false, got {value!r}")
    if "int" in kind:
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError):
            raise MaltpyError(f"{source}: {name} must be an integer, got {value!r}") from None
        if name in INT_MINIMUM and number < INT_MINIMUM[name][0]:
            least, meaning = INT_MINIMUM[name]
            raise MaltpyError(f"{source}: {name} must be at least {least} ({meaning}), got {number}")
        return number
    if isinstance(value, (list, dict)):
        raise MaltpyError(f"{source}: {name} must be text, got {value!r}")
    if name == "buffer_transitions":
        from maltpy.systems.nivreeager import parse_buffer_transitions
        try:
            return parse_buffer_transitions(value)
        except MaltpyError as e:
            raise MaltpyError(f"{source}: {e}") from None
    allowed = choices().get(name)
    if allowed is not None and str(value) not in allowed:
        raise MaltpyError(f"{source}: {name} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def load_config(path: str) -> dict:
    """Read a YAML configuration file into a dict of setting name -> value."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except FileNotFoundError:
        raise MaltpyError(f"{path}: configuration file not found") from None
    except OSError as e:   # a directory, a name too long, no permission
        raise MaltpyError(f"{path}: cannot read the configuration file ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        raise MaltpyError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from None
    except UnicodeDecodeError:
        raise MaltpyError(f"{path}: configuration file is not UTF-8 text") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MaltpyError(f"{path}: a configuration must be a mapping of setting: value")
    out = {}
    base = os.path.dirname(os.path.abspath(path))
    for key, value in data.items():
        name = ALIASES.get(str(key).replace("-", "_"), str(key).replace("-", "_"))
        if name not in _FIELDS:
            raise MaltpyError(f"{path}: unknown setting {key!r}; known settings: "
                              f"{', '.join(n for n in _FIELDS if n != 'verbose')}")
        value = coerce(name, value, path)
        # paths in a configuration file are relative to the file
        if name in PATH_SETTINGS and value and value != "-" and not os.path.isabs(value):
            value = os.path.join(base, value)
        if name in ("features", "reverse_features") and value and ("/" in value or value.endswith((".yaml", ".yml", ".xml"))) \
                and not os.path.isabs(value):
            value = os.path.join(base, value)
        if name == "head_rules" and value not in ("collins", "leftmost", "rightmost") and not os.path.isabs(value):
            value = os.path.join(base, value)
        out[name] = value
    return out


def make_settings(**values) -> Settings:
    """Settings from keyword arguments, checking names and types."""
    clean = {}
    for key, value in values.items():
        name = ALIASES.get(key, key)
        if name not in _FIELDS:
            raise MaltpyError(f"unknown setting {key!r}; known settings: {', '.join(_FIELDS)}")
        clean[name] = coerce(name, value, "settings")
    return Settings(**clean)
