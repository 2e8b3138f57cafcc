"""Beam search on EWT (CoNLL-X, XPOS as POSTAG), NivreEagerZN: greedy parsers against global
training with several beam widths, every figure from the commands a user types.

    python benchmarks/beam_ewt.py [--shared ../shared] [--work DIR] [--widths 1,4,8,16,32,64]
                                  [--repeat 3] [-o docs/beam-ewt.md] [--plot docs/beam-ewt.svg]

Per configuration: ``maltpy -m learn`` on train (wall time and peak memory of the whole process;
two threads, as the machine has), dev LAS and UAS with punctuation (``maltpy eval``), and
``maltpy -m parse -j 1`` of dev ten times over (whole process, the median of ``--repeat`` runs,
tokens per second). Early update against max-violation: the share of training sentences without
an update after each epoch (from the training log) and dev LAS after 5, 10 and 15 epochs, at
B = 8. A model already in ``--work`` with its record is not trained again (the record keeps its
learning figures), so the study can be extended a width at a time.
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from _ewt import read_ewt, run_maltpy, timed_maltpy, timing_argument_parser  # noqa: E402


def configurations(widths):
    """(name, learn flags, parse flags) of the study."""
    zn = ["-a", "nivreeager", "-F", "NivreEagerZN"]
    out = [("greedy, LIBLINEAR", zn + ["-l", "liblinear"], []),
           ("greedy, perceptron, dynamic oracle", zn + ["-l", "perceptron", "-or", "dynamic"], [])]
    # B = 1: global training with greedy search (--search beam -b 1; -b 1 alone is the greedy learner)
    out += [(f"global, B = {b}", zn + ["-l", "perceptron", "-b", str(b)] + (["--search", "beam"] if b == 1 else []),
             []) for b in widths]
    out += [("greedy, LIBLINEAR, beam 8 (log-probabilities)", None, ["-b", "8"]),
            ("greedy, perceptron, dynamic oracle, beam 8 (log-probabilities)", None, ["-b", "8"])]
    return out


def learn(work, name, flags, train, extra=()):
    """The model of a configuration, trained unless its record exists: (path, record)."""
    slug = "".join(c if c.isalnum() else "-" for c in name).strip("-")
    model = os.path.join(work, slug + ".mpz")
    record = model + ".json"
    if os.path.exists(model) and os.path.exists(record):
        with open(record) as f:
            return model, json.load(f)
    wall, usage, status, err = run_maltpy(["-c", model, "-m", "learn", "-i", train, "-j", "2", "-v", *flags, *extra])
    if status:
        sys.exit(f"learning {name} failed: {err}")
    rec = {"learn_s": wall, "learn_cpu_s": usage.ru_utime + usage.ru_stime, "learn_mb": usage.ru_maxrss / 1024,
           "log": [line for line in err.splitlines() if "epoch" in line]}
    with open(record, "w") as f:
        json.dump(rec, f)
    return model, rec


def score(model, dev, work, extra=()):
    """(LAS, UAS) with punctuation of the model's parse of dev."""
    import subprocess
    out = os.path.join(work, "dev.out")
    subprocess.run([sys.executable, "-m", "maltpy", "-c", model, "-m", "parse", "-i", dev, "-o", out, "-q", *extra],
                   check=True)
    from maltpy.evaluation.scores import evaluate
    from maltpy.formats.conll import read_conll
    s = evaluate(read_conll(dev, "conllx"), read_conll(out, "conllx"))["all"]
    return s.las, s.uas


def speed(model, dev10, tokens, work, repeat, extra=()):
    """Whole-process tokens/s and peak MB of ``maltpy -m parse -j 1`` of dev ten times over."""
    runs = [timed_maltpy(["-c", model, "-m", "parse", "-i", dev10, "-o", os.path.join(work, "dev10.out"), "-q",
                          "-j", "1", *extra]) for _ in range(repeat)]
    return tokens / statistics.median(w for w, _, _ in runs), max(m for _, _, m in runs)


def main():
    ap = timing_argument_parser(__doc__, model=False)
    ap.add_argument("--work", default=os.path.join(HERE, "..", "..", "beam-ewt-work"))
    ap.add_argument("--widths", default="1,4,8,16,32,64")
    ap.add_argument("--early", action="store_true", help="also early update against max-violation at B = 8")
    ap.add_argument("-o", help="Markdown output (default: standard output)")
    ap.add_argument("--plot", help="the accuracy-speed curve as an SVG file")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    from maltpy.formats.conll import write_conll
    train, dev = (os.path.join(a.work, f"{p}.conll") for p in ("train", "dev"))
    dev10 = os.path.join(a.work, "dev10.conll")
    if not os.path.exists(dev10):
        write_conll(read_ewt(a.shared, "train"), train)
        sentences = read_ewt(a.shared, "dev")
        write_conll(sentences, dev)
        write_conll(sentences * 10, dev10)
    from maltpy.formats.conll import read_conll
    tokens = 10 * sum(len(s) for s in read_conll(dev, "conllx"))
    widths = [int(b) for b in a.widths.split(",")]
    rows, models = [], {}
    for name, flags, parse_flags in configurations(widths):
        if flags is None:                     # a beam over a greedy model trained above
            base = name.split(", beam")[0]
            model, rec = models[base]
        else:
            model, rec = learn(a.work, name, flags, train)
            models[name] = (model, rec)
        las, uas = score(model, dev, a.work, parse_flags)
        tps, mb = speed(model, dev10, tokens, a.work, a.repeat, parse_flags)
        rows.append((name, las, uas, tps, mb, rec if flags is not None else None))
        print(f"{name}: LAS {las:.2f} UAS {uas:.2f} {tps:,.0f} tok/s", file=sys.stderr)
    out = ["| configuration | dev LAS | UAS | parsing, tokens/s | parsing, peak MB | learning | learning, peak |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for name, las, uas, tps, mb, rec in rows:
        learned = f"{rec['learn_s']:.0f} s | {rec['learn_mb'] / 1024:.2f} GB" if rec else " | "
        out.append(f"| {name} | {las:.2f} | {uas:.2f} | {tps:,.0f} | {mb:.0f} | {learned} |")
    if a.early:
        out += ["", "Early update against max-violation, B = 8 (dev LAS after 5, 10 and 15 epochs):", "",
                "| update | 5 epochs | 10 epochs | 15 epochs |", "|---|---:|---:|---:|"]
        zn = ["-a", "nivreeager", "-F", "NivreEagerZN", "-l", "perceptron", "-b", "8"]
        for update in ("max", "early"):
            cells = []
            for epochs in (5, 10, 15):
                model, _ = learn(a.work, f"{update} B8 i{epochs}", zn + ["-lo", f"-i {epochs} -u {update}"], train)
                cells.append(f"{score(model, dev, a.work)[0]:.2f}")
            out.append(f"| {'max-violation' if update == 'max' else 'early'} | " + " | ".join(cells) + " |")
        out += ["", "Training sentences without an update after each epoch (15 epochs, B = 8):", ""]
        for update in ("max", "early"):
            _, rec = learn(a.work, f"{update} B8 i15", [], train)
            shares = [line.split(": ")[2].split("%")[0] for line in rec["log"] if "without an update" in line]
            out.append(f"- {'max-violation' if update == 'max' else 'early'}: " + ", ".join(shares) + " %")
    text = "\n".join(out) + "\n"
    if a.o:
        with open(a.o, "w") as f:
            f.write(text)
    else:
        print(text)
    if a.plot:
        plot(rows, a.plot)


def plot(rows, path):
    """The accuracy-speed curve of the global models, the greedy ones as points, as an SVG file."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4))
    glob = [(r[3], r[1], r[0].split("= ")[1]) for r in rows if r[0].startswith("global")]
    ax.plot([x for x, _, _ in glob], [y for _, y, _ in glob], "o-", label="global training, beam B")
    for x, y, b in glob:
        ax.annotate(f"B={b}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    for name, las, _, tps, _, _ in rows:
        if name.startswith("greedy"):
            ax.plot([tps], [las], "s", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("parsing speed, tokens/s (whole process, one thread, log scale)")
    ax.set_ylabel("EWT dev LAS")
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)

if __name__ == "__main__":
    main()
