"""The 13 CoNLL-X languages as UD treebanks in ``../shared/data/ud``, shared by the studies in
``experiments/``: their codes, names, and the 90/10 split of ``train.conllu`` they use."""
import os

from maltpy.errors import MaltpyError

UD_LANGUAGES = ["ar", "bg", "cs", "da", "de", "es", "ja", "nl", "pt", "sl", "sv", "tr", "zh"]
NAMES = {"ar": "Arabic", "bg": "Bulgarian", "cs": "Czech", "da": "Danish", "de": "German",
         "es": "Spanish", "ja": "Japanese", "nl": "Dutch", "pt": "Portuguese", "sl": "Slovene",
         "sv": "Swedish", "tr": "Turkish", "zh": "Chinese"}


def treebank_paths(data: str, languages) -> dict:
    """language -> its train.conllu under ``data``; a missing one is a MaltpyError."""
    paths = {lang: os.path.join(data, lang, "train.conllu") for lang in languages}
    for path in paths.values():
        if not os.path.exists(path):
            raise MaltpyError(f"{path} not found")
    return paths


def ud_split(path: str, holdout: float = 0.1):
    """(train, test) sentences: the first 90% of a UD train.conllu and the last 10%."""
    from maltpy.experiments.runner import holdout_split
    from maltpy.formats.conll import read_conll
    return holdout_split(read_conll(path, "conllu", need_heads=True), holdout)


def add_study_arguments(parser, default_data: str) -> None:
    """The options every 13-language study in ``experiments/`` takes: where the treebanks are,
    which languages, the held-out share, permutation-test rounds, worker processes, output file."""
    parser.add_argument("--data", default=default_data, help="directory of the UD treebanks (LANG/train.conllu)")
    parser.add_argument("--languages", nargs="*", default=UD_LANGUAGES)
    parser.add_argument("--holdout", type=float, default=0.1, help="held-out share of each train.conllu")
    parser.add_argument("--rounds", type=int, default=10000, help="permutation-test rounds")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (one model each)")
    parser.add_argument("-o", help="write the Markdown tables here (default: standard output)")
    parser.add_argument("--learner", choices=("liblinear", "libsvm", "thesis"), default="liblinear",
                        help="liblinear: its defaults (default); libsvm: MaltParser's CoNLL-X set-up (data split "
                             "on the POS of the first buffer word, -T 1000); thesis: LIBSVM for the languages the "
                             "thesis's papers trained with it (ar da pt sv tr), LIBLINEAR for the others")


#: LIBSVM's data split threshold in the studies: MaltParser's CoNLL-X set-up (fewer instances go to the
#: model of the rest)
SVM_SPLIT_THRESHOLD = 1000


#: the CoNLL-X languages of the thesis's papers (undirected, buffer transitions, reverse parsing)
THESIS_LANGUAGES = ["ar", "cs", "da", "de", "pt", "sv", "tr", "zh"]
#: those the papers trained with LIBSVM; LIBLINEAR for Czech, German and Chinese (larger sets)
THESIS_LIBSVM = {"ar", "da", "pt", "sv", "tr"}


def average_subsets(items, language=lambda item: item, whose="thesis's"):
    """The rows a study averages: ``("**Average**", items)`` and, when only some of them are, the
    thesis's languages as ``("Average, the <whose> languages (n)", those items)``; ``language``
    gives an item's language code."""
    thesis = [item for item in items if language(item) in THESIS_LANGUAGES]
    subsets = [("**Average**", list(items))]
    if thesis and len(thesis) < len(items):
        subsets.append((f"Average, the {whose} languages ({len(thesis)})", thesis))
    return subsets


def learner_settings(learner: str, algorithm: str, language: str = "") -> dict:
    """The settings a study passes for its ``--learner``: nothing for LIBLINEAR (its defaults); for LIBSVM
    MaltParser's defaults with the data split on the first buffer word's UPOS, which MaltParser's option
    guide names for each family (``Right[0]`` for Covington's algorithms, ``Input[0]`` for the others);
    ``thesis``: LIBSVM for the ``language``s of :data:`THESIS_LIBSVM`, LIBLINEAR for the others."""
    if learner == "thesis":
        learner = "libsvm" if language in THESIS_LIBSVM else "liblinear"
    if learner == "liblinear":
        return {}
    if learner != "libsvm":
        raise MaltpyError(f"unknown study learner {learner!r}; use liblinear, libsvm or thesis")
    structure = "Right[0]" if algorithm.startswith("cov") else "Input[0]"
    return {"learner": "libsvm", "split_column": "UPOSTAG", "split_structure": structure,
            "split_threshold": SVM_SPLIT_THRESHOLD}


def write_tables(text: str, path=None) -> None:
    """A study's Markdown to ``path``, or to standard output."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text)
