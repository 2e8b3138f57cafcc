"""Treebank formats: CoNLL-X and CoNLL-U readers and writers."""
from maltpy.formats.conll import (
    COLUMNS, FORMATS, HEAD_COLUMNS, detect_format, INPUT_COLUMNS, Sentence, atomic_output, format_sentences,
    iter_conll, parse_conll, read_conll, to_conllx, write_conll,
)

__all__ = ["COLUMNS", "FORMATS", "detect_format", "HEAD_COLUMNS", "INPUT_COLUMNS", "Sentence", "atomic_output",
           "format_sentences", "iter_conll", "parse_conll", "read_conll", "to_conllx", "write_conll"]
