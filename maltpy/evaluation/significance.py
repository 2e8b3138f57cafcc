"""Randomized permutation test (approximate randomization, Yeh 2000) for two parsers.

The unit is the sentence: under the null hypothesis the two systems' outputs
for a sentence are exchangeable, so each round swaps them with probability 1/2
and records the difference in score. p = (1 + #{rounds with a difference at
least the observed one}) / (1 + rounds), two-sided.
"""
from __future__ import annotations

from typing import Dict, Sequence

import numpy as np

from maltpy.errors import MaltpyError
from maltpy.evaluation.scores import is_punctuation


def correct_counts(gold, system, punctuation: bool = True):
    """Per-sentence counts: (tokens, heads correct, heads and labels correct), as int arrays."""
    if len(gold) != len(system):
        raise MaltpyError(f"gold has {len(gold)} sentences but the system output has {len(system)}")
    tok = np.zeros(len(gold), dtype=np.int64)
    uas = np.zeros(len(gold), dtype=np.int64)
    las = np.zeros(len(gold), dtype=np.int64)
    for k, (g, s) in enumerate(zip(gold, system)):
        if len(g) != len(s):
            raise MaltpyError(f"sentence {k + 1} (line {g.first_line}) differs in length between gold and system")
        for rg, rs in zip(g.rows, s.rows):
            if not punctuation and is_punctuation(rg[1]):
                continue
            tok[k] += 1
            if rg[6] == rs[6]:
                uas[k] += 1
                las[k] += rg[7] == rs[7]
    return tok, uas, las


def permutation_test(a: Sequence[int], b: Sequence[int], rounds: int = 10000, seed: int = 1) -> float:
    """Two-sided p-value for the difference of sum(a) and sum(b) (per-sentence correct counts)."""
    d = np.asarray(a, dtype=np.int64) - np.asarray(b, dtype=np.int64)
    observed = abs(int(d.sum()))
    if observed == 0:
        return 1.0
    rng = np.random.default_rng(seed)
    hits, done, chunk = 0, 0, 1000
    while done < rounds:
        m = min(chunk, rounds - done)
        signs = rng.integers(0, 2, size=(m, len(d)), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed))
        done += m
    return (hits + 1) / (rounds + 1)


def compare(gold, system_a, system_b, rounds: int = 10000, seed: int = 1,
            punctuation: bool = True) -> Dict[str, dict]:
    """LAS and UAS of two systems on the same gold data, with permutation-test p-values."""
    tok, ua, la = correct_counts(gold, system_a, punctuation)
    _, ub, lb = correct_counts(gold, system_b, punctuation)
    n = max(int(tok.sum()), 1)
    out = {}
    for name, xa, xb in (("LAS", la, lb), ("UAS", ua, ub)):
        out[name] = {"a": 100.0 * xa.sum() / n, "b": 100.0 * xb.sum() / n,
                     "p": permutation_test(xa, xb, rounds, seed)}
    return out


def format_comparison(result, name_a="A", name_b="B", alpha=0.05) -> str:
    """The comparison as a table: each system's score and the difference, A minus B (the system
    compared first minus the one given with --compare), so that a lower A shows a minus sign."""
    lines = [f"       A {name_a[:12]:>12} B {name_b[:12]:>12}   A - B   p-value (permutation test)"]
    for metric, r in result.items():
        mark = "*" if r["p"] < alpha else " "
        lines.append(f"{metric:<6} {r['a']:14.2f} {r['b']:14.2f} {r['a'] - r['b']:+7.2f}   {r['p']:.4f}{mark}")
    lines.append(f"* significant at {alpha}")
    return "\n".join(lines)
