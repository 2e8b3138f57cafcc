"""MaltParser feature specifications: parsing, printing, YAML and XML.

A feature model is a list of feature functions written the way MaltParser
writes them, e.g. ``Merge(InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, ldep(Input[0])))``.
:func:`parse_feature` turns such a string into a small tree of immutable
values; ``str()`` turns it back. The compiler
(:mod:`maltpy.features.compiler`) lowers the tree to flat arrays for the
Cython extractor.

YAML feature model files look like::

    name: nivreeager
    features:
      - InputColumn(POSTAG, Stack[0])
      - Merge:
          - InputColumn(POSTAG, Stack[0])
          - InputColumn(POSTAG, Input[0])

Each item is either MaltParser's string form or a one-key mapping from a
function name to its argument list (arguments again strings or mappings;
inside YAML's [flow] brackets, quote arguments that contain brackets).
"""
from __future__ import annotations

import re
from dataclasses import FrozenInstanceError, dataclass
from typing import List, Optional, Tuple, Union


from maltpy.errors import MaltpyError

#: Dependency-graph navigation functions (MaltParser's DGraphAddressFunction).
NAVIGATION = ("head", "ldep", "rdep", "lsib", "rsib", "pred", "succ", "lcdep", "rcdep", "thead")


class FeatureSpecError(MaltpyError):
    """A feature specification that cannot be parsed or compiled."""


class _Node:
    """A node of a feature's tree: an immutable value of the fields its class annotates (with the
    defaults the class gives them), compared and hashed by them, as ``@dataclass(frozen=True)``
    makes one, without its code generation at import (the 17 classes below took 8 ms of every
    command's start-up that way)."""
    _fields: Tuple[str, ...] = ()
    _defaults: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(cls.__dict__.get("__annotations__", {}))
        cls._defaults = {name: cls.__dict__[name] for name in cls._fields if name in cls.__dict__}

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__}() takes {len(self._fields)} arguments, got {len(args)}")
        values = dict(zip(self._fields, args))
        for name, value in kwargs.items():
            if name not in self._fields or name in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {name!r}")
            values[name] = value
        for name in self._fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
                values[name] = self._defaults[name]
            object.__setattr__(self, name, values[name])

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._fields)})"

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")


class Address(_Node):
    """``Stack[0]``, ``ldep(Input[1])``...: a base function with an offset and navigation steps.

    ``nav`` lists the navigation functions innermost first: ``ldep(head(Stack[0]))``
    has ``nav == ("head", "ldep")``.
    """
    base: str
    index: int
    nav: Tuple[str, ...] = ()

    def __str__(self):
        s = f"{self.base}[{self.index}]"
        for fn in self.nav:
            s = f"{fn}({s})"
        return s


class InputColumn(_Node):
    column: str
    address: Address

    def __str__(self):
        return f"InputColumn({self.column}, {self.address})"


class OutputColumn(_Node):
    column: str
    address: Address

    def __str__(self):
        return f"OutputColumn({self.column}, {self.address})"


class InputArc(_Node):
    column: str
    address1: Address
    address2: Address

    def __str__(self):
        return f"InputArc({self.column}, {self.address1}, {self.address2})"


class OutputArc(_Node):
    """Arc between two nodes in the partial graph being built: LEFT, RIGHT or none."""
    column: str
    address1: Address
    address2: Address

    def __str__(self):
        return f"OutputArc({self.column}, {self.address1}, {self.address2})"


class LabelSet(_Node):
    """maltpy's (Zhang & Nivre 2011's label sets): the set of labels of a node's left (``ldeps``),
    right (``rdeps``) or all (``deps``) dependents, as one value."""
    address: Address
    relation: str

    def __str__(self):
        return f"LabelSet({self.address}, {self.relation})"


class Linked(_Node):
    """maltpy's: whether two nodes are linked in the partial graph (an arc either way, or an
    undirected link of ``-ud`` parsing); 2 if so, 1 if not."""
    address1: Address
    address2: Address

    def __str__(self):
        return f"Linked({self.address1}, {self.address2})"


class LinkLabel(_Node):
    """maltpy's: the label (DEPREL) of the arc or undirected link between two nodes; none
    when they are not linked."""
    address1: Address
    address2: Address

    def __str__(self):
        return f"LinkLabel({self.address1}, {self.address2})"


class InputArcDir(_Node):
    column: str
    address: Address

    def __str__(self):
        return f"InputArcDir({self.column}, {self.address})"


class Exists(_Node):
    address: Address

    def __str__(self):
        return f"Exists({self.address})"


class Distance(_Node):
    address1: Address
    address2: Address
    bins: Tuple[int, ...]

    def __str__(self):
        return f"Distance({self.address1}, {self.address2}, {'|'.join(map(str, self.bins))})"


class NumOf(_Node):
    address: Address
    relation: str
    bins: Tuple[int, ...]

    def __str__(self):
        return f"NumOf({self.address}, {self.relation}, {'|'.join(map(str, self.bins))})"


class Cluster(_Node):
    """The word cluster of a column's value (of FORM, from a clusters file learned on unannotated
    text: ``--clusters``); ``Prefix(Cluster(...), n)`` its first n characters (maltpy's)."""
    feature: InputColumn

    def __str__(self):
        return f"Cluster({self.feature})"


class Suffix(_Node):
    feature: InputColumn
    length: int

    def __str__(self):
        return f"Suffix({self.feature}, {self.length})"


class Prefix(_Node):
    feature: Union[InputColumn, Cluster]
    length: int

    def __str__(self):
        return f"Prefix({self.feature}, {self.length})"


class Split(_Node):
    feature: Union[InputColumn, Suffix, Prefix]
    separator: str

    def __str__(self):
        return f"Split({self.feature}, {self.separator})"


class Merge(_Node):
    features: tuple  # 2 or 3 value features

    def __str__(self):
        name = "Merge" if len(self.features) == 2 else "Merge3"
        return f"{name}({', '.join(map(str, self.features))})"


Feature = Union[InputColumn, OutputColumn, InputArc, OutputArc, InputArcDir, Exists, Distance,
                NumOf, Suffix, Prefix, Cluster, Split, Merge, Linked, LinkLabel, LabelSet]
_VALUE_FEATURES = (InputColumn, OutputColumn, InputArc, OutputArc, InputArcDir, Exists, Distance, NumOf,
                   Suffix, Prefix, Cluster, Linked, LinkLabel, LabelSet)

_ADDRESS_RE = re.compile(r"^([A-Za-z]\w*)\s*\[\s*(-?\d+)\s*\]$")
_CALL_RE = re.compile(r"^([A-Za-z]\w*)\s*\((.*)\)$", re.S)


def _split_args(text: str, whole: str):
    """Split a comma-separated argument list at parenthesis depth 0."""
    args, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                raise FeatureSpecError(f"unbalanced ')' in feature {whole!r}")
        elif ch == "," and depth == 0:
            args.append(text[start:k].strip())
            start = k + 1
    if depth != 0:
        raise FeatureSpecError(f"unbalanced '(' in feature {whole!r}")
    args.append(text[start:].strip())
    return args


#: Largest offset, length or bin a feature may name (the C extractor works with 32-bit integers).
MAX_NUMBER = 1 << 20


def parse_address(text: str, whole: str = None) -> Address:
    """Parse ``Stack[0]`` or ``ldep(head(Input[1]))``."""
    whole = whole or text
    text = text.strip()
    m = _ADDRESS_RE.match(text)
    if m:
        index = int(m.group(2))
        if index < 0:
            raise FeatureSpecError(f"negative offset in {text!r} (feature {whole!r})")
        if index > MAX_NUMBER:
            raise FeatureSpecError(f"offset {index} in {text!r} is too large (at most {MAX_NUMBER}; "
                                   f"feature {whole!r})")
        return Address(m.group(1), index)
    m = _CALL_RE.match(text)
    if m and m.group(1) in NAVIGATION:
        inner = parse_address(m.group(2), whole)
        return Address(inner.base, inner.index, inner.nav + (m.group(1),))
    if m:
        raise FeatureSpecError(
            f"unknown address function {m.group(1)!r} in feature {whole!r}; "
            f"navigation functions are {', '.join(NAVIGATION)}")
    raise FeatureSpecError(f"expected an address like Stack[0] or ldep(Input[0]), got {text!r} "
                           f"in feature {whole!r}")


def _parse_bins(text: str, whole: str) -> Tuple[int, ...]:
    try:
        bins = tuple(int(x) for x in text.strip().strip('"').split("|"))
    except ValueError:
        raise FeatureSpecError(f"normalization {text!r} must be integers separated by '|' "
                               f"(feature {whole!r})") from None
    if any(b > MAX_NUMBER for b in bins):
        raise FeatureSpecError(f"normalization {text!r}: bins go up to {MAX_NUMBER} (feature {whole!r})")
    if not bins or bins[0] != 0 or list(bins) != sorted(set(bins)):
        raise FeatureSpecError(f"normalization {text!r} must start with 0 and ascend "
                               f"(feature {whole!r})")
    return bins


def _column(text: str, whole: str) -> str:
    text = text.strip()
    if not re.match(r"^[A-Za-z][\w\-]*$", text):
        raise FeatureSpecError(f"expected a column name, got {text!r} in feature {whole!r}")
    return text.upper()


def _expect(args, count, name, whole):
    if len(args) != count:
        raise FeatureSpecError(f"{name} takes {count} argument(s), got {len(args)} in feature {whole!r}")


def _relation(name: str, text: str, whole: str) -> str:
    """The dependents a NumOf or LabelSet feature looks at: ldeps, rdeps or deps."""
    relation = text.strip()
    if relation not in ("ldeps", "rdeps", "deps"):
        raise FeatureSpecError(f"{name} relation must be ldeps, rdeps or deps, got {relation!r} "
                               f"in feature {whole!r}")
    return relation


def parse_feature(text: str, _whole: str = None) -> Feature:
    """Parse one feature function in MaltParser's notation."""
    whole = _whole or text.strip()
    if not isinstance(text, str):
        raise FeatureSpecError(f"a feature must be a string or a one-key mapping, got {text!r}")
    m = _CALL_RE.match(text.strip())
    if not m:
        raise FeatureSpecError(f"cannot parse feature {whole!r}: expected Function(arguments)")
    name, args = m.group(1), _split_args(m.group(2), whole)
    if name == "InputColumn":
        _expect(args, 2, name, whole)
        return InputColumn(_column(args[0], whole), parse_address(args[1], whole))
    if name == "OutputColumn":
        _expect(args, 2, name, whole)
        return OutputColumn(_column(args[0], whole), parse_address(args[1], whole))
    if name == "InputArc":
        _expect(args, 3, name, whole)
        return InputArc(_column(args[0], whole), parse_address(args[1], whole),
                        parse_address(args[2], whole))
    if name == "OutputArc":
        _expect(args, 3, name, whole)
        return OutputArc(_column(args[0], whole), parse_address(args[1], whole),
                         parse_address(args[2], whole))
    if name == "LabelSet":
        _expect(args, 2, name, whole)
        return LabelSet(parse_address(args[0], whole), _relation(name, args[1], whole))
    if name in ("Linked", "LinkLabel"):
        _expect(args, 2, name, whole)
        return (Linked if name == "Linked" else LinkLabel)(parse_address(args[0], whole),
                                                           parse_address(args[1], whole))
    if name == "InputArcDir":
        _expect(args, 2, name, whole)
        return InputArcDir(_column(args[0], whole), parse_address(args[1], whole))
    if name == "Exists":
        _expect(args, 1, name, whole)
        return Exists(parse_address(args[0], whole))
    if name == "Distance":
        _expect(args, 3, name, whole)
        return Distance(parse_address(args[0], whole), parse_address(args[1], whole),
                        _parse_bins(args[2], whole))
    if name == "NumOf":
        _expect(args, 3, name, whole)
        return NumOf(parse_address(args[0], whole), _relation(name, args[1], whole), _parse_bins(args[2], whole))
    if name == "Cluster":
        _expect(args, 1, name, whole)
        inner = parse_feature(args[0], whole)
        if not isinstance(inner, InputColumn) or inner.column != "FORM":
            raise FeatureSpecError(f"Cluster applies to InputColumn(FORM, ...) only, in feature {whole!r}")
        return Cluster(inner)
    if name in ("Suffix", "Prefix"):
        _expect(args, 2, name, whole)
        inner = parse_feature(args[0], whole)
        if not isinstance(inner, InputColumn) and not (name == "Prefix" and isinstance(inner, Cluster)):
            raise FeatureSpecError(f"{name} applies to InputColumn only (Prefix also to Cluster), in feature "
                                   f"{whole!r}")
        try:
            length = int(args[1])
        except ValueError:
            raise FeatureSpecError(f"{name} length must be an integer in feature {whole!r}") from None
        if length < 0 or length > MAX_NUMBER:
            raise FeatureSpecError(f"{name} length must be from 0 to {MAX_NUMBER} in feature {whole!r}")
        return (Suffix if name == "Suffix" else Prefix)(inner, length)
    if name == "Split":
        _expect(args, 2, name, whole)
        inner = parse_feature(args[0], whole)
        if not isinstance(inner, (InputColumn, Suffix, Prefix)) or isinstance(getattr(inner, "feature", None), Cluster):
            raise FeatureSpecError(f"Split applies to input columns only, in feature {whole!r}")
        sep = args[1].strip()
        try:
            re.compile(sep)
        except re.error as e:
            raise FeatureSpecError(f"Split separator {sep!r} is not a valid regular expression "
                                   f"({e}) in feature {whole!r}") from None
        return Split(inner, sep)
    if name in ("Merge", "Merge3"):
        _expect(args, 2 if name == "Merge" else 3, name, whole)
        parts = tuple(parse_feature(a, whole) for a in args)
        for p in parts:
            if not isinstance(p, _VALUE_FEATURES):
                raise FeatureSpecError(f"{name} combines single-valued features only; "
                                       f"{p} cannot be merged (feature {whole!r})")
        return Merge(parts)
    raise FeatureSpecError(
        f"unknown feature function {name!r} in {whole!r}; known: InputColumn, OutputColumn, "
        "InputArc, OutputArc, InputArcDir, Exists, Distance, NumOf, Merge, Merge3, Split, Suffix, Prefix, "
        "Cluster, Linked, LinkLabel, LabelSet")


def _item_to_string(item) -> str:
    """A YAML item (string or one-key mapping) in MaltParser's string form."""
    if isinstance(item, str):
        return item
    if isinstance(item, (int, float)):
        return str(item)
    if isinstance(item, dict) and len(item) == 1:
        (name, args), = item.items()
        if not isinstance(args, list):
            args = [args]
        return f"{name}({', '.join(_item_to_string(a) for a in args)})"
    raise FeatureSpecError(f"a feature must be a string like 'InputColumn(POSTAG, Stack[0])' or a "
                           f"one-key mapping like {{Merge: [...]}}, got {item!r}")


@dataclass
class FeatureModel:
    """A named list of features."""
    name: str
    features: list

    def to_yaml(self, comment: str = "") -> str:
        lines = []
        if comment:
            lines += [f"# {c}" if c else "#" for c in comment.splitlines()]
        lines.append(f"name: {self.name}")
        lines.append("features:")
        for f in self.features:
            lines.append(f"  - {str(f)}")
        return "\n".join(lines) + "\n"


def _feature_lines(text: str, key: str = "features") -> List[int]:
    """The line of each entry of the ``key:`` list (or of a top-level list), for messages (the
    tagger's templates name their column lists ``upos:``, ``xpos:``...)."""
    import yaml
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return []
    if isinstance(node, yaml.MappingNode):
        node = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
    if isinstance(node, yaml.SequenceNode):
        return [item.start_mark.line + 1 for item in node.value]
    return []


def load_feature_model(text: str, source: str = "<string>") -> FeatureModel:
    """Parse a YAML feature model (see module docstring)."""
    import yaml   # here, not at import: -m tag and -m tokenize read no YAML (11 ms of start-up)
    try:
        # libyaml's loader where PyYAML was built with it (the same documents, several times faster)
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        what = " ".join(str(x) for x in (getattr(e, "context", None), getattr(e, "problem", None)) if x) or str(e)
        raise FeatureSpecError(f"{where}: not valid YAML: {what}".replace("\n", " ")) from None
    return feature_model_from_data(data, source, text)


def feature_model_from_data(data, source: str = "<data>", text: Optional[str] = None) -> FeatureModel:
    """A feature model from what its YAML holds (a mapping with ``name`` and a ``features:``
    list, or the list alone), as :func:`load_feature_model` reads it; a model file keeps its
    features this way too (no YAML to parse at load). ``text``: the YAML, to name the line of a
    bad feature (else its number)."""
    if isinstance(data, list):
        data = {"features": data}
    if not isinstance(data, dict) or not isinstance(data.get("features"), list):
        raise FeatureSpecError(f"{source}: a feature model needs a 'features:' list")
    features = []
    for k, item in enumerate(data["features"]):
        try:
            features.append(parse_feature(_item_to_string(item)))
        except FeatureSpecError as e:
            lines = _feature_lines(text) if text is not None else []  # only for the message: a second parse
            where = f"{source}:{lines[k]}" if k < len(lines) else f"{source}: feature {k + 1}"
            raise FeatureSpecError(f"{where}: {e}") from None
    if not features:
        raise FeatureSpecError(f"{source}: the feature list is empty")
    return FeatureModel(str(data.get("name", "custom")), features)


def convert_maltparser_xml(text: str, source: str = "<xml>") -> list:
    """MaltParser XML feature model(s) -> list of :class:`FeatureModel`."""
    import xml.etree.ElementTree as ET     # only here: MaltParser's XML feature models
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise FeatureSpecError(f"{source}: not a valid XML feature model: {e}") from None
    models = []
    for fm in root.iter("featuremodel"):
        features = []
        for k, feat in enumerate(fm.iter("feature")):
            try:
                features.append(parse_feature(" ".join((feat.text or "").split())))
            except FeatureSpecError as e:
                raise FeatureSpecError(f"{source}: feature {k + 1}: {e}") from None
        # submodels (MaltParser's <submodel>) are flattened: their features all count
        models.append(FeatureModel(fm.get("name", "custom"), features))
    if not models:
        raise FeatureSpecError(f"{source}: no <featuremodel> element found")
    return models
