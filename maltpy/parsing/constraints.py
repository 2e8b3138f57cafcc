"""Constrained parsing (``--constraints``): the arcs the input gives, what a model needs to keep
them, and the report of those it could not keep; and arc scores for correction
(``--arc-scores``).

A HEAD with a DEPREL fixes both, a HEAD with ``_`` as DEPREL fixes the head only, a DEPREL
without a HEAD fixes nothing. The search keeps them through
:meth:`maltpy.search.step.Step.restrict` (only the classes that lose the fewest given arcs are
permissible, by the system's dynamic oracle); an arc no output of the system can have (a
non-projective one for a projective system, a cycle, ...) is lost, and each lost arc is
reported with its file and line, as a warning or, with ``strict``, an error.
"""
from __future__ import annotations

import warnings

import numpy as np

from maltpy.errors import MaltpyError, MaltpyWarning
from maltpy.systems import SYSTEMS

#: an arc the report names at most this many times per call (the rest are counted)
REPORT_AT_MOST = 20


def check_constrainable(parser) -> None:
    """A one-line error unless ``parser`` can keep given arcs."""
    with_costs = [name for name, cls in SYSTEMS.items() if cls(1, 0).has_costs]
    system = parser.system(training=False)
    if not system.has_costs:
        raise MaltpyError(f"--constraints needs a system with a dynamic oracle ({', '.join(with_costs)}): "
                          f"{system.no_costs_reason}")
    if parser.view.steps or parser.reverse_parser is not None:
        names = ", ".join(type(s).__name__ for s in parser.view.steps) or "both directions"
        raise MaltpyError(f"--constraints keeps arcs as the model reads them: a model that transforms the "
                          f"trees ({names}: -pp, -dir or -ud label) does not take them yet")


def given_from_sentences(parser, sentences):
    """The arcs Sentence objects give, per corpus row as :meth:`Parser.encode` lays them out:
    (heads, label ids): -1 where none is given; -2 for a label the model does not have."""
    heads, labels = [], []
    ids = parser.label_ids
    for s in sentences:
        heads.append(-1)
        labels.append(-1)
        for row in s.rows:
            h = row[6]
            if h == "_":
                heads.append(-1)
                labels.append(-1)
                continue
            heads.append(int(h))
            labels.append(-1 if row[7] == "_" else ids.get(row[7], -2))
    return np.array(heads, dtype=np.int32), np.array(labels, dtype=np.int32)


def lost_arcs(offsets, given_heads, given_labels, heads, labels, one_root: bool = False):
    """The given arcs a parse did not keep: (sentence, word, what), words from 1. ``one_root``:
    the output gets one word on the root, so of the words a sentence gives the root, all but the
    first are lost too (:mod:`maltpy.transform.single_root` keeps the first there)."""
    lost = (given_heads >= 0) & ((heads != given_heads) | ((given_labels >= 0) & (labels != given_labels))
                                 | (given_labels == -2))
    if one_root:
        from maltpy.transform.single_root import given_roots
        first = given_roots(offsets, given_heads)
        on_root = given_heads == 0
        on_root[offsets[:-1]] = False
        on_root[(offsets[:-1] + 1 + first)[first >= 0]] = False
        lost |= on_root
    rows = np.flatnonzero(lost)
    sentence = np.searchsorted(offsets, rows, side="right") - 1
    return [(int(k), int(r - offsets[k]), int(r)) for k, r in zip(sentence, rows)]


def report(lost, given_heads, given_labels, heads, names, where, strict: bool) -> None:
    """Warn (or, ``strict``, raise) about each lost arc; ``where(k, i)``: "file:line" of word i
    of sentence k."""
    if not lost:
        return
    lines = []
    for k, i, r in lost[:REPORT_AT_MOST]:
        want = f"head {given_heads[r]}" + (f" ({names[given_labels[r]]})" if given_labels[r] >= 0 else "")
        if given_labels[r] == -2:
            why = "the model has no such label"
        elif given_heads[r] == 0 and heads[r] == 0:
            why = "the output has one word on the root (-ro one), and the sentence gives the root to a word before it"
        else:
            why = f"the parse has head {heads[r]}"
        lines.append(f"{where(k, i)}: the given arc (word {i}: {want}) could not be kept: {why}")
    more = len(lost) - len(lines)
    if more > 0:
        lines.append(f"... and {more} more given arcs could not be kept")
    if strict:
        raise MaltpyError(lines[0] + (f" (and {len(lost) - 1} more)" if len(lost) > 1 else "")
                               + "; without --constraints strict they are warnings")
    for line in lines:
        warnings.warn(MaltpyWarning(line), stacklevel=3)


def mode(parser, constraints) -> str:
    """The constraints a call asks for: its argument (True, False, "true", "strict", ...) or the
    ``constraints`` setting."""
    if constraints is None:
        return parser.settings.constraints
    if isinstance(constraints, bool):
        return "true" if constraints else "false"
    if str(constraints) not in ("false", "true", "strict"):
        raise MaltpyError(f"constraints must be True, False or 'strict', not {constraints!r}")
    return str(constraints)


def _sentence_line(sentence, i: int):
    """The input's line of word i (from 1) of a Sentence read from a file, else None."""
    if not sentence.first_line:
        return None
    return sentence.first_line + (i - 1) + sum(1 for position, _ in sentence.extra if position <= i - 1)


def searched_rows(parser, sentences, progress: bool, mode: str, with_scores: bool, one_root: bool = False):
    """Parse Sentence objects keeping the arcs they give (``mode`` "true" or "strict"; "false":
    none) and, ``with_scores``, with each arc's score (the margin of the decision that built it:
    :data:`ARC_SCORE`); the arcs that could not be kept are reported. Returns corpus rows as the
    C loop made them: (offsets, heads, label ids, scores per row or None, given heads per row or
    None), for the output tail (:func:`maltpy.parsing.tail.output_rows`). ``one_root``: the
    output will have one word on the root (a second word given the root is lost)."""
    given = heads_g = labels_g = None
    if mode != "false":
        check_constrainable(parser)
        heads_g, labels_g = given_from_sentences(parser, sentences)
        given = (heads_g, np.maximum(labels_g, -1))
    if with_scores and (parser.view.reverses_words or parser.reverse_parser is not None):
        raise MaltpyError("arc scores come from a model that reads left to right (not -dir rtl or both)")
    out = parser.parse_arrays(parser.view.encode(sentences, parser.format == "conllu"), progress, given=given,
                              record_confidence=with_scores)
    offsets, heads, labels = out[:3]

    def where(k, i):
        line = _sentence_line(sentences[k], i)
        return f"{sentences[k].source}:{line}" if line else f"{sentences[k].source}: sentence {k + 1}"

    if given is not None:
        report(lost_arcs(offsets, heads_g, labels_g, heads, labels, one_root), heads_g, labels_g, heads,
               parser.output_labels, where, mode == "strict")
    scores = out[3][:, ARC_SCORE].copy() if with_scores else None
    return offsets, heads, labels, scores, heads_g


#: which of the search's two confidences is an arc's score: the margin of the decision that built
#: it over the second-best permissible class (0), which on EWT dev ranks errors better than the
#: softmax probability (1): docs/constrained.md
ARC_SCORE = 0


def with_scores(sentence, scores):
    """A parsed Sentence with ``Score=`` (the arc's score, 4 significant digits) in each word's
    MISC column (CoNLL-U)."""
    for row, value in zip(sentence.rows, scores):
        item = f"Score={float(value):.4g}"
        row[9] = item if row[9] == "_" else f"{row[9]}|{item}"
    return sentence


def scored_sentences(parser, sentences, progress: bool, one_root, constraints):
    """Parsed copies of Sentence objects with each arc's score in MISC (``arc_scores``)."""
    from maltpy.parsing.tail import output_rows, split_trees
    if parser.format != "conllu":
        raise MaltpyError("arc scores are written in CoNLL-U's MISC column: use a CoNLL-U model")
    roots = one_root if one_root is not None else parser.one_root()
    offsets, heads, labels, scores, given = searched_rows(parser, sentences, progress, mode(parser, constraints),
                                                          True, roots)
    trees = split_trees(offsets, *output_rows(parser, offsets, heads, labels, roots, given))
    bounds = offsets.tolist()
    return [with_scores(sent._with_tree(h, l), scores[r0 + 1:r1])
            for sent, (h, l), r0, r1 in zip(sentences, trees, bounds, bounds[1:])]
