"""Text as the arrays the compiled tokenizer reads: code points, their lowercase and their classes."""
from __future__ import annotations

import numpy as np


def char_arrays(text: str):
    """(code points, lowercased code points, classes) of ``text``
    (:func:`maltpy.tokenizing.segment.classify`)."""
    from maltpy.tokenizing import segment
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    low = np.empty_like(cps)
    cls = np.empty(len(cps), dtype=np.uint8)
    segment.classify(cps, low, cls)
    return cps, low, cls
