"""LAS, UAS and LA, with and without punctuation.

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

    def add(self, head_ok: bool, label_ok: bool):
        self.tokens += 1
        self.head += head_ok
        self.label += label_ok
        self.both += head_ok and label_ok

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
        for rg, rs in zip(g.rows, s.rows):
            head_ok = rg[6] == rs[6]
            label_ok = rg[7] == rs[7]
            all_tokens.add(head_ok, label_ok)
            if not is_punctuation(rg[1]):
                no_punct.add(head_ok, label_ok)
    return {"all": all_tokens, "no_punct": no_punct}


def evaluate_files(gold_path, system_path, fmt=None):
    gold = read_conll(gold_path, fmt, need_heads=True)
    system = read_conll(system_path, fmt, need_heads=True)
    return evaluate(gold, system, str(gold_path), str(system_path))


def format_scores(result) -> str:
    lines = ["             LAS     UAS     LA    tokens"]
    for key, name in (("all", "all tokens"), ("no_punct", "no punct")):
        s = result[key]
        lines.append(f"{name:<11} {s.las:6.2f}  {s.uas:6.2f}  {s.la:6.2f}  {s.tokens:7d}")
    return "\n".join(lines)
