"""Progress bars for long work: on a terminal only, nothing in pipes or logs."""
import sys

_BAR = None     # the bar's class, made on first use (tqdm is imported only for a terminal)


def progress_bar(total, desc, enabled, unit="sent"):
    """A tqdm bar on standard error when ``enabled`` and it is a terminal, else None; callers
    test it with ``if bar``."""
    global _BAR
    if not enabled or not sys.stderr.isatty():
        return None
    if _BAR is None:
        from tqdm import tqdm

        class Bar(tqdm):
            """A bar that is true whatever its total: tqdm 4.70 makes ``bool()`` of a bar
            without a total a TypeError (and of one with a total of 0 false)."""

            def __bool__(self):
                return True
        _BAR = Bar
    return _BAR(total=total, desc=desc, unit=unit, leave=False, file=sys.stderr)
