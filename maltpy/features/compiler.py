"""Lower a :class:`~maltpy.features.spec.FeatureModel` to the Extractor's flat tables.

The result also says which derived token columns the encoder must produce
(plain columns, suffixes, prefixes, split sets), so that string work happens
once per token when a sentence is encoded, never per decision.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

from maltpy.features import spec as S
from maltpy.features.spec import FeatureSpecError
from maltpy.formats.conll import COLUMNS, HEAD_COLUMNS, INPUT_COLUMNS

# Atom kinds: keep in step with extract.pyx
(A_INPUT, A_DEPREL, A_INPUT_ARC, A_INPUT_ARC_DIR, A_EXISTS, A_DISTANCE, A_NUMOF, A_SPLIT,
 A_OUTPUT_ARC, A_LINKED, A_LINK_LABEL, A_LABEL_SET) = range(12)
NUMOF_RELATIONS = {"ldeps": 0, "rdeps": 1, "deps": 2}


@dataclass
class Compiled:
    """Tables for :class:`maltpy.features.extract.Extractor` plus the encoder's column list.

    ``token_columns``: (column index, transform, length) with transform in
    ``plain``/``suffix``/``prefix``/``cluster`` (the word's cluster, its first ``length``
    characters; 0: whole); ``multi_columns``: (column index, transform,
    length, separator) for Split; ``int_columns``: integer column indices.
    """
    tables: dict
    token_columns: List[Tuple[int, str, int]] = field(default_factory=list)
    int_columns: List[int] = field(default_factory=list)
    multi_columns: List[Tuple[int, str, int, str]] = field(default_factory=list)
    split_atom: int = -1
    #: templates that are the data split feature itself: MaltParser leaves them out of the split
    #: models (constant there), keeping them in the default model only
    split_templates: List[int] = field(default_factory=list)


def compile_model(model: S.FeatureModel, fmt: str, system_cls,
                  split: Optional[Tuple[str, str]] = None) -> Compiled:
    """Compile ``model`` for data in format ``fmt`` and the given system class.

    ``split``: (column, address string) of MaltParser's data split (``-d``/``-s``),
    compiled as one extra atom.
    """
    columns = COLUMNS[fmt]
    addr_fns = system_cls.address_functions
    addresses, nav_ops, atoms, bins, templates = [], [], [], [], []
    token_cols, int_cols, multi_cols = [], [], []
    addr_ids, atom_ids = {}, {}

    def address(a: S.Address, feature):
        if a in addr_ids:
            return addr_ids[a]
        if a.base not in addr_fns:
            raise FeatureSpecError(
                f"feature {feature}: {a.base}[i] is not an address function of {system_cls.name}; "
                f"use {', '.join(f + '[i]' for f in addr_fns)}")
        addresses.append((addr_fns.index(a.base), a.index, len(nav_ops), len(a.nav)))
        nav_ops.extend(S.NAVIGATION.index(n) for n in a.nav)
        addr_ids[a] = len(addresses) - 1
        return addr_ids[a]

    def input_column(name, feature):
        if name not in INPUT_COLUMNS[fmt]:
            hint = ""
            other = "conllu" if fmt == "conllx" else "conllx"
            if name in INPUT_COLUMNS[other]:
                hint = f" (it is a {other} column: use the {fmt} variant of the feature model)"
            raise FeatureSpecError(f"feature {feature}: {fmt} has no input column {name}{hint}; "
                                   f"columns are {', '.join(INPUT_COLUMNS[fmt])}")
        return columns.index(name)

    def int_column(name, feature):
        if name not in HEAD_COLUMNS[fmt]:
            raise FeatureSpecError(f"feature {feature}: {name} is not an integer column of {fmt}; "
                                   f"use {', '.join(HEAD_COLUMNS[fmt])}")
        ci = columns.index(name)
        if ci not in int_cols:
            int_cols.append(ci)
        return int_cols.index(ci)

    def add_bins(values):
        start = len(bins)
        bins.extend(values)
        return start, len(values)

    def atom(f, feature):
        key = str(f)
        if key in atom_ids:
            return atom_ids[key]
        if isinstance(f, S.Cluster) or (isinstance(f, S.Prefix) and isinstance(f.feature, S.Cluster)):
            # the cluster of a word (0: whole) or its first characters: a column of its own
            base = f.feature if isinstance(f, S.Cluster) else f.feature.feature
            spec_col = (input_column(base.column, feature), "cluster", 0 if isinstance(f, S.Cluster) else f.length)
            if spec_col not in token_cols:
                token_cols.append(spec_col)
            row = (A_INPUT, token_cols.index(spec_col), address(base.address, feature), 0, 0, 0)
        elif isinstance(f, (S.InputColumn, S.Suffix, S.Prefix)):
            base = f if isinstance(f, S.InputColumn) else f.feature
            transform = "plain" if base is f else type(f).__name__.lower()
            length = 0 if base is f else f.length
            if transform != "plain" and length == 0:
                transform = "plain"  # MaltParser: length 0 means the whole value
            spec_col = (input_column(base.column, feature), transform, length)
            if spec_col not in token_cols:
                token_cols.append(spec_col)
            row = (A_INPUT, token_cols.index(spec_col), address(base.address, feature), 0, 0, 0)
        elif isinstance(f, S.OutputColumn):
            if f.column != "DEPREL":
                raise FeatureSpecError(f"feature {feature}: OutputColumn supports DEPREL only")
            row = (A_DEPREL, 0, address(f.address, feature), 0, 0, 0)
        elif isinstance(f, S.InputArc):
            row = (A_INPUT_ARC, int_column(f.column, feature), address(f.address1, feature),
                   address(f.address2, feature), 0, 0)
        elif isinstance(f, S.OutputArc):
            if f.column != "HEAD":
                raise FeatureSpecError(f"feature {feature}: OutputArc supports HEAD only")
            row = (A_OUTPUT_ARC, 0, address(f.address1, feature), address(f.address2, feature), 0, 0)
        elif isinstance(f, S.LabelSet):
            row = (A_LABEL_SET, NUMOF_RELATIONS[f.relation], address(f.address, feature), 0, 0, 0)
        elif isinstance(f, (S.Linked, S.LinkLabel)):
            row = (A_LINKED if isinstance(f, S.Linked) else A_LINK_LABEL, 0, address(f.address1, feature),
                   address(f.address2, feature), 0, 0)
        elif isinstance(f, S.InputArcDir):
            row = (A_INPUT_ARC_DIR, int_column(f.column, feature), address(f.address, feature), 0, 0, 0)
        elif isinstance(f, S.Exists):
            row = (A_EXISTS, 0, address(f.address, feature), 0, 0, 0)
        elif isinstance(f, S.Distance):
            row = (A_DISTANCE, 0, address(f.address1, feature), address(f.address2, feature),
                   *add_bins(f.bins))
        elif isinstance(f, S.NumOf):
            row = (A_NUMOF, NUMOF_RELATIONS[f.relation], address(f.address, feature), 0,
                   *add_bins(f.bins))
        elif isinstance(f, S.Split):
            inner = f.feature
            base = inner if isinstance(inner, S.InputColumn) else inner.feature
            transform = "plain" if base is inner else type(inner).__name__.lower()
            length = 0 if base is inner else inner.length
            multi = (input_column(base.column, feature), transform, length, f.separator)
            if multi not in multi_cols:
                multi_cols.append(multi)
            row = (A_SPLIT, multi_cols.index(multi), address(base.address, feature), 0, 0, 0)
        else:
            raise FeatureSpecError(f"feature {feature} cannot be compiled")
        atoms.append(row)
        atom_ids[key] = len(atoms) - 1
        return atom_ids[key]

    for f in model.features:
        parts = f.features if isinstance(f, S.Merge) else (f,)
        ids = [atom(p, f) for p in parts]
        templates.append((len(ids), *ids, *([0] * (3 - len(ids)))))

    split_atom = -1
    if split is not None:
        column, addr_text = split
        split_feature = S.InputColumn(column.upper(), S.parse_address(addr_text))
        split_atom = atom(split_feature, f"data split {column} {addr_text}")

    tables = {
        "addr": np.array(addresses, dtype=np.int32).reshape(-1, 4),
        "nav_ops": np.array(nav_ops, dtype=np.int32),
        "atoms": np.array(atoms, dtype=np.int32).reshape(-1, 6),
        "bins": np.array(bins, dtype=np.int32),
        "templates": np.array(templates, dtype=np.int32).reshape(-1, 4),
        # MaltParser keeps a feature model's specifications in a sorted set (whitespace
        # removed) and numbers the learner's features in that order of first appearance;
        # extracting in the same order gives the solver the same feature order
        "order": np.array(sorted(range(len(templates)), key=lambda t: re.sub(r"\s+", "", str(model.features[t]))),
                          dtype=np.int32),
    }
    split_templates = [t for t, row in enumerate(templates) if split_atom >= 0 and row[0] == 1 and row[1] == split_atom]
    return Compiled(tables, token_cols, int_cols, multi_cols, split_atom, split_templates)
