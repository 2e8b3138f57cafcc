"""Feature notation, YAML/XML models, compilation and extraction."""
import glob
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from maltpy.features import MODELS_DIR
from maltpy.features.compiler import compile_model
from maltpy.features.extract import Extractor
from maltpy.features.spec import (
    Address, FeatureSpecError, InputColumn, Merge, convert_maltparser_xml, load_feature_model,
    parse_feature,
)
from maltpy.systems import NivreEager
from conftest import SHARED
from systems.test_systems import G2_HEADS, LID, g2_labels, make

EXAMPLES = [
    "InputColumn(POSTAG, Stack[0])",
    "OutputColumn(DEPREL, ldep(Input[0]))",
    "InputColumn(FORM, head(Stack[0]))",
    "Merge(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))",
    "Merge3(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, rdep(Stack[0])))",
    "InputArc(HEAD, Stack[0], Input[0])",
    "InputArcDir(HEAD, Stack[0])",
    "OutputArc(HEAD, Stack[0], Input[0])",
    "Exists(ldep(Stack[0]))",
    "Distance(Stack[0], Input[0], 0|1|2|5)",
    "NumOf(Stack[0], ldeps, 0|1|2|5)",
    "Split(InputColumn(FEATS, Input[0]), \\|)",
    "Suffix(InputColumn(FORM, Input[0]), 3)",
    "Prefix(InputColumn(FORM, Lookahead[1]), 2)",
    "InputColumn(POSTAG, lsib(rsib(pred(succ(Input[0])))))",
    "Linked(Stack[1], Input[0])",
    "LabelSet(Stack[0], rdeps)",
    "InputColumn(FORM, lcdep(rcdep(Stack[0])))",
    "LinkLabel(ActiveStack[0], Input[0])",
    "LinkLabel(Right[0], thead(Right[0]))",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_feature_string_round_trip(text):
    f = parse_feature(text)
    assert str(f) == text
    assert parse_feature(str(f)) == f


@pytest.mark.parametrize("text", EXAMPLES)
def test_parsed_features_are_immutable_values(text):
    """Equal when parsed twice, usable as dict keys, frozen, and rebuilt from their repr, as
    frozen dataclasses were."""
    import dataclasses
    from maltpy.features import spec
    a, b = parse_feature(text), parse_feature(text)
    assert a == b and hash(a) == hash(b) and len({a: 1, b: 2}) == 1
    assert eval(repr(a), vars(spec)) == a
    field = a._fields[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(a, field, None)
    assert a != parse_feature(EXAMPLES[0] if text != EXAMPLES[0] else EXAMPLES[1])


def test_feature_values_take_fields_by_position_name_or_default():
    assert Address("Stack", 0) == Address(base="Stack", index=0, nav=())
    assert Address("Stack", 0) != Address("Stack", 1)
    assert InputColumn("POSTAG", Address("Stack", 0)) != Address("Stack", 0)
    with pytest.raises(TypeError, match="missing argument 'index'"):
        Address("Stack")
    with pytest.raises(TypeError, match="unexpected or repeated argument 'base'"):
        Address("Stack", 0, base="Input")
    with pytest.raises(TypeError, match="takes 3 arguments"):
        Address("Stack", 0, (), 4)


def test_nested_address_order():
    f = parse_feature("OutputColumn(DEPREL, ldep(head(Stack[0])))")
    assert f.address == Address("Stack", 0, ("head", "ldep"))


@pytest.mark.parametrize("bad,message", [
    ("InputColumn(POSTAG)", "takes 2"),
    ("Foo(POSTAG, Stack[0])", "unknown feature function"),
    ("InputColumn(POSTAG, Stack[-1])", "negative"),
    ("InputColumn(POSTAG, lmost(Stack[0]))", "unknown address function"),
    ("Merge(InputColumn(POSTAG, Stack[0])", "unbalanced"),
    ("Distance(Stack[0], Input[0], 1|2)", "start with 0"),
    ("NumOf(Stack[0], kids, 0|1)", "ldeps, rdeps or deps"),
    ("Merge(Split(InputColumn(FEATS, Input[0]), \\|), InputColumn(POSTAG, Stack[0]))", "single-valued"),
])
def test_bad_features_say_what_is_wrong(bad, message):
    with pytest.raises(FeatureSpecError, match=message):
        parse_feature(bad)


def test_yaml_accepts_strings_and_mappings():
    model = load_feature_model("""
name: test
features:
  - InputColumn(POSTAG, Stack[0])
  - Merge:
      - InputColumn(POSTAG, Stack[0])
      - InputColumn(POSTAG, Input[0])
  - InputColumn: [FORM, "Input[1]"]
""")
    assert model.features[1] == Merge((InputColumn("POSTAG", Address("Stack", 0)),
                                       InputColumn("POSTAG", Address("Input", 0))))
    assert model.features[2] == InputColumn("FORM", Address("Input", 1))


def test_yaml_errors_name_the_feature():
    with pytest.raises(FeatureSpecError, match="m.yaml:3: .*Bogus"):   # the feature's line
        load_feature_model("features:\n  - InputColumn(POSTAG, Stack[0])\n  - Bogus(x)\n", "m.yaml")
    with pytest.raises(FeatureSpecError, match="features"):
        load_feature_model("name: x\n", "m.yaml")


def test_shipped_models_match_maltparser_xml():
    """Every shipped YAML model equals the MaltParser XML it was converted from."""
    xmls = glob.glob(os.path.join(SHARED, "reference", "maltparser", "features", "*", "*", "*.xml"))
    yamls = glob.glob(os.path.join(MODELS_DIR, "*", "*", "*.yaml"))
    assert len(yamls) >= 8
    if not xmls:
        pytest.skip("MaltParser reference models not available")
    checked = 0
    for xml in xmls:
        learner, fmt, name = xml.split(os.sep)[-3:]
        if fmt not in ("conllx", "conllu"):
            continue
        ours = os.path.join(MODELS_DIR, learner, fmt, name[:-4] + ".yaml")
        assert os.path.exists(ours), ours
        with open(xml) as f:
            expected = convert_maltparser_xml(f.read(), xml)[0].features
        with open(ours) as f:
            assert load_feature_model(f.read(), ours).features == expected
        checked += 1
    assert checked >= 40


def test_compile_rejects_wrong_columns_and_addresses():
    m = load_feature_model("features: ['InputColumn(UPOSTAG, Stack[0])']")
    with pytest.raises(FeatureSpecError, match="conllu"):
        compile_model(m, "conllx", NivreEager)
    m = load_feature_model("features: ['InputColumn(POSTAG, Left[0])']")
    with pytest.raises(FeatureSpecError, match="Stack"):
        compile_model(m, "conllx", NivreEager)


def test_extraction_at_figure6_configuration():
    """Spec T14: after RA_PMOD on G2 (stack [0,3,5,6,8], buffer [9])."""
    model = load_feature_model("""features:
  - InputColumn(POSTAG, Stack[0])
  - InputColumn(POSTAG, Stack[1])
  - InputColumn(FORM, head(Stack[0]))
  - OutputColumn(DEPREL, ldep(Stack[0]))
  - OutputColumn(DEPREL, Stack[0])
  - OutputColumn(DEPREL, rdep(Stack[0]))
  - InputColumn(POSTAG, Input[1])
  - Exists(Input[1])
  - Distance(Stack[0], Input[0], 0|1|2|5)
  - NumOf(Stack[1], rdeps, 0|1|2)
  - OutputArc(HEAD, Stack[1], Stack[0])
""")
    comp = compile_model(model, "conllx", NivreEager)
    ex = Extractor(comp.tables, len(comp.token_columns), 1, -1)
    s = make(NivreEager)
    cfg = s.new_configuration(9)
    cfg.set_gold(G2_HEADS, g2_labels())
    for _ in range(12):  # up to and including RA_PMOD
        cfg.apply(*cfg.oracle())
    assert cfg.stack == [0, 3, 5, 6, 8] and cfg.buffer == [9]
    # token ids: column j of row i = 100 * j + i, so values reveal which node was read
    tok = np.array([[0] * len(comp.token_columns)] + [[100 * (j + 1) + i for j in range(len(comp.token_columns))]
                                                      for i in range(1, 10)], dtype=np.int32)
    nodes, values = ex.inspect(cfg, tok)
    pos, form = comp.token_columns.index((4, "plain", 0)), comp.token_columns.index((1, "plain", 0))
    assert values[0] == 100 * (pos + 1) + 8        # POSTAG(Stack[0] = 8)
    assert values[1] == 100 * (pos + 1) + 6        # POSTAG(Stack[1] = 6)
    assert values[2] == 100 * (form + 1) + 6       # FORM(head(8) = 6)
    assert values[3] == LID["NMOD"] + 1            # DEPREL(ldep(8) = 7)
    assert values[4] == LID["PMOD"] + 1            # DEPREL(8)
    assert values[5] == 0                          # rdep(8) is null
    assert values[6] == 0                          # Input[1] is null
    assert values[7] == 1                          # Exists(Input[1]) = FALSE
    assert values[8] == 2                          # |8 - 9| = 1 -> bin "1"
    assert values[9] == 2                          # 6 has one right dependent (8)
    assert values[10] == 2                         # 6 -> 8: dependent on the right


def test_undirected_features_read_the_links():
    """-ud: head(x) is the closest linked node (its link's label is DEPREL(x)), ldep / rdep the
    leftmost / rightmost linked node on each side; Linked and LinkLabel test the link itself."""
    from maltpy.systems import SYSTEMS
    model = load_feature_model("""features:
  - InputColumn(FORM, head(Stack[0]))
  - OutputColumn(DEPREL, Stack[0])
  - InputColumn(FORM, ldep(Stack[0]))
  - InputColumn(FORM, rdep(Stack[0]))
  - Linked(Stack[0], Input[0])
  - LinkLabel(Stack[0], Input[0])
  - OutputArc(HEAD, Stack[0], Input[0])
  - LinkLabel(Stack[1], Stack[0])
""")
    planar = SYSTEMS["planar"]
    comp = compile_model(model, "conllx", planar)
    ex = Extractor(comp.tables, len(comp.token_columns), 1, -1)
    s = planar(len(LID), LID["ROOT"], undirected="naive")
    cfg = s.new_configuration(5)
    # SH 1, SH 2, SH 3; ARC 3-4 (P), RE 3; ARC 2-4 (OBJ), RE 2; ARC 1-4 (SBJ)
    for move, label in ((0, -1), (0, -1), (0, -1), (2, LID["P"]), (1, -1), (2, LID["OBJ"]), (1, -1),
                        (2, LID["SBJ"])):
        cfg.apply(move, label)
    assert cfg.stack == [0, 1] and cfg.buffer == [4, 5]
    cfg.apply(1, -1)           # RE 1: stack [0], so look at 4 after SH
    cfg.apply(0, -1)           # SH 4
    tok = np.array([[0]] + [[100 + i] for i in range(1, 6)], dtype=np.int32)
    nodes, values = ex.inspect(cfg, tok)
    assert values[0] == 103                       # the closest node linked to 4 is 3
    assert values[1] == LID["P"] + 1             # ... by the P link
    assert values[2] == 101 and values[3] == 0    # leftmost linked on the left: 1; none on the right
    assert values[4] == 1 and values[5] == 0      # 4 and 5 are not linked
    assert values[6] == 3                         # OutputArc: no link
    assert values[7] == 0                         # 0 and 4 are not linked
    cfg.apply(2, LID["NMOD"])                     # ARC 4-5
    nodes, values = ex.inspect(cfg, tok)
    assert values[4] == 2 and values[5] == LID["NMOD"] + 1 and values[6] == 1
    assert values[3] == 105                       # rdep(4) = 5 now


@pytest.mark.parametrize("steps", range(0, 18))
def test_closest_dependents_and_label_sets(steps):
    """lcdep / rcdep are the closest left / right dependents and LabelSet the set of the
    dependents' labels (equal sets give equal values, different ones different values here),
    checked against the partial tree at every step of G2's oracle run."""
    model = load_feature_model("""features:
  - InputColumn(FORM, lcdep(Stack[0]))
  - InputColumn(FORM, rcdep(Stack[0]))
  - InputColumn(FORM, lcdep(Stack[1]))
  - InputColumn(FORM, rcdep(Stack[1]))
  - LabelSet(Stack[0], ldeps)
  - LabelSet(Stack[0], rdeps)
  - LabelSet(Stack[1], deps)
""")
    comp = compile_model(model, "conllx", NivreEager)
    ex = Extractor(comp.tables, len(comp.token_columns), 1, -1)
    cfg = make(NivreEager).new_configuration(9)
    cfg.set_gold(G2_HEADS, g2_labels())
    for _ in range(steps):
        if cfg.is_terminal():
            return
        cfg.apply(*cfg.oracle())
    tok = np.array([[0]] + [[100 + i] for i in range(1, 10)], dtype=np.int32)
    nodes, values = ex.inspect(cfg, tok)
    heads, labels = cfg.heads, cfg.labels
    stack = cfg.stack

    def closest(x, left):
        deps = [d for d in range(1, 10) if heads[d] == x and (d < x if left else d > x)]
        return (max(deps) if left else min(deps)) if deps else None

    def labelset(x, side):
        return frozenset(labels[d] for d in range(1, 10) if heads[d] == x
                         and (side == "deps" or (d < x) == (side == "ldeps")))
    for k, (pos, left) in enumerate(((1, True), (1, False), (2, True), (2, False))):
        x = stack[-pos] if len(stack) >= pos else None
        c = closest(x, left) if x is not None else None
        assert values[k] == (100 + c if c else 0)
    sets = [(stack[-1], "ldeps"), (stack[-1], "rdeps")] + ([(stack[-2], "deps")] if len(stack) > 1 else [])
    got = values[4:4 + len(sets)]
    for (x1, s1), v1 in zip(sets, got):
        assert (v1 == 1) == (not labelset(x1, s1))
        for (x2, s2), v2 in zip(sets, got):
            assert (v1 == v2) == (labelset(x1, s1) == labelset(x2, s2))


def test_feature_counts_of_default_models():
    """MaltParser's liblinear defaults: 22 features for nivreeager, 21 for nivrestandard."""
    for name, count in (("NivreEager", 22), ("NivreStandard", 21)):
        with open(os.path.join(MODELS_DIR, "liblinear", "conllx", name + ".yaml")) as f:
            assert len(load_feature_model(f.read()).features) == count


def test_every_shipped_model_compiles_for_its_format():
    """Each YAML file under feature_models/<learner>/<format>/ compiles for that format with at least
    one system (the undirected and Covington models need their own addresses)."""
    from maltpy.features.spec import FeatureSpecError as Err
    from maltpy.systems import SYSTEMS
    paths = glob.glob(os.path.join(MODELS_DIR, "*", "*", "*.yaml"))
    assert paths
    for path in paths:
        fmt = path.split(os.sep)[-2]
        with open(path) as f:
            model = load_feature_model(f.read(), path)
        compiled = 0
        for cls in SYSTEMS.values():
            try:
                compile_model(model, fmt, cls)
                compiled += 1
            except Err:
                pass
        assert compiled, path


def test_lean_model_makes_no_more_lookups_than_maltparsers_default():
    """NivreEagerLean exists to parse as fast as the default model: at most its 22 templates."""
    for fmt in ("conllx", "conllu"):
        sizes = {}
        for name in ("NivreEager", "NivreEagerLean"):
            with open(os.path.join(MODELS_DIR, "liblinear", fmt, name + ".yaml")) as f:
                sizes[name] = len(load_feature_model(f.read()).features)
        assert sizes["NivreEagerLean"] <= sizes["NivreEager"]


@pytest.mark.parametrize("mode", ["one", "rootnode", "novalue"])
def test_null_values_follow_maltparsers_nv_option(mode):
    """-nv: no node is always 0; the root and an unlabeled node get values of their own as asked."""
    from maltpy.features.extract import NO_VALUE, ROOT_VALUE
    model = load_feature_model("""features:
  - InputColumn(POSTAG, Stack[0])
  - InputColumn(POSTAG, Stack[1])
  - OutputColumn(DEPREL, Stack[0])
  - OutputColumn(DEPREL, Input[0])
  - OutputColumn(DEPREL, Stack[1])
""")
    comp = compile_model(model, "conllx", NivreEager)
    ex = Extractor(comp.tables, len(comp.token_columns), 1, -1, mode)
    cfg = make(NivreEager).new_configuration(3)  # stack [0], buffer [1, 2, 3]
    tok = np.array([[ex.root_value]] + [[10 + i] for i in range(1, 4)], dtype=np.int32)
    root = {"one": 0, "rootnode": ROOT_VALUE, "novalue": ROOT_VALUE}[mode]
    unlabeled = {"one": 0, "rootnode": ROOT_VALUE, "novalue": NO_VALUE}[mode]
    _, values = ex.inspect(cfg, tok)
    assert values == [root, 0, root, unlabeled, 0]
    with pytest.raises(ValueError):
        Extractor(comp.tables, len(comp.token_columns), 1, -1, "none")


def test_null_value_option_reaches_training_and_parsing(tmp_path):
    from conftest import EXAMPLES
    from maltpy.formats.conll import read_conll
    from maltpy.parsing.parser import Parser
    import maltpy
    train = read_conll(os.path.join(EXAMPLES, "toy-train.conll"), need_heads=True)
    test = read_conll(os.path.join(EXAMPLES, "toy-test.conll"), need_heads=True)
    p = Parser(null_value="novalue", verbose=False).fit(train)
    assert p.extractor.root_value != 0 and p.encode(test[:1]).tok[0, 0] == p.extractor.root_value
    path = str(tmp_path / "nv.mpz")
    p.save(path)
    q = maltpy.load(path)
    assert q.settings.null_value == "novalue"
    assert [s.rows for s in q.parse(test)] == [s.rows for s in p.parse(test)]


def _template_keys(model_text, mode="one"):
    """Template index of every key extracted at the start of a 3-word sentence (stack [0])."""
    comp = compile_model(load_feature_model(model_text), "conllx", NivreEager)
    ex = Extractor(comp.tables, len(comp.token_columns), 1, -1, mode)
    cfg = make(NivreEager).new_configuration(3)
    tok = np.array([[ex.root_value] * len(comp.token_columns)]
                   + [[10 + i] * len(comp.token_columns) for i in range(1, 4)], dtype=np.int32)
    keys, _ = ex.keys(cfg, tok)
    return [int(k) >> 50 for k in keys]


@pytest.mark.parametrize("mode", ["one", "rootnode", "novalue"])
def test_merge_of_null_values_only_is_left_out(mode):
    """MaltParser gives a Merge whose parts are all null values the value 0: no feature.

    A merge with one real part, and a single null-valued feature, stay.
    """
    model = """features:
  - Merge3(InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, ldep(Stack[0])), OutputColumn(DEPREL, rdep(Stack[0])))
  - Merge(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))
  - Merge(OutputColumn(DEPREL, Input[0]), InputColumn(POSTAG, Input[3]))
  - InputColumn(POSTAG, Input[3])
"""
    # stack [0]: POSTAG of the root, ldep/rdep of the root, DEPREL of unattached
    # Input[0] and Input[3] (no such node) are null values
    assert sorted(_template_keys(model, mode)) == [1, 3]


def test_features_are_extracted_in_maltparsers_sorted_order():
    """MaltParser keeps the specifications in a sorted set; the learner numbers features in that order."""
    model = """features:
  - OutputColumn(DEPREL, ldep(Input[0]))
  - InputColumn(POSTAG, Input[0])
  - Merge(InputColumn(POSTAG, Input[0]), InputColumn(POSTAG, Input[1]))
  - InputColumn(FORM, Input[1])
  - Merge3(InputColumn(POSTAG, Input[0]), InputColumn(POSTAG, Input[1]), InputColumn(POSTAG, Input[2]))
"""
    assert _template_keys(model) == [3, 1, 2, 4, 0]


@pytest.mark.parametrize("content, expect", [
    (b"name: x\nfeatures:\n  - InputColumn(POSTAG, Input[0])\n  - InputColumn(POSTAG, Input[2147483648])\n",
     ":4: offset 2147483648"),
    (b"name: x\nfeatures:\n  - InputColumn(POSTAG, Input[0])\n  - Distance(Stack[0], Input[0], \"0|99999999999\")\n",
     ":4: normalization"),
    (b"name: x\nfeatures:\n  - Suffix(InputColumn(FORM, Input[0]), 4294967296)\n", ":3: Suffix length"),
    (b"name: x\nfeatures:\n  - InputColumn(POSTAG, Input[0]\n  : -\n", ":4: not valid YAML"),
    (b"name: x\nfeatures:\n  - InputColumn(POSTAG, Input[0])\n  - \xff\n", ":4: invalid UTF-8"),
    (b"name: x\nfeatures:\n  - InputColumn(FOO, Input[0])\n", "no input column FOO"),
])
def test_feature_model_errors_name_the_file_and_line(tmp_path, capsys, content, expect):
    from maltpy.cli.main import main
    fm = tmp_path / "fm.yaml"
    fm.write_bytes(content)
    from conftest import EXAMPLES as EXAMPLE_DIR
    train = os.path.join(EXAMPLE_DIR, "toy-train.conll")
    assert main(["-c", str(tmp_path / "m.mpz"), "-m", "learn", "-i", train, "-F", str(fm), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"maltpy: error: {fm}") and expect in err and "Traceback" not in err
    assert err.count("\n") == 1


def _tentative_head(links, directions, x):
    """thead(x) from the links and the labels' directions, as the notation defines it."""
    found = [y for a, b, lab in links if x in (a, b)
             for y in [b if a == x else a]
             if (directions[lab] == 1 and y > x) or (directions[lab] == 2 and y < x)]
    return min(found, key=lambda y: (abs(y - x), y)) if found else -1


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 9), st.lists(st.integers(0, 2), min_size=6, max_size=6), st.randoms(use_true_random=False))
def test_tentative_head_follows_the_link_labels(n, directions, rng):
    """thead(x): the node linked to x whose link's label makes it x's head (closest, left on a
    tie), at every step of random label-based undirected Covington parses; with naive links and
    on a directed parse it is head(x)."""
    from maltpy.systems import SYSTEMS
    tok = np.array([[0]] + [[100 + i] for i in range(1, n + 1)], dtype=np.int32)
    for mode in ("label", "naive", "none"):
        system = SYSTEMS["covnonproj"](6, 0, undirected=mode)
        if mode == "label":
            system.set_label_directions(np.array(directions, dtype=np.int32))
        extractors = []
        for base in ("Left", "Right"):      # one address each: nodes[0] is thead(base[0])
            comp = compile_model(load_feature_model(f"features:\n  - LinkLabel({base}[0], thead({base}[0]))\n"),
                                 "conllx", system)
            extractors.append(Extractor(comp.tables, len(comp.token_columns), 1, -1))
        cfg = system.new_configuration(n)
        while not cfg.is_terminal():
            inspected = [ex.inspect(cfg, tok) for ex in extractors]
            for (nodes, values), x in zip(inspected, (cfg.left, cfg.right)):
                if mode != "label":      # head(x): the closest linked node with naive links
                    want = cfg.heads[x]
                else:
                    want = _tentative_head(cfg.links, directions, x)
                assert nodes[1] == (want if want >= 0 else -1)      # nodes[0] is x itself
                # LinkLabel(x, thead(x)): that link's label (value label + 1), 0 without one
                labels = [lab for a, b, lab in cfg.links if {a, b} == {x, want}] if mode != "none" else \
                    ([cfg.labels[x]] if want >= 0 else [])
                assert values[0] == (labels[0] + 1 if labels else 0)
            moves = cfg.valid_moves()
            cfg.apply(rng.choice(moves), rng.randrange(6))
