"""Beam search over the decision step and its global training (maltpy/search/beam.pyx; the
spec's test cases 1, 2, 3 and 5 of beam.md §6)."""
import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES
from maltpy.errors import MaltpyError
from maltpy.formats.conll import Sentence, read_conll
from maltpy.parsing.parser import Parser
from maltpy.search.step import Scoring, Walk

TRAIN = f"{EXAMPLES}/toy-train.conll"
TEST = f"{EXAMPLES}/toy-test.conll"
STACK_WORDS = Path(__file__).with_name("stack_words.yaml")


@pytest.fixture(scope="module")
def toy():
    return read_conll(TRAIN, need_heads=True), read_conll(TEST)


@pytest.mark.parametrize("options", [{"learner": "perceptron", "oracle": "dynamic"},
                                     {"algorithm": "covnonproj", "learner": "perceptron", "oracle": "dynamic"},
                                     {"algorithm": "2planar", "learner": "perceptron"}])
def test_the_beam_walk_of_width_one_is_greedy_search(toy, options):
    """Spec 1: the beam's own walk with one item makes the greedy parser's decisions (with float32
    weights: no near ties to settle); -b 1 is the greedy strategy itself."""
    from maltpy.search.beam import beam_parse
    train, test = toy
    p = Parser(verbose=False, jobs=1, **options).fit(train)
    corpus = p.encode(test)
    greedy_heads, greedy_labels = p.strategy().parse(p.search_model(), corpus)
    heads, labels = beam_parse(p.search_model().step(corpus.max_n, Scoring.KEPT_AFRESH), corpus, 1)
    assert heads.tolist() == greedy_heads.tolist() and labels.tolist() == greedy_labels.tolist()
    p.settings.beam_width = 1
    assert type(p.strategy()).__name__ == "Greedy"
    p.settings.beam_width = 3
    assert type(p.strategy()).__name__ == "Beam"


@pytest.mark.parametrize("algorithm", ["nivreeager", "nivrestandard", "covnonproj"])
def test_the_scores_a_beam_remembers_per_node_give_the_same_parses_as_scoring_afresh(toy, algorithm):
    """The per-node caches (buffer front, stack top, their pair) only save work: the same trees
    and nearly the same scores as a beam whose caches are never reused."""
    from maltpy.search.beam import beam_parse
    train, test = toy
    # ZN reads buffer fronts, stack tops and both; covnonproj's cache is Left[i]'s
    features = {"features": "NivreEagerZN"} if algorithm != "covnonproj" else {}
    p = Parser(verbose=False, jobs=1, algorithm=algorithm, learner="perceptron", **features).fit(train)
    corpus = p.encode(test)
    for width in (2, 5):
        cached = p.search_model().step(corpus.max_n, Scoring.CACHED)
        fresh = p.search_model().step(corpus.max_n, Scoring.CACHED_AFRESH)
        assert cached.caches == len(type(p.system(training=False)).cached_address_functions) > 0
        a = beam_parse(cached, corpus, width, nbest=3)
        b = beam_parse(fresh, corpus, width, nbest=3)
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
        for kbest_a, kbest_b in zip(a[2], b[2]):
            assert [t[:2] for t in kbest_a] == [t[:2] for t in kbest_b]
            assert [t[2] for t in kbest_a] == pytest.approx([t[2] for t in kbest_b], rel=1e-5, abs=1e-4)


def _sequences(walker, corpus, k, temperature=0.0, prefix=()):
    """Every complete decision sequence of sentence k with its score (replayed from the start):
    the sum of its decisions' scores, or with ``temperature`` their log-probabilities."""
    walker.begin(corpus, k)
    score = 0.0
    for c in prefix:
        assert walker.next_decision()
        classes, scores = walker.scores()
        mine = float(scores[list(classes).index(c)])
        if temperature:
            scaled = [temperature * float(x) for x in scores]
            top = max(scaled)
            mine = temperature * mine - top - math.log(sum(math.exp(x - top) for x in scaled))
        score += mine
        walker.take(c)
    if not walker.next_decision():
        yield prefix, score, tuple(walker.tree()[0])
        return
    classes, _ = walker.scores()
    for c in classes.tolist():
        yield from _sequences(walker, corpus, k, temperature, prefix + (c,))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(1, 4), scores=st.sampled_from(["sum", "local:0.5"]),
       algorithm=st.sampled_from(["nivreeager", "stackproj"]))
def test_a_wide_beam_finds_the_best_complete_sequence(seed, n, scores, algorithm):
    """Random weights (a perceptron trained a few epochs on random trees with one label; for the
    stack system, which scores without caches, two labels and features that read none, so that
    items differ in what no feature sees), short sentences: the beam's tree is a best-scoring
    complete sequence's, found by enumeration, with raw scores and with log-probabilities."""
    rnd = random.Random(seed)
    train = []
    labels = ["dep"] if algorithm == "nivreeager" else ["dep", "obj"]
    for _ in range(8):
        m = rnd.randint(2, 5)
        words = [f"w{rnd.randrange(6)}" for _ in range(m)]
        heads = [0] + [rnd.randint(1, i) for i in range(1, m)]     # projective: each to an earlier word
        train.append(Sentence.from_words(words, postags=["X"] * m).with_tree(
            heads, ["dep"] + [rnd.choice(labels) for _ in range(m - 1)]))
    features = {} if algorithm == "nivreeager" else {"features": str(STACK_WORDS)}
    p = Parser(algorithm=algorithm, learner="perceptron", learner_options=f"-i 2 -s {seed % 100}", verbose=False,
               jobs=1, root_label="dep", **features).fit(train)
    test = Sentence.from_words([f"w{rnd.randrange(6)}" for _ in range(n)], postags=["X"] * n)
    corpus = p.encode([test])
    # as the beam walks: every move scored, arc-eager's end pops too
    walker = p.search_model().step(corpus.max_n, Scoring.KEPT_AFRESH).walker(Walk.EVERY_MOVE)
    found = list(_sequences(walker, corpus, 0, 0.5 if scores == "local:0.5" else 0.0))
    # spec 1.1 (a): with the end pops scored, every complete arc-eager sequence has 2n moves;
    # the projective stack system shifts each word once and attaches it once
    assert {len(seq) for seq, _, _ in found} == {2 * n}
    best = max(s for _, s, _ in found)
    p.settings.beam_width = max(len(found), 2)
    p.settings.beam_scores = scores
    tree = tuple(p.parse([test])[0].heads)
    assert any(abs(s - best) <= 1e-4 * max(1.0, abs(best)) and t == tree for _, s, t in found), (tree, found)


def test_global_training_learns_a_separable_treebank_and_then_stops_updating():
    """Spec 5: 20 random projective trees of distinct words are learned to 100 % (every tree
    parsed as given) within 20 epochs; spec 3: once the weights make the gold sequence best at
    every step, training makes no update (arc-eager's scored end pops give every sequence 2n
    moves, so no shorter sequence competes with the oracle's)."""
    from conftest import random_projective_tree
    rnd = random.Random(3)
    train, used = [], 0
    for _ in range(20):
        m = rnd.randint(2, 7)
        words = [f"w{used + i}" for i in range(m)]
        used += m
        heads = random_projective_tree(rnd, m)[1:]
        labels = ["a" if h == 0 else rnd.choice(["b", "c"]) for h in heads]
        train.append(Sentence.from_words(words, postags=[f"t{i}" for i in range(m)]).with_tree(heads, labels))
    log = []
    p = Parser(learner="perceptron", learner_options="-i 20 -m 1", beam_width=4, verbose=False, jobs=1,
               root_label="a").fit(train, log=log.append)
    epochs = [line for line in log if line.startswith("epoch")]
    updates = [int(line.split("(")[1].split()[0]) for line in epochs]
    assert len(epochs) == 20 and updates[0] > 0 and updates[-1] == 0
    out = p.parse(train)
    assert [s.heads for s in out] == [s.heads for s in train]
    assert [s.column(7) for s in out] == [s.column(7) for s in train]


def _dense(p):
    """The trained model as {feature key: its weights over the classes}, and the bias (lists)."""
    keys, (indptr, cols, vals, *_), bias = p.splits[0]
    rows = {}
    for r, key in enumerate(keys.tolist()):
        row = [0.0] * p.classes.n_classes
        for c, v in zip(cols[indptr[r]:indptr[r + 1]].tolist(), vals[indptr[r]:indptr[r + 1]].tolist()):
            row[c] = v
        rows[key] = row
    return rows, bias.tolist()


def test_mini_batches_make_the_same_model_on_any_number_of_threads(toy):
    """-lo "-m N": the sentences of a batch are searched on the -j threads with the same weights
    and their updates made in order, so the model depends on N and not on -j."""
    train, test = toy
    models = {}
    for batch, jobs in ((4, 1), (4, 2), (1, 2)):
        p = Parser(learner="perceptron", learner_options=f"-i 3 -m {batch}", beam_width=4, verbose=False,
                   jobs=jobs).fit(train)
        models[batch, jobs] = p
    weights = {key: _dense(p) for key, p in models.items()}
    assert weights[4, 1] == weights[4, 2]
    assert weights[4, 1] != weights[1, 2]
    assert [s.heads for s in models[4, 1].parse(test)] == [s.heads for s in models[4, 2].parse(test)]
    with pytest.raises(MaltpyError, match="-m"):
        Parser(learner="perceptron", learner_options="-m 0", beam_width=4, verbose=False).fit(train)


def test_early_update_trains_too_and_the_options_are_checked(toy):
    train, test = toy
    log = []    # --search beam -b 1: global training with greedy search
    p = Parser(learner="perceptron", learner_options="-i 2", search="beam", verbose=False, jobs=1).fit(
        train, log=log.append)
    assert any("globally, beam 1" in line for line in log) and p.model.trained_globally
    # auto adds the raw scores the model learned to add up; the settings given are left as they were
    assert p.settings.beam_scores == "auto" and p.strategy().temperature == 0
    assert all(len(s.heads) == len(s) for s in p.parse(test))
    p = Parser(learner="perceptron", learner_options="-i 3 -u early", beam_width=4, verbose=False, jobs=1).fit(train)
    assert p.learner.options_string().endswith("-u early")
    assert all(len(s.heads) == len(s) for s in p.parse(test))
    with pytest.raises(MaltpyError, match="-u"):
        Parser(learner="perceptron", learner_options="-u sometimes", verbose=False).fit(train)
    # -or dynamic: the dynamic oracle's gold (spec 2.1), where the system has costs, on complete trees
    log = []
    p = Parser(learner="perceptron", learner_options="-i 2", oracle="dynamic", beam_width=4, verbose=False,
               jobs=1).fit(train, log=log.append)
    assert any("gold from the dynamic oracle" in line for line in log)
    assert all(len(s.heads) == len(s) for s in p.parse(test))
    with pytest.raises(MaltpyError, match="-or static"):
        Parser(algorithm="stackproj", learner="perceptron", oracle="dynamic", beam_width=4, verbose=False).fit(train)
    with pytest.raises(MaltpyError, match="at least 1"):
        Parser(beam_width=0)
    for wrong in ("local:0", "local:-1", "local:x", "sum:2", "softmax"):
        with pytest.raises(MaltpyError, match="beam_scores"):
            Parser(beam_scores=wrong)
    assert Parser(beam_scores="Local:2.5").settings.beam_scores == "local:2.5"


def test_kernel_models_and_records_say_what_a_beam_does_not_do_yet(toy):
    train, test = toy
    p = Parser(verbose=False, jobs=1).fit(train)
    p.settings.beam_width = 4
    with pytest.raises(MaltpyError, match="constraints"):
        p.parse(test[:2], constraints=True)


def test_a_model_trained_with_a_beam_parses_with_it_unless_told_otherwise(toy, tmp_path):
    train, test = toy
    model = str(tmp_path / "b.mpz")
    Parser(learner="perceptron", learner_options="-i 3", beam_width=4, verbose=False, jobs=1).fit(train).save(model)
    from maltpy.cli.parse import parse_overrides
    from maltpy.config import make_settings
    assert "beam_width" not in parse_overrides(make_settings(), set())
    assert parse_overrides(make_settings(beam_width=2), {"beam_width"})["beam_width"] == 2
    from maltpy.cli.main import main
    outs = []
    assert "beam_scores" not in parse_overrides(make_settings(), set())
    assert Parser.load(model).settings.beam_scores == "sum"
    for extra in ([], ["-b", "4", "--beam-scores", "sum"]):
        out = str(tmp_path / f"o{len(outs)}.conll")
        assert main(["-c", model, "-m", "parse", "-i", TEST, "-o", out, "-q"] + extra) == 0
        outs.append(open(out, "rb").read())
    # the model's width and its raw sums (what global training learned to add up) unless told otherwise
    assert outs[0] == outs[1]


def test_a_beam_margin_is_checked_kept_by_the_model_and_changed_at_parse_time(toy, tmp_path, capsys):
    """--beam-margin: a number of at least 0 or none (anything else a one-line error naming the
    flag); learned with it, a model parses with its margin unless the command line names another;
    a margin of 0 keeps only each step's best candidates, a huge one is the plain beam."""
    train, test = toy
    from maltpy.cli.main import main
    for wrong in ("-1", "abc", "nan", "1e999x", ""):
        with pytest.raises(MaltpyError, match="beam_margin"):
            Parser(beam_margin=wrong)
    assert Parser(beam_margin=" None ").settings.beam_margin == "none"
    assert Parser(beam_width=2, beam_margin="1e400").strategy().margin == float("inf")     # infinite: none
    model = str(tmp_path / "m.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-l", "perceptron", "-lo", "-i 3", "-b", "4",
                 "--beam-margin", "0", "-q"]) == 0
    assert main(["-c", model, "-m", "parse", "-i", TEST, "-o", str(tmp_path / "x.conll"), "--beam-margin", "-2",
                 "-q"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--beam-margin" in err[0] and not (tmp_path / "x.conll").exists()
    assert Parser.load(model).settings.beam_margin == "0"
    outs = {}
    for name, extra in (("kept", []), ("zero", ["--beam-margin", "0"]), ("none", ["--beam-margin", "none"]),
                        ("huge", ["--beam-margin", "1e30"]), ("greedy", ["-b", "1"])):
        out = tmp_path / f"{name}.conll"
        assert main(["-c", model, "-m", "parse", "-i", TEST, "-o", str(out), "-q"] + extra) == 0
        outs[name] = out.read_bytes()
    assert outs["kept"] == outs["zero"] and outs["none"] == outs["huge"]
    assert main(["info", model]) == 0
    assert "--beam-margin 0" in capsys.readouterr().out


def test_k_best_parses_and_confidences_come_from_the_final_beam(tmp_path):
    """Spec 6 and 7: the k trees are distinct, well formed, in descending score order, the first
    the 1-best; confidences lie in [0, 1]."""
    folder = tmp_path
    for name in ("toy-train", "toy-test"):
        (folder / f"{name}.conllu").write_bytes(open(f"{EXAMPLES}/{name}.conll", "rb").read())
    import maltpy
    p = maltpy.train(str(folder / "toy-train.conllu"), learner="perceptron", learner_options="-i 4",
                     beam_width=6, verbose=False, jobs=1)
    test = read_conll(str(folder / "toy-test.conllu"))
    best = p.parse(test)
    kbest = p.parse(test, nbest=4)
    for one, k in zip(best, kbest):
        assert 1 <= len(k) <= 4 and k[0].heads == one.heads and k[0].column(7) == one.column(7)
        trees = [(s.heads, s.column(7)) for s in k]
        assert len(set(map(str, trees))) == len(trees)
        scores = [float(dict(e[1][2:].split(" = ") for e in s.extra if e[1].startswith("# "))["score"]) for s in k]
        assert scores == sorted(scores, reverse=True)
        for s in k:
            assert all(0 <= h <= len(s) for h in s.heads)
    conf = p.parse(test, confidence=True)
    values = [float(item[5:]) for s in conf for r in s.rows for item in r[9].split("|") if item.startswith("Conf=")]
    assert len(values) == sum(map(len, test)) and all(0 <= v <= 1.0001 for v in values)
    assert [s.heads for s in conf] == [s.heads for s in best]
    # the command line writes each sentence's parses one after the other
    model = str(tmp_path / "k.mpz")
    p.save(model)
    from maltpy.cli.main import main
    out = str(tmp_path / "k.conllu")
    assert main(["-c", model, "-m", "parse", "-i", str(folder / "toy-test.conllu"), "-o", out, "--nbest", "3",
                 "-q"]) == 0
    written = read_conll(out)
    assert len(test) <= len(written) <= 3 * len(test)
    # maltpy draw --scores shades each arc by its confidence
    confident = str(tmp_path / "c.conllu")
    assert main(["-c", model, "-m", "parse", "-i", str(folder / "toy-test.conllu"), "-o", confident,
                 "--confidence", "true", "-q"]) == 0
    from maltpy.cli.draw import cmd_draw as draw
    svg = str(tmp_path / "c.svg")
    draw([confident, "--sentence", "1", "--scores", "-o", svg])
    first = read_conll(confident)[0]
    shades = [f"opacity:{0.2 + 0.8 * float(item[5:]):.2f}" for r in first.rows for item in r[9].split("|")
              if item.startswith("Conf=")]
    assert shades and all(shade in open(svg).read() for shade in shades)
    with pytest.raises(MaltpyError, match="from a beam"):
        maltpy.load(model, beam_width=1).parse(test, nbest=3)
    with pytest.raises(MaltpyError, match="no option"):
        p.parse(test, beam=3)


@pytest.mark.parametrize("setting", ["beam_width", "nbest"])
def test_a_model_file_with_a_huge_beam_or_nbest_is_refused_in_one_line(toy, tmp_path, setting):
    """A damaged model file (the model fuzz target found it): a width C cannot hold was an
    OverflowError at parse time; it is refused when the file loads, like any bad value."""
    import json
    import zipfile
    import maltpy
    from maltpy.errors import ModelFileError
    train, test = toy
    good = str(tmp_path / "good.mpz")
    Parser(learner="perceptron", learner_options="-i 1", verbose=False, jobs=1).fit(train).save(good)
    bad = str(tmp_path / "bad.mpz")
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "maltpy.json":
                header = json.loads(data)
                header["settings"][setting] = 2 ** 70
                data = json.dumps(header).encode()
            zout.writestr(item, data)
    with pytest.raises(ModelFileError, match="at most"):
        maltpy.load(bad)
    with pytest.raises(MaltpyError, match="at most"):
        Parser(**{setting: 10 ** 6})


def _replay(walker, corpus, k, prefix):
    """Walk sentence k through the decisions ``prefix``; then (permissible classes, scores) of the
    next decision, or None when the sentence is done."""
    walker.begin(corpus, k)
    for c in prefix:
        assert walker.next_decision()
        walker.take(c)
    if not walker.next_decision():
        return None
    classes, scores = walker.scores()
    return classes.tolist(), [float(x) for x in scores]


def _brute_force_update(walker, corpus, k, gold, width, max_violation):
    """Spec 2's update point, from a beam replayed in Python (every item walked again from the
    start): (gold decisions taken, the violating item's decisions or None)."""
    agenda = [((), 0.0, False, True)]          # decisions, score, done, on the gold path
    gold_score, n_gold, worst, update = 0.0, 0, -math.inf, None
    while True:
        gold_cls = None
        if n_gold < len(gold):
            classes, scores = _replay(walker, corpus, k, gold[:n_gold])
            gold_cls = gold[n_gold]
            gold_score += scores[classes.index(gold_cls)]
            n_gold += 1
        candidates, all_done = [], True
        for b, (prefix, score, done, on_gold) in enumerate(agenda):
            nxt = None if done else _replay(walker, corpus, k, prefix)
            if nxt is None:
                candidates.append((score, b, -1))
                agenda[b] = (prefix, score, True, on_gold)
                continue
            all_done = False
            candidates += [(score + s, b, c) for c, s in zip(*nxt)]
        if all_done:
            break
        candidates.sort(key=lambda x: (-x[0], x[1], x[2]))
        agenda = [(agenda[b][0] + ((c,) if c >= 0 else ()), s, agenda[b][2],
                   agenda[b][3] and (c < 0 or c == gold_cls)) for s, b, c in candidates[:width]]
        if agenda[0][3]:
            continue
        if not max_violation:
            if not any(item[3] for item in agenda):
                return gold[:n_gold], list(agenda[0][0])
            continue
        if agenda[0][1] - gold_score > worst:
            worst, update = agenda[0][1] - gold_score, (gold[:n_gold], list(agenda[0][0]))
    if update is None and not agenda[0][3]:
        update = (gold[:n_gold], list(agenda[0][0]))
    return update if update is not None else (gold[:n_gold], None)


def _random_treebank_step(seed, n_sentences, algorithm):
    """A few short random projective trees, a perceptron trained on them for one epoch, and a beam's
    decision step over its weights (every move scored): (sentences, parser, corpus, gold heads,
    gold label ids, step)."""
    from conftest import random_projective_tree
    from maltpy.parsing.encode import gold_arrays
    from maltpy.search import SearchModel
    rnd = random.Random(seed)
    train = []
    for _ in range(n_sentences):
        m = rnd.randint(2, 5)
        heads = random_projective_tree(rnd, m)[1:]
        labels = ["r" if h == 0 else rnd.choice(["a", "b"]) for h in heads]
        train.append(Sentence.from_words([f"w{rnd.randrange(5)}" for _ in range(m)],
                                         postags=[rnd.choice("XY") for _ in range(m)]).with_tree(heads, labels))
    p = Parser(algorithm=algorithm, learner="perceptron", learner_options=f"-i 1 -s {seed % 97}", verbose=False,
               jobs=1, root_label="r").fit(train)
    # the corpus, gold arrays and system as training saw them (its symbol tables hold every value)
    corpus, system = p.encode(train), p.system(training=True)
    heads, label_ids = gold_arrays(train, p.label_ids)
    step = SearchModel(system, p.extractor, p.classes, p.search_model().scorer).step(corpus.max_n, Scoring.KEPT_AFRESH)
    return train, p, corpus, heads, label_ids, step


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10 ** 6), width=st.integers(2, 4))
def test_early_and_max_violation_updates_are_where_a_brute_force_replay_puts_them(seed, width):
    """Spec 4: on small sentences with random weights, early update happens at the first round
    where gold leaves the agenda and max-violation at the round of the largest violation (or at
    the end, when gold survives but loses), as a beam replayed in Python from scratch finds."""
    from maltpy.search.beam import update_point
    train, p, corpus, heads, label_ids, step = _random_treebank_step(seed, 6, "nivreeager")
    walker = step.walker(Walk.EVERY_MOVE)     # as the beam walks
    for k in range(len(train)):
        full, _, _ = update_point(step, corpus, k, heads, label_ids, width, True)
        for max_violation in (False, True):
            gold, viol, at = update_point(step, corpus, k, heads, label_ids, width, max_violation)
            want_gold, want_viol = _brute_force_update(walker, corpus, k, full, width, max_violation)
            assert viol == want_viol
            if viol is not None:
                assert gold[:at] == want_gold


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10 ** 6), width=st.integers(2, 4), algorithm=st.sampled_from(["nivreeager", "covnonproj"]))
def test_dynamic_gold_takes_the_models_best_move_among_those_that_lose_no_gold_arc(seed, width, algorithm):
    """Spec 2.1 (-or dynamic with -b B): the gold sequence rebuilds the gold tree, and at each step
    takes the best-scoring (the first of equals) of the classes whose move loses no gold arc, by
    the system's dynamic oracle (whose costs other tests check against brute force)."""
    from maltpy.search.beam import update_point
    train, p, corpus, heads, label_ids, step = _random_treebank_step(seed, 5, algorithm)
    walker = step.walker(Walk.EVERY_MOVE)     # as the beam walks
    for k, x in enumerate(train):
        gold, _, _ = update_point(step, corpus, k, heads, label_ids, width, True, dynamic_gold=True)
        for i, c in enumerate(gold):
            classes, scores = _replay(walker, corpus, k, gold[:i])
            cost = walker.keep_least_cost(heads, label_ids)
            zero = walker.permissible().tolist()
            if cost < 0:        # no costs here (arc-eager's end pops): the one move there is
                assert zero == classes == [c]
                continue
            assert cost == 0        # projective: nothing lost
            best = max(scores[classes.index(d)] for d in zero)
            assert c == min(d for d in zero if scores[classes.index(d)] == best)
        walker.begin(corpus, k)
        for c in gold:
            assert walker.next_decision()
            walker.take(c)
        # the search stops when the agenda is done: covnonproj's gold may be longer than its items
        if not walker.next_decision():
            tree_heads, tree_labels = walker.tree()
            assert tree_heads == [int(r[6]) for r in x.rows]
            assert [p.labels[l] for l in tree_labels] == [r[7] for r in x.rows]
        else:
            assert algorithm != "nivreeager"        # every arc-eager sequence has 2n moves


def _threshold_beam(walker, corpus, k, width, margin):
    """A beam replayed in Python (every item walked again from the start) that keeps, at each step,
    the best ``width`` of the candidates within ``margin`` of the step's best (better score first,
    then earlier item, then lower class): the final agenda as (decisions, score), best first."""
    agenda = [((), 0.0)]
    while True:
        candidates, moved = [], False
        for prefix, score in agenda:
            decision = _replay(walker, corpus, k, prefix)
            if decision is None:        # a finished item is carried forward with its score
                candidates.append((prefix, score))
                continue
            classes, scores = decision
            candidates.extend((prefix + (c,), score + x) for c, x in zip(classes, scores))
            moved = True
        if not moved:       # every item done
            return agenda
        top = max(score for _, score in candidates)
        agenda = sorted((c for c in candidates if c[1] >= top - margin), key=lambda c: -c[1])[:width]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10 ** 6), width=st.integers(2, 6), margin=st.sampled_from([0.0, 0.01, 0.1, 0.3, 1.0]),
       algorithm=st.sampled_from(["nivreeager", "stackproj", "covnonproj"]))
def test_a_beam_margin_keeps_only_the_candidates_near_each_steps_best(seed, width, margin, algorithm):
    """--beam-margin M (a threshold beam): each step keeps, of its best ``width`` candidates, those
    within M of its best, as a beam replayed in Python finds on random weights and short sentences;
    no margin (infinity) is the plain beam, and any margin gives trees."""
    import numpy as np
    from maltpy.search.beam import beam_parse
    train, p, corpus, heads, label_ids, step = _random_treebank_step(seed, 5, algorithm)
    walker = step.walker(Walk.EVERY_MOVE)     # as the beam walks
    narrowed = beam_parse(step, corpus, width, margin=margin)
    plain = beam_parse(step, corpus, width)
    assert [a.tolist() for a in beam_parse(step, corpus, width, margin=float("inf"))] == [a.tolist() for a in plain]
    for k in range(len(train)):
        r0, r1 = corpus.offsets[k], corpus.offsets[k + 1]
        agenda = _threshold_beam(walker, corpus, k, width, margin)
        walker.begin(corpus, k)
        for c in agenda[0][0]:
            assert walker.next_decision()
            walker.take(c)
        assert not walker.next_decision()
        want = walker.tree()
        got = (narrowed[0][r0 + 1:r1].tolist(), narrowed[1][r0 + 1:r1].tolist())
        # the same best sequence, unless two of the final agenda tie (rounding may order them)
        tied = len(agenda) > 1 and abs(agenda[0][1] - agenda[1][1]) <= 1e-9 * max(1.0, abs(agenda[0][1]))
        assert got == want or tied
        assert np.all(narrowed[0][r0 + 1:r1] >= 0)


@pytest.mark.parametrize("algorithm", sorted(__import__("maltpy.systems", fromlist=["SYSTEMS"]).SYSTEMS))
def test_every_system_trains_globally_and_its_beam_gives_trees(toy, algorithm):
    """Global training and beam search over every transition system (finished items carried
    forward where sequences differ in length): every parse is a tree over the input's words, and
    more than 80 % of the toy test set's heads are right."""
    train, test = toy
    p = Parser(algorithm=algorithm, learner="perceptron", learner_options="-i 3", beam_width=3, verbose=False,
               jobs=1).fit(train)
    out = p.parse(test)
    correct = total = 0
    for gold, s in zip(test, out):
        heads = s.heads
        assert len(heads) == len(gold) and all(0 <= h <= len(heads) for h in heads)
        for i in range(1, len(heads) + 1):      # every word reaches the root: no cycle
            k, steps = i, 0
            while k != 0 and steps <= len(heads):
                k, steps = heads[k - 1], steps + 1
            assert k == 0
        correct += sum(a == b for a, b in zip(heads, gold.heads))
        total += len(heads)
    assert correct / total > 0.8


def _final_agendas(step, corpus, switch, value):
    """The n-best trees (with their scores) and confidences of a beam of 4 with a test switch of
    :mod:`maltpy.search.beam` (``_score_alike``, ``_copy_everything``) set to ``value``."""
    import numpy as np
    from maltpy.search.beam import beam_parse
    before = switch(value)
    try:
        confidence = np.zeros(corpus.n_rows, dtype=np.float32)
        heads, labels, kbest = beam_parse(step, corpus, 4, nbest=4, confidence_out=confidence)
    finally:
        switch(before)
    return heads.tolist(), labels.tolist(), kbest, confidence.tolist()


@pytest.mark.parametrize("algorithm", sorted(__import__("maltpy.systems", fromlist=["SYSTEMS"]).SYSTEMS))
def test_items_reading_the_same_features_are_scored_once_to_the_same_parses(toy, algorithm):
    """Items of a round whose decisions read the same keys and allow the same classes take the
    scores of the first of them: the final agendas (n-best trees with their scores,
    confidences) are those of a beam that scores every item, system by system."""
    from maltpy.search.beam import _score_alike
    from maltpy.search.step import Scoring
    train, test = toy
    p = Parser(algorithm=algorithm, learner="perceptron", learner_options="-i 2", verbose=False, jobs=1).fit(train)
    corpus = p.encode(test)
    step = p.search_model().step(corpus.max_n, Scoring.CACHED)
    assert step.keys_first
    assert _final_agendas(step, corpus, _score_alike, True) == _final_agendas(step, corpus, _score_alike, False)


@pytest.mark.parametrize("algorithm,undirected,options", [(a, "none", {}) for a in sorted(
    __import__("maltpy.systems", fromlist=["SYSTEMS"]).SYSTEMS)] + [
    ("covnonproj", "label", {}), ("2planar", "naive", {}), ("nivreeager", "none", {"enforce_tree": True}),
    ("nivreeager", "none", {"buffer_transitions": "lba+rnba"}), ("stacklazy", "none", {"roots": "one"})])
def test_a_beam_copies_of_a_configuration_what_its_system_reads(toy, algorithm, undirected, options):
    """A system that declares it reads neither the union-find and links nor the log of arcs has
    its beam's copies leave them out: the final agendas (n-best trees, confidences) are those of
    copies that carry everything, system by system, undirected parsing included."""
    from maltpy.search.beam import _copy_everything
    train, test = toy
    p = Parser(algorithm=algorithm, learner="perceptron", learner_options="-i 2", undirected=undirected,
               verbose=False, jobs=1, **options).fit(train)
    corpus = p.encode(test)
    step = p.search_model().step(corpus.max_n, Scoring.KEPT)
    system = p.system(training=False)
    assert system.copy_links_and_union_find == (type(system).reads_union_find or undirected != "none")
    assert system.copy_arc_log == type(system).reads_arc_log
    assert _final_agendas(step, corpus, _copy_everything, False) == _final_agendas(step, corpus, _copy_everything, True)
