"""A model file as a pipeline of components: a new component is one class and a registry entry,
and a model file holding it and a parser runs both, from the command line and the API; every
model file written by a parser alone loads as a one-component pipeline and parses as before."""
import json
import os

import pytest

import maltpy
from conftest import EXAMPLES
from maltpy.cli.main import main
from maltpy.components import COMPONENTS, Component, ParserComponent, Pipeline, load
from maltpy.errors import ModelFileError
from maltpy.formats.conll import read_conll

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


class UpperLemma(Component):
    """The toy component: LEMMA is FORM upper-cased (it learns nothing but a suffix to add)."""

    name = "upper_lemma"
    reads = ("FORM",)
    writes = ("LEMMA",)

    def __init__(self, suffix=""):
        self.suffix = suffix

    def fit(self, sentences, fmt=None, log=None):
        return self

    def __call__(self, sentences):
        out = []
        for s in sentences:
            copy = s.with_tree(s.heads, s.labels) if all(h >= 0 for h in s.heads) else \
                type(s)([list(r) for r in s.rows], s.extra, s.first_line, s.source, s.format)
            for row in copy.rows:
                row[2] = row[1].upper() + self.suffix
            out.append(copy)
        return out

    def to_bytes(self):
        return json.dumps({"suffix": self.suffix}).encode("utf-8")

    @classmethod
    def from_bytes(cls, data, **overrides):
        return cls(json.loads(data.decode("utf-8"))["suffix"])


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(COMPONENTS, UpperLemma.name, UpperLemma)


def test_a_new_component_runs_with_the_parser_from_the_command_line_and_the_api(registered, model, tmp_path):
    parser = maltpy.load(model)
    pipeline = Pipeline([UpperLemma("!"), ParserComponent(parser)])
    path = str(tmp_path / "pipe.mpz")
    pipeline.save(path)
    out = str(tmp_path / "out.conll")
    assert main(["-c", path, "-i", TEST, "-o", out, "-q"]) == 0
    by_cli = read_conll(out)
    by_api = maltpy.load(path).parse(read_conll(TEST))
    alone = parser.parse(read_conll(TEST))
    for a, b, c in zip(by_cli, by_api, alone):
        assert a.rows == b.rows
        assert [r[2] for r in a.rows] == [r[1].upper() + "!" for r in a.rows]   # the component's column
        assert (a.heads, a.labels) == (c.heads, c.labels)                       # the parser's columns
    assert main(["info", path]) == 0
    assert Pipeline.from_bytes(pipeline.to_bytes()).components[0].suffix == "!"


def test_a_parsers_model_file_is_a_pipeline_of_that_parser(model, tmp_path):
    pipeline = load(model)
    assert [c.name for c in pipeline.components] == ["parser"]
    assert isinstance(maltpy.load(model), maltpy.Parser)       # the API gives the parser itself
    out_a, out_b = str(tmp_path / "a.conll"), str(tmp_path / "b.conll")
    pipeline.parse_file(TEST, out_a)
    maltpy.load(model).parse_file(TEST, out_b)
    assert open(out_a, "rb").read() == open(out_b, "rb").read()


def test_an_unknown_component_or_a_pipeline_given_to_parser_load_is_one_line(registered, model, tmp_path):
    path = str(tmp_path / "pipe.mpz")
    Pipeline([UpperLemma(), ParserComponent(maltpy.load(model))]).save(path)
    with pytest.raises(ModelFileError, match="a pipeline of components"):
        maltpy.Parser.load(path)
    del COMPONENTS[UpperLemma.name]
    with pytest.raises(ModelFileError, match="'upper_lemma', which this maltpy does not have"):
        load(path)
