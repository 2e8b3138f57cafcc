"""Write the small example treebank that ships with maltpy (examples/toy-*.conll).

A seeded random grammar of English-like sentences in CoNLL-X, written by the
maltpy project. About one sentence in eight has an extraposed relative clause
("a man came in who was tall"), whose arc crosses the verb's: non-projective.

The same grammar also writes a CoNLL-U treebank with its text, for learning a tokenizer
(toy-text-train.conllu, toy-text-test.conllu, and the test part's raw text, toy-text-test.txt):
sentences begin with a capital letter, the full stop follows the last word without a space
(SpaceAfter=No), some sentences say "didn't" (a multiword token: did + n't), and paragraphs of
a few sentences are marked with # newpar.

    python examples/make_toy_treebank.py        # rewrites all of them
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


BASE = {"slept": "sleep", "runs": "run", "laughed": "laugh", "waits": "wait", "arrived": "arrive"}


def negated(tokens):
    """An intransitive sentence with "didn't" before its verb's base form (tokens shift by two),
    and the multiword token's position; other sentences unchanged, None."""
    root = next(k for k, t in enumerate(tokens, 1) if t[3] == 0)
    form = tokens[root - 1][0]
    if form not in BASE:
        return tokens, None
    def shifted(h):
        return h + 2 if h >= root else h
    out = [[f, c, p, shifted(h) if h else 0, lab] for f, c, p, h, lab in tokens]
    out[root - 1][0], out[root - 1][2] = BASE[form], "VB"
    out[root - 1:root - 1] = [["did", "AUX", "VBD", root + 2, "aux"], ["n't", "PART", "RB", root + 2, "advmod"]]
    return out, root


def to_conllu(tokens, number, new_paragraph, rng):
    """A sentence in CoNLL-U with its text: a capital first letter, SpaceAfter=No before the full
    stop, maybe "didn't"."""
    mwt = None
    if rng.random() < 0.5:
        tokens, mwt = negated(tokens)
    tokens = [list(t) for t in tokens]
    tokens[0][0] = tokens[0][0][:1].upper() + tokens[0][0][1:]
    lines = ["# newpar"] if new_paragraph else []
    words = [t[0] for t in tokens]
    text = " ".join(words[:-1]) + words[-1]
    if mwt is not None:
        text = text.replace(f"{words[mwt - 1]} {words[mwt]}", f"{words[mwt - 1]}{words[mwt]}", 1)
    lines += [f"# sent_id = {number}", f"# text = {text}"]
    for k, (form, cpos, pos, head, label) in enumerate(tokens, 1):
        if k == mwt:
            lines.append(f"{k}-{k + 1}\t{form}{tokens[k][0]}\t_\t_\t_\t_\t_\t_\t_\t_")
        misc = "SpaceAfter=No" if k == len(tokens) - 1 else "_"
        lemma = "do" if form == "did" else "not" if form == "n't" else form.lower()
        lines.append("\t".join([str(k), form, lemma, cpos, pos, "_", str(head), label, "_", misc]))
    return "\n".join(lines) + "\n\n"


def main():
    rng = random.Random(2026)
    sentences = [sentence(rng) for _ in range(160)]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "toy-train.conll"), "w") as f:
        f.writelines(to_conll(s) for s in sentences[:120])
    with open(os.path.join(here, "toy-test.conll"), "w") as f:
        f.writelines(to_conll(s) for s in sentences[120:])
    # the CoNLL-U treebank with text: its own sentences, from its own seed
    rng = random.Random(53)
    texts = [to_conllu(sentence(rng), k + 1, k % 4 == 0, rng) for k in range(240)]
    with open(os.path.join(here, "toy-text-train.conllu"), "w") as f:
        f.writelines(texts[:180])
    with open(os.path.join(here, "toy-text-test.conllu"), "w") as f:
        f.writelines(texts[180:])
    paragraphs, current = [], []
    for block in texts[180:]:
        if block.startswith("# newpar") and current:
            paragraphs.append(" ".join(current))
            current = []
        current.append(next(line[len("# text = "):] for line in block.split("\n") if line.startswith("# text = ")))
    paragraphs.append(" ".join(current))
    with open(os.path.join(here, "toy-text-test.txt"), "w") as f:
        f.write("\n\n".join(paragraphs) + "\n")


if __name__ == "__main__":
    main()
