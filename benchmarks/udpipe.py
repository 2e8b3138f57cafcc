"""UDPipe 1 (``ufal.udpipe``, PyPI) beside maltpy: a benchmark's peer, never a dependency.

    pip install ufal.udpipe      # in an environment of its own
    python benchmarks/udpipe.py train TRAIN.conllu MODEL.udpipe [--iterations 1] [--tokenizer-epochs N]
    python benchmarks/udpipe.py run MODEL.udpipe INPUT.conllu OUTPUT.conllu [--no-parse] [--raw]
    python benchmarks/udpipe.py languages --shared ../shared --out DIR [--iterations 1]

``train`` trains UDPipe's tagger, lemmatizer and parser on a CoNLL-U file (a tokenizer too with
``--tokenizer-epochs``: UDPipe's GRU tokenizer, trained that many epochs; its authors use 100), with
``--iterations`` passes of each (0: UDPipe's defaults, 20 for the tagger and 10 for the parser; the authors' models use 20 and more for the tagger and 10 for
the parser; fewer passes give worse models of the same size, which run at the same speed).
``run`` tags (and parses) a CoNLL-U file whose words it reads, one thread, as ``udpipe --tag
--parse`` does (``--raw``: raw text, tokenized first, as ``udpipe --tokenize --tag --parse``):
time it whole with the bench tool, beside ``maltpy -m parse``/``-m tag``.
``languages`` does both on the 13 languages of ``../shared/data/ud`` with the split of
``benchmarks/tagging.py`` (each train.conllu's first 90 % of sentences to train, the rest to
test): DIR/LANG.gold.conllu and DIR/LANG.udpipe.conllu, for ``maltpy eval`` (or eval.py).
"""
import os
import argparse
import sys
import time


def _sentences(path):
    from ufal.udpipe import InputFormat, ProcessingError, Sentence, Sentences
    reader = InputFormat.newConlluInputFormat()
    with open(path, encoding="utf-8") as f:
        reader.setText(f.read())
    out, error = Sentences(), ProcessingError()
    sentence = Sentence()
    while reader.nextSentence(sentence, error):
        out.push_back(sentence)
        sentence = Sentence()
    if error.occurred():
        sys.exit(f"{path}: {error.message}")
    return out


def train(a):
    from ufal.udpipe import ProcessingError, Sentences, Trainer
    t0 = time.perf_counter()
    error = ProcessingError()
    tokenizer = f"epochs={a.tokenizer_epochs}" if getattr(a, "tokenizer_epochs", 0) else "none"
    # 0 iterations: UDPipe's own defaults (20 passes of the tagger, 10 of the parser)
    passes = f"iterations={a.iterations}" if a.iterations > 0 else ""
    model = Trainer.train("morphodita_parsito", _sentences(a.train), Sentences(), tokenizer,
                          passes, passes, error)
    if error.occurred():
        sys.exit(error.message)
    with open(a.model, "wb") as f:
        f.write(model if isinstance(model, bytes) else model.encode("latin-1"))
    print(f"trained in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def run(a):
    from ufal.udpipe import Model, Pipeline, ProcessingError
    model = Model.load(a.model)
    if model is None:
        sys.exit(f"{a.model}: cannot load the model")
    pipeline = Pipeline(model, "tokenize" if getattr(a, "raw", False) else "conllu", Pipeline.DEFAULT,
                        Pipeline.NONE if a.no_parse else Pipeline.DEFAULT, "conllu")
    with open(a.input, encoding="utf-8") as f:
        text = f.read()
    error = ProcessingError()
    out = pipeline.process(text, error)
    if error.occurred():
        sys.exit(error.message)
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(out)


LANGUAGES = ("ar", "bg", "cs", "da", "de", "es", "ja", "nl", "pt", "sl", "sv", "tr", "zh")


def _blank(block):
    """A sentence's lines with LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL and DEPS as _ (words kept)."""
    out = []
    for line in block.split("\n"):
        cols = line.split("\t")
        out.append("\t".join(cols[:2] + ["_"] * 7 + cols[9:]) if len(cols) == 10 and cols[0].isdigit() else line)
    return "\n".join(out)


def languages(a):
    os.makedirs(a.out, exist_ok=True)
    for lang in a.languages:
        with open(os.path.join(a.shared, "data", "ud", lang, "train.conllu"), encoding="utf-8") as f:
            blocks = [b for b in f.read().split("\n\n") if b.strip()]
        cut = round(0.9 * len(blocks))
        paths = {name: os.path.join(a.out, f"{lang}.{name}.conllu") for name in ("train", "gold", "words", "udpipe")}
        for name, part in (("train", blocks[:cut]), ("gold", blocks[cut:]), ("words", [_blank(b) for b in blocks[cut:]])):
            with open(paths[name], "w", encoding="utf-8") as f:
                f.write("\n\n".join(part) + "\n\n")
        model = os.path.join(a.out, f"{lang}.udpipe")
        t0 = time.perf_counter()
        train(argparse.Namespace(train=paths["train"], model=model, iterations=a.iterations))
        t1 = time.perf_counter()
        run(argparse.Namespace(model=model, input=paths["words"], output=paths["udpipe"], no_parse=False))
        print(f"{lang}: trained in {t1 - t0:.0f} s, tagged and parsed in {time.perf_counter() - t1:.1f} s",
              file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("train")
    t.add_argument("model")
    t.add_argument("--iterations", type=int, default=1, help="passes of the tagger and the parser (0: UDPipe's defaults)")
    t.add_argument("--tokenizer-epochs", type=int, default=0)
    r = sub.add_parser("run")
    r.add_argument("model")
    r.add_argument("input")
    r.add_argument("output")
    r.add_argument("--no-parse", action="store_true")
    r.add_argument("--raw", action="store_true")
    g = sub.add_parser("languages")
    g.add_argument("--shared", required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--iterations", type=int, default=1, help="passes of the tagger and the parser (0: UDPipe's defaults)")
    g.add_argument("--languages", nargs="+", default=LANGUAGES)
    a = ap.parse_args()
    {"train": train, "run": run, "languages": languages}[a.command](a)


if __name__ == "__main__":
    main()
