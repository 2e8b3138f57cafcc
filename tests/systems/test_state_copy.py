"""state_copy (maltpy/systems/state.pxd): a copied configuration continued with the same moves
gives what the original gives, for every system and option that changes the state's layout
(2-planar's swapped stacks, undirected links, buffer transitions, the tree constraint)."""
import random

from hypothesis import given, settings, strategies as st

from maltpy.systems import SYSTEMS

VARIANTS = [(name, {}) for name in sorted(SYSTEMS)] + [
    ("nivreeager", {"enforce_tree": True}),
    ("nivreeager", {"buffer_transitions": "lba+rba+lnba+rnba"}),
    ("covnonproj", {"allow_shift": True}),
    ("covnonproj", {"undirected": "naive"}),
    ("planar", {"undirected": "naive", "connectedness": "full"}),
    ("2planar", {"undirected": "naive"}),
    ("2planar", {"reduceonswitch": True}),
    ("stacklazy", {"pop_at_end": True}),
]


def _snapshot(c):
    terminal = c.is_terminal()
    return (c.stack, c.buffer, c.aux, c.heads, c.labels, c.links, c.left, c.right, c.lookahead,
            c.end_seen, c.n_transitions, terminal,
            None if terminal else c.valid_moves())   # (a terminal configuration has no next word)


@settings(max_examples=400, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10 ** 9), n=st.integers(1, 14),
       room=st.sampled_from([0, 0, 3]))
def test_a_copy_continued_with_the_same_moves_ends_as_the_original(variant, seed, n, room):
    name, options = variant
    rng = random.Random(seed)
    system = SYSTEMS[name](3, 0, **options)
    original = system.new_configuration(n)
    labeled = system.labeled

    def step(configs):
        valid = configs[0].valid_moves()
        if not valid:
            return False
        move = rng.choice(valid)
        label = rng.randrange(3) if labeled[move] else -1
        for c in configs:
            c.apply(move, label)
        return True

    for _ in range(rng.randint(0, 6 * n)):        # somewhere into the parse
        if original.is_terminal() or not step([original]):
            break
    copy = original.copy(room)
    assert _snapshot(copy) == _snapshot(original)
    for _ in range(20 * n + 20):                  # then both the same way, to the end
        if original.is_terminal() or not step([original, copy]):
            break
        assert _snapshot(copy) == _snapshot(original)
    original.finish()
    copy.finish()
    assert copy.heads == original.heads and copy.labels == original.labels


def test_the_copy_is_independent_of_the_original():
    system = SYSTEMS["2planar"](2, 0)
    c = system.new_configuration(4)
    c.apply(system.moves.index("SH"))
    c.apply(system.moves.index("SW"))       # the stacks' pointers swapped
    d = c.copy()
    before = _snapshot(c)
    d.apply(system.moves.index("RA"), 1)
    assert _snapshot(c) == before and d.heads != c.heads
