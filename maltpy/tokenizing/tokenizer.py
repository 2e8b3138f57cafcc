"""The tokenizer: raw text into sentences of tokens and words, learned from a UD treebank.

A character classifier (:mod:`maltpy.tokenizing.segment`) says after each character whether a
token ends there and whether a sentence does; the tokens are then split into syntactic words
(:mod:`maltpy.tokenizing.multiword`). The output is CoNLL-U whose columns but ID, FORM and MISC
are ``_``: ``# newpar`` where a paragraph begins (a blank line in the text), ``# sent_id``,
``# text``, range lines for multiword tokens, and the spacing in MISC so that the text comes back
exactly: ``SpaceAfter=No`` where no space follows a token, ``SpacesAfter=`` (UDPipe's escapes
``\\s``, ``\\t``, ``\\n``, ``\\r``, ``\\\\``; ``\\uXXXX`` for other spaces) where other
whitespace than one space does, ``SpacesBefore=`` for whitespace that opens a paragraph.
"""
from __future__ import annotations

import re
import time
from typing import List, Optional, Sequence

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.tokenizing.chars import char_arrays

#: one space after a token is CoNLL-U's default: it is not written
_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}
_UNESCAPES = {"s": " ", "t": "\t", "n": "\n", "r": "\r", "\\": "\\"}


def escape_spaces(gap: str) -> str:
    """Whitespace as a MISC value (``SpacesAfter``)."""
    return "".join(_ESCAPES.get(c) or (c if not c.isspace() else f"\\u{ord(c):04X}") for c in gap)


def unescape_spaces(value: str) -> str:
    """The whitespace a ``SpacesAfter``/``SpacesBefore`` value stands for."""
    return re.sub(r"\\(u[0-9A-Fa-f]{4}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) == 5 else _UNESCAPES.get(m.group(1),
                                                                                                   m.group(1)),
                  value)


def _misc(gap: str) -> str:
    if gap == " ":
        return "_"
    if gap == "":
        return "SpaceAfter=No"
    return "SpacesAfter=" + escape_spaces(gap)


class Tokenizer:
    """Learns from CoNLL-U sentences (their ``# text``, ``SpaceAfter=No``, paragraphs and
    multiword tokens) to cut raw text into sentences, tokens and words.

    ``epochs``: passes of the averaged perceptron over the training text; ``seed``: its order."""

    def __init__(self, epochs: int = 10, seed: int = 1):
        if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
            raise MaltpyError(f"the tokenizer's epochs must be a whole number of at least 1, not {epochs!r}")
        self.epochs, self.seed = epochs, seed
        self.keys_ = self.weights_ = self.multiword_ = None
        self.statistics_ = {}
        self._featmap = None

    # ------------------------------------------------------------------ learning
    def fit(self, sentences, log=None) -> "Tokenizer":
        """Learn from CoNLL-U sentences (Sentence objects with their comments and range lines)."""
        from maltpy.tokenizing import segment
        from maltpy.tokenizing.gold import treebank_text
        from maltpy.tokenizing.multiword import Multiword
        t0 = time.perf_counter()
        gold = treebank_text(sentences)
        _, low, cls = char_arrays(gold.text)
        errors = np.zeros(self.epochs, dtype=np.int64)
        self.keys_, self.weights_ = segment.train(low, cls, gold.pstart, gold.labels, self.epochs,
                                                  self.seed, errors)
        self._featmap = None
        self.multiword_ = Multiword.learn((t.form, t.words) for t in gold.tokens)
        decisions = int((gold.labels >= 0).sum())
        self.statistics_ = {
            "characters": len(gold.text), "tokens": len(gold.tokens), "paragraphs": len(gold.pstart) - 1,
            "sentences": int((gold.labels == 2).sum()), "features": len(self.keys_),
            "training accuracy": round(100.0 * (1 - errors[-1] / max(decisions, 1)), 3),
            "seconds": round(time.perf_counter() - t0, 2)}
        if log:
            log(f"tokenizer: {len(gold.tokens)} tokens, {self.statistics_['sentences']} sentences, "
                f"{len(gold.text)} characters; {len(self.keys_)} features; last epoch "
                f"{self.statistics_['training accuracy']:.2f} % of decisions right; "
                f"{len(self.multiword_.table)} multiword forms, {len(self.multiword_.rules)} rules "
                f"({self.statistics_['seconds']:.1f} s)")
        return self

    def _fitted(self):
        if self.keys_ is None:
            raise MaltpyError("the tokenizer has not been trained (fit it first)")
        if self._featmap is None:
            from maltpy.features.featmap import FeatMap
            self._featmap = FeatMap.from_keys(self.keys_)
        return self._featmap

    # ------------------------------------------------------------------ tokenizing
    def labels(self, text: str, pstart: Sequence[int], arrays=None) -> np.ndarray:
        """The label after each character of ``text`` (paragraphs start at ``pstart``, which ends
        with ``len(text)``): -1 whitespace, 0 inside a token, 1 token end, 2 sentence end.
        ``arrays``: :func:`char_arrays` of the text, if made already."""
        from maltpy.tokenizing import segment
        featmap = self._fitted()
        _, low, cls = arrays if arrays is not None else char_arrays(text)
        out = np.empty(len(low), dtype=np.int8)
        segment.predict(low, cls, np.asarray(pstart, dtype=np.int64), featmap, self.weights_, out)
        return out

    def _cut(self, paragraphs: Sequence[str], lines: bool):
        """The tokens of ``paragraphs`` as arrays: (text, paragraph starts, token starts, ends,
        whether each ends a sentence, the paragraph of each, where the next token or the
        paragraph's end is, :func:`char_arrays` of the text)."""
        from maltpy.tokenizing import segment
        text = "".join(paragraphs)
        pstart = np.zeros(len(paragraphs) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in paragraphs], out=pstart[1:])
        if lines:   # each line is segmented alone: its end ends a sentence, nothing else does
            cuts = [m.end() for m in re.finditer(r"\n", text)]
            segments = np.array(sorted(set(pstart.tolist()) | {c for c in cuts if c < len(text)}), dtype=np.int64)
        else:
            segments = pstart
        arrays = char_arrays(text)
        # a segment's last token always ends a sentence (segment.allowed_low), so a paragraph's does
        starts, ends, final = segment.token_spans(self.labels(text, segments, arrays), segments)
        if lines:   # the last token of each line ends its sentence, no other
            seg_of = np.searchsorted(segments, starts, side="right")
            final = np.ones(len(starts), dtype=np.int8)
            final[:-1] = seg_of[:-1] != seg_of[1:]
        par_of = np.searchsorted(pstart, starts, side="right") - 1
        # what follows a token up to the next: the next token's start, or the next token's
        # paragraph's start (the whitespace of pieces without a token joins the gap), or the end
        following = np.full(len(starts), len(text), dtype=np.int64)
        if len(starts) > 1:
            same = par_of[1:] == par_of[:-1]
            following[:-1] = np.where(same, starts[1:], pstart[par_of[1:]])
        return text, pstart, starts, ends, final.astype(bool), par_of.astype(np.int64), following, arrays

    def sentences(self, paragraphs: Sequence[str], lines: bool = False,
                  begins: Optional[Sequence[bool]] = None) -> List[list]:
        """The sentences of ``paragraphs`` (texts that together are the input, each ending where a
        paragraph ends), as lists of tokens ``(form, words or None, whitespace after it)``, with
        the paragraph's leading whitespace as a first pseudo-token ``("", None, space)`` of its
        first sentence when there is some; None before the sentences of a paragraph (of those
        ``begins`` says begin one: a long paragraph's later pieces do not). ``lines``: one
        sentence a line."""
        text, pstart, starts, ends, final, par_of, following, (_, low, _) = self._cut(paragraphs, lines)
        splits = self.multiword_.split_spans(text, low, starts, ends)
        pstart, starts, ends = pstart.tolist(), starts.tolist(), ends.tolist()
        final, par_of, following = final.tolist(), par_of.tolist(), following.tolist()
        out, sentence = [], []
        for k, (s, e) in enumerate(zip(starts, ends)):
            if not sentence and (k == 0 or par_of[k - 1] != par_of[k]):
                if begins is None or begins[par_of[k]]:
                    out.append(None)       # a paragraph begins
                lead = text[pstart[par_of[k]]:s]
                if lead:
                    sentence.append(("", None, lead))
            sentence.append((text[s:e], splits.get(k), text[e:following[k]]))
            if final[k]:
                out.append(sentence)
                sentence = []
        return out

    def conllu(self, paragraphs: Sequence[str], first_id: int = 1, lines: bool = False,
               begins: Optional[Sequence[bool]] = None):
        """(CoNLL-U text, sentences, words) of ``paragraphs`` (see :meth:`sentences`), written
        by compiled code (:func:`maltpy.tokenizing.render.render`)."""
        data, n_sentences, n_words = self.conllu_bytes(paragraphs, first_id, lines, begins)
        return data.decode("utf-8", "surrogatepass"), n_sentences, n_words

    def conllu_bytes(self, paragraphs: Sequence[str], first_id: int = 1, lines: bool = False,
                     begins: Optional[Sequence[bool]] = None, with_lines: bool = False):
        """:meth:`conllu` as UTF-8 bytes. ``with_lines``: a fourth value, for messages, (the
        line of the text, 0 for the paragraphs' first, of every word written; where each
        sentence's words begin among them, with one more entry: their count)."""
        from maltpy.tokenizing.render import render
        text, pstart, starts, ends, final, par_of, following, (cps, low, _) = self._cut(paragraphs, lines)
        boff = np.zeros(len(cps) + 1, dtype=np.int64)
        np.cumsum(1 + (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000), out=boff[1:])
        splits = self.multiword_.split_spans(text, low, starts, ends)
        split_of = np.full(len(starts), -1, dtype=np.int64)
        order = sorted(splits)
        split_of[order] = np.arange(len(order), dtype=np.int64)
        words = [w.encode("utf-8", "surrogatepass") for k in order for w in splits[k]]
        split_words = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum([len(splits[k]) for k in order], out=split_words[1:])
        word_off = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum([len(w) for w in words], out=word_off[1:])
        begins = np.ones(len(paragraphs), dtype=np.int8) if begins is None else np.asarray(begins, dtype=np.int8)
        rendered = render(np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8), boff, cps, starts,
                          ends, following, final.astype(np.int8), par_of, begins, pstart, split_of, split_words,
                          np.frombuffer(b"".join(words), dtype=np.uint8), word_off, first_id)
        if not with_lines:
            return rendered
        words_of_token = np.ones(len(starts), dtype=np.int64)
        words_of_token[order] = np.diff(split_words)
        token_lines = np.searchsorted(np.flatnonzero(cps == 10), starts, side="right")
        ends_at = np.cumsum(words_of_token)
        return (*rendered, (np.repeat(token_lines, words_of_token).astype(np.int64),
                            np.concatenate(([0], ends_at[final.astype(bool)])).astype(np.int64)))

    # ------------------------------------------------------------------ storage
    def to_bytes(self) -> bytes:
        """The trained tokenizer as bytes (JSON header and arrays; no pickle)."""
        from maltpy.parsing.modelfile import model_bytes
        from maltpy.version import __version__
        self._fitted()
        header = {"maltpy_version": __version__, "component": "tokenizer", "epochs": self.epochs,
                  "seed": self.seed, "multiword": self.multiword_.to_data(), "statistics": self.statistics_}
        return model_bytes(header, {"keys": self.keys_, "weights": self.weights_})

    @classmethod
    def from_bytes(cls, data: bytes, path: str = "<tokenizer bytes>") -> "Tokenizer":
        """A tokenizer from :meth:`to_bytes`; everything is checked, nothing is run."""
        from maltpy.parsing.modelfile import HeaderReader, check_array, load_model
        from maltpy.tokenizing import segment
        from maltpy.tokenizing.multiword import Multiword
        header, arrays = load_model(path, data=bytes(data))
        h = HeaderReader(header, path)
        out = cls(h.integer("epochs", 1, 1 << 20), h.integer("seed", -(1 << 62), 1 << 62))

        def check(ok, what):
            if not ok:
                h.fail(f"the tokenizer's {what} are damaged")
        out.multiword_ = Multiword.from_data(h.mapping("multiword"), check)
        keys = check_array(arrays, "keys", path, "u")
        weights = check_array(arrays, "weights", path, "f", ndim=2, length=len(keys))
        check(weights.shape[1] == len(segment.LABELS), "weights")
        out.keys_ = np.ascontiguousarray(keys, dtype=np.uint64)
        out.weights_ = np.ascontiguousarray(weights, dtype=np.float32)
        try:
            out._fitted()
        except ValueError:
            h.fail("the tokenizer's feature keys repeat")
        out.statistics_ = h.figures("statistics")
        return out

    def describe(self) -> dict:
        """What the tokenizer learned (``maltpy info``)."""
        if self.keys_ is None:
            return {"trained": False}
        return {**self.statistics_, **self.multiword_.describe()}
