"""Sentences held column by column (the spaCy component's view), beside :class:`Sentence` rows."""
from __future__ import annotations

from typing import Dict, List, Sequence


class ColumnBatch:
    """Sentences given column by column instead of as :class:`Sentence` rows.

    ``lengths``: words per sentence; ``columns``: CoNLL column index -> the values of that
    column for every word of every sentence, in order (a missing column is ``_`` throughout).
    Callers that already hold whole columns (the spaCy component) skip building rows.
    """

    def __init__(self, lengths: Sequence[int], columns: Dict[int, List[str]]):
        self.lengths = list(lengths)
        self.columns = columns

    def __len__(self):
        return len(self.lengths)

    def column(self, ci: int) -> List[str]:
        values = self.columns.get(ci)
        return values if values is not None else ["_"] * sum(self.lengths)
