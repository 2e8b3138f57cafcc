"""Bridges to other libraries, each an optional extra: spaCy (``maltpy[spacy]``, spacy_parser)."""
