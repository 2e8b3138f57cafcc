"""The dynamic oracle (move costs) of arc-eager, against exhaustive search on small sentences."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.systems import NivreEager, NivreStandard
from conftest import random_projective_tree, random_tree

N_LABELS = 3


def replay(system, n, gold, seq):
    cfg = system.new_configuration(n)
    cfg.set_gold(gold, [-1] + [1] * n)
    for move in seq:
        cfg.apply(move, 1 if system.labeled[move] else -1)
    return cfg


def final_heads(cfg):
    """Heads after MaltParser's end of parsing: words without a head go to the root."""
    return [h if h >= 0 else 0 for h in cfg.heads[1:]]


def min_loss(system, n, gold, seq, memo):
    """The fewest wrong heads of any tree reachable from the configuration after ``seq``."""
    cfg = replay(system, n, gold, seq)
    key = (tuple(cfg.stack), tuple(cfg.buffer), tuple(cfg.heads))
    if key not in memo:
        if cfg.is_terminal():
            memo[key] = sum(h != g for h, g in zip(final_heads(cfg), gold[1:]))
        else:
            memo[key] = min(min_loss(system, n, gold, seq + [m], memo) for m in cfg.valid_moves())
    return memo[key]


def random_prefix(system, n, gold, rng, length):
    seq = []
    cfg = replay(system, n, gold, seq)
    while len(seq) < length and not cfg.is_terminal():
        seq.append(rng.choice(cfg.valid_moves()))
        cfg = replay(system, n, gold, seq)
    return seq, cfg


OPTIONS = [{}, {"allow_reduce": True}, {"allow_root": False}]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 6), options=st.sampled_from(OPTIONS))
def test_costs_are_exact_on_projective_trees(seed, n, options):
    """From configurations reached by random moves, every permissible move costs exactly what the
    best reachable tree loses by it (exhaustive search)."""
    rng = random.Random(seed)
    gold = random_projective_tree(rng, n)
    system = NivreEager(N_LABELS, 0, **options)
    memo = {}
    seq, cfg = random_prefix(system, n, gold, rng, rng.randint(0, 2 * n))
    if cfg.is_terminal():
        return
    here = min_loss(system, n, gold, seq, memo)
    costs = cfg.costs()
    assert set(costs) == set(cfg.valid_moves())
    for move, (cost, _) in costs.items():
        assert cost == min_loss(system, n, gold, seq + [move], memo) - here, (gold, seq, move)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 7))
def test_zero_cost_moves_exist_until_the_end_and_reach_the_best_tree(seed, n):
    """On a projective tree some move costs nothing in every configuration, and following
    zero-cost moves from a random configuration ends with exactly as many wrong heads as the
    best tree reachable from it (exhaustive search)."""
    rng = random.Random(seed)
    gold = random_projective_tree(rng, n)
    system = NivreEager(N_LABELS, 0)
    seq, cfg = random_prefix(system, n, gold, rng, rng.randint(0, 2 * n))
    best = min_loss(system, n, gold, seq, {})
    while not cfg.is_terminal():
        costs = cfg.costs()
        free = [m for m, (c, _) in costs.items() if c == 0]
        assert free, costs
        cfg.apply(rng.choice(free), 1)
    assert sum(h != g for h, g in zip(final_heads(cfg), gold[1:])) == best


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 12))
def test_cheapest_moves_on_non_projective_trees_end_in_a_tree(seed, n):
    """On a non-projective tree the costs count the arcs each move makes unreachable one by one,
    which is not exact (arcs can be reachable alone but not together); following the cheapest
    moves still ends in a tree, and never costs more than the arcs the gold tree has."""
    rng = random.Random(seed)
    gold = random_tree(rng, n)
    system = NivreEager(N_LABELS, 0)
    cfg = system.new_configuration(n)
    cfg.set_gold(gold, [-1] + [1] * n)
    spent = 0
    while not cfg.is_terminal():
        costs = cfg.costs()
        cheapest = min(c for c, _ in costs.values())
        spent += cheapest
        cfg.apply(rng.choice([m for m, (c, _) in costs.items() if c == cheapest]), 1)
    cfg.finish()
    assert all(h >= 0 for h in cfg.heads[1:]) and spent <= n
    assert sum(h != g for h, g in zip(cfg.heads[1:], gold[1:])) >= spent


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 15), options=st.sampled_from(OPTIONS))
def test_the_static_oracle_never_pays(seed, n, options):
    """Along the static oracle's path on a projective tree every move costs 0, labels included,
    and zero-cost moves rebuild the gold tree."""
    rng = random.Random(seed)
    gold = random_projective_tree(rng, n)
    labels = [-1] + [rng.randrange(N_LABELS) for _ in range(n)]
    system = NivreEager(N_LABELS, 0, **options)
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
