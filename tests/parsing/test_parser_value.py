"""What a parser learned is one frozen value (maltpy.parsing.model.ParserModel) beside the parts
its settings build (Parts); only the Parser's own modules (parsing/parser.py, parsing/base.py)
change a parser."""
import dataclasses
import os
import re

import numpy as np
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


@pytest.mark.parametrize("options", [{}, {"learner": "perceptron", "beam_width": 3, "learner_options": "-i 2"}])
def test_training_returns_the_model_and_leaves_the_settings_as_given(options):
    """training.fit(settings, sentences) is what a parser learns: a Parser that takes it parses as
    one trained with Parser.fit, and the settings it read are unchanged (a globally trained model
    records that in the model, not by rewriting beam_scores)."""
    from maltpy.config import make_settings
    from maltpy.formats.conll import read_conll
    from maltpy.parsing import training
    from maltpy.parsing.parser import Parser
    train = read_conll(os.path.join(EXAMPLES, "toy-train.conll"), need_heads=True)
    test = read_conll(os.path.join(EXAMPLES, "toy-test.conll"))
    settings = make_settings(verbose=False, jobs=1, **options)
    before = dict(settings.__dict__)
    trained = training.fit(settings, train, "conllx")
    assert isinstance(trained.model, ParserModel) and isinstance(trained.parts, Parts) and trained.model.trained
    assert settings.__dict__ == before
    assert trained.model.trained_globally == ("beam_width" in options)
    taken = Parser(settings)
    taken._take(trained)
    fitted = Parser(verbose=False, jobs=1, **options).fit(train)
    assert [s.heads for s in taken.parse(test)] == [s.heads for s in fitted.parse(test)]
    assert taken.labels == fitted.labels and len(taken.splits) == len(fitted.splits)
    for a, b in zip(taken.splits, fitted.splits):      # the same weights (the run's seconds differ)
        assert _flat(a) == _flat(b)


def _flat(value):
    """A split model's arrays (nested in tuples for sparse rows) as plain nested lists."""
    if isinstance(value, (tuple, list)):
        return [_flat(v) for v in value]
    return np.asarray(value).tolist() if value is not None else None
