"""Progress bars for long work: on a terminal only, nothing in pipes or logs."""
import sys


def progress_bar(total, desc, enabled, unit="sent"):
    """A tqdm bar on standard error when ``enabled`` and it is a terminal, else None."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit=unit, leave=False, file=sys.stderr)
