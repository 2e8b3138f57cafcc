"""Parsing and experiments on a Dask cluster (``pip install "maltpy[dask]"``).

Start a cluster with ``dask scheduler`` on one machine and ``dask worker tcp://HOST:8786``
on each of the others (or give ``local:N`` to start N workers on this machine for one run),
then::

    maltpy -c model.mpz -m parse --dask tcp://HOST:8786 -i 'corpus/*.conllu' -o parsed/
    maltpy -c model.mpz -m tag --dask tcp://HOST:8786 -i 'words/*.conllu' -o tagged/
    maltpy experiment ../shared/data/ud/*/train.conllu -a nivreeager --dask tcp://HOST:8786

The model file is sent to every worker once and loaded once per worker process; input
and output paths must be visible to the workers (a shared file system), as with
``dask.bag.read_text``. Each file is parsed (tagged, tokenized) by one worker with the compiled
path, so the output is the same bytes as ``maltpy -m parse`` (``-m tag``, ``-m tokenize``) on that
file gives.

From Python, :func:`parse_bag` parses a ``dask.bag`` of CoNLL sentences (the texts
``dask.bag.read_text(path, linedelimiter="\\n\\n")`` gives, or :class:`~maltpy.Sentence`
objects) into a bag of parsed sentence texts.
"""
from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from typing import Iterable, List, Optional, Sequence, Tuple

from maltpy.errors import InputFormatError, MaltpyError

_PARSERS = {}              # digest -> Parser, per worker process: a model loads once
_PARSERS_LOCK = threading.Lock()


def _require_dask():
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise MaltpyError('Dask is not installed: pip install "maltpy[dask]" (dask and distributed)') from None


@contextmanager
def dask_client(address: str):
    """A ``distributed.Client`` for ``address``: a scheduler (``tcp://host:8786``) or ``local:N``,
    which starts N single-threaded worker processes on this machine for the duration."""
    _require_dask()
    from distributed import Client, LocalCluster
    if address.startswith("local:"):
        try:
            n = int(address[len("local:"):])
        except ValueError:
            n = 0
        if n < 1:
            raise MaltpyError(f"--dask {address}: give local:N with N >= 1 workers, e.g. local:2")
        # a free port for its status page: 8787 may be taken by another cluster (a warning on stderr)
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            yield client
        return
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise MaltpyError(f"--dask {address}: cannot reach the Dask scheduler ({e}); start one with "
                          "'dask scheduler' or use local:N") from None
    with client:
        yield client


def _worker_pipeline(model: bytes, digest: str, overrides: Optional[dict] = None, mode: str = "parse"):
    """The :class:`~maltpy.components.Pipeline` a model file's bytes hold (with parse-time
    ``overrides``), as run mode ``mode`` runs it (``parse``, ``tag``, ``tokenize``), loaded once
    per process."""
    key = (digest, tuple(sorted((overrides or {}).items())), mode)
    with _PARSERS_LOCK:
        parser = _PARSERS.get(key)
        if parser is None:
            from maltpy.components import Pipeline
            from maltpy.components.pipeline import MODE_COMPONENTS
            parser = _PARSERS[key] = Pipeline.from_bytes(model, only=MODE_COMPONENTS[mode],
                                                         **(overrides or {})).for_mode(mode)
        return parser


def _parse_file_task(model: bytes, digest: str, overrides: dict, source: str, target: str,
                     input_format: Optional[str], output_format: Optional[str],
                     mode: str = "parse") -> Tuple[str, str, int, int]:
    # a bad input comes back as a value, not raised: a task that raises makes every worker log
    # "Compute Failed" with a traceback, where the user is to see one line
    try:
        pipeline = _worker_pipeline(model, digest, overrides, mode)
        n_sentences, n_tokens = pipeline.parse_file(source, target, input_format, output_format, jobs=1)
    except InputFormatError as e:
        return _FAILED, (e.path, e.line, e.reason)
    except MaltpyError as e:
        return _FAILED, str(e)
    return source, target, n_sentences, n_tokens


#: a file task's result that says it failed: (_FAILED, the InputFormatError's arguments or a message)
_FAILED = "maltpy-failed"


def _raised(failure) -> MaltpyError:
    """The error a failed file task returned, as the exception one process would have raised."""
    return InputFormatError(*failure) if isinstance(failure, tuple) else MaltpyError(failure)


def _model_bytes(model_path: str, mode: str = "parse"):
    """(the model file's bytes, their digest, the pipeline ``mode`` runs of it, loaded here)."""
    from maltpy.components import load
    from maltpy.components.pipeline import MODE_COMPONENTS
    if mode not in MODE_COMPONENTS:
        raise MaltpyError(f"mode {mode!r}: give one of {', '.join(MODE_COMPONENTS)}")
    # refuse a bad model, or one without what the mode runs, here, with its one-line error, not on every worker
    pipeline = load(model_path, MODE_COMPONENTS[mode]).for_mode(mode, model_path)
    with open(model_path, "rb") as f:
        data = f.read()
    return data, hashlib.sha256(data).hexdigest(), pipeline


def parse_files(client, model_path: str, jobs: Sequence[Tuple[str, str]], input_format: Optional[str] = None,
                output_format: Optional[str] = None, log=None, on_error=None, mode: str = "parse",
                **overrides) -> List[Tuple[str, str, int, int]]:
    """Parse each (input, output) path pair on the cluster; return (input, output, sentences,
    tokens) per pair, in the given order (a triple (input, output, format) writes that output in
    that format instead of ``output_format``). ``log`` is called as each file is done;
    ``on_error(input, error)``: the result row of a file whose input is bad (an
    InputFormatError: the others are parsed; without it the error is raised); ``mode``: ``tag``
    runs the model's tokenizer and taggers only, ``tokenize`` its tokenizer (as ``-m tag`` and
    ``-m tokenize``); ``overrides``: parse-time settings (``enforce_tree=True``)."""
    from distributed import as_completed
    data, digest, _ = _model_bytes(model_path, mode)
    model = client.scatter(data, broadcast=True)
    futures = [client.submit(_parse_file_task, model, digest, overrides, job[0], job[1], input_format,
                             job[2] if len(job) > 2 and job[2] is not None else output_format,
                             mode, key=f"maltpy-{mode}-{digest[:12]}-{k}", pure=False)
               for k, job in enumerate(jobs)]
    index = {f.key: k for k, f in enumerate(futures)}
    results = [None] * len(futures)
    try:
        for future in as_completed(futures):
            result = future.result()
            if result[0] == _FAILED:
                error = _raised(result[1])
                # a bad input file: on_error says it, and the others go on
                if on_error is None or not isinstance(error, InputFormatError):
                    raise error
                results[index[future.key]] = on_error(jobs[index[future.key]][0], error)
                continue
            results[index[future.key]] = result
            if log:
                log(f"{result[0]} -> {result[1]}: {result[2]} sentences, {result[3]} tokens")
    finally:
        for f in futures:
            f.cancel()
    return results


def _parse_partition(texts: Iterable, model: bytes, digest: str, fmt: str, mode: str = "parse") -> List[str]:
    from maltpy.formats.conll import format_sentences
    from maltpy.parsing.stream import parse_bytes
    parts = []
    for t in texts:
        if not isinstance(t, str):
            t = format_sentences([t])           # a Sentence
        t = t.strip("\n")
        if t:
            parts.append(t + "\n\n")
    if not parts:
        return []
    pipeline = _worker_pipeline(model, digest, None, mode)
    if len(pipeline.components) == 1 and pipeline.parser is not None:   # compiled from bytes to bytes
        out = parse_bytes(pipeline.parser, "".join(parts).encode("utf-8"), fmt, path="<dask partition>")
        return [s + "\n\n" for s in out.decode("utf-8").split("\n\n") if s.strip("\n")]
    from maltpy.formats.conll import parse_conll
    # a pipeline's components that read words, in order (for mode "tag": its taggers)
    return [format_sentences([s]) for s in pipeline.parse(parse_conll("".join(parts), fmt, "<dask partition>"))]


def parse_bag(bag, model_path: str, fmt: Optional[str] = None, mode: str = "parse"):
    """A ``dask.bag`` of CoNLL sentences (texts or :class:`~maltpy.Sentence`) -> a bag of parsed
    sentence texts (each ending with its blank line), partition by partition on the workers.
    ``fmt``: conllx or conllu (default: the model's format); ``mode="tag"``: the model's taggers
    only, as :meth:`~maltpy.components.Pipeline.tag` (HEAD and DEPREL as given)."""
    _require_dask()
    import dask
    from maltpy.components import load
    if mode not in ("parse", "tag"):
        raise MaltpyError(f"parse_bag runs mode 'parse' or 'tag', not {mode!r}")
    data, digest, pipeline = _model_bytes(model_path, mode)
    if fmt is None:     # the model's parser's format (-m tag's pipeline leaves the parser out)
        parser = (pipeline if mode == "parse" else load(model_path)).parser
        fmt = parser.format if parser is not None else "conllu"
    return bag.map_partitions(_parse_partition, dask.delayed(data, traverse=False), digest, fmt, mode)


def run_cells(client, cells: Sequence[tuple], run, log=None) -> list:
    """``run(*cell)`` for every cell on the cluster; results in the cells' order (experiments)."""
    from distributed import as_completed
    futures = [client.submit(run, *cell, pure=False) for cell in cells]
    index = {f.key: k for k, f in enumerate(futures)}
    results = [None] * len(futures)
    try:
        for future in as_completed(futures):
            k = index[future.key]
            results[k] = future.result()
            if log:
                log(k, results[k])
    finally:
        for f in futures:
            f.cancel()
    return results
