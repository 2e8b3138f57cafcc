"""Tagging and lemmatizing: UPOS, XPOS, FEATS and LEMMA learned from a treebank
(:class:`maltpy.tagging.tagger.Tagger`), the component in front of the parser."""
