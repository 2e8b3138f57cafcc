"""Constituent parsing as reduction to dependency parsing (Fernández-González & Martins 2015).

A phrase-structure tree becomes a *head-ordered* dependency tree: each word's arc label says
at which constituent it attaches (``Z``) and in which attachment event of its head's spine
(``#k``, counting from 1 above the pre-terminal). The dependency parser learns these trees, and
:func:`decode` turns its output back into a constituent tree. Unary constituents are not in the
encoding; they are kept apart as *chains* per node (``unaries``), which gold data gives and the
unary classifier (:mod:`maltpy.transform.unary`) predicts.

Encodings (``-ce``): ``direct`` writes ``Z#k``; ``delta`` (the default) writes, on each side of
a head and outwards from it, the first modifier's index and then the difference from the
previous modifier on that side, so that ``#0`` means "the same constituent as the closer one".

Decisions where the paper is silent (``spec/oracle_reduction.md`` part D): the event counter
grows only at constituents that attach a modifier; the root word's label is ``ROOT``; decoding
repairs nesting first and then label consistency (the closest modifier's label, the left one
on a tie); a parse with several root words attaches the others to the root word with the
largest subtree, in its top constituent; a non-projective parse is made projective by lifting
(shortest arcs first) before decoding into a continuous tree.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from maltpy.errors import MaltpyError
from maltpy.formats.ptb import Tree
from maltpy.transform.headrules import HeadRules
from maltpy.transform.single_root import subtree_sizes

ENCODINGS = ("direct", "delta")
ROOT_LABEL = "ROOT"
#: label of a constituent none of whose modifiers carries a phrase label (a parser's root or default label)
FALLBACK_LABEL = "S"
#: separators of the unary-chain notation: levels ``0=NP;2=S+VP`` (chains top-down)
CHAIN_SEP, LEVEL_SEP = "+", ";"


class Encoded:
    """A head-ordered dependency tree: 1-based ``heads`` (0 = root word), ``labels`` (``Z#k``,
    the root word ``ROOT``), ``words``, ``tags``, and ``unaries``: per word, {level: chain
    top-down} for the unary constituents that the encoding leaves out."""
    __slots__ = ("words", "tags", "heads", "labels", "unaries")

    def __init__(self, words, tags, heads, labels, unaries):
        self.words, self.tags, self.heads, self.labels, self.unaries = words, tags, heads, labels, unaries


def _postorder(tree: Tree) -> List[Tree]:
    out, stack = [], [(tree, False)]
    while stack:
        t, done = stack.pop()
        if done or t.word is not None:
            out.append(t)
        else:
            stack.append((t, True))
            stack.extend((c, False) for c in reversed(t.children))
    return out


def encode(tree: Tree, rules: HeadRules, encoding: str = "delta") -> Encoded:
    """Constituent tree -> head-ordered dependency tree (Algorithm 1 of the paper)."""
    if encoding not in ENCODINGS:
        raise MaltpyError(f"constituent encoding {encoding!r}: use one of {', '.join(ENCODINGS)}")
    words, tags = [], []
    head_word: Dict[int, int] = {}
    heads = [0]
    attach: List[Tuple[str, int]] = [("", 0)]
    level = [0]
    unaries: List[Dict[int, List[str]]] = [{}]
    for t in _postorder(tree):
        if t.word is not None:
            words.append(t.word)
            tags.append(t.label)
            heads.append(0)
            attach.append(("", 0))
            level.append(0)
            unaries.append({})
            head_word[id(t)] = len(words)
            continue
        kids = t.children
        if len(kids) == 1:
            h = head_word[id(kids[0])]
            unaries[h].setdefault(level[h], []).append(t.label)
            head_word[id(t)] = h
            continue
        hc = rules.head_child(t.label, [c.label for c in kids])
        h = head_word[id(kids[hc])]
        level[h] += 1
        for k, c in enumerate(kids):
            if k != hc:
                m = head_word[id(c)]
                heads[m] = h
                attach[m] = (t.label, level[h])
        head_word[id(t)] = h
    n = len(words)
    index = [k for _, k in attach]
    if encoding == "delta":
        index = delta_encode(heads, index)
    labels = [ROOT_LABEL if heads[m] == 0 else f"{attach[m][0]}#{index[m]}" for m in range(1, n + 1)]
    chains = [{lv: tuple(reversed(c)) for lv, c in u.items()} for u in unaries[1:]]
    return Encoded(words, tags, heads[1:], labels, chains)


def _sides(heads: Sequence[int], n: int):
    """For every head, its left and right modifiers, each ordered from the head outwards
    (``heads`` is 1-based with a dummy at 0)."""
    left: List[List[int]] = [[] for _ in range(n + 1)]
    right: List[List[int]] = [[] for _ in range(n + 1)]
    for m in range(1, n + 1):
        h = heads[m]
        if h > 0:
            (left if m < h else right)[h].append(m)
    for lst in left:
        lst.reverse()
    return left, right


def delta_encode(heads: Sequence[int], index: Sequence[int]) -> List[int]:
    """Absolute attachment indices -> delta indices (``heads``/``index`` 1-based, dummy at 0).
    A non-nested order (a farther modifier attached earlier) has no delta encoding."""
    n = len(heads) - 1
    out = list(index)
    for side in _sides(heads, n):
        for mods in side:
            prev = 0
            for m in mods:
                d = index[m] - prev
                if d < 0:
                    raise MaltpyError(f"word {m} attaches before a modifier closer to its head: a non-nested "
                                      "order (a discontinuous tree) has no delta encoding; use -ce direct")
                out[m] = d
                prev = index[m]
    return out


def delta_decode(heads: Sequence[int], delta: Sequence[int]) -> List[int]:
    """Delta indices -> absolute ones: running sums per side, outwards from the head."""
    n = len(heads) - 1
    out = list(delta)
    for side in _sides(heads, n):
        for mods in side:
            total = 0
            for m in mods:
                total += max(delta[m], 0)
                out[m] = total
    return out


def split_label(label: Optional[str]) -> Tuple[str, int]:
    """``Z#k`` -> (Z, k). A label without an index (the root label on a word that is not the
    root, a parser's default label) attaches in the first event with no phrase label of its
    own ("" : its class's other members decide)."""
    if label:
        z, sep, k = label.rpartition("#")
        if sep and z and k.isdigit():
            return z, int(k)
    return "", 1


def _top_down(heads: Sequence[int], n: int) -> List[int]:
    """Words with every head before its dependents (``heads`` must be a forest under 0)."""
    kids: List[List[int]] = [[] for _ in range(n + 1)]
    for m in range(1, n + 1):
        kids[heads[m]].append(m)
    order, stack = [], list(reversed(kids[0]))
    while stack:
        m = stack.pop()
        order.append(m)
        stack.extend(reversed(kids[m]))
    return order


def _check_forest(heads: Sequence[int], n: int) -> None:
    if any(not 0 <= h <= n or h == m for m, h in enumerate(heads) if m):
        raise MaltpyError("the dependency tree has a head outside the sentence")
    if len(_top_down(heads, n)) != n:
        raise MaltpyError("the dependency tree has a cycle")


def _projectivize(heads: List[int], n: int) -> None:
    """Lift non-projective arcs (the shortest first) to the head's head until none is left."""
    from maltpy.transform.pseudoproj import nonprojective_arcs
    while True:
        bad = nonprojective_arcs(heads)
        if not bad:
            return
        m = min(bad, key=lambda d: (abs(d - heads[d]), d))
        heads[m] = heads[heads[m]]


class Decoded:
    """A decoded constituent tree: ``tree``, and ``nodes``: every constituent and pre-terminal
    as ``(node, word, level)`` (the word whose spine it is on, 1-based, and its attachment
    level, 0 for the pre-terminal), bottom-up."""
    __slots__ = ("tree", "nodes")

    def __init__(self, tree, nodes):
        self.tree, self.nodes = tree, nodes


def decode(words: Sequence[str], tags: Sequence[str], heads: Sequence[int], labels: Sequence[Optional[str]],
           encoding: str = "delta", unaries: Optional[Sequence[Dict[int, Tuple[str, ...]]]] = None,
           continuous: bool = True) -> Decoded:
    """Head-ordered dependency tree -> constituent tree (Algorithm 2 of the paper, with the
    repairs of its §4.3). ``heads`` are 1-based (0 = root) with one entry per word;
    ``unaries`` (per word, {level: chain top-down}) are inserted when given."""
    n = len(words)
    if n == 0:
        raise MaltpyError("cannot decode an empty sentence")
    if len(tags) != n or len(heads) != n or len(labels) != n:
        raise MaltpyError("words, tags, heads and labels must have one entry per word")
    H = [0] + [int(h) for h in heads]
    _check_forest(H, n)
    Z = [""] * (n + 1)
    K = [0] * (n + 1)
    for m in range(1, n + 1):
        if H[m]:
            Z[m], K[m] = split_label(labels[m - 1])
    if encoding == "delta":
        K = delta_decode(H, K)
    roots = [m for m in range(1, n + 1) if H[m] == 0]
    if len(roots) > 1:
        size = [0] + subtree_sizes(H[1:n + 1])
        main = max(roots, key=lambda r: (size[r], -r))
        top = max((K[m] for m in range(1, n + 1) if H[m] == main), default=0)
        top_label = next((Z[m] for m in range(1, n + 1) if H[m] == main and K[m] == top and Z[m]), "")
        for r in roots:
            if r != main:
                H[r], Z[r], K[r] = main, top_label, max(top, 1)
    if continuous:
        _projectivize(H, n)
    left, right = _sides(H, n)
    if continuous:   # nesting: a closer modifier attaches no later than a farther one
        for side in (left, right):
            for mods in side:
                low = None
                for m in reversed(mods):
                    if low is not None and K[m] > low:
                        K[m] = low
                    low = K[m]
    nodes = []
    psi: List[Optional[Tree]] = [None] * (n + 1)
    first = list(range(n + 1))   # smallest word of each spine's current yield
    for h in reversed(_top_down(H, n)):   # dependents before heads
        v = Tree(tags[h - 1], word=words[h - 1])
        nodes.append((v, h, 0))
        if unaries is not None:
            v = _insert_chain(v, unaries[h - 1].get(0))
        mods = left[h] + right[h]
        if mods:
            classes: Dict[int, List[int]] = {}
            for m in mods:
                classes.setdefault(K[m], []).append(m)
            for j, k in enumerate(sorted(classes), 1):
                members = classes[k]
                # label consistency: the closest modifier's label (the left one on a tie)
                labelled = [m for m in members if Z[m]]
                closest = min(labelled, key=lambda m: (abs(m - h), m)) if labelled else 0
                kids = [(first[h], v)] + [(first[m], psi[m]) for m in members]
                kids.sort(key=lambda x: x[0])
                v = Tree(Z[closest] if closest else FALLBACK_LABEL, [c for _, c in kids])
                first[h] = kids[0][0]
                nodes.append((v, h, j))
                if unaries is not None:
                    v = _insert_chain(v, unaries[h - 1].get(j))
        psi[h] = v
    root = next(m for m in range(1, n + 1) if H[m] == 0)
    return Decoded(psi[root], nodes)


def _insert_chain(node: Tree, chain) -> Tree:
    for label in reversed(chain or ()):
        node = Tree(label, [node])
    return node


def insert_unaries(decoded: Decoded, chains: Sequence[Optional[Tuple[str, ...]]]) -> Tree:
    """A new tree: the decoded tree with ``chains[k]`` (top-down labels, or None) inserted
    above ``decoded.nodes[k]`` (the decoded tree itself is left as it is)."""
    built: Dict[int, Tree] = {}
    for (node, _, _), chain in zip(decoded.nodes, chains):
        if node.word is None:
            node_copy = Tree(node.label, [built[id(c)] for c in node.children])
        else:
            node_copy = node
        built[id(node)] = _insert_chain(node_copy, chain)
    return built[id(decoded.tree)]


def node_chains(decoded: Decoded, unaries: Sequence[Dict[int, Tuple[str, ...]]]) -> List[Tuple[str, ...]]:
    """The gold unary chain of every node of a decoded gold tree (empty tuple: none)."""
    return [unaries[h - 1].get(j, ()) for _, h, j in decoded.nodes]


def format_unaries(chains: Dict[int, Tuple[str, ...]]) -> str:
    """{level: chain} -> ``0=NP;2=S+VP`` (``_`` for none), the CoNLL column of ``-m convert``."""
    if not chains:
        return "_"
    return LEVEL_SEP.join(f"{lv}={CHAIN_SEP.join(c)}" for lv, c in sorted(chains.items()))


def parse_unaries(text: str, where: str = "") -> Dict[int, Tuple[str, ...]]:
    """The inverse of :func:`format_unaries`."""
    if text in ("_", ""):
        return {}
    out = {}
    for item in text.split(LEVEL_SEP):
        lv, sep, chain = item.partition("=")
        if not sep or not lv.isdigit() or not chain or "" in chain.split(CHAIN_SEP):
            raise MaltpyError(f"{where}unary chains {text!r}: write level=LABEL+LABEL;level=LABEL, e.g. 0=NP;2=S")
        out[int(lv)] = tuple(chain.split(CHAIN_SEP))
    return out


def constituents(tree: Tree) -> List[Tuple[str, int, int]]:
    """(label, start, end) of every constituent above the pre-terminals (end exclusive), the
    multiset the tests compare trees by."""
    out = []
    stack = [(tree, False)]
    pos = [0]
    starts: Dict[int, int] = {}
    while stack:
        t, done = stack.pop()
        if t.word is not None:
            pos[0] += 1
            continue
        if done:
            out.append((t.label, starts[id(t)], pos[0]))
            continue
        starts[id(t)] = pos[0]
        stack.append((t, True))
        stack.extend((c, False) for c in reversed(t.children))
    return sorted(out)


def strip_unaries(tree: Tree) -> Tree:
    """The tree without unary constituents (the bottom-most node of each chain is kept)."""
    built: Dict[int, Tree] = {}
    for t in _postorder(tree):
        if t.word is not None:
            built[id(t)] = Tree(t.label, word=t.word)
        elif len(t.children) == 1:
            built[id(t)] = built[id(t.children[0])]
        else:
            built[id(t)] = Tree(t.label, [built[id(c)] for c in t.children])
    return built[id(tree)]
