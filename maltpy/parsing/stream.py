"""Parsing a CoNLL file or stream in compiled code, chunk by chunk, on one or more threads.

The path of ``maltpy -m parse``: the input's bytes are cut into chunks of whole
sentences and validated (:class:`maltpy.formats.scan.Scanner`), encoded
(:class:`maltpy.parsing.intern.ChunkEncoder`), parsed by the C loop and written back
(:meth:`maltpy.formats.scan.Chunk.render`), with no Python object per token. Each
step but the scan releases the GIL, so ``jobs`` threads parse chunks side by side;
the output is written in input order and is the same bytes whatever the chunking
or the number of threads.

Python is involved per chunk, and per sentence only where pseudo-projective labels
must be decoded.
"""
from __future__ import annotations

import os
import queue
import threading
from collections import deque
from typing import Callable, Optional

import numpy as np

from maltpy.config import coerce, threads
from maltpy.errors import MaltpyError
from maltpy.formats.conll import COLUMNS, FORMATS, HEAD_COLUMNS, open_input
from maltpy.formats import pieces
from maltpy.formats.scan import Scanner
from maltpy.parsing.constraints import check_constrainable, lost_arcs, mode as constraint_mode, report
from maltpy.parsing.tail import output_rows
from maltpy.progress import progress_bar as _progress_bar

#: bytes read at a time (a chunk is what one read completes): small enough that a chunk's
#: buffers (its bytes, encoding, trees and output) come back from malloc's free memory for the
#: next one instead of as fresh pages; large enough that Python's work per chunk does not show
#: (docs/benchmarks.md, "Figures behind choices in the code")
BLOCK_SIZE = 256 << 10
#: ... for a pipeline with a tagger, whose word-local sums are made once per distinct word of a
#: chunk: 1 MB chunks tag EWT dev x10 7 % faster end to end (docs/tagging.md, "Sure words and other savings")
TAGGED_BLOCK_SIZE = 1 << 20
#: ... for kernel models, whose matrix products are faster the more sentences are in flight
KERNEL_BLOCK_SIZE = 8 << 20


class ChunkParser:
    """Parses one :class:`~maltpy.formats.scan.Chunk` into its output bytes; safe to call from
    several threads at once (everything it shares is read only)."""

    def __init__(self, parser, threads_each: int = 1, one_root: bool = False, source: str = "<input>"):
        from maltpy.parsing.intern import ChunkEncoder
        parser.check_fitted()
        self.parser = parser
        self.view = parser.view
        node_columns = [COLUMNS[parser.format].index(c) for c in HEAD_COLUMNS[parser.format]]
        self.encoder = ChunkEncoder(parser.compiled, parser.token_tables, parser.multi_tables,
                                    parser.extractor.root_value, self.view.reverses_words, node_columns)
        self.model = parser.search_model()
        self.strategy = parser.strategy()
        #: threads of one chunk's parse (a batched scorer's); chunks are parsed side by side otherwise
        self.threads_each = threads_each
        # --constraints: the input's arcs are kept (maltpy.parsing.constraints)
        self.source = source
        self.constraints = constraint_mode(parser, None)
        self.label_table = None
        if self.constraints != "false":
            from maltpy.parsing.intern import ByteTable
            check_constrainable(parser)
            self.label_table = ByteTable(parser.label_ids)
        self.names = parser.output_labels
        self.label_bytes = [label.encode("utf-8", "surrogatepass") for label in self.names]
        # -dir both: the right-to-left parser of the same model file, and how to combine
        self.other = ChunkParser(parser.reverse_parser, threads_each) \
            if parser.reverse_parser is not None else None
        #: one word on the root, labelled root (maltpy.transform.single_root)
        self.one_root = one_root

    def __call__(self, chunk) -> bytes:
        if not chunk.n_sentences:
            return chunk.render(np.zeros(0, np.int32), np.zeros(0, np.int32), self.label_bytes)
        _, heads, labels, names = self.output_rows(chunk)
        # the tail only appends to the model's names: the bytes of those are made once
        label_bytes = self.label_bytes + [n.encode("utf-8", "surrogatepass") for n in names[len(self.names):]]
        return chunk.render(heads, labels, label_bytes)

    def output_rows(self, chunk, place=None):
        """(offsets, heads, label ids, label names) of what is written for the chunk: its parse
        through the output tail (:func:`maltpy.parsing.tail.output_rows`); ``place``: as
        :meth:`trees`."""
        offsets, heads, labels, given_heads = self.trees(chunk, place)
        other = self.other.trees(chunk)[1:3] if self.other is not None else None
        return (offsets,) + output_rows(self.parser, offsets, heads, labels, self.one_root, given_heads, other)

    def trees(self, chunk, place=None):
        """(offsets, heads, label ids, the given heads or None) of the chunk's parses as the C loop
        made them, in the model's view (constraints checked and reported). ``place(k)``: where
        the chunk's sentence k is, for a message (default: the input's file and line)."""
        corpus = self.encoder.encode(chunk)
        given_heads = None
        self.parser.check_input(corpus, lambda ci: _first_values(chunk, ci),
                                place or (lambda k: f"{self.source}:{chunk.word_line(k, 1)}"))
        if self.label_table is None:
            heads, labels = self.strategy.parse(self.model, corpus, n_threads=self.threads_each)
        else:
            from maltpy.parsing.intern import given_arcs
            given_heads, given_labels = given_arcs(chunk, self.label_table)
            heads, labels = self.strategy.parse(self.model, corpus, n_threads=self.threads_each,
                                                given=(given_heads, np.maximum(given_labels, -1)))
            report(lost_arcs(corpus.offsets, given_heads, given_labels, heads, labels, self.one_root), given_heads,
                   given_labels, heads, self.names, lambda k, i: f"{self.source}:{chunk.word_line(k, i)}",
                   self.constraints == "strict")
        return corpus.offsets, heads, labels, given_heads


def _first_values(chunk, ci: int):
    """The distinct values of column ``ci`` in a chunk's first sentence (for a message)."""
    return list(dict.fromkeys(row[ci] for row in chunk.sentence_lines(0)))


def unsupported(parser) -> Optional[str]:
    """Why the compiled path cannot parse with this parser (None: it can)."""
    from maltpy.parsing.intern import supported
    if not supported(parser.compiled):
        return "a Split feature with a regular-expression separator"
    if parser.settings.arc_scores or parser.settings.confidence or parser.settings.nbest > 1:
        return "arc scores, confidences or k-best parses (written by the Python path)"
    return None


class OrderedOutput:
    """Writes chunk outputs in order. A sentence's closing blank line waits for what comes
    next: extra lines at the very end of the input go before it, as the Python reader
    attaches them to the last sentence."""

    def __init__(self, out, progress=None):
        self.out = out
        self.progress = progress
        self.pending = b""
        self.n_sentences = self.n_tokens = 0

    def write(self, chunk, data: bytes) -> None:
        if chunk.n_sentences:
            self.out.write(self.pending)
            self.out.write(memoryview(data)[:len(data) - 1])
            self.pending = b"\n"
        else:
            self.out.write(data)
        self.out.flush()
        self.n_sentences += chunk.n_sentences
        self.n_tokens += chunk.n_tokens
        if self.progress is not None:
            self.progress(chunk.n_sentences, chunk.n_tokens)

    def close(self) -> None:
        self.out.write(self.pending)
        self.pending = b""
        self.out.flush()


def read_chunks(stream, scanner: Scanner, block_size: int):
    """Chunks of whole sentences, as the stream delivers them. A stream made from another file
    (horizontal or vertical words read as CoNLL-U) gives each chunk its words' lines in that
    file (``word_lines``), so that messages name the lines the user wrote."""
    read = getattr(stream, "read1", stream.read)
    word_lines = getattr(stream, "word_lines", None)
    if hasattr(stream, "want_word_lines"):     # a stream that keeps its words' lines only when asked
        stream.want_word_lines()

    def mapped(chunk):
        if word_lines is not None:
            chunk.word_lines = word_lines(chunk.n_sentences)
        return chunk
    while True:
        # an unfinished sentence longer than a block: read more at once, so that the bytes
        # held over are not copied again block after block
        held = scanner.pending_bytes
        if held > pieces.MAX_HELD_BYTES:
            raise MaltpyError(f"{scanner.path}:{scanner.lineno + 1}: the sentence that starts here runs past "
                              f"{pieces.MAX_HELD_BYTES >> 20} MB without a blank line to end it (the input is not "
                              "CoNLL text, or the blank lines between its sentences were lost)")
        block = read(max(block_size, held))
        if isinstance(block, str):
            block = block.encode("utf-8", "surrogatepass")
        if not block:
            yield mapped(scanner.finish())
            if scanner.failed:
                scanner.finish()    # raises the error that followed the last chunk
            return
        chunk = scanner.feed(block)
        if chunk is not None:
            yield mapped(chunk)


def parse_stream(parser, source, out, fmt: str, drop_extra: bool = False, jobs: int = 1,
                 progress: Optional[Callable[[int, int], None]] = None, block_size: Optional[int] = None):
    """Parse ``source`` (a path, ``-`` for stdin, or a binary stream) and write the CoNLL output
    to the binary stream ``out``; return (sentences, tokens).

    ``jobs`` threads parse chunks in parallel (0: all cores); ``progress(sentences, tokens)`` is
    called after each chunk is written. Errors in the input are raised as the Python reader
    raises them, after the sentences before the error's chunk have been written."""
    jobs = threads(jobs)
    batched = parser.weights().batched
    if block_size is None and batched:
        block_size = KERNEL_BLOCK_SIZE
    # a batched scorer (kernel models) scores many sentences in one matrix product, on its own
    # threads: it gets large chunks one after the other; a linear model gets a chunk per thread
    return run_chunks(lambda path: ChunkParser(parser, threads_each=jobs if batched else 1,
                                               one_root=parser.one_root("conllx" if drop_extra else fmt),
                                               source=path or "<stdin>"),
                      source, out, fmt, drop_extra, 1 if batched else jobs, progress, block_size)


def run_chunks(make_work, source, out, fmt: str, drop_extra: bool = False, jobs: int = 1,
               progress: Optional[Callable[[int, int], None]] = None, block_size: Optional[int] = None,
               largest: int = BLOCK_SIZE):
    """Read ``source`` chunk by chunk, turn each chunk into its output bytes with the callable
    ``make_work(path)`` makes (a :class:`ChunkParser`, a tagger's, a pipeline's), and write them
    to ``out`` in input order; ``jobs`` threads work on chunks side by side. Returns (sentences,
    tokens). Chunks are ``block_size`` bytes, or by default ``largest`` and smaller where a file
    would otherwise leave a thread without work."""
    stream, path, close = open_input(source)
    if block_size is None:
        block_size = largest
        try:
            # a file in several chunks per thread, so that every thread has work
            size = os.fstat(stream.fileno()).st_size
            if size and jobs > 1:
                block_size = max(64 << 10, min(largest, size // (4 * jobs) + 1))
        except (AttributeError, OSError, ValueError):
            pass
    work = make_work(path)
    scanner = Scanner(fmt, path, drop_extra)
    writer = OrderedOutput(out, progress)
    try:
        if jobs == 1:
            for chunk in read_chunks(stream, scanner, block_size):
                writer.write(chunk, work(chunk))
        else:
            _parse_in_threads(read_chunks(stream, scanner, block_size), work, writer, jobs)
        writer.close()
    finally:
        if close:
            stream.close()
    return writer.n_sentences, writer.n_tokens


#: seconds that an error or Ctrl-C waits for the reader thread to finish the read it is in
READER_GRACE = 0.5
#: the name of that thread
READER_THREAD = "maltpy-read"


def reader_running() -> bool:
    """Whether a reader thread is still in a read (of a pipe that stays open) after its parse
    stopped: the maltpy command then exits without Python's shutdown, which would abort
    waiting for the lock that read holds on standard input."""
    return any(t.name == READER_THREAD and t.is_alive() for t in threading.enumerate())


def _parse_in_threads(chunks, work, writer: OrderedOutput, jobs: int) -> None:
    """Parse chunks on ``jobs`` threads, writing each output as soon as it and all before it
    are done. A reader thread scans the input, so that a pipe's output is written while the
    main thread would otherwise wait for more input; at most 2 * jobs + 1 chunks are in
    memory at once. An error in the input is raised after the chunks before it are written."""
    events = queue.Queue()
    room = threading.Semaphore(2 * jobs + 1)
    stop = threading.Event()

    def read():
        try:
            for chunk in chunks:
                while not room.acquire(timeout=0.1):
                    if stop.is_set():
                        return
                if stop.is_set():
                    return
                events.put(("chunk", chunk))
            events.put(("end", None))
        except BaseException as e:  # noqa: BLE001 - re-raised in the main thread
            events.put(("error", e))

    reader = threading.Thread(target=read, name=READER_THREAD, daemon=True)
    pending = deque()
    from concurrent.futures import ThreadPoolExecutor    # only here: a few milliseconds of start-up
    with ThreadPoolExecutor(jobs, thread_name_prefix="maltpy-parse") as pool:
        reader.start()
        try:
            while True:
                kind, value = events.get()
                if kind == "chunk":
                    future = pool.submit(work, value)
                    future.add_done_callback(lambda f: events.put(("done", None)))
                    pending.append((value, future))
                elif kind != "done":
                    break       # the end of the input, or an error in it
                while pending and pending[0][1].done():   # write what is done, in order
                    chunk, future = pending.popleft()
                    writer.write(chunk, future.result())
                    room.release()
            while pending:
                chunk, future = pending.popleft()
                writer.write(chunk, future.result())
            if kind == "error":
                raise value
        finally:
            stop.set()
            for _, future in pending:
                future.cancel()
            # a reader still inside a read holds the input's lock, which Python's shutdown takes:
            # let it finish a read of a file or a closed pipe (a live pipe: see main's exit)
            reader.join(READER_GRACE)


def parse_bytes(parser, data: bytes, fmt: str, drop_extra: bool = False, jobs: int = 1,
                block_size: int = BLOCK_SIZE, path: str = "<input>") -> bytes:
    """The output of :func:`parse_stream` for CoNLL text given as bytes (a Dask partition, a test)."""
    import io
    source, out = io.BytesIO(data), io.BytesIO()
    source.name = path
    parse_stream(parser, source, out, fmt, drop_extra, jobs, block_size=block_size)
    return out.getvalue()


def parse_file(parser, source, target, input_format: Optional[str] = None, output_format: Optional[str] = None,
               jobs: Optional[int] = None, progress: bool = False):
    """Parse a CoNLL file (a path, or ``-`` for stdin) into ``target`` (a path, ``-`` for
    stdout); return (sentences, tokens).

    Reading, parsing and writing run chunk by chunk in compiled code on ``jobs`` threads
    (default: the ``jobs`` setting; 0 = all cores): memory stays flat, the output is the same
    bytes as :meth:`Parser.parse` and :func:`~maltpy.formats.conll.write_conll` give, a file appears
    only whole. ``input_format``: conllx or conllu (default: from the file name, else the
    model's); ``output_format``: conllx turns CoNLL-U input into CoNLL-X."""
    from maltpy.formats.conll import detect_format, iter_conll, to_conllx, write_conll
    from maltpy.output import open_output
    parser.check_fitted()
    fmt = input_format or (detect_format(source) if source not in ("-", None) else parser.format)
    if parser.reduction is not None:   # a constituent parser: bracketed trees out
        return parser.reduction.parse_file(parser, source, target, fmt, output_format, progress)
    if fmt == "ptb":
        raise MaltpyError(f"{source}: bracketed trees (.mrg) are parsed by a constituent parser; this model "
                          "parses CoNLL (train one on a .mrg file for constituents)")
    if fmt in ("export", "discbracket"):
        raise MaltpyError(f"{source}: discontinuous trees (.{fmt}) are parsed by a discontinuous parser; this model "
                          "parses CoNLL (train one on an .export file for discontinuous trees)")
    if fmt not in FORMATS or (output_format or fmt) not in FORMATS:
        raise MaltpyError(f"unknown format {input_format if fmt not in FORMATS else output_format!r}; "
                          f"use one of {', '.join(FORMATS)}")
    drop_extra = (output_format or fmt) == "conllx" and fmt == "conllu"
    jobs = parser.settings.jobs if jobs is None else coerce("jobs", jobs, "parse_file")
    bar = _progress_bar(None, "parsing", progress, unit="tok")
    try:
        if unsupported(parser) is None:
            with open_output(target, binary=True, stream=True) as out:
                return parse_stream(parser, source, out, fmt, drop_extra, jobs,
                                    progress=(lambda n_sent, n_tok: bar.update(n_tok)) if bar else None)
        counts = [0, 0]   # the Python path: a Split with a regular-expression separator

        def counted(parsed):
            for sentence in parsed:
                counts[0] += 1
                counts[1] += len(sentence)
                if bar:
                    bar.update(len(sentence))
                yield to_conllx(sentence) if drop_extra else sentence

        parsed = parser.iter_parse(iter_conll(source, fmt), one_root=parser.one_root(output_format or fmt))
        write_conll(counted(parsed), target)
        return counts[0], counts[1]
    finally:
        if bar:
            bar.close()
