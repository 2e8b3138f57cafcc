"""One check of a sentence's words and tree, for the CoNLL reader and the Python API alike.

The reader turns a problem into ``file:line: message`` (:class:`~maltpy.errors.InputFormatError`);
the API (:func:`check_sentences`, used by ``Parser.fit`` and ``Parser.parse``) into a message
that names the sentence and the word. Either way nothing malformed reaches the compiled loops,
which trust every head to be a word of its sentence.
"""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from maltpy.errors import MaltpyError

HEAD, DEPREL = 6, 7
#: a HEAD value as CoNLL writes it (int() would also take "¹", " 7" or "007")
INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
#: what no CoNLL field can hold (a tab or line break would split the line)
BREAKS = re.compile(r"[\t\n\r]")
#: a CoNLL-U DEPREL holds no whitespace (UD's validate.py: universal relation, optional :subtype)
_SPACE = re.compile(r"\s")

Problem = Tuple[int, str]   # (word index from 0, or -1 for the whole sentence; message)


def find_cycle(heads) -> List[int]:
    """The words of a cycle in ``heads`` (index 0 unused, words 1..n, head 0 = the root, -1 = no
    head given, as in a partial tree), sorted; an empty list when there is none."""
    n = len(heads) - 1
    state = [0] * (n + 1)  # 0 unknown, 1 on the current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path_nodes, node = [], start
        while node >= 0 and state[node] == 0:
            state[node] = 1
            path_nodes.append(node)
            node = heads[node]
        if node >= 0 and state[node] == 1:
            return sorted(path_nodes[path_nodes.index(node):])
        for p in path_nodes:
            state[p] = 2
    return []


def field_problem(rows) -> Optional[Problem]:
    """The first word row that a CoNLL file could not hold: not 10 text fields, an empty field,
    or one with a tab or line break (the reader's rows hold none by construction)."""
    for k, row in enumerate(rows):
        # the usual row passes in one join; any other is looked at field by field
        try:
            if type(row) is list and len(row) == 10 and row[0] == str(k + 1):
                line = "\t".join(row)
                if (line.count("\t") == 9 and "\t\t" not in line and line[-1] != "\t"
                        and "\n" not in line and "\r" not in line):
                    continue
        except TypeError:
            pass
        problem = _row_problem(k, row)
        if problem is not None:
            return problem
    return None


def _row_problem(k: int, row) -> Optional[Problem]:
    if not isinstance(row, list) or len(row) != 10:
        return k, "a word row must be a list of 10 CoNLL columns"
    for ci, value in enumerate(row):
        if not isinstance(value, str):
            return k, f"column {ci + 1} is a {type(value).__name__}, not a string"
        if value == "" or BREAKS.search(value):
            return k, (f"column {ci + 1} ({value!r}) is empty or holds a tab or line break, "
                       "which a CoNLL file cannot hold (use _ for none)")
    if row[0] != str(k + 1):
        return k, f"expected token ID {k + 1}, found {row[0]!r}"
    return None


def tree_problem(rows, fmt: str, need_heads: bool) -> Optional[Problem]:
    """The first problem of a sentence's HEAD and DEPREL columns, or None.

    Every HEAD must be ``_`` or a word of the sentence (0 = the root), not the word itself.
    ``need_heads`` (training, gold standard): every word has a HEAD, the heads form a tree (no
    cycle) and, in CoNLL-U, no DEPREL holds whitespace; ``"partial"`` (training on partial trees):
    the same for the words that have a HEAD, others may have ``_``. DEPREL ``_`` is a label like any other, as
    in MaltParser: some treebanks use it (CoNLL 2007 Spanish), and an unlabelled treebank trains
    an unlabelled parser."""
    n = len(rows)
    heads = [-1] * (n + 1)
    for k, row in enumerate(rows):
        h = row[HEAD]
        if h == "_":
            if need_heads is True:
                return k, ("HEAD is _ but training and evaluation need gold trees, a head for every token "
                           "(partial trees, _ where a head is unknown, train with -l perceptron -or dynamic)")
            continue
        if h.isdigit() and h.isascii() and (h[0] != "0" or h == "0"):   # the usual case, fast
            h = int(h)
        elif INTEGER.fullmatch(h):
            h = int(h)
        else:
            return k, f"HEAD {h!r} is not an integer (ASCII digits, no leading zeros)"
        if h < 0 or h > n:
            return k, f"HEAD {h} is out of range: the sentence has {n} tokens"
        if h == k + 1:
            return k, f"token {h} is its own head"
        if need_heads and fmt == "conllu" and _SPACE.search(row[DEPREL]):
            return k, f"DEPREL {row[DEPREL]!r} holds whitespace, which CoNLL-U does not allow"
        heads[k + 1] = h
    if need_heads:
        cycle = find_cycle(heads)
        if cycle:
            return cycle[0] - 1, f"the heads of tokens {', '.join(map(str, cycle))} form a cycle"
    return None


def check_sentences(sentences: Sequence, fmt: str, need_heads: bool, what: str = "sentence") -> None:
    """Raise a :class:`MaltpyError` naming the sentence and word of the first problem that the
    CoNLL reader would report for these :class:`~maltpy.formats.conll.Sentence` objects."""
    for i, sentence in enumerate(sentences):
        # (a Sentence by its rows: this module is below maltpy.formats.conll, which uses it)
        rows = getattr(sentence, "rows", None)
        if rows is None or not hasattr(sentence, "first_line"):
            raise MaltpyError(f"{what} {i + 1} is a {type(sentence).__name__}, not a Sentence "
                              "(read treebanks with maltpy.read_conll, or make one with Sentence.from_words)")
        if not isinstance(rows, list) or not rows:
            raise MaltpyError(f"{what} {i + 1} has no words")
        problem = field_problem(rows) or tree_problem(rows, fmt, need_heads)
        if problem is not None:
            k, message = problem
            where = f" ({sentence.source}:{sentence.first_line})" if sentence.first_line else ""
            raise MaltpyError(f"{what} {i + 1}{where}, word {k + 1}: {message}")
