"""maltpy as a spaCy pipeline component (maltpy[spacy]), with the model trained on the example treebank."""
import os
import subprocess
import sys

import pytest

spacy = pytest.importorskip("spacy")

from maltpy.cli.main import main  # noqa: E402
from maltpy.errors import MaltpyError  # noqa: E402
from maltpy.formats.conll import Sentence, read_conll  # noqa: E402
from maltpy.integrations.spacy_parser import doc_to_sentences, sentences_to_doc  # noqa: E402
from conftest import EXAMPLES  # noqa: E402

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")



@pytest.fixture(scope="module")
def cli_parse(model, tmp_path_factory):
    """The example test set parsed by `maltpy -m parse`, as a user runs it."""
    out = str(tmp_path_factory.mktemp("sp") / "out.conll")
    r = subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-m", "parse", "-i", TEST, "-o", out, "-q"],
                       capture_output=True, text=True, timeout=300, cwd=EXAMPLES)
    assert r.returncode == 0, r.stderr
    return read_conll(out)


def blind_docs(nlp):
    """One Doc per test sentence with the words and tags only (what a tagger would give)."""
    return [sentences_to_doc(nlp.vocab, [Sentence([r[:6] + ["_"] * 4 for r in s.rows])])
            for s in read_conll(TEST)]


def tree(doc):
    return [(0 if t.head.i == t.i else t.head.i + 1, t.dep_) for t in doc]


def test_component_parses_as_the_command_line_does(model, cli_parse):
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model})
    docs = blind_docs(nlp)
    assert not docs[0].has_annotation("DEP")
    piped = list(nlp.pipe(docs, batch_size=7))
    assert [tree(d) for d in piped] == [list(zip(s.heads, s.labels)) for s in cli_parse]
    one = nlp(blind_docs(nlp)[5])   # __call__ on a single doc
    assert tree(one) == list(zip(cli_parse[5].heads, cli_parse[5].labels))


def test_pseudo_projective_model_decodes_as_the_command_line_does(tmp_path):
    model, out = str(tmp_path / "pp.mpz"), str(tmp_path / "pp.conll")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-pp", "head", "-q"]) == 0
    assert main(["-c", model, "-i", TEST, "-o", out, "-q"]) == 0
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model})
    assert nlp.get_pipe("maltpy_parser").parser.decodes_output
    assert [tree(d) for d in nlp.pipe(blind_docs(nlp))] == [list(zip(s.heads, s.labels)) for s in read_conll(out)]


def test_factory_is_found_without_importing_maltpy(model):
    code = ("import spacy, sys; nlp = spacy.blank('en'); "
            f"nlp.add_pipe('maltpy_parser', config={{'model': {model!r}}}); "
            "print('maltpy' in ' '.join(sys.modules) and nlp.pipe_names == ['maltpy_parser'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=EXAMPLES)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"


def test_displacy_sents_and_noun_chunks_work_on_the_parse(model):
    from spacy import displacy
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model})
    docs = list(nlp.pipe(blind_docs(nlp)))
    html = displacy.render(docs[1], style="dep", options={"collapse_punct": False})
    assert html.count("class=\"displacy-arc\"") == sum(1 for t in docs[1] if t.head.i != t.i)
    assert all(len(list(d.sents)) >= 1 for d in docs)
    # English noun chunks start from nsubj and the other labels spaCy knows: "every woman" is one
    chunks = [c.text for d in docs for c in d.noun_chunks]
    assert "every woman" in chunks


def test_sentence_doc_round_trip_keeps_the_columns_and_the_tree():
    nlp = spacy.blank("en")
    gold = read_conll(TEST)[:6]
    doc = sentences_to_doc(nlp.vocab, gold)
    assert len(doc) == sum(len(s) for s in gold)
    back = doc_to_sentences(doc)
    assert [s.rows for s in back] == [s.rows for s in gold]


def test_sentenced_docs_are_parsed_sentence_by_sentence(model):
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model})
    gold = read_conll(TEST)[:4]
    doc = sentences_to_doc(nlp.vocab, [Sentence([r[:6] + ["_"] * 4 for r in s.rows]) for s in gold])
    assert doc.has_annotation("SENT_START")
    doc = nlp(doc)
    starts = [0]
    for s in gold:
        starts.append(starts[-1] + len(s))
    for a, b in zip(starts, starts[1:]):   # every head stays inside its own sentence
        assert all(a <= t.head.i < b for t in doc[a:b])


def test_pipeline_saved_to_disk_carries_the_model(model, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model})
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    a = [tree(d) for d in nlp.pipe(blind_docs(nlp))]
    b = [tree(d) for d in loaded.pipe(blind_docs(loaded))]
    assert a == b


def test_columns_setting_chooses_the_attributes(model):
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model, "columns": {"FORM": "text", "POSTAG": "tag_",
                                                                        "CPOSTAG": "pos_", "LEMMA": "norm_"}})
    assert len(list(nlp.pipe(blind_docs(nlp)))) == len(read_conll(TEST))
    with pytest.raises(MaltpyError, match="not an input column"):
        spacy.blank("en").add_pipe("maltpy_parser", config={"model": model, "columns": {"HEAD": "tag_"}})


def test_no_model_is_a_clear_error(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser")
    with pytest.raises(MaltpyError, match="no model"):
        nlp("Dogs bark")
    with pytest.raises(MaltpyError, match="no such file|not found|does not exist"):
        spacy.blank("en").add_pipe("maltpy_parser", config={"model": str(tmp_path / "missing.mpz")})


def test_the_component_parses_with_a_beam_as_the_command_line_does(tmp_path):
    """config beam_width and beam_margin: the component searches with that beam, as maltpy -m parse
    -b and --beam-margin do."""
    model = str(tmp_path / "beam.mpz")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-l", "perceptron", "-lo", "-i 3", "-b", "4", "-q"]) == 0
    out = str(tmp_path / "out.conll")
    assert main(["-c", model, "-m", "parse", "-i", TEST, "-o", out, "-q"]) == 0
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("maltpy_parser", config={"model": model, "beam_width": 4})
    assert pipe.parser.settings.beam_width == 4 and pipe.parser.strategy().margin == float("inf")
    for sentence in read_conll(out)[:10]:
        doc = nlp(sentences_to_doc(nlp.vocab, [sentence]))
        heads = [0 if t.head.i == t.i else t.head.i + 1 for t in doc]
        assert heads == sentence.heads
    # the margin reaches the search as --beam-margin does
    pipe = spacy.blank("en").add_pipe("maltpy_parser", config={"model": model, "beam_margin": 2.5})
    assert pipe.parser.settings.beam_margin == "2.5" and pipe.parser.strategy().margin == 2.5


# ---------------------------------------------------------------- whitespace tokens, odd text, long docs

@pytest.fixture(scope="module")
def conllu_model(tmp_path_factory):
    """A CoNLL-U model of the example treebank (its rows are CoNLL-U rows too): one root word per
    parse, as UD's eval.py wants."""
    folder = tmp_path_factory.mktemp("u")
    (folder / "train.conllu").write_bytes(open(TRAIN, "rb").read())
    path = str(folder / "m.mpz")
    assert main(["-c", path, "-m", "learn", "-i", str(folder / "train.conllu"), "-q"]) == 0
    return path


SPACES = [" ", "  ", "\n", "\n\n", "\t", " \n ", "\u00a0", "\u2028", "\r\n"]
ODD = ["Dogs", "bark", ".", "the", "cat", "ñandú", "日本語", "a\tb", "x\ny", "\r", "_", "#", "1-2", "\u200b", "'"]


def _one_root_trees(sentences):
    """What UD's eval.py checks when it loads a file: heads in range, no cycle (the reader's
    validation), and exactly one word on the root."""
    for s in sentences:
        assert s.heads.count(0) == 1, s.heads


@pytest.mark.parametrize("sentencizer", [False, True])
def test_whitespace_tokens_and_odd_text_write_conll_that_reads_back(conllu_model, tmp_path_factory, sentencizer):
    from hypothesis import given, settings, strategies as st
    from maltpy.formats.conll import write_conll
    nlp = spacy.blank("en")
    if sentencizer:
        nlp.add_pipe("sentencizer")
    nlp.add_pipe("maltpy_parser", config={"model": conllu_model})
    folder = tmp_path_factory.mktemp("ws")

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.one_of(st.sampled_from(SPACES), st.sampled_from(ODD)), min_size=1, max_size=30),
           st.lists(st.booleans(), min_size=30, max_size=30))
    def check(words, starts):
        doc = spacy.tokens.Doc(nlp.vocab, words=words, spaces=[False] * len(words))
        if not sentencizer:
            for token, start in zip(doc[1:], starts):
                token.is_sent_start = start
        doc = nlp(doc)
        for t in doc:     # whitespace hangs from a word of its sentence (or, alone, from itself)
            if t.is_space and not all(u.is_space for u in t.sent):
                assert not t.head.is_space and t.dep_ == "dep"
            if not t.is_space:
                assert not t.head.is_space
        path = str(folder / "out.conllu")
        sentences = doc_to_sentences(doc, fmt="conllu")
        words_written = sum(len(s) for s in sentences)
        assert words_written == sum(1 for t in doc if not t.is_space)
        if not sentences:
            return
        write_conll(sentences, path)
        back = read_conll(path, need_heads=True)
        assert [s.rows for s in back] == [s.rows for s in sentences]
        _one_root_trees(back)

    check()


def test_a_long_doc_with_sentences_takes_linear_memory(conllu_model, tmp_path):
    """One Doc.to_array per doc, not per sentence (which made memory grow with the square of the
    doc's length: 25,000 tokens took 2.6 GB). 100,000 tokens: at most twice the pipeline without
    the parser (each measured in a process of its own)."""
    script = tmp_path / "mem.py"
    script.write_text(
        "import resource, sys\nimport spacy\nimport maltpy.integrations.spacy_parser\n"
        "nlp = spacy.blank('en'); nlp.add_pipe('sentencizer')\n"
        "if sys.argv[1] == 'with': nlp.add_pipe('maltpy_parser', config={'model': sys.argv[2]})\n"
        "words = 'The dog saw a cat in the garden . It ran away quickly , and then it slept .'.split()\n"
        "doc = nlp(' '.join(words[i % len(words)] for i in range(100000)))\n"
        "assert len(doc) == 100000 and (sys.argv[1] != 'with' or doc.has_annotation('DEP'))\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    peak = {}
    for arm in ("without", "with"):
        r = subprocess.run([sys.executable, str(script), arm, conllu_model], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        peak[arm] = int(r.stdout.split()[-1])
    assert peak["with"] <= 2 * peak["without"], peak


def test_untagged_words_warn_that_the_tag_column_is_empty(conllu_model):
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": conllu_model})
    from maltpy.errors import MaltpyWarning
    with pytest.warns(MaltpyWarning, match="UPOSTAG column of this input is empty"):
        nlp("The dog saw a cat in the garden and then it slept .")


def test_a_model_with_a_tagger_tags_and_parses_untagged_docs(tmp_path):
    """A model learned with --tagger sets pos_, tag_ and lemma_ on a blank pipeline's docs and
    parses them as -m parse parses the same words; tags a doc already has are kept."""
    path = str(tmp_path / "tagged.mpz")
    assert main(["-c", path, "-m", "learn", "-i", TRAIN, "--tagger", "upos,xpos,lemma", "--tagger-folds", "2",
                 "-q"]) == 0
    gold = read_conll(TEST)
    words = tmp_path / "words.conll"      # the words alone, in the model's format (CoNLL-X)
    words.write_text("".join("".join(f"{k}\t{w}" + "\t_" * 8 + "\n" for k, w in enumerate(s.forms, 1)) + "\n"
                             for s in gold))
    out = tmp_path / "out.conll"
    assert main(["-c", path, "-m", "parse", "-i", str(words), "-o", str(out), "-q"]) == 0
    expected = read_conll(str(out), "conllx")
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": path})
    docs = [nlp(spacy.tokens.Doc(nlp.vocab, words=s.forms)) for s in gold]
    for doc, want in zip(docs, expected):
        assert [(t.pos_, t.tag_, t.lemma_) for t in doc] == [(r[3], r[4], r[2]) for r in want.rows]
        assert tree(doc) == [(int(r[6]), r[7]) for r in want.rows]
    tagged = spacy.tokens.Doc(nlp.vocab, words=gold[0].forms, pos=["X"] * len(gold[0]))
    assert all(t.pos_ == "X" for t in nlp(tagged))
    nlp.to_disk(tmp_path / "pipe")
    again = spacy.load(tmp_path / "pipe")
    assert [(t.tag_, t.dep_) for t in again(spacy.tokens.Doc(again.vocab, words=gold[0].forms))] == \
        [(t.tag_, t.dep_) for t in docs[0]]


def test_tags_spacy_cannot_hold_still_reach_the_parser(tmp_path):
    """A tagger whose UPOS are not UD's 17 (an Alpino or CoNLL-X tagset): spaCy's pos_ cannot hold
    them, and the parser reads them from the tagger as -m parse does (it read pos_, empty, and
    parsed untagged words: the same trees as the command line's only by chance)."""
    train = tmp_path / "train.conll"
    train.write_text("".join("\t".join(c[:3] + [c[3].lower() + "x"] + c[4:]) if len(c) > 4 else "\t".join(c)
                             for line in open(TRAIN, encoding="utf-8") for c in [line.split("\t")]))
    path = str(tmp_path / "odd.mpz")
    assert main(["-c", path, "-m", "learn", "-i", str(train), "--tagger", "upos,xpos", "-q"]) == 0
    gold = read_conll(TEST)
    words = tmp_path / "words.conll"
    words.write_text("".join("".join(f"{k}\t{w}" + "\t_" * 8 + "\n" for k, w in enumerate(s.forms, 1)) + "\n"
                             for s in gold))
    out = tmp_path / "out.conll"
    assert main(["-c", path, "-i", str(words), "-o", str(out), "-q"]) == 0
    expected = read_conll(str(out), "conllx")
    assert any(r[3].endswith("x") for s in expected for r in s.rows)
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": path})
    docs = [nlp(spacy.tokens.Doc(nlp.vocab, words=s.forms)) for s in gold]
    assert [tree(doc) for doc in docs] == [[(int(r[6]), r[7]) for r in want.rows] for want in expected]


def test_a_tagger_alone_sets_the_tags_and_no_tree(tmp_path):
    """A model learned with --parser false in maltpy_parser: pos_, tag_ and lemma_ as -m tag gives
    them, no dependency tree; it saves and loads with the pipeline."""
    path = str(tmp_path / "tags.mpz")
    assert main(["-c", path, "-m", "learn", "-i", TRAIN, "--tagger", "upos,xpos,lemma", "--parser", "false",
                 "-q"]) == 0
    gold = read_conll(TEST)
    words = tmp_path / "words.conll"
    words.write_text("".join("".join(f"{k}\t{w}" + "\t_" * 8 + "\n" for k, w in enumerate(s.forms, 1)) + "\n"
                             for s in gold))
    out = tmp_path / "out.conll"
    assert main(["-c", path, "-m", "tag", "-i", str(words), "-o", str(out), "-q"]) == 0
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": path})
    for s, want in zip(gold, read_conll(str(out), "conllx", need_heads=False)):
        doc = nlp(spacy.tokens.Doc(nlp.vocab, words=s.forms))
        assert [(t.pos_, t.tag_, t.lemma_) for t in doc] == [(r[3], r[4], r[2]) for r in want.rows]
        assert not doc.has_annotation("DEP")
    nlp.to_disk(tmp_path / "pipe")
    again = spacy.load(tmp_path / "pipe")
    assert [t.tag_ for t in again(spacy.tokens.Doc(again.vocab, words=gold[0].forms))] == \
        [r[4] for r in read_conll(str(out), "conllx", need_heads=False)[0].rows]


def test_the_tokenizer_of_a_model_as_spacys(tmp_path):
    """A model learned with --tokenizer cuts spaCy's docs: tokens that spell the text, the
    tokenizer's sentences, multiword tokens as their words where these spell them; the doc
    goes on through maltpy_parser; nlp.to_disk/from_disk keep the tokenizer."""
    from maltpy.integrations.spacy_tokenizer import MaltpyTokenizer
    model = str(tmp_path / "text.mpz")
    import maltpy
    maltpy.train(os.path.join(EXAMPLES, "toy-text-train.conllu"), tokenizer=True, tagger="all").save(model)
    nlp = spacy.blank("en")
    nlp.tokenizer = MaltpyTokenizer(nlp.vocab, model)
    nlp.add_pipe("maltpy_parser", config={"model": model})
    text = "  The old dog didn't run.  A cat saw Anna.\n\nEva slept.\n"
    doc = nlp(text)
    assert doc.text == text
    words = [t.text for t in doc if not t.is_space]
    assert words == ["The", "old", "dog", "did", "n't", "run", ".", "A", "cat", "saw", "Anna", ".", "Eva", "slept",
                     "."]
    assert [[t.text for t in s if not t.is_space][0] for s in doc.sents] == ["The", "A", "Eva"]
    assert all(t.dep_ for t in doc if not t.is_space)
    nlp.to_disk(tmp_path / "nlp")
    reloaded = MaltpyTokenizer(nlp.vocab, model).from_disk(tmp_path / "nlp" / "tokenizer")
    assert [t.text for t in reloaded(text)] == [t.text for t in doc]
