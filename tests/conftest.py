"""Shared helpers: paths, random tree generators, a system driver."""
import os
import random

import pytest

try:  # the tests use the installed maltpy (README: pip install . first)
    import maltpy.search.step  # noqa: F401
except ImportError as e:
    pytest.exit(f"maltpy is not installed or not compiled ({e}): run `pip install .` first", returncode=2)

# random trees and the classes of trees: the checks every transition system passes use them too
from maltpy.systems.checks import (is_forest, is_planar, is_projective, is_two_planar,  # noqa: E402,F401
                                   random_projective_tree, random_tree)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
DATA = os.path.join(SHARED, "data")


@pytest.fixture(scope="session")
def model(tmp_path_factory):
    """The example treebank's model, trained once with the README's defaults (tests only read it)."""
    from maltpy.cli.main import main
    path = str(tmp_path_factory.mktemp("toy") / "toy.mpz")
    assert main(["-c", path, "-m", "learn", "-i", os.path.join(EXAMPLES, "toy-train.conll"), "-q"]) == 0
    return path


def shared_file(*parts):
    """Path under ../shared/data, or skip the test when it is absent (a user's clone)."""
    path = os.path.join(DATA, *parts)
    if not os.path.exists(path):
        pytest.skip(f"{path} not available")
    return path


def is_tree(heads):
    """Every word has a head in 0..n and reaches 0 without a cycle."""
    n = len(heads) - 1
    for d in range(1, n + 1):
        seen, a = set(), d
        while a != 0:
            if a in seen or not (0 <= heads[a] <= n):
                return False
            seen.add(a)
            a = heads[a]
    return True


@pytest.fixture
def parser_inputs(monkeypatch):
    """What every Parser.fit of the test learns from: a list, one entry a fit, of its rows."""
    from maltpy.parsing.parser import Parser
    seen = []
    fit = Parser.fit

    def recording_fit(self, sentences, *args, **kwargs):
        seen.append([list(r) for s in sentences for r in s.rows])
        return fit(self, sentences, *args, **kwargs)
    monkeypatch.setattr(Parser, "fit", recording_fit)
    return seen


@pytest.fixture
def rng():
    return random.Random(12345)


def arcs_cross(heads, a, b):
    """Whether the arcs into a and into b cross (shared end points never cross)."""
    x1, x2 = sorted((heads[a], a))
    y1, y2 = sorted((heads[b], b))
    return x1 < y1 < x2 < y2 or y1 < x1 < y2 < x2
