"""Feature models chosen per language and system on the training data alone, as the thesis's papers
tuned theirs (their files are not published): greedy forward selection, MaltOptimizer's way.

Starting from a base model, each round trains one parser per candidate template (the base plus the
templates chosen so far plus that candidate) on the first part of the training sentences, scores
LAS without punctuation on the rest, and keeps the best candidate if it gains at least
``min_gain``. The test part of a study is never read here.
"""
import os
import tempfile
import time
from typing import List, Sequence

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

#: the same for Covington's algorithms (Left[0] and Right[0] are the pair it may link); in undirected
#: mode head/ldep/rdep read the closest, leftmost and rightmost linked nodes
COVINGTON_CANDIDATES = [
    "InputColumn(FORM, Left[1])",
    "InputColumn(FORM, Right[2])",
    "InputColumn(LEMMA, Left[0])",
    "InputColumn(LEMMA, Right[0])",
    "InputColumn(XPOSTAG, Left[0])",
    "InputColumn(XPOSTAG, Right[0])",
    "InputColumn(UPOSTAG, head(Left[0]))",
    "InputColumn(UPOSTAG, ldep(Right[0]))",
    "InputColumn(UPOSTAG, rdep(Left[0]))",
    "Merge(InputColumn(FORM, Left[0]), InputColumn(UPOSTAG, Right[0]))",
    "Merge(InputColumn(UPOSTAG, Left[0]), InputColumn(FORM, Right[0]))",
    "Merge(InputColumn(UPOSTAG, Left[0]), Distance(Left[0], Right[0], 0|1|2|3|4|5|6|8|10))",
]


def default_features(settings: dict) -> List[str]:
    """The templates of the feature model a parser with ``settings`` uses by default."""
    from maltpy.features.resolve import resolve_feature_model
    model, _ = resolve_feature_model(None, settings["algorithm"], settings.get("learner", "liblinear"),
                                     settings["input_format"], undirected=settings.get("undirected", "none"),
                                     buffer_transitions=settings.get("buffer_transitions", "none"))
    return [str(f) for f in model.features]


def model_text(name: str, features: Sequence[str]) -> str:
    """A feature model file's YAML for ``features``."""
    return f"name: {name}\nfeatures:\n" + "".join(f"  - {f}\n" for f in features)


def templates_cell(features: Sequence[str]) -> str:
    """A Markdown table cell listing the templates a search added."""
    return "; ".join(f"`{f}`" for f in features) or "none"


def model_file(workdir: str, features: Sequence[str], name: str = "search") -> str:
    """A new feature model file in ``workdir`` holding ``features``; its path."""
    fd, path = tempfile.mkstemp(suffix=".yaml", prefix=name + "-", dir=workdir)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(model_text(name, features))
    return path


def fit_with(train, features: Sequence[str], settings: dict, workdir: str):
    """A parser trained on ``train`` with the feature model ``features``."""
    from maltpy.parsing.parser import Parser
    path = model_file(workdir, features)
    try:
        return Parser(make_settings(features=path, **settings)).fit(train, fmt=settings["input_format"])
    finally:
        os.unlink(path)


def score(train, dev, features: Sequence[str], settings: dict, workdir: str, part: str = "no_punct") -> float:
    """LAS on ``dev`` (``part``: no_punct or all) of a parser trained on ``train`` with ``features``."""
    return evaluate(dev, fit_with(train, features, settings, workdir).parse(dev))[part].las


def forward_selection(train, base: Sequence[str], candidates: Sequence[str], settings: dict,
                      inner_holdout: float = 0.1, rounds: int = 3, min_gain: float = 0.1, part: str = "no_punct"):
    """Greedy forward selection on ``train`` alone (its last ``inner_holdout`` scores; ``part``: LAS
    without punctuation or with it).

    Returns ``(features, history)``: the chosen model (base first) and, per round, the
    (template, LAS) of every candidate tried, the round's best first."""
    from maltpy.experiments.runner import holdout_split
    inner_train, inner_dev = holdout_split(list(train), inner_holdout)
    chosen: List[str] = list(base)
    history = []
    with tempfile.TemporaryDirectory(prefix="maltpy-features-") as workdir:
        best = score(inner_train, inner_dev, chosen, settings, workdir, part)
        history.append([("(base)", best)])
        for _ in range(rounds):
            tried = [(c, score(inner_train, inner_dev, chosen + [c], settings, workdir, part))
                     for c in candidates if c not in chosen]
            if not tried:
                break
            tried.sort(key=lambda t: -t[1])
            history.append(tried)
            if tried[0][1] < best + min_gain:
                break
            chosen.append(tried[0][0])
            best = tried[0][1]
    return chosen, history


def tune_then_parse(train, test, candidates: Sequence[str], settings: dict, rounds: int = 3,
                    part: str = "no_punct") -> dict:
    """Choose a feature model on ``train`` alone (from the default model for ``settings``), then train
    on all of ``train`` and parse ``test``: the parsed sentences, the templates added and the
    search's time."""
    base = default_features(settings)
    t0 = time.perf_counter()
    chosen, _ = forward_selection(train, base, candidates, settings, rounds=rounds, part=part)
    search_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="maltpy-features-") as workdir:
        out = fit_with(train, chosen, settings, workdir).parse(test)
    return {"out": out, "added": chosen[len(base):], "search_s": search_s}
