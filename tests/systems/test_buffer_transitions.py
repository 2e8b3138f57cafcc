"""Buffer transitions for arc-eager (Fernández-González & Gómez-Rodríguez 2012): the spec's unit
tests and oracle sequences (../shared/spec/buffer_reverse.md §5.1-5.3) and property tests."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError
from maltpy.systems import NivreEager
from maltpy.systems.nivreeager import parse_buffer_transitions
from conftest import is_forest, is_projective, random_projective_tree, random_tree

LABELS = ["A", "ADV", "B", "C", "DET", "NMOD", "OBJ", "PRED", "R", "ROOT", "SBJ", "X", "Y", "dep"]
LID = {l: k for k, l in enumerate(LABELS)}
SYSTEMS = ["none", "lba", "rba", "lnba", "rnba"]


def make(bt="none", **opts):
    return NivreEager(len(LABELS), LID["ROOT"], buffer_transitions=bt, **opts)


def move(system, name):
    return system.moves.index(name)


def oracle_run(system, heads, labels):
    """Follow the static oracle to the end; return the configuration and the sequence."""
    n = len(heads) - 1
    cfg = system.new_configuration(n)
    cfg.set_gold(heads, labels)
    seq = []
    while not cfg.is_terminal():
        m, label = cfg.oracle()
        assert m in cfg.valid_moves(), f"the oracle chose {system.moves[m]}, which is not permissible"
        cfg.apply(m, label)
        seq.append(system.moves[m] + (f"_{LABELS[label]}" if label >= 0 else ""))
        assert len(seq) <= 2 * n + 2
    cfg.finish()
    return cfg, seq


def gold(spec):
    """{dependent: (head, label)} -> heads and label ids with the root at 0."""
    n = len(spec)
    heads, labels = [-1] * (n + 1), [-1] * (n + 1)
    for d, (h, l) in spec.items():
        heads[d], labels[d] = h, LID[l]
    return heads, labels


# ------------------------------------------------------------------ §5.1 transitions

def test_each_buffer_transition_effect():
    for bt, stack, buf, arc in [("lba", [0], [2, 3], (1, 2)), ("rba", [0], [1, 3], (2, 1))]:
        s = make(bt)
        cfg = s.new_configuration(3)
        cfg.apply(move(s, bt.upper()), LID["dep"])
        d, h = arc
        assert cfg.stack == stack and cfg.buffer == buf and cfg.heads[d] == h and cfg.labels[d] == LID["dep"]
    for bt, stack, buf, arc in [("lnba", [0], [2, 3], (1, 3)), ("rnba", [0, 1], [2], (3, 1))]:
        s = make(bt)
        cfg = s.new_configuration(3)
        cfg.apply(0)
        cfg.apply(move(s, bt.upper()), LID["dep"])
        d, h = arc
        assert cfg.stack == stack and cfg.buffer == buf and cfg.heads[d] == h


def test_validity():
    s = make("lba+rba+lnba+rnba")
    names = lambda cfg: {s.moves[m] for m in cfg.valid_moves()}  # noqa: E731
    cfg = s.new_configuration(2)
    assert {"LBA", "RBA", "RNBA"} <= names(cfg) and "LNBA" not in names(cfg)   # s0 = 0: no LNBA
    cfg = s.new_configuration(1)
    assert not names(cfg) & {"LBA", "RBA", "LNBA", "RNBA"}          # one buffer word
    cfg = s.new_configuration(3)
    cfg.apply(move(s, "RNBA"), LID["R"])                             # RNBA from the root: a root arc
    assert cfg.heads[2] == 0 and cfg.buffer == [1, 3]
    cfg.apply(move(s, "RA"), LID["X"])                               # 0 -> 1: 1 has a head
    assert cfg.stack == [0, 1] and "LNBA" not in names(cfg) and "LA" not in names(cfg)


def test_rba_twice_builds_a_longer_arc_and_lba_equals_shift_left_arc():
    s = make("rba")
    cfg = s.new_configuration(3)
    cfg.apply(move(s, "RBA"), 0)
    cfg.apply(move(s, "RBA"), 0)
    assert cfg.heads[2] == 1 and cfg.heads[3] == 1 and cfg.buffer == [1]
    a, b = make("lba"), make("lba")
    x, y = a.new_configuration(4), b.new_configuration(4)
    x.apply(move(a, "LBA"), 1)
    y.apply(0)
    y.apply(move(b, "LA"), 1)
    assert (x.stack, x.buffer, x.heads, x.labels) == (y.stack, y.buffer, y.heads, y.labels)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 12))
def test_random_moves_keep_the_invariants(seed, n):
    """No buffer word ever has a head; single head, no cycle; at most 2n moves; a tree after finish."""
    rng = random.Random(seed)
    s = make("lba+rba+lnba+rnba")
    cfg = s.new_configuration(n)
    steps = 0
    while not cfg.is_terminal():
        cfg.apply(rng.choice(cfg.valid_moves()), rng.randrange(len(LABELS)))
        steps += 1
        assert all(cfg.heads[b] == -1 for b in cfg.buffer)
        assert is_forest(cfg.heads)
    assert steps <= 2 * n
    cfg.finish()
    assert all(h >= 0 for h in cfg.heads[1:]) and is_forest(cfg.heads)


def test_setting_values():
    assert parse_buffer_transitions("RNBA+lba") == "lba+rnba"
    assert parse_buffer_transitions(None) == parse_buffer_transitions("") == "none"
    with pytest.raises(MaltpyError, match="'xba' is not one of lba, rba, lnba, rnba"):
        parse_buffer_transitions("lba+xba")


# ------------------------------------------------------------------ §5.2 oracle sequences

E1 = {1: (2, "SBJ"), 2: (0, "ROOT"), 3: (5, "DET"), 4: (5, "NMOD"), 5: (2, "PRED")}
E2 = {1: (2, "SBJ"), 2: (0, "ROOT"), 3: (2, "OBJ")}
E3 = {1: (2, "SBJ"), 2: (0, "ROOT"), 3: (2, "OBJ"), 4: (2, "ADV")}
E4 = {1: (2, "DET"), 2: (3, "SBJ"), 3: (0, "ROOT")}
E5 = {1: (3, "A"), 2: (1, "B"), 3: (4, "C"), 4: (0, "ROOT")}
E6 = {1: (3, "A"), 2: (1, "B"), 3: (0, "ROOT")}
E7 = {1: (2, "A"), 2: (0, "ROOT"), 3: (1, "C")}
E8 = {1: (3, "A"), 2: (0, "ROOT"), 3: (2, "C")}
E10 = {1: (0, "R"), 2: (1, "X"), 3: (2, "Y")}

SEQUENCES = [
    (E1, "none", "SH LA_SBJ RA_ROOT SH SH LA_NMOD LA_DET RA_PRED"),
    (E1, "lba", "LBA_SBJ RA_ROOT SH LBA_NMOD LA_DET RA_PRED"),
    (E1, "rba", "SH LA_SBJ RA_ROOT SH SH LA_NMOD LA_DET RA_PRED"),
    (E1, "lnba", "SH LA_SBJ RA_ROOT SH LNBA_DET SH LA_NMOD RA_PRED"),
    (E1, "rnba", "SH LA_SBJ RA_ROOT SH SH LA_NMOD LA_DET RA_PRED"),
    (E2, "none", "SH LA_SBJ RA_ROOT RA_OBJ"),
    (E2, "lba", "LBA_SBJ RA_ROOT RA_OBJ"),
    (E2, "rba", "SH RBA_OBJ LA_SBJ RA_ROOT"),
    (E3, "none", "SH LA_SBJ RA_ROOT RA_OBJ RE RA_ADV"),
    (E3, "lba", "LBA_SBJ RA_ROOT RA_OBJ RE RA_ADV"),
    (E3, "rba", "SH RBA_OBJ LA_SBJ RA_ROOT RA_ADV"),
    (E3, "lnba", "SH LA_SBJ RA_ROOT RA_OBJ RE RA_ADV"),
    (E3, "rnba", "SH LA_SBJ RA_ROOT RNBA_ADV RA_OBJ"),
    (E4, "none", "SH LA_DET SH LA_SBJ RA_ROOT"),
    (E4, "lba", "LBA_DET LBA_SBJ RA_ROOT"),
    (E5, "none", "SH RA_B RE LA_A SH LA_C RA_ROOT"),
    (E5, "lba", "SH RA_B RE LA_A LBA_C RA_ROOT"),
    (E5, "rba", "RBA_B SH LA_A SH LA_C RA_ROOT"),
    (E6, "lnba", "SH RA_B RE LA_A RA_ROOT"),
    (E7, "rnba", "SH RNBA_C LA_A RA_ROOT"),
    (E8, "lnba", "SH LNBA_A RA_ROOT RA_C"),
    (E10, "none", "RA_R RA_X RA_Y"),
    (E10, "rba", "RA_R RBA_Y RA_X"),
]
#: the paper's other oracle policy for LBA and RBA, "whatever the length" (-bal any)
ANY_LENGTH_SEQUENCES = [
    (E3, "rba", "SH RBA_OBJ RBA_ADV LA_SBJ RA_ROOT"),
    (E3, "lba", "LBA_SBJ RA_ROOT RA_OBJ RE RA_ADV"),   # no gap in the buffer: the same as length 1
    (E1, "lba+rba", "LBA_SBJ RA_ROOT SH LBA_NMOD LA_DET RA_PRED"),
]


@pytest.mark.parametrize("spec,bt,expected", SEQUENCES)
def test_oracle_sequences_of_the_spec(spec, bt, expected):
    heads, labels = gold(spec)
    cfg, seq = oracle_run(make(bt), heads, labels)
    assert " ".join(seq) == expected
    if is_projective(heads) or bt in ("lnba", "rnba"):
        assert cfg.heads[1:] == heads[1:] and cfg.labels[1:] == labels[1:]


@pytest.mark.parametrize("spec,bt,expected", ANY_LENGTH_SEQUENCES)
def test_oracle_sequences_of_the_spec_with_any_length(spec, bt, expected):
    heads, labels = gold(spec)
    cfg, seq = oracle_run(make(bt, buffer_arc_length="any"), heads, labels)
    assert " ".join(seq) == expected
    assert cfg.heads[1:] == heads[1:] and cfg.labels[1:] == labels[1:]     # E1 and E3 are projective


def test_e7_and_e8_need_their_non_projective_transition():
    """MaltParser's base oracle on E7 loses one head (SH LA RA RE SH); RNBA recovers it."""
    for spec, bt in ((E7, "rnba"), (E8, "lnba")):
        heads, labels = gold(spec)
        plain, _ = oracle_run(make(), heads, labels)
        better, _ = oracle_run(make(bt), heads, labels)
        assert better.heads == heads and plain.heads != heads


# ------------------------------------------------------------------ §5.3 properties

def _random_labels(rng, n):
    return [-1] + [rng.randrange(len(LABELS)) for _ in range(n)]


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 25))
def test_oracle_rebuilds_every_projective_tree_and_sequence_lengths(seed, n):
    """P1 (gold rebuilt, labels too, with either policy for LBA/RBA), P2 (length = n + pops), P3,
    P4, P5, P6."""
    rng = random.Random(seed)
    heads = random_projective_tree(rng, n)
    labels = _random_labels(rng, n)
    runs = {}
    for bt, length in [(bt, "one") for bt in SYSTEMS] + [("lba", "any"), ("rba", "any"), ("lba+rba", "any")]:
        opts = {"buffer_arc_length": length} if length == "any" else {}
        cfg, seq = oracle_run(make(bt, **opts), heads, labels)
        assert cfg.heads[1:] == heads[1:] and cfg.labels[1:] == labels[1:], (bt, length)
        kinds = [m.split("_")[0] for m in seq]
        assert len(seq) == n + sum(k in ("LA", "RE", "LNBA") for k in kinds)          # P2
        runs[bt if length == "one" else f"{bt} any"] = kinds
    ne = len(runs["none"])
    assert ne - len(runs["lba"]) == runs["lba"].count("LBA")                           # P3
    assert runs["lba any"] == runs["lba"]           # LBA alone leaves no gap: length 1 all along
    for rba in ("rba", "rba any"):
        assert 0 <= ne - len(runs[rba]) <= runs[rba].count("RBA")                      # P4
    assert len(runs["lnba"]) == ne                                                      # P5
    assert all(len(kinds) <= ne for kinds in runs.values())                             # P6


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(2, 25))
def test_projective_buffer_arcs_of_the_oracle_have_length_one(seed, n):
    """P7: with the length-1 policy every LBA/RBA arc has length 1."""
    rng = random.Random(seed)
    heads = random_projective_tree(rng, n)
    labels = _random_labels(rng, n)
    for bt in ("lba", "rba", "lba+rba"):
        s = make(bt)
        cfg = s.new_configuration(n)
        cfg.set_gold(heads, labels)
        while not cfg.is_terminal():
            m, label = cfg.oracle()
            name = s.moves[m]
            before = cfg.buffer[:2]
            cfg.apply(m, label)
            if name in ("LBA", "RBA"):
                assert before[1] - before[0] == 1


@settings(max_examples=500, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(2, 16))
def test_non_projective_buffer_transitions_recover_at_least_as_much(seed, n):
    """P8: on any tree, LNBA and RNBA never recover fewer gold heads than plain arc-eager; the
    oracle's output is a tree; LBA and RBA recover the same number, with either length policy."""
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    labels = _random_labels(rng, n)
    correct = {}
    for bt in SYSTEMS + ["rba any", "lba+rba any"]:
        opts = {"buffer_arc_length": "any"} if bt.endswith(" any") else {}
        cfg, _ = oracle_run(make(bt.split()[0], **opts), heads, labels)
        assert all(h >= 0 for h in cfg.heads[1:]) and is_forest(cfg.heads)
        correct[bt] = sum(cfg.heads[d] == heads[d] for d in range(1, n + 1))
    assert correct["lnba"] >= correct["none"] and correct["rnba"] >= correct["none"]
    assert correct["lba"] == correct["none"] == correct["rba"] == correct["rba any"] == correct["lba+rba any"]


def test_any_length_policy_builds_longer_buffer_arcs_somewhere():
    """-bal any: RBA takes gold arcs of length > 1 between b0 and b1 (gaps left by earlier RBAs),
    which the length-1 policy leaves to RIGHT-ARC; every arc it builds links the first two
    buffer words."""
    rng = random.Random(11)
    longer = 0
    for _ in range(200):
        n = rng.randint(3, 12)
        heads = random_projective_tree(rng, n)
        labels = _random_labels(rng, n)
        s = make("rba", buffer_arc_length="any")
        cfg = s.new_configuration(n)
        cfg.set_gold(heads, labels)
        while not cfg.is_terminal():
            m, label = cfg.oracle()
            first_two = cfg.buffer[:2]
            cfg.apply(m, label)
            if s.moves[m] == "RBA":
                assert heads[first_two[1]] == first_two[0]
                longer += first_two[1] - first_two[0] > 1
    assert longer > 0


def test_after_lnba_built_an_arc_of_b1_the_oracle_does_not_pop_a_word_still_owed_arcs():
    """Gold 1<-4, 2<-1, 3<-0, 4<-5, 5<-3, 6<-5, 7<-5, 8<-3: LNBA attaches 1 to 4 (across 3's arc
    0->3); when 4 is at the front with 3 on top, MaltParser's rule (REDUCE: 4's leftmost gold
    dependent is left of the top) would pop 3 and lose 3->5 and 3->8, below plain arc-eager."""
    heads = [-1, 4, 1, 0, 5, 3, 5, 5, 3]
    labels = [-1] + [LID["dep"]] * 8
    base, _ = oracle_run(make(), heads, labels)
    cfg, seq = oracle_run(make("lnba"), heads, labels)
    assert "LNBA" in [m.split("_")[0] for m in seq]
    assert cfg.heads[1:] == heads[1:]
    assert sum(base.heads[d] == heads[d] for d in range(1, 9)) == 7


def test_after_lnba_popped_a_word_the_oracle_does_not_pop_a_top_still_owed_arcs_for_nothing():
    """Gold 1<-6, 2<-0, 3<-4, 4<-2, 5<-7, 6<-7, 7<-4, 8<-4, 9<-6 (6->1 crosses 2->4): LNBA attaches 5
    to 7 and pops it, leaving 4 on top with 6 at the front. MaltParser's rule (REDUCE: 6's leftmost
    gold dependent 1 is left of the top) would pop 4 and lose 4->7 and 4->8, though 2, headless,
    keeps 6 from reaching 1 anyway: 5 heads instead of plain arc-eager's 7."""
    heads = [-1, 6, 0, 4, 2, 7, 7, 4, 4, 6]
    labels = [-1] + [LID["dep"]] * 9
    base, _ = oracle_run(make(), heads, labels)
    assert sum(base.heads[d] == heads[d] for d in range(1, 10)) == 7
    for bt in ("lnba", "lba+rba+lnba+rnba"):
        cfg, seq = oracle_run(make(bt), heads, labels)
        assert "LNBA" in [m.split("_")[0] for m in seq]
        assert sum(cfg.heads[d] == heads[d] for d in range(1, 10)) == 7, bt


@pytest.mark.parametrize("buffer_oracle", ["always", "needed"])
def test_non_projective_transitions_recover_strictly_more_somewhere(buffer_oracle):
    rng = random.Random(5)
    better = {"lnba": 0, "rnba": 0}
    for _ in range(400):
        n = rng.randint(3, 10)
        heads = random_tree(rng, n)
        labels = _random_labels(rng, n)
        base, _ = oracle_run(make(), heads, labels)
        for bt in better:
            cfg, _ = oracle_run(make(bt, buffer_oracle=buffer_oracle), heads, labels)
            better[bt] += sum(cfg.heads[d] == heads[d] for d in range(1, n + 1)) > \
                sum(base.heads[d] == heads[d] for d in range(1, n + 1))
    assert better["lnba"] > 0 and better["rnba"] > 0


def test_buffer_transitions_train_parse_and_are_refused_elsewhere(tmp_path):
    """-bt trains and parses through the command; with another algorithm it is a one-line error."""
    import subprocess
    import sys
    from conftest import EXAMPLES
    train, test = f"{EXAMPLES}/toy-train.conll", f"{EXAMPLES}/toy-test.conll"
    model = str(tmp_path / "bt.mpz")
    run = lambda *a: subprocess.run([sys.executable, "-m", "maltpy", *a], capture_output=True, text=True,  # noqa: E731
                                    cwd=str(tmp_path))
    assert run("-c", model, "-m", "learn", "-i", train, "-bt", "rnba+lba").returncode == 0
    import maltpy
    parser = maltpy.load(model)
    assert parser.settings.buffer_transitions == "lba+rnba"
    assert parser.classes.n_classes == 3 + 4 * len(parser.labels)
    r = run("-c", model, "-i", test)
    assert r.returncode == 0 and r.stdout.count("\n\n") == len(maltpy.read_conll(test))
    r = run("-c", model, "-m", "learn", "-i", train, "-a", "nivrestandard", "-bt", "lba")
    assert r.returncode == 1 and "use it with -a nivreeager" in r.stderr and r.stderr.count("\n") == 1


def test_feature_search_adds_only_candidates_that_gain_on_the_training_part():
    """Forward selection keeps the base model first, adds at most one candidate per round and only
    one that scored at least min_gain above the model before it; with an unreachable gain it adds
    nothing. Every score is a LAS on the training data's own held-out part."""
    from conftest import EXAMPLES
    from maltpy.experiments.feature_search import forward_selection
    from maltpy.formats.conll import read_conll
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    base = ["InputColumn(POSTAG, Stack[0])", "InputColumn(POSTAG, Input[0])"]
    candidates = ["InputColumn(FORM, Input[0])", "InputColumn(FORM, Stack[0])", "OutputColumn(DEPREL, Stack[0])"]
    settings = dict(algorithm="nivreeager", input_format="conllx", verbose=False, jobs=1, buffer_transitions="lba")
    chosen, history = forward_selection(train, base, candidates, settings, inner_holdout=0.2, rounds=2, min_gain=0.0)
    assert chosen[:2] == base and len(chosen) <= 4 and set(chosen[2:]) <= set(candidates)
    assert history[0][0][0] == "(base)" and all(0 <= las <= 100 for r in history for _, las in r)
    for k, added in enumerate(chosen[2:], 1):       # each addition was its round's best and gained
        assert history[k][0][0] == added and history[k][0][1] >= history[k - 1][0][1]
    assert len(history[1]) == len(candidates)
    chosen, history = forward_selection(train, base, candidates, settings, inner_holdout=0.2, rounds=2,
                                        min_gain=101.0)
    assert chosen == base and len(history) == 2


@pytest.mark.parametrize("bt, model", [("none", "nivreeager"), ("lba", "nivreeager"), ("rba", "nivreeagerbuffer"),
                                       ("lba+rba", "nivreeagerbuffer"), ("rnba", "nivreeager")])
def test_rba_defaults_to_a_model_that_reads_the_buffer_words_right_dependents(bt, model):
    """RIGHT-BUFFER-ARC gives buffer words right dependents, which MaltParser's NivreEager model never
    reads; its default model does."""
    import maltpy
    from maltpy.formats.conll import read_conll
    from conftest import EXAMPLES
    train = read_conll(f"{EXAMPLES}/toy-train.conll", need_heads=True)
    p = maltpy.train(train, algorithm="nivreeager", buffer_transitions=bt, verbose=False, jobs=1)
    assert p.feature_model.name == model
    reads_it = [str(f) for f in p.feature_model.features if "rdep(Input[0])" in str(f)]
    assert bool(reads_it) == (model == "nivreeagerbuffer")


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(2, 14))
def test_needed_oracle_takes_non_projective_buffer_arcs_only_where_arc_eager_cannot(seed, n):
    """-bo needed: LNBA/RNBA fire only when b0 is not a gold dependent of the arc's head, and the
    oracle still outputs a tree with at least arc-eager's correct heads (every projective tree
    rebuilt); where the two oracles first differ, the paper's took LNBA/RNBA with b0 a gold
    dependent of the arc's head."""
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    labels = _random_labels(rng, n)
    base, _ = oracle_run(make(), heads, labels)
    for bt in ("lnba", "rnba"):
        s = make(bt, buffer_oracle="needed")
        cfg = s.new_configuration(n)
        cfg.set_gold(heads, labels)
        paper = make(bt).new_configuration(n)
        paper.set_gold(heads, labels)
        together = True
        while not cfg.is_terminal():
            m, label = cfg.oracle()
            if bt == "lnba":   # the arc's head: b1 for LNBA, the stack top for RNBA
                arc_head = cfg.buffer[1] if len(cfg.buffer) > 1 else None
            else:
                arc_head = cfg.stack[-1]
            b0_depends_on_it = heads[cfg.buffer[0]] == arc_head
            if s.moves[m] == bt.upper():
                assert not b0_depends_on_it
            if together:
                pm, plabel = paper.oracle()
                if pm != m:
                    assert s.moves[pm] == bt.upper() and b0_depends_on_it
                    together = False
                else:
                    paper.apply(pm, plabel)
            cfg.apply(m, label)
        cfg.finish()
        assert all(h >= 0 for h in cfg.heads[1:]) and is_forest(cfg.heads)
        correct = sum(cfg.heads[d] == heads[d] for d in range(1, n + 1))
        assert correct >= sum(base.heads[d] == heads[d] for d in range(1, n + 1))
        if is_projective(heads):
            assert cfg.heads[1:] == heads[1:] and cfg.labels[1:] == labels[1:]


def test_buffer_oracle_setting(tmp_path):
    """-bo is stored in the model; without LNBA or RNBA, or with a value it does not know, it is a
    one-line error."""
    import subprocess
    import sys
    import maltpy
    from conftest import EXAMPLES
    train = f"{EXAMPLES}/toy-train.conll"
    model = str(tmp_path / "bo.mpz")
    run = lambda *a: subprocess.run([sys.executable, "-m", "maltpy", *a], capture_output=True, text=True,  # noqa: E731
                                    cwd=str(tmp_path))
    assert run("-c", model, "-m", "learn", "-i", train, "-bt", "rnba", "-bo", "needed").returncode == 0
    assert maltpy.load(model).settings.buffer_oracle == "needed"
    # a combination the settings refuse is an error (1); a value the flag cannot take, a usage error (2)
    for args, message, status in ((("-bt", "lba", "-bo", "needed"), "use it with -bt lnba or rnba", 1),
                                  (("-bt", "lnba", "-bo", "sometimes"), "buffer_oracle must be one of always, needed",
                                   2)):
        r = run("-c", model, "-m", "learn", "-i", train, *args)
        assert r.returncode == status and message in r.stderr and r.stderr.count("\n") == 1, r.stderr
    with pytest.raises(MaltpyError, match="buffer_oracle"):
        make("lnba", buffer_oracle="sometimes")


def test_buffer_arc_length_setting(tmp_path):
    """-bal is stored in the model and trains a different oracle; without LBA or RBA, or with a value
    it does not know, it is a one-line error."""
    import subprocess
    import sys
    import maltpy
    from conftest import EXAMPLES
    train = f"{EXAMPLES}/toy-train.conll"
    model = str(tmp_path / "bal.mpz")
    run = lambda *a: subprocess.run([sys.executable, "-m", "maltpy", *a], capture_output=True, text=True,  # noqa: E731
                                    cwd=str(tmp_path))
    assert run("-c", model, "-m", "learn", "-i", train, "-bt", "rba", "-bal", "any").returncode == 0
    parser = maltpy.load(model)
    assert parser.settings.buffer_arc_length == "any"
    heads, _ = gold(E3)                       # the model's system follows the any-length oracle
    system = parser.system(training=True)
    _, seq = oracle_run(system, heads, [-1] + [0] * 4)
    assert [m.split("_")[0] for m in seq] == "SH RBA RBA LA RA".split()
    r = run("-c", model, "-m", "learn", "-i", train, "-bt", "lnba", "-bal", "any")
    assert r.returncode == 1 and "use it with -bt lba or rba" in r.stderr and r.stderr.count("\n") == 1
    r = run("-c", model, "-m", "learn", "-i", train, "-bt", "rba", "-bal", "two")
    assert r.returncode == 2 and "buffer_arc_length must be one of one, any" in r.stderr and r.stderr.count("\n") == 1
    with pytest.raises(MaltpyError, match="buffer_arc_length"):
        make("rba", buffer_arc_length="two")
