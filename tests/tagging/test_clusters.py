"""Word clusters in the tagger (--clusters): the file, the templates, learning, the model
file and both tagging paths."""
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.features.spec import FeatureSpecError
from maltpy.formats.conll import Sentence
from maltpy.formats.clusters import WordClusters
from maltpy.tagging.clusters import cluster_tables
from maltpy.tagging.tagger import N_ROWS, Tagger
from maltpy.tagging.templates import (CLUSTER, LEXICON, cluster_lengths, cluster_rows, compile_templates,
                                      parse_template, usable_templates)


def _write(path, text):
    path.write_bytes(text.encode("utf-8"))
    return str(path)


# ---------------------------------------------------------------- the file
def test_a_clusters_file_gives_each_lowercased_form_one_cluster(tmp_path):
    path = _write(tmp_path / "paths", "0110\tApple\t40\n0111\tAPPLE\t90\n"   # no lowercase spelling: the most frequent
                                      "10\tpear\t3\n11\tPear\t500\n"           # the lowercase spelling first
                                      "000\tKiwi\n001\tKIWI\n"                  # no counts: the first
                                      "\n0111\tbanana\n10\tcherry\n000\tfig\n1\tplum\r\n")
    clusters = WordClusters.read(path)
    assert len(clusters) == 10 and clusters.source == "paths"
    keys, (whole, one) = cluster_tables(clusters, [0, 1])
    assert len(keys) == 7 and (keys[1:] > keys[:-1]).all()
    from maltpy.tagging import perceptron
    from maltpy.tagging.words import words_from_forms
    forms = ["apple", "pear", "kiwi", "banana", "cherry", "fig", "plum"]
    words = words_from_forms(forms)
    at = dict(zip(forms, np.searchsorted(keys, perceptron.form_hashes(words.low, words.wstart)).tolist()))
    cluster = {f: int(whole[i]) for f, i in at.items()}
    assert cluster["apple"] == cluster["banana"] and cluster["pear"] == cluster["cherry"] \
        and cluster["kiwi"] == cluster["fig"]
    assert len(set(cluster.values())) == 4
    first = {f: int(one[i]) for f, i in at.items()}       # 0: apple, kiwi; 1: pear, plum
    assert first["apple"] == first["kiwi"] != first["pear"] == first["plum"]


@pytest.mark.parametrize("text, where", [
    ("0110 apple\n", ":1:"),                   # blanks, not a tab
    ("0110\tapple\n01\t\n", ":2:"),            # no word
    ("0110\tapple\tmany\n", ":1:"),            # a count that is not a number
    ("0110\tapple\t-3\n", ":1:"),
    ("0110\tapple\t3\textra\n", ":1:"),
    ("0110\tap ple\n", ":1:"),
    ("\n\n", "no word clusters"),
    ("0110\tapple\r0111\tpear\n", ":1: a carriage return"),    # lines end at line feeds (CRLF too)
])
def test_a_bad_clusters_file_is_refused_with_its_line(tmp_path, text, where):
    path = _write(tmp_path / "bad", text)
    with pytest.raises(MaltpyError) as e:
        WordClusters.read(path)
    assert where in str(e.value) and "\n" not in str(e.value)


def test_an_unreadable_clusters_file_is_one_line(tmp_path):
    (tmp_path / "latin1").write_bytes(b"01\tcaf\xe9\n")
    for path in (str(tmp_path / "latin1"), str(tmp_path / "missing"), str(tmp_path)):
        with pytest.raises(MaltpyError) as e:
            WordClusters.read(path)
        assert "\n" not in str(e.value)


# ---------------------------------------------------------------- templates
def test_cluster_templates_compile_to_the_tables_of_their_prefix_lengths():
    assert parse_template("Cluster(Input[1])") == ((CLUSTER, 0, 1),)
    assert parse_template("Prefix(Cluster(pred(Input[0])), 6)") == ((CLUSTER, 6, -1),)
    texts = ["Prefix(Cluster(Input[0]), 6)", "Merge(Cluster(Input[0]), OutputColumn(UPOSTAG, pred(Input[0])))",
             "InputColumn(FORM, Input[0])"]
    lengths = cluster_lengths(texts)
    assert lengths == [0, 6]
    rows = cluster_rows(lengths, N_ROWS)
    compiled = compile_templates(texts, [], [1], cluster_rows=rows)
    assert compiled[0, 0].tolist() == [LEXICON, rows[6], 0]
    assert compiled[1, 0].tolist() == [LEXICON, rows[0], 0]
    with pytest.raises(FeatureSpecError, match="--clusters"):
        compile_templates(texts, [], [1])
    with pytest.raises(FeatureSpecError):
        parse_template("Suffix(Cluster(Input[0]), 2)")
    with pytest.raises(FeatureSpecError):
        parse_template("Cluster(Input[0], 3)")
    # the shipped templates without a clusters file leave the cluster templates out
    assert usable_templates(texts, [], [1]) == ["InputColumn(FORM, Input[0])"]
    assert usable_templates(texts, [], [1], clusters=True) == texts


# ---------------------------------------------------------------- learning
def _language(seed, stems, n_sentences):
    """Sentences of DET + stem (NOUN) or PRON + stem (VERB): no suffix tells a noun stem from a
    verb stem, and the word before is the same for both half of the time ("that"), so that only
    a stem's cluster can tell an unseen one's tag."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_sentences):
        rows = []
        for k in range(0, rng.randint(1, 4) * 2, 2):
            noun = rng.random() < 0.5
            first = "that" if rng.random() < 0.5 else ("the" if noun else "they")
            stem = rng.choice(stems[0] if noun else stems[1])
            for i, (form, upos) in enumerate(((first, "DET" if noun else "PRON"), (stem, "NOUN" if noun else "VERB"))):
                rows.append([str(k + i + 1), form, form, upos, upos[:2], "_", "0" if k + i == 0 else "1", "dep", "_", "_"])
        out.append(Sentence(rows, format="conllu"))
    return out


@pytest.fixture(scope="module")
def cluster_setting(tmp_path_factory):
    rng = random.Random(7)
    stems = set()
    while len(stems) < 400:
        stems.add("".join(rng.choice("bcdfglmnprstv") + rng.choice("aeiou") for _ in range(3)))
    stems = sorted(stems)
    nouns, verbs = stems[:200], stems[200:]
    seen = (nouns[:100], verbs[:100])
    unseen = (nouns[100:], verbs[100:])
    lines = [f"0{rng.choice('01')}{rng.choice('01')}\t{s}\t{rng.randint(1, 50)}" for s in nouns] + \
            [f"1{rng.choice('01')}{rng.choice('01')}\t{s.capitalize()}" for s in verbs]
    path = tmp_path_factory.mktemp("clusters") / "stems.paths"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    train, test = _language(1, seen, 300), _language(2, unseen, 150)
    with open(tmp_path_factory.mktemp("t") / "templates.yaml", "w", encoding="utf-8") as f:
        f.write("upos:\n  - InputColumn(FORM, Input[0])\n  - Suffix(Lower(InputColumn(FORM, Input[0])), 2)\n"
                "  - OutputColumn(UPOSTAG, pred(Input[0]))\n  - Prefix(Cluster(Input[0]), 1)\n"
                "  - Merge(Cluster(Input[1]), Lower(InputColumn(FORM, Input[0])))\n")
        templates = f.name
    return str(path), train, test, templates


def _upos_accuracy(tagger, test):
    blank = [Sentence([r[:2] + ["_"] * 4 + r[6:] for r in s.rows], format=s.format) for s in test]
    tagged = tagger.tag(blank)
    pairs = [(a[3], b[3]) for s, t in zip(test, tagged) for a, b in zip(s.rows, t.rows)]
    return sum(a == b for a, b in pairs) / len(pairs)


def test_clusters_tag_the_words_training_never_saw(cluster_setting):
    path, train, test, _ = cluster_setting
    without = _upos_accuracy(Tagger("upos", epochs=5).fit(train), test)
    tagger = Tagger("upos", epochs=5, clusters=path).fit(train)
    with_clusters = _upos_accuracy(tagger, test)
    # after "that" (half the content words) only the cluster tells an unseen noun from a verb
    assert with_clusters > 0.99 and without < 0.93, (with_clusters, without)
    # the shipped templates' cluster features are used; a tagger without clusters has none of them
    assert any("Cluster" in t for t in tagger.model_.groups[0].templates)
    assert not any("Cluster" in t for t in Tagger("upos", epochs=1).fit(train).model_.groups[0].templates)


def test_own_templates_reading_clusters_need_a_clusters_file(cluster_setting):
    path, train, test, templates = cluster_setting
    with pytest.raises(MaltpyError, match="--clusters"):
        Tagger("upos", templates=templates).fit(train)
    tagger = Tagger("upos", templates=templates, epochs=5, clusters=WordClusters.read(path)).fit(train)
    assert _upos_accuracy(tagger, test) > 0.99


def test_a_model_keeps_its_clusters_and_tags_alike_from_its_bytes(cluster_setting):
    path, train, test, _ = cluster_setting
    tagger = Tagger("upos,xpos,lemma", epochs=3, clusters=path).fit(train)
    again = Tagger.from_bytes(tagger.to_bytes())
    blank = [Sentence([r[:2] + ["_"] * 4 + r[6:] for r in s.rows], format=s.format) for s in test]
    assert [s.rows for s in again.tag(blank)] == [s.rows for s in tagger.tag(blank)]
    described = again.describe()["word clusters"]
    assert described == {"file": "stems.paths", "words": 400, "prefix lengths": [8, 12]}


def test_damaged_cluster_tables_are_refused(cluster_setting, monkeypatch):
    from maltpy.parsing import modelfile
    path, train, _, _ = cluster_setting
    tagger = Tagger("upos", epochs=1, clusters=path).fit(train)
    header, arrays = modelfile.load_model("<t>", data=tagger.to_bytes())
    damaged = [
        ({"cluster_lengths": [12, 8]}, {}),
        ({"cluster_lengths": [8, 12, 99]}, {}),
        ({"cluster_lengths": "8"}, {}),
        ({"clusters": {"file": 3, "words": 1}}, {}),
        ({}, {"cluster_keys": arrays["cluster_keys"][::-1].copy()}),
        ({}, {"cluster0_classes": arrays["cluster0_classes"][:-1].copy()}),
        ({}, {"cluster1_classes": -arrays["cluster1_classes"] - 1}),
        ({"cluster_lengths": []}, {}),      # templates that read clusters the file does not hold
    ]
    for head, arr in damaged:
        data = modelfile.model_bytes({**header, **head}, {**arrays, **arr})
        with pytest.raises(ModelFileError):
            Tagger.from_bytes(data)


def test_fold_taggers_read_the_clusters_too(cluster_setting, monkeypatch):
    """Jackknifing: every tagger a training makes (the folds' and the full one) reads the same
    clusters, read from the file once."""
    import maltpy
    from maltpy.formats import clusters as clusters_module
    path, train, _, _ = cluster_setting
    reads, fitted = [], []
    real_read, real_fit = WordClusters.read.__func__, Tagger.fit
    monkeypatch.setattr(clusters_module.WordClusters, "read",
                        classmethod(lambda cls, p: reads.append(p) or real_read(cls, p)))
    monkeypatch.setattr(Tagger, "fit", lambda self, *a, **k: fitted.append(self.clusters) or real_fit(self, *a, **k))
    maltpy.train(train, tagger="upos,xpos", tagger_folds=3, clusters=path, tagger_epochs=1, input_format="conllu")
    assert reads == [path]
    assert len(fitted) == 4 and all(c is not None and c is fitted[0] for c in fitted)


# ---------------------------------------------------------------- the command line
def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, cwd=cwd)


def test_learn_with_clusters_tag_and_say_so(cluster_setting, tmp_path):
    from maltpy.formats.conll import format_sentences
    from maltpy.components import Pipeline
    path, train, test, _ = cluster_setting
    (tmp_path / "train.conllu").write_text(format_sentences(train), encoding="utf-8")
    words = tmp_path / "words.conllu"
    words.write_text(format_sentences([Sentence([r[:2] + ["_"] * 8 for r in s.rows], format="conllu")
                                       for s in test]), encoding="utf-8")
    done = _run("-c", "m", "-m", "learn", "-i", "train.conllu", "--tagger", "upos", "--parser", "false",
                "--clusters", path, "--tagger-epochs", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    info = _run("info", "m.mpz", cwd=tmp_path)
    assert "clusters" in info.stdout and "400 words from stems.paths" in info.stdout
    # the compiled -m tag writes what the Python path writes
    assert _run("-c", "m", "-m", "tag", "-i", "words.conllu", "-o", "out.conllu", cwd=tmp_path).returncode == 0
    pipeline = Pipeline.load(str(tmp_path / "m.mpz"))
    from maltpy.formats.conll import read_conll
    expected = format_sentences(pipeline.tag(read_conll(str(words), "conllu"))).encode()
    assert (tmp_path / "out.conllu").read_bytes() == expected
    # a bad clusters file: one line naming it, non-zero exit, no model written
    (tmp_path / "bad.paths").write_text("0110 apple\n", encoding="utf-8")
    bad = _run("-c", "n", "-m", "learn", "-i", "train.conllu", "--tagger", "upos", "--parser", "false",
               "--clusters", "bad.paths", cwd=tmp_path)
    assert bad.returncode != 0 and "bad.paths:1:" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "n.mpz").exists()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="01ab \t\r\u00a0é", max_size=6), st.text(max_size=8),
                          st.one_of(st.none(), st.text(alphabet="0123456789-x ", max_size=4))), max_size=8))
def test_any_clusters_file_reads_or_is_refused_in_one_line(tmp_path_factory, rows):
    """Random lines: read into as many entries as the lines that hold words, each the line's
    fields, or refused in one line naming the file (and the line, where one is at fault)."""
    text = "".join(f"{c}\t{w}" + (f"\t{n}" if n is not None else "") + "\n" for c, w, n in rows)
    path = tmp_path_factory.mktemp("random") / "paths"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        clusters = WordClusters.read(str(path))
    except MaltpyError as e:
        assert "\n" not in str(e) and str(path) in str(e)
        return
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    lines = [line for line in lines if line.strip()]
    assert len(clusters) == len(lines)
    for line, word, cluster in zip(lines, clusters.words, clusters.clusters):
        fields = line.split("\t")
        assert (fields[0], fields[1]) == (cluster, word)


def test_a_configuration_names_learning_files_relative_to_itself(tmp_path):
    import os
    from maltpy.config import load_config
    (tmp_path / "conf").mkdir()
    path = tmp_path / "conf" / "ewt.yaml"
    path.write_text("clusters: en.paths\ntagger_templates: mine.yaml\n", encoding="utf-8")
    loaded = load_config(str(path))
    assert loaded["clusters"] == os.path.join(str(tmp_path / "conf"), "en.paths")
    assert loaded["tagger_templates"] == os.path.join(str(tmp_path / "conf"), "mine.yaml")
