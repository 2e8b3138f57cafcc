"""Fuzz targets: maltpy's input boundaries, each taking one ``bytes`` input.

The rule every target checks: whatever the bytes, maltpy either works (and
what it writes reads back) or raises its own :class:`~maltpy.errors.MaltpyError`,
which the command line turns into one line. Any other exception is a bug.

Targets (``TARGETS``):

- ``conll``: the CoNLL reader, both formats, with and without gold trees;
  whatever it accepts must write out and read back to the same lines.
- ``features``: a feature-model YAML file, compiled for a system and used to
  train on and parse a few sentences.
- ``model``: a model file. The first byte chooses how the rest is used: raw
  model bytes; a JSON header put into a valid model (wrong types and values
  that survive the zip's checksums); a valid model with one array replaced;
  or a valid header with values swapped for others of any type, the rest of
  the bytes seeding the choice of values. A model that loads is described
  (``maltpy info``) and parses.
- ``parse``: CoNLL input parsed by each algorithm's model (and, one time in
  four, trained on); outputs must be well-formed trees that read back.
- ``ptb``: bracketed trees read (cleaned or raw); whatever is accepted writes
  out and reads back the same, encodes and decodes back to itself, scores 100
  against itself with EVALB's rules, and its words and tags parse with a
  constituent model into trees over the same words, by the compiled and the
  Python paths alike.
- ``export``: Negra export text read for parsing by the compiled reader and by
  ``parse_export`` (byte 0: the format a ``#FORMAT`` line names, or none): both refuse it, or
  both read the same words, tags, lemmas and morphology; its trees, encoded and decoded, give
  the same export text by the compiled writer and the Python one.
- ``cli``: a command line (one argument per line) given to ``maltpy`` in a
  scratch directory holding a treebank, a model, a configuration and feature
  models, with stdin and stdout in memory: it ends with status 0, maltpy's
  one-line error (1) or a usage error (2). Arguments that name anything outside
  the scratch directory are not run.
- ``config``: a configuration file, for ``maltpy -c conf.yaml -m learn`` and
  then ``-m parse`` in the same scratch directory, with the same rule.
- ``api``: the Python API as a notebook user drives it: the bytes choose words, tags, heads
  (in range, out of it, negative, huge, cycles), labels (None, numbers, tabs, spaces) and
  sentence lengths for ``Sentence.from_words(...).with_tree(...)``, then ``maltpy.train`` with
  an algorithm they choose and ``parse``; the outputs must be trees that read back.
- ``discbracket``: disco-dop's bracketed discontinuous trees read; whatever is accepted writes
  back to the same lines, goes to export and back unchanged, and encodes and decodes over the
  same words; the compiled reader and writer of ``-m parse`` read the same words and write the
  same lines, or leave the text to Python.
- ``discparse``: export or discbracket words parsed by a discontinuous parser into export or
  discbracket trees, the file read whole and in pieces of a size the bytes choose
  (``parse_pieces``): the same bytes or the same one-line error, no output file after an error,
  and trees over the input's words; and CoNLL-U words (bit 2 of the first byte): trees over
  them or a one-line error.
- ``pipeline_model``: a model file of a tokenizer, tagger and parser with one component's
  JSON header or one of its arrays damaged: it loads, tags and parses, or is refused in one line.
- ``tag``: words (CoNLL-U or CoNLL-X with their tag columns ``_`` or given, horizontal, vertical)
  or raw text through a tokenizer, tagger and parser learned from the example treebank, on one
  or two threads, tagging only or parsing too: refused input leaves no output file; accepted
  input comes out as CoNLL that reads back, and CoNLL input as the Python path writes it.

:class:`Harness` trains the small models once (about a second); its
``seeds()`` give valid inputs to start mutating from, and :func:`mutate` is a
structure-blind mutator for runs without atheris (the test suite's short run).
"""
from __future__ import annotations

import atexit
import contextlib
import copy
import io
import json
import os
import random
import shutil
import sys
import tempfile
import zipfile

import numpy as np

import maltpy
from maltpy.errors import MaltpyError
from maltpy.formats.conll import Sentence, format_sentences, parse_conll, read_conll
from maltpy.parsing.modelfile import HEADER
from maltpy.formats.scan import Scanner
from maltpy.search.greedy import parse_sequential
from maltpy.search.step import Scoring
from maltpy.parsing.parser import Parser
from maltpy.parsing.stream import OrderedOutput, parse_bytes, read_chunks, unsupported
from maltpy.systems import SYSTEMS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN = os.path.join(ROOT, "examples", "toy-train.conll")
ALGORITHMS = sorted(SYSTEMS)
#: extra models exercising other code paths: pseudo-projective labels, the data split, LIBSVM
VARIANTS = [
    {"algorithm": "nivreeager", "marking_strategy": "head+path"},
    {"algorithm": "nivreeager", "split_column": "POSTAG", "split_structure": "Input[0]", "split_threshold": 5},
    {"algorithm": "nivrestandard", "learner": "libsvm", "split_column": "POSTAG",
     "split_structure": "Input[0]", "split_threshold": 20},
    {"algorithm": "nivreeager", "buffer_transitions": "lba+rba+lnba+rnba"},
    {"algorithm": "covnonproj", "direction": "rtl", "marking_strategy": "path"},
    {"algorithm": "nivreeager", "direction": "both", "combination_folds": 2},
    {"algorithm": "covnonproj", "learner": "perceptron", "oracle": "dynamic", "learner_options": "-i 3"},
    {"algorithm": "2planar", "undirected": "label"},
    {"algorithm": "covnonproj", "undirected": "naive"},
    {"algorithm": "covnonproj", "undirected": "label"},
    {"algorithm": "nivreeager", "learner": "perceptron", "oracle": "dynamic", "learner_options": "-i 3"},
]


#: every feature function, for nivreeager (Stack/Input addresses)
RICH_FEATURES = """name: every function
features:
  - InputColumn(POSTAG, Stack[0])
  - OutputColumn(DEPREL, ldep(Input[0]))
  - InputColumn(FORM, head(Stack[0]))
  - Merge(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))
  - Merge3(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, rdep(Stack[0])))
  - InputArc(PHEAD, Stack[0], Input[0])
  - InputArcDir(PHEAD, Stack[0])
  - OutputArc(HEAD, Stack[0], Input[0])
  - Exists(ldep(Stack[0]))
  - Distance(Stack[0], Input[0], 0|1|2|5)
  - NumOf(Stack[0], ldeps, 0|1|2|5)
  - Split(InputColumn(FEATS, Input[0]), \\|)
  - Suffix(InputColumn(FORM, Input[0]), 3)
  - Prefix(InputColumn(LEMMA, Input[1]), 2)
  - InputColumn(POSTAG, lsib(rsib(pred(succ(Input[0])))))
  - OutputColumn(DEPREL, thead(Input[0]))
"""

#: CoNLL lines with what the example treebank lacks: features, PHEAD/PDEPREL, comments
RICH_CONLLX = (b"# a comment\n"
               b"1\tDogs\tdog\tNOUN\tNNS\tNumber=Plur|Case=Nom\t2\tnsubj\t2\tnsubj\n"
               b"2\tbark\tbark\tVERB\tVBP\tMood=Ind\t0\troot\t0\troot\n"
               b"3\tloudly\tloudly\tADV\tRB\t_\t2\tadvmod\t1\tdep\n\n")
#: a discontinuous sentence and a plain one (export format 4, a secondary edge, punctuation on the root)
EXPORT_TEXT = (b"%% word\tlemma\ttag\tmorph\tedge\tparent\tsecedge\n"
               b"#BOS 7 %% a comment\n"
               b"Gelezen\tlezen\tww\tWW(vd)\thd\t501\nheeft\thebben\tww\tWW(pv)\thd\t502\n"
               b"hij\thij\tvnw\tVNW()\tsu\t502\tsu\t501\nboeken\tboek\tn\tN(mv)\tobj1\t501\n"
               b".\t.\tlet\tLET()\t--\t0\n#501\t--\tPPART\t--\tvc\t502\n#502\t--\tSMAIN\t--\t--\t0\n"
               b"#EOS 7\n#BOS 8\nJa\tja\ttsw\tTSW()\t--\t0\n#EOS 8\n")

#: discontinuous trees in disco-dop's bracketed form (a gap, a unary, escaped brackets, a one-word tree)
DISCBRACKET_TEXT = (b"(ROOT (SMAIN (PPART (ww 0=Gelezen) (n 3=boeken)) (ww 1=heeft) (vnw 2=hij)) (let 4=.))\n"
                    b"(ROOT (NP (NP (n 0=-LRB-a-RRB-)) (adj 1=\xc3\xa9t\xc3\xa9)))\n(ROOT (tsw 0=Ja))\n")

RICH_CONLLU = (b"# text = Don't go\n1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
               b"1\tDo\tdo\tAUX\tVBP\tMood=Ind\t3\taux\t3:aux\t_\n"
               b"2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t3:advmod\tSpaceAfter=No\n"
               b"3\tgo\tgo\tVERB\tVB\t_\t0\troot\t0:root\t_\n"
               b"3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t3:conj\t_\n\n")


class FuzzFailure(AssertionError):
    """An invariant broken without an exception (output that does not read back)."""


#: labels for the compiled reader's check (one not ASCII)
CHECK_LABELS = ("nsubj", "root", "obj", "dép")


def _check_tree(n: int, i: int):
    """A made-up head and label for word i of n (anything works: the writer must copy it)."""
    return (i * 7 + n) % (n + 1), (i * 3 + n) % len(CHECK_LABELS)


def check_compiled_reader(data: bytes, fmt: str, expected, block_size: int) -> None:
    """The compiled reader and writer (maltpy.formats.scan) against the Python ones: the same
    error message, or the same output bytes for the same trees. ``expected``: the Python
    reader's sentences, or its error message."""
    scanner = Scanner(fmt, "<input>")
    out = io.BytesIO()
    writer = OrderedOutput(out)
    label_bytes = [label.encode("utf-8") for label in CHECK_LABELS]
    try:
        for chunk in read_chunks(io.BytesIO(data), scanner, block_size):
            heads, labels = [], []
            for n in chunk.lengths():
                heads.append(-1)
                labels.append(-1)
                for i in range(1, n + 1):
                    h, l = _check_tree(n, i)
                    heads.append(h)
                    labels.append(l)
            writer.write(chunk, chunk.render(np.array(heads, dtype=np.int32), np.array(labels, dtype=np.int32),
                                             label_bytes))
        writer.close()
    except MaltpyError as e:
        if str(e) != expected:
            raise FuzzFailure(f"the compiled reader says {str(e)!r}, the Python reader {expected!r}")
        return
    if isinstance(expected, str):
        raise FuzzFailure(f"the compiled reader accepts what the Python reader refuses ({expected})")
    trees = []
    for s in expected:
        n = len(s)
        pairs = [_check_tree(n, i) for i in range(1, n + 1)]
        trees.append(s.with_tree([h for h, _ in pairs], [CHECK_LABELS[l] for _, l in pairs]))
    if out.getvalue() != format_sentences(trees).encode("utf-8"):
        raise FuzzFailure("the compiled writer wrote other bytes than the Python writer")


def _error_line(message: str) -> int:
    """The line an InputFormatError's message names (``path:line: ...``)."""
    return int(message.split(": ", 1)[0].rsplit(":", 1)[1])


class Harness:
    """The targets with their models, trained once on the example treebank's first sentences."""

    def __init__(self, n_sentences: int = 30):
        self.gold = read_conll(TRAIN, "conllx", need_heads=True)[:n_sentences]
        self.train_sample = self.gold[:8]
        self.parsers = []
        self.model_bytes = []
        self.tmp = tempfile.mkdtemp(prefix="maltpy-fuzz-")
        atexit.register(shutil.rmtree, self.tmp, True)    # the scratch files go with the process
        for settings in [{"algorithm": a} for a in ALGORITHMS] + VARIANTS:
            p = Parser(verbose=False, jobs=1, **settings).fit(self.gold, fmt="conllx")
            path = os.path.join(self.tmp, "m.mpz")
            p.save(path)
            with open(path, "rb") as f:
                self.model_bytes.append(f.read())
            self.parsers.append(p)
        self.feature_texts = []
        for p in self.parsers[:len(ALGORITHMS)]:
            if p.feature_text not in self.feature_texts:
                self.feature_texts.append(p.feature_text)
        from maltpy.formats.ptb import parse_ptb
        from maltpy.parsing.constituent import fit_constituent_parser
        self.constituent_parser = fit_constituent_parser(Parser(verbose=False, jobs=1),
                                                         parse_ptb(PTB_TREES.decode("utf-8"), "<seed>"))
        self.model_path = os.path.join(self.tmp, "fuzzed.mpz")
        self.features_path = os.path.join(self.tmp, "fuzzed.yaml")
        self.cli_dir = os.path.join(self.tmp, "cli")
        self._cli_files = self._write_cli_files()
        self._pipeline = None     # the tag target's, learned when first used
        self._bytes_of_pipeline = None

    def _write_cli_files(self) -> dict:
        """The scratch directory of the ``cli`` target: name -> content (restored after every case)."""
        with open(TRAIN, "rb") as f:
            treebank = f.read()
        sample = b"\n\n".join(treebank.split(b"\n\n")[:8]) + b"\n\n"
        files = {"train.conll": sample, "test.conll": b"\n\n".join(treebank.split(b"\n\n")[8:12]) + b"\n\n",
                 "train.conllu": RICH_CONLLU, "m.mpz": self.model_bytes[ALGORITHMS.index("nivreeager")],
                 "u.mpz": self.model_bytes[len(ALGORITHMS) + VARIANTS.index(
                     {"algorithm": "covnonproj", "undirected": "label"})],
                 "conf.yaml": b"model: c.mpz\nlearn_input: train.conll\nparse_input: test.conll\n"
                              b"algorithm: nivreeager\nfeatures: feats.yaml\n",
                 "feats.yaml": RICH_FEATURES.encode("utf-8"), "feats.xml": MALT_XML_FEATURES,
                 "wsj.mrg": PTB_TREES,
                 "opts.xml": b'<?xml version="1.0"?>\n<experiment><optioncontainer>\n<optiongroup groupname="config">'
                             b'<option name="name" value="m.mpz"/></optiongroup>\n<optiongroup groupname="input">'
                             b'<option name="infile" value="test.conll"/></optiongroup></optioncontainer></experiment>\n'}
        os.makedirs(self.cli_dir, exist_ok=True)
        for name, content in files.items():
            with open(os.path.join(self.cli_dir, name), "wb") as f:
                f.write(content)
        return files

    # --------------------------------------------------------------- targets
    def conll(self, data: bytes) -> None:
        """Read ``data[1:]`` as CoNLL; bit 0 of ``data[0]`` picks the format, bit 1 gold trees."""
        if not data:
            return
        fmt = "conllu" if data[0] & 1 else "conllx"
        need_heads = bool(data[0] & 2)
        try:
            sentences = read_conll(io.BytesIO(data[1:]), fmt, need_heads=need_heads)
        except MaltpyError as e:
            if not need_heads:
                check_compiled_reader(data[1:], fmt, str(e), 1 + 7 * (data[0] >> 2))
            return
        if not need_heads:
            check_compiled_reader(data[1:], fmt, sentences, 1 + 7 * (data[0] >> 2))
        text = format_sentences(sentences)
        again = parse_conll(text, fmt, "<written>", need_heads=need_heads)
        if [s.to_lines() for s in again] != [s.to_lines() for s in sentences]:
            raise FuzzFailure("sentences written by maltpy read back differently")

    def features(self, data: bytes) -> None:
        """Train with ``data[1:]`` as the feature-model file, then parse; ``data[0]`` picks the algorithm."""
        if not data:
            return
        with open(self.features_path, "wb") as f:
            f.write(data[1:])
        algorithm = ALGORITHMS[data[0] % len(ALGORITHMS)]
        try:
            p = Parser(algorithm=algorithm, features=self.features_path, verbose=False, jobs=1)
            p.fit(self.train_sample, fmt="conllx")
        except MaltpyError:
            return
        self._check_parses(p, self.train_sample)

    def model(self, data: bytes) -> None:
        """Load a model built from ``data`` (see the module docstring) and parse with it."""
        if not data:
            return
        mode, rest = data[0] % 4, data[1:]
        base = self.model_bytes[data[0] // 4 % len(self.model_bytes)]
        if mode == 0:
            blob = rest
        elif mode == 1:
            blob = _replace_member(base, HEADER, rest)
        elif mode == 2:
            blob = _replace_array(base, rest)
        else:
            blob = _replace_member(base, HEADER, _mutate_header(base, rest))
        with open(self.model_path, "wb") as f:
            f.write(blob)
        try:
            p = Parser.load(self.model_path)
        except MaltpyError:
            return
        json.dumps(p.describe())    # what maltpy info shows of a model that loads: plain data
        self._check_parses(p, self.gold[:10])

    def parse(self, data: bytes) -> None:
        """Parse ``data[1:]`` as CoNLL-X with the model ``data[0]`` picks (train on it when bits 6-7 are set)."""
        if not data:
            return
        p = self.parsers[(data[0] & 0x3F) % len(self.parsers)]
        try:
            if data[0] >> 6 == 3:
                sentences = read_conll(io.BytesIO(data[1:]), "conllx", need_heads=True)
                p = Parser(p.settings).fit(sentences, fmt="conllx")
            else:
                sentences = read_conll(io.BytesIO(data[1:]), "conllx")
        except MaltpyError:
            return
        self._check_parses(p, sentences)

    def cli(self, data: bytes):
        """Run ``maltpy`` with the lines of ``data`` as its arguments (see the module docstring);
        its exit status (None: not run)."""
        argv = data.decode("utf-8", "replace").split("\n")
        if any(os.sep in a or "\\" in a or a.startswith(("~", "..")) or "dask" in a or "\x00" in a for a in argv):
            return None   # could reach outside the scratch directory (or start a cluster)
        try:
            return self._run_maltpy(argv)
        finally:
            self._restore_cli_dir()

    def config(self, data: bytes):
        """``data`` as the configuration file of ``maltpy -c conf.yaml -m learn``, then ``-m parse``;
        the last exit status (None: not run)."""
        if any(c in data for c in (b"/", b"\\", b"..", b"~", b"!", b"dask")):
            return None   # a path (or an escape, a tag) that could reach outside the scratch directory
        try:
            with open(os.path.join(self.cli_dir, "conf.yaml"), "wb") as f:
                f.write(data)
            status = self._run_maltpy(["-c", "conf.yaml", "-m", "learn", "-q"])
            return self._run_maltpy(["-c", "conf.yaml", "-m", "parse", "-q"]) if status == 0 else status
        finally:
            self._restore_cli_dir()

    def _run_maltpy(self, argv) -> int:
        """``maltpy ARGV`` in the scratch directory, stdin and stdout in memory: its status, which
        must be 0 or 2 (usage); maltpy's own errors raise (``--debug``), so do bugs."""
        from maltpy.cli.main import main
        here = os.getcwd()
        stdin = io.TextIOWrapper(io.BytesIO(self._cli_files["test.conll"]), encoding="utf-8")
        stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        old_in, old_out = sys.stdin, sys.stdout
        try:
            os.chdir(self.cli_dir)
            sys.stdin, sys.stdout = stdin, stdout
            with contextlib.redirect_stderr(io.StringIO()):
                try:
                    status = main(list(argv) + ["--debug"])   # --debug: a bug raises instead of printing one line
                except SystemExit as e:                       # argparse: --help (0) or a usage error (2)
                    status = e.code
        finally:
            sys.stdin, sys.stdout = old_in, old_out
            os.chdir(here)
        if status not in (0, 2):
            raise FuzzFailure(f"maltpy {' '.join(argv)!r} ended with status {status!r}")
        return status

    def _restore_cli_dir(self) -> None:
        for name in os.listdir(self.cli_dir):
            if name not in self._cli_files:
                path = os.path.join(self.cli_dir, name)
                shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
        for name, content in self._cli_files.items():
            with open(os.path.join(self.cli_dir, name), "wb") as f:
                f.write(content)

    def api(self, data: bytes) -> None:
        """Sentences built through the Python API from ``data`` (see the module docstring), trained
        on (one case in four) and parsed."""
        draw = _Draw(data)
        sentences = []
        for _ in range(1 + draw.int(3)):
            n = draw.pick([1, 2, 3, 4, 5, 7, 0, 1 + draw.int(40)])
            # each choice is usually a good value and sometimes any value, so that most cases get as
            # far as training and parsing
            forms = [draw.odd(["dog", "bark", "."], _API_STRINGS) for _ in range(n)]
            tags = draw.pick([None, [draw.odd(["NN", "VB"], _API_STRINGS) for _ in range(n)]] * 3
                             + [["NN"] * (n + 1)])
            s = Sentence.from_words(forms, postags=tags)
            heads = random.Random(draw.int(256)).choice(_api_trees(n))
            for _ in range(draw.pick([0, 0, 0, 1, 2])):
                k = draw.int(n)
                if heads:
                    heads[k] = draw.pick(_api_heads(n, k))
            heads = heads + [1] * draw.pick([0] * 8 + [1]) if n else heads
            labels = [draw.odd(["root", "nsubj", "obj"], _API_LABELS) for _ in range(n + draw.pick([0] * 8 + [-1]))]
            sentences.append(s.with_tree(heads, labels))
        if draw.int(4) == 0:
            algorithm = ALGORITHMS[draw.int(len(ALGORITHMS))]
            parser = maltpy.train(sentences, algorithm=algorithm, verbose=False, jobs=1)
        else:
            parser = self.parsers[draw.int(len(self.parsers))]
        if draw.int(2):
            sentences = [s.forms for s in sentences]   # lists of words are sentences too
        self._check_parses(parser, sentences if draw.int(3) else tuple(sentences))

    # --------------------------------------------------------------- helpers
    def _check_parses(self, parser: Parser, sentences) -> None:
        """Parse; every output must be a tree over the input's words that reads back as gold."""
        try:
            parsed = parser.parse(sentences)
        except MaltpyError:
            return
        for before, after in zip(sentences, parsed):
            if after.forms != [str(w) for w in getattr(before, "forms", before)]:
                raise FuzzFailure("parsing changed the words")
        written = format_sentences(parsed)
        again = parse_conll(written, parser.format, "<parsed>", need_heads=True)
        if len(again) != len(sentences):
            raise FuzzFailure("parsed output has a different number of sentences")
        sentences = parsed   # the Python path's input as Sentence objects
        if unsupported(parser) is None and sentences:
            # the compiled path (maltpy -m parse) must write the same bytes, whatever the chunking
            text = format_sentences(sentences).encode("utf-8")
            compiled = parse_bytes(parser, text, parser.format, block_size=1 + len(text) % 251,
                                   jobs=1 + len(text) % 2)
            if compiled != written.encode("utf-8"):
                raise FuzzFailure("the compiled parse path wrote other bytes than the Python path")
        if parser.weights().linear and sentences:
            # a beam over the same model (raw sums or log-probabilities) gives trees too
            saved = parser.settings.beam_width, parser.settings.beam_scores
            parser.settings.beam_width = 3
            parser.settings.beam_scores = ("sum", "local")[len(sentences) % 2]
            try:
                beamed = parser.parse(sentences)
            except MaltpyError:
                beamed = []
            finally:
                parser.settings.beam_width, parser.settings.beam_scores = saved
            for before, after in zip(sentences, beamed):
                if after.forms != before.forms or not _is_tree(after.heads):
                    raise FuzzFailure("a beam's parse is not a tree over the input's words")
        if parser.weights().linear and parser.settings.direction == "ltr" and sentences:
            # kept scores (Covington's Right[i] features) and the scores remembered per word (its
            # Left[i] features) must decide as scores computed afresh
            model, corpus = parser.search_model(), parser.encode(sentences)
            kept = parse_sequential(model.step(corpus.max_n), corpus)
            fresh = parse_sequential(model.step(corpus.max_n, Scoring.KEPT_AFRESH), corpus)
            if any(a.tolist() != b.tolist() for a, b in zip(kept, fresh)):
                raise FuzzFailure("kept scores decided otherwise than scores computed afresh")

    def export(self, data: bytes) -> None:
        """Read ``data[1:]`` as export (``data[0]`` % 3: no header line, ``#FORMAT 3`` or
        ``#FORMAT 4`` before it) by both readers; decode its trees by both writers."""
        from maltpy.formats.export import ExportFile, encode_discontinuous, format_export, parse_export
        from maltpy.parsing.discontinuous import (DiscontinuousReduction, UnaryRules, batch_columns, export_input,
                                                  read_export_input, to_export)
        if not data:
            return
        text = [b"", b"#FORMAT 3\n", b"#FORMAT 4\n"][data[0] % 3] + data[1:]
        try:
            fast = read_export_input(io.BytesIO(text))
        except MaltpyError:
            fast = None
        try:
            doc = parse_export(text.decode("utf-8"))
        except (MaltpyError, UnicodeDecodeError):
            if fast is not None:
                raise AssertionError("the compiled reader read what parse_export refuses")
            return
        if fast != export_input(doc.sentences) + (doc.version,):
            raise AssertionError("the compiled reader and parse_export read different words")
        words_tags, keys, lemmas, morphs, version = fast
        encoded = [encode_discontinuous(t) for t in doc.sentences]
        names = sorted({x for _, labels in encoded for x in labels})
        offsets, heads, label_ids = [0], [], []
        for h, labels in encoded:
            heads += [-1] + h
            label_ids += [0] + [names.index(x) for x in labels]
            offsets.append(len(heads))
        unary = UnaryRules.learn(doc.sentences)
        reduction = DiscontinuousReduction(None, unary)
        compiled = reduction.rows_text(
            np.array(offsets), np.array(heads, dtype=np.int32), np.array(label_ids, dtype=np.int32), names,
            batch_columns(reduction.column_batch(words_tags, lemmas, morphs)), keys, version)
        from maltpy.formats.export import decode_discontinuous
        trees = [unary.apply(decode_discontinuous(list(w), list(t), h, lab, key, [to_export(v) for v in lem],
                                                  [to_export(v) for v in mor]))
                 for (w, t), (h, lab), key, lem, mor in zip(words_tags, encoded, keys, lemmas, morphs)]
        if compiled != format_export(ExportFile(trees, version)).encode("utf-8"):
            raise AssertionError("the compiled and the Python decoders write different export text")

    def discbracket(self, data: bytes) -> None:
        """Read ``data`` as discbracket trees (one a line): accepted trees write back to the same
        lines, go to export and back to the same trees, and encode and decode (with the unaries
        kept apart) back to them."""
        from maltpy.formats.export import (ExportFile, decode_discontinuous, encode_discontinuous, format_discbracket,
                                           format_export, parse_export, read_discbracket, same_trees)
        from maltpy.parsing.discontinuous import UnaryRules
        doc = read_discbracket(io.BytesIO(data))
        written = format_discbracket(doc)
        again = read_discbracket(io.BytesIO(written.encode("utf-8", "surrogatepass")))
        if format_discbracket(again) != written or not all(same_trees(a, b) for a, b in zip(doc.sentences,
                                                                                          again.sentences)):
            raise FuzzFailure("discbracket trees do not read back as written")
        exported = parse_export(format_export(ExportFile(doc.sentences)), "<written>")
        if not all(same_trees(a, b) for a, b in zip(doc.sentences, exported.sentences)):
            raise FuzzFailure("discbracket trees change through export")
        # the compiled reader of -m parse reads the same words and tags, or leaves the file to Python
        from maltpy.formats.discbracketio import discbracket_export, export_discbracket
        fast = discbracket_export(data, 3 if data.startswith(b"\xef\xbb\xbf") else 0)
        if fast is not None and [(s.key, [(x.word, x.tag) for x in s.tokens]) for s in
                                 parse_export(fast.decode("utf-8"), "<compiled>").sentences] != \
                [(s.key, [(x.word, x.tag) for x in s.tokens]) for s in doc.sentences]:
            raise AssertionError("the compiled discbracket reader reads other words or tags")
        # ... and its writer writes the same lines of the export text, or leaves it to Python
        for version in (3, 4):
            back = export_discbracket(format_export(ExportFile(doc.sentences, version)).encode("utf-8"), version)
            if back is not None and back.decode("utf-8") != written:
                raise AssertionError("the compiled discbracket writer writes other lines")
        unary = UnaryRules.learn(doc.sentences)
        for t in doc.sentences:
            heads, labels = encode_discontinuous(t)
            words = [x.word for x in t.tokens]
            tags = [x.tag for x in t.tokens]
            back = unary.apply(decode_discontinuous(words, tags, heads, labels, t.key))
            if [x.word for x in back.tokens] != words:
                raise FuzzFailure("encoding and decoding changed the words")

    def _disc_parser(self):
        """A covnonproj discontinuous parser learned from the export and discbracket seeds."""
        if getattr(self, "_disc", None) is None:
            from maltpy.formats.export import parse_export, read_discbracket_text
            from maltpy.parsing.discontinuous import fit_discontinuous_parser
            trees = parse_export(EXPORT_TEXT.decode("utf-8")).sentences + \
                read_discbracket_text(DISCBRACKET_TEXT.decode("utf-8")).sentences
            self._disc = fit_discontinuous_parser(Parser(algorithm="covnonproj", verbose=False, jobs=1), trees * 3)
        return self._disc

    def discparse(self, data: bytes) -> None:
        """Parse ``data[2:]`` with a discontinuous parser (bit 0 of ``data[0]``: discbracket in, else
        export; bit 1: discbracket out), the file read whole and in pieces of ``1 + data[1]``
        bytes: the same bytes or the same error; what is written holds the input's words."""
        from maltpy.formats.export import parse_export, read_discbracket_text
        if len(data) < 2:
            return
        parser = self._disc_parser()
        if data[0] & 4:
            return self._disc_conll(parser, data)
        in_fmt = "discbracket" if data[0] & 1 else "export"
        out_fmt = "discbracket" if data[0] & 2 else "export"
        out = os.path.join(self.tmp, "disc.out")

        def run(piece_size):
            source = io.BytesIO(data[2:])
            source.name = "<fuzzed>"
            try:
                parser.reduction.parse_pieces(parser, source, out, in_fmt, out_fmt, piece_size=piece_size)
            except MaltpyError as e:
                if os.path.exists(out):
                    raise FuzzFailure("an error left an output file")
                return str(e)
            with open(out, "rb") as f:
                written = f.read()
            os.remove(out)
            return written
        whole, pieces = run(1 << 30), run(1 + data[1])
        if pieces != whole and not (isinstance(whole, str) and isinstance(pieces, str) and "invalid UTF-8" in whole
                                    and _error_line(pieces) <= _error_line(whole)):
            # invalid UTF-8 is found a piece at a time: an earlier piece's error on an earlier line comes first
            raise FuzzFailure("a file parsed in pieces is not the file parsed whole")
        if isinstance(whole, bytes):
            def read(text, fmt):
                doc = parse_export(text, "<t>") if fmt == "export" else read_discbracket_text(text, "<t>")
                return [[_as_discbracket_holds(t.word) if out_fmt == "discbracket" else t.word for t in s.tokens]
                        for s in doc.sentences]
            if read(whole.decode("utf-8"), out_fmt) != read(data[2:].decode("utf-8"), in_fmt):
                raise FuzzFailure("the parsed trees are not over the input's words")

    def _disc_conll(self, parser, data: bytes) -> None:
        """CoNLL-U words (``data[2:]``) parsed by a discontinuous parser (bit 1 of ``data[0]``:
        discbracket out, else export): trees over the input's words, or a one-line error and
        no output file."""
        from maltpy.formats.conll import parse_conll
        from maltpy.formats.export import parse_export, read_discbracket_text
        out_fmt = "discbracket" if data[0] & 2 else "export"
        out = os.path.join(self.tmp, "disc_conll.out")
        source = io.BytesIO(data[2:])
        source.name = "<fuzzed>"
        try:
            parser.parse_file(source, out, "conllu", out_fmt)
        except MaltpyError as e:
            if os.path.exists(out):
                raise FuzzFailure("an error left an output file")
            if "\n" in str(e).strip():
                raise FuzzFailure("an error of more than one line")
            return
        with open(out, "rb") as f:
            written = f.read().decode("utf-8")
        os.remove(out)
        doc = parse_export(written, "<t>") if out_fmt == "export" else read_discbracket_text(written, "<t>")
        # discbracket writes a space inside a word as _ (disco-dop's escaping), and reads it so
        words = [[_as_discbracket_holds(w) if out_fmt == "discbracket" else w for w in s.forms]
                 for s in parse_conll(data[2:].decode("utf-8"), "conllu", "<in>", need_heads=False)]
        if [[t.word for t in s.tokens] for s in doc.sentences] != words:
            raise FuzzFailure("the parsed trees are not over the input's words")

    def ptb(self, data: bytes) -> None:
        """Read ``data[1:]`` as bracketed trees (bit 0 of ``data[0]``: raw, as EVALB reads them)."""
        from maltpy.evaluation.evalb import evalb
        from maltpy.formats.ptb import format_ptb, parse_ptb, read_ptb
        from maltpy.transform.constituents import decode, encode
        from maltpy.transform.headrules import HeadRules
        if not data:
            return
        raw = bool(data[0] & 1)
        _ptb_pieces_agree(data[1:], not raw, 1 + (data[0] >> 2))
        trees = read_ptb(io.BytesIO(data[1:]), clean=not raw)
        written = format_ptb(trees)
        again = parse_ptb(written, "<written>", clean=not raw)
        if [t.to_line() for t in again] != [t.to_line() for t in trees]:
            raise FuzzFailure("bracketed trees do not read back as written")
        result = evalb(trees, again)
        if result.all.valid and result.all.f1 != 100.0 and result.all.gold_brackets:
            raise FuzzFailure("a tree does not score 100 against itself")
        if raw:
            return
        rules = HeadRules.load("collins")
        for t in trees:
            e = encode(t.tree, rules, "delta" if data[0] & 2 else "direct")
            back = decode(e.words, e.tags, e.heads, e.labels, "delta" if data[0] & 2 else "direct", unaries=e.unaries)
            if back.tree != t.tree:
                raise FuzzFailure("encoding and decoding does not give the tree back")
        p = self.constituent_parser
        src = os.path.join(self.tmp, "fuzzed.mrg")
        with open(src, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(written)
        conll = os.path.join(self.tmp, "fuzzed-words.conll")
        from maltpy.parsing.constituent import tree_rows
        with open(conll, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(format_sentences(Sentence(tree_rows(t.tree.words(), t.tree.tags())) for t in trees))
        outputs = []
        for path in (src, conll):
            out = os.path.join(self.tmp, "fuzzed-out.mrg")
            p.parse_file(path, out, None, "ptb")
            with open(out, encoding="utf-8", errors="surrogatepass") as f:
                outputs.append(f.read())
        parsed = parse_ptb(outputs[0], "<parsed>", clean=False)
        if [len(t) for t in parsed] != [len(t) for t in trees]:
            raise FuzzFailure("a constituent parse has other words than its input")
        if [x.tree.to_string() for x in parsed] != [x.tree.to_string() for x in parse_ptb(outputs[1], "<p>", False)]:
            raise FuzzFailure("the compiled (CoNLL) and Python (.mrg) constituent paths differ")

    def _tag_pipeline(self):
        """A tokenizer, tagger (an ensemble of two) and parser learned once from the example
        treebank's sentences as CoNLL-U with their text (the ``tag`` target's model)."""
        if self._pipeline is None:
            lines = []
            for s in self.gold:
                lines.append("# text = " + " ".join(s.forms))
                lines += ["\t".join(r[:8] + ["_", "_"]) for r in s.rows]
                lines.append("")
            path = os.path.join(self.tmp, "tag-train.conllu")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            # an ensemble of two taggers: its members' passes, one of them right to left, are fuzzed
            # too, and the margin by which the first settles the words it is sure of
            self._pipeline = maltpy.train(path, tagger="all", tokenizer=True, tagger_epochs=2, input_format="conllu",
                                          verbose=False, jobs=1, tagger_ensemble=2, ensemble_margin=1.0)
        return self._pipeline

    def _pipeline_bytes(self):
        """The tag target's model file as bytes, and each of its components' bytes."""
        if self._bytes_of_pipeline is None:
            pipeline = self._tag_pipeline()
            self._bytes_of_pipeline = pipeline.to_bytes(), [c.to_bytes() for c in pipeline.components]
        return self._bytes_of_pipeline

    def tag(self, data: bytes) -> None:
        """``data[1:]`` through the tokenizer, tagger and parser; bits 0-2 of ``data[0]`` (modulo 5)
        pick the input format (CoNLL-U, CoNLL-X, horizontal, vertical, raw text), bit 3 tagging
        only, bit 4 two threads, bits 5-7 (modulo 3) the output: CoNLL or the words, horizontal or
        vertical. Refused input leaves no output; accepted input comes out as CoNLL that reads
        back (with a tree unless only tagged), or as words that read back, and CoNLL input as the
        Python path writes it."""
        from maltpy.components import Pipeline, TaggerComponent, TokenizerComponent
        if not data:
            return
        fmt = ("conllu", "conllx", "horizontal", "vertical", "text")[(data[0] & 7) % 5]
        tag_only, jobs = bool(data[0] & 8), 2 if data[0] & 16 else 1
        words_fmt = (None, "horizontal", "vertical")[(data[0] >> 5) % 3]
        pipeline = self._tag_pipeline()
        runner = Pipeline([c for c in pipeline.components if isinstance(c, (TokenizerComponent, TaggerComponent))]) \
            if tag_only else pipeline
        src, out = os.path.join(self.tmp, "tag-in"), os.path.join(self.tmp, "tag-out")
        with open(src, "wb") as f:
            f.write(data[1:])
        if os.path.exists(out):
            os.remove(out)
        try:
            runner.parse_file(src, out, fmt, output_format=words_fmt, jobs=jobs)
        except MaltpyError:
            if os.path.exists(out):
                raise FuzzFailure("refused input left an output file")
            return
        with open(out, "rb") as f:
            written = f.read()
        if words_fmt is not None:
            read_back = _plain_words(written, words_fmt)
            if read_back is None:
                raise FuzzFailure("the words written do not read back")
            if fmt in ("conllu", "conllx"):    # the words of the Python path's sentences, written here
                done = _python_path(pipeline, src, fmt, tag_only)
                if read_back != _plain_words(_plain_text([s.forms for s in done], words_fmt), words_fmt):
                    raise FuzzFailure("the words written are not the words of the Python path's sentences")
            return
        out_fmt = "conllx" if fmt == "conllx" else "conllu"
        again = parse_conll(written.decode("utf-8", "surrogatepass"), out_fmt, "<tagged>", need_heads=not tag_only)
        if fmt in ("conllu", "conllx"):
            done = _python_path(pipeline, src, fmt, tag_only)
            if format_sentences(done).encode("utf-8", "surrogatepass") != written:
                raise FuzzFailure("the compiled tagging path wrote other bytes than the Python path")
            if len(again) != len(done):
                raise FuzzFailure("the output has another number of sentences than the input")

    def pipeline_model(self, data: bytes) -> None:
        """A model file of a tokenizer, tagger and parser (the ``tag`` target's) with one
        component's bytes damaged: ``data[0]`` % 3 picks the component, bit 2 how (its JSON header
        with values replaced, seeded by ``data[1:]``; or ``data[1:]`` as ``NAME\\n`` + the raw
        ``.npy`` bytes of its array NAME). A file that loads tags and parses words and raw text
        into CoNLL-U that reads back; else maltpy's one-line error."""
        if not data:
            return
        whole, parts = self._pipeline_bytes()
        k = data[0] % 3
        damaged = _replace_array(parts[k], data[1:]) if data[0] & 4 else \
            _replace_member(parts[k], HEADER, _mutate_header(parts[k], data[1:]))
        whole = _replace_member(whole, f"arrays/component{k}.npy", _npy(np.frombuffer(damaged, np.uint8)))
        path = os.path.join(self.tmp, "pipeline.mpz")
        with open(path, "wb") as f:
            f.write(whole)
        try:
            loaded = maltpy.load(path)
            words = [Sentence([r[:2] + ["_"] * 8 for r in s.rows], format="conllu") for s in self.gold[:6]]
            parsed = loaded.parse(words) + loaded.parse_text("Two dogs barked. A cat, it slept!")
        except MaltpyError as e:
            if "\n" in str(e):
                raise FuzzFailure(f"an error of more than one line: {e!r}")
            return
        again = parse_conll(format_sentences(parsed), "conllu", "<parsed>", need_heads=True)
        if len(again) < len(words):
            raise FuzzFailure("parsed output has fewer sentences than the input")

    def seeds(self, target: str):
        """Valid inputs for ``target`` to start mutating from."""
        with open(TRAIN, "rb") as f:
            treebank = f.read()
        sample = b"\n\n".join(treebank.split(b"\n\n")[:4]) + b"\n\n"
        if target == "conll":
            return ([bytes([k]) + sample for k in range(4)] + [bytes([k]) + RICH_CONLLX for k in (0, 2)]
                    + [bytes([k]) + RICH_CONLLU for k in (1, 3)])
        if target == "features":
            return [bytes([k]) + t.encode("utf-8") for k, t in enumerate(self.feature_texts)] + [
                bytes([ALGORITHMS.index("nivreeager")]) + RICH_FEATURES.encode("utf-8")]
        if target == "model":
            out = []
            for k, blob in enumerate(self.model_bytes):
                with zipfile.ZipFile(io.BytesIO(blob)) as z:
                    header = z.read(HEADER)
                out += [bytes([4 * k]) + blob, bytes([4 * k + 1]) + header,
                        bytes([4 * k + 2]) + b"split_map\n" + _npy(np.zeros(3, dtype=np.int32)),
                        bytes([4 * k + 3]) + k.to_bytes(4, "little")]
            return out
        if target == "parse":
            return [bytes([k]) + RICH_CONLLX for k in range(len(self.parsers))] + [bytes([k]) + sample for k in range(len(self.parsers))] + [bytes([0xC0 | k]) + sample
                                                                              for k in range(len(self.parsers))]
        if target == "ptb":
            return [bytes([k]) + PTB_TREES for k in range(4)]
        if target == "export":
            return [bytes([k]) + EXPORT_TEXT for k in range(3)]
        if target == "cli":
            # spaces break arguments; '_' stands for a space inside one
            return ["\n".join(a.replace("_", " ") for a in line.split(" ")).encode("utf-8") for line in CLI_SEEDS]
        if target == "config":
            return CONFIG_SEEDS
        if target == "discbracket":
            return [DISCBRACKET_TEXT, DISCBRACKET_TEXT.split(b"\n")[0] + b"\n"]
        if target == "discparse":
            from maltpy.formats.conll import format_sentences
            from maltpy.formats.export import parse_export, to_conll
            conll = format_sentences([to_conll(t) for t in parse_export(EXPORT_TEXT.decode("utf-8")).sentences])
            return [bytes([k, size]) + EXPORT_TEXT for k in (0, 2) for size in (10, 200)] + \
                [bytes([k, size]) + DISCBRACKET_TEXT for k in (1, 3) for size in (10, 90)] + \
                [bytes([k, 0]) + conll.encode("utf-8") for k in (4, 6)]
        if target == "pipeline_model":
            out = []
            for k, blob in enumerate(self._pipeline_bytes()[1]):
                with zipfile.ZipFile(io.BytesIO(blob)) as z:
                    names = [n[len("arrays/"):-len(".npy")] for n in z.namelist() if n.startswith("arrays/")]
                out += [bytes([k]) + k.to_bytes(4, "little"), bytes([k + 24]) + b"seed"]
                out += [bytes([k | 4]) + name.encode("utf-8") + b"\n" + _npy(np.zeros(2, dtype=np.int32))
                        for name in names[:4]]
            return out
        if target == "tag":
            words = [b" ".join(r.split(b"\t")[1] for r in block.split(b"\n") if r) for block in sample.split(b"\n\n")
                     if block.strip()]
            untagged = b"\n\n".join(b"\n".join(b"\t".join(r.split(b"\t")[:2] + [b"_"] * 8) for r in block.split(b"\n")
                                                if r) for block in sample.split(b"\n\n") if block.strip()) + b"\n\n"
            return ([bytes([k]) + untagged for k in (0, 1, 8, 17)] + [bytes([k]) + sample for k in (1, 9)]
                    + [bytes([k]) + RICH_CONLLU for k in (0, 8)]
                    + [bytes([2 + k]) + b"\n".join(words) + b"\n" for k in (0, 8, 16)]
                    + [bytes([3]) + b"\n\n".join(w.replace(b" ", b"\n") for w in words) + b"\n"]
                    + [bytes([4 + k]) + b" ".join(words) + b" Don't go! \xc3\x89t\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97.\n"
                       for k in (0, 8, 16)])
        if target == "api":
            return [bytes(rng.randrange(256) for _ in range(64)) for rng in map(random.Random, range(16))]
        raise ValueError(f"unknown target {target!r}; targets: {', '.join(TARGETS)}")


TARGETS = ("conll", "features", "model", "parse", "ptb", "export", "discbracket", "discparse", "cli", "config", "api",
           "tag", "pipeline_model")

#: seed command lines of the cli target (spaces become argument breaks)
CLI_SEEDS = [
    "-c m.mpz -m learn -i train.conll -a covnonproj -ud label -T 5 -d POSTAG -s Right[0]",
    "-c m.mpz -m learn -i train.conll -a nivreeager -bt lba+rnba -dir both -cv 2 -j 1",
    "-c m.mpz -m learn -i train.conll -a nivreeager -bt lnba -bo needed -dir rtl",
    "-c m.mpz -m learn -i train.conll -a nivreeager -bt rba+rnba -bal any",
    "-c m.mpz -m learn -i train.conll -a 2planar -pp head -lo -s_1_-c_0.5",
    "-c m.mpz -m learn -i train.conll -l perceptron -or dynamic -a covnonproj -lo -i_2",
    "-c m.mpz -m learn -i train.conllu -l libsvm", "-c m.mpz -m learn -i train.conll -F feats.yaml",
    "-c m.mpz -m learn -i wsj.mrg -hr leftmost -ce direct",
    "-c m.mpz -i test.conll -o out.conll -j 2",
    "-c u.mpz -of conllx",
    "-c conf.yaml -m learn",
    "-c m.mpz -m proj -i train.conll -o p.conll -pp path",
    "eval train.conll train.conll --undirected --differing 2",
    "eval train.conll train.conll --report r.html --no-plots",
    "combine train.conll train.conll --criterion length --param 3 -o c.conll",
    "draw train.conll --gold train.conll --sentence 2 -o d.html",
    "convert-features feats.xml -o f.yaml",
    "fragmentation m.mpz train.conll",
    "info u.mpz --json", "info m.mpz --features",
    "experiment train.conll -a nivreeager --holdout 0.25 -j 1",
    "--help",
]

#: seed configuration files of the config target (MaltParser's long names among maltpy's)
CONFIG_SEEDS = [
    b"model: c.mpz\nlearn_input: train.conll\nparse_input: test.conll\noutput: out.conll\n",
    b"config: c.mpz\ninfile: train.conll\nparse_input: test.conll\nparsing_algorithm: covnonproj\nundirected: label\n"
    b"data_split_column: POSTAG\ndata_split_structure: Right[0]\ndata_split_threshold: 5\n",
    b"model: c.mpz\nlearn_input: train.conll\nparse_input: test.conll\nalgorithm: nivreeager\n"
    b"buffer_transitions: lba+rnba\ndirection: both\ncombination_folds: 2\nfeatures: feats.yaml\n",
    b"model: c.mpz\nlearn_input: train.conll\nalgorithm: stackproj\nlearner: libsvm\n"
    b"lib_options: -s 0 -t 1 -d 2\nmarking_strategy: head\nnull_value: rootnode\n",
    b"model: c.mpz\nlearn_input: wsj.mrg\nparse_input: wsj.mrg\nhead_rules: leftmost\n"
    b"constituent_encoding: direct\njobs: 1\n",
    b"model: c.mpz\nlearn_input: train.conllu\nparse_input: train.conllu\noutput_format: conllx\n"
    b"learner: perceptron\noracle: dynamic\nalgorithm: covnonproj\nlearner_options: -i 2\n",
]

#: a small MaltParser XML feature model (written for maltpy's tests)
MALT_XML_FEATURES = b"""<?xml version="1.0" encoding="UTF-8"?>
<featuremodels>
  <featuremodel name="nivreeager">
    <feature>InputColumn(POSTAG, Stack[0])</feature>
    <feature>InputColumn(POSTAG, Input[0])</feature>
    <feature>OutputColumn(DEPREL, ldep(Input[0]))</feature>
    <feature>Merge(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))</feature>
  </featuremodel>
</featuremodels>
"""

#: seed trees of the ptb target (written for maltpy): wrappers, function tags, -NONE-, unary chains
PTB_TREES = b"""( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP-LOC (IN on) (NP (DT the) (NN mat)))) (. .)) )
( (S (NP-SBJ-1 (PRP She)) (VP (VBZ wants) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB go))))) (. .)) )
(TOP (S (NP (NNS Dogs)) (VP (VBP bark) (ADVP (RB loudly)))))
( (FRAG (NP (NN Tea)) (, ,) (ADJP (RB very) (JJ hot)) (. !)) )
( (S (S (NP (PRP I)) (VP (VBD came))) (CC and) (S (NP (PRP you)) (VP (VBD left))) (. .)) )
( (NP (NP (CD 3) (NNS years)) (PP (IN of) (NP (NN work)))) )
"""


def _npy(arr) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _replace_member(blob: bytes, name: str, content: bytes) -> bytes:
    """The zip ``blob`` with member ``name`` holding ``content`` (checksums made valid)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(blob)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, content if info.filename == name else src.read(info.filename))
    return out.getvalue()


_ODD_VALUES = [None, True, False, 0, -1, 1, 2, 2 ** 31, 2 ** 64, -2 ** 63, 0.5, float("inf"), float("nan"),
               "", "bogus", "\t", "ROOT", [], [None], ["x"], [1, 2], {}, {"a": 1}]


def _mutate_header(blob: bytes, seed: bytes) -> bytes:
    """The model's JSON header with 1-3 values (at any depth) replaced, removed or shortened."""
    rng = random.Random(seed)
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        header = json.loads(z.read(HEADER))
    for _ in range(rng.randint(1, 3)):
        parent, key = header, rng.choice(list(header))
        while isinstance(parent[key], (dict, list)) and parent[key] and rng.random() < 0.6:
            parent = parent[key]
            key = rng.choice(list(parent)) if isinstance(parent, dict) else rng.randrange(len(parent))
        op = rng.randrange(4)
        if op == 0 and isinstance(parent, dict):
            del parent[key]
        elif op == 1 and isinstance(parent[key], (list, str)):
            parent[key] = parent[key][:rng.randrange(len(parent[key]) + 1)]
        else:
            parent[key] = copy.deepcopy(rng.choice(_ODD_VALUES))  # a fresh list or dict, never shared
    return json.dumps(header).encode("utf-8")


def _replace_array(blob: bytes, data: bytes) -> bytes:
    """``data`` is ``NAME\\n`` + raw ``.npy`` bytes: that array (of the header's list) replaced."""
    name, _, content = data.partition(b"\n")
    name = name.decode("utf-8", "replace")
    return _replace_member(blob, f"arrays/{name}.npy", content)


# ------------------------------------------------------------------ the api target
class _Draw:
    """Choices read from fuzzer bytes one at a time (zeros once they run out), so that a mutated
    byte changes one choice."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def int(self, n: int) -> int:
        if self.pos >= len(self.data) or n <= 1:
            return 0
        self.pos += 1
        return self.data[self.pos - 1] % n

    def pick(self, options):
        return options[self.int(len(options))]

    def odd(self, usual, odd):
        """One of ``usual`` mostly, one of ``odd`` one time in 32."""
        return self.pick(odd) if self.int(32) == 0 else self.pick(usual)


_API_STRINGS = ["dog", "bark", ".", "NN", "VB", "_", "x y", "été", "a\tb", "", "\n", "#", "1", None, 3]
_API_LABELS = ["root", "nsubj", "obj", "_", "nsubj:pass", "x y", "a\tb", "", "\n", None, 0, "ROOT"]


def _as_discbracket_holds(word: str) -> str:
    """A word as discbracket writes and reads it: each white-space character ``_``."""
    return "".join("_" if c.isspace() else c for c in word)


def _python_path(pipeline, path: str, fmt: str, tag_only: bool):
    """The sentences of a CoNLL file read, tagged (and parsed unless ``tag_only``) by the Python
    path, which must accept what the compiled path accepted."""
    try:
        sentences = read_conll(path, fmt)
    except MaltpyError:
        raise FuzzFailure("the pipeline accepted input that the reader refuses") from None
    try:
        return pipeline.tag(sentences) if tag_only else pipeline.parse(sentences)
    except MaltpyError as e:
        raise FuzzFailure(f"the Python path refuses what the compiled path accepted: {e}") from None


def _plain_text(sentences, fmt: str) -> bytes:
    """Sentences' words written horizontal or vertical as UDPipe writes them, made here apart from
    maltpy's writer: a horizontal line, a space inside a word a no-break space; a word a line."""
    if fmt == "horizontal":
        text = "".join(" ".join(w.replace(" ", "\u00a0") for w in words) + "\n" for words in sentences)
    else:
        text = "".join("".join(w + "\n" for w in words) + "\n" for words in sentences)
    return text.encode("utf-8", "surrogatepass")


def _plain_words(data: bytes, fmt: str):
    """The words of each sentence of horizontal or vertical ``data`` as maltpy reads them; None
    when it refuses them."""
    from maltpy.formats.plain import iter_plain
    try:
        return [s.forms for s in iter_plain(io.BytesIO(data), fmt)]
    except MaltpyError:
        return None


def _is_tree(heads) -> bool:
    """Whether ``heads`` (word i's head at i - 1, 0 the root) make a tree: every head a node, no cycle."""
    n = len(heads)
    if any(not isinstance(h, int) or not 0 <= h <= n or h == i + 1 for i, h in enumerate(heads)):
        return False
    for i in range(1, n + 1):
        seen, k = 0, i
        while k != 0:
            k = heads[k - 1]
            seen += 1
            if seen > n:
                return False
    return True


def _api_trees(n: int):
    """A few trees over n words (a chain, a star, a non-projective one)."""
    chain = [0] + list(range(1, n))
    star = [0] + [1] * (n - 1)
    crossing = [0] + [(k + 2) % n + 1 if (k + 2) % n + 1 != k + 1 else 1 for k in range(1, n)]
    return [chain[:n], star[:n], crossing[:n]] if n else [[]]


def _api_heads(n: int, k: int):
    """Heads for word k of n: every word, the root, itself, just out of range, huge, negative, odd types."""
    return list(range(n + 1)) + [k + 1, n + 1, 10 ** 6, 2 ** 63, -1, -(10 ** 6), "1", 1.0, True, None]


# ------------------------------------------------------------------ mutation
_TOKENS = [b"\t", b"\n", b"\n\n", b"_", b"0", b"-1", b"1-2", b"2.1", b"\xc2\xb9", b"\xd9\xa1", b"\r",
           b"\xef\xbb\xbf", b"\xff", b"#", b" ", b"[", b"]", b"(", b")", b",", b"Input", b"Stack",
           b"2147483648", b"99999999999999999999", b"null", b"true", b"NaN", b"Infinity", b"{", b"}",
           b"\"", b":", b"- ", b"\x00"]


def mutate(data: bytes, rng: random.Random, max_len: int = 4096) -> bytes:
    """A few random byte-level edits (flip, insert, delete, duplicate, splice in tokens)."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        pos = rng.randrange(len(buf) + 1)
        if op == 0 and buf:
            buf[min(pos, len(buf) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif op == 2:
            buf[pos:pos] = rng.choice(_TOKENS)
        elif op == 3 and buf:
            del buf[pos:pos + rng.randint(1, 16)]
        elif op == 4 and buf:
            start = rng.randrange(len(buf))
            buf[pos:pos] = buf[start:start + rng.randint(1, 64)]
        elif op == 5 and buf:  # keep the target's selector byte, change only what it selects
            buf[0] = rng.randrange(256)
    return bytes(buf[:max_len])


def _cli_vocabulary():
    from maltpy.config import FLAGS, choices
    words = list(FLAGS) + ["-c", "-m", "-j", "-q", "-v", "--help", "learn", "parse", "proj", "deproj",
                           "convert", "eval", "combine", "draw", "convert-features", "fragmentation",
                           "experiment", "info", "--features", "--json", "--undirected", "--constituents", "--compare", "--rounds",
                           "--report", "--plots", "--no-plots", "--no-punct", "--differing", "--criterion",
                           "--param", "--first", "--gold", "--sentence", "--limit", "--errors", "--old",
                           "--new", "--holdout", "--config", "--test", "--outputs", "-o", "-i"]
    for values in choices().values():
        words += list(values)
    words += ["m.mpz", "u.mpz", "conf.yaml", "feats.yaml", "feats.xml", "train.conll", "test.conll",
              "train.conllu", "wsj.mrg", "out.conll", "-", "", "0", "1", "2", "-1", "3", "1e9", "nan",
              "0.5", "true", "false", "Input[0]", "Stack[0]", "Right[0]", "Left[0]", "POSTAG", "FORM",
              "DEPREL", "-s 0", "-c 0.1", "-e 0.1 -B 1", "-i 2", "lba+rba", "position", "length", "ltr", "rtl"]
    # MaltParser's long names and option file
    words += ["--config-name", "--config-name=m.mpz", "--name=u.mpz", "--input-infile=train.conll", "--infile",
              "--format=conllu", "--output-format", "--lib-options", "--guide-features=feats.yaml",
              "--nivre-allow_root=false", "--config-workingdir=.", "--system-option_file", "-f", "opts.xml",
              "-f=opts.xml", "--", "off", "debug", "--system-verbosity=warn"]
    # the tagger's shipped template sets by name, and a name that is not one
    words += ["english", "default", "welsh", "--tagger-templates=english"]
    return words


_CLI_WORDS = []


def mutate_args(data: bytes, rng: random.Random) -> bytes:
    """Edits of a command line (one argument per line): arguments replaced, inserted, deleted,
    moved or changed byte by byte; the cli target's mutator for runs without atheris."""
    if not _CLI_WORDS:
        _CLI_WORDS.extend(_cli_vocabulary())
    args = data.decode("utf-8", "replace").split("\n")
    for _ in range(rng.randint(1, 3)):
        op, pos = rng.randrange(5), rng.randrange(len(args) + 1)
        if op == 0 and args:
            args[min(pos, len(args) - 1)] = rng.choice(_CLI_WORDS)
        elif op == 1:
            args.insert(pos, rng.choice(_CLI_WORDS))
        elif op == 2 and len(args) > 1:
            del args[min(pos, len(args) - 1)]
        elif op == 3 and len(args) > 1:
            i, j = rng.randrange(len(args)), rng.randrange(len(args))
            args[i], args[j] = args[j], args[i]
        elif args:
            k = min(pos, len(args) - 1)
            args[k] = mutate(args[k].encode("utf-8"), rng, 64).decode("utf-8", "replace").replace("\n", "")
    return "\n".join(args).encode("utf-8")


#: target -> its mutator for runs without atheris (the others: :func:`mutate`)
MUTATORS = {"cli": mutate_args}


def run_one(target_fn, data: bytes):
    """Run a target; return the unexpected exception (None when maltpy behaved)."""
    try:
        target_fn(data)
    except MaltpyError:
        return None
    except Exception as e:  # noqa: BLE001 - anything else is what the fuzzer looks for
        return e
    return None


def _ptb_pieces_agree(data: bytes, clean: bool, piece_size: int) -> None:
    """Bracketed trees read in pieces of ``piece_size`` bytes (``iter_ptb``) are those of the whole
    text read at once (``parse_ptb``), or the same error on the same line."""
    from maltpy.errors import InputFormatError
    from maltpy.formats.ptb import iter_ptb, parse_ptb
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return

    def outcome(read):
        try:
            return [(t.to_line(), t.wrapped, t.first_line) for t in read()]
        except InputFormatError as e:
            return (e.line, str(e))
    if outcome(lambda: iter_ptb(io.BytesIO(data), clean, piece_size)) != outcome(lambda: parse_ptb(text, "<input>", clean)):
        raise FuzzFailure("bracketed trees read in pieces differ from the whole text's")
