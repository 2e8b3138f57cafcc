"""Tagging a CoNLL chunk from its bytes to its output bytes (:class:`ChunkTagger`): the compiled
path of ``-m tag``, and the first step of ``-m parse`` with a model that has a tagger. The output
is the bytes :meth:`maltpy.tagging.tagger.Tagger.tag` and ``write_conll`` give for the chunk's
sentences; Python works per chunk (and per distinct non-ASCII character), not per word."""
from __future__ import annotations

from itertools import compress, repeat

import numpy as np

from maltpy.tagging.lemma import CASE_CODES, parse_rule
from maltpy.tagging.templates import ROW, TAG_COLUMNS


def _pool(strings):
    """(UTF-8 bytes of the strings one after another, offsets: string k is [off[k], off[k + 1]))."""
    joined = "\n".join(strings)
    if strings and joined.count("\n") == len(strings) - 1:
        # no string holds a line break: encoded at once and cut at the breaks (UTF-8 writes the
        # byte 10 for a line break only); the lemma dictionary's tens of thousands of lemmas in a
        # millisecond, where encoding them one by one took five, at every start
        data = joined.encode("utf-8", "surrogatepass")
        breaks = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        offsets = np.empty(len(strings) + 1, dtype=np.int64)
        offsets[0] = 0
        offsets[1:-1] = breaks - np.arange(len(breaks))
        offsets[-1] = len(data) - len(breaks)
        return data.replace(b"\n", b""), offsets
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return b"".join(encoded), offsets


class ChunkTagger:
    """A trained :class:`~maltpy.tagging.tagger.Tagger` on scanned chunks; read only, so that
    threads may share it."""

    def __init__(self, tagger, retag=None):
        from maltpy.features.featmap import FeatMap
        import threading

        from maltpy.tagging import chunks, perceptron
        self.tagger = tagger
        self.model = model = tagger._fitted()
        self._buffers = threading.local()    # per thread: threads share the tagger, not buffers
        self.retag = tagger.retag if retag is None else retag
        self.columns = model.columns
        self.runtime = tagger._runtime()
        # the id of FEATS _ (no features), for sentences that give FEATS
        self.empty_feats = self.runtime[1].get("feats", {}).get("_", len(model.vocab.get("feats", ())))
        # each column's values as bytes (what is written) and as keys (what given fields are looked up by)
        self.pools, self.value_maps = {}, {}
        for c in self.columns:
            self.pools[c] = _pool(model.vocab[c])
            # id k <-> value k (64-bit keys of distinct strings: from_keys refuses a collision)
            self.value_maps[c] = FeatMap.from_keys(np.array(
                [chunks.value_key(v.encode("utf-8", "surrogatepass")) for v in model.vocab[c]], dtype=np.uint64))
        self.tag_pool = b"".join(self.pools[c][0] for c in self.columns if c != "lemma")
        shift = 0
        self.tag_offsets = {}
        for c in self.columns:
            if c != "lemma":
                self.tag_offsets[c] = self.pools[c][1] + shift
                shift += len(self.pools[c][0])
        if "lemma" in self.columns:
            rules = [parse_rule(r) for r in model.vocab["lemma"]]
            self.rule_cases = np.array([CASE_CODES[r[0]] if r else 0 for r in rules], dtype=np.int8)
            self.rule_cuts = np.array([r[1] if r else -1 for r in rules], dtype=np.int32)
            self.rule_tails = np.array([r[2] if r else -1 for r in rules], dtype=np.int32)
            self.add_pool, self.add_offsets = _pool([r[3] if r else "" for r in rules])
            # the (form, UPOS) -> lemma dictionary as hashed keys and a pool of lemmas; tens of
            # thousands of entries, so column by column (map and compress run in C), not entry by entry
            form_list = [f for f, _ in model.lemmas]
            lemma_list = list(model.lemmas.values())
            if "upos" in model.vocab:
                upos_ids = {v: i for i, v in enumerate(model.vocab["upos"])}
                ids = list(map(upos_ids.get, (u for _, u in model.lemmas), repeat(-2)))
                known = [i != -2 for i in ids]    # a UPOS the tagger never gives: not looked up
                if not all(known):
                    form_list, lemma_list, ids = (list(compress(x, known)) for x in (form_list, lemma_list, ids))
            else:
                ids = [-1] * len(form_list)
            from maltpy.tagging.words import words_from_forms
            forms = words_from_forms(form_list)
            keys = chunks.pair_keys(perceptron.form_hashes(forms.cps, forms.wstart), np.array(ids, dtype=np.int32))
            self.dictionary = FeatMap.from_keys(keys)
            self.lemma_pool, self.lemma_offsets = _pool(lemma_list)

    def _atom_buffer(self, n_words: int, kinds) -> np.ndarray:
        """This thread's buffer for the words' atoms, grown as chunks need."""
        buffer = getattr(self._buffers, "atoms", None)
        if buffer is None or buffer.shape[0] < n_words:
            buffer = np.empty((max(n_words, 1) + (n_words >> 2), max(len(kinds), 1)), dtype=np.uint64)
            self._buffers.atoms = buffer
        return buffer

    def _score_buffer(self):
        """This thread's memory for an ensemble's scores (None without an ensemble)."""
        if not self.model.members:
            return None
        buffer = getattr(self._buffers, "scores", None)
        if buffer is None:
            from maltpy.tagging.tagger import ENSEMBLE_BLOCK_SCORES
            buffer = self._buffers.scores = np.empty(ENSEMBLE_BLOCK_SCORES, dtype=np.float32)
        return buffer

    def __call__(self, chunk) -> bytes:
        """The chunk's output bytes, its words tagged."""
        if not chunk.n_sentences:     # the lines after the last sentence, or nothing
            empty = np.zeros((0, 0), dtype=np.int64)
            return chunk.render_fields(np.zeros(0, dtype=np.int32), empty, empty, b"")
        return chunk.render_fields(*self._fields(chunk))

    def chunk_out(self, chunk):
        """The chunk of the output's bytes, its words tagged, as a scan of them gives it: what a
        pipeline's next step reads (a chunk of sentences)."""
        return chunk.with_fields(*self._fields(chunk))

    def _fields(self, chunk):
        """(columns, starts, ends, pool): the fields the tagger writes into the chunk's words, as
        :meth:`~maltpy.formats.scan.Chunk.render_fields` takes them."""
        from maltpy.tagging import chunks
        from maltpy.tagging.tagger import N_ROWS
        from maltpy.tagging.words import words_of_chunk
        model = self.model
        words = words_of_chunk(chunk)
        sstart = words.sstart
        n = words.n_words
        values = np.full((N_ROWS, n), -1, dtype=np.int32)
        fixed = np.zeros((N_ROWS, n), dtype=np.int8)
        if not self.retag and n:
            lengths = np.diff(sstart)
            for c in self.columns:
                ids = chunks.field_ids(chunk, TAG_COLUMNS[c], self.value_maps[c], len(model.vocab[c]))
                if not len(sstart) > 1:
                    whole = np.zeros(0, bool)
                elif c == "feats":    # _ is an empty feature set where other words have features
                    whole = np.maximum.reduceat(ids >= 0, sstart[:-1])
                    ids = np.where(ids >= 0, ids, self.empty_feats)
                else:
                    whole = np.minimum.reduceat(ids >= 0, sstart[:-1])
                kept = np.repeat(whole.astype(bool), lengths)
                fixed[ROW[c]] = kept
                values[ROW[c]] = np.where(kept, ids if c != "lemma" else len(model.vocab[c]), -1)
        entries = None

        def dictionary_words(form_keys):
            nonlocal entries
            upos = values[ROW["upos"]] if "upos" in model.vocab else np.full(n, -1, dtype=np.int32)
            if "upos" in model.vocab:    # a given UPOS the tagger never saw finds no entry
                upos = np.where(upos < len(model.vocab["upos"]), upos, -2).astype(np.int32)
            entries = chunks.dictionary_entries(chunks.pair_keys(form_keys, upos), self.dictionary)
            return (entries >= 0).astype(np.int8)

        self.tagger._predict_groups(words, values, fixed, dictionary_words,
                                    self._atom_buffer(n, self.runtime[3]), self._score_buffer())
        columns = [c for c in self.columns if c != "lemma"]
        starts = np.full((len(self.columns), n), -1, dtype=np.int64)
        ends = np.full((len(self.columns), n), -1, dtype=np.int64)
        for k, c in enumerate(columns):
            free = fixed[ROW[c]] == 0
            # a given value keeps its bytes: its id (past the known ones when the tagger never saw
            # it) indexes nothing
            row = np.where(free, values[ROW[c]], 0)
            offsets = self.tag_offsets[c]
            starts[k] = np.where(free, offsets[row], -1)
            ends[k] = np.where(free, offsets[row + 1], -1)
        pool = self.tag_pool
        if "lemma" in self.columns:
            wanted = (fixed[ROW["lemma"]] == 0).astype(np.int8)
            lemma_bytes, lemma_starts, lemma_ends = chunks.make_lemmas(
                words.cps, words.low, words.wstart, entries, values[ROW["lemma"]], wanted,
                self.lemma_pool, self.lemma_offsets, self.rule_cases, self.rule_cuts, self.rule_tails,
                self.add_pool, self.add_offsets)
            k = len(columns)
            starts[k] = np.where(lemma_starts >= 0, lemma_starts + len(pool), -1)
            ends[k] = np.where(lemma_starts >= 0, lemma_ends + len(pool), -1)
            pool += lemma_bytes
            columns.append("lemma")
        return np.array([TAG_COLUMNS[c] for c in columns], dtype=np.int32), starts, ends, pool
