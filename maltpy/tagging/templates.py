"""The tagger's feature templates: YAML in MaltParser's notation, compiled to the flat atoms of
:mod:`maltpy.tagging.perceptron`.

The word being tagged is ``Input[0]``; the words after it are ``Input[1]``, ``Input[2]``...,
the words before it ``pred(Input[0])``, ``pred(pred(Input[0]))`` (MaltParser's ``pred``/``succ``:
the previous/next word). Functions:

- ``InputColumn(FORM, a)``: the form as written; ``Lower(InputColumn(FORM, a))`` lowercased;
- ``Suffix(X, n)`` / ``Prefix(X, n)`` (MaltParser's): the last / first n characters of X
  (X the form or ``Lower`` of it; the whole form when it is shorter);
- ``Shape(InputColumn(FORM, a))``: the form's characters as X (upper case), x (lower case),
  d (digit) or themselves, at most 3 repeats of one symbol (``McDonald's`` -> ``XxXxxx'x``);
- ``Parity(InputColumn(FORM, a))`` (maltpy's): for a one-character word, whether an even or an
  odd number of the sentence's earlier words (at most 256 back) are that character too; one
  value for longer words. It tells an opening straight quote from a closing one, which PTB tags
  `` and '';
- ``OutputColumn(C, a)``: the tag the tagger gave column C (UPOSTAG, XPOSTAG, FEATS, LEMMA;
  CoNLL-X's CPOSTAG/POSTAG name the same) at address a: any word for a column predicted
  before, an earlier word for the column being predicted;
- ``Lexicon(C, a)``: the set of column C's values that the training data gives the form at a
  (lowercased; values seen in at least 10 % of its occurrences, forms seen at least 3 times),
  unknown for other forms: what the words ahead may be, before they are tagged;
- ``Cluster(a)``: the word cluster of the form at a (lowercased), from a clusters file learned
  on unannotated text (``--clusters``: :mod:`maltpy.formats.clusters`);
  ``Prefix(Cluster(a), n)`` its first n characters (a coarser cluster of a bit-string path);
  unknown for forms the file does not hold. Without a clusters file the shipped templates that
  read clusters are left out;
- ``Merge(...)`` / ``Merge3(...)``: two or three of them as one feature.

A file holds one template list per column::

    upos:
      - InputColumn(FORM, Input[0])
      - Suffix(Lower(InputColumn(FORM, Input[0])), 3)
      - OutputColumn(UPOSTAG, pred(Input[0]))
"""
from __future__ import annotations

import functools
import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from maltpy.features.spec import FeatureSpecError, _CALL_RE, _column, _feature_lines, _split_args, parse_address

#: the tag columns, by the short names settings use, as CoNLL column indices (same in both formats)
TAG_COLUMNS = {"lemma": 2, "upos": 3, "xpos": 4, "feats": 5}
#: rows of the tagger's value table, one per tag column (index = CoNLL column - 2)
COLUMN_NAMES = {"LEMMA": "lemma", "UPOSTAG": "upos", "CPOSTAG": "upos", "XPOSTAG": "xpos", "POSTAG": "xpos",
                "FEATS": "feats"}
ROW = {name: TAG_COLUMNS[name] - 2 for name in TAG_COLUMNS}

# atom kinds: as in perceptron.pyx
FORM, LOWER, SUFFIX, LOWER_SUFFIX, PREFIX, LOWER_PREFIX, SHAPE, TAG, LEXICON = range(1, 10)
#: a cluster atom (argument: its prefix length, 0 for the whole cluster) before compiling: it
#: compiles to a LEXICON atom reading the table of that prefix length (:func:`cluster_rows`)
CLUSTER = 10
#: a one-character word's parity among the sentence's earlier words (perceptron.pyx's KIND_PARITY)
PARITY = 11
MAX_ATOMS = 3


def default_templates_path() -> str:
    """The shipped templates (``feature_models/tagger/default.yaml``)."""
    return os.path.join(_shipped_dir(), "default.yaml")


def _shipped_dir() -> str:
    from maltpy.features import MODELS_DIR
    return os.path.join(MODELS_DIR, "tagger")


def resolve_templates(templates: Optional[str]) -> Tuple[str, bool]:
    """``--tagger-templates`` -> (path, shipped): a YAML file, or a shipped set by name
    (``english``: ``feature_models/tagger/english.yaml``); None: the default set. A shipped set
    serves any choice of columns, with or without clusters (its templates that read a column not
    tagged by then or clusters the tagger lacks are left out); a file of one's own is used as
    written, and such a template is an error."""
    if templates is None:
        return default_templates_path(), True
    shipped_dir = _shipped_dir()
    if os.path.exists(templates):
        return templates, os.path.abspath(os.path.dirname(templates)) == os.path.abspath(shipped_dir)
    from maltpy.features import shipped_names, shipped_path
    path = shipped_path(os.path.splitext(os.path.basename(templates))[0], shipped_dir)
    if path is None:
        from maltpy.errors import MaltpyError
        raise MaltpyError(f"tagger templates {templates!r} are neither a file nor a shipped set; "
                          f"shipped: {', '.join(shipped_names(shipped_dir))}")
    return path, True


def templates_label(path: str, shipped: bool) -> str:
    """What ``maltpy info`` calls templates that :func:`resolve_templates` found: a shipped set's
    name (``default``, ``english``), or a file's name (without its directories)."""
    name = os.path.basename(path)
    return os.path.splitext(name)[0] if shipped else name


def load_templates(text: str, source: str = "<string>", _depth: int = 0) -> Dict[str, List[str]]:
    """Column name -> template strings, from a YAML file's text. ``extends: NAME`` (a shipped
    set: ``default``) starts each column's list with that set's, the file's own templates after
    them: a set of one's own, or the English one, states only what it adds."""
    import yaml
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise FeatureSpecError(f"{source}: not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise FeatureSpecError(f"{source}: expected a mapping from columns ({', '.join(TAG_COLUMNS)}) to template lists")
    out = {}
    for key, items in data.items():
        if key in ("name", "extends"):
            continue
        if key not in TAG_COLUMNS:
            raise FeatureSpecError(f"{source}: {key!r} is not a tag column ({', '.join(TAG_COLUMNS)})")
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise FeatureSpecError(f"{source}: {key}: expected a list of templates such as "
                                   "'Suffix(InputColumn(FORM, Input[0]), 3)'")
        out[key] = list(items)
    # each template read now, so that one that cannot be read is named with its file and line
    for key, items in out.items():
        for k, template in enumerate(items):
            try:
                parse_template(template)
            except FeatureSpecError as e:
                lines = _feature_lines(text, key)     # only for the message: a second parse
                where = f"{source}:{lines[k]}" if k < len(lines) else f"{source}: {key} template {k + 1}"
                raise FeatureSpecError(f"{where}: {e}") from None
    if "extends" in data:
        line = next((k + 1 for k, l in enumerate(text.splitlines()) if l.startswith("extends:")), None)
        base = _shipped_set(data["extends"], f"{source}:{line}" if line else source, _depth)
        out = {c: base.get(c, []) + out.get(c, []) for c in TAG_COLUMNS if c in base or c in out}
    return out


def _shipped_set(name, source: str, depth: int) -> Dict[str, List[str]]:
    """The templates of the shipped set ``name`` that a file extends."""
    from maltpy.features import shipped_names, shipped_path
    path = shipped_path(name, _shipped_dir()) if isinstance(name, str) and name and "/" not in name else None
    if path is None:
        raise FeatureSpecError(f"{source}: extends {name!r}: not a shipped template set "
                               f"({', '.join(shipped_names(_shipped_dir()))})")
    if depth >= 4:
        raise FeatureSpecError(f"{source}: extends {name!r}: sets extend each other too deep (a cycle?)")
    with open(path, encoding="utf-8") as f:
        return load_templates(f.read(), path, depth + 1)


def _offset(text: str, whole: str) -> int:
    address = parse_address(text, whole)
    if address.base != "Input" or any(n not in ("pred", "succ") for n in address.nav):
        raise FeatureSpecError(f"a tagger template addresses words as Input[k], pred(...) and succ(...), "
                               f"not {text.strip()!r} (template {whole!r})")
    return address.index - address.nav.count("pred") + address.nav.count("succ")


def _atom(text: str, whole: str):
    """(kind, argument, offset) of one value function."""
    m = _CALL_RE.match(text.strip())
    if not m:
        raise FeatureSpecError(f"cannot read template {whole!r}: expected Function(arguments)")
    name, args = m.group(1), _split_args(m.group(2), whole)

    def form(arg, lower=False):
        inner = _CALL_RE.match(arg.strip())
        if inner and inner.group(1) == "Lower":
            return form(_split_args(inner.group(2), whole)[0], True)
        if not inner or inner.group(1) != "InputColumn":
            raise FeatureSpecError(f"expected InputColumn(FORM, ...) or Lower(InputColumn(FORM, ...)), got "
                                   f"{arg.strip()!r} (template {whole!r})")
        col, address = _split_args(inner.group(2), whole)
        if _column(col, whole) != "FORM":
            raise FeatureSpecError(f"the tagger reads the FORM column of its input (template {whole!r}); "
                                   "tags are OutputColumn(...)")
        return lower, _offset(address, whole)

    if name in ("InputColumn", "Lower"):
        lower, off = form(text)
        return (LOWER if lower else FORM, 0, off)
    if name == "Cluster":
        if len(args) != 1:
            raise FeatureSpecError(f"Cluster takes 1 argument, a word's address such as Input[0] (template {whole!r})")
        return (CLUSTER, 0, _offset(args[0], whole))
    if name in ("Suffix", "Prefix"):
        if len(args) != 2:
            raise FeatureSpecError(f"{name} takes 2 arguments (template {whole!r})")
        try:
            n = int(args[1])
        except ValueError:
            raise FeatureSpecError(f"{name} length must be an integer (template {whole!r})") from None
        if not 1 <= n <= 64:
            raise FeatureSpecError(f"{name} length must be from 1 to 64 (template {whole!r})")
        inner = _CALL_RE.match(args[0].strip())
        if inner and inner.group(1) == "Cluster":
            if name != "Prefix":
                raise FeatureSpecError(f"a cluster is cut with Prefix(Cluster(...), n), its first n characters "
                                       f"(template {whole!r})")
            return (CLUSTER, n, _atom(args[0], whole)[2])
        lower, off = form(args[0])
        kind = (LOWER_SUFFIX if lower else SUFFIX) if name == "Suffix" else (LOWER_PREFIX if lower else PREFIX)
        return (kind, n, off)
    if name == "Parity":
        if len(args) != 1:
            raise FeatureSpecError(f"Parity takes 1 argument, a word's form such as InputColumn(FORM, Input[0]) "
                                   f"(template {whole!r})")
        return (PARITY, 0, form(args[0])[1])
    if name == "Shape":
        if len(args) != 1:
            raise FeatureSpecError(f"Shape takes 1 argument (template {whole!r})")
        return (SHAPE, 0, form(args[0])[1])
    if name == "OutputColumn":
        if len(args) != 2:
            raise FeatureSpecError(f"OutputColumn takes 2 arguments (template {whole!r})")
        col = _column(args[0], whole)
        if col not in COLUMN_NAMES:
            raise FeatureSpecError(f"OutputColumn({col}, ...): the tagger writes {', '.join(sorted(COLUMN_NAMES))} "
                                   f"(template {whole!r})")
        return (TAG, ROW[COLUMN_NAMES[col]], _offset(args[1], whole))
    if name == "Lexicon":
        if len(args) != 2:
            raise FeatureSpecError(f"Lexicon takes 2 arguments (template {whole!r})")
        col = _column(args[0], whole)
        if col not in COLUMN_NAMES:
            raise FeatureSpecError(f"Lexicon({col}, ...): the tagger's columns are {', '.join(sorted(COLUMN_NAMES))} "
                                   f"(template {whole!r})")
        return (LEXICON, ROW[COLUMN_NAMES[col]], _offset(args[1], whole))
    raise FeatureSpecError(f"unknown function {name!r} in template {whole!r}; known: InputColumn, Lower, Suffix, "
                           "Prefix, Shape, Parity, OutputColumn, Lexicon, Cluster, Merge, Merge3")


@functools.lru_cache(maxsize=4096)
def parse_template(text: str) -> Tuple[Tuple[int, int, int], ...]:
    """One template as a tuple of 1-3 atoms (kind, argument, offset). Remembered: loading a tagger
    asks for each of its templates several times (its groups share most of them)."""
    whole = text.strip()
    m = _CALL_RE.match(whole)
    if m and m.group(1) in ("Merge", "Merge3"):
        args = _split_args(m.group(2), whole)
        if len(args) != (2 if m.group(1) == "Merge" else 3):
            raise FeatureSpecError(f"{m.group(1)} takes {2 if m.group(1) == 'Merge' else 3} arguments "
                                   f"(template {whole!r})")
        return tuple(_atom(a, whole) for a in args)
    return (_atom(whole, whole),)


def compile_templates(templates: Sequence[str], known_rows: Sequence[int], own_rows: Sequence[int],
                      source: str = "templates", cluster_rows: Optional[Dict[int, int]] = None) -> np.ndarray:
    """Templates as an int32 array [n, MAX_ATOMS, 3]. A tag atom must read a column tagged before
    (``known_rows``: any word) or its own group's (``own_rows``: earlier words only), since
    tagging goes left to right, one group after another. A cluster atom reads the lexicon row
    ``cluster_rows`` gives its prefix length (:func:`cluster_rows`; None: the tagger has no
    clusters, and such a template is an error)."""
    out = np.zeros((len(templates), MAX_ATOMS, 3), dtype=np.int32)
    for t, text in enumerate(templates):
        atoms = parse_template(text)
        for a, (kind, arg, off) in enumerate(atoms):
            if kind == TAG and arg not in known_rows and not (arg in own_rows and off < 0):
                raise FeatureSpecError(
                    f"{source}: template {text.strip()!r} reads a tag not yet given there: a tagger template "
                    "reads the columns tagged before it at any word, and its own column(s) at earlier words "
                    "(pred(Input[0]))")
            if kind == CLUSTER:
                if not cluster_rows or arg not in cluster_rows:
                    raise FeatureSpecError(f"{source}: template {text.strip()!r} reads word clusters: learn the "
                                           "tagger with --clusters FILE (brown-cluster's paths file)")
                kind, arg = LEXICON, cluster_rows[arg]
            out[t, a] = (kind, arg, off)
    return out


def usable_templates(templates: Sequence[str], known_rows: Sequence[int], own_rows: Sequence[int],
                     clusters: bool = False) -> List[str]:
    """The templates that read only tags given by then, and clusters only where the tagger has
    them (the shipped templates serve any choice of columns: a tagger of upos and lemma drops the
    lemma templates that read XPOS and FEATS, one without ``--clusters`` those of Cluster)."""
    return [t for t in templates
            if all((kind != TAG or arg in known_rows or (arg in own_rows and off < 0))
                   and (kind != CLUSTER or clusters)
                   for kind, arg, off in parse_template(t))]


def cluster_lengths(templates: Sequence[str]) -> List[int]:
    """The cluster prefix lengths the templates read (0: the whole cluster), sorted."""
    return sorted({arg for t in templates for kind, arg, _ in parse_template(t) if kind == CLUSTER})


def cluster_rows(lengths: Sequence[int], first_row: int) -> Dict[int, int]:
    """Prefix length -> the lexicon row of its table: rows ``first_row``, ``first_row`` + 1, ...
    after the tag columns' lexicons, in the order of ``lengths``."""
    return {n: first_row + k for k, n in enumerate(lengths)}


def lexicon_rows(templates: Sequence[str]) -> List[int]:
    """The columns (rows) whose lexicon the templates read."""
    return sorted({arg for t in templates for kind, arg, _ in parse_template(t) if kind == LEXICON})
