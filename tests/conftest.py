"""Shared helpers: paths, random tree generators, a system driver."""
import os
import random

import pytest

try:  # the tests use the installed maltpy (README: pip install . first)
    import maltpy.search.step  # noqa: F401
except ImportError as e:
    pytest.exit(f"maltpy is not installed or not compiled ({e}): run `pip install .` first", returncode=2)

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


def random_projective_tree(rng, n):
    """Heads[0..n] (heads[0] = -1) of a random projective tree, possibly with several root children."""
    heads = [-1] + [0] * n

    def build(lo, hi, parent):
        # split [lo, hi] into contiguous segments, each a subtree of parent
        while lo <= hi:
            end = rng.randint(lo, hi)
            h = rng.randint(lo, end)
            heads[h] = parent
            build(lo, h - 1, h)
            build(h + 1, end, h)
            lo = end + 1

    build(1, n, 0)
    return heads


def random_tree(rng, n):
    """Heads of a random tree (projective or not) by random recursive attachment."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] + [0] * n
    attached = [0]
    for node in order:
        heads[node] = rng.choice(attached)
        attached.append(node)
    return heads


def is_projective(heads):
    """Def. 3 of Nivre (2008), literally: every node between an arc's ends is dominated by its head.
    Works on forests (-1 = no head): a span over an unattached node is non-projective."""
    n = len(heads) - 1
    for d in range(1, n + 1):
        h = heads[d]
        if h < 0:
            continue
        lo, hi = min(h, d), max(h, d)
        for k in range(lo + 1, hi):
            a = k
            while a not in (h, -1, 0):
                a = heads[a]
            if a != h:
                return False
    return True


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


def is_forest(heads):
    """Single head, acyclic, no arc into 0 (heads -1 = unattached)."""
    n = len(heads) - 1
    if heads[0] != -1:
        return False
    for d in range(1, n + 1):
        seen, a = set(), d
        while a > 0:
            if a in seen:
                return False
            seen.add(a)
            a = heads[a]
    return True


@pytest.fixture
def rng():
    return random.Random(12345)


def arcs_cross(heads, a, b):
    """Whether the arcs into a and into b cross (shared end points never cross)."""
    x1, x2 = sorted((heads[a], a))
    y1, y2 = sorted((heads[b], b))
    return x1 < y1 < x2 < y2 or y1 < x1 < y2 < x2


def is_planar(heads):
    """No two arcs (root arcs included) cross."""
    deps = [d for d in range(1, len(heads)) if heads[d] >= 0]
    return not any(arcs_cross(heads, a, b) for i, a in enumerate(deps) for b in deps[i + 1:])


def is_two_planar(heads):
    """The crossing graph of the arcs is bipartite."""
    deps = [d for d in range(1, len(heads)) if heads[d] >= 0]
    colour = {}
    for start in deps:
        if start in colour:
            continue
        colour[start] = 0
        todo = [start]
        while todo:
            a = todo.pop()
            for b in deps:
                if b != a and arcs_cross(heads, a, b):
                    if b not in colour:
                        colour[b] = 1 - colour[a]
                        todo.append(b)
                    elif colour[b] == colour[a]:
                        return False
    return True
