"""Lemmas as edits of the form (Chrupała 2008; UDPipe's lemmatizer): a rule says how the form's
case changes (``k`` kept, ``l`` lowercased, ``t`` lowercased after its first character), how many
characters leave its start and its end, and what is added at the end. ``running`` -> ``run``:
``l0|4|`` ... ``The`` -> ``the``: ``l0|0|`` ... ``PHILLY`` -> ``Philly``: ``t0|0|``. A classifier
picks the rule; a dictionary of (form, UPOS) -> lemma seen unambiguously in training comes first.

A lowercase form's edit lowercases (``l``), which for it is the same as keeping: the rule learned
from ``said`` -> ``say`` then makes ``say`` of ``SAID`` too, not ``SAy``. The form taken as it is
stays one class, ``k0|0|``, whatever its case."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, Tuple

#: how many characters a rule may take off the start of a form (German ge-, Dutch ge-, ...)
MAX_PREFIX_CUT = 3
_LOWER: Dict[str, str] = {}


def lower(text: str) -> str:
    """``text`` lowercased character by character, as the compiled tagger lowercases (a character
    whose lowercase is two characters, such as İ, stays; no final-sigma rule): a form keeps its
    length, so a rule's character counts mean the same on both paths."""
    out = []
    for ch in text:
        low = _LOWER.get(ch)
        if low is None:
            low = ch.lower()
            low = _LOWER[ch] = low if len(low) == 1 else ch
        out.append(low)
    return "".join(out)


def initial(text: str) -> str:
    """``text`` lowercased after its first character (``PHILLY`` -> ``Philly``), as :func:`lower`
    lowercases: the same length."""
    return text[:1] + lower(text[1:])


#: a rule's case letter -> how it changes the form
_CASES = {"k": lambda form: form, "l": lower, "t": initial}
#: ... and as the compiled lemmatizer codes it
CASE_CODES = {"k": 0, "l": 1, "t": 2}


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


def lemma_rule(form: str, lemma: str) -> str:
    """The rule that makes ``lemma`` from ``form`` (``apply_rule(form, lemma_rule(form, lemma)) == lemma``)."""
    if lemma == form:
        return "k0|0|"      # the form as it is: one class, whatever its case (Chinese, Japanese: most words)
    best = None
    low = lower(form)
    # ties go to the first: a lowercase form lowercases; others keep before they change case
    cases = (("l", low),) if low == form else (("k", form), ("l", low), ("t", initial(form)))
    for case, base in cases:
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
    parsed = parse_rule(rule)
    if parsed is None:
        return form
    case, cut, tail, add = parsed
    base = _CASES[case](form)
    if cut + tail > len(base):
        return form
    lemma = base[cut:len(base) - tail] + add
    return lemma or form


def parse_rule(rule: str):
    """(case letter: ``k``, ``l`` or ``t``, cut, tail, added text) of a rule, or None for a string
    that is not one."""
    try:
        head, tail, add = rule.split("|", 2)
        cut, tail = int(head[1:]), int(tail)
    except ValueError:
        return None
    if not head or head[0] not in _CASES or cut < 0 or tail < 0:
        return None
    return head[0], cut, tail, add


def unambiguous_lemmas(pairs: Iterable[Tuple[str, str, str]]) -> Dict[Tuple[str, str], str]:
    """(form, upos) -> lemma for the (form, upos) seen with one lemma only."""
    seen = defaultdict(set)
    for form, upos, lemma in pairs:
        seen[(form, upos)].add(lemma)
    return {key: next(iter(lemmas)) for key, lemmas in seen.items() if len(lemmas) == 1}
