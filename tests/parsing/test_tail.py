"""One output tail (maltpy.parsing.tail): Parser.parse and the compiled chunk path of
`maltpy -m parse` write the same trees with every step of it at work (the model's view decoded,
both directions combined, one root, given arcs kept), and no other module runs those steps."""
import os
import re

import pytest

import maltpy
from conftest import EXAMPLES, ROOT
from maltpy.formats.conll import format_sentences, read_conll
from maltpy.parsing.stream import parse_bytes

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


@pytest.fixture(scope="module")
def conllu(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tail")
    for name in ("toy-train", "toy-test"):      # the example's rows are CoNLL-U rows too
        (folder / f"{name}.conllu").write_bytes(open(os.path.join(EXAMPLES, f"{name}.conll"), "rb").read())
    return str(folder / "toy-train.conllu"), str(folder / "toy-test.conllu")


@pytest.mark.parametrize("settings", [
    {"direction": "both", "marking_strategy": "head", "combination_folds": 2, "roots": "one"},
    {"direction": "rtl", "marking_strategy": "head+path", "roots": "one"},
    {"algorithm": "covnonproj", "learner": "perceptron", "oracle": "dynamic", "roots": "one",
     "constraints": "true"},
    {"algorithm": "nivreeager", "learner": "perceptron", "oracle": "dynamic", "roots": "any",
     "constraints": "true"},
])
def test_both_parse_paths_write_the_same_trees(conllu, settings):
    train, test = conllu
    parser = maltpy.train(train, verbose=False, jobs=1, **settings)
    given = read_conll(test)
    if settings.get("constraints") == "true":     # a third of the gold arcs given, root arcs included
        for s in given:
            for k, row in enumerate(s.rows):
                if k % 3:
                    row[6], row[7] = "_", "_"
    data = format_sentences(given).encode("utf-8")
    python = format_sentences(parser.parse(read_conll(test) if "constraints" not in settings else given))
    for jobs, block in ((1, 1 << 20), (2, 500)):
        assert parse_bytes(parser, data, "conllu", jobs=jobs, block_size=block).decode("utf-8") == python
    if settings["roots"] == "one":
        assert all(s.heads.count(0) == 1 for s in read_conll(__import__("io").StringIO(python)))


def test_only_the_tail_runs_the_output_steps():
    """decode_rows, combine_rows and one_root_rows are called by the tail alone (their own
    modules define them; the transforms' decode_rows call their parents')."""
    callers = {}
    for folder, _, files in os.walk(os.path.join(ROOT, "maltpy")):
        for name in files:
            if not name.endswith((".py", ".pyx")):
                continue
            path = os.path.join(folder, name)
            text = open(path, encoding="utf-8").read()
            for step in ("decode_rows(", "combine_rows(", "one_root_rows(", "single_root("):
                for m in re.finditer(re.escape(step), text):
                    line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.start())]
                    if line.lstrip().startswith("def ") or "``" in line or line.lstrip().startswith("#"):
                        continue
                    callers.setdefault(step, set()).add(os.path.relpath(path, ROOT))
    allowed = {os.path.join("maltpy", "parsing", "tail.py"), os.path.join("maltpy", "transform", "pipeline.py"),
               # training tunes the combination on held-out parses with it (no output)
               os.path.join("maltpy", "transform", "combine.py")}
    assert callers["decode_rows("] and callers["one_root_rows("]
    for step, where in callers.items():
        assert where <= allowed, (step, where - allowed)
