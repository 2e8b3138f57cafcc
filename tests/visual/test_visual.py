"""Trees as pictures (maltpy draw), grouped evaluation (maltpy eval --report/--plots)."""
import os
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings, strategies as st

from maltpy.cli.main import main
from maltpy.evaluation.breakdown import arc_length_bins, breakdown, depths, most_different
from maltpy.formats.conll import Sentence, read_conll
from maltpy.visual.trees import arc_levels, draw, nonprojective_arcs, sentence_svg
from conftest import EXAMPLES, is_projective, random_projective_tree, random_tree

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """(gold file, system file) for the example test set, parsed by a model trained on the example."""
    d = tmp_path_factory.mktemp("vis")
    model, out = str(d / "toy.mpz"), str(d / "out.conll")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-q"]) == 0
    assert main(["-c", model, "-i", TEST, "-o", out, "-q"]) == 0
    return TEST, out


@pytest.fixture(scope="module")
def second(parsed, tmp_path_factory):
    """A second system output: arc-standard on the same data."""
    d = tmp_path_factory.mktemp("vis2")
    model, out = str(d / "std.mpz"), str(d / "std.conll")
    assert main(["-c", model, "-m", "learn", "-i", TRAIN, "-a", "nivrestandard", "-q"]) == 0
    assert main(["-c", model, "-i", TEST, "-o", out, "-q"]) == 0
    return out


def sentence_from_heads(heads, labels=None, forms=None):
    n = len(heads) - 1
    rows = []
    for d in range(1, n + 1):
        rows.append([str(d), forms[d - 1] if forms else f"w{d}", "_", "X", "X", "_", str(heads[d]),
                     labels[d - 1] if labels else "dep", "_", "_"])
    return Sentence(rows)


def mutate(sentence, rng, rate=0.3):
    """The same words with some heads (kept a tree: re-attached to the root) and labels changed."""
    heads = sentence.heads
    labels = sentence.labels
    n = len(heads)
    for d in range(n):
        r = rng.random()
        if r < rate / 2:
            heads[d] = 0
        elif r < rate:
            labels[d] = "other"
    return sentence.with_tree(heads, labels)


# ----------------------------------------------------------------------------- layout

@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2 ** 31), st.integers(1, 25), st.booleans())
def test_arc_levels_nest_and_keep_crossing_arcs_apart(seed, n, projective):
    rng = random.Random(seed)
    heads = random_projective_tree(rng, n) if projective else random_tree(rng, n)
    spans = [(min(h, d), max(h, d)) for d, h in enumerate(heads) if d > 0 and h > 0]
    levels = arc_levels(spans)
    assert all(level >= 1 for level in levels)
    for i, (a0, a1) in enumerate(spans):
        for j, (b0, b1) in enumerate(spans):
            if i == j:
                continue
            if a0 <= b0 and b1 <= a1:            # j nested in i: i is drawn higher
                assert levels[i] > levels[j]
            elif a0 < b0 < a1 < b1:              # crossing arcs never share a height
                assert levels[i] != levels[j]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2 ** 31), st.integers(1, 15))
def test_nonprojective_arcs_found_exactly_when_the_tree_is_not_projective(seed, n):
    rng = random.Random(seed)
    heads = random_tree(rng, n)
    flags = nonprojective_arcs(heads[1:])
    assert any(flags) == (not is_projective(heads))


def test_depths_against_walking_up():
    rng = random.Random(3)
    for _ in range(200):
        heads = random_tree(rng, rng.randint(1, 20))
        want = []
        for d in range(1, len(heads)):
            k, a = 0, d
            while a != 0:
                a, k = heads[a], k + 1
            want.append(k)
        assert depths(heads[1:]) == want


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31), st.integers(1, 20))
def test_svg_is_well_formed_with_one_arc_per_word_and_every_error_marked(seed, n):
    rng = random.Random(seed)
    gold = sentence_from_heads(random_tree(rng, n), [rng.choice(["a", "b", "c"]) for _ in range(n)])
    system = mutate(gold, rng)
    root = ET.fromstring(sentence_svg(system, gold))
    groups = [g for g in root.iter(f"{SVG}g") if "arc" in g.get("class", "").split()]
    predicted = [g for g in groups if "gold" not in g.get("class").split()]
    assert len(predicted) == n     # every word has one incoming arc (root arrows included)
    wrong_heads = sum(gh != sh for gh, sh in zip(gold.heads, system.heads))
    wrong_labels = sum(gh == sh and gl != sl for gh, sh, gl, sl in
                       zip(gold.heads, system.heads, gold.labels, system.labels))
    classes = [g.get("class").split() for g in groups]
    assert sum("gold" in c for c in classes) == wrong_heads
    assert sum("badhead" in c for c in classes) == wrong_heads
    assert sum("badlabel" in c for c in classes) == wrong_labels
    forms = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "form"]
    assert forms == gold.forms


def test_text_is_escaped_and_wide_words_get_room():
    s = sentence_from_heads([-1, 2, 0, 2], ["a<b", "root", "x&y"], forms=['<b>"', "漢字漢字漢字", "&amp;"])
    svg = sentence_svg(s)
    root = ET.fromstring(svg)   # well-formed despite <, & and quotes in the words
    forms = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "form"]
    assert forms == ['<b>"', "漢字漢字漢字", "&amp;"]
    xs = [float(t.get("x")) for t in root.iter(f"{SVG}text") if t.get("class") == "form"]
    # six wide characters at 14 px need more than 70 px between neighbouring word centres
    assert xs[1] - xs[0] > 70 and xs[2] - xs[1] > 70


def test_draw_api_returns_svg_for_one_sentence_and_html_for_many():
    sents = read_conll(TEST)[:3]
    one = draw(sents[0])
    assert one.startswith("<svg") and one._repr_html_() == one
    assert "<style>" in one   # styled on its own: a notebook cell or an .svg file has no page style
    page = draw(sents, gold=sents)
    assert page.startswith("<!DOCTYPE html>") and page.count('class="tree"') == 3


# ----------------------------------------------------------------------------- maltpy draw

def test_draw_command_one_svg_per_sentence_and_nothing_from_the_network(parsed, tmp_path):
    gold, system = parsed
    out = tmp_path / "trees.html"
    assert main(["draw", system, "--gold", gold, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.count('<svg xmlns="http://www.w3.org/2000/svg" class="tree"') == len(read_conll(gold))
    # self-contained: no scripts, links, images or CSS urls that a browser would fetch
    assert not re.search(r"""(src|href)\s*=|url\(|@import""", text)


def test_draw_selection_and_svg_output(parsed, tmp_path, capsys):
    gold, system = parsed
    svg = tmp_path / "one.svg"
    assert main(["draw", system, "--sentence", "2", "-o", str(svg)]) == 0
    root = ET.parse(svg).getroot()
    assert root.find(f"{SVG}style") is not None
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "form"] == read_conll(system)[1].forms
    assert main(["draw", system, "-o", str(tmp_path / "all.svg")]) == 1
    assert "one sentence" in capsys.readouterr().err
    assert not (tmp_path / "all.svg").exists()
    assert main(["draw", system, "--sentence", "999"]) == 1
    assert main(["draw", system, "--limit", "4", "-o", str(tmp_path / "four.html")]) == 0
    assert (tmp_path / "four.html").read_text().count('class="tree"') == 4
    g, s = read_conll(gold), read_conll(system)
    wrong = sum(a.heads != b.heads or a.labels != b.labels for a, b in zip(g, s))
    assert wrong > 0
    assert main(["draw", system, "--gold", gold, "--errors", "-o", str(tmp_path / "err.html")]) == 0
    assert (tmp_path / "err.html").read_text().count('class="tree"') == wrong


def test_draw_refuses_gold_of_other_sentences(parsed, tmp_path, capsys):
    gold, system = parsed
    short = tmp_path / "short.conll"
    short.write_text("\n\n".join(open(gold, encoding="utf-8").read().split("\n\n")[:3]) + "\n\n")
    assert main(["draw", system, "--gold", str(short), "-o", str(tmp_path / "x.html")]) == 1
    assert "sentences" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


# ----------------------------------------------------------------------------- breakdown and report

def read_columns(path):
    """A separate reading of a CoNLL file: per sentence, (heads, labels, forms)."""
    sents, cur = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if cur:
                sents.append(cur)
                cur = []
            continue
        if line.startswith("#"):
            continue
        f = line.split("\t")
        cur.append((int(f[6]), f[7], f[1]))
    if cur:
        sents.append(cur)
    return sents


def arc_length_figures(gold_path, system_path):
    """Recall by gold and precision by predicted arc length, recomputed from the files."""
    table = {}
    for g, s in zip(read_columns(gold_path), read_columns(system_path)):
        for d, ((gh, gl, _), (sh, sl, _)) in enumerate(zip(g, s), 1):
            for side, h in (("gold", gh), ("system", sh)):
                key = "root" if h == 0 else (str(abs(h - d)) if abs(h - d) < 15 else "15+")
                row = table.setdefault(key, {"gold": [0, 0, 0], "system": [0, 0, 0]})[side]
                row[0] += 1
                row[1] += gh == sh and gl == sl
                row[2] += gh == sh
    return table


class Tables(HTMLParser):
    """Every <table> of a page as a list of rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_report_arc_length_table_equals_figures_recomputed_from_the_files(parsed, tmp_path):
    gold, system = parsed
    report = tmp_path / "report.html"
    assert main(["eval", gold, system, "--report", str(report), "--no-plots"]) == 0
    p = Tables()
    p.feed(report.read_text(encoding="utf-8"))
    arc = next(t for t in p.tables if t[0][0] == "arc length")
    want = arc_length_figures(gold, system)
    rows = {r[0]: r for r in arc[1:]}
    assert set(rows) == set(arc_length_bins())
    for key in arc_length_bins():
        g, s = want.get(key, {"gold": [0, 0, 0], "system": [0, 0, 0]}).values()
        r = rows[key]
        assert int(r[1]) == g[0] and int(r[4]) == s[0]
        pct = lambda a, b: f"{100.0 * a / b:.2f}" if b else "0.00"   # noqa: E731
        assert r[2] == pct(g[1], g[0]) and r[3] == pct(g[2], g[0])
        assert r[5] == pct(s[1], s[0]) and r[6] == pct(s[2], s[0])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 31))
def test_breakdown_groups_add_up_to_the_overall_scores(seed):
    rng = random.Random(seed)
    gold = [sentence_from_heads(random_tree(rng, rng.randint(1, 30)),
                                None) for _ in range(5)]
    gold = [g.with_tree(g.heads, [rng.choice("abc") for _ in g.heads]) for g in gold]
    system = [mutate(g, rng) for g in gold]
    b = breakdown(gold, system)
    o = b.overall
    for groups in (b.gold_arc_length, b.system_arc_length, b.gold_depth, b.system_depth):
        assert sum(c.tokens for c in groups.values()) == o.tokens
        assert sum(c.head for c in groups.values()) == o.head
        assert sum(c.both for c in groups.values()) == o.both
    assert sum(s.tokens for s in b.sentence_length.values()) == o.tokens
    assert sum(c.gold for c in b.labels.values()) == o.tokens == sum(c.system for c in b.labels.values())
    assert sum(c.correct for c in b.labels.values()) == o.both
    assert sum(b.confusions.values()) == o.tokens - o.label
    assert sum(s.tokens for s in b.pos.values()) == o.tokens
    perfect = breakdown(gold, gold)
    assert perfect.overall.las == 100.0 and not perfect.confusions
    assert all(c.f1 == 100.0 for c in perfect.labels.values())
    diff = most_different(b, perfect, limit=3)
    assert all(d > 0 for _, d in diff)
    assert [d for _, d in diff] == sorted((d for _, d in diff), reverse=True)


def test_report_with_compare_and_plots(parsed, second, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    gold, system = parsed
    report, plots = tmp_path / "r.html", tmp_path / "plots"
    assert main(["eval", gold, system, "--compare", second, "--report", str(report), "--plots", str(plots),
                 "--rounds", "500", "--differing", "3"]) == 0
    assert "p-value" in capsys.readouterr().out
    text = report.read_text(encoding="utf-8")
    assert "Significance" in text and os.path.basename(second) in text
    g, a, b = (read_conll(p) for p in (gold, system, second))
    differ = sum(sum(x.heads[k] == y.heads[k] and x.labels[k] == y.labels[k] for k in range(len(x)))
                 != sum(x.heads[k] == z.heads[k] and x.labels[k] == z.labels[k] for k in range(len(x)))
                 for x, y, z in zip(g, a, b))
    assert text.count('class="tree"') == 2 * min(3, differ)
    assert text.count("<svg") >= 5 + 2 * min(3, differ)   # the plots are inline SVG
    for name in ("arc_length", "sentence_length", "depth", "labels", "pos"):
        assert (plots / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        ET.parse(plots / f"{name}.svg")


def test_report_without_matplotlib_has_tables_only(parsed, tmp_path, monkeypatch, capsys):
    import maltpy.visual.plots as plots
    from maltpy.errors import MaltpyError

    def missing(*a, **k):
        raise MaltpyError("plots need matplotlib: pip install 'maltpy[plots]'")

    monkeypatch.setattr(plots, "_figure", missing)
    gold, system = parsed
    report = tmp_path / "r.html"
    assert main(["eval", gold, system, "--report", str(report)]) == 0
    assert "tables only" in capsys.readouterr().err
    text = report.read_text(encoding="utf-8")
    assert "<svg" not in text and "By arc length" in text
    assert main(["eval", gold, system, "--plots", str(tmp_path / "p")]) == 1
    assert "maltpy[plots]" in capsys.readouterr().err


# ----------------------------------------------------------------------------- in a browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def render(path, tmp_path):
    """Load a file in headless Chromium: (the DOM after loading, the console messages)."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'chromium'}", "--enable-logging=stderr", "--v=0",
           "--dump-dom", f"file://{path}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    return r.stdout, console


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium)")
def test_pages_load_in_chromium_without_errors(parsed, second, tmp_path):
    gold, system = parsed
    trees, report = tmp_path / "trees.html", tmp_path / "report.html"
    assert main(["draw", system, "--gold", gold, "-o", str(trees)]) == 0
    assert main(["eval", gold, system, "--compare", second, "--report", str(report), "--rounds", "200"]) == 0
    dom, console = render(trees, tmp_path)
    assert console == []
    assert dom.count('class="tree"') == len(read_conll(gold))
    dom, console = render(report, tmp_path)
    assert console == []
    assert "By arc length" in dom


def test_levels_and_nonprojective_flags_agree_with_their_definitions_on_random_trees():
    """The O(n log n) layout: every arc above the arcs it contains, crossing arcs on different
    lines; the non-projective flags as the definition says (a word between not under the head)."""
    import random
    from conftest import random_tree
    from maltpy.visual.trees import arc_levels, nonprojective_arcs
    rng = random.Random(7)
    for _ in range(400):
        n = rng.randint(1, 14)
        heads = random_tree(rng, n)[1:]
        spans = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
        levels = arc_levels(spans)
        for a, (lo, hi) in enumerate(spans):
            for b, (jl, jh) in enumerate(spans):
                if a != b and lo <= jl and jh <= hi:
                    assert levels[a] > levels[b]
                elif a != b and jl < hi and lo < jh and not (jl <= lo and hi <= jh):
                    assert levels[a] != levels[b]

        def dominated(k, h):
            while k > 0 and k != h:
                k = heads[k - 1]
            return k == h
        expected = [h > 0 and any(not dominated(k, h) for k in range(min(h, d) + 1, max(h, d)))
                    for d, h in enumerate(heads, 1)]
        assert nonprojective_arcs(heads) == expected
