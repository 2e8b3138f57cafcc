"""The search layer (maltpy/search): one decision step under every strategy, open to Python; a
new strategy is a module, a registry entry and the search setting; the model's view of a
sentence is one pipeline of transforms; no module outside their owners tests settings by name."""
import os
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import maltpy
from conftest import EXAMPLES, ROOT
from maltpy.formats.conll import read_conll
from maltpy.errors import MaltpyError
from maltpy.parsing.parser import Parser
from maltpy.search import STRATEGIES, Strategy, strategy
from maltpy.transform.pipeline import View

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


class PythonWalk(Strategy):
    """A strategy written in Python over the step's Python walk: at each decision, the class of
    rank ``rank`` among the permissible ones by score (0: the best), the best when there are
    fewer; ties go to the lower class, as the step's arg-max does."""

    rank = 0

    def parse(self, model, corpus, progress=None, record_end=False, moves_out=None, n_threads=1):
        walker = model.step(corpus.max_n).walker()
        heads = np.full(corpus.n_rows, -1, dtype=np.int32)
        labels = np.full(corpus.n_rows, -1, dtype=np.int32)
        self.decisions = 0
        for k in range(corpus.n_sentences):
            walker.begin(corpus, k)
            while walker.next_decision():
                classes, scores = walker.scores()
                order = sorted(range(len(classes)), key=lambda i: (-scores[i], classes[i]))
                pick = classes[order[self.rank if self.rank < len(order) else 0]]
                if self.rank == 0:
                    assert pick == walker.best_class()    # the step's arg-max agrees
                walker.take(int(pick))
                self.decisions += 1
            h, l = walker.tree()
            r0 = int(corpus.offsets[k])
            heads[r0 + 1:r0 + 1 + len(h)] = h
            labels[r0 + 1:r0 + 1 + len(l)] = l
        return heads, labels


class SecondBest(PythonWalk):
    """The toy strategy: always the second-best permissible class."""
    rank = 1


@pytest.fixture(scope="module")
def toy_model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("search") / "toy.mpz")
    maltpy.train(TRAIN, algorithm="nivreeager", verbose=False, jobs=1).save(path)
    return path


@pytest.mark.parametrize("options", [{"algorithm": "nivreeager"}, {"algorithm": "covnonproj"},
                                     {"algorithm": "2planar", "marking_strategy": "head"},
                                     {"algorithm": "nivreeager", "direction": "rtl"}])
def test_a_python_walk_of_the_step_parses_as_the_compiled_greedy_strategy(options, monkeypatch):
    monkeypatch.setitem(STRATEGIES, "python-greedy", PythonWalk)
    train, test = read_conll(TRAIN, need_heads=True), read_conll(TEST)
    p = Parser(verbose=False, jobs=1, **options).fit(train)
    greedy = p.parse(test)
    p.settings.search = "python-greedy"
    assert [s.heads for s in p.parse(test)] == [s.heads for s in greedy]
    assert [s.column(7) for s in p.parse(test)] == [s.column(7) for s in greedy]


def test_a_new_strategy_is_a_module_a_registry_entry_and_the_setting(toy_model, tmp_path, monkeypatch):
    """Nothing else changes: the API, the compiled file path and the command line take it."""
    monkeypatch.setitem(STRATEGIES, "second", SecondBest)
    test = read_conll(TEST)
    greedy = maltpy.load(toy_model).parse(test)
    p = maltpy.load(toy_model, search="second")
    toy = p.parse(test)
    assert [s.heads for s in toy] != [s.heads for s in greedy]
    for s in toy:          # still a tree over the sentence's words
        assert len(s.heads) == len(s) and all(0 <= h <= len(s) for h in s.heads)
    # the compiled path of maltpy -m parse searches with it too, and writes what the API gives
    from maltpy.cli.main import main
    out = str(tmp_path / "out.conll")
    assert main(["-c", toy_model, "-m", "parse", "-i", TEST, "-o", out, "--search", "second", "-q", "-j", "1"]) == 0
    assert [s.heads for s in read_conll(out)] == [s.heads for s in toy]


def test_an_unknown_strategy_is_one_line_naming_the_known_ones(toy_model):
    with pytest.raises(MaltpyError, match="search must be one of greedy"):
        maltpy.load(toy_model, search="beam-of-dreams")
    with pytest.raises(MaltpyError, match="unknown search strategy"):
        strategy("beam-of-dreams")


def test_the_step_refuses_what_a_walk_cannot_do(toy_model):
    p = maltpy.load(toy_model)
    walker = p.search_model().step().walker()
    corpus = p.encode(read_conll(TEST)[:1])
    with pytest.raises(ValueError, match="begin"):
        walker.next_decision()
    with pytest.raises(IndexError):
        walker.begin(corpus, 5)
    walker.begin(corpus, 0)
    with pytest.raises(ValueError, match="no decision is pending"):
        walker.take(0)
    assert walker.next_decision()
    allowed = set(walker.permissible().tolist())
    bad = next(c for c in range(p.classes.n_classes) if c not in allowed)
    with pytest.raises(ValueError, match="not permissible"):
        walker.take(bad)


# ---------------------------------------------------------------- the model's view

def _views():
    from maltpy.config import make_settings
    return {name: View.from_settings(make_settings(**o)) for name, o in {
        "plain": {}, "rtl": {"direction": "rtl"}, "pp": {"marking_strategy": "head"},
        "rtl+pp": {"direction": "rtl", "marking_strategy": "path"},
        "label": {"algorithm": "covnonproj", "undirected": "label"},
        "all": {"algorithm": "planar", "direction": "rtl", "marking_strategy": "head+path", "undirected": "label"},
    }.items()}


def _step_mode_flags(pxd: str):
    """The Step class's boolean attributes and its attributes writable from Python in a step.pxd text."""
    body = pxd[pxd.index("cdef class Step:"):]
    body = body[:body.index("\n\n\n")] if "\n\n\n" in body else body
    fields = [line.strip() for line in body.splitlines()
              if re.match(r"\s+cdef (readonly |public )?[\w*]+ \w", line) and "(" not in line]
    return [f for f in fields if re.search(r"\bbint\b", f) or f.startswith("cdef public")]


def _step_writes(text: str):
    """Assignments to a step's attributes (``step.x = ...``) in a module's text."""
    return re.findall(r"\bstep\.\w+\s*=(?!=)", text)


def test_the_step_has_no_mode_flags_and_no_module_changes_it():
    """Issue #51: the step is built once and read only (one Scoring mode, a Walk per call, the sums
    a walk keeps in its own Workspace), so threads share it; the checks find planted flags and writes."""
    pxd = open(os.path.join(ROOT, "maltpy", "search", "step.pxd")).read()
    assert _step_mode_flags(pxd) == []
    planted = pxd.replace("    cdef int C\n", "    cdef int C\n    cdef bint keeping, caching\n    cdef public int x\n", 1)
    assert len(_step_mode_flags(planted)) == 2
    for folder in ("search", "parsing", "tagging", "components"):
        for name in os.listdir(os.path.join(ROOT, "maltpy", folder)):
            if name.endswith((".py", ".pyx", ".pxd")):
                assert _step_writes(open(os.path.join(ROOT, "maltpy", folder, name)).read()) == [], name
    assert _step_writes("    step.score_all = True\n") and not _step_writes("if step.scoring == KEPT:")


def test_taking_a_class_returns_the_word_it_attached(toy_model):
    """Step.apply returns the dependent of the arc it added (-1 for none): each word once, and the
    tree has every word it returned with the head that class gave."""
    p = maltpy.load(toy_model)
    sentences = read_conll(os.path.join(EXAMPLES, "toy-test.conll"))[:20]
    corpus = p.encode(sentences)
    walker = p.search_model().step(corpus.max_n).walker()
    for k, sentence in enumerate(sentences):
        walker.begin(corpus, k)
        attached = []
        while walker.next_decision():
            classes, scores = walker.scores()
            dep = walker.take(int(walker.best_class()))
            if dep >= 0:
                attached.append(dep)
        heads, _ = walker.tree()
        assert len(set(attached)) == len(attached) and all(1 <= d <= len(sentence) for d in attached)
        assert all(heads[d - 1] >= 0 for d in attached)


def test_the_view_has_the_steps_the_settings_ask_for_in_order():
    names = {k: [type(s).__name__ for s in v.steps] for k, v in _views().items()}
    assert names == {"plain": [], "rtl": ["RightToLeft"], "pp": ["PseudoProjective"],
                     "rtl+pp": ["RightToLeft", "PseudoProjective"], "label": ["DirectionLabels"],
                     "all": ["RightToLeft", "PseudoProjective", "DirectionLabels"]}
    views = _views()
    assert not views["plain"].changes_trees and not views["label"].changes_trees
    assert views["rtl"].changes_trees and views["pp"].changes_trees and views["rtl"].reverses_words


@st.composite
def _trees(draw):
    """Sentences as random trees (heads with -1 first), labels some of which carry marks."""
    sizes = draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
    names = ["nsubj", "obj", "obj|nsubj", "root", "amod%", "det|obj%"]
    heads, labels, offsets = [], [], [0]
    for n in sizes:
        h = [-1]
        for i in range(1, n + 1):     # a tree: each word's head is an earlier word or the root
            h.append(draw(st.integers(0, i - 1)))
        order = draw(st.permutations(list(range(1, n + 1))))
        rename = {0: 0, **{i + 1: order[i] for i in range(n)}}
        tree = [-1] * (n + 1)
        for i in range(1, n + 1):
            tree[rename[i]] = rename[h[i]]
        heads += tree
        labels += [-1] + [draw(st.integers(0, len(names) - 1)) for _ in range(n)]
        offsets.append(offsets[-1] + n + 1)
    return np.array(offsets), np.array(heads, dtype=np.int32), np.array(labels, dtype=np.int32), names


@settings(max_examples=150, deadline=None)
@given(_trees())
def test_a_chunk_decoded_as_arrays_gives_each_sentence_decoded_alone(data):
    """The compiled path (decode_rows) and the Python path (decode) write the same trees."""
    offsets, heads, labels, names = data
    for view in _views().values():
        h, l, out_names = view.decode_rows(offsets, heads.copy(), labels.copy(), list(names))
        for k in range(len(offsets) - 1):
            r0, r1 = offsets[k], offsets[k + 1]
            expect = view.decode(heads[r0 + 1:r1].tolist(), [names[x] for x in labels[r0 + 1:r1].tolist()])
            assert (h[r0 + 1:r1].tolist(), [out_names[x] for x in l[r0 + 1:r1].tolist()]) == expect


def test_encoding_then_decoding_gives_back_the_gold_trees_the_view_can_keep():
    """Right to left and direction labels lose nothing; nor does the pseudo-projective encoding
    on projective trees."""
    from maltpy.transform.pseudoproj import nonprojective_arcs
    gold = [s for s in read_conll(TRAIN, need_heads=True) if not nonprojective_arcs([-1] + s.heads)][:40]
    for name, view in _views().items():
        encoded = view.encode_gold(gold, False)
        for s, e in zip(gold, encoded):
            h, l = view.decode(e.heads, e.column(7))
            assert (h, l) == (s.heads, s.column(7)), name


# ---------------------------------------------------------------- owners

OWNERS = {
    r"\bdirection\s*[!=]=": ("transform/reverse.py",),
    r"\bundirected\s*[!=]=\s*[\"']": ("transform/direction.py", "systems/"),
    r"\bkind\s*[!=]=\s*[\"'](kernel|linear)": ("learners/", "parsing/models.py"),
    r"\balgorithm\s*[!=]=\s*[\"']": ("systems/",),
    r"\bsearch\s*[!=]=\s*[\"']": ("search/",),
}


def test_settings_are_tested_by_name_only_in_the_modules_that_own_them():
    bad = []
    for folder, _, files in os.walk(os.path.join(ROOT, "maltpy")):
        for f in files:
            if not f.endswith((".py", ".pyx", ".pxd")):
                continue
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, os.path.join(ROOT, "maltpy")).replace(os.sep, "/")
            with open(path, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    for pattern, owners in OWNERS.items():
                        if re.search(pattern, line) and not rel.startswith(owners):
                            bad.append(f"{rel}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_the_owner_test_finds_a_test_by_name():
    """The patterns are not vacuous: each matches the kind of line it forbids."""
    lines = ['if settings.direction == "rtl":', 'if s.undirected != "none":', 'if learner.kind == "kernel":',
             'if s.algorithm == "covnonproj":', 'if s.search == "beam":']
    for pattern, line in zip(OWNERS, lines):
        assert re.search(pattern, line)


def test_the_toy_strategy_passes_the_strategy_checks():
    """What an extension author runs on a new strategy (maltpy.parsing.checks.check_strategy)."""
    import warnings
    from maltpy.errors import MaltpyWarning
    from maltpy.parsing.checks import check_strategy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MaltpyWarning)
        check_strategy(SecondBest(), n_test=10)
