"""The dynamic oracle (move costs) of arc-eager, against exhaustive search on small sentences."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.systems import CovNonProj, NivreEager, NivreStandard
from conftest import random_projective_tree, random_tree
from maltpy.systems.checks import ROOT_LABEL as CHECKS_ROOT_LABEL, tree_loss

N_LABELS = 3


ROOT_LABEL = 0
assert ROOT_LABEL == CHECKS_ROOT_LABEL   # tree_loss counts an unattached word's label against it


def gold_label_move(system, cfg, move, labels):
    """A labeled move with the gold label of the word it attaches (the best label it can take)."""
    if not system.labeled[move]:
        return -1
    if isinstance(system, CovNonProj):
        dep = cfg.left if system.moves[move] == "LA" else cfg.right
    else:
        dep = cfg.stack[-1] if system.moves[move] == "LA" else cfg.buffer[0]
    return labels[dep]


def replay(system, n, gold, labels, seq):
    cfg = system.new_configuration(n)
    cfg.set_gold(gold, labels)
    for move in seq:
        cfg.apply(move, gold_label_move(system, cfg, move, labels))
    return cfg


#: wrong heads or labels after MaltParser's end of parsing (words without a head go to the root
#: with the root label, 0 here as in the checks every system passes)
loss = tree_loss


def min_loss(system, n, gold, labels, seq, memo):
    """The smallest loss of any tree reachable from the configuration after ``seq``."""
    cfg = replay(system, n, gold, labels, seq)
    key = (tuple(cfg.stack), tuple(cfg.buffer), cfg.left, cfg.right, tuple(cfg.heads), tuple(cfg.labels))
    if key not in memo:
        if cfg.is_terminal():
            memo[key] = loss(cfg, gold, labels)
        else:
            memo[key] = min(min_loss(system, n, gold, labels, seq + [m], memo) for m in cfg.valid_moves())
    return memo[key]


def random_prefix(system, n, gold, labels, rng, length):
    """A random sequence of permissible moves (labeled ones with random labels)."""
    cfg = system.new_configuration(n)
    cfg.set_gold(gold, labels)
    seq = []
    while len(seq) < length and not cfg.is_terminal():
        move = rng.choice(cfg.valid_moves())
        seq.append(move)
        cfg.apply(move, gold_label_move(system, cfg, move, labels))
    return seq, cfg


def random_labels(rng, n, heads=None):
    """Random labels; with ``heads``, the root's dependents get the root label, as MaltParser's
    root label (-grl) names them in a treebank: then the costs are exact."""
    labels = [-1] + [rng.randrange(N_LABELS) for _ in range(n)]
    if heads is not None:
        labels = [ROOT_LABEL if d > 0 and heads[d] == 0 else l for d, l in enumerate(labels)]
    return labels


OPTIONS = [{}, {"allow_reduce": True}, {"allow_root": False}]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 6), options=st.sampled_from(OPTIONS))
def test_costs_are_exact_on_projective_trees(seed, n, options):
    """From configurations reached by random moves, every permissible move costs exactly what the
    best reachable tree loses by it, wrong heads and labels counted (exhaustive search), when the
    root's dependents carry the root label. (A root dependent with another label needs a
    RIGHT-ARC from the root, which can conflict with words the end of parsing attaches: then the
    costs count each lost arc on its own, as on non-projective trees.)"""
    rng = random.Random(seed)
    gold = random_projective_tree(rng, n)
    labels = random_labels(rng, n, gold)
    system = NivreEager(N_LABELS, ROOT_LABEL, **options)
    memo = {}
    seq, cfg = random_prefix(system, n, gold, labels, rng, rng.randint(0, 2 * n))
    if cfg.is_terminal():
        return
    here = min_loss(system, n, gold, labels, seq, memo)
    costs = cfg.costs()
    assert set(costs) == set(cfg.valid_moves())
    for move, (cost, zero_label) in costs.items():
        # with its best label (the gold one of the word it attaches)
        assert cost == min_loss(system, n, gold, labels, seq + [move], memo) - here, (gold, labels, seq, move)
        if zero_label >= 0:
            assert zero_label == gold_label_move(system, cfg, move, labels)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 7))
def test_zero_cost_moves_exist_until_the_end_and_reach_the_best_tree(seed, n):
    """On a projective tree some move costs nothing in every configuration, and following
    zero-cost moves (with their zero-cost labels) from a random configuration ends with exactly
    the loss of the best tree reachable from it (exhaustive search; heads and labels)."""
    rng = random.Random(seed)
    gold = random_projective_tree(rng, n)
    labels = random_labels(rng, n, gold)
    system = NivreEager(N_LABELS, ROOT_LABEL)
    seq, cfg = random_prefix(system, n, gold, labels, rng, rng.randint(0, 2 * n))
    best = min_loss(system, n, gold, labels, seq, {})
    while not cfg.is_terminal():
        costs = cfg.costs()
        free = [m for m, (c, _) in costs.items() if c == 0]
        assert free, costs
        move = rng.choice(free)
        zero_label = costs[move][1]
        cfg.apply(move, zero_label if zero_label >= 0 else rng.randrange(N_LABELS))
    assert loss(cfg, gold, labels) == best


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 12))
def test_cheapest_moves_on_non_projective_trees_end_in_a_tree(seed, n):
    """On a non-projective tree the costs count the arcs each move makes unreachable one by one,
    which is not exact (arcs can be reachable alone but not together); following the cheapest
    moves still ends in a tree, and never costs more than the arcs the gold tree has."""
    rng = random.Random(seed)
    gold = random_tree(rng, n)
    system = NivreEager(N_LABELS, ROOT_LABEL)
    cfg = system.new_configuration(n)
    cfg.set_gold(gold, random_labels(rng, n))
    spent = 0
    while not cfg.is_terminal():
        costs = cfg.costs()
        cheapest = min(c for c, _ in costs.values())
        spent += cheapest
        move = rng.choice([m for m, (c, _) in costs.items() if c == cheapest])
        cfg.apply(move, max(costs[move][1], 0))
    cfg.finish()
    assert all(h >= 0 for h in cfg.heads[1:]) and spent <= n


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 15), options=st.sampled_from(OPTIONS))
def test_the_static_oracle_never_pays(seed, n, options):
    """Along the static oracle's path on a projective tree every move costs 0, labels included,
    and zero-cost moves rebuild the gold tree."""
    rng = random.Random(seed)
    gold = random_projective_tree(rng, n)
    labels = random_labels(rng, n)
    system = NivreEager(N_LABELS, ROOT_LABEL, **options)
    cfg = system.new_configuration(n)
    cfg.set_gold(gold, labels)
    while not cfg.is_terminal():
        move, label = cfg.oracle()
        costs = cfg.costs()
        assert costs[move][0] == 0
        if system.labeled[move]:
            assert costs[move][1] in (-1, label)
        cfg.apply(move, label)


def test_systems_without_a_dynamic_oracle_say_so():
    cfg = NivreStandard(N_LABELS, 0).new_configuration(3)
    cfg.set_gold([-1, 2, 0, 2], [-1, 0, 0, 0])
    assert cfg.costs() is None
    cfg = NivreEager(N_LABELS, 0, buffer_transitions="lba").new_configuration(3)
    cfg.set_gold([-1, 2, 0, 2], [-1, 0, 0, 0])
    assert cfg.costs() is None


COVINGTON_OPTIONS = [{}, {"allow_root": False}, {"allow_shift": True}]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 6), options=st.sampled_from(COVINGTON_OPTIONS),
       projective=st.booleans())
def test_covington_costs_are_exact_on_any_tree(seed, n, options, projective):
    """covnonproj's dynamic oracle (the thesis's loss with its corrections): every permissible
    move costs exactly what the best reachable tree loses by it, on any tree, projective or not
    (exhaustive search; root dependents carry the root label)."""
    rng = random.Random(seed)
    gold = (random_projective_tree if projective else random_tree)(rng, n)
    labels = random_labels(rng, n, gold)
    system = CovNonProj(N_LABELS, ROOT_LABEL, **options)
    memo = {}
    seq, cfg = random_prefix(system, n, gold, labels, rng, rng.randint(0, n * (n + 1) // 2))
    if cfg.is_terminal():
        return
    here = min_loss(system, n, gold, labels, seq, memo)
    costs = cfg.costs()
    for move, (cost, zero_label) in costs.items():
        assert cost == min_loss(system, n, gold, labels, seq + [move], memo) - here, (gold, labels, seq, move)
    assert min(c for c, _ in costs.values()) == 0


def test_covington_figure_2_of_the_thesis():
    """Spec A.5's worked example: Shift, No-Arc and Right-Arc all cost nothing there."""
    system = CovNonProj(N_LABELS, ROOT_LABEL, allow_root=False, allow_shift=True)
    gold = [-1, 4, 0, 2, 3]          # 0->2, 2->3, 3->4, 4->1
    labels = [-1, 1, ROOT_LABEL, 1, 1]
    cfg = system.new_configuration(4)
    cfg.set_gold(gold, labels)
    assert (cfg.left, cfg.right) == (1, 2)            # the root is not in Left without allow_root
    cfg.apply(system.moves.index("RA"), 1)            # 1 -> 2; then Right[0] = 3, Left[0] = 2
    assert (cfg.left, cfg.right, cfg.heads[2]) == (2, 3, 1)
    costs = {system.moves[m]: c for m, (c, _) in cfg.costs().items()}
    assert costs == {"SH": 0, "NA": 0, "RA": 0}
