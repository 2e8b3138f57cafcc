"""Words and labels with white space inside, written as bracketed trees (discbracket, Penn
Treebank): their readers split tokens at every white-space character (Python's ``\\s``), so
every writer, compiled or Python, writes each one as ``_``, as disco-dop writes a space."""
import random
import sys

from hypothesis import given, settings, strategies as st

from maltpy.formats.discbracketio import export_discbracket
from maltpy.formats.export import format_discbracket, parse_discbracket, parse_export
from maltpy.formats.ptb import WHITE_SPACE, ptb_escape, tree_from_string
from maltpy.transform.headrules import HeadRules

# the white space a word or label may hold (a field of export or CoNLL holds no tab, line feed or
# carriage return), and other characters
BLANKS = [chr(c) for c in range(0x3001) if chr(c).isspace() and chr(c) not in "\t\n\r"]
OTHERS = ["a", "é", "日", "(", ")", "_", "-", "\u200b", "\u00ad"]
WORD = st.lists(st.sampled_from(BLANKS + OTHERS), min_size=1, max_size=6).map("".join).filter(
    lambda w: not w.startswith("#") and "%%" not in w)
# an export line with a space is read as aligned columns, so export text holds no space in a field
EXPORT_WORD = WORD.filter(lambda w: " " not in w)


def _export(words, tags, label):
    lines = ["#BOS 1"] + [f"{w}\t--\t{t}\t--\t--\t500" for w, t in zip(words, tags)] + \
        [f"#500\t--\t{label}\t--\t--\t0", "#EOS 1", ""]
    return "\n".join(lines)


@settings(max_examples=200, deadline=None)
@given(st.lists(EXPORT_WORD, min_size=1, max_size=4), st.lists(EXPORT_WORD, min_size=4, max_size=4), EXPORT_WORD)
def test_discbracket_writers_write_white_space_as_underscores(words, tags, label):
    """The Python writer and the compiled one (export in) write the same line, and it reads back
    with the same words, tags and labels, each white-space character an underscore."""
    tags = tags[:len(words)]
    text = _export(words, tags, label)
    python = format_discbracket(parse_export(text, "<t>"))
    compiled = export_discbracket(text.encode("utf-8"), 4)
    if compiled is not None:        # None: a line the compiled writer leaves to Python
        assert compiled.decode("utf-8") == python
    back = parse_discbracket(python.strip("\n"), "1")
    held = "".join("_" if c.isspace() else c for c in "".join(words))
    assert "".join(t.word for t in back.tokens) == held
    assert [t.tag for t in back.tokens] == ["".join("_" if c.isspace() else c for c in t) for t in tags]
    assert [n.tag for n in back.nodes] == ["".join("_" if c.isspace() else c for c in label)]


def test_the_white_space_listed_is_what_python_calls_white_space():
    assert sorted(WHITE_SPACE) == [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


def test_every_white_space_character_is_one_underscore():
    for c in BLANKS:
        assert ptb_escape(f"a{c}b") == "a_b", repr(c)
        assert ptb_escape(f"({c})") == "-LRB-_-RRB-", repr(c)


@settings(max_examples=100, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.integers(0, 10 ** 9))
def test_the_compiled_ptb_writer_escapes_as_ptb_escape(words, seed):
    """The parse path's bracket writer (maltpy.transform.reduce) writes what the Python decoder
    writes from ptb_escape'd words, and the tree reads back with one leaf per word."""
    from maltpy.parsing.constituent import Reduction
    from maltpy.transform.constituents import decode
    rng = random.Random(seed)
    n = len(words)
    heads = [0] + [rng.randrange(0, k) if k else 0 for k in range(1, n)]     # word k's head before it
    heads = [h if h != k + 1 else 0 for k, h in enumerate(heads)]
    labels = ["ROOT" if h == 0 else "NP#1" for h in heads]
    tags = ["NN"] * n
    encoding = "direct"
    rules = HeadRules.load("collins")
    python = decode([ptb_escape(w) for w in words], tags, heads, labels, encoding).tree
    compiled = Reduction(rules, encoding).decode_trees([(words, tags)], [(heads, labels)], unaries=False)[0]
    assert compiled == python
    assert len(tree_from_string(compiled.to_string()).preterminals()) == n
