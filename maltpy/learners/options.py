"""MaltParser's ``-lo`` strings: the learner's own command-line flags, underscores for spaces."""
from maltpy.errors import MaltpyError


def parse_flags(text: str, defaults: dict, kinds: dict, learner: str) -> dict:
    """``"-s 4 -c 0.1"`` -> ``{**defaults, "s": 4, "c": 0.1}``; ``kinds`` gives each flag's type."""
    opts = dict(defaults)
    tokens = (text or "").replace("_", " ").split()
    if len(tokens) % 2:
        raise MaltpyError(f"{learner} options {text!r}: every flag needs a value, e.g. '-s 0 -c 1'")
    for flag, value in zip(tokens[::2], tokens[1::2]):
        key = flag.lstrip("-")
        if key not in kinds:
            raise MaltpyError(f"{learner} option {flag} is not supported; use "
                              + ", ".join("-" + k for k in kinds))
        try:
            opts[key] = kinds[key](value)
        except ValueError:
            raise MaltpyError(f"{learner} option {flag} needs a number, got {value!r}") from None
        if opts[key] != opts[key] or opts[key] in (float("inf"), float("-inf")):
            raise MaltpyError(f"{learner} option {flag} needs a finite number, got {value!r}")
    return opts


def require_positive(opts: dict, keys, learner: str) -> None:
    """Refuse a cost, tolerance or other parameter that must be above zero."""
    for key in keys:
        if key in opts and not opts[key] > 0:
            raise MaltpyError(f"{learner} option -{key} must be greater than 0, got {opts[key]:g}")
