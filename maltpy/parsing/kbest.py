"""What a beam gives besides the best parse (spec beam.md §1.2): the k best parses of each
sentence (``nbest``) and each arc's confidence (``confidence``), from the final agenda of
:func:`maltpy.search.beam.beam_parse`."""
from __future__ import annotations

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.parsing.encode import column_values
from maltpy.search.step import Scoring


def beam_sentences(parser, sentences, progress: bool, one_root, nbest: int, confidence: bool):
    """Parsed copies of Sentence objects: with ``nbest`` > 1 a list of up to ``nbest`` parses per
    sentence (``# nbest = k`` and ``# score = s`` comments, best first), else one parse each;
    with ``confidence``, ``Conf=`` in each word's MISC (CoNLL-U)."""
    from maltpy.search import beam_temperature, parse_beam_margin
    from maltpy.search.beam import beam_parse
    from maltpy.parsing.tail import output_rows, split_trees
    if parser.settings.beam_width < 2:
        raise MaltpyError("k-best parses and confidences come from a beam: give -b 2 or more (in Python, "
                          "maltpy.load(path, beam_width=2)); greedy parsing has --arc-scores (arc_scores=True)")
    if confidence and parser.format != "conllu":
        raise MaltpyError("confidences are written in CoNLL-U's MISC column: use a CoNLL-U model")
    if parser.view.reverses_words or parser.reverse_parser is not None:
        raise MaltpyError("k-best parses and confidences come from a model that reads left to right")
    corpus = parser.encode(parser.view.encode(sentences, parser.format == "conllu"))
    parser.check_input(corpus, lambda ci: list(dict.fromkeys(column_values(sentences, ci))))
    conf = np.empty(corpus.n_rows, dtype=np.float32) if confidence else None
    step = parser.search_model().step(corpus.max_n, Scoring.CACHED_AFRESH)
    out = beam_parse(step, corpus, parser.settings.beam_width, nbest=max(nbest, 1), confidence_out=conf,
                     temperature=beam_temperature(parser.settings, parser.model.trained_globally),
                     margin=parse_beam_margin(parser.settings.beam_margin))
    roots = one_root if one_root is not None else parser.one_root()
    # every sentence's candidate trees as rows of their own, through the output tail at once
    lengths = [len(heads) for candidates in out[2] for heads, _, _ in candidates]
    tree_offsets = np.concatenate([[0], np.cumsum(np.asarray(lengths, dtype=np.int64) + 1)])
    tree_heads = np.full(int(tree_offsets[-1]), -1, dtype=np.int32)
    tree_labels = np.zeros(int(tree_offsets[-1]), dtype=np.int32)
    t = 0
    for candidates in out[2]:
        for heads, labels, _ in candidates:
            r0 = int(tree_offsets[t])
            tree_heads[r0 + 1:r0 + 1 + len(heads)] = heads
            tree_labels[r0 + 1:r0 + 1 + len(heads)] = labels
            t += 1
    written = iter(split_trees(tree_offsets, *output_rows(parser, tree_offsets, tree_heads, tree_labels, roots)))
    result = []
    offsets = corpus.offsets.tolist()
    for k, sent in enumerate(sentences):
        r0, r1 = offsets[k], offsets[k + 1]
        copies, seen = [], set()
        candidates = [(next(written), score) for _, _, score in out[2][k]]
        for (h, l), score in candidates:
            if (tuple(h), tuple(l)) in seen:      # distinct as written (one root can merge two)
                continue
            seen.add((tuple(h), tuple(l)))
            rank = len(copies) + 1
            copy = sent._with_tree(h, l)
            if nbest > 1:
                copy.extra = [(0, f"# nbest = {rank}"), (0, f"# score = {score:.4f}")] + list(copy.extra)
            if conf is not None and rank == 1:
                for row, value in zip(copy.rows, conf[r0 + 1:r1].tolist()):
                    item = f"Conf={value:.3f}"
                    row[9] = item if row[9] == "_" else f"{row[9]}|{item}"
            copies.append(copy)
            if nbest <= 1:
                break
        result.append(copies if nbest > 1 else copies[0])
    return result
