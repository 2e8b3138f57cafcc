"""Grouping items (sentences) into lists: a stream into chunks, for code that reads, parses and writes
as it goes, and a list into the folds of a cross-validation."""
from typing import Iterable, Iterator, List, Sequence, Tuple


def chunked(items: Iterable, size: int, first: int = 16) -> Iterator[list]:
    """Lists of consecutive items: ``first`` items, then twice as many each time up to ``size``
    (the first results come quickly from a slow pipe, later chunks are large enough to be fast)."""
    chunk, limit = [], min(first, size)
    for item in items:
        chunk.append(item)
        if len(chunk) >= limit:
            yield chunk
            chunk, limit = [], min(limit * 2, size)
    if chunk:
        yield chunk


def folds(items: Sequence, k: int) -> List[Tuple[list, list]]:
    """The k folds of a cross-validation over ``items`` as (the other items, this fold's items),
    each fold a contiguous run of about len(items) / k, in order: the folds' parts together are
    ``items``."""
    cuts = [round(j * len(items) / k) for j in range(k + 1)]
    return [(list(items[:cuts[j]]) + list(items[cuts[j + 1]:]), list(items[cuts[j]:cuts[j + 1]]))
            for j in range(k)]
