"""LAS, UAS and LA, with and without punctuation; and the undirected scores of Gómez-Rodríguez,
Fernández-González & Darriba (2015): ULAS and UUAS count a gold arc found in either direction
(with its label / with any label), so that LDE = ULAS - LAS and UDE = UUAS - UAS are the
arcs lost to a wrong direction alone.

A token is punctuation when its FORM consists of Unicode punctuation
characters only (the rule of the CoNLL-X ``eval.pl``, which excludes such
tokens by default). Multiword-token lines and empty nodes are not tokens.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from maltpy.errors import MaltpyError
from maltpy.formats.conll import read_conll


def is_punctuation(form: str) -> bool:
    return bool(form) and all(unicodedata.category(ch).startswith("P") for ch in form)


@dataclass
class Scores:
    tokens: int = 0
    head: int = 0
    label: int = 0
    both: int = 0
    edge: int = 0          # the gold arc in either direction
    edge_label: int = 0    # ... with the gold label

    def add(self, head_ok: bool, label_ok: bool, edge_ok: bool = None, edge_label_ok: bool = None):
        self.tokens += 1
        self.head += head_ok
        self.label += label_ok
        self.both += head_ok and label_ok
        self.edge += head_ok if edge_ok is None else edge_ok
        self.edge_label += (head_ok and label_ok) if edge_label_ok is None else edge_label_ok

    def __iadd__(self, other: "Scores") -> "Scores":
        """The counts of ``other`` (more sentences of the same files) added to these."""
        for name in ("tokens", "head", "label", "both", "edge", "edge_label"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    @property
    def ulas(self):
        return 100.0 * self.edge_label / self.tokens if self.tokens else 0.0

    @property
    def uuas(self):
        return 100.0 * self.edge / self.tokens if self.tokens else 0.0

    @property
    def lde(self):
        """Labelled direction errors: ULAS - LAS."""
        return self.ulas - self.las

    @property
    def ude(self):
        """Unlabelled direction errors: UUAS - UAS."""
        return self.uuas - self.uas

    @property
    def las(self):
        return 100.0 * self.both / self.tokens if self.tokens else 0.0

    @property
    def uas(self):
        return 100.0 * self.head / self.tokens if self.tokens else 0.0

    @property
    def la(self):
        return 100.0 * self.label / self.tokens if self.tokens else 0.0


def evaluate(gold, system, gold_name="gold", system_name="system"):
    """Scores over aligned sentence lists: ``{"all": Scores, "no_punct": Scores}``."""
    if len(gold) != len(system):
        raise MaltpyError(f"{gold_name} has {len(gold)} sentences but {system_name} has {len(system)}")
    all_tokens, no_punct = Scores(), Scores()
    for k, (g, s) in enumerate(zip(gold, system)):
        if len(g) != len(s):
            raise MaltpyError(f"sentence {k + 1} (line {g.first_line} of {gold_name}) has {len(g)} tokens "
                              f"in {gold_name} but {len(s)} in {system_name}")
        for d, (rg, rs) in enumerate(zip(g.rows, s.rows), 1):
            head_ok = rg[6] == rs[6]
            label_ok = rg[7] == rs[7]
            # the gold arc h -> d reversed: the system attaches h to d, with the gold label
            h = int(rg[6]) if rg[6].isdigit() else -1
            back = 0 < h <= len(s.rows) and s.rows[h - 1][6] == str(d)
            edge_ok = head_ok or back
            edge_label_ok = (head_ok and label_ok) or (back and s.rows[h - 1][7] == rg[7])
            all_tokens.add(head_ok, label_ok, edge_ok, edge_label_ok)
            if not is_punctuation(rg[1]):
                no_punct.add(head_ok, label_ok, edge_ok, edge_label_ok)
    return {"all": all_tokens, "no_punct": no_punct}


def evaluate_files(gold_path, system_path, fmt=None):
    gold = read_conll(gold_path, fmt, need_heads=True)
    system = read_conll(system_path, fmt, need_heads=True)
    return evaluate(gold, system, str(gold_path), str(system_path))


def format_scores(result, undirected: bool = False) -> str:
    """The table ``maltpy eval`` prints; ``undirected`` adds ULAS, UUAS, LDE and UDE."""
    head = "             LAS     UAS     LA    tokens"
    if undirected:
        head += "    ULAS    UUAS    LDE     UDE"
    lines = [head]
    for key, name in (("all", "all tokens"), ("no_punct", "no punct")):
        s = result[key]
        line = f"{name:<11} {s.las:6.2f}  {s.uas:6.2f}  {s.la:6.2f}  {s.tokens:7d}"
        if undirected:
            line += f"  {s.ulas:6.2f}  {s.uuas:6.2f}  {s.lde:5.2f}  {s.ude:5.2f}"
        lines.append(line)
    return "\n".join(lines)
