"""disco-dop's bracket scores of discontinuous trees (maltpy.evaluation.discontinuous; maltpy eval
on .export and .discbracket files). disco-dop itself gave the same summaries on the Alpino dev
set, for proper.prm, --disconly, another cutoff and discbracket input (docs/discontinuous.md)."""
import dataclasses
from collections import Counter
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.errors import MaltpyError
from maltpy.evaluation.discontinuous import (BracketParams, brackets, evaluate_brackets, is_discontinuous,
                                             plain_label, read_params)
from maltpy.formats.export import (ExportFile, ExportLine, ExportSentence, format_discbracket, format_export,
                                   parse_export, read_discbracket_text)

from conftest import EXAMPLES, shared_file
from formats.test_export import SMALL, damaged, discontinuous_trees


def runs_of(positions):
    """A set of terminal positions as the runs brackets() compares: ((start, end), ...) in order."""
    runs = []
    for k in sorted(positions):
        if runs and runs[-1][1] == k:
            runs[-1][1] = k + 1
        else:
            runs.append([k, k + 1])
    return tuple((a, b) for a, b in runs)


def _one(text):
    return parse_export(text)


#: SMALL's tree with the verb's constituent cut to a continuous one and an ADVP relabelled PRT
OTHER = SMALL.replace("boeken\tboek\tn\tN(mv)\tobj1\t501", "boeken\tboek\tn\tN(mv)\tobj1\t502")


def test_brackets_are_label_and_terminal_sets_without_root_and_punctuation():
    sentence = _one(SMALL).sentences[0]
    kept = {k: k for k in range(4)}         # the full stop (tag let) is not kept
    got = brackets(sentence, kept, BracketParams())
    assert got == {("PPART", ((0, 1), (3, 4))): 1, ("SMAIN", ((0, 4),)): 1}
    assert runs_of({0, 3}) == ((0, 1), (3, 4)) and runs_of({3, 1, 2}) == ((1, 4),)
    assert is_discontinuous(runs_of({0, 3})) and not is_discontinuous(runs_of({1, 2, 3}))
    disc = brackets(sentence, kept, dataclasses.replace(BracketParams(), disc_only=True))
    assert list(disc) == [("PPART", ((0, 1), (3, 4)))]


@settings(max_examples=300, deadline=None)
@given(discontinuous_trees(), st.data())
def test_brackets_as_runs_are_the_constituents_position_sets(tree, data):
    """The brackets, built bottom-up as runs, are each node's set of kept terminals (the tree's
    constituents, renumbered after the dropped ones), whatever is kept."""
    n = len(tree.tokens)
    keep = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    kept_positions = [k for k in range(n) if keep[k]]
    kept = {k: j for j, k in enumerate(kept_positions)}
    expected = Counter()
    for label, below in tree.constituents():
        positions = {kept[k] for k in below if k in kept}
        if positions:
            expected[(plain_label(label), runs_of(positions))] += 1
    assert brackets(tree, kept, BracketParams(delete_labels=frozenset(), eq_labels={})) == expected


def test_labels_lose_function_tags_and_parentheses():
    assert plain_label("NP-SBJ") == "NP" and plain_label("NP=2") == "NP" and plain_label("-NONE-") == "-NONE-"
    assert plain_label("LET()") == "LET[]" and plain_label("$(") == "$["


def test_scores_of_a_changed_tree():
    gold, system = _one(SMALL), _one(OTHER)
    scores = evaluate_brackets(gold, system)
    # gold: PPART{0,3}, SMAIN{0..3}; system: PPART{0}, SMAIN{0..3}: one of two right each way
    assert (scores.all.matched(), len(scores.all.gold), len(scores.all.system)) == (1, 2, 2)
    lines = scores.summary().splitlines()
    for line in ("labeled recall:             50.00", "labeled precision:          50.00",
                 "labeled f-measure:          50.00", "exact match:                 0.00",
                 "pos accuracy:              100.00", "gold brackets (disc.):          2 (1)",
                 "cand. brackets (disc.):         2 (0)"):
        assert line in lines, line


@settings(max_examples=100, deadline=None)
@given(discontinuous_trees(), discontinuous_trees())
def test_a_tree_against_itself_is_exact_and_swapping_swaps_recall_and_precision(a, b):
    one = ExportFile([a])
    assert evaluate_brackets(one, one).all.exact == 1
    if a.words == b.words and [t.tag for t in a.tokens] == [t.tag for t in b.tokens]:
        b = dataclasses.replace(b, key=a.key)
        ab, ba = evaluate_brackets(one, ExportFile([b])), evaluate_brackets(ExportFile([b]), one)
        # as text: a side without brackets has a NaN figure, which equals nothing, itself included
        assert str((ab.all.recall(), ab.all.precision())) == str((ba.all.precision(), ba.all.recall()))


def test_parameter_files(tmp_path):
    prm = tmp_path / "my.prm"
    prm.write_text("# comment\nDEBUG 0\nCUTOFF_LEN 20\nDELETE_LABEL ROOT\nDELETE_LABEL let\nDELETE_WORD .\n"
                   "EQ_LABEL ADVP PRT\nEQ_LABEL PRT RP\nDISC_ONLY 1\n")
    params = read_params(str(prm))
    assert params.cutoff == 20 and params.disc_only and params.delete_labels == {"ROOT", "let"}
    assert params.eq_labels["ADVP"] == params.eq_labels["RP"] == params.eq_labels["PRT"]
    prm.write_text("NONSENSE 1\n")
    with pytest.raises(MaltpyError, match="my.prm:1: unknown parameter NONSENSE"):
        read_params(str(prm))
    # a byte-order mark is dropped; bytes that are not UTF-8 are a one-line error with their line
    # (before: "unknown parameter \ufeffDEBUG", and an internal error)
    prm.write_bytes(b"\xef\xbb\xbfDEBUG 0\nCUTOFF_LEN 30\n")
    assert read_params(str(prm)).cutoff == 30
    prm.write_bytes(b"DEBUG 0\nDELETE_LABEL caf\xe9\n")
    with pytest.raises(MaltpyError, match="my.prm:2: the parameter file is not UTF-8"):
        read_params(str(prm))


def test_a_system_sentence_must_match_the_gold(tmp_path):
    gold = _one(SMALL)
    other_key = _one(SMALL.replace("#BOS 7", "#BOS 8").replace("#EOS 7", "#EOS 8"))
    with pytest.raises(MaltpyError, match="sentence 8 is not in"):
        evaluate_brackets(gold, other_key)
    with pytest.raises(MaltpyError, match="other words"):
        evaluate_brackets(gold, _one(SMALL.replace("Gelezen\tlezen", "Gekocht\tkopen")))


def _run(*args):
    return subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True, cwd=EXAMPLES)


def test_maltpy_eval_on_export_files(tmp_path):
    gold, system = tmp_path / "gold.export", tmp_path / "out.export"
    gold.write_text(SMALL)
    system.write_text(OTHER)
    r = _run("eval", str(gold), str(system))
    assert r.returncode == 0 and "labeled f-measure:          50.00" in r.stdout, r.stderr
    r = _run("eval", str(gold), str(system), "--disc-only")
    assert r.returncode == 0 and "labeled recall:              0.00" in r.stdout
    r = _run("eval", str(gold), str(gold), "--param", str(tmp_path / "missing.prm"))
    assert r.returncode == 1 and "cannot read the parameter file" in r.stderr


def test_alpino_dev_against_itself():
    path = shared_file("alpino", "dev.export")
    r = _run("eval", path, path)
    assert r.returncode == 0
    assert "labeled f-measure:         100.00     100.00" in r.stdout
    assert "disc. gold brackets:          445        530" in r.stdout


def _toy_trees(n, seed):
    """Dutch-like sentences, half with a discontinuous participle phrase ("Gelezen heeft hij
    boeken ." : PPART over tokens 0 and 3), half continuous ("Hij heeft boeken gelezen .")."""
    import random
    rng = random.Random(seed)
    verbs, nouns, prons = ["gelezen", "gekocht", "gezien", "gemaakt"], ["boeken", "brieven", "huizen"], ["hij", "zij"]
    blocks = []
    for k in range(1, n + 1):
        v, o, p = rng.choice(verbs), rng.choice(nouns), rng.choice(prons)
        if rng.random() < 0.5:
            rows = [(v.capitalize(), "ww", "hd", 501), ("heeft", "ww", "hd", 502), (p, "vnw", "su", 502),
                    (o, "n", "obj1", 501), (".", "let", "--", 0)]
        else:
            rows = [(p.capitalize(), "vnw", "su", 502), ("heeft", "ww", "hd", 502), (o, "n", "obj1", 501),
                    (v, "ww", "hd", 501), (".", "let", "--", 0)]
        lines = [f"#BOS {k}"] + [f"{w}\t--\t{t}\t--\t{e}\t{par}" for w, t, e, par in rows]
        lines += ["#501\t--\tPPART\t--\tvc\t502", "#502\t--\tSMAIN\t--\t--\t0", f"#EOS {k}"]
        blocks.append("\n".join(lines) + "\n")
    return "".join(blocks)


def test_learn_and_parse_discontinuous_trees(tmp_path):
    """-m learn on an export file trains a discontinuous parser; -m parse writes export or
    discbracket trees with the input's keys, scored by maltpy eval."""
    train, test = tmp_path / "train.export", tmp_path / "test.export"
    train.write_text(_toy_trees(120, 1))
    test.write_text(_toy_trees(30, 2))
    model = str(tmp_path / "disc.mpz")
    r = _run("-c", model, "-m", "learn", "-i", str(train), "-a", "covnonproj", "-q")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out.export"
    r = _run("-c", model, "-i", str(test), "-o", str(out))
    assert r.returncode == 0, r.stderr
    r = _run("eval", str(test), str(out), "--disc-only")
    assert r.returncode == 0 and "labeled f-measure:         100.00" in r.stdout, r.stdout
    r = _run("-c", model, "-i", str(test), "-o", str(tmp_path / "out.discbracket"))
    assert r.returncode == 0 and "(PPART" in (tmp_path / "out.discbracket").read_text()
    r = _run("info", model)
    assert "discontinuous constituent parser" in r.stdout
    r = _run("-c", model, "-i", str(test), "-o", str(tmp_path / "out.mrg"))
    assert r.returncode == 1 and "write .export or .discbracket" in r.stderr


def test_alpino_parser_scores_as_measured():
    """Alpino: covnonproj trained on the first 1,500 training trees, scored on dev by disco-dop's
    rules (the full training file gives F1 61.58: docs/discontinuous.md)."""
    import tempfile
    from maltpy.formats.export import ExportFile, read_export
    from maltpy.parsing.discontinuous import fit_discontinuous_parser
    from maltpy.parsing.parser import Parser
    train = read_export(shared_file("alpino", "train.export")).sentences[:1500]
    dev = read_export(shared_file("alpino", "dev.export"))
    parser = fit_discontinuous_parser(Parser(algorithm="covnonproj"), train)
    trees = parser.reduction.parse_export(parser, dev.sentences)
    scores = evaluate_brackets(dev, ExportFile(trees))
    assert 45 < scores.f1() < 75


def test_unary_rules_put_back_the_common_unary_nodes():
    """A participle alone under a subordinate clause has a PPART node of its own in training
    (four times of four): the table puts it back above a decoded tree's participle, where the
    encoding had dropped it; nothing else changes, and the table survives the model header."""
    from maltpy.parsing.discontinuous import UnaryRules

    def tree(key, unary):
        lines = [f"#BOS {key}", "dat\t--\tvg\tVG(onder)\tcmp\t503", "hij\t--\tvnw\tVNW(pers)\tsu\t502",
                 f"gelezen\t--\tww\tWW(vd,vrij)\t{'hd' if unary else 'vc'}\t{501 if unary else 502}",
                 "heeft\t--\tww\tWW(pv,tgw)\thd\t502"]
        nodes = (["#501\t--\tPPART\t--\tvc\t502"] if unary else []) + [
            "#502\t--\tSSUB\t--\tbody\t503", "#503\t--\tCP\t--\t--\t0"]
        return "\n".join(lines + nodes + [f"#EOS {key}"]) + "\n"
    train = parse_export("".join(tree(k, True) for k in range(1, 5))).sentences
    rules = UnaryRules.learn(train)
    assert rules.table == {("ww", "SSUB", "WW(vd"): "PPART"}
    plain = parse_export(tree(9, False)).sentences[0]
    restored = rules.apply(plain)
    assert sorted(c for c, _ in restored.constituents()) == ["CP", "PPART", "SSUB"]
    assert len(rules.apply(restored).nodes) == len(restored.nodes)     # under PPART already: no second one
    again = UnaryRules.from_header(rules.header(), lambda what: None)
    assert again.table == rules.table
    with pytest.raises(ValueError):
        UnaryRules.from_header([["a", "b"]], lambda what: (_ for _ in ()).throw(ValueError(what)))


def test_a_tagger_in_front_of_a_discontinuous_parser(tmp_path):
    """-m learn --tagger on export trees: a tagger learned from the trees' words and tags, and the
    parser as without it (trees in: the same bytes as that parser's). Untagged words (CoNLL,
    horizontal) are tagged, then parsed into trees: the bytes of -m tag's output parsed by the
    same model; --retag with trees in is refused in one line."""
    train, test = tmp_path / "train.export", tmp_path / "test.export"
    train.write_text(_toy_trees(80, 1))
    test.write_text(_toy_trees(20, 2))
    both, alone = str(tmp_path / "both.mpz"), str(tmp_path / "alone.mpz")
    for model, extra in ((both, ["--tagger", "all"]), (alone, [])):
        r = _run("-c", model, "-m", "learn", "-i", str(train), "-a", "covnonproj", "-q", *extra)
        assert r.returncode == 0, r.stderr
    assert "tagger" in _run("info", both).stdout
    outs = {}
    for model in (both, alone):
        outs[model] = tmp_path / f"{os.path.basename(model)}.export"
        assert _run("-c", model, "-i", str(test), "-o", str(outs[model])).returncode == 0
    assert outs[both].read_bytes() == outs[alone].read_bytes()
    words = tmp_path / "words.conllu"
    words.write_text("".join("".join(f"{k}\t{w}" + "\t_" * 8 + "\n" for k, w in enumerate(s.words, 1)) + "\n"
                             for s in parse_export(_toy_trees(20, 2)).sentences))
    parsed, tagged, again = tmp_path / "p.export", tmp_path / "t.conllu", tmp_path / "a.export"
    for args in ((words, parsed, []), (words, tagged, ["-m", "tag"]), (tagged, again, [])):
        r = _run("-c", both, "-i", str(args[0]), "-o", str(args[1]), *args[2])
        assert r.returncode == 0, r.stderr
    assert parsed.read_bytes() == again.read_bytes()
    trees = parse_export(parsed.read_text()).sentences
    assert [s.words for s in trees] == [s.words for s in parse_export(_toy_trees(20, 2)).sentences]
    assert all(t.tag in ("ww", "vnw", "n", "let") for s in trees for t in s.tokens)
    r = _run("-c", both, "-i", str(test), "-o", str(tmp_path / "no.export"), "--retag", "true")
    assert r.returncode == 1 and "trees (export) keep theirs" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "no.export").exists()
    # words a line to the parser alone: refused in one line, saying what tags them (a pipeline's
    # code took the parser alone for a tagger and a parser: 'a pipeline needs at least one component')
    (tmp_path / "h.txt").write_text("hij heeft boeken gelezen .\n")
    r = _run("-c", alone, "-i", str(tmp_path / "h.txt"), "-if", "horizontal")
    assert r.returncode == 1 and "learned with --tagger all tags them" in r.stderr, r.stderr
    r = _run("-c", both, "-i", str(tmp_path / "h.txt"), "-if", "horizontal", "-of", "discbracket")
    assert r.returncode == 0 and r.stdout.startswith("(ROOT") and "gelezen" in r.stdout, r.stderr
    # several files: each output named for the trees it holds (.conllu words -> .export; -of names them
    # too), the bytes of the file parsed alone (they were written as export under the input's .conllu)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "w.conllu").write_bytes(words.read_bytes())
    (tmp_path / "in" / "t.discbracket").write_text(format_discbracket(parse_export(_toy_trees(5, 3))))
    for extra, names in (([], ["t.discbracket", "w.export"]), (["-of", "export"], ["t.export", "w.export"])):
        out = tmp_path / ("many" + "".join(extra))
        r = _run("-c", both, "-i", str(tmp_path / "in" / "*"), "-o", str(out) + os.sep, *extra)
        assert r.returncode == 0 and sorted(os.listdir(out)) == names, r.stderr
        assert (out / "w.export").read_bytes() == parsed.read_bytes()
    # standard input without -if: trees, as the parser alone reads it (not export lines misread as CoNLL)
    piped = subprocess.run([sys.executable, "-m", "maltpy", "-c", both], input=test.read_bytes(), capture_output=True,
                           cwd=EXAMPLES)
    assert piped.returncode == 0 and piped.stdout == outs[alone].read_bytes()
    import maltpy      # the same from Python: maltpy.train on the export file
    pipeline = maltpy.train(str(train), algorithm="covnonproj", tagger="all", verbose=False)
    assert [c.name for c in pipeline.components] == ["tagger", "parser"]
    pipeline.parse_file(str(words), str(tmp_path / "api.export"))
    assert (tmp_path / "api.export").read_bytes() == parsed.read_bytes()
    assert maltpy.train(str(train), algorithm="covnonproj", verbose=False).reduction.kind == "discontinuous"


@pytest.mark.parametrize("spec, blanked", [("upos", True), ("all", False)])
def test_a_tagger_short_of_the_parsers_columns_leaves_them_out_of_its_training(tmp_path, parser_inputs, spec, blanked):
    """--tagger upos in front of a discontinuous parser that reads the morphology (XPOS): the
    parser learns with XPOS _, as untagged words will come to it (it learned from the trees' XPOS
    and read _ there: Alpino dev F1 <= 40 48.98), and a warning says so; --tagger all tags XPOS,
    and the parser learns from the trees' own."""
    import re
    import warnings
    import maltpy
    from maltpy.errors import MaltpyWarning
    train = tmp_path / "train.export"
    train.write_text(re.sub(r"^([^#\t]+)\t--\t(\w+)\t--\t", lambda m: f"{m[1]}\t--\t{m[2]}\t{m[2].upper()}()\t",
                            _toy_trees(40, 1), flags=re.M))
    seen = parser_inputs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipeline = maltpy.train(str(train), algorithm="stacklazy", features="StackSwapMorph", tagger=spec,
                                verbose=False)
    warned = [str(w.message) for w in caught if issubclass(w.category, MaltpyWarning)]
    assert any("reads xpos, which --tagger upos does not tag: it learns without it" in m for m in warned) == blanked
    rows = seen[-1]
    assert all(r[3] != "_" for r in rows)
    assert all(r[4] == "_" for r in rows) == blanked and any(r[4].endswith("()") for r in rows) != blanked
    assert [c.name for c in pipeline.components] == ["tagger", "parser"]


@pytest.fixture(scope="module")
def toy_parsers():
    """Two toy discontinuous parsers: greedy covnonproj, and stacklazy with StackSwapMorph (which
    reads the lemma and morphology columns) and a beam of 3."""
    from maltpy.parsing.discontinuous import fit_discontinuous_parser
    from maltpy.parsing.parser import Parser
    train = parse_export(_toy_trees(60, 1)).sentences
    return [fit_discontinuous_parser(Parser(algorithm="covnonproj", verbose=False), train),
            fit_discontinuous_parser(Parser(algorithm="stacklazy", features="StackSwapMorph", learner="perceptron",
                                            learner_options="-i 2", beam_width=3, verbose=False), train)]


def test_a_one_word_tree_among_others_is_parsed_whole_and_in_pieces(toy_parsers, tmp_path):
    """A discbracket line that is one word and its tag (no constituent) is parsed like any other
    sentence, whole and in pieces of a few bytes, into export and discbracket (before, its word
    was lost and the parse failed with 'decode: the tree has 0 root words')."""
    import io
    text = b"(ROOT (n 0=a) (v 1=b))\n (n 0=-LRB)\n(ROOT (n 0=c))\n"
    for parser in toy_parsers:
        for out_fmt in ("export", "discbracket"):
            outs = []
            for piece in (1 << 20, 7):
                source = io.BytesIO(text)
                source.name = "one.discbracket"
                target = str(tmp_path / f"out.{out_fmt}")
                parser.reduction.parse_pieces(parser, source, target, "discbracket", out_fmt, piece_size=piece)
                outs.append(open(target, "rb").read())
            assert outs[0] == outs[1]
            reread = (parse_export(outs[0].decode()) if out_fmt == "export"
                      else read_discbracket_text(outs[0].decode(), "<t>"))
            assert [s.words for s in reread.sentences] == [["a", "b"], ["-LRB"], ["c"]]


@settings(max_examples=60, deadline=None)
@given(st.lists(discontinuous_trees(), min_size=1, max_size=4), st.sampled_from([3, 4]))
def test_export_parsed_through_the_compiled_path_is_the_python_paths_text(toy_parsers, trees, version):
    """Export words read as CoNLL-U lines and parsed by the compiled chunk path
    (conll_export_text) give the bytes of the Python path (export_text), unknown words, lemmas
    and morphology included."""
    from maltpy.parsing.discontinuous import compiled_export_words, export_input_of_text
    for k, tree in enumerate(trees):
        tree.key = str(k + 1)
    text = format_export(ExportFile(trees, version))
    fast = compiled_export_words(text, conll=True)
    assert fast is not None and fast[2] == version
    words_tags, keys, lemmas, morphs, _ = export_input_of_text(text, "<test>")
    for parser in toy_parsers:
        compiled = parser.reduction.conll_export_text(parser, *fast)
        assert compiled is not None
        assert compiled == (parser.reduction.export_text(parser, words_tags, keys, lemmas, morphs, version),
                            sum(len(w) for w, _ in words_tags))


def _parse_file_both_ways(parser, text, in_fmt, out_fmt):
    """parse_file's output (or its error) for ``text``, by the compiled path and by Python's
    (the compiled readers made to refuse everything)."""
    import contextlib
    import tempfile
    from unittest import mock
    from maltpy.errors import InputFormatError
    import maltpy.parsing.discontinuous as disc
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, f"in.{in_fmt}")
        with open(src, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        for python in (False, True):
            out = os.path.join(tmp, f"out{python}.{out_fmt}")
            with contextlib.ExitStack() as patches:
                if python:
                    for reader in ("compiled_export_words", "compiled_discbracket_words"):
                        patches.enter_context(mock.patch.object(disc, reader, return_value=None))
                try:
                    parser.reduction.parse_file(parser, src, out, in_fmt, out_fmt)
                    with open(out, "rb") as f:
                        results.append(f.read())
                except InputFormatError as e:
                    results.append(str(e))
    return results


@settings(max_examples=40, deadline=None)
@given(st.lists(discontinuous_trees(), min_size=1, max_size=4), st.sampled_from([3, 4]),
       st.sampled_from(["export", "discbracket"]), st.integers(0, 3))
def test_discbracket_parsed_through_the_compiled_path_is_the_python_paths_text(toy_parsers, trees, version, out_fmt,
                                                                                damage):
    """-m parse of discbracket words, and trees written as discbracket, through the compiled
    readers and writer give the bytes of the Python path (parse_discbracket, to_discbracket), or
    the same error, for both toy parsers; ``damage``: a bracket or a leaf broken in the text."""
    from maltpy.formats.export import format_discbracket
    for k, tree in enumerate(trees):
        tree.key = str(k + 1)
    doc = ExportFile(trees, version)
    texts = {"export": format_export(doc), "discbracket": format_discbracket(doc)}
    if damage == 1:
        texts["discbracket"] = texts["discbracket"].replace(")", "", 1)
    elif damage == 2:
        texts["discbracket"] = texts["discbracket"].replace("=", " ", 1)
    if not damage:      # the compiled reader takes the file (the test is not of Python's path twice)
        from maltpy.parsing.discontinuous import compiled_discbracket_words
        assert compiled_discbracket_words(texts["discbracket"].encode("utf-8")) is not None
    for parser in toy_parsers:
        for in_fmt, text in texts.items():
            compiled, python = _parse_file_both_ways(parser, text, in_fmt, out_fmt)
            assert compiled == python


def _parse_pieces(parser, text, in_fmt, out_fmt, piece_size):
    """parse_pieces' output (or its error) for ``text`` read ``piece_size`` bytes at a time."""
    import io
    import tempfile
    from maltpy.errors import InputFormatError
    source = io.BytesIO(text.encode("utf-8"))
    source.name = "in"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        try:
            parser.reduction.parse_pieces(parser, source, out, in_fmt, out_fmt, piece_size=piece_size)
        except InputFormatError as e:
            assert not os.path.exists(out)      # no half-written file
            return str(e)
        with open(out, "rb") as f:
            return f.read()


@settings(max_examples=40, deadline=None)
@given(st.lists(discontinuous_trees(), min_size=1, max_size=6), st.sampled_from([3, 4]),
       st.sampled_from(["export", "discbracket"]), st.sampled_from(["export", "discbracket"]),
       st.integers(1, 400), st.integers(0, 4), st.data())
def test_a_file_parsed_in_pieces_is_the_file_parsed_whole(toy_parsers, trees, version, in_fmt, out_fmt, piece_size,
                                                          damage, data):
    """Export and discbracket files read in pieces of whole sentences (parse_pieces) give the bytes
    of the file read whole, or the same error naming the same line, whichever piece holds it:
    ``damage`` as :func:`formats.test_export.damaged` breaks a line anywhere in the file."""
    from maltpy.formats.export import format_discbracket
    for k, tree in enumerate(trees):
        tree.key = str(k + 1)
    doc = ExportFile(trees, version)
    text = format_export(doc) if in_fmt == "export" else format_discbracket(doc)
    text = damaged(text, in_fmt, damage, data.draw)
    for parser in toy_parsers:
        whole = _parse_pieces(parser, text, in_fmt, out_fmt, 1 << 30)
        assert _parse_pieces(parser, text, in_fmt, out_fmt, piece_size) == whole


def test_an_error_in_a_later_piece_names_its_line(toy_parsers, tmp_path):
    """Pieces after the first are read compiled, and an error in one names the file's line."""
    from unittest import mock
    import maltpy.formats.exportread as exportread
    from maltpy.errors import InputFormatError
    one = SMALL.split("\n", 1)[1].replace(" %% a comment  with  spaces ", "")    # plain: no header, no comment
    text = "".join(one.replace("#BOS 7", f"#BOS {k}").replace("#EOS 7", f"#EOS {k}") for k in range(1, 40))
    n_lines = one.count("\n")
    parser = toy_parsers[0]
    calls = []

    def counted(*args):
        calls.append(args)
        return export_words(*args)
    export_words = exportread.export_words
    with mock.patch.object(exportread, "export_words", counted):
        whole = _parse_pieces(parser, text, "export", "export", 1 << 30)
        assert isinstance(whole, bytes) and len(calls) == 1
        assert _parse_pieces(parser, text, "export", "export", 500) == whole and len(calls) > 3
    bad_line = 30 * n_lines + 2        # a token line of the 31st sentence
    lines = text.split("\n")
    lines[bad_line - 1] = lines[bad_line - 1].rsplit("\t", 1)[0] + "\tx"
    error = _parse_pieces(parser, "\n".join(lines), "export", "export", 500)
    assert error.startswith(f"in:{bad_line}:"), error
    with pytest.raises(InputFormatError, match=f":{bad_line}:"):
        parse_export("\n".join(lines), "in")


@settings(max_examples=25, deadline=None)
@given(st.lists(discontinuous_trees(), min_size=1, max_size=6), st.integers(1, 4), st.integers(1, 300),
       st.booleans())
def test_conll_in_or_out_goes_batch_by_batch(toy_parsers, trees, batch, piece_size, keyed):
    """A discontinuous parser reading the encoded trees as CoNLL-U (batches of ``batch``
    sentences) writes the export file it writes from the trees themselves, and writing the
    encoded parses as CoNLL-U from export read in pieces gives the bytes of the file read whole;
    without ``# sent_id`` the keys are the sentences' numbers."""
    from unittest import mock
    import tempfile
    import maltpy.parsing.discontinuous as disc
    from maltpy.formats.conll import format_sentences
    from maltpy.formats.export import to_conll
    for k, tree in enumerate(trees):
        tree.key = str(k + 1)
    export_text = format_export(ExportFile(trees, 4))
    encoded = [to_conll(t) for t in trees]
    conll_text = format_sentences(encoded)
    if not keyed:
        conll_text = "\n".join(line for line in conll_text.split("\n") if not line.startswith("# sent_id"))
    with tempfile.TemporaryDirectory() as tmp:
        def run(text, in_fmt, out_fmt):
            src, out = os.path.join(tmp, f"in.{in_fmt}"), os.path.join(tmp, f"out.{out_fmt}")
            with open(src, "w", encoding="utf-8") as f:
                f.write(text)
            parser.reduction.parse_file(parser, src, out, in_fmt, out_fmt)
            with open(out, "rb") as f:
                return f.read()
        for parser in toy_parsers:
            from_trees = run(export_text, "export", "export")
            with mock.patch.object(disc, "CONLL_BATCH", batch):
                assert run(conll_text, "conllu", "export") == from_trees
            whole = run(export_text, "export", "conllu")
            with mock.patch.object(disc, "PIECE_SIZE", piece_size):
                assert run(export_text, "export", "conllu") == whole
