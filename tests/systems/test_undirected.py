"""Undirected parsing (spec undirected.md): the ARC transition of planar, 2planar and covnonproj,
their static oracles, the direction reconstruction against brute force, the undirected scores,
and the command line."""
import itertools
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.formats.conll import Sentence
from maltpy.evaluation.scores import evaluate
from maltpy.systems import SYSTEMS
from maltpy.systems.base import reconstruct_forest
from conftest import EXAMPLES, is_tree, random_projective_tree, random_tree

UNDIRECTED_SYSTEMS = ["planar", "2planar", "covnonproj"]
NAIVE, LABEL = "naive", "label"
# labels 0..3 carry no direction, 4..7 are X_l (head on the right), 8..11 X_r (head on the left)
N_BASE = 4
DIRECTIONS = [0] * N_BASE + [1] * N_BASE + [2] * N_BASE


def directed_label(base, head, dep):
    return base + (N_BASE if head > dep else 2 * N_BASE)


# ---------------------------------------------------------------------- reconstruction
# "ROOT0 This1 is2 a3 dependency4 tree5": 2->1 SBJ, 0->2 ROOT, 5->3 DET, 5->4 NMOD, 2->5 PRED
SBJ, ROOT, DET, NMOD, PRED = 0, 1, 2, 3, 4
EX_LABELS = 5
EX_DIRS = [0] * 5 + [1] * 5 + [2] * 5     # X, X_l = X + 5, X_r = X + 10
GOLD = [-1, 2, 0, 5, 5, 2]


def l_(x):
    return x + 5


def r_(x):
    return x + 10


def test_naive_correct_graph_gives_the_gold_tree():
    links = [(0, 2, ROOT), (1, 2, SBJ), (2, 5, PRED), (3, 5, DET), (4, 5, NMOD)]
    heads, labels = reconstruct_forest(5, links, EX_DIRS, NAIVE, ROOT)
    assert heads[1:] == GOLD[1:] and labels[1:] == [SBJ, ROOT, DET, NMOD, PRED]


def test_naive_wrong_root_edge_reverses_the_path():
    links = [(0, 1, ROOT), (1, 2, SBJ), (2, 5, PRED), (3, 5, DET), (4, 5, NMOD)]
    assert reconstruct_forest(5, links, EX_DIRS, NAIVE, ROOT)[0][1:] == [0, 1, 5, 5, 2]


def test_label_based_overrides_one_wrong_annotation():
    links = [(0, 2, r_(ROOT)), (1, 2, l_(SBJ)), (2, 5, r_(PRED)), (3, 5, l_(DET)), (4, 5, r_(NMOD))]
    heads, labels = reconstruct_forest(5, links, EX_DIRS, LABEL, r_(ROOT))
    assert heads[1:] == GOLD[1:]                   # the tie with root 4 goes to the parser's root link
    assert labels[2] == r_(ROOT)


def test_label_based_without_root_edge_is_unique():
    links = [(1, 2, l_(SBJ)), (2, 5, r_(PRED)), (3, 5, l_(DET)), (4, 5, l_(NMOD))]
    heads, labels = reconstruct_forest(5, links, EX_DIRS, LABEL, r_(ROOT))
    assert heads[1:] == GOLD[1:] and labels[2] == r_(ROOT)
    # naive: any root costs the same; the leftmost word is chosen
    assert reconstruct_forest(5, links, EX_DIRS, NAIVE, ROOT)[0][1:] == [0, 1, 5, 5, 2]


def tree_cost(heads, links, dirs, mode, n):
    """The cost of a tree in D(U) under a scheme (spec §3.2; label-based is v2)."""
    edges = {(min(a, b), max(a, b)): lab for a, b, lab in links}
    total = 0
    for d in range(1, n + 1):
        h = heads[d]
        key = (min(h, d), max(h, d))
        in_u = key in edges
        if mode == NAIVE:
            total += 1 if in_u else 2
        elif h == 0:
            total += 2 * n
        else:
            assert in_u
            dr = dirs[edges[key]]
            agrees = dr == 0 or (dr == 1 and h > d) or (dr == 2 and h < d)
            total += 1 if agrees else 2
    return total


def all_trees(n, links):
    """Every spanning arborescence rooted at 0 whose arcs are links or leave 0."""
    neighbours = {d: {0} for d in range(1, n + 1)}
    for a, b, _ in links:
        if b:
            neighbours[b].add(a)
        if a:
            neighbours[a].add(b)
    for choice in itertools.product(*[sorted(neighbours[d]) for d in range(1, n + 1)]):
        heads = [-1] + list(choice)
        if is_tree(heads):
            yield heads


def random_forest(rng, n, p_link=0.8):
    """Random links over 0..n without cycles, with random labels of any direction."""
    links, parent = [], list(range(n + 1))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x
    pairs = [(a, b) for a in range(n + 1) for b in range(a + 1, n + 1)]
    rng.shuffle(pairs)
    for a, b in pairs:
        if rng.random() < p_link and find(a) != find(b):
            parent[find(a)] = find(b)
            links.append((a, b, rng.randrange(3 * N_BASE)))
    return links


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 6), st.integers(0, 10 ** 9), st.sampled_from([NAIVE, LABEL]), st.floats(0.1, 1.0))
def test_reconstruction_is_a_minimum_cost_tree(n, seed, mode, p_link):
    """Against brute force over every arborescence of D(U): the reconstruction is a tree and no
    tree costs less (ties may go either way)."""
    rng = random.Random(seed)
    links = random_forest(rng, n, p_link)
    heads, labels = reconstruct_forest(n, links, DIRECTIONS, mode, 0)
    assert is_tree(heads)
    best = min(tree_cost(h, links, DIRECTIONS, mode, n) for h in all_trees(n, links))
    assert tree_cost(heads, links, DIRECTIONS, mode, n) == best
    edges = {(min(a, b), max(a, b)): lab for a, b, lab in links}
    for d in range(1, n + 1):      # every arc takes its link's label, new root arcs the root label
        key = (min(heads[d], d), max(heads[d], d))
        assert labels[d] == edges.get(key, 0)


# ---------------------------------------------------------------------- systems and oracles
def undirected_system(name, mode, **opts):
    """The system as a parser builds it: label-based ones know which way each label points."""
    system = SYSTEMS[name](3 * N_BASE, 2 * N_BASE, undirected=mode, **opts)
    if mode == LABEL:
        system.set_label_directions(DIRECTIONS)
    return system


def gold_labels(heads, rng, mode):
    base = [rng.randrange(N_BASE) for _ in heads]
    if mode == LABEL:
        return [-1] + [directed_label(base[d], heads[d], d) for d in range(1, len(heads))]
    return [-1] + base[1:]


def follow_oracle(system, heads, labels):
    n = len(heads) - 1
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    steps = 0
    while not cfg.is_terminal():
        move, label = cfg.oracle()
        assert move in cfg.valid_moves(), f"the oracle chose impermissible {system.move_names[move]}"
        cfg.apply(move, label)
        steps += 1
        assert steps <= n * (n + 3) // 2 + 3 * n + 2
    links = sorted(cfg.links)
    cfg.finish()
    return cfg, links, steps


def gold_edges(heads, labels):
    return sorted((min(h, d), max(h, d), labels[d]) for d, h in enumerate(heads) if d)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(UNDIRECTED_SYSTEMS), st.sampled_from([NAIVE, LABEL]), st.integers(1, 12),
       st.integers(0, 10 ** 9))
def test_oracle_builds_the_gold_edges_and_reconstruction_the_gold_tree(name, mode, n, seed):
    """For every tree the directed system covers: its undirected edges (root edges with the
    root label possibly left to the end of parsing), and after reconstruction the gold tree;
    transitions within the bounds."""
    rng = random.Random(seed)
    heads = random_projective_tree(rng, n) if name == "planar" else random_tree(rng, n)
    if name == "planar":       # one root word: planar and projective coincide with root arcs
        roots = [d for d in range(1, n + 1) if heads[d] == 0]
        for r in roots[1:]:
            heads[r] = roots[0]
        if not is_tree(heads):
            return
        from conftest import is_projective
        if not is_projective(heads):
            return
    labels = gold_labels(heads, rng, mode)
    if name == "2planar":      # covered: the directed oracle reproduces it
        directed = SYSTEMS[name](3 * N_BASE, 2 * N_BASE)
        cfg = directed.new_configuration(n)
        cfg.set_gold(heads, labels)
        while not cfg.is_terminal():
            cfg.apply(*cfg.oracle())
        cfg.finish()
        if cfg.heads[1:] != heads[1:] or cfg.labels[1:] != labels[1:]:
            return
    cfg, links, steps = follow_oracle(undirected_system(name, mode), heads, labels)
    # only gold edges; the oracle may leave a root edge with the root label to the end of
    # parsing, which adds it (as the directed oracles of MaltParser's 2-planar system do)
    missing = set(gold_edges(heads, labels)) - set(links)
    assert set(links) <= set(gold_edges(heads, labels)) and len(set(links)) == len(links)
    assert all(name == "2planar" and a == 0 and label == 2 * N_BASE for a, _, label in missing)
    bound = {"planar": 3 * n, "2planar": 6 * n + 2, "covnonproj": n * (n + 3) // 2}[name]
    assert steps <= bound
    if mode == LABEL or all(h != 0 or d == min(x for x in range(1, n + 1) if heads[x] == 0)
                            for d, h in enumerate(heads) if d):
        assert cfg.heads[1:] == heads[1:] and cfg.labels[1:] == labels[1:]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(UNDIRECTED_SYSTEMS), st.sampled_from([NAIVE, LABEL]), st.integers(1, 12),
       st.integers(0, 10 ** 9))
def test_random_moves_build_a_forest_and_end_in_a_tree(name, mode, n, seed):
    """Any permissible moves: the links never close a cycle (planar: never cross), the parse
    ends within the bounds, and the reconstruction is a tree over all words."""
    rng = random.Random(seed)
    system = undirected_system(name, mode)
    cfg = system.new_configuration(n)
    steps = 0
    while not cfg.is_terminal():
        move = rng.choice(cfg.valid_moves())
        cfg.apply(move, rng.randrange(3 * N_BASE) if system.labeled[move] else -1)
        steps += 1
        assert steps <= {"planar": 3 * n, "2planar": 6 * n + 2, "covnonproj": n * (n + 3) // 2 + n}[name]
    links = cfg.links
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x
    for a, b, _ in links:
        assert find(a) != find(b)
        parent[find(a)] = find(b)
    if name == "planar":
        for (a, b, _), (c, d, _) in itertools.combinations(links, 2):
            assert not (a < c < b < d or c < a < d < b)
    cfg.finish()
    assert is_tree(cfg.heads)


def test_left_arc_is_never_permissible_and_the_root_may_link():
    for name in UNDIRECTED_SYSTEMS:
        system = undirected_system(name, NAIVE)
        cfg = system.new_configuration(3)
        names = [system.move_names[m] for m in cfg.valid_moves()]
        assert "LA" not in names and "RA" in names     # RA is ARC: the root and word 1 may link


def test_undirected_needs_a_system_that_has_it():
    with pytest.raises(ValueError, match="does not accept"):
        SYSTEMS["covproj"](3, 0, undirected="naive")
    from maltpy.errors import MaltpyError
    from maltpy.parsing.parser import Parser
    with pytest.raises(MaltpyError, match="an option of covnonproj, planar and 2planar: use it with -a covnonproj, planar or 2planar, not -a covproj"):
        Parser(algorithm="covproj", undirected="label")._setup("conllx")


# ---------------------------------------------------------------------- scores and command line
def _sentence(heads, labels):
    return Sentence([[str(k), f"w{k}", "_", "X", "X", "_", str(h), l, "_", "_"]
                     for k, (h, l) in enumerate(zip(heads, labels), 1)])


def test_undirected_scores():
    gold = [_sentence([2, 0, 2], ["a", "root", "b"])]
    system = [_sentence([0, 1, 2], ["root", "a", "c"])]   # 1<-2 reversed with label a; 3 right head, wrong label
    s = evaluate(gold, system)["all"]
    assert (s.uas, s.las) == (100 / 3, 0.0)
    assert s.uuas == pytest.approx(200 / 3) and s.ulas == pytest.approx(100 / 3)
    assert s.lde == pytest.approx(100 / 3) and s.ude == pytest.approx(100 / 3)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 10 ** 9)), min_size=1, max_size=6),
       st.sampled_from(["ROOT", "root", "a"]))
def test_direction_encoding_writes_each_arcs_direction(shapes, root_label):
    """The array encoding of label-based training against the definition, word by word: X_l when
    the head is to the right, X_r otherwise (root arcs included), and the sorted label set."""
    from maltpy.parsing.encode import gold_arrays
    from maltpy.transform.direction import encode_directions
    sentences = []
    for n, seed in shapes:
        rng = random.Random(seed)
        heads = random_tree(rng, n)[1:]
        sentences.append(_sentence(heads, [rng.choice(["a", "b", "root", "c-d"]) for _ in heads]))
    expected = [[r[7] + ("_l" if int(r[6]) > k else "_r") for k, r in enumerate(s.rows, 1)]
                for s in sentences]
    base = sorted({r[7] for s in sentences for r in s.rows} | {root_label})
    heads, ids = gold_arrays(sentences, {l: k for k, l in enumerate(base)})
    labels, out = encode_directions(heads, ids, base, root_label)
    assert labels == sorted({l for e in expected for l in e} | {root_label})
    got, row = [], 0
    for s in sentences:
        assert out[row] == -1          # the root row before each sentence
        got.append([labels[out[row + k]] for k in range(1, len(s.rows) + 1)])
        row += len(s.rows) + 1
    assert got == expected


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, cwd=cwd)


def test_cli(tmp_path):
    train, test = f"{EXAMPLES}/toy-train.conll", f"{EXAMPLES}/toy-test.conll"
    for name in ("nivreeager", "covproj"):
        r = run("-c", "m.mpz", "-m", "learn", "-i", train, "-a", name, "-ud", "label", cwd=tmp_path)
        assert r.returncode == 1 and "an option of covnonproj, planar and 2planar" in r.stderr
    for name in UNDIRECTED_SYSTEMS:
        r = run("-c", "m.mpz", "-m", "learn", "-i", train, "-a", name, "-ud", "label", "-q", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        r = run("-c", "m.mpz", "-i", test, "-o", "out.conll", "-q", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        out = (tmp_path / "out.conll").read_text()
        assert "_l\t" not in out and "_r\t" not in out
        r = run("eval", test, str(tmp_path / "out.conll"), "--undirected", cwd=tmp_path)
        assert "ULAS" in r.stdout and r.returncode == 0
