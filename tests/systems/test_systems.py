"""Transition systems: validity and effect per transition, oracles, the tree constraint."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.systems import NivreEager, NivreStandard, SYSTEMS
from conftest import is_forest, is_projective, is_tree, random_projective_tree, random_tree

# G2 of Nivre (2008): "Economic news had little effect on financial markets ."
G2_HEADS = [-1, 2, 3, 0, 5, 3, 5, 8, 6, 3]
G2_LABELS = ["_", "NMOD", "SBJ", "ROOT", "NMOD", "OBJ", "NMOD", "NMOD", "PMOD", "P"]
LABELS = sorted(set(G2_LABELS[1:]))
LID = {l: k for k, l in enumerate(LABELS)}


def make(cls, **opts):
    return cls(len(LABELS), LID["ROOT"], **opts)


def run_codes(system, n, codes):
    """Apply transitions written as in the spec (SH, RE, LA_x, RA_x, USH)."""
    cfg = system.new_configuration(n)
    for code in codes:
        name, _, label = code.partition("_")
        move = system.move_names.index(name)
        cfg.apply(move, LID[label] if label else -1)
    return cfg


def oracle_run(system, heads, labels, forced=True):
    """Follow the static oracle; forced single unlabeled moves are applied as the loop does."""
    n = len(heads) - 1
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    seq = []
    while not cfg.is_terminal():
        valid = cfg.valid_moves()
        move, label = cfg.oracle()
        assert move in valid, f"oracle chose impermissible {system.move_names[move]}"
        cfg.apply(move, label)
        seq.append(system.move_names[move] + (f"_{LABELS[label]}" if label >= 0 else ""))
        assert len(seq) <= 4 * n + 4
    return cfg, seq


def g2_labels():
    return [-1] + [LID[l] for l in G2_LABELS[1:]]


# ---------------------------------------------------------------- arc-eager, per transition

def test_eager_initial_configuration():
    cfg = make(NivreEager).new_configuration(3)
    assert cfg.stack == [0] and cfg.buffer == [1, 2, 3]
    names = [NivreEager.move_names[m] for m in cfg.valid_moves()]
    assert sorted(names) == ["RA", "SH"]  # no LA/RE on the root


def test_eager_each_transition_effect():
    s = make(NivreEager)
    cfg = s.new_configuration(3)
    cfg.apply(0)  # SH
    assert cfg.stack == [0, 1] and cfg.buffer == [2, 3]
    cfg.apply(4, LID["SBJ"])  # LA: 2 -> 1
    assert cfg.stack == [0] and cfg.buffer == [2, 3] and cfg.heads[1] == 2 and cfg.labels[1] == LID["SBJ"]
    cfg.apply(3, LID["ROOT"])  # RA: 0 -> 2
    assert cfg.stack == [0, 2] and cfg.buffer == [3] and cfg.heads[2] == 0
    assert 1 in cfg.valid_moves()  # RE: 2 has a head
    cfg.apply(3, LID["OBJ"])  # RA: 2 -> 3
    assert cfg.buffer == [] and cfg.is_terminal() and cfg.heads[3] == 2


def test_eager_left_arc_needs_headless_top():
    s = make(NivreEager)
    cfg = run_codes(s, 3, ["SH", "RA_OBJ"])
    assert 4 not in cfg.valid_moves()  # top 2 has a head
    assert 1 in cfg.valid_moves()
    cfg2 = run_codes(s, 3, ["SH"])
    assert 1 not in cfg2.valid_moves()  # top 1 has no head: no REDUCE


def test_eager_allow_reduce_permits_reduce_without_head():
    s = make(NivreEager, allow_reduce=True)
    cfg = s.new_configuration(3)
    cfg.apply(0)
    assert 1 in cfg.valid_moves()


def test_eager_allow_root_false_forces_shift_on_root():
    s = make(NivreEager, allow_root=False)
    cfg = s.new_configuration(3)
    assert [NivreEager.move_names[m] for m in cfg.valid_moves()] == ["SH"]


def test_eager_g2_figure6_sequence():
    """Nivre (2008) Fig. 6 / spec T2: 16 transitions, final stack [0, 3, 9]."""
    codes = "SH LA_NMOD SH LA_SBJ RA_ROOT SH LA_NMOD RA_OBJ RA_NMOD SH LA_NMOD RA_PMOD RE RE RE RA_P".split()
    s = make(NivreEager)
    cfg, seq = oracle_run(s, G2_HEADS, g2_labels())
    assert seq == codes
    assert cfg.stack == [0, 3, 9] and cfg.heads == G2_HEADS


def test_eager_tree_constraint_on_g2_adds_two_reduces():
    s = make(NivreEager, enforce_tree=True)
    cfg, seq = oracle_run(s, G2_HEADS, g2_labels())
    assert seq[-2:] == ["RE", "RE"] and len(seq) == 18
    assert cfg.stack == [0] and cfg.end_seen


def test_tree_constraint_repair_example():
    """Spec T12: SH SH SH leaves 1 2 3 unattached; UN RA RE UN LA RA RE builds the gold tree."""
    s = make(NivreEager, enforce_tree=True)
    cfg = run_codes(s, 3, ["SH", "SH", "SH"])
    assert cfg.end_seen and cfg.buffer == []
    assert [NivreEager.move_names[m] for m in cfg.valid_moves()] == ["USH"]
    cfg = run_codes(s, 3, "SH SH SH USH RA_NMOD RE USH LA_NMOD RA_ROOT RE".split())
    assert cfg.is_terminal() and cfg.heads == [-1, 2, 0, 2]


def test_tree_constraint_blocks_shift_after_end():
    s = make(NivreEager, enforce_tree=True)
    cfg = run_codes(s, 3, ["SH", "SH", "SH", "USH"])
    assert cfg.buffer == [3] and 0 not in cfg.valid_moves()


# ---------------------------------------------------------------- arc-standard

def test_standard_each_transition_effect():
    s = make(NivreStandard)
    cfg = s.new_configuration(3)
    cfg.apply(0)  # SH 1
    cfg.apply(0)  # SH 2
    cfg.apply(1, LID["OBJ"])  # RA: 2 -> 3, 2 back to the buffer
    assert cfg.stack == [0, 1] and cfg.buffer == [2] and cfg.heads[3] == 2
    cfg.apply(2, LID["SBJ"])  # LA: 2 -> 1
    assert cfg.stack == [0] and cfg.buffer == [2] and cfg.heads[1] == 2
    cfg.apply(1, LID["ROOT"])  # RA from the root: the root stays on the stack
    assert cfg.stack == [0] and cfg.buffer == [] and cfg.is_terminal()
    assert 2 not in make(NivreStandard).new_configuration(2).valid_moves()  # no LA on root


def test_standard_g2_figure4_sequence():
    """Spec T1, with MaltParser's RIGHT-ARC from the root (no final SHIFT): 17 transitions."""
    codes = ("SH LA_NMOD SH LA_SBJ SH SH LA_NMOD SH SH SH LA_NMOD RA_PMOD RA_NMOD RA_OBJ SH RA_P "
             "RA_ROOT").split()
    cfg, seq = oracle_run(make(NivreStandard), G2_HEADS, g2_labels())
    assert seq == codes and cfg.heads == G2_HEADS


# ---------------------------------------------------------------- properties

def _labels_for(heads, rng):
    return [-1] + [rng.randrange(len(LABELS)) for _ in heads[1:]]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 25), st.sampled_from(["nivreeager", "nivrestandard"]),
       st.booleans())
def test_oracle_reproduces_projective_trees(seed, n, name, allow_root):
    rng = random.Random(seed)
    heads = random_projective_tree(rng, n)
    labels = _labels_for(heads, rng)
    s = SYSTEMS[name](len(LABELS), LID["ROOT"], allow_root=allow_root)
    cfg, seq = oracle_run(s, heads, labels)
    cfg.finish()
    out_heads, out_labels = cfg.heads, cfg.labels
    assert out_heads == heads
    # without allow_root the root's dependents are attached afterwards with the root label
    for d in range(1, n + 1):
        if allow_root or heads[d] != 0:
            assert out_labels[d] == labels[d]
    assert len(seq) <= 2 * n
    if name == "nivreeager":
        assert seq.count("SH") + sum(x.startswith("RA") for x in seq) == n


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 30), st.sampled_from(["nivreeager", "nivrestandard"]),
       st.booleans(), st.booleans())
def test_random_decisions_give_projective_forest(seed, n, name, allow_root, allow_reduce):
    """Any sequence of permissible decisions ends within 2n transitions in a projective forest."""
    rng = random.Random(seed)
    opts = {"allow_root": allow_root}
    if name == "nivreeager":
        opts["allow_reduce"] = allow_reduce
    s = SYSTEMS[name](len(LABELS), LID["ROOT"], **opts)
    cfg = s.new_configuration(n)
    while not cfg.is_terminal():
        moves = cfg.valid_moves()
        assert moves, "a non-terminal configuration must have a permissible move"
        cfg.apply(rng.choice(moves), rng.randrange(len(LABELS)))
    assert cfg.n_transitions <= 2 * n
    assert is_forest(cfg.heads)
    if not allow_reduce:
        assert is_projective(cfg.heads)
    cfg.finish()
    assert is_tree(cfg.heads)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 30), st.booleans())
def test_tree_constraint_always_yields_one_tree(seed, n, allow_root):
    """Random scores: the output is one projective tree, in at most 2n + 2k - 2 <= 4n transitions."""
    rng = random.Random(seed)
    s = make(NivreEager, enforce_tree=True, allow_root=allow_root)
    cfg = s.new_configuration(n)
    phase1 = None
    while not cfg.is_terminal():
        moves = cfg.valid_moves()
        assert moves
        cfg.apply(rng.choice(moves), rng.randrange(len(LABELS)))
        if phase1 is None and cfg.end_seen:
            phase1 = cfg.n_transitions
            k = len(cfg.stack)
            assert phase1 == 2 * n + 1 - k
    heads = cfg.heads
    assert all(h >= 0 for h in heads[1:]), "every word gets a head during parsing"
    assert is_tree(heads) and is_projective(heads)
    assert cfg.n_transitions <= 2 * n + 2 * k - 2 <= 4 * n
    assert cfg.stack == [0]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(2, 20))
def test_projective_oracles_terminate_on_any_tree(seed, n):
    """Any gold tree: the oracle ends within 2n transitions with a projective forest, which is
    the gold tree exactly when the gold tree is projective (training must never hang)."""
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    labels = _labels_for(heads, rng)
    for cls in (NivreEager, NivreStandard):
        cfg, seq = oracle_run(make(cls), heads, labels)
        assert len(seq) <= 2 * n and is_forest(cfg.heads) and is_projective(cfg.heads)
        cfg.finish()
        assert (cfg.heads == heads) == is_projective(heads)


def test_unknown_option_is_rejected():
    with pytest.raises(ValueError, match="enforce_tree"):
        NivreStandard(3, 0, enforce_tree=True)
