"""Grouping a stream of items (sentences) into lists, for code that reads, parses and writes as it goes."""
from typing import Iterable, Iterator


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
