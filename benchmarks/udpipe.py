"""UDPipe 1 (``ufal.udpipe``, PyPI) beside maltpy: a benchmark's peer, never a dependency.

    pip install ufal.udpipe      # in an environment of its own
    python benchmarks/udpipe.py train TRAIN.conllu MODEL.udpipe [--iterations 1]
    python benchmarks/udpipe.py run MODEL.udpipe INPUT.conllu OUTPUT.conllu [--no-parse]

``train`` trains UDPipe's tagger, lemmatizer and parser on a CoNLL-U file (no tokenizer), with
``--iterations`` passes of each (the authors' models use 20 and more for the tagger and 10 for
the parser; fewer passes give worse models of the same size, which run at the same speed).
``run`` tags (and parses) a CoNLL-U file whose words it reads, one thread, as ``udpipe --tag
--parse`` does: time it whole with the bench tool, beside ``maltpy -m parse``/``-m tag``.
"""
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
    model = Trainer.train("morphodita_parsito", _sentences(a.train), Sentences(), "none",
                          f"iterations={a.iterations}", f"iterations={a.iterations}", error)
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
    pipeline = Pipeline(model, "conllu", Pipeline.DEFAULT, Pipeline.NONE if a.no_parse else Pipeline.DEFAULT, "conllu")
    with open(a.input, encoding="utf-8") as f:
        text = f.read()
    error = ProcessingError()
    out = pipeline.process(text, error)
    if error.occurred():
        sys.exit(error.message)
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("train")
    t.add_argument("model")
    t.add_argument("--iterations", type=int, default=1)
    r = sub.add_parser("run")
    r.add_argument("model")
    r.add_argument("input")
    r.add_argument("output")
    r.add_argument("--no-parse", action="store_true")
    a = ap.parse_args()
    train(a) if a.command == "train" else run(a)


if __name__ == "__main__":
    main()
