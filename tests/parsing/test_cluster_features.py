"""Word clusters in the parser's features: Cluster(InputColumn(FORM, a)) and
Prefix(Cluster(...), n), their tables in the model file, and both encoders alike."""
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.features.spec import Cluster, FeatureSpecError, InputColumn, Prefix, parse_feature
from maltpy.formats.conll import format_sentences, read_conll
from maltpy.parsing.encode import NO_CLUSTER, ClusterTable
from maltpy.parsing.parser import Parser
from maltpy.formats.clusters import WordClusters

from conftest import EXAMPLES

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")
FEATURES = os.path.join(os.path.dirname(__file__), "..", "..", "feature_models", "liblinear", "conllx",
                        "NivreEagerMorphClusters.yaml")


def test_cluster_features_read_and_print_back():
    f = parse_feature("Prefix(Cluster(InputColumn(FORM, Stack[0])), 6)")
    assert isinstance(f, Prefix) and isinstance(f.feature, Cluster) and isinstance(f.feature.feature, InputColumn)
    assert parse_feature(str(f)) == f
    assert str(parse_feature("Cluster(InputColumn(FORM, Input[1]))")) == "Cluster(InputColumn(FORM, Input[1]))"
    for bad in ("Cluster(InputColumn(POSTAG, Stack[0]))", "Suffix(Cluster(InputColumn(FORM, Stack[0])), 2)",
                "Split(Prefix(Cluster(InputColumn(FORM, Stack[0])), 2), \\|)", "Cluster(Stack[0])",
                "Cluster(InputColumn(FORM, Stack[0]), 3)"):
        with pytest.raises(FeatureSpecError):
            parse_feature(bad)


@pytest.fixture(scope="module")
def clusters_file(tmp_path_factory):
    """Clusters for most of the toy treebank's words (some left out, some spelled otherwise)."""
    rng = random.Random(3)
    words = sorted({r[1] for s in read_conll(TRAIN) + read_conll(TEST) for r in s.rows})
    lines = []
    for w in words:
        if rng.random() < 0.15:
            continue
        spelling = w.upper() if rng.random() < 0.2 else w
        lines.append(f"{''.join(rng.choice('01') for _ in range(rng.randint(3, 10)))}\t{spelling}\t{rng.randint(1, 99)}")
    path = tmp_path_factory.mktemp("clusters") / "toy.paths"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def cluster_parser(clusters_file):
    return Parser(features=FEATURES, clusters=clusters_file, learner="perceptron", oracle="dynamic").fit(
        read_conll(TRAIN), fmt="conllx")


def test_a_cluster_table_gives_every_spelling_its_cluster(clusters_file):
    clusters = WordClusters.read(clusters_file)
    whole, first = ClusterTable.from_clusters(clusters, 0), ClusterTable.from_clusters(clusters, 1)
    word, path = clusters.words[0], clusters.clusters[0]
    low = word.lower()
    for table in (whole, first):
        assert all(i > NO_CLUSTER for i in table.ids.values())
        # the file's spelling, and its lowercase, capitalized and upper-case forms, alike
        assert len({table.ids[s] for s in (word, low, low.capitalize(), low.upper())}) == 1
        assert table.encode(["no-such-word", word], grow=True) == [NO_CLUSTER, table.ids[word]]
    # two words of one cluster share an id; of the first character, more words share one
    assert len(set(first.ids.values())) <= 2 < len(set(whole.ids.values()))
    same = [w for w, p in zip(clusters.words, clusters.clusters) if p == path]
    assert len({whole.ids[w] for w in same}) == 1


def test_a_cluster_parser_parses_and_its_file_keeps_the_tables(cluster_parser, tmp_path):
    test = read_conll(TEST)
    parsed = cluster_parser.parse(test)
    path = str(tmp_path / "m.mpz")
    cluster_parser.save(path)
    again = Parser.load(path)
    assert [s.rows for s in again.parse(test)] == [s.rows for s in parsed]
    tables = [t for t in again.token_tables if isinstance(t, ClusterTable)]
    assert len(tables) == 2 and all(t.ids == o.ids for t, o in zip(
        tables, [t for t in cluster_parser.token_tables if isinstance(t, ClusterTable)]))
    # the compiled chunk path (bytes in, bytes out) writes what the Python path writes
    out = tmp_path / "out.conll"
    again.parse_file(TEST, str(out), "conllx")
    assert out.read_text(encoding="utf-8") == format_sentences(parsed)
    # maltpy info says what the model keeps of the clusters, and names each column read once
    assert again.describe()["word clusters"] == {"columns": 2, "spellings": len(tables[0])}
    from maltpy.components.parser import ParserComponent
    reads = ParserComponent(again).reads
    assert len(reads) == len(set(reads)) and "FORM" in reads


def test_a_cluster_parser_learns_only_with_clusters(clusters_file):
    with pytest.raises(MaltpyError, match="--clusters"):
        Parser(features=FEATURES).fit(read_conll(TRAIN), fmt="conllx")
    # clusters that no feature reads are said to be unused
    from maltpy.errors import MaltpyWarning
    with pytest.warns(MaltpyWarning, match="reads no word clusters"):
        Parser(clusters=clusters_file).fit(read_conll(TRAIN), fmt="conllx")


def test_damaged_cluster_tables_are_refused(cluster_parser):
    from maltpy.parsing import modelfile
    from maltpy.parsing.storage import parser_bytes
    header, arrays = modelfile.load_model("<p>", data=parser_bytes(cluster_parser))
    # the two cluster columns share one array of spellings
    assert sorted(set(header["cluster_tables"].values())) == [0] and "cluster_lines0" in arrays
    j = next(iter(header["cluster_tables"]))
    lines, ids = arrays["cluster_lines0"], arrays[f"cluster_ids{j}"]
    newline = np.array([10], dtype=np.uint8)
    damaged = [
        ({"cluster_tables": {}}, {}),
        ({"cluster_tables": {**header["cluster_tables"], j: 1}}, {}),       # no such array
        ({"cluster_tables": {**header["cluster_tables"], j: "0"}}, {}),
        ({}, {"cluster_lines0": np.r_[lines, newline, lines[:1]].astype(np.uint8)}),   # one spelling more
        ({}, {"cluster_lines0": np.r_[lines, newline].astype(np.uint8)}),              # an empty last line
        ({}, {"cluster_lines0": np.r_[newline, lines].astype(np.uint8)}),
        ({}, {"cluster_lines0": np.r_[lines[:1], newline, newline, lines[1:]].astype(np.uint8)}),  # an empty line within
        ({}, {"cluster_lines0": np.zeros(0, np.uint8)}),
        ({}, {"cluster_lines0": lines.astype(np.int32)}),
        ({}, {f"cluster_ids{j}": np.where(np.arange(len(ids)) == 0, NO_CLUSTER, ids).astype(np.int32)}),
        ({}, {f"cluster_ids{j}": ids[:-1].copy()}),
    ]
    for head, arr in damaged:
        with pytest.raises(ModelFileError):
            Parser.from_bytes(modelfile.model_bytes({**header, **head}, {**arrays, **arr}))
    # spellings that are not UTF-8 only never match: the Python and the compiled paths agree
    broken = lines.copy()
    broken[0] = 0xFF
    parser = Parser.from_bytes(modelfile.model_bytes(header, {**arrays, "cluster_lines0": broken}))
    assert [s.rows for s in parser.parse(read_conll(TEST)[:5])]


def test_behind_a_tagger_with_clusters_the_parser_reads_them(clusters_file, tmp_path):
    import maltpy
    pipeline = maltpy.train(TRAIN, tagger="all", clusters=clusters_file, tagger_epochs=2, tagger_folds=2)
    parser = pipeline.components[-1].parser
    assert parser.settings.features == "NivreEagerMorphClusters"
    assert any(isinstance(t, ClusterTable) for t in parser.token_tables)
    assert any("Cluster" in t for g in pipeline.components[0].tagger.model_.groups for t in g.templates)
    # the command line says which parser it learned
    done = subprocess.run([sys.executable, "-m", "maltpy", "-c", "m", "-m", "learn", "-i", TRAIN, "--tagger", "all",
                           "--clusters", clusters_file, "--tagger-epochs", "1", "--tagger-folds", "2", "-v"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "-F NivreEagerMorphClusters" in done.stderr
