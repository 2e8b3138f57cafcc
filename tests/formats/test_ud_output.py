"""CoNLL-U output that UD's tools accept (one word on the root, labelled root; -ro) and the CoNLL 2018
shared task's figures in maltpy eval (maltpy.evaluation.official)."""
import os
import random

from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES, random_tree
from maltpy.cli.main import main
from maltpy.evaluation.official import official_scores
from maltpy.evaluation.scores import evaluate
from maltpy.formats.conll import Sentence, read_conll, to_conllx, write_conll
from maltpy.formats.validate import find_cycle
from maltpy.transform.single_root import one_root

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


def _as_conllu(src, dst):
    """The example treebank as CoNLL-U (its CoNLL-X columns are CoNLL-U's first eight)."""
    write_conll(read_conll(src, "conllx"), str(dst))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 25))
def test_one_root_gives_a_tree_with_one_root_word_and_keeps_every_other_arc(seed, n):
    rng = random.Random(seed)
    heads = random_tree(rng, n)[1:]
    for k in rng.sample(range(n), rng.randint(0, n)):   # cut subtrees loose: a forest on the root
        heads[k] = 0
    labels = [rng.choice(["root", "ROOT", "nsubj", "punct"]) for _ in range(n)]
    h, l = one_root(heads, labels, "ROOT")
    roots = [k for k in range(n) if h[k] == 0]
    assert len(roots) == 1 and l[roots[0]] == "root"
    assert find_cycle([-1] + h) == []
    for k in range(n):
        if heads[k] != 0:   # root is for the root word alone
            assert (h[k], l[k]) == (heads[k], labels[k] if labels[k] != "root" else "dep")
        elif k != roots[0]:
            assert h[k] == roots[0] + 1 and l[k] not in ("root", "ROOT")
    explicit = [k for k in range(n) if heads[k] == 0 and labels[k] == "root"]
    if explicit:   # the first word the parser attached to the root as root is the main root
        assert roots[0] == explicit[0]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 9), n=st.integers(1, 25))
def test_subtree_sizes_count_each_words_descendants(seed, n):
    """The linear subtree sizes (that choose the main root among several) are each word's
    descendants and itself, counted by walking up from every word, in forests on the root."""
    from maltpy.transform.single_root import subtree_sizes
    rng = random.Random(seed)
    heads = random_tree(rng, n)[1:]
    for k in rng.sample(range(n), rng.randint(0, n)):
        heads[k] = 0
    expected = [1] * n
    for k in range(n):
        h = heads[k]
        while h > 0:
            expected[h - 1] += 1
            h = heads[h - 1]
    assert subtree_sizes(heads) == expected


def test_conllu_output_has_one_root_word_and_conllx_keeps_maltparser_roots(tmp_path):
    train, test = tmp_path / "train.conllu", tmp_path / "test.conllu"
    _as_conllu(TRAIN, train)
    _as_conllu(TEST, test)
    model = str(tmp_path / "u.mpz")
    assert main(["-c", model, "-m", "learn", "-i", str(train), "-q"]) == 0
    outputs = {}
    for mode in ("auto", "any", "one"):
        for fmt in ("conllu", "conllx"):
            out = tmp_path / f"{mode}.{fmt}"
            assert main(["-c", model, "-i", str(test), "-o", str(out), "-of", fmt, "-ro", mode, "-q"]) == 0
            outputs[mode, fmt] = read_conll(str(out), fmt, need_heads=True)

    def root_words(sentences):
        return [[r[7] for r in s.rows if r[6] == "0"] for s in sentences]

    assert all(words == ["root"] for words in root_words(outputs["auto", "conllu"]))
    assert any(len(words) > 1 for words in root_words(outputs["any", "conllu"]))   # the toy parser leaves some
    assert outputs["one", "conllx"][0].rows == outputs["auto", "conllu"][0].rows[:len(outputs["one", "conllx"][0])]
    assert [s.rows for s in outputs["auto", "conllx"]] == [s.rows for s in outputs["any", "conllx"]]
    # the Python API writes what the command line writes
    import maltpy
    parser = maltpy.load(model)
    api = parser.parse(read_conll(str(test), "conllu"))
    assert [s.rows for s in api] == [s.rows for s in outputs["auto", "conllu"]]
    assert [s.rows for s in parser.parse(read_conll(str(test), "conllu"), one_root=False)] == \
        [s.rows for s in outputs["any", "conllu"]]
    assert [to_conllx(s).rows for s in outputs["any", "conllu"]] == [s.rows for s in outputs["any", "conllx"]]


def _conllu(rows):
    return Sentence([[str(k + 1), f"w{k}", f"l{k}", upos, "X", feats, str(h), rel, "_", "_"]
                     for k, (upos, feats, h, rel) in enumerate(rows)])


def test_official_figures_count_universal_relations_and_content_words():
    gold = [_conllu([("PRON", "Case=Nom", 2, "nsubj:pass"), ("AUX", "_", 3, "aux:pass"),
                     ("VERB", "Tense=Past|Foo=Bar", 0, "root"), ("PUNCT", "_", 3, "punct")])]
    same = official_scores(gold, gold)
    assert all(f.f1 == 100.0 for f in same.values())
    # a subtype wrong: maltpy's LAS counts it, the official LAS does not
    sub = [_conllu([("PRON", "Case=Nom", 2, "nsubj"), ("AUX", "_", 3, "aux:pass"),
                    ("VERB", "Tense=Past|Foo=Bar", 0, "root"), ("PUNCT", "_", 3, "punct")])]
    assert official_scores(gold, sub)["LAS"].f1 == 100.0
    assert evaluate(gold, sub)["all"].las == 75.0
    # the aux under another word: CLAS still finds the root verb, MLAS does not (it lost its aux child)
    aux = [_conllu([("PRON", "Case=Nom", 2, "nsubj:pass"), ("AUX", "_", 1, "aux:pass"),
                    ("VERB", "Tense=Past|Foo=Bar", 0, "root"), ("PUNCT", "_", 3, "punct")])]
    scores = official_scores(gold, aux)
    assert scores["LAS"].correct == 3 and scores["CLAS"].correct == 2 and scores["MLAS"].correct == 0
    # a non-universal feature does not count in MLAS; a universal one does
    feats = [_conllu([("PRON", "Case=Nom", 2, "nsubj:pass"), ("AUX", "_", 3, "aux:pass"),
                      ("VERB", "Tense=Past|Foo=Baz", 0, "root"), ("PUNCT", "_", 3, "punct")])]
    assert official_scores(gold, feats)["MLAS"].f1 == 100.0
    feats[0].rows[2][5] = "Tense=Pres"
    assert official_scores(gold, feats)["MLAS"].correct == 1
    # a content word relabelled as functional: the system counts one content word fewer (F1, not accuracy)
    fun = [_conllu([("PRON", "Case=Nom", 2, "det"), ("AUX", "_", 3, "aux:pass"),
                    ("VERB", "Tense=Past|Foo=Bar", 0, "root"), ("PUNCT", "_", 3, "punct")])]
    clas = official_scores(gold, fun)["CLAS"]
    assert (clas.correct, clas.gold, clas.system) == (1, 2, 1)
    # the verb's functional child is another word of the same relation and tags: MLAS counts the
    # verb wrong (eval.py compares the children themselves, not only their relations and tags)
    two = [_conllu([("AUX", "_", 3, "aux"), ("AUX", "_", 3, "obj"), ("VERB", "_", 0, "root")])]
    swapped = [_conllu([("AUX", "_", 3, "obj"), ("AUX", "_", 3, "aux"), ("VERB", "_", 0, "root")])]
    assert official_scores(two, swapped)["MLAS"].correct == 0


def test_official_tag_figures():
    """eval.py's UPOS, XPOS, UFeats (universal features only), AllTags and Lemmas (a gold _ takes any)."""
    from maltpy.evaluation.official import official_tag_scores
    gold = [_conllu([("PRON", "Case=Nom|Foo=1", 2, "nsubj"), ("VERB", "_", 0, "root")])]
    gold[0].rows[1][2] = "_"
    system = [_conllu([("PRON", "Case=Nom|Foo=2", 2, "nsubj"), ("NOUN", "Tense=Past", 0, "root")])]
    system[0].rows[0][4] = "Y"
    tags = {name: f.correct for name, f in official_tag_scores(gold, system).items()}
    assert tags == {"UPOS": 1, "XPOS": 1, "UFeats": 1, "AllTags": 0, "Lemmas": 2}


def test_maltpy_eval_prints_both_figures_for_conllu(tmp_path, capsys):
    gold = tmp_path / "gold.conllu"
    _as_conllu(TEST, gold)
    assert main(["eval", str(gold), str(gold)]) in (0, None)
    out = capsys.readouterr().out
    assert "maltpy's figures" in out and "CoNLL 2018" in out and "MLAS 100.00" in out
    conllx = tmp_path / "gold.conll"
    write_conll(read_conll(TEST, "conllx"), str(conllx))
    main(["eval", str(conllx), str(conllx)])
    assert "CoNLL 2018" not in capsys.readouterr().out
