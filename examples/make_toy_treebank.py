"""Write the small example treebank that ships with maltpy (examples/toy-*.conll).

A seeded random grammar of English-like sentences in CoNLL-X, written by the
maltpy project. About one sentence in eight has an extraposed relative clause
("a man came in who was tall"), whose arc crosses the verb's: non-projective.

    python examples/make_toy_treebank.py        # rewrites toy-train.conll and toy-test.conll
"""
import os
import random

DET = [("the", "DT"), ("a", "DT"), ("every", "DT"), ("this", "DT")]
ADJ = ["small", "old", "red", "happy", "quiet", "clever", "green", "tall"]
NOUN = ["dog", "cat", "man", "woman", "child", "teacher", "car", "house", "book", "garden", "bird", "river"]
NOUN_PL = ["dogs", "cats", "children", "teachers", "books", "birds"]
NAME = ["Anna", "Bert", "Clara", "David", "Eva"]
VT = [("saw", "VBD"), ("likes", "VBZ"), ("found", "VBD"), ("reads", "VBZ"), ("painted", "VBD"), ("wants", "VBZ")]
VI = [("slept", "VBD"), ("runs", "VBZ"), ("laughed", "VBD"), ("waits", "VBZ"), ("arrived", "VBD")]
PREP = ["in", "near", "with", "behind", "under"]
ADV = ["today", "quickly", "again", "yesterday"]
RP = ["in", "out", "up"]


class Builder:
    def __init__(self):
        self.tokens = []  # [form, cpos, pos, head, label]

    def add(self, form, cpos, pos, head=0, label="_"):
        self.tokens.append([form, cpos, pos, head, label])
        return len(self.tokens)

    def set(self, i, head, label):
        self.tokens[i - 1][3] = head
        self.tokens[i - 1][4] = label


def noun_phrase(b, rng):
    """Add an NP; return (head index, list of its dependents' indices to attach)."""
    r = rng.random()
    if r < 0.2:
        return b.add(rng.choice(NAME), "NOUN", "NNP"), []
    deps = []
    if r < 0.35:
        noun = b.add(rng.choice(NOUN_PL), "NOUN", "NNS")
        return noun, deps
    det_form, det_pos = rng.choice(DET)
    det = b.add(det_form, "DET", det_pos)
    deps.append((det, "det"))
    if rng.random() < 0.4:
        adj = b.add(rng.choice(ADJ), "ADJ", "JJ")
        deps.append((adj, "amod"))
    noun = b.add(rng.choice(NOUN), "NOUN", "NN")
    for d, lab in deps:
        b.set(d, noun, lab)
    return noun, []


def prep_phrase(b, rng, head):
    p = b.add(rng.choice(PREP), "ADP", "IN")
    n, _ = noun_phrase(b, rng)
    b.set(p, n, "case")
    b.set(n, head, "obl")


def sentence(rng):
    b = Builder()
    kind = rng.random()
    subj, _ = noun_phrase(b, rng)
    if kind < 0.13:
        # extraposed relative clause: "the man came in who was tall ." (non-projective)
        vf = rng.choice(["came", "walked", "ran"])
        v = b.add(vf, "VERB", "VBD")
        prt = b.add(rng.choice(RP), "ADP", "RP")
        who = b.add("who", "PRON", "WP")
        was = b.add("was", "AUX", "VBD")
        adj = b.add(rng.choice(ADJ), "ADJ", "JJ")
        b.set(subj, v, "nsubj")
        b.set(prt, v, "compound:prt")
        b.set(who, adj, "nsubj")
        b.set(was, adj, "cop")
        b.set(adj, subj, "acl:relcl")
    elif kind < 0.6:
        vf, vp = rng.choice(VT)
        v = b.add(vf, "VERB", vp)
        b.set(subj, v, "nsubj")
        obj, _ = noun_phrase(b, rng)
        b.set(obj, v, "obj")
        if rng.random() < 0.4:
            prep_phrase(b, rng, v)
    else:
        vf, vp = rng.choice(VI)
        v = b.add(vf, "VERB", vp)
        b.set(subj, v, "nsubj")
        if rng.random() < 0.5:
            a = b.add(rng.choice(ADV), "ADV", "RB")
            b.set(a, v, "advmod")
        if rng.random() < 0.3:
            prep_phrase(b, rng, v)
    b.set(v, 0, "root")
    punct = b.add(".", "PUNCT", ".")
    b.set(punct, v, "punct")
    return b.tokens


def to_conll(tokens):
    lines = []
    for k, (form, cpos, pos, head, label) in enumerate(tokens, 1):
        lemma = form.lower()
        lines.append("\t".join([str(k), form, lemma, cpos, pos, "_", str(head), label, "_", "_"]))
    return "\n".join(lines) + "\n\n"


def main():
    rng = random.Random(2026)
    sentences = [sentence(rng) for _ in range(160)]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "toy-train.conll"), "w") as f:
        f.writelines(to_conll(s) for s in sentences[:120])
    with open(os.path.join(here, "toy-test.conll"), "w") as f:
        f.writelines(to_conll(s) for s in sentences[120:])


if __name__ == "__main__":
    main()
