"""The tagger and lemmatizer (maltpy.tagging) and the component, jackknifing and CLI around it."""
import io
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.features.spec import FeatureSpecError
from maltpy.formats.conll import Sentence, read_conll
from maltpy.tagging.jackknife import jackknife
from maltpy.tagging.lemma import apply_rule, lemma_rule, unambiguous_lemmas
from maltpy.tagging.tagger import Tagger, parse_columns
from maltpy.tagging.templates import ROW, compile_templates, parse_template

from conftest import EXAMPLES, shared_file

TOY_TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TOY_TEST = os.path.join(EXAMPLES, "toy-test.conll")


# ---------------------------------------------------------------- lemma rules
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12), st.text(min_size=1, max_size=12))
def test_a_rule_gives_back_the_lemma_it_was_made_from(form, lemma):
    assert apply_rule(form, lemma_rule(form, lemma)) == lemma


def test_rules_generalize_over_forms():
    """A rule learned on one word applies to another of the same kind (what the classifier needs)."""
    assert apply_rule("walking", lemma_rule("running", "runn")) == "walk"
    assert apply_rule("Houses", lemma_rule("Cats", "cat")) == "house"
    assert lemma_rule("walked", "walk") == lemma_rule("jumped", "jump") == "l0|2|"
    assert lemma_rule("The", "the") == lemma_rule("A", "a") == "l0|0|"


def test_case_rules_carry_over_to_words_in_capitals():
    """A lowercase form's rule lowercases, so that it makes the same lemma of the word in capitals
    (``SAID`` -> ``say``, not ``SAy``); a name in capitals takes its initial's case."""
    assert apply_rule("SAID", lemma_rule("said", "say")) == "say"
    assert lemma_rule("PHILLY", "Philly") == lemma_rule("WARWICK", "Warwick") == "t0|0|"
    assert apply_rule("LOCUST", "t0|0|") == "Locust"
    assert lemma_rule("Sears", "Sears") == lemma_rule("sears", "sears") == "k0|0|"   # the form as it is
    assert apply_rule("Ok", "x0|0|") == "Ok"             # not a rule: the form


def test_a_rule_that_does_not_fit_leaves_the_form():
    rule = lemma_rule("children", "child")       # cut 3 characters
    assert apply_rule("ab", rule) == "ab"
    assert apply_rule("x", "garbage") == "x"


def test_unambiguous_lemmas_drop_the_ambiguous():
    table = unambiguous_lemmas([("saw", "VERB", "see"), ("saw", "NOUN", "saw"), ("left", "VERB", "leave"),
                                ("left", "VERB", "left")])
    assert table == {("saw", "VERB"): "see", ("saw", "NOUN"): "saw"}


# ---------------------------------------------------------------- templates and settings
def test_templates_compile_and_check_what_they_read():
    assert parse_template("Suffix(Lower(InputColumn(FORM, pred(Input[0]))), 3)") == ((4, 3, -1),)
    assert parse_template("Merge(Shape(InputColumn(FORM, Input[2])), OutputColumn(UPOSTAG, pred(pred(Input[0]))))") \
        == ((7, 0, 2), (8, ROW["upos"], -2))
    upos, xpos = [ROW["upos"]], [ROW["xpos"]]
    compile_templates(["OutputColumn(UPOSTAG, Input[1])"], known_rows=upos, own_rows=xpos)
    with pytest.raises(FeatureSpecError, match="not yet given"):
        compile_templates(["OutputColumn(UPOSTAG, Input[1])"], known_rows=[], own_rows=upos)
    with pytest.raises(FeatureSpecError, match="not yet given"):
        compile_templates(["OutputColumn(XPOSTAG, Input[0])"], known_rows=[], own_rows=upos)
    for bad, what in [("Stack(FORM)", "unknown function"), ("InputColumn(FORM, Stack[0])", "Input"),
                      ("InputColumn(LEMMA, Input[0])", "FORM column"), ("Suffix(InputColumn(FORM, Input[0]), 0)",
                                                                          "from 1 to 64"),
                      ("InputColumn(FORM, ldep(Input[0]))", "pred"), ("Merge(InputColumn(FORM, Input[0]))", "takes 2")]:
        with pytest.raises(FeatureSpecError, match=what):
            parse_template(bad)


def test_parity_templates_compile():
    assert parse_template("Merge(InputColumn(FORM, Input[0]), Parity(InputColumn(FORM, pred(Input[0]))))") == \
        ((1, 0, 0), (11, 0, -1))
    with pytest.raises(FeatureSpecError, match="Parity takes 1 argument"):
        parse_template("Parity(InputColumn(FORM, Input[0]), 2)")
    with pytest.raises(FeatureSpecError, match="FORM"):
        parse_template("Parity(OutputColumn(UPOSTAG, Input[0]))")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(['"', "'", "a", "ab", '""', "-"]), max_size=300), min_size=1, max_size=4))
def test_parity_is_the_count_of_the_same_character_before(sentences):
    """A one-character word's Parity value: 1 when an even number of the sentence's earlier words
    (at most 256 back) are that character too, 2 when odd; 0 for longer words."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.words import code_points
    forms = [f for s in sentences for f in s]
    cps, wstart = code_points(forms)
    sstart = np.cumsum([0] + [len(s) for s in sentences]).astype(np.int64)
    got = perceptron.parity_values(cps, wstart, sstart).tolist()
    expected = []
    for s in sentences:
        for k, f in enumerate(s):
            expected.append(0 if len(f) != 1 else 1 + sum(g == f for g in s[max(0, k - 256):k]) % 2)
    assert got == expected


def _quoted_language(seed, n_sentences):
    """Sentences holding one pair of straight quotes, tagged `` and '' as they open and close,
    among words drawn alike on both sides: only the count of quotes before tells them apart."""
    rng = random.Random(seed)
    words = ["bla", "di", "do", "ra", "mi", "fa", "so"]
    out = []
    for _ in range(n_sentences):
        forms = [rng.choice(words) for _ in range(rng.randint(3, 9))]
        a, b = sorted(rng.sample(range(len(forms) + 1), 2))
        forms.insert(b, '"')
        forms.insert(a, '"')
        rows, opened = [], False
        for k, form in enumerate(forms):
            if form == '"':
                tags = ("PUNCT", "''" if opened else "``")
                opened = not opened
            else:
                tags = ("X", "FW")
            rows.append([str(k + 1), form, form, *tags, "_", "0" if k == 0 else "1", "dep", "_", "_"])
        out.append(Sentence(rows, format="conllu"))
    return out


def test_a_parity_template_tells_opening_quotes_from_closing_ones(tmp_path):
    """With a Parity template the shipped XPOS templates tag both quotes of a pair right; without
    it, their neighbours alone cannot say which is which. The English set has it, and learns
    without clusters (its cluster templates left out, as the default set's are)."""
    import yaml
    from maltpy.tagging.templates import default_templates_path
    train, test = _quoted_language(1, 400), _quoted_language(2, 200)
    quotes = [(s, k) for s in test for k, r in enumerate(s.rows) if r[1] == '"']
    with open(default_templates_path(), encoding="utf-8") as f:
        shipped = yaml.safe_load(f)
    plain = {c: [t for t in shipped[c] if "Cluster" not in t] for c in ("upos", "xpos")}
    parity = dict(plain, xpos=plain["xpos"] + ["Merge(InputColumn(FORM, Input[0]), Parity(InputColumn(FORM, Input[0])))"])

    def quote_accuracy(templates, name=None):
        if name:
            path = tmp_path / name
            path.write_text(yaml.safe_dump(templates), encoding="utf-8")
            templates = str(path)
        tagged = Tagger("upos,xpos", epochs=5, templates=templates).fit(train).tag(_blank(test))
        by_id = {id(s): t for s, t in zip(test, tagged)}
        return sum(by_id[id(s)].rows[k][4] == s.rows[k][4] for s, k in quotes) / len(quotes)

    with_parity = quote_accuracy(parity, "parity.yaml")
    assert with_parity > 0.99 and quote_accuracy(plain, "plain.yaml") < with_parity - 0.05
    assert not any("Parity" in t for t in shipped["xpos"])     # the default set has none
    assert quote_accuracy("english") > 0.99


def test_tagger_templates_are_a_file_or_a_shipped_set(tmp_path):
    from maltpy.tagging.templates import default_templates_path, resolve_templates
    english, shipped = resolve_templates("english")
    assert shipped and os.path.basename(english) == "english.yaml"
    assert os.path.dirname(english) == os.path.dirname(default_templates_path())
    assert resolve_templates(None) == (default_templates_path(), True)
    assert resolve_templates("english.yaml")[0] == english
    own = tmp_path / "english"          # a file of one's own wins over the shipped name
    own.write_text("upos:\n  - InputColumn(FORM, Input[0])\n", encoding="utf-8")
    assert resolve_templates(str(own)) == (str(own), False)
    with pytest.raises(MaltpyError, match=r"'welsh' are neither a file nor a shipped set; shipped: default, english"):
        resolve_templates("welsh")


def test_the_english_sets_ptb_tag_history_is_read_by_a_joint_group_only():
    """The English set's UPOS list reads the XPOS of earlier words: a joint upos+xpos group
    (whose list it is) learns from those templates; a UPOS group of its own, tagged before XPOS,
    leaves them out and keeps the rest of the list."""
    from maltpy.tagging import templates as tpl
    path, _ = tpl.resolve_templates("english")
    upos_list = [t for t in tpl.load_templates(open(path, encoding="utf-8").read(), path)["upos"]
                 if "Cluster" not in t]       # learned without clusters here
    train = _toy_language(1, 120)
    reads_xpos = lambda group: [t for t in group.templates if "XPOSTAG" in t]
    joint = Tagger("upos+xpos", epochs=2, templates="english").fit(train).model_.groups[0]
    assert joint.columns == ("upos", "xpos") and list(joint.templates) == upos_list
    assert len(reads_xpos(joint)) == 4
    apart = Tagger("upos,xpos", epochs=2, templates="english").fit(train).model_.groups
    assert apart[0].columns == ("upos",)
    assert list(apart[0].templates) == [t for t in upos_list if "XPOSTAG" not in t]
    assert len(reads_xpos(apart[1])) > 0      # the XPOS group's own list reads them as before


def test_a_template_set_extends_a_shipped_one(tmp_path, monkeypatch):
    """``extends: default``: the shipped set's lists first, the file's own templates after them;
    the English set is the default one and its additions."""
    import yaml
    from maltpy.tagging import templates as tpl
    default_path, _ = tpl.resolve_templates(None)
    english_path, _ = tpl.resolve_templates("english")
    default = tpl.load_templates(open(default_path, encoding="utf-8").read(), default_path)
    english = tpl.load_templates(open(english_path, encoding="utf-8").read(), english_path)
    added = yaml.safe_load(open(english_path, encoding="utf-8"))
    assert set(english) == set(default)
    for column in default:
        assert english[column] == default[column] + added.get(column, [])
    assert len(english["upos"]) == len(default["upos"]) + 7
    own = "name: mine\nextends: default\nlemma:\n  - Suffix(Lower(InputColumn(FORM, Input[0])), 6)\n"
    mine = tpl.load_templates(own, "mine.yaml")
    assert mine["lemma"] == default["lemma"] + ["Suffix(Lower(InputColumn(FORM, Input[0])), 6)"]
    assert mine["upos"] == default["upos"]
    with pytest.raises(FeatureSpecError, match=r"^mine.yaml:2: extends 'welsh': not a shipped template set"):
        tpl.load_templates(own.replace("default", "welsh"), "mine.yaml")
    # sets that extend each other stop with an error, not a recursion
    (tmp_path / "a.yaml").write_text("extends: b\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("extends: a\n", encoding="utf-8")
    monkeypatch.setattr(tpl, "_shipped_dir", lambda: str(tmp_path))
    with pytest.raises(FeatureSpecError, match="too deep"):
        tpl.load_templates("extends: a\n", "c.yaml")


def test_a_shipped_template_set_by_name_learns_from_the_command_line(tmp_path, capsys):
    from maltpy.cli.main import main
    from maltpy.config import load_config
    train = os.path.join(EXAMPLES, "toy-text-train.conllu")
    assert main(["-c", str(tmp_path / "m.mpz"), "-m", "learn", "-i", train, "--tagger", "upos,xpos",
                 "--tagger-templates", "english", "--parser", "false", "-q"]) == 0
    capsys.readouterr()
    assert main(["info", str(tmp_path / "m.mpz")]) == 0
    assert re.search(r"^\s*templates\s+english$", capsys.readouterr().out, re.M)
    assert main(["-c", str(tmp_path / "n.mpz"), "-m", "learn", "-i", train, "--tagger", "upos",
                 "--tagger-templates", "welsh", "--parser", "false", "-q"]) == 1
    assert "'welsh' are neither a file nor a shipped set" in capsys.readouterr().err
    assert not (tmp_path / "n.mpz").exists()
    conf = tmp_path / "conf.yaml"       # a name in a configuration stays a name
    conf.write_text("tagger_templates: english\n", encoding="utf-8")
    assert load_config(str(conf))["tagger_templates"] == "english"


@pytest.mark.parametrize("content, line, expect", [
    ("upos:\n  - Shape(InputColumn(FORM, Input[0]))\n  - Parity(Lower(InputColumn(FORM, Input[0])), 2)\n",
     3, "Parity takes 1 argument"),
    ("upos:\n  - Sufix(InputColumn(FORM, Input[0]), 2)\n", 2, "unknown function 'Sufix'"),
    ("upos:\n  - InputColumn(FORM, Stack[0])\n", 2, "Input[k]"),
    ("upos:\n  - OutputColumn(XPOSTAG, Input[0])\n", None, "reads a tag not yet given there"),
    # the line of the entry itself, not of a comment that quotes it
    ("# not Shape(InputColumn(FORM, Input[0]), 2)\nxpos:\n  - Shape(InputColumn(FORM, Input[0]))\nupos:\n"
     "  - Shape(InputColumn(FORM, Input[0]))\n  - Shape(InputColumn(FORM, Input[0]), 2)\n", 6, "Shape takes 1"),
])
def test_a_template_that_cannot_be_read_is_named_with_its_file_and_line(tmp_path, capsys, content, line, expect):
    from maltpy.cli.main import main
    templates = tmp_path / "tpl.yaml"
    templates.write_text(content, encoding="utf-8")
    train = os.path.join(EXAMPLES, "toy-text-train.conllu")
    assert main(["-c", str(tmp_path / "m.mpz"), "-m", "learn", "-i", train, "--tagger", "upos",
                 "--tagger-templates", str(templates), "--parser", "false", "-q"]) == 1
    err = capsys.readouterr().err
    named = f"{templates}:{line}: " if line else f"{templates}: "
    assert err.startswith(f"maltpy: error: {named}") and expect in err and err.count("\n") == 1
    assert not (tmp_path / "m.mpz").exists()


def test_column_lists():
    assert parse_columns("lemma, upos,feats") == (("upos",), ("feats",), ("lemma",))
    assert parse_columns("feats+upos,lemma") == (("upos", "feats"), ("lemma",))
    for bad in ("", "upos,upos", "pos", "upos+lemma", None):
        with pytest.raises(MaltpyError):
            parse_columns(bad)


# ---------------------------------------------------------------- learning and tagging
def _toy_language(seed, n_sentences):
    """Sentences whose tags follow from the words (a suffix, a closed class, the word before),
    so that a tagger that learns at all tags unseen sentences almost perfectly."""
    rng = random.Random(seed)
    stems = ["".join(rng.choice("bcdfglmnprstv") + rng.choice("aeiou") for _ in range(rng.randint(1, 3)))
             for _ in range(300)]
    out = []
    for _ in range(n_sentences):
        rows = []
        for k in range(rng.randint(2, 12)):
            kind = rng.random()
            if kind < 0.25:
                form, upos, xpos, lemma = rng.choice(["the", "a", "The"]), "DET", "DT", None
            elif kind < 0.6:
                stem = rng.choice(stems)
                form, upos, xpos, lemma = (stem + "s", "NOUN", "NNS", stem) if rng.random() < .5 else (stem, "NOUN", "NN", stem)
            else:
                stem = rng.choice(stems)
                form, upos, xpos, lemma = (stem + "ed", "VERB", "VBD", stem) if rng.random() < .5 else (stem + "ing", "VERB", "VBG", stem)
            lemma = lemma or form.lower()
            feats = {"NNS": "Number=Plur", "NN": "Number=Sing", "VBD": "Tense=Past"}.get(xpos, "_")
            rows.append([str(k + 1), form, lemma, upos, xpos, feats, "0" if k == 0 else "1", "dep", "_", "_"])
        out.append(Sentence(rows, format="conllu"))
    return out


def _accuracy(gold, tagged, col):
    pairs = [(a[col], b[col]) for s, t in zip(gold, tagged) for a, b in zip(s.rows, t.rows)]
    return sum(a == b for a, b in pairs) / len(pairs)


def _blank(sentences):
    return [Sentence([r[:2] + ["_"] * 4 + r[6:] for r in s.rows], format=s.format) for s in sentences]


@pytest.fixture(scope="module")
def toy_tagger():
    return Tagger("upos,xpos,feats,lemma", epochs=5).fit(_toy_language(1, 400))


def test_the_tagger_learns_a_language_it_can_learn(toy_tagger):
    test = _toy_language(2, 200)        # other sentences, other random stems
    tagged = toy_tagger.tag(_blank(test))
    for name, col in (("upos", 3), ("xpos", 4), ("feats", 5), ("lemma", 2)):
        assert _accuracy(test, tagged, col) > 0.97, name
    assert [r[1] for s in tagged for r in s.rows] == [r[1] for s in test for r in s.rows]
    assert [r[6:] for s in tagged for r in s.rows] == [r[6:] for s in test for r in s.rows]


def test_bytes_round_trip_tags_the_same(toy_tagger):
    test = _blank(_toy_language(3, 50))
    again = Tagger.from_bytes(toy_tagger.to_bytes())
    assert [s.rows for s in again.tag(test)] == [s.rows for s in toy_tagger.tag(test)]
    assert _learned(again) == _learned(toy_tagger)
    assert again.describe()["classes"] == toy_tagger.describe()["classes"]


def test_damaged_bytes_are_refused(toy_tagger):
    data = toy_tagger.to_bytes()
    rng = random.Random(0)
    for _ in range(30):
        cut = bytearray(data[:rng.randrange(len(data))])
        with pytest.raises(ModelFileError):
            Tagger.from_bytes(bytes(cut))
        flipped = bytearray(data)
        for _ in range(5):
            flipped[rng.randrange(len(flipped))] ^= 0xFF
        try:
            Tagger.from_bytes(bytes(flipped)).tag(_blank(_toy_language(4, 5)))
        except ModelFileError:
            pass


def test_given_columns_are_kept_unless_retag(toy_tagger):
    test = _toy_language(5, 30)
    odd = [Sentence([r[:3] + ["X"] + r[4:] for r in s.rows], format="conllu") for s in test]
    kept = toy_tagger.tag(odd)
    assert all(r[3] == "X" for s in kept for r in s.rows)
    # a sentence that leaves one word _ is tagged (the column is kept only when given whole)
    partial = [Sentence([r[:3] + (["_"] if k == 0 else ["X"]) + r[4:] for k, r in enumerate(s.rows)], format="conllu")
               for s in test]
    assert all(r[3] != "X" for s in toy_tagger.tag(partial) for r in s.rows)
    assert _accuracy(test, toy_tagger.tag(odd, retag=True), 3) > 0.97
    # FEATS _ beside other words' features is an empty feature set: the sentence gives FEATS
    marked = [Sentence([r[:5] + (["Odd=Yes"] if k == 0 else ["_"]) + r[6:] for k, r in enumerate(s.rows)],
                       format="conllu") for s in test]
    kept = toy_tagger.tag(marked)
    assert [[r[5] for r in s.rows] for s in kept] == [[r[5] for r in s.rows] for s in marked]
    blank_feats = [Sentence([r[:5] + ["_"] + r[6:] for r in s.rows], format="conllu") for s in test]
    assert _accuracy(test, toy_tagger.tag(blank_feats), 5) > 0.97     # all _: FEATS is tagged


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r"),
                                 min_size=1, max_size=8), min_size=1, max_size=8), min_size=1, max_size=5))
def test_any_words_get_valid_tags(toy_tagger, words):
    sentences = [Sentence.from_words(ws) for ws in words]
    for s in toy_tagger.tag(sentences):
        for r in s.rows:
            assert all(v and "\t" not in v and "\n" not in v for v in r[2:6])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0, 64, 4096, -1]))
def test_the_per_word_sums_do_not_change_a_tag(toy_tagger, seed, cache_bytes):
    """predict sums the word-local templates once per (form, earlier groups' tags at the word):
    random given tags of the earlier columns make the same form recur with other tags, and any
    cache size, none included, must give the tags that no cache gives (the lemma's group, all of
    whose templates are word-local, keeps a class per word type instead)."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.tagger import N_ROWS
    from maltpy.tagging.words import words_of
    rng = np.random.default_rng(seed)
    sentences = _blank(_toy_language(seed % 1000, 40))
    words = words_of(sentences)
    model, (groups, _, _, kinds, _) = toy_tagger.model_, toy_tagger._runtime()
    given = {c: rng.random(words.n_words) < 0.5 for c in ("upos", "xpos")}     # given tags at random words
    # the second run reads every group's character atoms from one table made for all, in a
    # buffer longer than the words (as the compiled path reuses one chunk after chunk)
    buffer = np.full((words.n_words + 7, max(len(kinds), 1)), 12345, dtype=np.uint64)
    shared = perceptron.word_atoms(words.cps, words.low, words.shp, words.wstart, kinds, buffer)
    assert shared[0].base is buffer or shared[0].base is buffer.base
    given_values = {c: rng.integers(0, len(model.vocab[c]), int(given[c].sum())) for c in given}
    tagged = []
    for size in (0, cache_bytes):
        values = np.full((N_ROWS, words.n_words), -1, dtype=np.int32)
        fixed = np.zeros((N_ROWS, words.n_words), dtype=np.int8)
        for c in given:
            values[ROW[c], given[c]] = given_values[c]
            fixed[ROW[c], given[c]] = 1
        outs = []
        for g, (fm, compiled, dense, _) in zip(model.groups, groups):
            out = np.empty(words.n_words, dtype=np.int32)
            perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values, fixed, fm,
                               g.indptr, g.classes, g.weights, g.class_values, g.rows, compiled, out,
                               dense=dense.rows if dense else None, cache_bytes=size,
                               atoms=shared if size else None, dense_of=dense.row_of if dense else None)
            outs.append(out)
        tagged.append((values, outs))
    assert np.array_equal(tagged[0][0], tagged[1][0])
    assert all(np.array_equal(a, b) for a, b in zip(tagged[0][1], tagged[1][1]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=200), st.integers(1, 6),
       st.sampled_from([1.0, 0.9, 0.5]))
def test_sure_words_are_the_forms_training_gave_one_class(pairs, count, share):
    """sure_words against counting by hand: a form is sure when seen at least SURE_COUNT times
    with its most frequent class at least SURE_SHARE of the time, and it gets that class."""
    from collections import Counter
    import maltpy.tagging.tagger as tagger_module
    old = tagger_module.SURE_COUNT, tagger_module.SURE_SHARE
    tagger_module.SURE_COUNT, tagger_module.SURE_SHARE = count, share
    try:
        forms = np.array([f * 1000003 + 7 for f, _ in pairs], dtype=np.uint64)
        classes = np.array([c for _, c in pairs], dtype=np.int32)
        keys, got = tagger_module.sure_words(forms, classes)
    finally:
        tagger_module.SURE_COUNT, tagger_module.SURE_SHARE = old
    expected = {}
    for f in set(forms.tolist()):
        seen = Counter(c for g, c in zip(forms.tolist(), classes.tolist()) if g == f)
        best = max(seen.values())
        top = min(c for c, n in seen.items() if n == best)
        if sum(seen.values()) >= count and best >= share * sum(seen.values()):
            expected[f] = top
    assert dict(zip(keys.tolist(), got.tolist())) == expected
    assert len(keys) == len(expected)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31))
def test_a_sure_word_takes_its_class_and_the_others_are_scored(toy_tagger, seed):
    """predict's preset: the words it names get its class (and the next words read it), the
    others are scored; a preset of none tags as no preset."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.tagger import N_ROWS
    from maltpy.tagging.words import words_of
    rng = np.random.default_rng(seed)
    words = words_of(_blank(_toy_language(seed % 1000, 20)))
    model, (groups, _, _, _, _) = toy_tagger.model_, toy_tagger._runtime()
    g, (fm, compiled, dense, _) = model.groups[0], groups[0]
    n_classes = len(g.class_values)

    def run(preset):
        values = np.full((N_ROWS, words.n_words), -1, dtype=np.int32)
        out = np.empty(words.n_words, dtype=np.int32)
        perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values,
                           np.zeros((N_ROWS, words.n_words), dtype=np.int8), fm, g.indptr, g.classes, g.weights,
                           g.class_values, g.rows, compiled, out, dense=dense.rows if dense else None, preset=preset,
                           dense_of=dense.row_of if dense else None)
        return out, values[ROW[g.columns[0]]].copy()

    plain, plain_values = run(None)
    none, _ = run(np.full(words.n_words, -1, dtype=np.int32))
    assert np.array_equal(plain, none)
    preset = np.where(rng.random(words.n_words) < 0.3, rng.integers(0, n_classes, words.n_words), -1).astype(np.int32)
    out, values = run(preset)
    named = preset >= 0
    assert np.array_equal(out[named], preset[named])
    assert np.array_equal(values[named], g.class_values[preset[named], 0])
    assert ((out >= 0) & (out < n_classes)).all()


def test_sure_words_are_kept_in_the_model_file_and_files_without_them_load(toy_tagger, monkeypatch):
    import maltpy.tagging.tagger as tagger_module
    model = toy_tagger.model_
    assert any(len(g.sure_keys) for g in model.groups)      # the toy language's function words
    again = Tagger.from_bytes(toy_tagger.to_bytes())
    for a, b in zip(model.groups, again.model_.groups):
        assert a.sure_keys.tolist() == b.sure_keys.tolist() and a.sure_classes.tolist() == b.sure_classes.tolist()
    # a file from before the sure words (learned from every word, none kept): every word is
    # scored, and tags are still right
    monkeypatch.setattr(tagger_module, "sure_words",
                        lambda keys, classes: (np.zeros(0, np.uint64), np.zeros(0, np.int32)))
    bare = Tagger("upos,xpos,feats,lemma", epochs=5).fit(_toy_language(1, 400))
    loaded = Tagger.from_bytes(bare.to_bytes())
    assert not any(len(g.sure_keys) for g in loaded.model_.groups)
    test = _toy_language(9, 100)
    assert _accuracy(test, loaded.tag(_blank(test)), 3) > 0.97


def test_sure_words_teach_nothing_and_others_still_learn(toy_tagger):
    """The sure words take their class unscored when tagging, so training skips them too: the
    weights are those of a tagger trained on the other words, yet the history they give (the
    tag before a word) is there for the words after them."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.words import words_of
    sentences = _toy_language(1, 400)
    words = words_of(sentences)
    n = sum(len(s) for s in sentences)
    gold = np.array([{"DET": 0, "NOUN": 1, "VERB": 2}[r[3]] for s in sentences for r in s.rows], dtype=np.int32)
    values = np.full((len(ROW), n), -1, dtype=np.int32)
    values[ROW["upos"]] = gold
    templates = compile_templates(["Lower(InputColumn(FORM, Input[0]))", "Suffix(Lower(InputColumn(FORM, Input[0])), 2)",
                                   "OutputColumn(UPOSTAG, pred(Input[0]))"], [], [ROW["upos"]], "test")
    class_values = np.array([[0], [1], [2]], dtype=np.int32)
    rows = np.array([ROW["upos"]], dtype=np.int32)
    determiners = gold == 0
    preset = np.where(determiners, 0, -1).astype(np.int32)
    args = (words.cps, words.low, words.shp, words.wstart, words.sstart)
    keys, indptr, classes, weights, correct = perceptron.train(*args, values.copy(), gold, class_values, rows,
                                                               templates, 5, 1, None, preset)
    assert correct[-1] >= determiners.sum()     # a sure word counts as right when its class is the gold one
    every = perceptron.train(*args, values.copy(), gold, class_values, rows, templates, 5, 1, None, None)
    assert len(keys) < len(every[0])           # fewer features: those of the determiners' forms are gone
    # and after them the history feature "the tag before is DET" still votes for NOUN and VERB
    tagged = np.full((len(ROW), n), -1, dtype=np.int32)
    from maltpy.features.featmap import FeatMap
    fm = FeatMap.from_keys(keys)
    out = np.empty(n, dtype=np.int32)
    fixed = np.zeros((len(ROW), n), dtype=np.int8)
    perceptron.predict(*args, tagged, fixed, fm, indptr, classes, weights, class_values, rows, templates, out,
                       preset=preset)
    assert (out[determiners] == 0).all()
    assert (out[~determiners] == gold[~determiners]).mean() > 0.9


def test_an_empty_column_cannot_be_learned():
    data = read_conll(TOY_TRAIN, "conllx")   # FEATS is _ throughout
    with pytest.raises(MaltpyError, match="feats column is empty"):
        Tagger("upos,feats").fit(data)


# ---------------------------------------------------------------- jackknifing
def test_jackknifed_tags_come_from_taggers_that_did_not_see_them():
    """Each fold has words of its own, with random tags: a tagger that saw them tags them right,
    one that did not cannot know them. Jackknifed tags must be the second kind."""
    rng = random.Random(7)
    tags = ["A", "B", "C", "D", "E", "F"]
    sentences = []
    for f in range(4):
        lexicon = {f"w{f}x{i}": rng.choice(tags) for i in range(40)}
        for _ in range(30):
            words = rng.sample(sorted(lexicon), 5)
            sentences.append(Sentence([[str(k + 1), w, w, lexicon[w], lexicon[w], "_", "0", "dep", "_", "_"]
                                       for k, w in enumerate(words)], format="conllu"))
    full, tagged = jackknife(sentences, lambda: Tagger("upos", epochs=5), folds=4, jobs=2)
    assert _accuracy(sentences, full.tag(sentences, retag=True), 3) > 0.95
    assert _accuracy(sentences, tagged, 3) < 0.5
    assert [r[1] for s in tagged for r in s.rows] == [r[1] for s in sentences for r in s.rows]


def test_fold_taggers_tag_what_the_parser_reads_as_full_ones_do():
    """A fold tagger learns only the groups up to the last column the parser reads; the columns the
    parser reads get the tags that fold taggers of every column give them, the others stay gold."""
    from maltpy.tagging.jackknife import fold_groups
    data = _toy_language(11, 120)
    four = Tagger("upos,xpos,feats,lemma")
    assert fold_groups(four, ["upos"], data) == (("upos",),)
    assert fold_groups(four, ["xpos"], data) == (("upos",), ("xpos",))
    assert fold_groups(four, [], data) == ()
    conllx = read_conll(TOY_TRAIN, "conllx")       # FEATS is _ throughout: "all" leaves it out
    assert fold_groups(Tagger("all"), ["lemma"], conllx) == (("upos",), ("xpos",), ("lemma",))
    every = jackknife(data, lambda: Tagger("upos,xpos,feats,lemma", epochs=3), folds=3, jobs=2)[1]
    some = jackknife(data, lambda: Tagger("upos,xpos,feats,lemma", epochs=3), folds=3, jobs=2,
                     make_fold_tagger=lambda: Tagger("upos,xpos", epochs=3))[1]
    assert [r[3:5] for s in some for r in s.rows] == [r[3:5] for s in every for r in s.rows]
    assert [r[2] for s in some for r in s.rows] == [r[2] for s in data for r in s.rows]     # gold lemmas


def test_jackknifing_survives_a_column_that_a_fold_leaves_empty():
    """A column the whole data fills in one sentence only (UD Spanish's XPOS) is empty in the
    folds that hold that sentence out: their taggers leave it gold, as "all" leaves out a column
    the data does not have, instead of refusing it (the parser behind reads XPOS and FEATS)."""
    from maltpy.components.training import train_pipeline
    from maltpy.config import make_settings, pipeline_parser
    data = _toy_language(12, 60)
    for s in data:
        for r in s.rows:
            r[4] = "_"
    data[0].rows[0][4] = "DT"
    settings = pipeline_parser(make_settings(tagger="all", tagger_folds=3, jobs=2, input_format="conllu",
                                             verbose=False), {"tagger", "tagger_folds", "jobs", "input_format"})
    pipeline = train_pipeline(settings, data, "conllu")
    assert [c.name for c in pipeline.components] == ["tagger", "parser"]
    assert len(pipeline.parse(data[:3])) == 3
    with pytest.raises(MaltpyError, match="xpos column is empty"):     # an explicit column still must have data
        Tagger("upos,xpos").fit(data[1:])


def _learned(tagger):
    """What a model file holds of a tagger, less the training time."""
    from maltpy.parsing.modelfile import load_model
    header, arrays = load_model("<tagger>", data=tagger.to_bytes())
    header["statistics"].pop("seconds")
    return header, {k: v.tolist() for k, v in arrays.items()}


def test_training_is_the_same_every_time():
    data = _toy_language(8, 100)
    a = Tagger("upos,lemma", epochs=3, jobs=1).fit(data)
    b = Tagger("upos,lemma", epochs=3, jobs=2).fit(data)
    assert _learned(a) == _learned(b)
    assert _learned(a) != _learned(Tagger("upos,lemma", epochs=3, seed=2).fit(data))


# ---------------------------------------------------------------- the command line
def _run(*args, **kwargs):
    # started outside the clone's folder, so that python -m maltpy is the installed maltpy
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, cwd=EXAMPLES,
                          **kwargs)


@pytest.fixture(scope="module")
def toy_pipeline(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("tagged") / "toy.mpz")
    r = _run("-c", path, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos,xpos,lemma", "--tagger-folds", "3", "-v")
    assert r.returncode == 0, r.stderr
    assert "jackknifed tags" in r.stderr
    return path


def test_learn_parse_and_tag_untagged_words(toy_pipeline, tmp_path):
    gold = read_conll(TOY_TEST, "conllx")
    horizontal = tmp_path / "words.txt"
    horizontal.write_text("".join(" ".join(s.forms) + "\n" for s in gold))
    out = tmp_path / "out.conllu"
    r = _run("-c", toy_pipeline, "-m", "parse", "-i", str(horizontal), "-if", "horizontal", "-o", str(out))
    assert r.returncode == 0, r.stderr
    parsed = read_conll(str(out), "conllu")
    assert [s.forms for s in parsed] == [s.forms for s in gold]
    assert _accuracy(gold, parsed, 3) > 0.9
    las = np.mean([a[6] == b[6] and a[7] == b[7] for s, t in zip(gold, parsed) for a, b in zip(s.rows, t.rows)])
    assert las > 0.7
    vertical = tmp_path / "words.vert"
    vertical.write_text("".join("\n".join(s.forms) + "\n\n" for s in gold))
    r = _run("-c", toy_pipeline, "-m", "tag", "-i", str(vertical), "-if", "vertical")
    assert r.returncode == 0, r.stderr
    tagged = read_conll(__import__("io").BytesIO(r.stdout.encode()), "conllu")
    assert [s.forms for s in tagged] == [s.forms for s in gold]
    assert all(r[6] == "_" for s in tagged for r in s.rows)      # -m tag does not parse
    assert _accuracy(gold, tagged, 4) > 0.9


def test_a_pipeline_reads_and_writes_other_charsets(toy_pipeline, tmp_path):
    """-ic and -oc with a model of several components, as with a parser alone: the output in the
    input's encoding unless -oc says otherwise (before, such a model asked for -oc UTF-8)."""
    gold = read_conll(TOY_TEST, "conllx")[:20]
    words = "".join(" ".join(s.forms[:-1] + [s.forms[-1] + "é"]) + "\n" for s in gold)
    latin = tmp_path / "words.txt"
    latin.write_bytes(words.encode("latin-1"))
    out = tmp_path / "out.conllu"
    r = _run("-c", toy_pipeline, "-m", "parse", "-i", str(latin), "-if", "horizontal", "-ic", "ISO-8859-1",
             "-o", str(out))
    assert r.returncode == 0, r.stderr
    parsed = read_conll(io.BytesIO(out.read_bytes().decode("latin-1").encode("utf-8")), "conllu")
    assert [s.forms for s in parsed] == [line.split() for line in words.splitlines()]
    r = _run("-c", toy_pipeline, "-m", "tag", "-i", str(latin), "-if", "horizontal", "-ic", "ISO-8859-1",
             "-oc", "UTF-8")
    assert r.returncode == 0, r.stderr
    assert [s.forms for s in read_conll(io.BytesIO(r.stdout.encode("utf-8")), "conllu")] == \
        [line.split() for line in words.splitlines()]


def test_only_the_components_asked_for_are_read(toy_pipeline):
    """-m tag reads the tagger, not the parser behind it."""
    from maltpy.components import load
    assert [c.name for c in load(toy_pipeline).components] == ["tagger", "parser"]
    assert [c.name for c in load(toy_pipeline, ("tokenizer", "tagger")).components] == ["tagger"]
    assert load(toy_pipeline, ("tokenizer", "tagger")).parser is None


def test_a_pipeline_parser_defaults_to_the_lean_online_parser_unless_chosen():
    from maltpy.config import make_settings, pipeline_parser
    behind = make_settings(tagger="all")
    preset = pipeline_parser(behind, {"tagger"})
    assert (preset.learner, preset.oracle, preset.features, preset.enforce_tree, preset.tagger_folds) == \
        ("perceptron", "dynamic", "NivreEagerMorph", True, 10)
    assert pipeline_parser(make_settings(tagger="all", tagger_folds=1), {"tagger", "tagger_folds"}).tagger_folds == 1
    # a learner, its options, an oracle, features or a beam chosen: MaltParser's defaults, untouched
    for name, value in (("learner", "liblinear"), ("lib_options", "-s 4"), ("oracle", "static"),
                        ("features", "NivreEager"), ("beam_width", 4)):
        chosen = make_settings(tagger="all", **{name: value})
        assert pipeline_parser(chosen, {"tagger", name}) is chosen
    # another system, no tagger: untouched; a chosen tree constraint is kept
    other = make_settings(tagger="all", algorithm="stackproj")
    assert pipeline_parser(other, {"tagger", "algorithm"}) is other
    alone = make_settings()
    assert pipeline_parser(alone, set()) is alone
    kept = pipeline_parser(make_settings(tagger="all", enforce_tree=False), {"tagger", "enforce_tree"})
    assert kept.learner == "perceptron" and kept.enforce_tree is False


def test_the_python_api_takes_the_same_parser_behind_a_tagger():
    import maltpy
    lean = maltpy.train(TOY_TRAIN, tagger="upos", verbose=False)
    assert (lean.parser.settings.learner, lean.parser.settings.features) == ("perceptron", "NivreEagerMorph")
    malt = maltpy.train(TOY_TRAIN, tagger="upos", learner="liblinear", verbose=False)
    assert malt.parser.settings.learner == "liblinear" and not (malt.parser.settings.features or "").startswith("NivreEagerLean")


def test_one_text_or_one_sentence_for_a_list_says_what_to_give(toy_pipeline, model):
    """parse and tag of a pipeline or a parser given one str or one Sentence where a list of
    sentences is expected: one error that says what to give (a str was taken as its characters,
    'not str 'T'')."""
    import maltpy
    pipeline, parser = maltpy.load(toy_pipeline), maltpy.load(model)
    sentence = read_conll(TOY_TRAIN)[0]
    for call, expected in ((lambda: pipeline.tag("the dog runs"), r"not one str: give \[text.split\(\)\]"),
                           (lambda: pipeline.parse("the dog runs"), r"not one str: give \[text.split\(\)\]"),
                           (lambda: parser.parse(b"the dog runs"), r"not one str"),
                           (lambda: pipeline.parse(sentence), r"not one Sentence: give \[sentence\]"),
                           (lambda: parser.parse(sentence), r"not one Sentence"),
                           (lambda: pipeline.parse(["the dog runs"]), r"text.split\(\) gives its words")):
        with pytest.raises(MaltpyError, match=expected):
            call()
    assert [r[1] for r in pipeline.tag(["the dog runs".split()])[0].rows] == ["the", "dog", "runs"]


@pytest.mark.parametrize("folds", [1, 3])
def test_columns_the_tagger_does_not_tag_are_left_out_of_the_parsers_training(parser_inputs, folds):
    """--tagger upos behind a parser that reads XPOS too: the parser learns with XPOS _, as it will
    see untagged words (it learned from gold XPOS and read _ there: EWT dev LAS 18.94, now 81.13),
    and a warning says so; UPOS is the tagger's (gold or jackknifed)."""
    import warnings
    import maltpy
    from maltpy.errors import MaltpyWarning
    seen = parser_inputs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipeline = maltpy.train(TOY_TRAIN, tagger="upos", tagger_folds=folds, verbose=False)
    assert any(issubclass(w.category, MaltpyWarning) and "reads xpos" in str(w.message) for w in caught)
    rows = seen[-1]
    assert all(r[4] == "_" for r in rows) and sum(r[3] != "_" for r in rows) == len(rows)
    gold = [r for s in read_conll(TOY_TRAIN) for r in s.rows]
    assert any(r[4] != "_" for r in gold)
    assert [c.name for c in pipeline.components] == ["tagger", "parser"]


def test_the_learned_pipeline_says_which_parser_it_took(toy_pipeline, tmp_path):
    info = _run("info", toy_pipeline)
    assert "perceptron" in info.stdout and "NivreEagerMorph" in info.stdout, info.stdout
    malt = str(tmp_path / "malt.mpz")
    r = _run("-c", malt, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos", "-l", "liblinear", "-v")
    assert r.returncode == 0, r.stderr
    assert "pipeline's defaults" not in r.stderr
    info = _run("info", malt)
    assert "liblinear" in info.stdout and "NivreEagerLean" not in info.stdout, info.stdout
    assert "learned from the treebank's gold tags" in info.stdout        # behind liblinear: 1 fold
    tags = re.search(r"learned from 3-fold jackknifed tags; agreeing with the gold tags: UPOS (\d+\.\d+) %, "
                     r"XPOS (\d+\.\d+) %", _run("info", toy_pipeline).stdout)
    assert tags and all(50 < float(x) <= 100 for x in tags.groups())
    # a configuration file's choices count as chosen, as flags do
    from maltpy.cli.main import _main_parser, _settings_from_args
    config = tmp_path / "c.yaml"
    config.write_text("model: m.mpz\nlearner: liblinear\n")
    chosen = _settings_from_args(_main_parser().parse_args(["-c", str(config), "--tagger", "all"]))[3]
    assert {"learner", "tagger"} <= chosen and "model" not in chosen


def test_a_tagger_alone_tags_as_the_tagger_learned_with_a_parser(tmp_path):
    """--parser false: a model of the tagger alone (UDPipe's --parser=none), whose -m tag output is
    the bytes of the tagger learned beside a parser from gold tags; -m parse says it writes no
    trees; with nothing else to learn it is refused in one line, on the command line and in Python."""
    import maltpy
    from maltpy.errors import MaltpyError
    alone, both = str(tmp_path / "alone.mpz"), str(tmp_path / "both.mpz")
    r = _run("-c", alone, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos,xpos,lemma", "--parser", "false")
    assert r.returncode == 0, r.stderr
    assert _run("-c", both, "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos,xpos,lemma",
                "--tagger-folds", "1").returncode == 0
    info = _run("info", alone).stdout
    assert "1 component\n" in info and "tagger" in info and "parser" not in info, info
    words = tmp_path / "w.conllu"
    words.write_text("".join("\t".join([c[0], c[1]] + ["_"] * 8) + "\n" if len(c) == 10 else line
                             for line in open(TOY_TRAIN, encoding="utf-8") for c in [line.rstrip("\n").split("\t")]))
    tagged = {m: _run("-c", m, "-m", "tag", "-i", str(words)) for m in (alone, both)}
    assert tagged[alone].returncode == 0 and tagged[alone].stdout == tagged[both].stdout != ""
    r = _run("-c", alone, "-m", "parse", "-i", str(words))
    assert r.returncode == 0 and r.stdout == tagged[alone].stdout and "has no parser" in r.stderr
    r = _run("-c", str(tmp_path / "folds.mpz"), "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos", "--parser",
             "false", "--tagger-folds", "3", "-q")
    assert r.returncode == 0 and "no parser, and the tagger learns from every sentence" in r.stderr
    r = _run("-c", str(tmp_path / "none.mpz"), "-m", "learn", "-i", TOY_TRAIN, "--parser", "false")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "give --tagger or --tokenizer" in r.stderr
    assert not (tmp_path / "none.mpz").exists()
    with pytest.raises(MaltpyError, match="parser=False learns no parser"):
        maltpy.train(TOY_TRAIN, parser=False, verbose=False)
    assert maltpy.train(TOY_TRAIN, tagger="upos", parser=False, verbose=False).parser is None


def test_the_model_file_says_what_it_holds(toy_pipeline):
    r = _run("info", toy_pipeline)
    assert r.returncode == 0, r.stderr
    assert "tagger" in r.stdout and "parser" in r.stdout and "UPOSTAG" in r.stdout


def test_command_line_mistakes_are_one_line(toy_pipeline, model, tmp_path):
    words = tmp_path / "w.txt"
    words.write_text("a b c\n")
    r = _run("-c", model, "-m", "tag", "-i", str(words), "-if", "horizontal")
    assert r.returncode == 1 and "has no tagger" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = _run("-c", str(tmp_path / "x"), "-m", "learn", "-i", str(words), "-if", "horizontal")
    assert r.returncode == 1 and "words only" in r.stderr
    r = _run("-c", str(tmp_path / "x"), "-m", "learn", "-i", TOY_TRAIN, "--tagger", "upos,pos")
    assert r.returncode == 1 and "'pos' is not a column" in r.stderr
    trees = tmp_path / "trees.mrg"
    trees.write_text("(S (NP (DT the) (NN dog)) (VP (VBZ runs)))\n")
    r = _run("-c", str(tmp_path / "x"), "-m", "learn", "-i", str(trees), "--tokenizer")
    assert r.returncode == 1 and "bracketed trees (.mrg) have none" in r.stderr and not (tmp_path / "x.mpz").exists()
    bad = tmp_path / "bad.vert"
    bad.write_text("a\tb\n")
    r = _run("-c", toy_pipeline, "-m", "parse", "-i", str(bad), "-if", "vertical", "-o", str(tmp_path / "o"))
    assert r.returncode == 1 and "bad.vert:1" in r.stderr and not (tmp_path / "o").exists()


def test_ewt_tagger_accuracy():
    """On real data: the tagger trained on part of EWT's training file tags its dev file about as
    UDPipe 1's does (UPOS 94.4 on test with gold tokens; docs/tagging.md has the full figures)."""
    train = read_conll(shared_file("ud", "en_ewt", "train.conllu"), "conllu")[:4000]
    dev = read_conll(shared_file("ud", "en_ewt", "dev.conllu"), "conllu")[:500]
    tagger = Tagger("upos,lemma", epochs=5, jobs=2).fit(train)
    tagged = tagger.tag(_blank(dev))
    assert _accuracy(dev, tagged, 3) > 0.90
    assert _accuracy(dev, tagged, 2) > 0.93


def test_hostile_untagged_input_parses_or_fails_in_one_line(toy_pipeline, tmp_path):
    """A 12,000-character word, a 50,000-word sentence, control characters, mixed scripts and
    blank lines in horizontal input: every word comes out tagged and attached, and the output
    reads back; a NUL-only vertical file is one line of error with no output."""
    rng = random.Random(3)
    long_word = "".join(rng.choice("abé漢ДЖ") for _ in range(12000))
    lines = [f"the {long_word} runs .", "", "ctrl \x00a b\x01c d\x7fe \u200bf \ufeffg",
             "mixed Ελληνικά русский 中文 عربى עברית .", "   ", " ".join(rng.choice(["the", "dog", "saw", "."])
                                                                      for _ in range(50000))]
    src = tmp_path / "hostile.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.conllu"
    r = _run("-c", toy_pipeline, "-m", "parse", "-i", str(src), "-if", "horizontal", "-o", str(out))
    assert r.returncode == 0, r.stderr
    parsed = read_conll(str(out), "conllu")
    assert [len(s) for s in parsed] == [len(line.split()) for line in lines if line.split()]
    assert parsed[0].rows[1][1] == long_word
    for s in parsed:
        assert all(r[3] != "_" and r[6] != "_" for r in s.rows)
        assert sum(r[6] == "0" for r in s.rows) == 1
    r = _run("-c", toy_pipeline, "-m", "tag", "-i", str(tmp_path / "missing.txt"), "-if", "vertical",
             "-o", str(tmp_path / "none.conllu"))
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "none.conllu").exists()
    empty = tmp_path / "empty.vert"
    empty.write_text("\n\n  \n")
    r = _run("-c", toy_pipeline, "-m", "tag", "-i", str(empty), "-if", "vertical", "-o", str(tmp_path / "e.conllu"))
    assert r.returncode == 1 and "no words" in r.stderr and not (tmp_path / "e.conllu").exists()


def test_tagging_reads_no_parser_learner_or_other_format(toy_pipeline, tmp_path):
    """``-m tag -j 1`` imports what tagging needs: not the learners, the export format, the beam,
    the tree transforms or a thread pool, which checking a setting's values and loading the tagger
    imported before (a tenth of a one-sentence run's start-up)."""
    words = tmp_path / "words.conllu"
    words.write_text("".join(f"{k}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for k, w in enumerate("the dog barks".split(), 1))
                     + "\n")
    code = ("import runpy, sys; sys.argv = ['maltpy', '-c', sys.argv[1], '-m', 'tag', '-i', sys.argv[2], "
            "'-o', sys.argv[3], '-j', '1']\n"
            "try:\n    runpy.run_module('maltpy', run_name='__main__')\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.startswith(('maltpy.learners', 'maltpy.formats.export', "
            "'maltpy.search', 'maltpy.transform', 'concurrent.futures'))))")
    r = subprocess.run([sys.executable, "-c", code, toy_pipeline, str(words), str(tmp_path / "out.conllu")],
                       capture_output=True, text=True, cwd=EXAMPLES)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    assert [r[3] != "_" for r in read_conll(str(tmp_path / "out.conllu"), "conllu")[0].rows] == [True] * 3


def test_each_setting_has_the_values_all_settings_have():
    """A setting's values, looked up alone (what checking a flag imports), are those of the whole
    table (what --help lists), and a setting of any value has none."""
    from maltpy.config import choices, choices_of
    table = choices()
    assert "algorithm" in table and "buffer_oracle" in table and "input_format" in table
    for name, values in table.items():
        assert choices_of(name) == values and values
    assert choices_of("input") is None and choices_of("tagger_epochs") is None


def _python_path(pipeline, source, fmt, output_format=None, tag_only=False):
    """What the Python path writes for a file (the reference for the compiled path)."""
    from maltpy.formats.conll import format_sentences, to_conllx
    sentences = read_conll(source, fmt)
    if (output_format or fmt) == "conllx" and fmt == "conllu":
        sentences = [to_conllx(s) for s in sentences]
    done = pipeline.tag(sentences) if tag_only else pipeline.parse(sentences)
    return format_sentences(done).encode()


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_the_compiled_path_writes_what_the_python_path_writes(toy_pipeline, tmp_path_factory, data):
    """Random untagged, partly tagged and commented input, CoNLL-X or CoNLL-U, chunked small or
    not, on one or two threads: -m tag and -m parse write the bytes the Python path writes."""
    from maltpy.components import Pipeline, TaggerComponent
    pipeline = Pipeline.load(toy_pipeline)
    tmp = tmp_path_factory.mktemp("compiled")
    gold = read_conll(TOY_TEST, "conllx")
    fmt = data.draw(st.sampled_from(["conllx", "conllu"]))
    lines = []
    for s in gold[:data.draw(st.integers(1, 40))]:
        if fmt == "conllu" and data.draw(st.booleans()):
            lines.append("# text = " + " ".join(s.forms))
        keep = data.draw(st.sets(st.sampled_from([2, 3, 4, 5])))
        for r in s.rows:
            row = [v if k in keep or k in (0, 1) else "_" for k, v in enumerate(r)]
            if data.draw(st.integers(0, 30)) == 0:
                row[data.draw(st.sampled_from([2, 3, 4]))] = "_"     # a gap: the column is tagged
            if data.draw(st.integers(0, 30)) == 0:
                column = data.draw(st.sampled_from([2, 3, 4]))
                row[column] = "NEW" if row[column] != "_" else "_"   # a given value the tagger never saw
            lines.append("\t".join(row))
        lines.append("")
    if data.draw(st.booleans()):
        lines.append("# a comment after the last sentence" if fmt == "conllu" else "")
    src = tmp / f"in.{fmt}"
    src.write_text("\n".join(lines) + "\n")
    out = tmp / "out"
    output_format = data.draw(st.sampled_from([None, "conllx"]))
    for tag_only in (True, False):
        runner = Pipeline([c for c in pipeline.components if isinstance(c, TaggerComponent)]) if tag_only else pipeline
        runner.parse_file(str(src), str(out), fmt, output_format, jobs=data.draw(st.sampled_from([1, 2])))
        assert out.read_bytes() == _python_path(pipeline, str(src), fmt, output_format, tag_only)


def test_the_compiled_path_on_ewt_writes_what_the_python_path_writes(tmp_path):
    dev = shared_file("ud", "en_ewt", "dev.conllu")
    train = read_conll(shared_file("ud", "en_ewt", "train.conllu"), "conllu")[:1500]
    import maltpy
    pipeline = maltpy.train(train, tagger="all", tagger_epochs=2, input_format="conllu")
    words = tmp_path / "words.conllu"
    with open(dev, encoding="utf-8") as f:
        text = f.read()[:400000]
    text = text[:text.rfind("\n\n") + 2]
    words.write_text("\n".join("\t".join(p[:2] + ["_"] * 8) if len(p) == 10 and p[0].isdigit() else "\t".join(p)
                               for p in (line.split("\t") for line in text.split("\n"))))
    out = tmp_path / "out.conllu"
    pipeline.parse_file(str(words), str(out), "conllu", jobs=2)
    assert out.read_bytes() == _python_path(pipeline, str(words), "conllu")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
                                 min_size=1, max_size=6).filter(lambda w: w.split() == [w]),
                         min_size=1, max_size=6).map(lambda s: s + ["The", "Walked", "ΣΟΦΟΣ", "İNGED"]),
                min_size=1, max_size=6))
def test_any_characters_tag_the_same_on_both_paths(toy_tagger, tmp_path_factory, words):
    """Astral characters, İ and final Σ (whose lowercase changes length or depends on context),
    combining marks: the compiled path's lemmas and tags are the Python path's, byte for byte
    (the toy language's lemmas lowercase, cut suffixes and come from the dictionary)."""
    from maltpy.components import Pipeline, TaggerComponent
    tagger = Pipeline([TaggerComponent(toy_tagger)])
    tmp = tmp_path_factory.mktemp("chars")
    src = tmp / "in.conllu"
    src.write_text("".join("".join(f"{k}\t{w}" + "\t_" * 8 + "\n" for k, w in enumerate(s, 1)) + "\n" for s in words),
                   encoding="utf-8")
    tagger.parse_file(str(src), str(tmp / "out"), "conllu")
    assert (tmp / "out").read_bytes() == _python_path(tagger, str(src), "conllu", tag_only=True)


def test_given_features_are_kept_alike_on_both_paths(toy_tagger, tmp_path):
    """FEATS given at some words of a sentence (the others _, no features) are kept by the compiled
    path as by the Python path; a sentence without any is tagged."""
    from maltpy.components import Pipeline, TaggerComponent
    tagger = Pipeline([TaggerComponent(toy_tagger)])
    lines = []
    for n, s in enumerate(_toy_language(11, 30)):
        for k, r in enumerate(s.rows):
            feats = "Odd=Yes" if (k == 0 and n % 2) else ("Number=Sing" if k == 1 and n % 3 == 0 else "_")
            lines.append("\t".join([r[0], r[1], "_", "_", "_", feats, "_", "_", "_", "_"]))
        lines.append("")
    src = tmp_path / "in.conllu"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tagger.parse_file(str(src), str(tmp_path / "out"), "conllu")
    written = (tmp_path / "out").read_bytes()
    assert written == _python_path(tagger, str(src), "conllu", tag_only=True)
    assert b"Odd=Yes" in written


def test_lemma_rules_of_odd_lowercases():
    """Rules made and applied character by character: a form keeps its length when lowercased."""
    for form, lemma in [("İstanbul", "istanbul"), ("ΟΔΟΣ", "οδος"), ("Straße", "straße"), ("𝐀bc", "𝐀b")]:
        assert apply_rule(form, lemma_rule(form, lemma)) == lemma


def test_pre_tokenized_text_takes_the_compiled_path_with_the_same_bytes(toy_pipeline, tmp_path):
    from maltpy.components import Pipeline
    from maltpy.formats.conll import format_sentences
    from maltpy.formats.plain import iter_plain
    pipeline = Pipeline.load(toy_pipeline)
    gold = read_conll(TOY_TEST, "conllx")
    for fmt, text in (("horizontal", "".join(" ".join(s.forms) + "\n\n" for s in gold) + "  Σ İ 𝐀 \x00 \n"),
                      ("vertical", "".join("\n".join(s.forms) + "\n\n\n" for s in gold) + "x\r\ny")):
        src = tmp_path / f"in.{fmt}"
        src.write_bytes(text.encode("utf-8"))
        for tag_only in (False, True):
            runner = Pipeline(pipeline.components[:1]) if tag_only else pipeline
            out = tmp_path / "out"
            runner.parse_file(str(src), str(out), fmt, jobs=2)
            expected = runner.tag(list(iter_plain(str(src), fmt))) if tag_only else \
                runner.parse(list(iter_plain(str(src), fmt)))
            assert out.read_bytes() == format_sentences(expected).encode()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(st.one_of(st.characters(blacklist_categories=()), st.sampled_from("\n\r\x85\u2028a")),
                        max_size=6), max_size=8))
def test_a_pool_holds_each_string_at_its_offsets(strings):
    """The compiled path's string pools (values, lemmas) give back every string, ASCII or not
    (lone surrogates too, as the model's strings may hold them), whether the strings hold line
    breaks (encoded one by one) or not (encoded joined and cut at the breaks)."""
    from maltpy.tagging.stream import _pool
    data, offsets = _pool(strings)
    assert offsets.shape == (len(strings) + 1,) and offsets[0] == 0 and offsets[-1] == len(data)
    for k, s in enumerate(strings):
        assert data[offsets[k]:offsets[k + 1]] == s.encode("utf-8", "surrogatepass")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.lists(st.lists(st.tuples(st.integers(0, 8), st.floats(-5, 5, width=32)), max_size=5),
                                   max_size=12), st.integers(0, 6))
def test_heavy_rows_are_the_dense_rows_of_the_features_with_many_entries(n_classes, rows, min_entries):
    """heavy_rows: a dense row for each feature of at least ``min_entries`` CSR entries (at least
    one), the same row dense_rows gives it; -1 for the others."""
    from maltpy.tagging import perceptron
    rows = [{c % n_classes: w for c, w in row} for row in rows]
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    classes = np.array([c for r in rows for c in r], dtype=np.int32)
    weights = np.array([w for r in rows for w in r.values()], dtype=np.float32)
    every = perceptron.dense_rows(indptr, classes, weights, n_classes)
    row_of, heavy = perceptron.heavy_rows(indptr, classes, weights, n_classes, min_entries)
    assert row_of.dtype == np.int32 and heavy.dtype == np.float32 and heavy.shape[1] == n_classes
    for f, r in enumerate(rows):
        if len(r) >= max(min_entries, 1):
            assert np.array_equal(heavy[row_of[f]], every[f])
        else:
            assert row_of[f] == -1
    assert sorted(row_of[row_of >= 0].tolist()) == list(range(heavy.shape[0]))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 12))
def test_dense_csr_and_mixed_rows_tag_alike(toy_tagger, seed, min_entries):
    """predict adds a word's feature rows entry by entry (CSR), as dense rows of every feature,
    or dense for the features with many entries and CSR for the rest: the same sums in the same
    order, so the same scores and the same tags, for every group."""
    from maltpy.tagging import perceptron
    from maltpy.tagging.tagger import N_ROWS
    from maltpy.tagging.words import words_of
    words = words_of(_blank(_toy_language(seed % 1000, 30)))
    model, (groups, _, _, _, _) = toy_tagger.model_, toy_tagger._runtime()
    results = []
    for way in ("csr", "dense", "mixed"):
        values = np.full((N_ROWS, words.n_words), -1, dtype=np.int32)
        fixed = np.zeros((N_ROWS, words.n_words), dtype=np.int8)
        got = []
        for g, (fm, compiled, _, _) in zip(model.groups, groups):
            n_classes = g.class_values.shape[0]
            dense = dense_of = None
            if way == "dense":
                dense = perceptron.dense_rows(g.indptr, g.classes, g.weights, n_classes)
            elif way == "mixed":
                dense_of, dense = perceptron.heavy_rows(g.indptr, g.classes, g.weights, n_classes, min_entries)
            out = np.empty(words.n_words, dtype=np.int32)
            scores = np.zeros((words.n_words, n_classes), dtype=np.float32)
            perceptron.predict(words.cps, words.low, words.shp, words.wstart, words.sstart, values, fixed, fm,
                               g.indptr, g.classes, g.weights, g.class_values, g.rows, compiled, out, dense=dense,
                               cache_bytes=0, scores_out=scores, dense_of=dense_of)
            got.append((out, scores))
        results.append((values, got))
    for values, got in results[1:]:
        assert np.array_equal(values, results[0][0])
        for (out, scores), (out0, scores0) in zip(got, results[0][1]):
            assert np.array_equal(out, out0) and np.array_equal(scores, scores0)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.lists(st.lists(st.tuples(st.integers(0, 8), st.floats(-5, 5, width=32)), max_size=5),
                                   max_size=12))
def test_dense_rows_hold_each_features_votes(n_classes, rows):
    """A group's CSR weight rows as a dense matrix: each feature's weight for each class it voted
    for, zero elsewhere, as the plain definition gives; classes outside the group and falling row
    pointers are refused."""
    from maltpy.tagging import perceptron
    rows = [{c % n_classes: w for c, w in row} for row in rows]
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    classes = np.array([c for r in rows for c in r], dtype=np.int32)
    weights = np.array([w for r in rows for w in r.values()], dtype=np.float32)
    expected = np.zeros((len(rows), n_classes), dtype=np.float32)
    for i, r in enumerate(rows):
        for c, w in r.items():
            expected[i, c] = w
    got = perceptron.dense_rows(indptr, classes, weights, n_classes)
    assert got.dtype == np.float32 and np.array_equal(got, expected)
    if len(classes):
        with pytest.raises(ValueError):
            perceptron.dense_rows(indptr, np.full_like(classes, n_classes), weights, n_classes)
        with pytest.raises(ValueError):
            perceptron.dense_rows(indptr[::-1].copy(), classes, weights, n_classes)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1,
                                 max_size=6), min_size=1, max_size=5), min_size=1, max_size=4))
def test_a_chunks_words_are_the_words_of_its_forms(sentences):
    """A scanned chunk's forms as the compiled tagger reads them, each character's lowercase and
    shape looked up while it is decoded, are the words ``words_from_arrays`` makes of the same
    code points: characters new to the tables, beyond the Basic Multilingual Plane, and known."""
    from maltpy.formats.scan import Scanner
    from maltpy.tagging.chunks import chunk_forms
    from maltpy.tagging.words import words_from_arrays, words_of_chunk
    text = "".join("".join(f"{i}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i, form in enumerate(s, 1)) + "\n"
                   for s in sentences)
    scanner = Scanner("conllu", "in")
    chunk = scanner.feed(text.encode("utf-8"))
    for _ in range(2):      # the second time, every character is known
        words = words_of_chunk(chunk)
        expected = words_from_arrays(*chunk_forms(chunk)[:3])
        for got, want in zip(words, expected):
            assert got.dtype == want.dtype and got.tolist() == want.tolist()
        assert "".join(map(chr, words.cps)) == "".join(f for s in sentences for f in s)
