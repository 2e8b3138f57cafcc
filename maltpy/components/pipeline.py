"""A model file as an ordered list of components (:class:`Pipeline`), run in order.

The file is the model-file container of :mod:`maltpy.parsing.modelfile` (one zip of JSON and
``.npy`` arrays, no pickle): its header lists the components by registry name, and array
``component<k>`` holds component k's bytes. A model file written by a parser alone (every model
file before pipelines) is read as a pipeline of that one parser, and parses as before, byte for
byte, through the parser's compiled streaming path.
"""
from __future__ import annotations

import io
from typing import List, Optional, Sequence

import numpy as np

from maltpy.errors import MaltpyError, ModelFileError


#: what each run mode reads of a model file (registry names; None: every component): ``-m tag``
#: its tokenizer (for raw text) and taggers, ``-m tokenize`` its tokenizer
MODE_COMPONENTS = {"parse": None, "tag": ("tokenizer", "tagger"), "tokenize": ("tokenizer",)}


def names_text(path) -> bool:
    """Whether an input's name says raw text (a ``.txt`` file), which a model with a tokenizer
    reads as text (:meth:`Pipeline.format_of`)."""
    return str(path).lower().endswith(".txt")


class Pipeline:
    """Components run in order: each reads the columns the ones before it wrote."""

    def __init__(self, components: Sequence):
        if not components:
            raise MaltpyError("a pipeline needs at least one component")
        self.components = list(components)

    def __repr__(self):
        return f"Pipeline([{', '.join(c.name for c in self.components)}])"

    @property
    def parser(self):
        """The pipeline's parser (its last parser component), or None."""
        from maltpy.components.parser import ParserComponent
        found = [c.parser for c in self.components if isinstance(c, ParserComponent)]
        return found[-1] if found else None

    # ------------------------------------------------------------------ running
    @property
    def tokenizer(self):
        """The pipeline's tokenizer component (the first, which reads raw text), or None."""
        first = self.components[0]
        return first if first.reads_text else None

    @property
    def word_components(self) -> List:
        """The components that read words: all but a tokenizer."""
        return [c for c in self.components if not c.reads_text]

    def parse(self, sentences) -> List:
        """Every component that reads words on the sentences, in order (a list of Sentence
        objects in, parsed copies out)."""
        from maltpy.parsing.parser import _as_sentences
        out = _as_sentences(sentences)
        for component in self.word_components:
            out = component(out)
        return out

    def tokenize(self, text: str, lines: bool = False) -> List:
        """Raw text as sentences of words (Sentence objects of CoNLL-U whose columns but ID,
        FORM and MISC are ``_``), by the pipeline's tokenizer; ``lines``: one sentence a line."""
        import io

        from maltpy.formats.conll import parse_conll
        if not isinstance(text, str):
            raise MaltpyError(f"tokenize and parse_text take a str, not {type(text).__name__}")
        tokenizer = self._text_reader()
        conllu = tokenizer.text_source(io.BytesIO(text.encode("utf-8", "surrogatepass")), lines).read()
        return parse_conll(conllu.decode("utf-8", "surrogatepass"), "conllu", "<text>")

    def parse_text(self, text: str, lines: bool = False) -> List:
        """Raw text through every component: tokenized, tagged and parsed sentences."""
        return self.parse(self.tokenize(text, lines))

    def _text_reader(self):
        if self.tokenizer is None:
            raise MaltpyError("this model has no tokenizer, so it reads words, not raw text (learn one with "
                              "-m learn --tokenizer, from a CoNLL-U treebank)")
        return self.tokenizer

    def for_mode(self, mode: str, model: str = "this model") -> "Pipeline":
        """The components a run mode runs (:data:`MODE_COMPONENTS`): ``-m tag`` the tokenizer, if
        any, and the taggers; ``-m tokenize`` the tokenizer; ``-m parse`` all. ``model`` names the
        file in the error a model without them gives."""
        from maltpy.components.tagger import TaggerComponent
        if mode == "parse":
            return self
        if mode == "tokenize":
            if self.tokenizer is None:
                raise MaltpyError(f"{model}: this model has no tokenizer ({_HOW_TO_LEARN['tokenizer']})")
            return Pipeline([self.tokenizer])
        if mode != "tag":
            raise MaltpyError(f"a pipeline runs -m parse, tag or tokenize, not -m {mode}")
        taggers = [c for c in self.components if isinstance(c, TaggerComponent)]
        if not taggers:
            raise MaltpyError(f"{model}: this model has no tagger ({_HOW_TO_LEARN['tagger']})")
        return Pipeline(([self.tokenizer] if self.tokenizer is not None else []) + taggers)

    def tag(self, sentences) -> List:
        """The pipeline's taggers only, in order (copies of the sentences with their tag columns
        filled; HEAD and DEPREL untouched)."""
        from maltpy.parsing.parser import _as_sentences
        out = _as_sentences(sentences)
        for component in self.for_mode("tag").word_components:
            out = component(out)
        return out

    def parse_file(self, source, target, input_format: Optional[str] = None, output_format: Optional[str] = None,
                   progress: bool = False, chunk_size: int = 1000, jobs: Optional[int] = None, lines: bool = False):
        """A CoNLL, horizontal or vertical file (a path, ``-`` for stdin) through every component
        into ``target``; returns (sentences, tokens). A pipeline of one streaming component (a
        parser) runs its compiled path; others read, run and write chunk by chunk, in flat memory,
        the file appearing whole or not at all, ``jobs`` chunks at a time on threads (the compiled
        loops run without the GIL; default: the parser's ``jobs`` setting, 0 = all cores); each
        chunk is run alone, so the output does not depend on ``jobs``. ``lines``: raw text is one
        sentence a line. ``output_format`` ``horizontal`` or ``vertical``: the words of what it
        writes, UDPipe's way."""
        from maltpy.config import threads
        from maltpy.formats.plain import PLAIN_FORMATS, iter_sentences
        from maltpy.formats.text import TEXT_FORMATS
        if output_format in PLAIN_FORMATS:
            return self._parse_to_plain(source, target, input_format, output_format, progress, chunk_size, jobs,
                                        lines)
        components = self.word_components
        if jobs is None:
            jobs = threads(self.parser.settings.jobs) if self.parser is not None else 1
        if len(components) == 1 and components[0].streams and input_format not in PLAIN_FORMATS + TEXT_FORMATS:
            return components[0].parse_file(source, target, input_format, output_format, progress=progress, jobs=jobs)
        if self.parser is not None and self.parser.reduction is not None:
            return self._parse_trees(source, target, input_format, output_format, progress, jobs, lines)
        from maltpy.chunks import chunked
        from maltpy.formats.conll import detect_format, to_conllx, write_conll
        parser = self.parser
        fmt = input_format or (self.format_of(source) if source not in ("-", None) else None) or \
            (parser.format if parser is not None else "conllu")
        if fmt in TEXT_FORMATS:     # raw text: read as the CoNLL-U of the sentences the tokenizer cuts
            source, fmt = self._text_reader().text_source(source, lines), "conllu"
            if not components:
                return self._copy(source, target, output_format)
        read_as = "conllu" if fmt in PLAIN_FORMATS else fmt    # pre-tokenized words are read as CoNLL-U
        to_x = (output_format or read_as) == "conllx" and read_as == "conllu"
        if read_as in ("conllx", "conllu") and (output_format or read_as) in ("conllx", "conllu"):
            steps = [c.chunk_work(read_as, to_x) for c in components]
            if all(step is not None for step in steps):
                if fmt in PLAIN_FORMATS:    # pre-tokenized words: read as the CoNLL-U text they make
                    from maltpy.formats.plain import PlainAsConll
                    source = PlainAsConll(source, fmt)
                return self._run_compiled(steps, source, target, read_as, to_x, progress, jobs)
        counts = [0, 0]

        def sentences():
            # CoNLL-X out: the sentences are CoNLL-X before the components run, so that the parser
            # puts words on the root as CoNLL-X output wants (-ro auto), as the compiled path does
            for sentence in iter_sentences(source, fmt):
                yield to_conllx(sentence) if to_x else sentence

        def run():
            for done in _in_order(self.parse, chunked(sentences(), chunk_size), jobs):
                for sentence in done:
                    counts[0] += 1
                    counts[1] += len(sentence)
                    yield sentence

        write_conll(run(), target)
        return counts[0], counts[1]

    def _parse_to_plain(self, source, target, input_format, output_format, progress, chunk_size, jobs, lines):
        """:meth:`parse_file` with words out (``horizontal`` or ``vertical``, UDPipe's): the CoNLL
        the components write, into a temporary file, then its words."""
        from maltpy.formats.plain import words_out
        if self.parser is not None and self.parser.reduction is not None:
            raise MaltpyError(f"-of {output_format} writes words; this model's parser writes trees: give -m tag, or "
                              f"write its trees ({self.parser.reduction.tree_format}) or CoNLL")
        return words_out(lambda conll: self.parse_file(source, conll, input_format, None, progress, chunk_size,
                                                       jobs, lines), target, output_format)

    def _parse_trees(self, source, target, input_format, output_format, progress, jobs, lines):
        """A constituent parser (bracketed or discontinuous trees out) behind a tagger: words
        (CoNLL, horizontal, vertical, raw text with a tokenizer) are tagged into a temporary
        CoNLL-U file, which the parser reads; trees in (.mrg, .export, .discbracket) have tags
        already and go to the parser as they are (``retag`` cannot replace a tree's tags)."""
        import os
        import tempfile
        from maltpy.components.parser import ParserComponent
        from maltpy.components.tagger import TaggerComponent
        from maltpy.formats.export import DISCONTINUOUS_FORMATS
        parser = self.parser
        fmt = input_format or (self.format_of(source) if source not in ("-", None) else None)
        if fmt is None:     # standard input without -if: trees, as the parser alone reads it (words: -if conllu)
            fmt = parser.reduction.tree_format
        if fmt in ("ptb",) + tuple(DISCONTINUOUS_FORMATS):
            if any(c.tagger.retag for c in self.components if isinstance(c, TaggerComponent)):
                raise MaltpyError(f"--retag replaces the tags of words; trees ({fmt}) keep theirs: give their words "
                                  "as CoNLL (-m convert) to tag them anew")
            return parser.parse_file(source, target, fmt, output_format, progress=progress, jobs=jobs)
        front = [c for c in self.components if not isinstance(c, ParserComponent)]
        if not front:       # the parser alone, words a line: read as the CoNLL-U they make
            from maltpy.formats.plain import PLAIN_FORMATS, PlainAsConll
            if fmt in PLAIN_FORMATS:
                source, fmt = PlainAsConll(source, fmt), "conllu"
            return parser.parse_file(source, target, fmt, output_format, progress=progress, jobs=jobs)
        front = Pipeline(front)
        with tempfile.TemporaryDirectory(prefix="maltpy-") as tmp:
            tagged = os.path.join(tmp, "tagged.conllu")
            front.parse_file(source, tagged, fmt, "conllu", progress=progress, jobs=jobs, lines=lines)
            return parser.parse_file(tagged, target, "conllu", output_format, progress=progress, jobs=jobs)

    def format_of(self, path) -> str:
        """An input's format by its name: with a tokenizer, a .txt file is raw text."""
        from maltpy.formats.conll import detect_format
        if self.tokenizer is not None and names_text(path):
            return "text"
        return detect_format(path)

    def _copy(self, source, target, output_format):
        """What a tokenizer alone writes: the CoNLL-U of the text's sentences."""
        from maltpy.output import open_output
        if output_format not in (None, "conllu"):
            raise MaltpyError(f"-m tokenize writes CoNLL-U (-of conllu), not {output_format}")
        with open_output(target, binary=True, stream=True) as out:
            while True:
                block = source.read(1 << 20)
                if not block:
                    break
                out.write(block)
        return source.n_sentences, source.n_tokens

    def _run_compiled(self, steps, source, target, fmt, drop_extra, progress, jobs):
        """The compiled path: each chunk's bytes through every component's chunk step."""
        from maltpy.output import open_output
        from maltpy.components.tagger import TaggerComponent
        from maltpy.parsing.stream import BLOCK_SIZE, TAGGED_BLOCK_SIZE, run_chunks
        from maltpy.progress import progress_bar
        bar = progress_bar(None, "running", progress, unit="tok")
        # the steps after the first read what the one before wrote (CoNLL-X once extra lines are dropped)
        between = "conllx" if drop_extra else fmt
        try:
            with open_output(target, binary=True, stream=True) as out:
                return run_chunks(lambda path: _ChunkSteps([make(path) for make in steps], between, path), source,
                                  out, fmt, drop_extra, jobs,
                                  progress=(lambda n_sent, n_tok: bar.update(n_tok)) if bar else None,
                                  largest=TAGGED_BLOCK_SIZE if any(isinstance(c, TaggerComponent) for c in
                                                                   self.components) else BLOCK_SIZE)
        finally:
            if bar:
                bar.close()

    # ------------------------------------------------------------------ files
    def to_bytes(self) -> bytes:
        """The pipeline's model file as bytes (made in memory)."""
        from maltpy.parsing.modelfile import model_bytes
        header, arrays = self._contents()
        return model_bytes(header, arrays)

    def save(self, path: str) -> None:
        """Write the pipeline to one model file (whole or not at all)."""
        from maltpy.parsing.modelfile import save_model
        save_model(path, *self._contents())

    def _contents(self):
        from maltpy.version import __version__
        header = {"maltpy_version": __version__, "pipeline": [{"component": c.name} for c in self.components]}
        arrays = {f"component{k}": np.frombuffer(c.to_bytes(), dtype=np.uint8)
                  for k, c in enumerate(self.components)}
        return header, arrays

    @classmethod
    def from_bytes(cls, data: bytes, path: str = "<model bytes>", only=None, **overrides) -> "Pipeline":
        """A pipeline from a model file's bytes (a parser's own model file: a pipeline of it);
        ``only`` as for :meth:`load`."""
        from maltpy.parsing.modelfile import holds_components, load_model
        data = bytes(data)
        if not holds_components(io.BytesIO(data)):
            from maltpy.components.parser import ParserComponent
            return cls([ParserComponent.from_bytes(data, **overrides)])
        return cls._build(*load_model(path, data=data, wanted=None if only is None else _components_named(only),
                                      as_bytes=_is_component),
                          path, overrides, only)

    @classmethod
    def load(cls, path: str, only=None, **overrides) -> "Pipeline":
        """A model file as a pipeline. ``overrides``: parse-time settings, for the components that
        take them (a parser's ``beam_width``, ...). ``only``: the registry names of the components
        to read (``-m tag`` reads no parser); the others are left out unread."""
        from maltpy.parsing.modelfile import holds_components, load_model
        if not holds_components(path):     # a parser's model file: loaded as it always was
            from maltpy.components.parser import ParserComponent
            from maltpy.parsing.parser import Parser
            return cls([ParserComponent(Parser.load(path, **overrides))])
        return cls._build(*load_model(path, wanted=None if only is None else _components_named(only),
                                      as_bytes=_is_component), path,
                          overrides, only)

    @classmethod
    def _build(cls, header, arrays, path, overrides, only=None) -> "Pipeline":
        from maltpy.components.registry import COMPONENTS
        from maltpy.parsing.modelfile import HeaderReader
        h = HeaderReader(header, path)
        steps = h.get("pipeline")
        if not isinstance(steps, list) or not steps or not all(
                isinstance(s, dict) and isinstance(s.get("component"), str) for s in steps):
            h.fail("the list of components is damaged")
        components = []
        for k, step in enumerate(steps):
            kind = COMPONENTS.get(step["component"])
            if kind is None:
                h.fail(f"component {k + 1} is a {step['component']!r}, which this maltpy does not have "
                       f"(it has {', '.join(sorted(COMPONENTS))})")
            if only is not None and step["component"] not in only:
                continue
            # the component's own model file, read as bytes (a parser's is tens of megabytes)
            blob = arrays.pop(f"component{k}", None)
            if not isinstance(blob, bytes):
                raise ModelFileError(f"{path}: inconsistent model file (array component{k} is missing)")
            try:
                components.append(kind.from_bytes(blob, **overrides))
            except ModelFileError as e:
                h.fail(f"its component {k + 1} ({step['component']}): {e}")
        if not components:    # only names none of the file's components
            raise MaltpyError(f"{path}: this model has no {' or '.join(only)} (it has "
                              f"{', '.join(s['component'] for s in steps)}): {_HOW_TO_LEARN[only[-1]]}")
        return cls(components)

    def describe(self) -> dict:
        """What the pipeline holds, component by component (``maltpy info``)."""
        return {"components": [c.describe() for c in self.components]}


#: what a user does to have a component in a model file
_HOW_TO_LEARN = {"tokenizer": "learn one with -m learn --tokenizer from a CoNLL-U treebank",
                 "tagger": "learn one with -m learn --tagger upos,xpos,feats,lemma",
                 "parser": "learn one with -m learn"}


def _is_component(name: str) -> bool:
    """Whether a pipeline's array is a component's model file (read as bytes)."""
    return name.startswith("component")


def _components_named(only):
    """What :func:`~maltpy.parsing.modelfile.load_model` reads of a pipeline's model file when only
    the components ``only`` (registry names) are wanted: their arrays alone (every array when
    the header's list of components is damaged, which ``Pipeline._build`` then says)."""
    def wanted(header):
        steps = header.get("pipeline")
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            return set(header["arrays"])
        return {f"component{k}" for k, s in enumerate(steps) if s.get("component") in only}
    return wanted


def _in_order(work, chunks, jobs: int):
    """``work(chunk)`` for each chunk, on ``jobs`` threads, results in the chunks' order; at most
    2 x jobs chunks are read ahead, so memory stays flat on a long input."""
    if jobs <= 1:
        yield from map(work, chunks)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(jobs) as pool:
        pending = deque()
        for chunk in chunks:
            pending.append(pool.submit(work, chunk))
            if len(pending) >= 2 * jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


class _ChunkSteps:
    """A chunk through several components' compiled steps: the first reads the chunk, each next
    one what the one before wrote: the chunk of it that a step makes as it writes (``chunk_out``),
    else its bytes scanned again."""

    def __init__(self, steps, fmt, path):
        self.steps, self.fmt, self.path = steps, fmt, path

    def __call__(self, chunk) -> bytes:
        from maltpy.formats.scan import Scanner
        if not chunk.n_sentences:      # lines after the last sentence: the same through every step
            return self.steps[0](chunk)
        for step in self.steps[:-1]:
            if hasattr(step, "chunk_out"):
                chunk = step.chunk_out(chunk)
                continue
            made = Scanner(self.fmt, self.path).feed(step(chunk))
            made.word_lines = chunk.word_line       # the same words: messages name the input's lines
            chunk = made
        return self.steps[-1](chunk)
