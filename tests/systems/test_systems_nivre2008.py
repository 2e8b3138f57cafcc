"""Covington, stack (swap), planar and 2-planar systems: per-transition checks and
property tests (oracle round trips, random decisions, transition bounds)."""
import os
import random

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.systems import SYSTEMS, CovProj, CovNonProj, StackProj, StackEager, StackLazy, Planar, TwoPlanar
from maltpy.systems.base import Configuration
from conftest import (is_forest, is_planar, is_projective, is_tree, is_two_planar,
                      random_projective_tree, random_tree)

G2_HEADS = [-1, 2, 3, 0, 5, 3, 5, 8, 6, 3]
G2_LABELS = ["_", "NMOD", "SBJ", "ROOT", "NMOD", "OBJ", "NMOD", "NMOD", "PMOD", "P"]
# G1 of Nivre (2008), the Czech sentence of Fig. 1 (non-projective)
G1_HEADS = [-1, 5, 1, 0, 5, 3, 3, 6, 0]
G1_LABELS = ["_", "AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]
LABELS = sorted(set(G2_LABELS[1:]) | set(G1_LABELS[1:]))
LID = {l: k for k, l in enumerate(LABELS)}


def make(cls, **opts):
    return cls(len(LABELS), LID["ROOT"], **opts)


def forced(cfg, system):
    """The move the parse loop applies without asking: the only permissible one, if unlabeled."""
    valid = cfg.valid_moves()
    if len(valid) == 1 and not system.labeled_moves[valid[0]]:
        return valid[0]
    return None


def oracle_run(system, heads, labels, limit):
    """Follow the static oracle as the training loop does; return the configuration and moves."""
    n = len(heads) - 1
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    seq = []
    while not cfg.is_terminal():
        move, label = forced(cfg, system), -1
        if move is None:
            move, label = cfg.oracle()
            assert move in cfg.valid_moves(), f"oracle chose impermissible {system.move_names[move]}"
        cfg.apply(move, label)
        seq.append(system.move_names[move] + (f"_{LABELS[label]}" if label >= 0 else ""))
        assert len(seq) <= limit, "oracle exceeded the transition bound"
    return cfg, seq


def random_run(system, n, rng):
    cfg = system.new_configuration(n)
    while not cfg.is_terminal():
        moves = cfg.valid_moves()
        assert moves, "a non-terminal configuration must have a permissible move"
        cfg.apply(rng.choice(moves), rng.randrange(len(LABELS)))
        assert cfg.n_transitions <= n * (n + 3) // 2 + 2 * n + 2
    return cfg


def labels_for(heads, rng):
    return [-1] + [rng.randrange(len(LABELS)) for _ in heads[1:]]


def quadratic(n):
    return n * (n + 3) // 2


# ---------------------------------------------------------------- Covington, per transition

def test_covington_initial_configuration_and_addresses():
    s = make(CovNonProj, allow_shift=True)
    cfg = s.new_configuration(4)
    assert (cfg.left, cfg.right) == (0, 1)
    assert cfg.address("Left", 0) == 0 and cfg.address("Left", 1) == -1
    assert cfg.address("Right", 3) == 4 and cfg.address("Right", 4) == -1
    assert sorted(cfg.valid_moves()) == [0, 1, 2]      # SH NA RA; LA needs a non-root Left[0]
    no_root = make(CovNonProj, allow_root=False).new_configuration(4)
    assert (no_root.left, no_root.right) == (1, 2)


def test_covington_shift_is_no_move_by_default():
    s = make(CovProj)
    cfg = s.new_configuration(3)
    assert 0 not in cfg.valid_moves()


def test_covnonproj_left_arc_then_skips_to_next_linkable_node():
    s = make(CovNonProj, allow_shift=True)
    cfg = s.new_configuration(4)
    for _ in range(2):
        cfg.apply(0)                       # SH x2: left = 2, right = 3
    assert (cfg.left, cfg.right) == (2, 3)
    cfg.apply(3, LID["NMOD"])              # LA: 3 -> 2
    assert cfg.heads[2] == 3
    assert (cfg.left, cfg.right) == (1, 3)
    cfg.apply(2, LID["NMOD"])              # RA: 1 -> 3; 3 has a head now
    assert cfg.heads[3] == 1
    # 0 is not in 3's tree and has no head: it is the next candidate
    assert (cfg.left, cfg.right) == (0, 3)
    cfg.apply(1)                           # NA past the root: shift to 4
    assert (cfg.left, cfg.right) == (3, 4)


def test_covnonproj_context_addresses():
    s = make(CovNonProj, allow_shift=True)
    cfg = s.new_configuration(5)
    for _ in range(3):
        cfg.apply(0)                       # left = 3, right = 4
    cfg.apply(1)                           # NA: left = 2
    cfg.apply(1)                           # NA: left = 1
    assert (cfg.left, cfg.right) == (1, 4)
    assert cfg.address("LeftContext", 0) == 2 and cfg.address("LeftContext", 1) == 3
    assert cfg.address("RightContext", 0) == 3 and cfg.address("RightContext", 2) == -1


def test_covproj_g2_figure10_sequence():
    s = make(CovProj, allow_shift=True)
    labels = [-1] + [LID[l] for l in G2_LABELS[1:]]
    cfg, seq = oracle_run(s, G2_HEADS, labels, quadratic(9))
    assert " ".join(seq) == ("SH LA_NMOD SH LA_SBJ RA_ROOT SH LA_NMOD RA_OBJ RA_NMOD SH "
                             "LA_NMOD RA_PMOD NA NA NA RA_P")
    assert cfg.heads == G2_HEADS


@pytest.mark.parametrize("allow_shift", [False, True])
def test_covnonproj_reproduces_czech_g1(allow_shift):
    s = make(CovNonProj, allow_shift=allow_shift)
    labels = [-1] + [LID[l] for l in G1_LABELS[1:]]
    cfg, seq = oracle_run(s, G1_HEADS, labels, quadratic(8))
    assert cfg.heads == G1_HEADS and cfg.labels[1:] == labels[1:]
    assert sum(m.startswith(("LA", "RA")) for m in seq) == 8


# ---------------------------------------------------------------- stack family, per transition

def test_stack_swap_moves_second_node_back():
    s = make(StackEager)
    cfg = s.new_configuration(3)
    cfg.apply(0)
    cfg.apply(0)                            # stack [0,1,2]
    assert cfg.stack == [0, 1, 2]
    cfg.apply(1)                            # SW
    assert cfg.stack == [0, 2] and cfg.buffer == [1, 3] and cfg.lookahead == 1
    assert cfg.address("Input", 0) == 1 and cfg.address("Input", 1) == -1
    assert cfg.address("Lookahead", 0) == 3
    assert 1 not in cfg.valid_moves()       # 0 below 2: no swap with the root
    cfg.apply(0)                            # SH 1 back
    assert cfg.stack == [0, 2, 1] and cfg.lookahead == 0
    assert 1 not in cfg.valid_moves()       # 2 > 1: already swapped order


def test_stack_arcs_and_shift_pop_at_end():
    s = make(StackProj, **StackProj.training_configuration({}))  # as in training
    cfg = s.new_configuration(2)
    cfg.apply(0)
    cfg.apply(0)
    cfg.apply(3, LID["SBJ"])                # LA: 2 -> 1
    assert cfg.heads[1] == 2 and cfg.stack == [0, 2]
    cfg.apply(0)                            # SH with an empty buffer pops
    assert cfg.stack == [0] and cfg.is_terminal()
    cfg.finish()
    assert cfg.heads[2] == 0


@pytest.mark.parametrize("cls", [StackProj, StackEager, StackLazy])
def test_stack_parsing_never_shifts_on_an_empty_buffer(cls):
    """MaltParser 1.9 refuses SHIFT on an empty buffer when parsing: what is left gets arcs."""
    cfg = make(cls).new_configuration(3)
    for _ in range(3):
        cfg.apply(0)
    assert cfg.buffer == [] and 0 not in cfg.valid_moves() and 2 in cfg.valid_moves()


def test_stack_oracles_reproduce_czech_g1():
    labels = [-1] + [LID[l] for l in G1_LABELS[1:]]
    for cls in (StackEager, StackLazy):
        cfg, seq = oracle_run(make(cls), G1_HEADS, labels, 8 * 9)
        assert cfg.heads == G1_HEADS, cls.name
        assert "SW" in seq


# ---------------------------------------------------------------- planar / 2-planar, per transition

def test_planar_arcs_move_nothing_and_block_cycles():
    s = make(Planar)
    cfg = s.new_configuration(3)
    cfg.apply(0)                            # SH 1
    cfg.apply(3, LID["NMOD"])               # LA: 2 -> 1
    assert cfg.stack == [0, 1] and cfg.buffer == [2, 3]
    assert 2 not in cfg.valid_moves()       # RA 1 -> 2 would close a cycle
    cfg.apply(1)                            # RE
    assert cfg.stack == [0]
    assert 1 not in cfg.valid_moves()       # the root is never reduced


def test_planar_root_handling_relaxed_forces_shift_at_root():
    cfg = make(Planar, planar_root_handling="relaxed").new_configuration(2)
    assert cfg.valid_moves() == [0]
    with pytest.raises(ValueError, match="planar_root_handling"):
        make(Planar, planar_root_handling="strange")


def test_planar_connectedness_reduceonly_keeps_components_linked():
    cfg = make(Planar, connectedness="reduceonly").new_configuration(3)
    cfg.apply(0)                            # SH 1: unconnected to 0 and 2
    assert 1 not in cfg.valid_moves()
    cfg.apply(2, LID["NMOD"])               # RA 1 -> 2
    assert 1 in cfg.valid_moves()


def test_two_planar_switch_and_shift_on_both_stacks():
    s = make(TwoPlanar)
    cfg = s.new_configuration(3)
    cfg.apply(0)                            # SH 1 on both stacks
    cfg.apply(2)                            # RE on the active stack only
    assert cfg.stack == [0] and cfg.aux == [0, 1]
    cfg.apply(1)                            # SW
    assert cfg.stack == [0, 1] and cfg.aux == [0]
    assert cfg.address("InactiveStack", 0) == 0 and cfg.address("ActiveStack", 0) == 1
    assert 1 not in cfg.valid_moves()       # no two switches in a row
    s2 = make(TwoPlanar, reduceonswitch=True)
    cfg2 = s2.new_configuration(3)
    cfg2.apply(0)
    cfg2.apply(1)                           # SW, then pop the new active stack
    assert cfg2.stack == [0] and cfg2.aux == [0, 1]


# ---------------------------------------------------------------- properties

TREE_SYSTEMS = {
    # name: (class, gold tree generator filter, bound on oracle transitions, options)
    "covproj": (CovProj, is_projective, quadratic),
    "covnonproj": (CovNonProj, None, quadratic),
    "stackproj": (StackProj, is_projective, lambda n: 2 * n),
    "stackeager": (StackEager, None, lambda n: n * n + 2 * n),
    "stacklazy": (StackLazy, None, lambda n: n * n + 2 * n),
    "planar": (Planar, is_planar, lambda n: 3 * n),
    "2planar": (TwoPlanar, is_two_planar, lambda n: 6 * n + 2),
}


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 18), st.sampled_from(sorted(TREE_SYSTEMS)),
       st.booleans(), st.booleans())
def test_oracle_reproduces_every_tree_the_system_covers(seed, n, name, projective, option):
    rng = random.Random(seed)
    cls, covers, bound = TREE_SYSTEMS[name]
    heads = random_projective_tree(rng, n) if projective else random_tree(rng, n)
    labels = labels_for(heads, rng)
    opts = cls.training_configuration({})  # the oracle runs as in training
    if name.startswith("cov"):
        opts["allow_shift"] = option
    elif name == "2planar":
        opts["reduceonswitch"] = False
    system = make(cls, **opts)
    cfg, seq = oracle_run(system, heads, labels, bound(n))
    out = cfg.heads
    assert is_forest(out)
    if covers is None or covers(heads):
        assert out == heads, f"{name} oracle lost gold arcs"
        assert cfg.labels[1:] == labels[1:]
    else:
        assert all(h == -1 or h == heads[d] for d, h in enumerate(out) if d > 0), \
            "the oracle never builds a wrong arc"
    n_shift = seq.count("SH")
    if name.startswith("cov") and option:
        assert n_shift + seq.count("RA") * (name == "covproj") <= n
    if name in ("stackproj",):
        assert len(seq) == 2 * n


OUTPUT_CLASS = {
    "covproj": is_projective, "covnonproj": None, "stackproj": is_projective, "stackeager": None,
    "stacklazy": None, "planar": is_planar, "2planar": is_two_planar,
}


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 25), st.sampled_from(sorted(TREE_SYSTEMS)),
       st.booleans())
def test_random_decisions_give_a_forest_of_the_promised_class(seed, n, name, option):
    rng = random.Random(seed)
    cls = TREE_SYSTEMS[name][0]
    opts = {}
    if name.startswith("cov"):
        opts = {"allow_shift": option, "allow_root": rng.random() < 0.8}
    elif name == "planar":
        opts = {"connectedness": rng.choice(["none", "reduceonly", "full"]), "no_covered_roots": option}
    elif name == "2planar":
        opts = {"reduceonswitch": option}
    system = make(cls, **opts)
    cfg = random_run(system, n, rng)
    bounds = {"covproj": quadratic(n), "covnonproj": quadratic(n), "stackproj": 2 * n + 1,
              "stackeager": n * n + 2 * n + 1, "stacklazy": n * n + 2 * n + 1,
              "planar": 3 * n, "2planar": 6 * n + 2}
    assert cfg.n_transitions <= bounds[name]
    heads = cfg.heads
    assert is_forest(heads)
    check = OUTPUT_CLASS[name]
    if check is not None:
        assert check(heads), f"{name} output is not of its class: {heads}"
    cfg.finish()
    assert is_tree(cfg.heads)


def test_registry_lists_every_maltparser_algorithm():
    assert set(SYSTEMS) == {"nivreeager", "nivrestandard", "covproj", "covnonproj", "stackproj",
                            "stackeager", "stacklazy", "planar", "2planar"}


def test_training_records_every_decision_maltparser_leaves_to_the_classifier():
    """MaltParser records an instance for every oracle decision, even with one permissible move,
    and none for a system's deterministic moves (planar's relaxed root handling shifts past the root)."""
    from conftest import EXAMPLES
    from maltpy.formats.conll import read_conll
    from maltpy.parsing.parser import Parser
    from maltpy.transform.pseudoproj import nonprojective_arcs
    train = [s for s in read_conll(os.path.join(EXAMPLES, "toy-train.conll"), need_heads=True)
             if not nonprojective_arcs([-1] + s.heads)]
    n_words = sum(len(s.rows) for s in train)
    # stackproj: a projective tree takes n SHIFTs and n arcs; the first SHIFT is the only permissible move
    X, y, _, _ = Parser(algorithm="stackproj", verbose=False).training_instances(train, "conllx")
    assert X.shape[0] == 2 * n_words
    normal, _, _, _ = Parser(algorithm="planar", verbose=False).training_instances(train, "conllx")
    relaxed, _, _, _ = Parser(algorithm="planar", planar_root_handling="relaxed",
                              verbose=False).training_instances(train, "conllx")
    assert relaxed.shape[0] < normal.shape[0]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 14), st.sampled_from(sorted(TREE_SYSTEMS)),
       st.sampled_from(["none", "label"]))
def test_static_oracles_are_functions_of_configuration_and_gold_tree(seed, n, name, undirected):
    """Asked once, on a fresh configuration brought to step t by replaying moves (no oracle
    call in between), every oracle gives the answer it gave at step t of its own run, and asking
    twice changes nothing. 2-planar's planes used to be updated by the calls themselves (issue #16)."""
    rng = random.Random(seed)
    cls = TREE_SYSTEMS[name][0]
    heads = random_tree(rng, n)    # non-2-planar trees too: the plane bookkeeping meets conflicts
    labels = labels_for(heads, rng)
    opts = cls.training_configuration({})
    if undirected != "none":
        if name not in ("planar", "2planar", "covnonproj"):
            return
        opts["undirected"] = undirected
    system = make(cls, **opts)
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    answers, moves = [], []
    while not cfg.is_terminal():
        answer = cfg.oracle()
        assert cfg.oracle() == answer, "asking twice changed the answer"
        answers.append(answer)
        move = answer[0] if answer[0] in cfg.valid_moves() else cfg.valid_moves()[0]
        moves.append((move, answer[1]))
        cfg.apply(move, answer[1])
    for t in rng.sample(range(len(moves)), min(len(moves), 6)):
        fresh = system.new_configuration(n)
        fresh.set_gold(heads, labels)
        for move, label in moves[:t]:
            fresh.apply(move, label)
        assert fresh.oracle() == answers[t], f"{name}: the answer at step {t} depends on earlier calls"


# ---------------------------------------------------------------- 2-planar: MaltParser's oracle
def _maltparser_two_planar_oracle(heads):
    """A transcription of MaltParser 1.9.2's TwoPlanarArcEagerOracle.predict (normal root handling):
    a function of the configuration (active top a, inactive top t, input front j, arcs built,
    which stack is active) and of the plane constraints its arcs propagated, with crossings lists
    built as initCrossingsGraph builds them (edges in dependent order, each pair once)."""
    n = len(heads) - 1
    deps = list(range(1, n + 1))

    def cross(d1, d2):
        x1, x2 = sorted((heads[d1], d1))
        y1, y2 = sorted((heads[d2], d2))
        return x1 < y1 < x2 < y2 or y1 < x1 < y2 < x2
    crossings = {d: [] for d in deps}
    for e1 in deps:
        for e2 in deps:
            if heads[e1] < heads[e2] and cross(e1, e2):
                crossings[e1].append(e2)
                crossings[e2].append(e1)
    ANY, NO = 0, 3
    constraint = {}

    def propagate(d, plane):
        constraint[d] = plane
        if plane in (1, 2):
            for c in crossings[d]:
                cc = constraint.get(c, ANY)
                if cc == ANY:
                    propagate(c, 3 - plane)
                elif cc == plane:
                    propagate(c, NO)

    def predict(a, t, j, built, active_plane):
        def decision(d):
            c = constraint.get(d, ANY)
            return active_plane if c == ANY else c

        def pending(plane, limit):
            current, max_index = None, -1
            left = [d for d in deps if heads[d] == j and d < j]
            if left and left[0] < limit:
                for d in left:
                    if max_index < d < limit and decision(d) == plane:
                        max_index, current = d, d
            if heads[j] < limit and heads[j] > max_index and decision(j) == plane:
                current = j
            return current is not None
        if a != 0 and heads[a] == j and built[a] != j:
            propagate(a, active_plane)
            return "LA"
        if heads[j] == a and built[j] != a:
            propagate(j, active_plane)
            return "RA"
        if (t != 0 and heads[t] == j and built[t] != j) or (heads[j] == t and built[j] != t):
            return "SW"
        if pending(active_plane, a):
            return "RE"
        if pending(3 - active_plane, t):
            return "SW"
        return "SH"
    return predict


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(4, 16))
def test_two_planar_oracle_decides_as_maltparsers_even_on_trees_that_are_not_two_planar(seed, n):
    """On a tree that is not 2-planar the planes the oracle fixes depend on the order in which a new
    arc pushes the arcs crossing it to the other plane; maltpy follows MaltParser's order (on the
    CoNLL 2007 Basque training file, all 21 such trees now take MaltParser's number of decisions)."""
    from conftest import random_tree
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    system = SYSTEMS["2planar"](1, 0)
    c = Configuration(system, n)
    c.set_gold(heads, [0] * (n + 1))
    predict = _maltparser_two_planar_oracle(heads)
    names = system.moves
    active_plane, steps = 1, 0
    while not c.is_terminal() and steps < 10 * n:
        expected = predict(c.stack[-1], c.aux[-1], c.buffer[0], c.heads, active_plane)
        move, label = c.oracle()
        assert names[move] == expected, (heads, steps)
        if move not in c.valid_moves():
            break
        c.apply(move, label)
        active_plane = 3 - active_plane if expected == "SW" else active_plane
        steps += 1
