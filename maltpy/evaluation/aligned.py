"""UD's ``eval.py`` (CoNLL 2018 shared task) on files whose tokens differ: a system's output from
raw text against the gold treebank.

Both files' token forms, whitespace (Unicode category Zs) removed, must spell the same
characters; every token and sentence is then a span of those characters, and Tokens and
Sentences score the spans that match exactly. Words are aligned as eval.py aligns them: words of
tokens that are not multiword tokens by their spans; inside a *multiword span* (the smallest
stretch of text that holds whole multiword tokens of either file and the words they overlap)
by the longest common subsequence of their lowercased forms. Every other figure counts aligned
words whose values agree, as F1 over the gold's and the system's words; a head agrees when the
system word's head is aligned with the gold word's head.
"""
from __future__ import annotations

import unicodedata
from typing import Dict, List

from maltpy.errors import MaltpyError
from maltpy.evaluation.official import CONTENT_DEPRELS, F1, FUNCTIONAL_DEPRELS, universal_features
from maltpy.formats.conll import surface_tokens

#: the figures, in eval.py's order
FIGURES = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS",
           "MLAS", "BLEX")


def _no_spaces(form: str) -> str:
    if form.isascii():
        return form.replace(" ", "")
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


class UDText:
    """A CoNLL-U file as the scorer sees it: its characters, token and sentence spans, and its
    words (span, whether in a multiword token, columns, head, functional children)."""

    def __init__(self, sentences, path: str = "<input>"):
        self.path = path
        chars: List[str] = []
        self.tokens, self.sentences = [], []
        self.start, self.end, self.multi, self.rows, self.parent = [], [], [], [], []
        self.children: List[List[int]] = []
        index = 0
        for sentence in sentences:
            first_word = len(self.rows)
            sentence_start = index
            for a, b, form, _ in surface_tokens(sentence):
                form = _no_spaces(form)
                if not form:
                    raise MaltpyError(f"{path}:{sentence.first_line}: a token's form is empty")
                chars.append(form)
                self.tokens.append((index, index + len(form)))
                for j in range(a, b):
                    self.start.append(index)
                    self.end.append(index + len(form))
                    self.multi.append(b - a > 1)
                    self.rows.append(sentence.rows[j])
                index += len(form)
            self.sentences.append((sentence_start, index))
            for j in range(first_word, len(self.rows)):
                head = self.rows[j][6]
                h = int(head) if head.isdigit() else 0
                if h > len(self.rows) - first_word:
                    raise MaltpyError(f"{path}:{sentence.first_line}: a HEAD points outside its sentence")
                self.parent.append(first_word + h - 1 if h else -1)
                self.children.append([])
            for j in range(first_word, len(self.rows)):
                if self.parent[j] >= 0 and self.deprel(j) in FUNCTIONAL_DEPRELS:
                    self.children[self.parent[j]].append(j)
        self.characters = "".join(chars)

    def deprel(self, j: int) -> str:
        return self.rows[j][7].split(":")[0]

    def __len__(self):
        return len(self.rows)


def _spans_score(gold, system) -> F1:
    correct = gi = si = 0
    while gi < len(gold) and si < len(system):
        if system[si][0] < gold[gi][0]:
            si += 1
        elif gold[gi][0] < system[si][0]:
            gi += 1
        else:
            correct += gold[gi][1] == system[si][1]
            gi += 1
            si += 1
    return F1(correct, len(gold), len(system))


def _align(g: UDText, s: UDText) -> Dict[int, int]:
    """System word -> gold word, eval.py's alignment."""
    aligned = {}
    gi = si = 0
    ng, ns = len(g), len(s)

    def beyond(u, i, end):
        if i >= len(u):
            return True
        return u.start[i] >= end if u.multi[i] else u.end[i] > end

    while gi < ng and si < ns:
        if g.multi[gi] or s.multi[si]:
            # the multiword span: from here to where no multiword token of either file sticks out
            if g.multi[gi]:
                end = g.end[gi]
                if not s.multi[si] and s.start[si] < g.start[gi]:
                    si += 1
            else:
                end = s.end[si]
                if not g.multi[gi] and g.start[gi] < s.start[si]:
                    gi += 1
            gs, ss = gi, si
            while not beyond(g, gi, end) or not beyond(s, si, end):
                if gi < ng and (si >= ns or g.start[gi] <= s.start[si]):
                    if g.multi[gi] and g.end[gi] > end:
                        end = g.end[gi]
                    gi += 1
                else:
                    if s.multi[si] and s.end[si] > end:
                        end = s.end[si]
                    si += 1
            if gi > gs and si > ss:
                gf = [g.rows[k][1].lower() for k in range(gs, gi)]
                sf = [s.rows[k][1].lower() for k in range(ss, si)]
                lcs = [[0] * (len(sf) + 1) for _ in range(len(gf) + 1)]
                for a in range(len(gf) - 1, -1, -1):
                    for b in range(len(sf) - 1, -1, -1):
                        lcs[a][b] = 1 + lcs[a + 1][b + 1] if gf[a] == sf[b] else max(lcs[a + 1][b], lcs[a][b + 1])
                a = b = 0
                while a < len(gf) and b < len(sf):
                    if gf[a] == sf[b]:
                        aligned[ss + b] = gs + a
                        a += 1
                        b += 1
                    elif lcs[a][b] == lcs[a + 1][b]:
                        a += 1
                    else:
                        b += 1
        elif (g.start[gi], g.end[gi]) == (s.start[si], s.end[si]):
            aligned[si] = gi
            gi += 1
            si += 1
        elif g.start[gi] <= s.start[si]:
            gi += 1
        else:
            si += 1
    return aligned


def _check_text(g: UDText, s: UDText) -> None:
    if g.characters == s.characters:
        return
    k = 0
    while k < min(len(g.characters), len(s.characters)) and g.characters[k] == s.characters[k]:
        k += 1
    raise MaltpyError(f"{s.path}: its tokens do not spell the text of {g.path} (whitespace aside): they differ "
                      f"from character {k} on ({g.characters[k:k + 20]!r} against {s.characters[k:k + 20]!r})")


def aligned_scores(gold, system, gold_path: str = "<gold>", system_path: str = "<system>") -> Dict[str, F1]:
    """eval.py's figures (:data:`FIGURES` -> :class:`F1`) of ``system`` against ``gold`` (lists
    of CoNLL-U sentences whose tokens spell the same text)."""
    g, s = UDText(gold, gold_path), UDText(system, system_path)
    _check_text(g, s)
    aligned = _align(g, s)
    out = {"Tokens": _spans_score(g.tokens, s.tokens), "Sentences": _spans_score(g.sentences, s.sentences),
           "Words": F1(len(aligned), len(g), len(s))}
    pairs = sorted((gw, sw) for sw, gw in aligned.items())

    def head(u, j, mapped):
        p = u.parent[j]
        if p < 0:
            return None
        return aligned.get(p, "NotAligned") if mapped else p

    def feats(u, j):
        return universal_features(u.rows[j][5])

    def lemma(u, j, gw):
        return u.rows[j][2] if g.rows[gw][2] != "_" else "_"

    def key(name, u, j, gw, mapped):
        r = u.rows[j]
        if name == "UPOS":
            return r[3]
        if name == "XPOS":
            return r[4]
        if name == "UFeats":
            return feats(u, j)
        if name == "AllTags":
            return r[3], r[4], feats(u, j)
        if name == "Lemmas":
            return lemma(u, j, gw)
        if name == "UAS":
            return head(u, j, mapped)
        labelled = (head(u, j, mapped), u.deprel(j))
        if name in ("LAS", "CLAS"):
            return labelled
        if name == "BLEX":
            return labelled + (lemma(u, j, gw),)
        return labelled + (r[3], feats(u, j), [  # MLAS: with the functional children
            (aligned.get(c, "NotAligned") if mapped else c, u.deprel(c), u.rows[c][3], feats(u, c))
            for c in u.children[j]])

    for name in FIGURES[3:]:
        content = name in ("CLAS", "MLAS", "BLEX")
        f = F1(0, len(g), len(s), len(pairs))
        if content:
            f.gold = sum(g.deprel(j) in CONTENT_DEPRELS for j in range(len(g)))
            f.system = sum(s.deprel(j) in CONTENT_DEPRELS for j in range(len(s)))
            f.aligned = sum(g.deprel(gw) in CONTENT_DEPRELS for gw, _ in pairs)
        for gw, sw in pairs:
            if content and g.deprel(gw) not in CONTENT_DEPRELS:
                continue
            f.correct += key(name, g, gw, gw, False) == key(name, s, sw, gw, True)
        out[name] = f
    return out


def format_aligned(scores: Dict[str, F1]) -> str:
    """eval.py's table (``-v``): precision, recall, F1 and accuracy over aligned words."""
    lines = ["Metric     | Precision |    Recall |  F1 Score | AligndAcc",
             "-----------+-----------+-----------+-----------+-----------"]
    for name in FIGURES:
        f = scores[name]
        p = 100.0 * f.correct / f.system if f.system else 0.0
        r = 100.0 * f.correct / f.gold if f.gold else 0.0
        acc = f"{100.0 * f.correct / f.aligned:10.2f}" if f.aligned else ""
        lines.append(f"{name:<11}|{p:10.2f} |{r:10.2f} |{f.f1:10.2f} |{acc}")
    return "\n".join(lines)
