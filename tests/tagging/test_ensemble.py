"""Ensembles of taggers (``Tagger(ensemble=K)``, ``--tagger-ensemble K``): members that read
right to left, the vote, the model file, and the compiled path."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.formats.conll import read_conll
from maltpy.tagging.tagger import Tagger, reads_backwards, reversed_order, reversed_words, sentence_blocks
from maltpy.tagging.words import words_of

from conftest import EXAMPLES
from test_tagger import _blank, _learned, _python_path, _toy_language

TOY_TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TOY_TEST = os.path.join(EXAMPLES, "toy-test.conll")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=30), st.integers(0, 12))
def test_sentence_blocks_cover_every_sentence_once_within_their_size(sizes, max_words):
    sstart = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    blocks = sentence_blocks(sstart, max_words)
    assert [s for a, b in blocks for s in range(a, b)] == list(range(len(sizes)))
    for a, b in blocks:
        assert b > a and (sstart[b] - sstart[a] <= max(max_words, 1) or b == a + 1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31))
def test_predict_gives_the_scores_of_the_classes_it_chose(toy_tagger_single, seed):
    """The scores predict writes for a word are those its class was chosen by (the first of the
    best); words the sure words settle are not scored."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.tagger import N_ROWS, lexicon_array, preset_classes
    tagger = toy_tagger_single
    model = tagger.model_
    groups, _, maps, kinds, _ = tagger._runtime()
    sentences = _blank(_toy_language(seed, 20))
    words = words_of(sentences)
    values = np.full((N_ROWS, words.n_words), -1, dtype=np.int32)
    fixed = np.zeros_like(values, dtype=np.int8)
    lexicon = lexicon_array(model.lexicons, perceptron.form_hashes(words.low, words.wstart), maps)
    keys = perceptron.form_hashes(words.cps, words.wstart)
    g, (fm, compiled, dense, sure) = model.groups[0], groups[0]
    preset = preset_classes(keys, values, [], sure, g.sure_classes)
    out = np.empty(words.n_words, dtype=np.int32)
    scores = np.full((words.n_words, g.class_values.shape[0]), -7.0, dtype=np.float32)
    perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values, fixed, fm, g.indptr,
                       g.classes, g.weights, g.class_values, g.rows, compiled, out, None, lexicon,
                       dense.rows if dense else None, -1, preset, None, scores, dense_of=dense.row_of if dense else None)
    settled = preset >= 0 if preset is not None else np.zeros(words.n_words, bool)
    assert (scores[settled] == -7.0).all()
    assert (np.argmax(scores[~settled], axis=1) == out[~settled]).all()
    with pytest.raises(ValueError, match="words x classes"):
        perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values, fixed, fm,
                           g.indptr, g.classes, g.weights, g.class_values, g.rows, compiled, out, None, lexicon,
                           dense.rows if dense else None, -1, preset, None, scores[:, 1:].copy(),
                           dense_of=dense.row_of if dense else None)
    for rows in (np.arange(words.n_words + 1), np.full(words.n_words, words.n_words), np.full(words.n_words, -1)):
        with pytest.raises(ValueError, match="one per word"):
            perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values, fixed, fm,
                               g.indptr, g.classes, g.weights, g.class_values, g.rows, compiled, out, None, lexicon,
                               dense.rows if dense else None, -1, preset, None, scores, rows.astype(np.int64),
                               dense_of=dense.row_of if dense else None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abcXY1é𝔸", min_size=1, max_size=4), min_size=1, max_size=6),
                min_size=1, max_size=5))
def test_reversed_words_are_each_sentence_right_to_left(sentences):
    from maltpy.formats.conll import Sentence
    words = words_of([Sentence([[str(k), f] + ["_"] * 8 for k, f in enumerate(s, 1)]) for s in sentences])
    order = reversed_order(words.sstart)
    assert (order[order] == np.arange(words.n_words)).all()      # its own inverse
    back = reversed_words(words, order)
    forms = ["".join(map(chr, back.cps[back.wstart[j]:back.wstart[j + 1]])) for j in range(back.n_words)]
    assert forms == [f for s in sentences for f in reversed(s)]
    assert (back.sstart == words.sstart).all()
    again = reversed_words(back, order)
    for a, b in zip(again, words):
        assert (np.asarray(a) == np.asarray(b)).all()


@pytest.fixture(scope="module")
def toy_ensemble():
    return Tagger("upos,xpos,feats,lemma", epochs=5, ensemble=3, jobs=2).fit(_toy_language(1, 400))


def test_an_ensemble_learns_and_its_first_member_is_the_single_tagger(toy_ensemble):
    test = _toy_language(2, 200)
    tagged = toy_ensemble.tag(_blank(test))
    for col in (2, 3, 4, 5):
        pairs = [(a[col], b[col]) for s, t in zip(test, tagged) for a, b in zip(s.rows, t.rows)]
        assert sum(a == b for a, b in pairs) / len(pairs) > 0.97
    single = Tagger("upos,xpos,feats,lemma", epochs=5).fit(_toy_language(1, 400))
    model = toy_ensemble.model_
    assert model.ensemble == 3 and [reads_backwards(m) for m in range(3)] == [False, True, False]
    for a, b in zip(model.groups, single.model_.groups):
        assert a.keys.tolist() == b.keys.tolist() and a.weights.tolist() == b.weights.tolist()
    # members learn every group but the lemma's, each its own weights
    assert all([g.columns for g in member] == [("upos",), ("xpos",), ("feats",)] for member in model.members)
    assert model.members[0][0].weights.tolist() != model.groups[0].weights.tolist()


@pytest.fixture(scope="module")
def toy_tagger_single():
    return Tagger("upos,xpos,feats,lemma", epochs=5).fit(_toy_language(1, 400))


def _member_scores(tagger, group, runtime, sentences, settled=None):
    """A member's scores of every word, the member run alone over ``sentences`` (already in its
    direction), and where the sure words settle a word (their class, -1 elsewhere); ``settled``:
    the classes settled before it instead of the sure words' (-1: scored)."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.tagger import N_ROWS, lexicon_array, preset_classes
    fm, compiled, dense, sure = runtime
    words = words_of(sentences)
    values = np.full((N_ROWS, words.n_words), -1, dtype=np.int32)
    lexicon = lexicon_array(tagger.model_.lexicons, perceptron.form_hashes(words.low, words.wstart))
    preset = preset_classes(perceptron.form_hashes(words.cps, words.wstart), values, [], sure, group.sure_classes)
    if settled is not None:
        preset = np.ascontiguousarray(settled, dtype=np.int32)
    scores = np.zeros((words.n_words, group.class_values.shape[0]), dtype=np.float32)
    perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values,
                       np.zeros_like(values, dtype=np.int8), fm, group.indptr, group.classes, group.weights,
                       group.class_values, group.rows, compiled, np.empty(words.n_words, dtype=np.int32), None,
                       lexicon, dense.rows if dense else None, -1, preset, None, scores,
                       dense_of=dense.row_of if dense else None)
    return scores, preset if preset is not None else np.full(words.n_words, -1)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 4))
def test_each_word_takes_the_class_of_the_members_summed_scores(seed, k):
    """The ensemble's UPOS of a word is the class whose scores, added up over its members each run
    alone over the sentences in its own direction (reversed here sentence by sentence), are
    highest; the sure words keep their class."""
    from maltpy.formats.conll import Sentence
    tagger = Tagger("upos", epochs=2, ensemble=k, seed=seed % 5 + 1).fit(_toy_language(seed, 120))
    test = _blank(_toy_language(seed + 1, 30))
    backwards = [Sentence(list(reversed(s.rows)), format=s.format) for s in test]
    groups, _, _, _, member_groups = tagger._runtime()
    members = [(tagger.model_.groups[0], groups[0])] + [(m[0], rt[0]) for m, rt in
                                                         zip(tagger.model_.members, member_groups)]
    total, settled = 0, None
    for m, (group, runtime) in enumerate(members):
        scores, preset = _member_scores(tagger, group, runtime, backwards if reads_backwards(m) else test)
        if reads_backwards(m):      # back to the sentences' own order
            starts = np.r_[0, np.cumsum([len(s.rows) for s in test])]
            scores = np.concatenate([scores[a:b][::-1] for a, b in zip(starts[:-1], starts[1:])])
        total = total + scores
        settled = preset if m == 0 else settled
    expected = np.where(settled >= 0, settled, np.argmax(total, axis=1))
    upos = tagger.model_.vocab["upos"]
    classes = tagger.model_.groups[0].class_values[:, 0]
    assert [r[3] for s in tagger.tag(test) for r in s.rows] == [upos[classes[c]] for c in expected]


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 3), st.sampled_from([0.5, 2.0, 8.0, 1e9]))
def test_with_a_margin_the_first_member_settles_the_words_it_is_sure_of(seed, k, margin):
    """With ``ensemble_margin``, a word (not a sure word) whose first member's best class scores
    at least the margin above its second takes that class; the other members, each run over the
    sentences in its direction with those words settled, add their scores for the rest, which
    take the class of the summed scores. A margin no score reaches tags as no margin."""
    from maltpy.formats.conll import Sentence
    from maltpy.tagging import perceptron
    tagger = Tagger("upos", epochs=2, ensemble=k, seed=seed % 5 + 1).fit(_toy_language(seed, 120))
    test = _blank(_toy_language(seed + 1, 30))
    backwards = [Sentence(list(reversed(s.rows)), format=s.format) for s in test]
    starts = np.r_[0, np.cumsum([len(s.rows) for s in test])]

    def flip(a):      # each sentence's words reversed (their own inverse)
        return np.concatenate([a[x:y][::-1] for x, y in zip(starts[:-1], starts[1:])])

    groups, _, _, _, member_groups = tagger._runtime()
    members = [(tagger.model_.groups[0], groups[0])] + [(m[0], rt[0]) for m, rt in
                                                         zip(tagger.model_.members, member_groups)]
    total, settled = _member_scores(tagger, *members[0], test)
    first = total.copy()
    for j in np.flatnonzero(settled < 0):
        ranked = np.sort(first[j])[::-1]
        if ranked[0] - ranked[1] >= margin:
            settled[j] = int(np.argmax(first[j]))
    for m, (group, runtime) in enumerate(members[1:], 1):
        direction = backwards if reads_backwards(m) else test
        scores, _ = _member_scores(tagger, group, runtime, direction,
                                   flip(settled) if reads_backwards(m) else settled)
        total = total + (flip(scores) if reads_backwards(m) else scores)
    expected = np.where(settled >= 0, settled, np.argmax(total, axis=1))
    upos = tagger.model_.vocab["upos"]
    classes = tagger.model_.groups[0].class_values[:, 0]
    tagger.ensemble_margin = margin
    assert [r[3] for s in tagger.tag(test) for r in s.rows] == [upos[classes[c]] for c in expected]
    if margin == 1e9:
        tagger.ensemble_margin = None
        assert [r[3] for s in tagger.tag(test) for r in s.rows] == [upos[classes[c]] for c in expected]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(2, 70), st.integers(0, 2**31), st.sampled_from([0.25, 1.0, 3.0]))
def test_settle_confident_agrees_with_sorting_each_row(n, k, seed, margin):
    """Rows not preset take their first best class where it beats the second by the margin (ties
    never do); preset rows keep theirs; the count is the rows settled."""
    from maltpy.tagging import perceptron
    rng = np.random.default_rng(seed)
    scores = (rng.integers(-6, 7, size=(n, k)) * 0.5).astype(np.float32)    # ties happen
    preset = np.where(rng.random(n) < 0.3, rng.integers(0, k, size=n), -1).astype(np.int32)
    expected = preset.copy()
    for j in range(n):
        ranked = np.sort(scores[j])[::-1]
        if preset[j] < 0 and ranked[0] - ranked[1] >= margin:
            expected[j] = int(np.argmax(scores[j]))
    got = preset.copy()
    assert perceptron.settle_confident(scores, got, margin) == int((expected != preset).sum())
    assert got.tolist() == expected.tolist()
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="margin"):
            perceptron.settle_confident(scores, preset.copy(), bad)
    with pytest.raises(ValueError, match="one per row"):
        perceptron.settle_confident(scores, preset[:-1].copy(), margin)


def test_the_margin_is_kept_by_the_model_and_a_tagging_setting(toy_ensemble, tmp_path):
    """Learned with --ensemble-margin, the model keeps it (info says so); -m tag may change it or
    turn it off; a margin that is not a positive number is a one-line error."""
    model = str(tmp_path / "m.mpz")
    r = _run("-c", model, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos,xpos", "--tagger-ensemble", "2",
             "--parser", "false", "--ensemble-margin", "2.5")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  margin +2\.5: the first tagger", _run("info", model).stdout, re.M)
    from maltpy.components import load
    assert load(model).components[0].tagger.ensemble_margin == 2.5
    assert load(model, ensemble_margin="none").components[0].tagger.ensemble_margin is None
    assert load(model, ensemble_margin="7").components[0].tagger.ensemble_margin == 7.0
    outs = {}
    for extra in ((), ("--ensemble-margin", "none"), ("--ensemble-margin", "1e9")):
        out = tmp_path / f"out{len(outs)}.conll"
        r = _run("-c", model, "-m", "tag", "-i", TOY_TEST, "-o", str(out), *extra)
        assert r.returncode == 0, r.stderr
        outs[extra] = out.read_bytes()
    # no word's margin reaches 1e9: as without a margin
    assert outs[("--ensemble-margin", "1e9")] == outs[("--ensemble-margin", "none")]
    for bad in ("0", "-2", "x", "inf"):
        r = _run("-c", model, "-m", "tag", "-i", TOY_TEST, "-o", str(tmp_path / "bad.conll"), "--ensemble-margin", bad)
        assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "margin" in r.stderr, r.stderr
        assert not (tmp_path / "bad.conll").exists()
    for bad in (0, -1.0, True, "x", float("inf")):
        with pytest.raises(MaltpyError, match="margin"):
            Tagger("upos", ensemble=2, ensemble_margin=bad)
    # a model without an ensemble: the margin is said to do nothing, and the tags are the same
    single = str(tmp_path / "single.mpz")
    assert _run("-c", single, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos", "--parser", "false").returncode == 0
    plain, noted = tmp_path / "plain.conll", tmp_path / "noted.conll"
    assert _run("-c", single, "-m", "tag", "-i", TOY_TEST, "-o", str(plain)).returncode == 0
    r = _run("-c", single, "-m", "tag", "-i", TOY_TEST, "-o", str(noted), "--ensemble-margin", "3")
    assert r.returncode == 0 and "--ensemble-margin does nothing here" in r.stderr, r.stderr
    assert noted.read_bytes() == plain.read_bytes()


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 300))
def test_the_tags_do_not_depend_on_the_blocks_scored_at_once(toy_ensemble, block):
    from maltpy.tagging import tagger as module
    test = _blank(_toy_language(11, 60))
    whole = toy_ensemble.tag(test)
    saved = module.ENSEMBLE_BLOCK_SCORES
    module.ENSEMBLE_BLOCK_SCORES = block
    try:
        assert [s.rows for s in toy_ensemble.tag(test)] == [s.rows for s in whole]
    finally:
        module.ENSEMBLE_BLOCK_SCORES = saved


def test_an_ensemble_round_trips_and_damage_is_refused(toy_ensemble):
    import random
    test = _blank(_toy_language(3, 50))
    again = Tagger.from_bytes(toy_ensemble.to_bytes())
    assert [s.rows for s in again.tag(test)] == [s.rows for s in toy_ensemble.tag(test)]
    assert _learned(again) == _learned(toy_ensemble) and again.describe() == toy_ensemble.describe()
    data = toy_ensemble.to_bytes()
    rng = random.Random(0)
    for _ in range(30):
        with pytest.raises(ModelFileError):
            Tagger.from_bytes(data[:rng.randrange(len(data))])
        flipped = bytearray(data)
        for _ in range(5):
            flipped[rng.randrange(len(flipped))] ^= 0xFF
        try:
            Tagger.from_bytes(bytes(flipped)).tag(test[:5])
        except ModelFileError:
            pass


def test_a_member_missing_from_the_file_is_refused(toy_ensemble, monkeypatch):
    from maltpy.parsing import modelfile
    header, arrays = modelfile.load_model("<t>", data=toy_ensemble.to_bytes())
    for damage in ({**header, "ensemble": {**header["ensemble"], "taggers": 4}},
                   {**header, "ensemble": {"taggers": 3}},
                   {**header, "ensemble": {**header["ensemble"], "taggers": True}},
                   {**header, "ensemble": {**header["ensemble"], "margin": -1}},
                   {**header, "ensemble": {**header["ensemble"], "margin": "x"}},
                   {**header, "ensemble": {**header["ensemble"], "margin": [3]}}):
        with pytest.raises(ModelFileError, match="ensemble"):
            Tagger.from_bytes(modelfile.model_bytes(damage, arrays))
    with pytest.raises(ModelFileError, match="m2g1_keys"):
        Tagger.from_bytes(modelfile.model_bytes(header, {k: v for k, v in arrays.items() if k != "m2g1_keys"}))


def test_the_ensemble_size_is_checked():
    for bad in (0, -1, 65, True, 2.0, "3"):
        with pytest.raises(MaltpyError, match="ensemble"):
            Tagger("upos", ensemble=bad)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40), st.sampled_from([1, 2]), st.booleans())
def test_the_compiled_path_writes_what_the_python_path_writes(toy_ensemble, tmp_path_factory, n, jobs, keep_upos):
    """Untagged words, and words whose UPOS is given (the members read it, each in its direction)."""
    from maltpy.components import Pipeline, TaggerComponent
    pipeline = Pipeline([TaggerComponent(toy_ensemble)])
    tmp = tmp_path_factory.mktemp("ensemble")
    src = tmp / "in.conllu"
    src.write_text("".join("".join("\t".join([r[0], r[1], "_", r[3] if keep_upos else "_"] + ["_"] * 6) + "\n"
                                   for r in s.rows) + "\n" for s in read_conll(TOY_TEST, "conllx")[:n]))
    pipeline.parse_file(str(src), str(tmp / "out"), "conllu", jobs=jobs)
    assert (tmp / "out").read_bytes() == _python_path(pipeline, str(src), "conllu", tag_only=True)


def _run(*args, **kw):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, **kw)


def test_learn_with_an_ensemble_from_the_command_line(tmp_path):
    model = str(tmp_path / "m.mpz")
    r = _run("-c", model, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos,xpos", "--tagger-ensemble", "3",
             "--tagger-folds", "2")
    assert r.returncode == 0, r.stderr
    info = _run("info", model)
    assert re.search(r"^  ensemble +3 taggers add up their scores", info.stdout, re.M), info.stdout
    assert "2-fold jackknifed tags (each fold's tagger an ensemble of 3)" in info.stdout, info.stdout
    out = tmp_path / "out.conll"
    r = _run("-c", model, "-m", "parse", "-i", TOY_TEST, "-o", str(out))
    assert r.returncode == 0, r.stderr and out.stat().st_size
    bad = _run("-c", str(tmp_path / "n.mpz"), "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos",
               "--tagger-ensemble", "0")
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and "tagger-ensemble" in bad.stderr


def test_the_python_api_learns_an_ensemble():
    import maltpy
    pipeline = maltpy.train(TOY_TRAIN, tagger="upos,xpos", tagger_ensemble=2, tagger_folds=2)
    tagger = pipeline.components[0].tagger
    assert tagger.model_.ensemble == 2 and repr(tagger) == "Tagger('upos,xpos', ensemble=2)"
    assert pipeline.parse(_blank(read_conll(TOY_TEST, "conllx"))[:3])


def test_an_ensemble_of_a_lemmatizer_alone_is_one_lemmatizer():
    tagger = Tagger("lemma", epochs=2, ensemble=3).fit(_toy_language(1, 50))
    assert tagger.model_.ensemble == 1
    again = Tagger.from_bytes(tagger.to_bytes())
    test = _blank(_toy_language(2, 10))
    assert [s.rows for s in again.tag(test)] == [s.rows for s in tagger.tag(test)]


def test_fold_taggers_follow_the_ensemble_unless_told(monkeypatch):
    """The fold taggers are ensembles as large as the model's tagger by default; with
    ``tagger_fold_ensemble`` 1 they are single taggers, and the parser then learns from the very
    tags a one-tagger model's jackknifing gives (the first member is the single tagger): the same
    parser, behind a tagger that is still an ensemble."""
    import maltpy
    import maltpy.tagging.jackknife as jackknife_module
    real = jackknife_module.jackknife
    sizes = []

    def recording(sentences, make_tagger, folds, jobs=1, log=None, make_fold_tagger=None, with_full=True):
        sizes.append(make_fold_tagger().ensemble)
        return real(sentences, make_tagger, folds, jobs, log, make_fold_tagger, with_full)
    monkeypatch.setattr(jackknife_module, "jackknife", recording)
    common = dict(tagger="upos,xpos", tagger_folds=2, tagger_epochs=2)
    ensemble = maltpy.train(TOY_TRAIN, tagger_ensemble=2, **common)
    single_folds = maltpy.train(TOY_TRAIN, tagger_ensemble=2, tagger_fold_ensemble=1, **common)
    single = maltpy.train(TOY_TRAIN, tagger_ensemble=1, **common)
    assert sizes == [2, 1, 1]
    assert [p.components[0].tagger.model_.ensemble for p in (ensemble, single_folds, single)] == [2, 2, 1]
    gold = read_conll(TOY_TEST, "conllx")      # gold tags: the parsers alone
    parses = [[s.rows for s in p.components[1].parser.parse(gold)] for p in (ensemble, single_folds, single)]
    assert parses[1] == parses[2]
    assert [p.components[1].parser.train_stats["tag_fold_ensemble"] for p in (ensemble, single_folds, single)] == \
        [2, 1, 1]


def test_a_fold_ensemble_out_of_range_is_one_line(tmp_path):
    for value in ("-1", "65", "two"):
        bad = _run("-c", str(tmp_path / "n.mpz"), "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos",
                   "--tagger-fold-ensemble", value)
        assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
        assert "tagger-fold-ensemble" in bad.stderr or "tagger_fold_ensemble" in bad.stderr
    r = _run("-c", str(tmp_path / "m.mpz"), "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos", "--tagger-folds", "1",
             "--tagger-fold-ensemble", "1")
    assert r.returncode == 0 and "no fold taggers" in r.stderr, r.stderr
    # a tagger alone, and a parser of trees: no jackknifing either, and the note names the flag typed
    r = _run("-c", str(tmp_path / "t.mpz"), "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos", "--parser", "false",
             "--tagger-fold-ensemble", "1")
    assert r.returncode == 0 and "note: --tagger-fold-ensemble jackknifes" in r.stderr, r.stderr
    trees = tmp_path / "trees.mrg"
    trees.write_text("(S (NP (DT the) (NN dog)) (VP (VBZ runs)))\n" * 20 + "(S (NP (NN cats)) (VP (VBP sleep)))\n" * 20)
    r = _run("-c", str(tmp_path / "c.mpz"), "-m", "learn", "-i", str(trees), "--tagger", "upos",
             "--tagger-fold-ensemble", "1")
    assert r.returncode == 0 and "note: --tagger-fold-ensemble: a parser of trees" in r.stderr, r.stderr
