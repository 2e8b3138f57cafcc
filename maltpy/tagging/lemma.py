"""Lemmas as edits of the form (Chrupała 2008; UDPipe's lemmatizer): a rule says whether the form
is lowercased, how many characters leave its start and its end, and what is added at the end.
``running`` -> ``run``: ``k0|4|`` ... ``The`` -> ``the``: ``l0|0|``. A classifier picks the rule;
a dictionary of (form, UPOS) -> lemma seen unambiguously in training comes first."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, Tuple

#: how many characters a rule may take off the start of a form (German ge-, Dutch ge-, ...)
MAX_PREFIX_CUT = 3


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


def lemma_rule(form: str, lemma: str) -> str:
    """The rule that makes ``lemma`` from ``form`` (``apply_rule(form, lemma_rule(form, lemma)) == lemma``)."""
    best = None
    for case, base in (("k", form), ("l", form.lower())):
        if case == "l" and base == form:
            continue
        for cut in range(min(MAX_PREFIX_CUT, len(base)) + 1):
            kept = _common_prefix(base[cut:], lemma)
            if kept and (best is None or kept > best[0]):
                best = (kept, case, cut, len(base) - cut - kept, lemma[kept:])
    if best is None:
        return f"k0|{len(form)}|{lemma}"      # nothing in common: the lemma as it is
    _, case, cut, tail, add = best
    return f"{case}{cut}|{tail}|{add}"


def apply_rule(form: str, rule: str) -> str:
    """The lemma a rule makes of a form (the form itself when the rule does not fit it)."""
    try:
        head, tail, add = rule.split("|", 2)
        cut, tail = int(head[1:]), int(tail)
    except ValueError:
        return form
    base = form.lower() if head[0] == "l" else form
    if cut + tail > len(base):
        return form
    lemma = base[cut:len(base) - tail] + add
    return lemma or form


def unambiguous_lemmas(pairs: Iterable[Tuple[str, str, str]]) -> Dict[Tuple[str, str], str]:
    """(form, upos) -> lemma for the (form, upos) seen with one lemma only."""
    seen = defaultdict(set)
    for form, upos, lemma in pairs:
        seen[(form, upos)].add(lemma)
    return {key: next(iter(lemmas)) for key, lemmas in seen.items() if len(lemmas) == 1}
