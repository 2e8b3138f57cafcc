"""Multiword tokens: a surface token split into its syntactic words (``don't`` -> ``do n't``,
``del`` -> ``de el``), as UD's tokens/words distinction wants.

Learned from a treebank's tokens, as UDPipe 1 does: a dictionary of the splits seen (a form is
split where the treebank splits it more often than not), and suffix rules for forms not seen
(``n't`` -> the stem and ``n't``; ``-lo`` -> ...): a rule is kept where it is seen at least
twice and splits more than half of the training tokens with that suffix. Case is carried over:
words that spell the token are cut from it; otherwise an upper-case token gives upper-case
words and a capitalised one a capitalised first word.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
from typing import Dict, Iterable, Optional, Tuple

#: the longest suffix a rule reads
MAX_SUFFIX = 8


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def _cased(form: str, words: Tuple[str, ...]) -> Tuple[str, ...]:
    """``words`` (lowercase) in the case of ``form``."""
    if "".join(words) == form.lower() and len(form.lower()) == len(form):
        out, pos = [], 0
        for w in words:
            out.append(form[pos:pos + len(w)])
            pos += len(w)
        return tuple(out)
    if len(form) > 1 and form.isupper():
        return tuple(w.upper() for w in words)
    if form[:1].isupper():
        return (words[0][:1].upper() + words[0][1:],) + words[1:]
    return words


class Multiword:
    """How tokens split into words: ``table`` (lowercase form -> lowercase words) and ``rules``
    (suffix -> (what replaces the suffix in the first word, the other words))."""

    def __init__(self, table: Optional[Dict[str, Tuple[str, ...]]] = None,
                 rules: Optional[Dict[str, Tuple[str, ...]]] = None, plain: Iterable[str] = ()):
        self.table = dict(table or {})
        self.rules = dict(rules or {})
        #: forms seen unsplit more often than split: never split by a rule
        self.plain = frozenset(plain)
        self._keys, self._suffixes = _hashes(self.table), _hashes(self.rules)

    @classmethod
    def learn(cls, tokens) -> "Multiword":
        """From (form, words) pairs of a treebank's tokens (``words`` is ``(form,)`` for a token
        that is one word)."""
        seen, splits = Counter(), defaultdict(Counter)
        rule_counts = defaultdict(Counter)
        for form, words in tokens:
            low = form.lower()
            seen[low] += 1
            if len(words) > 1:
                lowered = tuple(w.lower() for w in words)
                splits[low][lowered] += 1
                p = _common_prefix(low, lowered[0])
                if 0 < p < len(low) and len(low) - p <= MAX_SUFFIX:
                    rule_counts[low[p:]][(lowered[0][p:],) + lowered[1:]] += 1
        table = {}
        for low, counts in splits.items():
            words, n = counts.most_common(1)[0]
            if 2 * n > seen[low]:
                table[low] = words
        # how many training tokens have each rule's suffix (with a stem before it)
        by_suffix = Counter()
        for low, n in seen.items():
            for length in range(1, min(MAX_SUFFIX, len(low) - 1) + 1):
                if low[-length:] in rule_counts:
                    by_suffix[low[-length:]] += n
        rules = {}
        for suffix, counts in rule_counts.items():
            words, n = counts.most_common(1)[0]
            if n >= 2 and 2 * n > by_suffix[suffix]:
                rules[suffix] = words
        # a form the treebank leaves whole more often than not stays whole, whatever its suffix
        plain = [low for low in seen if low not in table and _longest_rule(rules, low) is not None]
        return cls(table, rules, plain)

    def split(self, form: str) -> Optional[Tuple[str, ...]]:
        """The words of a token, or None when it is one word."""
        low = form.lower()
        words = self.table.get(low)
        if words is None:
            found = _longest_rule(self.rules, low) if low not in self.plain else None
            if found is None:
                return None
            suffix, rule = found
            words = (low[:-len(suffix)] + rule[0],) + rule[1:]
        return _cased(form, words)

    def split_many(self, forms) -> Dict[int, Tuple[str, ...]]:
        """``{k: words}`` for the forms that split (by :meth:`split`)."""
        from maltpy.tokenizing.chars import char_arrays
        lengths = np.array([len(f) for f in forms], dtype=np.int64)
        ends = np.cumsum(lengths)
        low = char_arrays("".join(forms))[1]
        return self.split_spans("".join(forms), low, ends - lengths, ends)

    def split_spans(self, text: str, low, starts, ends) -> Dict[int, Tuple[str, ...]]:
        """``{k: words}`` for the tokens ``text[starts[k]:ends[k]]`` that split; ``low``: the
        text's lowercased code points. The tokens the dictionary or a rule may split are found
        by hashes in compiled code; Python sees only those."""
        from maltpy.tokenizing import segment
        keys, suffixes = self._keys, self._suffixes
        whole, tails = segment.span_hashes(low, np.asarray(starts, dtype=np.int64),
                                           np.asarray(ends, dtype=np.int64), MAX_SUFFIX)
        maybe = np.isin(whole, keys)
        if len(suffixes):
            maybe |= np.isin(tails, suffixes).any(axis=1)
        out = {}
        for k in np.flatnonzero(maybe).tolist():
            words = self.split(text[starts[k]:ends[k]])
            if words:
                out[k] = words
        return out

    def to_data(self) -> dict:
        return {"table": {k: list(v) for k, v in self.table.items()},
                "rules": {k: list(v) for k, v in self.rules.items()}, "plain": sorted(self.plain)}

    @classmethod
    def from_data(cls, data: dict, check) -> "Multiword":
        """From :meth:`to_data`'s plain data; ``check(ok, what)`` reports damage."""
        table, rules, plain = data.get("table"), data.get("rules"), data.get("plain")
        check(isinstance(table, dict) and isinstance(rules, dict) and isinstance(plain, list), "multiword tables")
        for mapping in (table, rules):
            check(all(isinstance(k, str) and isinstance(v, list) and len(v) >= (2 if mapping is table else 1)
                      and all(isinstance(w, str) and w for w in v[1:]) and isinstance(v[0], str)
                      for k, v in mapping.items()), "multiword tables")
        check(all(isinstance(p, str) for p in plain), "multiword tables")
        return cls({k: tuple(v) for k, v in table.items()}, {k: tuple(v) for k, v in rules.items()}, plain)

    def describe(self) -> dict:
        return {"multiword forms": len(self.table), "multiword rules": len(self.rules)}


def _longest_rule(rules, low):
    """(suffix, rule) of the longest rule suffix that ``low`` ends with after at least one
    character, or None."""
    for length in range(min(MAX_SUFFIX, len(low) - 1), 0, -1):
        rule = rules.get(low[-length:])
        if rule is not None:
            return low[-length:], rule
    return None


def _hashes(strings) -> np.ndarray:
    """The hashes of strings as :func:`maltpy.tokenizing.segment.span_hashes` makes them
    (character by character lowercased): what the dictionary's forms and the rules' suffixes
    are found by."""
    from maltpy.tokenizing import segment
    from maltpy.tokenizing.chars import char_arrays
    strings = list(strings)
    if not strings:
        return np.zeros(0, np.uint64)
    lengths = np.array([len(x) for x in strings], dtype=np.int64)
    ends = np.cumsum(lengths)
    return segment.span_hashes(char_arrays("".join(strings))[1], ends - lengths, ends, 0)[0]
