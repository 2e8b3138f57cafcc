"""Feature models chosen per language and system on the training data alone, as the thesis's papers
tuned theirs (their files are not published): greedy forward selection, MaltOptimizer's way.

Starting from a base model, each round trains one parser per candidate template (the base plus the
templates chosen so far plus that candidate) on the first part of the training sentences, scores
LAS without punctuation on the rest, and keeps the best candidate if it gains at least
``min_gain``. The test part of a study is never read here.
"""
import os
import tempfile
from typing import Callable, List, Optional, Sequence

from maltpy.config import make_settings
from maltpy.evaluation.scores import evaluate

#: templates tried on top of maltpy's default arc-eager CoNLL-U model: the words, lemmas and
#: fine tags around the first two buffer words and the stack top (which buffer transitions
#: link), and the structure next to them
ARC_EAGER_CANDIDATES = [
    "InputColumn(FORM, Input[2])",
    "InputColumn(FORM, Stack[1])",
    "InputColumn(LEMMA, Stack[0])",
    "InputColumn(LEMMA, Input[0])",
    "InputColumn(LEMMA, Input[1])",
    "InputColumn(XPOSTAG, Stack[0])",
    "InputColumn(XPOSTAG, Input[0])",
    "InputColumn(XPOSTAG, Input[1])",
    "InputColumn(UPOSTAG, Stack[2])",
    "InputColumn(UPOSTAG, head(Stack[0]))",
    "InputColumn(UPOSTAG, ldep(Input[0]))",
    "InputColumn(UPOSTAG, rdep(Stack[0]))",
    "Merge(InputColumn(UPOSTAG, Input[0]), InputColumn(UPOSTAG, Input[1]))",
    "Merge(InputColumn(FORM, Stack[0]), InputColumn(UPOSTAG, Input[0]))",
    "Merge(InputColumn(UPOSTAG, Stack[0]), InputColumn(FORM, Input[0]))",
    "Merge(InputColumn(UPOSTAG, Stack[0]), Distance(Stack[0], Input[0], 0|1|2|3|4|5|6|8|10))",
]


def model_text(name: str, features: Sequence[str]) -> str:
    """A feature model file's YAML for ``features``."""
    return f"name: {name}\nfeatures:\n" + "".join(f"  - {f}\n" for f in features)


def score(train, dev, features: Sequence[str], settings: dict, workdir: str) -> float:
    """LAS without punctuation on ``dev`` of a parser trained on ``train`` with ``features``."""
    from maltpy.parsing.parser import Parser
    fd, path = tempfile.mkstemp(suffix=".yaml", dir=workdir)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(model_text("search", features))
    try:
        parser = Parser(make_settings(features=path, **settings)).fit(train, fmt=settings["input_format"])
        return evaluate(dev, parser.parse(dev))["no_punct"].las
    finally:
        os.unlink(path)


def forward_selection(train, base: Sequence[str], candidates: Sequence[str], settings: dict,
                      inner_holdout: float = 0.1, rounds: int = 3, min_gain: float = 0.1,
                      log: Optional[Callable[[str], None]] = None):
    """Greedy forward selection on ``train`` alone (its last ``inner_holdout`` scores).

    Returns ``(features, history)``: the chosen model (base first) and, per round, the
    (template, LAS) of every candidate tried, the round's best first."""
    from maltpy.experiments.runner import holdout_split
    inner_train, inner_dev = holdout_split(list(train), inner_holdout)
    chosen: List[str] = list(base)
    history = []
    with tempfile.TemporaryDirectory(prefix="maltpy-features-") as workdir:
        best = score(inner_train, inner_dev, chosen, settings, workdir)
        history.append([("(base)", best)])
        for _ in range(rounds):
            tried = [(c, score(inner_train, inner_dev, chosen + [c], settings, workdir))
                     for c in candidates if c not in chosen]
            if not tried:
                break
            tried.sort(key=lambda t: -t[1])
            history.append(tried)
            if log:
                log(f"  best {tried[0][0]} {tried[0][1]:.2f} (from {best:.2f})")
            if tried[0][1] < best + min_gain:
                break
            chosen.append(tried[0][0])
            best = tried[0][1]
    return chosen, history
