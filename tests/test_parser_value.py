"""What a parser learned is one frozen value (maltpy.parsing.model.ParserModel) beside the parts
its settings build (Parts); only the Parser's own modules (parsing/parser.py, parsing/base.py)
change a parser."""
import dataclasses
import os
import re

import pytest

import maltpy
from conftest import EXAMPLES, ROOT
from maltpy.parsing.model import ParserModel, Parts

#: a statement that sets an attribute of a parser, or copies attributes into one
SETS = re.compile(r"\b(parser|self\.parser|reverse_parser)\.[A-Za-z_]+\s*=[^=]|__dict__\.update|"
                  r"getattr\((parser|self), \"[a-z_]+\", ")


def parser_writes(root):
    """(file, line) of every statement outside the parser's own modules (parsing/parser.py and
    base.py) that sets a parser's attribute (comments aside)."""
    found = []
    for folder, _, files in os.walk(os.path.join(root, "maltpy")):
        for name in files:
            if not name.endswith((".py", ".pyx")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if rel in ("maltpy/parsing/parser.py", "maltpy/parsing/base.py"):
                continue
            for k, line in enumerate(open(path, encoding="utf-8"), 1):
                if SETS.search(line.split("#")[0]):
                    found.append((rel, k))
    return found


def test_no_module_but_the_parsers_own_changes_a_parser():
    assert parser_writes(ROOT) == []


def test_the_check_finds_a_planted_write(tmp_path):
    (tmp_path / "maltpy" / "parsing").mkdir(parents=True)
    (tmp_path / "maltpy" / "parsing" / "training.py").write_text("def fit(parser):\n    parser.labels = []\n")
    (tmp_path / "maltpy" / "parsing" / "storage.py").write_text("x = getattr(parser, \"train_stats\", {})\n")
    assert parser_writes(str(tmp_path)) == [("maltpy/parsing/storage.py", 1), ("maltpy/parsing/training.py", 2)]


def test_a_trained_parser_is_its_settings_parts_and_model(model):
    parser = maltpy.load(model)
    assert isinstance(parser.parts, Parts) and isinstance(parser.model, ParserModel)
    assert parser.labels is parser.model.labels and parser.compiled is parser.parts.compiled
    with pytest.raises(AttributeError):
        parser.labels = ["x"]                 # what was learned is read only on the parser
    with pytest.raises(dataclasses.FrozenInstanceError):
        parser.model.labels = ["x"]           # and frozen in the model
    trained = maltpy.train(os.path.join(EXAMPLES, "toy-train.conll"), verbose=False, jobs=1)
    assert trained.model.trained and trained.model.label_ids == {l: k for k, l in enumerate(trained.labels)}
    assert maltpy.Parser().model is None and not maltpy.Parser()._fitted
