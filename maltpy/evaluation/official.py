"""The CoNLL 2018 shared task's figures for CoNLL-U (UD's ``eval.py``): LAS, UAS, CLAS, MLAS, BLEX.

They differ from maltpy's own LAS (:mod:`maltpy.evaluation.scores`) in what a label is: only the
universal relation counts (``nsubj:pass`` is ``nsubj``), and CLAS, MLAS and BLEX score content
words only, as F1 over the gold and the system's content words (a word is content by its own
file's relation). MLAS also wants the word's UPOS and universal features and those of its
functional children (aux, cop, mark, det, clf, case, cc); BLEX its lemma (where gold has one).

The scorer aligns the two files' words by their characters; a parser's output has the gold
file's words, so here word k of sentence i is aligned with word k of sentence i (the files must
have the same words, as :func:`maltpy.evaluation.scores.evaluate` checks). Empty nodes and
multiword-token lines are not words, as in ``eval.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# the sets of UD's eval.py (CoNLL 2018 shared task, version 1.2)
CONTENT_DEPRELS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated", "advcl",
    "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed", "flat", "compound",
    "list", "parataxis", "orphan", "goeswith", "reparandum", "root", "dep"})
FUNCTIONAL_DEPRELS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})
UNIVERSAL_FEATURES = frozenset({
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number", "Case",
    "Definite", "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person",
    "Polite"})
LEMMA, UPOS, FEATS, HEAD, DEPREL = 2, 3, 5, 6, 7


@dataclass
class F1:
    """A figure as eval.py gives it: correct words over the gold's and the system's counts."""
    correct: int = 0
    gold: int = 0
    system: int = 0
    #: aligned words it was counted over (eval.py's AligndAcc), where words are aligned
    aligned: Optional[int] = None

    def __iadd__(self, other: "F1") -> "F1":
        """The counts of ``other`` (more sentences of the same files, word k against word k)
        added to these."""
        self.correct += other.correct
        self.gold += other.gold
        self.system += other.system
        return self

    @property
    def f1(self) -> float:
        total = self.gold + self.system
        return 100.0 * 2 * self.correct / total if total else 0.0


class _Words:
    """One sentence's words as eval.py sees them: universal relation, universal features, and
    each word's functional children in word order."""

    def __init__(self, rows):
        self.heads = [int(r[HEAD]) for r in rows]
        self.deprels = [r[DEPREL].split(":")[0] for r in rows]
        self.upos = [r[UPOS] for r in rows]
        self.feats = ["|".join(sorted(f for f in r[FEATS].split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))
                      for r in rows]
        self.lemmas = [r[LEMMA] for r in rows]
        self.children = [[] for _ in rows]
        for k, (h, rel) in enumerate(zip(self.heads, self.deprels)):
            if h and rel in FUNCTIONAL_DEPRELS:
                self.children[h - 1].append(k)

    def mlas_key(self, k):
        return (self.heads[k], self.deprels[k], self.upos[k], self.feats[k],
                # a child is itself (its position), as eval.py's ga(c): not its head, which is k
                [(c, self.deprels[c], self.upos[c], self.feats[c]) for c in self.children[k]])


def official_scores(gold, system) -> dict:
    """``{"UAS", "LAS", "CLAS", "MLAS", "BLEX"}`` -> :class:`F1` over sentence lists with the same
    words (checked by the caller)."""
    out = {name: F1() for name in ("UAS", "LAS", "CLAS", "MLAS", "BLEX")}
    for g_sent, s_sent in zip(gold, system):
        g, s = _Words(g_sent.rows), _Words(s_sent.rows)
        n = len(g.heads)
        for name in ("UAS", "LAS"):
            out[name].gold += n
            out[name].system += n
        for k in range(n):
            head_ok = g.heads[k] == s.heads[k]
            labelled = head_ok and g.deprels[k] == s.deprels[k]
            out["UAS"].correct += head_ok
            out["LAS"].correct += labelled
            g_content, s_content = g.deprels[k] in CONTENT_DEPRELS, s.deprels[k] in CONTENT_DEPRELS
            for name in ("CLAS", "MLAS", "BLEX"):
                out[name].gold += g_content
                out[name].system += s_content
            if not g_content:    # eval.py counts correct words among the gold's content words
                continue
            out["CLAS"].correct += labelled
            out["MLAS"].correct += g.mlas_key(k) == s.mlas_key(k)
            gold_lemma = g.lemmas[k]
            out["BLEX"].correct += labelled and (gold_lemma == "_" or gold_lemma == s.lemmas[k])
    return out


def universal_features(feats: str) -> str:
    """A FEATS value as eval.py compares it: the universal features only, sorted."""
    return "|".join(sorted(f for f in feats.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))


def official_tag_scores(gold, system) -> dict:
    """eval.py's ``{"UPOS", "XPOS", "UFeats", "AllTags", "Lemmas"}`` -> :class:`F1` over sentence
    lists with the same words: UFeats compares universal features only; AllTags wants UPOS, XPOS
    and UFeats right; a gold lemma ``_`` takes any lemma."""
    out = {name: F1() for name in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas")}
    for g_sent, s_sent in zip(gold, system):
        for g, s in zip(g_sent.rows, s_sent.rows):
            upos, xpos = g[UPOS] == s[UPOS], g[4] == s[4]
            feats = universal_features(g[FEATS]) == universal_features(s[FEATS])
            for name, right in (("UPOS", upos), ("XPOS", xpos), ("UFeats", feats), ("AllTags", upos and xpos and feats),
                                ("Lemmas", g[LEMMA] == "_" or g[LEMMA] == s[LEMMA])):
                f = out[name]
                f.gold += 1
                f.system += 1
                f.correct += right
    return out


def format_official(scores: dict, tags: dict = None) -> str:
    """The lines ``maltpy eval`` adds for CoNLL-U input (``tags``: :func:`official_tag_scores`)."""
    names = ("LAS", "UAS", "CLAS", "MLAS", "BLEX")
    text = ("CoNLL 2018 shared task (UD's eval.py: universal relations only, F1; CLAS, MLAS, BLEX "
            "content words)\n" + "  ".join(f"{n} {scores[n].f1:.2f}" for n in names))
    if tags:
        text += "\n" + "  ".join(f"{n} {f.f1:.2f}" for n, f in tags.items())
    return text
