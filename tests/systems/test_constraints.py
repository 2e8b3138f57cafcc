"""Constrained parsing (--constraints, parser.parse(..., constraints=True)): the arcs the input
gives are kept wherever the system can build them, for every system with a dynamic oracle."""
import warnings

import pytest
from hypothesis import given, settings, strategies as st

import maltpy
from conftest import EXAMPLES
from maltpy.errors import MaltpyError, MaltpyWarning
from maltpy.formats.conll import read_conll
from maltpy.parsing.parser import Parser
from maltpy.transform.pseudoproj import nonprojective_arcs
from test_dynamic_oracle import N_LABELS, ROOT_LABEL, random_labels, random_projective_tree, random_tree

TRAIN = f"{EXAMPLES}/toy-train.conll"
TEST = f"{EXAMPLES}/toy-test.conll"
SYSTEMS_WITH_COSTS = ["nivreeager", "covnonproj"]


@pytest.fixture(scope="module")
def models():
    train = read_conll(TRAIN, need_heads=True)
    return {a: Parser(algorithm=a, learner="perceptron", oracle="dynamic", verbose=False, jobs=1).fit(train)
            for a in SYSTEMS_WITH_COSTS}


@pytest.fixture(scope="module")
def test_sentences():
    return read_conll(TEST)


def _random_tree(rnd, n, projective):
    """Heads of a random tree over words 1..n (a projective one when asked)."""
    heads = [0] * (n + 1)
    if not projective:
        order = list(range(1, n + 1))
        rnd.shuffle(order)
        heads[order[0]] = 0
        for k, w in enumerate(order[1:], 1):
            heads[w] = order[rnd.randrange(k)]
        return heads[1:]

    heads = random_projective_tree(rnd, n)
    # one word on the root, as the parsers' output may have several but gold trees have one
    roots = [w for w in range(1, n + 1) if heads[w] == 0]
    for w in roots[1:]:
        heads[w] = roots[0] if not _crosses(heads, w, roots[0]) else heads[w]
    return heads[1:]


def _crosses(heads, d, h):
    lo, hi = min(d, h), max(d, h)
    return any((lo < w < hi) != (lo < heads[w] < hi) and heads[w] not in (lo, hi) and w not in (lo, hi)
               for w in range(1, len(heads)) if heads[w] >= 0)


def _with_given(sentence, heads, labels, keep):
    rows = []
    for i, row in enumerate(sentence.rows):
        row = list(row)
        row[6], row[7] = (str(heads[i]), labels[i]) if keep[i] else ("_", "_")
        rows.append(row)
    return type(sentence)(rows, [], 0, "<test>", sentence.format)


@pytest.mark.parametrize("algorithm", SYSTEMS_WITH_COSTS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_given_arcs_of_a_tree_the_system_can_build_are_all_kept(models, test_sentences, algorithm, data):
    p = models[algorithm]
    sentence = data.draw(st.sampled_from(test_sentences))
    rnd = data.draw(st.randoms(use_true_random=False))
    n = len(sentence)
    heads = _random_tree(rnd, n, projective=algorithm == "nivreeager")
    if algorithm == "nivreeager" and nonprojective_arcs([-1] + heads):
        return
    names = [l for l in p.labels if l != p.settings.root_label]
    labels = [p.settings.root_label if h == 0 else rnd.choice(names) for h in heads]
    keep = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    drop_label = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    given_labels = ["_" if d else l for l, d in zip(labels, drop_label)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", MaltpyWarning)     # a lost arc would be a warning
        out = p.parse([_with_given(sentence, heads, given_labels, keep)], constraints=True)[0]
    for i in range(n):
        if keep[i]:
            assert out.heads[i] == heads[i], (heads, keep, out.heads)
            if given_labels[i] != "_":
                assert out.rows[i][7] == given_labels[i]
    # and all of them: the gold tree itself comes out
    full = p.parse([_with_given(sentence, heads, labels, [True] * n)], constraints=True)[0]
    assert full.heads == heads and full.column(7) == labels


@pytest.mark.parametrize("algorithm", SYSTEMS_WITH_COSTS)
def test_without_given_arcs_the_output_is_the_unconstrained_one(models, test_sentences, algorithm, tmp_path):
    p = models[algorithm]
    blank = [_with_given(s, [0] * len(s), ["_"] * len(s), [False] * len(s)) for s in test_sentences]
    free = p.parse(test_sentences)
    assert [s.heads for s in p.parse(blank, constraints=True)] == [s.heads for s in free]
    # and on the command line: the compiled path, byte for byte
    model = str(tmp_path / "m.mpz")
    p.save(model)
    from maltpy.cli.main import main
    from maltpy.formats.conll import write_conll
    write_conll(blank, str(tmp_path / "blank.conll"))
    outs = []
    for extra in ([], ["--constraints", "true"]):
        out = str(tmp_path / f"out{len(extra)}.conll")
        assert main(["-c", model, "-m", "parse", "-i", str(tmp_path / "blank.conll"), "-o", out, "-q"] + extra) == 0
        outs.append(open(out, "rb").read())
    assert outs[0] == outs[1]
    # while the gold file's own arcs, given, come out as they are
    out = str(tmp_path / "gold.conll")
    assert main(["-c", model, "-m", "parse", "-i", TEST, "-o", out, "-q", "--constraints", "true"]) == 0
    gold, parsed = read_conll(TEST), read_conll(out)
    kept = sum(a == b for g, o in zip(gold, parsed) for a, b in zip(g.heads, o.heads))
    assert kept >= 0.95 * sum(len(g) for g in gold)


def test_arcs_no_tree_can_have_are_reported_and_the_output_is_a_tree(models, test_sentences, tmp_path):
    p = models["nivreeager"]
    s = next(s for s in test_sentences if len(s) >= 4)
    n = len(s)
    heads = [2, 1] + [0] * (n - 2)           # a cycle: 1 <- 2 and 2 <- 1
    keep = [True, True] + [False] * (n - 2)
    bad = _with_given(s, heads, ["_"] * n, keep)
    with pytest.warns(MaltpyWarning, match="could not be kept"):
        out = p.parse([bad], constraints=True)[0]
    assert not (out.heads[0] == 2 and out.heads[1] == 1)      # one of the two arcs is lost
    assert out.heads[0] == 2 or out.heads[1] == 1              # the other is kept
    for w in range(1, n + 1):                                  # a tree: every word reaches the root
        seen, x = set(), w
        while x != 0:
            assert x not in seen and 1 <= x <= n
            seen.add(x)
            x = out.heads[x - 1]
    with pytest.raises(MaltpyError, match="could not be kept"):
        p.parse([bad], constraints="strict")
    # the command line names the file and line; strict leaves no output file
    path = tmp_path / "bad.conll"
    from maltpy.formats.conll import write_conll
    write_conll([bad], str(path))
    model = str(tmp_path / "m.mpz")
    p.save(model)
    from maltpy.cli.main import main
    out = tmp_path / "out.conll"
    assert main(["-c", model, "-m", "parse", "-i", str(path), "-o", str(out), "--constraints", "strict", "-q"]) != 0
    assert not out.exists()


def test_a_label_the_model_lacks_is_reported(models, test_sentences):
    p = models["covnonproj"]
    s = test_sentences[0]
    given = _with_given(s, s.heads, ["no-such-label"] * len(s), [True] + [False] * (len(s) - 1))
    with pytest.warns(MaltpyWarning, match="the model has no such label"):
        out = p.parse([given], constraints=True)[0]
    assert out.heads[0] == s.heads[0]      # the head is kept all the same


def test_systems_without_costs_say_which_systems_take_constraints(test_sentences):
    p = Parser(algorithm="stackproj", verbose=False, jobs=1).fit(read_conll(TRAIN, need_heads=True))
    with pytest.raises(MaltpyError, match="nivreeager, covnonproj"):
        p.parse(test_sentences[:1], constraints=True)
    with pytest.raises(MaltpyError, match="True, False or 'strict'"):
        p.parse(test_sentences[:1], constraints="maybe")


# ---------------------------------------------------------------- training on partial trees

def _hide(sentences, rnd, share):
    out = []
    for s in sentences:
        rows = [list(r) for r in s.rows]
        for r in rows:
            if rnd.random() < share:
                r[6], r[7] = "_", "_"
        out.append(type(s)(rows, [], s.first_line, s.source, s.format))
    return out


@pytest.mark.parametrize("algorithm", SYSTEMS_WITH_COSTS)
def test_training_on_trees_with_hidden_arcs_recovers_a_separable_treebank(algorithm):
    import random
    train = read_conll(TRAIN, need_heads=True)
    full = Parser(algorithm=algorithm, learner="perceptron", oracle="dynamic", verbose=False, jobs=1).fit(train)
    partial = Parser(algorithm=algorithm, learner="perceptron", oracle="dynamic", verbose=False, jobs=1).fit(
        _hide(train, random.Random(7), 0.5))

    def uas(p):
        out = p.parse(train)
        return sum(a == b for g, o in zip(train, out) for a, b in zip(g.heads, o.heads)) / sum(map(len, train))
    assert uas(partial) >= 0.9 and uas(partial) >= uas(full) - 0.08


def test_partial_trees_are_refused_where_the_learner_needs_complete_ones(tmp_path):
    import random
    partial = _hide(read_conll(TRAIN, need_heads=True), random.Random(1), 0.3)
    with pytest.raises(MaltpyError, match="train with -l perceptron -or dynamic"):
        Parser(verbose=False).fit(partial)
    with pytest.raises(MaltpyError, match="needs complete trees"):
        Parser(learner="perceptron", oracle="dynamic", marking_strategy="head", verbose=False).fit(partial)
    with pytest.raises(MaltpyError, match="global training .* needs complete trees"):
        Parser(learner="perceptron", oracle="dynamic", beam_width=4, verbose=False).fit(partial)
    blank = _hide(read_conll(TRAIN, need_heads=True)[:30], random.Random(1), 1.0)
    with pytest.raises(MaltpyError, match="no training sentence gives a head"):
        Parser(learner="perceptron", oracle="dynamic", verbose=False).fit(blank)
    # a cycle among the given heads is refused as in a complete tree
    bad = [list(r) for r in partial[0].rows]
    bad[0][6], bad[1][6] = "2", "1"
    with pytest.raises(MaltpyError, match="form a cycle"):
        Parser(learner="perceptron", oracle="dynamic", verbose=False).fit(
            [type(partial[0])(bad, [], 0, "<t>", None)] + partial[1:])


# ---------------------------------------------------------------- arc scores

@pytest.fixture(scope="module")
def conllu_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scores")
    for name in ("toy-train", "toy-test"):     # the toy treebank's rows are CoNLL-U rows too
        (folder / f"{name}.conllu").write_bytes(open(f"{EXAMPLES}/{name}.conll", "rb").read())
    p = maltpy.train(str(folder / "toy-train.conllu"), verbose=False, jobs=1)
    return p, folder


def test_arc_scores_go_into_misc_and_change_no_tree(conllu_model):
    from maltpy.visual.trees import arc_score
    p, folder = conllu_model
    test = read_conll(str(folder / "toy-test.conllu"))
    plain = p.parse(test)
    scored = p.parse(test, arc_scores=True)
    assert [s.heads for s in scored] == [s.heads for s in plain]
    assert [s.column(7) for s in scored] == [s.column(7) for s in plain]
    scores = [arc_score(r) for s in scored for r in s.rows]
    assert all(x is not None and x >= 0 for x in scores) and max(scores) > 0
    # low scores go with errors: the least sure fifth of the arcs holds more errors than the rest
    gold = read_conll(str(folder / "toy-test.conllu"))
    wrong = [a != b for g, s in zip(gold, scored) for a, b in zip(g.heads, s.heads)]
    order = sorted(range(len(scores)), key=scores.__getitem__)
    k = len(order) // 5
    assert sum(wrong[i] for i in order[:k]) / k > sum(wrong) / len(wrong)


def test_arc_scores_on_the_command_line_and_in_pictures(conllu_model, tmp_path):
    p, folder = conllu_model
    model = str(tmp_path / "u.mpz")
    p.save(model)
    from maltpy.cli.main import main
    out = str(tmp_path / "out.conllu")
    assert main(["-c", model, "-m", "parse", "-i", str(folder / "toy-test.conllu"), "-o", out, "--arc-scores",
                 "true", "-q"]) == 0
    assert all("Score=" in r[9] for s in read_conll(out) for r in s.rows)
    from maltpy.cli.draw import cmd_draw
    svg = str(tmp_path / "t.svg")
    cmd_draw([out, "--sentence", "1", "--scores", "-o", svg])
    assert "opacity:" in open(svg).read()


def test_arc_scores_need_conllu(models, test_sentences):
    with pytest.raises(MaltpyError, match="CoNLL-U"):
        models["nivreeager"].parse(test_sentences[:1], arc_scores=True)


# ---------------------------------------------------------------- costs against partial trees

def _hide_gold(rng, gold, labels, share):
    """Hide (-1) each word's gold head, and separately its label, with probability ``share``."""
    for d in range(1, len(gold)):
        if rng.random() < share:
            gold[d] = -1
        if rng.random() < share:
            labels[d] = -1


def _partial_loss(cfg, gold, labels, root_label):
    wrong = 0
    for d in range(1, len(gold)):
        if gold[d] < 0:
            continue
        h, l = cfg.heads[d], cfg.labels[d]
        if h < 0:
            h, l = 0, root_label
        wrong += h != gold[d] or (labels[d] >= 0 and l != labels[d])
    return wrong


@pytest.mark.parametrize("algorithm", SYSTEMS_WITH_COSTS)
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 6), hide=st.floats(0, 1))
def test_costs_against_a_partial_tree_agree_with_brute_force(algorithm, seed, n, hide):
    """Every permissible move costs exactly what the best reachable tree loses of the given arcs
    (exhaustive search), when some heads and labels are not given (-1)."""
    import random
    from maltpy.systems import SYSTEMS
    rng = random.Random(seed)
    gold = (random_projective_tree if algorithm == "nivreeager" else random_tree)(rng, n)
    labels = random_labels(rng, n, gold)
    _hide_gold(rng, gold, labels, hide)
    system = SYSTEMS[algorithm](N_LABELS, ROOT_LABEL)

    def label_for(cfg, move):
        if not system.labeled[move]:
            return -1
        if algorithm == "covnonproj":
            dep = cfg.left if system.moves[move] == "LA" else cfg.right
        else:
            dep = cfg.stack[-1] if system.moves[move] == "LA" else cfg.buffer[0]
        return max(labels[dep], 0)

    def replay(seq):
        cfg = system.new_configuration(n)
        cfg.set_gold(gold, labels)
        for m in seq:
            cfg.apply(m, label_for(cfg, m))
        return cfg

    memo = {}

    def best(seq):
        cfg = replay(seq)
        key = (tuple(cfg.stack), tuple(cfg.buffer), cfg.left, cfg.right, tuple(cfg.heads), tuple(cfg.labels))
        if key not in memo:
            memo[key] = _partial_loss(cfg, gold, labels, ROOT_LABEL) if cfg.is_terminal() else \
                min(best(seq + [m]) for m in cfg.valid_moves())
        return memo[key]

    seq, cfg = [], replay([])
    for _ in range(rng.randint(0, n * (n + 1) // 2)):
        if cfg.is_terminal():
            break
        m = rng.choice(cfg.valid_moves())
        seq.append(m)
        cfg.apply(m, label_for(cfg, m))
    if cfg.is_terminal():
        return
    costs = cfg.costs()
    if costs is None:      # arc-eager with an empty buffer: no oracle needed there
        return
    here = best(seq)
    for move, (cost, zero) in costs.items():
        assert cost == best(seq + [move]) - here, (gold, labels, seq, move, costs)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(2, 16), hide=st.sampled_from([0.0, 0.3, 0.7]),
       options=st.sampled_from([{}, {"allow_root": False}, {"allow_shift": True}]))
def test_covnonproj_quick_costs_are_the_copied_configurations_costs(seed, n, hide, options):
    """Longer sentences than brute force reaches, with the wrong arcs random moves build (and so
    cycles with the gold arcs): the costs computed directly equal those computed on copies."""
    import random
    from maltpy.systems.covnonproj import CovNonProj
    rng = random.Random(seed)
    gold = random_tree(rng, n)
    labels = random_labels(rng, n, gold)
    _hide_gold(rng, gold, labels, hide)
    quick, slow = CovNonProj(N_LABELS, ROOT_LABEL, **options), CovNonProj(N_LABELS, ROOT_LABEL, **options)
    slow.quick = False
    a, b = quick.new_configuration(n), slow.new_configuration(n)
    a.set_gold(gold, labels)
    b.set_gold(gold, labels)
    while not a.is_terminal():
        assert a.costs() == b.costs()
        m = rng.choice(a.valid_moves())
        label = rng.randrange(N_LABELS) if quick.labeled[m] else -1
        a.apply(m, label)
        b.apply(m, label)


# ---------------------------------------------------------------- given root arcs and one root

def _root_given_to_the_last_word(path_in, path_out, second_root=False):
    """The sentences of ``path_in`` with every arc hidden but one: the last word on the root
    (``second_root``: and the first word as well, in sentences of more than two words)."""
    with open(path_in) as f, open(path_out, "w") as g:
        sentence = []
        for line in list(f) + ["\n"]:
            if line.strip():
                sentence.append(line.rstrip("\n").split("\t"))
                continue
            if sentence:
                for k, c in enumerate(sentence):
                    last, first = k == len(sentence) - 1, k == 0 and second_root and len(sentence) > 2
                    c[6], c[7] = ("0", "root") if last or first else ("_", "_")
                    g.write("\t".join(c) + "\n")
                g.write("\n")
                sentence = []


@pytest.mark.parametrize("algorithm", SYSTEMS_WITH_COSTS)
def test_a_given_root_arc_makes_its_word_the_one_root(models, conllu_model, tmp_path, algorithm):
    """The parser's own root is usually not the last word: the one-root step used to keep the
    first root word and demote the given one to dep."""
    from maltpy.cli.main import main
    _, folder = conllu_model
    model, given, out = str(tmp_path / "m.mpz"), str(tmp_path / "given.conllu"), str(tmp_path / "out.conllu")
    maltpy.train(str(folder / "toy-train.conllu"), algorithm=algorithm, learner="perceptron", oracle="dynamic",
                 verbose=False, jobs=1).save(model)
    _root_given_to_the_last_word(str(folder / "toy-test.conllu"), given)
    assert main(["-c", model, "-i", given, "-o", out, "--constraints", "strict", "-q"]) == 0   # both paths
    from_api = maltpy.load(model).parse(read_conll(given), constraints="strict")
    for parsed in (read_conll(out), from_api):
        for s in parsed:
            assert s.heads[-1] == 0 and s.labels[-1] == "root"
            assert s.heads.count(0) == 1


def test_two_given_root_words_warn_or_fail_with_file_and_line(conllu_model, tmp_path, capsys):
    from maltpy.cli.main import main
    _, folder = conllu_model
    model, given, out = str(tmp_path / "m.mpz"), str(tmp_path / "given.conllu"), str(tmp_path / "out.conllu")
    maltpy.train(str(folder / "toy-train.conllu"), algorithm="covnonproj", learner="perceptron", oracle="dynamic",
                 verbose=False, jobs=1).save(model)
    _root_given_to_the_last_word(str(folder / "toy-test.conllu"), given, second_root=True)
    assert main(["-c", model, "-i", given, "-o", out, "--constraints", "strict", "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "given.conllu:" in err and "head 0 (root)" in err and "one word on the root" in err
    assert not (tmp_path / "out.conllu").exists()
    assert main(["-c", model, "-i", given, "-o", out, "--constraints", "true", "-q"]) == 0
    warned = capsys.readouterr().err.splitlines()
    assert warned and all("one word on the root" in w or "more given arcs" in w for w in warned)
    first_line = warned[0].split("given.conllu:")[1].split(":")[0]
    assert open(given).read().splitlines()[int(first_line) - 1].split("\t")[6] == "0"
    for s in read_conll(out):   # the first given root word is the one root
        assert s.heads.count(0) == 1 and s.heads[0] == 0
    with pytest.warns(MaltpyWarning, match="one word on the root"):
        maltpy.load(model).parse(read_conll(given), constraints=True)
