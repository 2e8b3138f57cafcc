"""Head rules: which child of a constituent carries its lexical head.

Rules are data, in a small YAML format (see ``headrules/collins.yaml``, which documents it):
``collins`` (Collins 1999, for the Penn Treebank), ``leftmost`` and ``rightmost`` ship with
maltpy, and ``-hr FILE`` reads any other file.
"""
from __future__ import annotations

import os
from typing import List, Sequence


from maltpy.errors import MaltpyError

RULES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "headrules")
#: collins, leftmost and rightmost for bracketed trees; alpino and negra (NEGRA and TIGER) for
#: export files, whose edge labels mark most heads
SHIPPED = ("collins", "leftmost", "rightmost", "alpino", "negra")
DIRECTIONS = ("left", "right", "leftdis", "rightdis")
COORDINATORS = ("CC", "CONJP")


class HeadRules:
    """Head-child choice from a rule table (see the module docstring)."""

    def __init__(self, rules: dict, default: str = "left", coordination: bool = False, name: str = "custom",
                 text: str = "", edges: dict = None):
        self.rules = rules
        #: steps over the children's edge labels (export files): "*" for every constituent, tried
        #: first, then the constituent's own, then ``rules`` over the children's labels
        self.edges = edges or {}
        self.default = default
        self.coordination = coordination
        self.name = name
        self.text = text

    @classmethod
    def from_text(cls, text: str, source: str = "<head rules>") -> "HeadRules":
        """Rules from the YAML text of a rule file; a mistake is a one-line error naming ``source``."""
        import yaml
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f"{source}:{mark.line + 1}" if mark is not None else source
            raise MaltpyError(f"{where}: not a valid YAML head-rule file ({getattr(e, 'problem', e)})") from None
        if not isinstance(data, dict):
            raise MaltpyError(f"{source}: a head-rule file is a mapping with 'rules:' (see maltpy's collins.yaml)")
        unknown = set(data) - {"name", "default", "coordination", "rules", "edges"}
        if unknown:
            raise MaltpyError(f"{source}: unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
                              "use name, default, coordination, edges, rules")
        default = data.get("default", "left")
        if default not in ("left", "right"):
            raise MaltpyError(f"{source}: default must be left or right, not {default!r}")
        coordination = data.get("coordination", False)
        if not isinstance(coordination, bool):
            raise MaltpyError(f"{source}: coordination must be true or false, not {coordination!r}")
        rules = _steps(data.get("rules"), source, "rules")
        edges = _steps(data.get("edges"), source, "edges")
        return cls(rules, default, coordination, str(data.get("name", os.path.basename(source))), text, edges)

    @classmethod
    def load(cls, name_or_path: str) -> "HeadRules":
        """A shipped rule set by name (collins, leftmost, rightmost) or a YAML file."""
        if name_or_path in SHIPPED:
            path = os.path.join(RULES_DIR, name_or_path + ".yaml")
        else:
            path = name_or_path
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            raise MaltpyError(f"head rules {name_or_path!r}: no such file; use {', '.join(SHIPPED)} "
                              "or a YAML rule file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise MaltpyError(f"{path}: cannot read the head rules ({e})") from None
        return cls.from_text(text, path)

    def head_child(self, parent: str, children: Sequence[str], edges: Sequence[str] = None) -> int:
        """Index of the head child among ``children`` (their labels) of a ``parent`` constituent;
        ``edges``: the children's edge labels, where the treebank has them (export files)."""
        n = len(children)
        if n == 1:
            return 0
        if edges is not None and self.edges:
            for direction, labels in self.edges.get("*", []) + self.edges.get(parent, []):
                head = _find(direction, labels, edges)
                if head >= 0:
                    return head
        steps = self.rules.get(parent)
        if steps is None:
            return 0 if self.default == "left" else n - 1
        head = -1
        for direction, labels in steps:
            head = _find(direction, labels, children)
            if head >= 0:
                break
        if head < 0:
            head = 0 if steps[-1][0].startswith("left") else n - 1
        if self.coordination and head >= 2 and children[head - 1] in COORDINATORS:
            head -= 2
        return head


def _steps(raw, source: str, key: str) -> dict:
    """``rules:`` or ``edges:`` of a rule file: label -> [(direction, labels), ...]."""
    raw = raw or {}
    if not isinstance(raw, dict):
        raise MaltpyError(f"{source}: '{key}:' maps each phrase label to a list of [direction, labels...] steps")
    out = {}
    for parent, steps in raw.items():
        where = f"{source}: {key} for {parent}"
        if not isinstance(steps, list) or not steps or not all(isinstance(s, list) and s for s in steps):
            raise MaltpyError(f"{where}: give a list of steps such as [[left, NN, NP]]")
        parsed = []
        for step in steps:
            direction, labels = step[0], step[1:]
            if direction not in DIRECTIONS:
                raise MaltpyError(f"{where}: direction {direction!r}; use one of {', '.join(DIRECTIONS)}")
            bad = [x for x in labels if not isinstance(x, (str, int, float)) or isinstance(x, bool)]
            if bad:
                raise MaltpyError(f"{where}: label {bad[0]!r} is not a label (quote it in the YAML file)")
            parsed.append((direction, tuple(str(x) for x in labels)))
        out[str(parent)] = parsed
    return out


def _find(direction: str, labels: Sequence[str], children: Sequence[str]) -> int:
    order: List[int] = list(range(len(children)))
    if direction.startswith("right"):
        order.reverse()
    if direction.endswith("dis"):
        wanted = set(labels)
        return next((k for k in order if children[k] in wanted), -1)
    for label in labels:
        for k in order:
            if children[k] == label:
                return k
    return -1
