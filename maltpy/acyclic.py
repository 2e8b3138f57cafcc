"""Making many objects without reference cycles (a treebank read whole, a file's parsed trees)
with the cyclic garbage collector paused: otherwise their allocations set it off again and
again, and every collection walks them all and frees nothing."""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def acyclic(keep: bool = False):
    """The collector paused inside the block; ``keep``: what was made lives until the process
    ends, and ``gc.freeze`` exempts it from later collections too."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
        if was_enabled:
            gc.enable()
