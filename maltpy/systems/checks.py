"""What every transition system must do, as a test an extension author runs on a new system (as
scikit-learn's ``check_estimator`` for estimators):

    from maltpy.systems.checks import check_transition_system
    check_transition_system(MySystem)                 # raises AssertionError naming what failed

The checks, on random trees and random decisions (a fixed seed: the same trees every run):

1. **the static oracle reproduces the gold tree**, labels included, for every tree of the class the
   system covers (:attr:`TransitionSystem.covers`), and never builds a wrong arc on other trees;
2. **random permissible decisions end in a well-formed graph of the promised class**
   (:attr:`TransitionSystem.builds`: one head per word, no cycle; projective, planar, ...), a
   non-terminal configuration always has a permissible move, and the end of parsing makes a tree;
3. **move counts stay within the proven bound** (:meth:`TransitionSystem.max_transitions`), for the
   oracle's sequences and for random ones;
4. where the system has a dynamic oracle, **its costs agree with exhaustive search** on small
   sentences (on the trees where it claims to be exact, :attr:`TransitionSystem.costs_exact_on`):
   each permissible move costs what the best tree still reachable loses by taking it, with its
   best label.

A system declares the class names ``"projective"``, ``"planar"``, ``"2planar"`` or ``"any"``.
"""
from __future__ import annotations

import random
from typing import Callable, Dict, List, Optional

#: the labels of the random trees (the root label is 0: the root's dependents carry it, as a
#: treebank's root label names them, so that the costs are exact where a system says they are)
N_LABELS = 3
ROOT_LABEL = 0


# ---------------------------------------------------------------- classes of trees

def is_forest(heads: List[int]) -> bool:
    """One head per word (-1: none), no cycle, nothing into node 0."""
    if heads[0] != -1:
        return False
    for d in range(1, len(heads)):
        seen, a = set(), d
        while a > 0:
            if a in seen:
                return False
            seen.add(a)
            a = heads[a]
    return True


def is_projective(heads: List[int]) -> bool:
    """Every node between an arc's ends is dominated by its head (Nivre 2008, Def. 3)."""
    for d in range(1, len(heads)):
        h = heads[d]
        if h < 0:
            continue
        for k in range(min(h, d) + 1, max(h, d)):
            a = k
            while a not in (h, -1, 0):
                a = heads[a]
            if a != h:
                return False
    return True


def _crossing(heads: List[int]) -> Dict[int, List[int]]:
    """For each dependent, the dependents whose arcs cross its arc (shared ends never cross)."""
    deps = [d for d in range(1, len(heads)) if heads[d] >= 0]
    out = {d: [] for d in deps}
    for i, a in enumerate(deps):
        x1, x2 = sorted((heads[a], a))
        for b in deps[i + 1:]:
            y1, y2 = sorted((heads[b], b))
            if x1 < y1 < x2 < y2 or y1 < x1 < y2 < x2:
                out[a].append(b)
                out[b].append(a)
    return out


def is_planar(heads: List[int]) -> bool:
    """No two arcs cross (root arcs included)."""
    return not any(_crossing(heads).values())


def is_two_planar(heads: List[int]) -> bool:
    """The arcs' crossing graph is bipartite: two planes hold them."""
    cross, colour = _crossing(heads), {}
    for start in cross:
        if start in colour:
            continue
        colour[start], todo = 0, [start]
        while todo:
            a = todo.pop()
            for b in cross[a]:
                if b not in colour:
                    colour[b] = 1 - colour[a]
                    todo.append(b)
                elif colour[b] == colour[a]:
                    return False
    return True


#: class name -> whether a forest belongs to it
TREE_CLASSES: Dict[str, Callable[[List[int]], bool]] = {
    "projective": is_projective, "planar": is_planar, "2planar": is_two_planar, "any": lambda heads: True,
}


def random_projective_tree(rng: random.Random, n: int) -> List[int]:
    """Heads 0..n (heads[0] = -1) of a random projective tree."""
    heads = [-1] + [0] * n

    def build(lo, hi, parent):
        while lo <= hi:
            end = rng.randint(lo, hi)
            h = rng.randint(lo, end)
            heads[h] = parent
            build(lo, h - 1, h)
            build(h + 1, end, h)
            lo = end + 1
    build(1, n, 0)
    return heads


def random_tree(rng: random.Random, n: int) -> List[int]:
    """Heads of a random tree, projective or not (random recursive attachment)."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads, attached = [-1] + [0] * n, [0]
    for node in order:
        heads[node] = rng.choice(attached)
        attached.append(node)
    return heads


def _labels(rng: random.Random, heads: List[int]) -> List[int]:
    return [-1] + [ROOT_LABEL if heads[d] == 0 else rng.randrange(N_LABELS) for d in range(1, len(heads))]


# ---------------------------------------------------------------- the checks

def check_transition_system(cls, options: Optional[dict] = None, n_trees: int = 150, max_words: int = 14,
                            n_cost_trees: int = 60, max_cost_words: int = 4, seed: int = 0,
                            oracle_options: Optional[dict] = None) -> None:
    """Run the module's checks on the system class ``cls`` (with ``options``; default its own) and
    raise :class:`AssertionError` naming the first that fails, with the tree and moves that made
    it fail. ``n_trees`` random trees of up to ``max_words`` words for checks 1-3, and
    ``n_cost_trees`` of up to ``max_cost_words`` for the exhaustive check 4. ``oracle_options``:
    the options the static oracle is checked with (default ``options``), for options that only
    the parse honours."""
    options = dict(options or {})
    oracle_options = options if oracle_options is None else dict(oracle_options)
    rng = random.Random(seed)
    trained = cls(N_LABELS, ROOT_LABEL, **cls.training_configuration(oracle_options))
    parsing = cls(N_LABELS, ROOT_LABEL, **options)
    covers, builds = TREE_CLASSES[trained.covers], TREE_CLASSES[parsing.builds]
    for k in range(n_trees):
        n = 1 + k % max_words
        heads = (random_projective_tree if k % 2 else random_tree)(rng, n)
        labels = _labels(rng, heads)
        _check_oracle(trained, heads, labels, covers(heads))
        _check_random_run(parsing, n, rng, builds)
    if parsing.has_costs:
        exact = TREE_CLASSES[parsing.costs_exact_on]
        for k in range(n_cost_trees):
            n = 1 + k % max_cost_words
            heads = (random_projective_tree if k % 2 else random_tree)(rng, n)
            if exact(heads):
                _check_costs(parsing, heads, _labels(rng, heads), rng)


def _forced(cfg, system) -> Optional[int]:
    """The move the parse loop applies without asking: the only permissible one, if unlabeled."""
    valid = cfg.valid_moves()
    return valid[0] if len(valid) == 1 and not system.labeled[valid[0]] else None


def _check_oracle(system, heads, labels, covered: bool) -> None:
    n = len(heads) - 1
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    bound = system.max_transitions(n)
    moves = []
    while not cfg.is_terminal():
        move, label = _forced(cfg, system), -1
        if move is None:
            move, label = cfg.oracle()
            assert move in cfg.valid_moves(), \
                f"{system.name}: the oracle chose the impermissible {system.moves[move]} on {heads} after {moves}"
        cfg.apply(move, label)
        moves.append(system.moves[move])
        assert len(moves) <= bound, f"{system.name}: the oracle passed the bound of {bound} moves on {heads}"
    built = cfg.heads
    assert is_forest(built), f"{system.name}: the oracle's graph {built} is not a forest (gold {heads})"
    assert all(h in (-1, heads[d]) for d, h in enumerate(built) if d > 0), \
        f"{system.name}: the oracle built a wrong arc on {heads}: {built} ({moves})"
    if covered:
        cfg.finish()      # words left without a head go to the root, as at the end of parsing
        assert cfg.heads == heads, f"{system.name}: the oracle built {cfg.heads} for the gold tree {heads} ({moves})"
        assert cfg.labels[1:] == labels[1:], f"{system.name}: the oracle's labels differ on {heads} ({moves})"


def _check_random_run(system, n, rng, builds) -> None:
    cfg = system.new_configuration(n)
    bound = system.max_transitions(n)
    moves = []
    while not cfg.is_terminal():
        valid = cfg.valid_moves()
        assert valid, f"{system.name}: no permissible move before the end ({moves}, {n} words)"
        move = rng.choice(valid)
        cfg.apply(move, rng.randrange(N_LABELS))
        moves.append(system.moves[move])
        assert cfg.n_transitions <= bound, f"{system.name}: random moves passed the bound of {bound} ({moves})"
    heads = cfg.heads
    assert is_forest(heads), f"{system.name}: random moves {moves} built {heads}, not a forest"
    assert builds(heads), f"{system.name}: random moves {moves} built {heads}, not {system.builds}"
    cfg.finish()
    assert is_forest(cfg.heads) and min(cfg.heads[1:], default=0) >= 0, \
        f"{system.name}: the end of parsing left {cfg.heads} after {moves}, not a tree"


def _replay(system, n, heads, labels, seq):
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    for move, label in seq:
        cfg.apply(move, label)
    return cfg


def tree_loss(cfg, heads, labels, end_attaches_root: bool = True) -> int:
    """Wrong heads or labels after the end of parsing (headless words on the root with the root
    label; with ``end_attaches_root`` False, as a system whose oracle does not count on that end
    says, headless words are wrong)."""
    wrong = 0
    for d in range(1, len(heads)):
        h, l = cfg.heads[d], cfg.labels[d]
        if h < 0 and end_attaches_root:
            h, l = 0, ROOT_LABEL
        wrong += h != heads[d] or l != labels[d]
    return wrong


def _min_loss(system, n, heads, labels, seq, memo) -> int:
    """The smallest loss of any tree reachable after ``seq`` (every move, every label)."""
    cfg = _replay(system, n, heads, labels, seq)
    key = (tuple(cfg.stack), tuple(cfg.buffer), tuple(cfg.aux), cfg.left, cfg.right, cfg.lookahead,
           tuple(cfg.heads), tuple(cfg.labels))
    if key not in memo:
        if cfg.is_terminal():
            memo[key] = tree_loss(cfg, heads, labels, system.end_attaches_root)
        else:
            memo[key] = min(_min_loss(system, n, heads, labels, seq + [step], memo)
                            for step in _steps(system, cfg))
    return memo[key]


def _steps(system, cfg):
    return [(m, label) for m in cfg.valid_moves()
            for label in (range(N_LABELS) if system.labeled[m] else (-1,))]


def _check_costs(system, heads, labels, rng) -> None:
    n = len(heads) - 1
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    seq = []
    for _ in range(rng.randint(0, system.max_transitions(n) // 2)):   # a random configuration
        if cfg.is_terminal():
            break
        step = rng.choice(_steps(system, cfg))
        cfg.apply(*step)
        seq.append(step)
    if cfg.is_terminal():
        return
    memo = {}
    here = _min_loss(system, n, heads, labels, seq, memo)
    costs = cfg.costs()
    assert set(costs) == set(cfg.valid_moves()), f"{system.name}: costs for {sorted(costs)}, not the permissible moves"
    for move, (cost, _) in costs.items():
        labels_of = range(N_LABELS) if system.labeled[move] else (-1,)
        best = min(_min_loss(system, n, heads, labels, seq + [(move, label)], memo) for label in labels_of)
        assert cost == best - here, (f"{system.name}: {system.moves[move]} costs {cost}, exhaustive search says "
                                     f"{best - here} (gold {heads}, labels {labels}, after {seq})")
