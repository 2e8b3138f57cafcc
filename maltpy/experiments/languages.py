"""The 13 CoNLL-X languages as UD treebanks in ``../shared/data/ud``, shared by the studies in
``experiments/``: their codes, names, and the 90/10 split of ``train.conllu`` they use; also the
CoNLL 2007 Spanish and Basque files (``--conll2007``), in their own, pre-UD annotation."""
import os

from maltpy.config import available_cores
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


#: CoNLL 2007 treebanks (``--conll2007 DIR``): code -> (file name, name in the tables)
CONLL2007 = {"esp": ("esp.train", "Spanish (CoNLL 2007)"), "eus": ("eus.train", "Basque (CoNLL 2007)")}


#: the label of root arcs: UD's, and the CoNLL 2007 files' (MaltParser's default, -grl)
ROOT_LABELS = {"conllu": "root", "conllx": "ROOT"}


def treebank_format(path: str):
    """(input format, root label) of a study's treebank: UD's for .conllu, CoNLL-X's otherwise."""
    fmt = "conllu" if path.endswith(".conllu") else "conllx"
    return fmt, ROOT_LABELS[fmt]


def ud_split(path: str, holdout: float = 0.1):
    """(train, test) sentences: the first 90% of a treebank (a UD train.conllu or a CoNLL 2007
    file) and the last 10%."""
    from maltpy.experiments.runner import holdout_split
    from maltpy.formats.conll import read_conll
    return holdout_split(read_conll(path, treebank_format(path)[0], need_heads=True), holdout)


def study_paths(args) -> dict:
    """Treebank code -> path for a study's ``--data``/``--languages`` and, with ``--conll2007 DIR``,
    the CoNLL 2007 files there (a UTF-8 copy in a temporary directory where the file is
    ISO-8859-1, as the Basque one is)."""
    paths = treebank_paths(args.data, args.languages)
    if getattr(args, "conll2007", None):
        import tempfile
        work = None
        for key, (name, label) in CONLL2007.items():
            path = os.path.join(args.conll2007, name)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise MaltpyError(f"{path}: {e.strerror or e}") from None
            NAMES[key] = label
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                work = work or tempfile.mkdtemp(prefix="maltpy-conll2007-")
                path = os.path.join(work, name)
                with open(path, "wb") as f:
                    f.write(data.decode("latin-1").encode("utf-8"))
            paths[key] = path
    return paths


def add_study_arguments(parser, default_data: str, conll2007: bool = False) -> None:
    """The options every 13-language study in ``experiments/`` takes: where the treebanks are,
    which languages, the held-out share, permutation-test rounds, worker processes, output file;
    with ``conll2007``, ``--conll2007 DIR`` too (the study reads its paths with :func:`study_paths`)."""
    parser.add_argument("--data", default=default_data, help="directory of the UD treebanks (LANG/train.conllu)")
    parser.add_argument("--languages", nargs="*", default=UD_LANGUAGES)
    if conll2007:
        parser.add_argument("--conll2007", metavar="DIR", help="also the CoNLL 2007 Spanish and Basque training "
                            "files in DIR (esp.train, eus.train; their own annotation, not UD), 90/10 split")
    parser.add_argument("--holdout", type=float, default=0.1, help="held-out share of each train.conllu")
    parser.add_argument("--rounds", type=int, default=10000, help="permutation-test rounds")
    parser.add_argument("--jobs", type=int, default=available_cores(), help="processes (one model each)")
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


def learner_settings(learner: str, algorithm: str, language: str = "", fmt: str = "conllu") -> dict:
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
    return {"learner": "libsvm", "split_column": "UPOSTAG" if fmt == "conllu" else "POSTAG",
            "split_structure": structure,
            "split_threshold": SVM_SPLIT_THRESHOLD}


def write_tables(text: str, path=None) -> None:
    """A study's Markdown to ``path``, or to standard output."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text)
