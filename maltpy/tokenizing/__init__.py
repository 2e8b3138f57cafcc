"""The tokenizer: raw text into sentences, tokens and syntactic words, learned from a UD treebank
(:class:`~maltpy.tokenizing.tokenizer.Tokenizer`)."""
