"""Bridges to other libraries, each an optional extra: spaCy (``maltpy[spacy]``, spacy_parser) and
Dask (``maltpy[dask]``, dask: parsing files and bags, experiments on a cluster)."""
