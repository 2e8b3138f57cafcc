"""Speed of the spaCy component against maltpy's own Parser.parse, on the same tokens and tags.

    python benchmarks/spacy_component.py [--shared ../shared] [--model ewt.mpz] [--repeat 3]

Trains the default nivreeager model on UD English EWT train (unless --model is given), builds
one spaCy Doc per EWT dev sentence (words, XPOS as tag_, UPOS as pos_; not timed), then times
``nlp.pipe(docs)`` through ``maltpy_parser`` in a blank English pipeline and
``parser.parse(sentences)`` on the blind dev sentences, best of --repeat runs each, alternated.
Also checks that both give the same heads and labels.
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ewt import read_ewt, timing_argument_parser  # noqa: E402


def main():
    ap = timing_argument_parser(__doc__)
    ap.add_argument("--batch-size", type=int, default=256)
    a = ap.parse_args()
    import spacy
    import maltpy
    from maltpy.formats.conll import Sentence
    from maltpy.integrations.spacy_parser import sentences_to_doc
    dev = read_ewt(a.shared, "dev")
    model = a.model
    if not model:
        model = os.path.join(tempfile.mkdtemp(), "ewt.mpz")
        t0 = time.perf_counter()
        maltpy.train(read_ewt(a.shared, "train"), algorithm="nivreeager", verbose=False).save(model)
        print(f"trained {model} in {time.perf_counter() - t0:.1f} s")
    blind = [Sentence([r[:6] + ["_"] * 4 for r in s.rows]) for s in dev]
    nlp = spacy.blank("en")
    nlp.add_pipe("maltpy_parser", config={"model": model, "batch_size": a.batch_size})
    docs = [sentences_to_doc(nlp.vocab, [s]) for s in blind]
    parser = maltpy.load(model)
    tokens = sum(len(s) for s in dev)
    best_spacy = best_maltpy = float("inf")
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        parsed = parser.parse(blind)
        best_maltpy = min(best_maltpy, time.perf_counter() - t0)
        fresh = [d.copy() for d in docs]   # a parsed doc has sentences, which a second parse would keep
        t0 = time.perf_counter()
        out = list(nlp.pipe(fresh, batch_size=a.batch_size))
        best_spacy = min(best_spacy, time.perf_counter() - t0)
    same = all([(0 if t.head.i == t.i else t.head.i + 1, t.dep_) for t in d] == list(zip(s.heads, s.labels))
               for d, s in zip(out, parsed))
    print(f"EWT dev, {len(dev)} sentences, {tokens} tokens, best of {a.repeat}")
    print(f"maltpy Parser.parse      {best_maltpy:6.3f} s  {tokens / best_maltpy:10,.0f} tokens/s")
    print(f"spaCy nlp.pipe + maltpy  {best_spacy:6.3f} s  {tokens / best_spacy:10,.0f} tokens/s"
          f"  ({100 * best_maltpy / best_spacy:.0f}% of maltpy's speed)")
    print(f"same heads and labels: {same}")


if __name__ == "__main__":
    main()
