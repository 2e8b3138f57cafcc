"""Outputs and weights that a refactoring must not change (issue #40's invariants), saved from one
commit and checked at another.

    python benchmarks/invariants.py save  DIR [--shared ../shared] [--only NAME ...] [--sentences N]
    python benchmarks/invariants.py check DIR [--shared ../shared] [--only NAME ...]

Each configuration is trained on EWT train (CoNLL-X, XPOS as POSTAG) with the maltpy command as
a user types it, and parses EWT dev. ``save`` records the SHA-256 of the output file and of every
array in the model file (the zip's own metadata aside) in DIR/manifest.json; ``check`` does the
same work again with the maltpy it runs and prints, for each configuration, whether the output and
the weights are the same bits. It exits with status 1 when any differs. ``--sentences N`` trains on
the first N training sentences (quicker; save and check must use the same N, which the manifest
keeps). The constituent parser trains and parses on the PTB sample (``-m learn -i train.mrg``).

Run ``save`` with the commit before a change (e.g. in a worktree on PYTHONPATH) and ``check``
after it.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

#: name -> the flags of -m learn (the issue's list)
CONFIGS = {
    **{f"a-{a}": ["-a", a] for a in ("nivreeager", "nivrestandard", "covproj", "covnonproj", "stackproj",
                                       "stackeager", "stacklazy", "planar", "2planar")},
    **{f"pp-{m}": ["-pp", m] for m in ("baseline", "head", "path", "head+path")},
    "dir-rtl": ["-dir", "rtl"],
    "dir-both": ["-dir", "both"],
    "ud-naive": ["-a", "2planar", "-ud", "naive"],
    "ud-label": ["-a", "2planar", "-ud", "label"],
    **{f"bt-{b}": ["-bt", b] for b in ("lba", "rba", "lnba", "rnba")},
    "nt-true": ["-nt", "true"],
    "libsvm-split": ["-l", "libsvm", "-d", "POSTAG", "-s", "Input[0]", "-T", "1000"],
    "liblinear-split": ["-d", "POSTAG", "-s", "Input[0]", "-T", "50"],
    "perceptron-static": ["-l", "perceptron", "-lo", "-i 5"],
    "perceptron-dynamic": ["-l", "perceptron", "-or", "dynamic", "-lo", "-i 5"],
    "constituents": [],
    # the beam: global training and parsing with B = 8 (Covington also keeps sums and node caches)
    "beam-global": ["-l", "perceptron", "-b", "8", "-lo", "-i 2"],
    "beam-covnonproj": ["-a", "covnonproj", "-l", "perceptron", "-b", "4", "-lo", "-i 1"],
    # parse-time options, over the model of another configuration (PARSE_WITH)
    "beam-nbest": [],
    "arc-scores": [],
    "constraints": [],
}

#: name -> (the configuration whose model it parses with, the flags of -m parse); a configuration
#: whose name ends in -u learns and parses CoNLL-U (confidences and arc scores go in MISC)
PARSE_WITH = {
    "beam-nbest": ("beam-global-u", ["--nbest", "3", "--confidence", "true"]),
    "arc-scores": ("a-nivreeager-u", ["--arc-scores", "true"]),
    "constraints": ("a-covnonproj", ["--constraints", "true"]),
}
#: the CoNLL-U models PARSE_WITH trains (not configurations of their own)
CONLLU_MODELS = {"beam-global-u": CONFIGS["beam-global"], "a-nivreeager-u": CONFIGS["a-nivreeager"]}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _model_digests(path) -> dict:
    """SHA-256 of every array of a model file (a path or a file object), as loading reads it (a
    narrowed array widened back: the bytes a version-1 file held), and its header with the run's
    figures and the storage format left out; a model file inside it (-dir both's right-to-left parser) is taken
    apart the same way, its entries named ``arrays/reverse_model.npy::...``."""
    import numpy as np
    from maltpy.parsing.modelfile import HEADER, NARROWED, widened
    out = {}
    with zipfile.ZipFile(path) as z:
        narrowed = json.loads(z.read(HEADER)).get(NARROWED, {})
        for name in sorted(z.namelist()):
            data = z.read(name)
            if name.endswith(".json"):
                header = json.loads(data)
                header.pop("train_stats", None)      # training time varies
                header.pop("arrays", None)           # the array list: compared array by array
                # how the arrays are stored (format version 2 narrows integer arrays): their
                # values are compared, as they are read
                header.pop("format_version", None)
                header.pop(NARROWED, None)
                header.get("combination", {}).pop("seconds", None)
                out[name] = header                   # compared key by key (_compare_models)
            elif name == "arrays/reverse_model.npy":
                import numpy as np
                inner = np.load(io.BytesIO(data), allow_pickle=False).tobytes()
                out.update({f"{name}::{k}": v for k, v in _model_digests(io.BytesIO(inner)).items()})
            else:
                array = name[len("arrays/"):-len(".npy")]
                if array in narrowed:       # the array as read, written as the writer had it
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, widened(np.load(io.BytesIO(data), allow_pickle=False),
                                                           narrowed[array], array), allow_pickle=False)
                    data = buf.getvalue()
                out[name] = _sha(data)
    return out


def _compare_models(before: dict, after: dict):
    """(every array and header value the same, the arrays only ``after`` has). A newer model file
    may add an array or a setting (older files without them still load) without changing what the
    older one held: settings are compared over the older file's keys."""
    def same_value(key, old, new):
        if isinstance(old, dict) and isinstance(new, dict):     # the header (a manifest saved
            # before format version 2 kept its version among the values)
            return all(k in new and (new[k] == v if k != "settings"
                                     else all(new[k].get(s) == x for s, x in v.items()))
                       for k, v in old.items() if k != "format_version")
        return old == new
    same = bool(before) and all(same_value(name, value, after.get(name)) for name, value in before.items())
    return same, sorted(name for name in after if name not in before)


def _maltpy(args, cwd):
    r = subprocess.run([sys.executable, "-m", "maltpy", *args, "-q"], cwd=cwd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"maltpy {' '.join(args)} failed: {r.stderr.strip()}")


def run(name: str, shared: str, work: str, sentences) -> dict:
    """Train and parse one configuration; the digests of its output and model."""
    model = os.path.join(work, f"{name}.mpz")
    out = os.path.join(work, f"{name}.out")
    if name == "constituents":
        train = os.path.join(shared, "data", "ptb-sample", "train.mrg")
        _maltpy(["-c", model, "-m", "learn", "-i", train], work)
        _maltpy(["-c", model, "-m", "parse", "-i", train, "-o", out + ".mrg"], work)
        out += ".mrg"
    elif name in PARSE_WITH:
        other, flags = PARSE_WITH[name]
        model = os.path.join(work, f"{other}.mpz")
        ext = "conllu" if other in CONLLU_MODELS else "conll"
        if not os.path.exists(model):
            _maltpy(["-c", model, "-m", "learn", "-i", os.path.join(work, f"train.{ext}"),
                     *(CONLLU_MODELS.get(other) or CONFIGS[other])], work)
        given = "dev-given.conll" if name == "constraints" else f"dev.{ext}"
        _maltpy(["-c", model, "-m", "parse", "-i", os.path.join(work, given), "-o", out + "." + ext, *flags], work)
        out += "." + ext
    else:
        _maltpy(["-c", model, "-m", "learn", "-i", os.path.join(work, "train.conll"), *CONFIGS[name]], work)
        _maltpy(["-c", model, "-m", "parse", "-i", os.path.join(work, "dev.conll"), "-o", out], work)
    with open(out, "rb") as f:
        output = _sha(f.read())
    return {"output": output, "model": _model_digests(model)}


def _prepare(shared: str, work: str, sentences) -> None:
    """EWT train (its first ``sentences``) and dev as CoNLL-X files in ``work``."""
    from maltpy.formats.conll import read_conll, to_conllx, write_conll
    for part in ("train", "dev"):
        src = os.path.join(shared, "data", "ud", "en_ewt", f"{part}.conllu")
        if not os.path.exists(src):
            sys.exit(f"EWT not found: {src}")
        data = read_conll(src, "conllu", need_heads=True)
        if part == "train" and sentences:
            data = data[:sentences]
        write_conll([to_conllx(s) for s in data], os.path.join(work, f"{part}.conll"))
        write_conll(data, os.path.join(work, f"{part}.conllu"))
    # dev with every fourth word's gold arc given (constrained parsing), the others free
    given = []
    for s in read_conll(os.path.join(work, "dev.conll"), "conllx", need_heads=True):
        rows = [list(r) for r in s.rows]
        for i, r in enumerate(rows):
            if i % 4:
                r[6] = r[7] = "_"
        given.append(type(s)(rows, s.extra, format=s.format))
    write_conll(given, os.path.join(work, "dev-given.conll"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("save", "check"))
    ap.add_argument("dir", help="where the manifest is saved (save) or read (check)")
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--only", nargs="+", choices=sorted(CONFIGS), help="these configurations only")
    ap.add_argument("--sentences", type=int, default=0, help="train on the first N sentences (save; 0 = all)")
    a = ap.parse_args()
    manifest_path = os.path.join(a.dir, "manifest.json")
    saved = None
    if a.mode == "check":
        with open(manifest_path) as f:
            saved = json.load(f)
        a.sentences = saved["sentences"]
    names = a.only or (sorted(saved["configs"]) if saved else list(CONFIGS))
    results = {}
    with tempfile.TemporaryDirectory(prefix="maltpy-invariants-") as work:
        _prepare(a.shared, work, a.sentences)
        for name in names:
            results[name] = run(name, a.shared, work, a.sentences)
            if saved is None:
                print(f"{name}: saved", flush=True)
                continue
            before = saved["configs"].get(name)
            same_out = before is not None and before["output"] == results[name]["output"]
            same_model, added = _compare_models(before["model"] if before else {}, results[name]["model"])
            print(f"{name:<20} output {'same' if same_out else 'DIFFERS'}   "
                  f"model {'same' if same_model else 'DIFFERS'}"
                  + (f" (and adds {', '.join(added)})" if added else ""), flush=True)
            results[name]["unchanged"] = same_out and same_model
    if saved is None:
        os.makedirs(a.dir, exist_ok=True)
        with open(manifest_path, "w") as f:
            json.dump({"sentences": a.sentences, "configs": results}, f, indent=1, sort_keys=True)
        return 0
    bad = [n for n in names if not results[n]["unchanged"]]
    print(f"{len(names) - len(bad)} of {len(names)} configurations unchanged"
          + (f"; changed: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
