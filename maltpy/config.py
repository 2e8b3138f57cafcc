"""Settings for learning and parsing: defaults, YAML configuration files, MaltParser flags.

Every setting has a maltpy name (used in YAML and the Python API) and, where
MaltParser has the same option, MaltParser's long name (accepted in YAML as
an alias) and short flag (accepted on the command line).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Optional


from maltpy.errors import MaltpyError


def available_cores() -> int:
    """The cores this process may run on, which ``jobs = 0`` means: its CPU affinity (as taskset
    or a container's cpuset restricts it) where the system has one, else the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def threads(jobs: int) -> int:
    """The threads the ``jobs`` setting asks for: ``jobs`` itself, or for 0 (the default) every
    core the process may use (:func:`available_cores`). The one place that rule is said."""
    return jobs or available_cores()


@dataclass(frozen=True)
class Flag:
    """A command-line flag of a setting: MaltParser's short flag where MaltParser has the option,
    the placeholder ``--help`` shows for its value, and its help text."""
    flag: str
    metavar: str
    help: str
    long: Optional[str] = None     # a long spelling as well ("--jobs")
    bare: Optional[str] = None     # the value of the flag given alone (``--arc-scores`` is true)

    @property
    def dest(self) -> str:
        """The argparse attribute that holds the flag's value."""
        return (self.long or self.flag).lstrip("-")


def _setting(default, *flags: Flag):
    """A setting's default and its command-line flags, declared together: the command line, YAML
    files, the API and the model files all read them from :class:`Settings`."""
    return field(default=default, metadata={"flags": flags})


@dataclass
class Settings:
    """All settings. ``None`` means "decide from the data" (formats, feature model).

    Each setting is declared once, here: its name (the YAML key and keyword argument), type,
    default and command-line flags with their help; the allowed values of a setting with a fixed
    set come from the modules that implement them (:func:`choices`)."""
    model: Optional[str] = None            # -c (the CLI's: a configuration file or the model file)
    input: Optional[str] = _setting(None, Flag("-i", "FILE", "input file; '-' or absent: standard input; a quoted pattern "
                                                           "('corpus/*.conllu') with -o outdir/: several files for "
                                                           "-m parse, tag and tokenize"))
    learn_input: Optional[str] = None      # YAML only: what -m learn reads when -i is not given
    parse_input: Optional[str] = None      # YAML only: what -m parse reads when -i is not given
    output: Optional[str] = _setting(None, Flag("-o", "FILE", "output file; '-' or absent: standard output; a directory (outdir/) with several inputs: "
                                                             "each written there under its own name (a .txt file's as .conllu)"))
    input_format: Optional[str] = _setting(None, Flag(
        "-if", "FORMAT", "input format: conllx, conllu or ptb (bracketed trees); for -m parse/-m tag also "
                         "horizontal (one sentence a line, words separated by spaces) and vertical (one word a "
                         "line, a blank line after each sentence), UDPipe's, and text (raw text, for a model with a "
                         "tokenizer); for -m convert also export "
                         "(Negra export, discontinuous trees) and discbracket (default: .conllu files are "
                         "conllu, .mrg and .ptb files ptb, .txt text for a model with a tokenizer, .export export, .discbracket "
                         "discbracket, else conllx)"))
    input_charset: str = _setting("UTF-8", Flag(
        "-ic", "CHARSET", "character encoding of the input files, with MaltParser's names: UTF-8 (default), ISO-8859-1, "
                          "windows-1252, ..."))
    output_charset: Optional[str] = _setting(None, Flag(
        "-oc", "CHARSET", "character encoding of the output (default: the input's, -ic)"))
    output_format: Optional[str] = _setting(None, Flag(
        "-of", "FORMAT", "output format (default: the input format; a constituent parser writes ptb, "
                         "one bracketed tree per line); for -m parse/-m tag/-m tokenize/-m convert also horizontal (the words, "
                         "a sentence a line) and vertical (a word a line), UDPipe's"))
    algorithm: str = _setting("nivreeager", Flag(
        "-a", "ALGORITHM", "parsing algorithm (transition system): {choices}; default nivreeager"))
    features: Optional[str] = _setting(None, Flag(
        "-F", "NAME|PATH", "feature model: a shipped name (NivreEager ...) or a .yaml/.xml file "
                           "(default: MaltParser's model for the algorithm, learner and input format; its U* "
                           "counterpart with -ud, NivreEagerBuffer with -bt rba)"))
    learner: str = _setting("liblinear", Flag(
        "-l", "LEARNER", "learner: liblinear (default), libsvm (kernel SVM; slower, use with a data split "
                         "-d/-s/-T) or perceptron (averaged perceptron; -lo '-i EPOCHS -s SEED -k "
                         "FIRST_EXPLORING_EPOCH -p EXPLORE_PROBABILITY -f MIN_COUNT', default -i 15 -s 0 -k 1 "
                         "-p 0.9 -f 1; -f N: feature values seen fewer than N times get no weights)"))
    learner_options: str = _setting("", Flag(
        "-lo", "OPTIONS", "learner options: liblinear '-s_4_-c_0.1_-e_0.1_-B_-1' (default; maltpy's -f N: feature "
                          "values seen fewer than N times get no weights); libsvm svm-train "
                          "flags, default '-s_0_-t_1_-d_2_-g_0.2_-r_0_-c_1_-e_1.0' (MaltParser's; Nivre 2008 "
                          "used -c 0.5); perceptron '-i 15 -s 0' (epochs, seed; -or dynamic: -k 1 -p 0.9, "
                          "the epochs before exploring and its probability; -f N; with -b: -u max|early, "
                          "the update, and -m 4, the mini-batch); a value may start with '-': "
                          "-lo \"-s 0 -c 0.5\""))
    split_column: Optional[str] = _setting(None, Flag("-d", "COLUMN", "data split column, e.g. POSTAG"))
    split_structure: Optional[str] = _setting(None, Flag("-s", "STRUCTURE", "data split structure, e.g. Input[0]"))
    split_threshold: int = _setting(50, Flag("-T", "N", "data split threshold (default 50)"))
    root_label: str = _setting("ROOT", Flag("-grl", "LABEL", "root label for words left unattached (default ROOT)"))
    roots: str = _setting("auto", Flag(
        "-ro", "MODE", "words on the root in the output: one (exactly one, labelled root, the others attached "
                       "to it, as UD's eval.py and validate.py require), any (MaltParser's: every word left "
                       "unattached hangs from the root with -grl's label), or auto (default: one for CoNLL-U "
                       "output, any for CoNLL-X; a parse-time option)", long="--roots"))
    allow_root: bool = _setting(True, Flag("-nr", "BOOL", "nivre allow_root (default true)"),
                                Flag("-cr", "BOOL", "covington allow_root (default true)"))
    allow_reduce: bool = _setting(False, Flag("-ne", "BOOL", "nivre allow_reduce (default false)"))
    enforce_tree: bool = _setting(False, Flag(
        "-nt", "BOOL", "nivre enforce_tree: parse with the tree constraint (default false; a model parses with the "
               "value it was learned with unless -m parse gives -nt)"))
    allow_shift: bool = _setting(False, Flag("-cs", "BOOL", "covington allow_shift (default false)"))
    connectedness: str = _setting("none", Flag(
        "-pcon", "MODE", "planar connectedness: none (default), reduceonly, full"))
    acyclicity: bool = _setting(True, Flag("-pacy", "BOOL", "planar/2planar acyclicity (default true)"))
    no_covered_roots: bool = _setting(False, Flag("-pcov", "BOOL", "planar/2planar no_covered_roots (default false)"))
    planar_root_handling: str = _setting("normal", Flag(
        "-prh", "MODE", "planar/2planar planar_root_handling: normal (default), relaxed"))
    reduceonswitch: bool = _setting(False, Flag("-2pr", "BOOL", "2planar reduceonswitch (default false)"))
    marking_strategy: str = _setting("none", Flag(
        "-pp", "STRATEGY", "pseudo-projective marking strategy: none (default), baseline, head, path, head+path"))
    covered_root: str = _setting("none", Flag(
        "-pcr", "MODE", "pseudo-projective covered roots: none (default), ignore, left, right, head"))
    lifting_order: str = _setting("shortest", Flag(
        "-plo", "ORDER", "pseudo-projective lifting order: shortest (default), deepest"))
    null_value: str = _setting("one", Flag(
        "-nv", "MODE", "null feature values: one (default: no node, root and unlabeled node alike), "
                       "rootnode (the root apart), novalue (the root and unlabeled nodes apart)"))
    buffer_transitions: str = _setting("none", Flag(
        "-bt", "MOVES", "nivreeager buffer transitions (Fernández-González & Gómez-Rodríguez 2012): none "
                        "(default), lba, rba, lnba, rnba, or several joined by + (with rba the default "
                        "feature model is NivreEagerBuffer)"))
    buffer_oracle: str = _setting("always", Flag(
        "-bo", "WHEN", "when the training oracle takes LNBA and RNBA: always (default) when they build a gold "
                       "arc without losing another, as the paper; needed: only where b0 is not a gold dependent "
                       "of the arc's head, so arc-eager could not build the arc next (maltpy's; "
                       "docs/buffer-transitions.md)"))
    buffer_arc_length: str = _setting("one", Flag(
        "-bal", "LENGTH", "which gold arcs the training oracle builds with LBA and RBA: one (default) those of "
                          "length 1, as the paper; any: also longer ones between the first two buffer words, "
                          "which gaps that RBA and RNBA leave in the buffer allow (the paper's 'whatever the "
                          "length')"))
    direction: str = _setting("ltr", Flag(
        "-dir", "DIRECTION", "parse left to right (ltr, default), right to left (rtl: the sentence reversed, "
                             "the root still node 0; the output is in the input's order), or both: one model "
                             "file with a parser each way whose parses are combined (Fernández-González et al.), "
                             "criterion, order and parameter chosen by cross-validation on the training data"))
    combination_folds: int = _setting(10, Flag(
        "-cv", "FOLDS", "folds of that cross-validation (default 10, as the paper)"))
    reverse_features: Optional[str] = _setting(None, Flag(
        "-Frtl", "NAME|PATH", "with -dir both: the right-to-left parser's feature model, as the paper tuned "
                              "each direction's apart (default: the same as -F)"))
    oracle: str = _setting("static", Flag(
        "-or", "ORACLE", "static (default): learn from the oracle's transitions; dynamic: with -l perceptron, "
                         "learn inside the transition loop from the dynamic oracle, exploring the model's own "
                         "errors (nivreeager: Goldberg & Nivre 2012; covnonproj: the thesis's); with -b above 1, "
                         "the gold sequence of global training takes the model's best move among those that "
                         "lose no gold arc"))
    undirected: str = _setting("none", Flag(
        "-ud", "MODE", "undirected parsing with planar, 2planar or covnonproj (Gómez-Rodríguez & "
                       "Fernández-González): links without direction, then the tree with the fewest "
                       "contradictions; none (default), naive, or label (each link's label learns its "
                       "direction)"))
    constituent_encoding: str = _setting("delta", Flag(
        "-ce", "ENCODING", "constituent parsing (training on .mrg trees): how attachment order is written in "
                           "the dependency labels, delta (default) or direct (Fernández-González & Martins 2015)"))
    head_rules: str = _setting("collins", Flag(
        "-hr", "RULES", "constituent parsing: head rules, collins (default), leftmost, rightmost, or a YAML "
                        "rule file (see maltpy/transform/headrules/collins.yaml); for discontinuous trees "
                        "(export files), alpino or negra (NEGRA, TIGER) by their edge labels (with collins, "
                        "the default there: the child whose edge is hd or HD, else the first phrasal child)"))
    secondary_edges: bool = _setting(True, Flag(
        "--secondary-edges", "BOOL", "-m convert of export files: keep their secondary edges (default true; false: "
                                     "the primary tree alone, as most evaluators and parsers read it)"))
    constraints: str = _setting("false", Flag(
        "--constraints", "MODE", "keep the arcs the input gives (constrained parsing; nivreeager and covnonproj): "
                                 "a HEAD with a DEPREL fixes both, a HEAD with _ as DEPREL the head only, a "
                                 "DEPREL without a HEAD nothing; false (default: the input's HEAD and DEPREL "
                                 "are ignored), true (an arc the system cannot keep is a warning), strict (it "
                                 "is an error); alone: true; a parse-time option", bare="true"))
    arc_scores: bool = _setting(False, Flag(
        "--arc-scores", "BOOL", "write each arc's score, how sure the parser was (the margin of the decision "
                                "that built it over the second-best move; 0 for an arc the end of parsing "
                                "made), as Score= in CoNLL-U's MISC column (default false; alone: true; a "
                                "parse-time option)", bare="true"))
    beam_width: int = _setting(1, Flag(
        "-b", "WIDTH", "beam width (default 1: greedy search); wider: beam search over the same decision step, with "
                       "any linear model, and with -l perceptron global training (a structured perceptron, "
                       "max-violation updates; -lo '-u early' for early update); a parse-time option: -m parse "
                       "-b K parses a model with K instead of its own width (a narrower beam is faster: "
                       "docs/discontinuous.md)",
        long="--beam"))
    beam_scores: str = _setting("auto", Flag(
        "--beam-scores", "MODE", "what a beam (-b) adds up: sum (each decision's raw score, as global training "
                                 "learns them), local (the log-probability of each decision, a softmax over "
                                 "its scores times the learner's temperature, for models trained on single "
                                 "decisions), local:T (temperature T), or auto (default: sum for a model trained "
                                 "with a beam, local otherwise); a parse-time option"))
    beam_margin: str = _setting("none", Flag(
        "--beam-margin", "M", "with a beam (-b): drop the candidates that score more than M below the best "
                              "one of their step, so that a step whose best move stands out keeps fewer "
                              "items (faster; M in what the beam adds up: raw scores for a model trained "
                              "with a beam); default none; a parse-time option, kept in the model when "
                              "given to -m learn (docs/discontinuous.md: a margin chosen on held-out data)"))
    nbest: int = _setting(1, Flag(
        "--nbest", "K", "with a beam (-b): write the K best parses of each sentence, best first, each with "
                        "# nbest and # score comments (default 1; a parse-time option)"))
    confidence: bool = _setting(False, Flag(
        "--confidence", "BOOL", "with a beam (-b): each arc's confidence, the summed probability of the final "
                                "beam's parses that have it, as Conf= in CoNLL-U's MISC (default false; alone: true; a "
                                "parse-time option)", bare="true"))
    search: str = _setting("greedy", Flag(
        "--search", "STRATEGY", "search strategy: greedy (default: the best-scoring permissible move at each "
                                "decision, as MaltParser) or beam (what -b above 1 chooses; with -l perceptron "
                                "and -b 1, global training with greedy search); a parse-time option"))
    tagger: Optional[str] = _setting(None, Flag(
        "--tagger", "COLUMNS", "-m learn: learn a tagger and lemmatizer with the parser, from the same treebank, "
                               "for these columns: upos,xpos,feats,lemma, or all (those the training data has; "
                               "CoNLL-X: upos is CPOSTAG, xpos POSTAG; '+' joins columns tagged jointly, as "
                               "upos+xpos+feats); -m parse then tags the words whose columns are _ (from .mrg or "
                               ".export trees: a tagger of their words and tags in front of the constituent "
                               "parser). Behind a "
                               "tagger, a nivreeager parser whose -l, -lo, -or, -F and -b are not given learns "
                               "with -l perceptron -or dynamic -F NivreEagerMorph -nt true (NivreEagerMorphClusters "
                               "with --clusters) from 10-fold "
                               "jackknifed tags (better on predicted tags, nearly as fast; -l liblinear for "
                               "MaltParser's defaults) (default: no tagger)"))
    tagger_folds: int = _setting(1, Flag(
        "--tagger-folds", "K", "jackknifing: with K of 2 or more the parser learns from tags that a tagger trained "
                               "on the other K-1 parts of the training data gave each part (default 10 behind the "
                               "default parser, NivreEagerMorph, which reads them better: EWT dev +0.9 LAS; "
                               "1, the gold tags, behind any other: docs/tagging.md)"))
    tagger_epochs: int = _setting(10, Flag(
        "--tagger-epochs", "N", "the tagger's passes over the training data (default 10)"))
    tagger_ensemble: int = _setting(1, Flag(
        "--tagger-ensemble", "K", "K taggers learn each column but the lemma, half of them reading right to left, "
                                  "and add up their scores for every word: more accurate (2 is where the gain is), "
                                  "K times the tagger's learning and tagging time (EWT dev: docs/tagging.md, \"Ensembles\"; the fold taggers of "
                                  "--tagger-folds are ensembles too, unless --tagger-fold-ensemble says) (default 1)"))
    tagger_fold_ensemble: int = _setting(0, Flag(
        "--tagger-fold-ensemble", "K", "the fold taggers of --tagger-folds: ensembles of K taggers each (default 0: "
                                       "as many as --tagger-ensemble, so that the parser learns from tags like those "
                                       "it will read; 1 behind --tagger-ensemble 2 about halves the jackknifing's "
                                       "time: docs/tagging.md, \"Ensembles\")"))
    tagger_templates: Optional[str] = _setting(None, Flag(
        "--tagger-templates", "FILE|NAME", "the tagger's feature templates, a YAML file or a shipped set by name: "
                                           "default (feature_models/tagger/default.yaml, any language) or "
                                           "english (more casing context, and the PTB tags before the word for a joint "
                                           "upos+xpos group: docs/tagging.md)"))
    clusters: Optional[str] = _setting(None, Flag(
        "--clusters", "FILE", "word clusters learned on unannotated text, brown-cluster's paths file "
                                     "(cluster<TAB>word[<TAB>count] a line): the tagger (Cluster templates) and "
                                     "the parser (Cluster features: -F NivreEagerMorphClusters, the default behind a "
                                     "tagger then) read them for the words the treebank lacks, and the model file "
                                     "keeps the tables they read (EWT dev: docs/tagging.md) (default: none)"))
    tokenizer: bool = _setting(False, Flag(
        "--tokenizer", "BOOL", "-m learn: learn a tokenizer from the CoNLL-U treebank's text (# text, SpaceAfter=No, "
                               "# newpar, multiword tokens) with the parser, so that -m parse reads raw text (-if "
                               "text, .txt files) and writes UD trees (default false; alone: true)", bare="true"))
    parser: bool = _setting(True, Flag(
        "--parser", "BOOL", "-m learn: learn the parser (default true; false with --tagger or --tokenizer learns "
                            "those alone, as UDPipe's --parser=none: a model for -m tag and -m tokenize, learned "
                            "without jackknifing)", bare="true"))
    tokenizer_epochs: int = _setting(10, Flag(
        "--tokenizer-epochs", "N", "the tokenizer's passes over the training text (default 10)"))
    presegmented: bool = _setting(False, Flag(
        "--presegmented", "BOOL", "-if text: one sentence a line, as UDPipe's tokenizer option of that name (default "
                                  "false: the tokenizer finds the sentences; a blank line always ends a paragraph; "
                                  "alone: true)", bare="true"))
    ensemble_margin: str = _setting("none", Flag(
        "--ensemble-margin", "M", "with --tagger-ensemble: a word whose first tagger's best class scores at least M "
                                  "above its second takes that class, and the other taggers score only the rest "
                                  "(faster, nearly the same tags; EWT, two joint taggers with the English templates: "
                                  "16); default none: every tagger scores every word; "
                                  "a -m parse/-m tag option, kept in the model when given to -m learn "
                                  "(docs/tagging.md)"))
    retag: bool = _setting(False, Flag(
        "--retag", "BOOL", "-m parse/-m tag with a tagger: replace the tags the input gives (default false: a "
                           "column a sentence gives whole, without _, is kept and the parser reads it; alone: "
                           "true)", bare="true"))
    jobs: int = _setting(0, Flag(
        "-j", "N", "threads: -m parse parses chunks of the input on N threads (the output does not depend on "
                   "N); -m learn trains split models side by side, and a model trained alone gets a second "
                   "thread (the same model for any N; default 0: all the cores the process may use)",
        long="--jobs"))
    verbose: bool = True                   # progress and messages on a terminal (the CLI's -v / -q)

    def system_options(self, cls) -> dict:
        """The options of this system class taken from these settings."""
        return {k: getattr(self, k) for k in cls.options if hasattr(self, k)}


#: MaltParser long option names accepted as YAML keys.
ALIASES = {
    "name": "model", "config": "model", "infile": "input", "outfile": "output",
    "parsing_algorithm": "algorithm", "guide_features": "features",
    "data_split_column": "split_column", "data_split_structure": "split_structure",
    "data_split_threshold": "split_threshold", "lib_options": "learner_options",
    "options": "learner_options", "format": "input_format",
    "pp": "marking_strategy", "pproj": "marking_strategy",
}


def cli_flags() -> list:
    """(setting name, :class:`Flag`) for every command-line flag of a setting, in declaration order."""
    return [(f.name, flag) for f in dataclasses.fields(Settings) for flag in f.metadata.get("flags", ())]


#: command-line flag -> setting (MaltParser's short flags and maltpy's own)
FLAGS = {flag.flag: name for name, flag in cli_flags()}


def flag_of(name: str) -> str:
    """The command-line flag a user types for setting ``name`` (its first), or the name itself
    for a setting without one."""
    return next((flag.flag for setting, flag in cli_flags() if setting == name), name)

_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}
#: settings that name files (relative paths in a configuration file are relative to it)
PATH_SETTINGS = ("model", "input", "learn_input", "parse_input", "output")
#: settings naming files that learning reads (relative paths in a configuration file are relative
#: to it, as PATH_SETTINGS)
LEARN_FILE_SETTINGS = ("clusters",)
#: settings of one run, not of the trained parser (not stored in model files)
RUN_SETTINGS = PATH_SETTINGS + ("verbose", "jobs", "input_charset", "output_charset")
#: how one run reads and writes its files (a model keeps the format it learned from, not these)
READ_WRITE_SETTINGS = ("input_format", "output_format", "presegmented")
#: settings of the tagger and tokenizer components and of -m convert, not of the parser (not stored in a
#: parser's model)
NON_PARSER_SETTINGS = ("tagger", "tagger_folds", "tagger_epochs", "tagger_ensemble", "tagger_fold_ensemble",
                       "tagger_templates", "clusters", "retag",
                       "ensemble_margin",
                       "tokenizer",
                       "parser", "tokenizer_epochs", "presegmented", "secondary_edges")
#: settings stored with a model that a parse may change (Parser.load's overrides)
PARSE_SETTINGS = ("enforce_tree", "roots", "search", "constraints", "arc_scores", "beam_width", "beam_scores",
                  "beam_margin", "nbest", "confidence")


#: the settings whose choice by the user leaves a parser behind a tagger at MaltParser's defaults
PIPELINE_PARSER_CHOICES = ("learner", "learner_options", "oracle", "features", "beam_width", "search")


def pipeline_parser(settings: "Settings", chosen) -> "Settings":
    """``settings`` for a parser learned behind a tagger: its system's ``pipeline_settings`` (for
    nivreeager the lean online parser, better on predicted tags, docs/tagging.md), unless the user
    chose (``chosen``: the names of the settings given by flags, configuration file or keyword) any
    of :data:`PIPELINE_PARSER_CHOICES`; a chosen ``enforce_tree`` or ``tagger_folds`` is kept.
    With ``clusters`` the features are the system's with the clusters' (``NivreEagerMorphClusters``)."""
    from maltpy.systems import pipeline_settings
    chosen = {ALIASES.get(name, name) for name in chosen}
    preset = pipeline_settings(settings.algorithm, bool(settings.clusters))
    if not settings.tagger or not preset or chosen & set(PIPELINE_PARSER_CHOICES):
        return settings
    return dataclasses.replace(settings, **{k: v for k, v in preset.items() if k not in chosen})


NULL_VALUES = ("one", "rootnode", "novalue")

#: integer settings -> (smallest value, what it means); -cv's upper bound is checked on the data
INT_MINIMUM = {
    "jobs": (0, "0 means all cores"),
    "split_threshold": (0, "a split value needs more than this many instances for a model of its own"),
    "combination_folds": (2, "folds of the cross-validation"),
    "beam_width": (1, "1 is greedy search"),
    "nbest": (1, "the parses written per sentence"),
    "tagger_folds": (1, "1 trains the parser on gold tags"),
    "tagger_epochs": (1, "passes over the training data"),
    "tagger_ensemble": (1, "1 is one tagger"),
    "tagger_fold_ensemble": (0, "0 is as many taggers as --tagger-ensemble"),
    "tokenizer_epochs": (1, "passes over the training text"),
}


#: integer settings -> (largest value, why): each is a size the C loops allocate by or a count
#: they hold in a C integer
INT_MAXIMUM = {
    "jobs": (4096, "threads at once; 0 means all cores"),
    "tagger_folds": (1000, "taggers learned to tag the parser's training data"),
    "tagger_epochs": (10000, "passes over the training data"),
    "tagger_ensemble": (64, "taggers learned and run"),
    "tagger_fold_ensemble": (64, "taggers learned for each fold"),
    "tokenizer_epochs": (10000, "passes over the training text"),
    "beam_width": (4096, "items kept at each step of the search"),
    "nbest": (4096, "parses written per sentence, at most the beam's width"),
}


def _values(module: str, name: str):
    """A function giving module ``module``'s ``name`` as a tuple, importing the module when called."""
    def values():
        import importlib
        return tuple(getattr(importlib.import_module(module), name))
    return values


def _input_formats():
    from maltpy.formats.conll import FORMATS
    from maltpy.formats.export import DISCONTINUOUS_FORMATS
    from maltpy.formats.plain import PLAIN_FORMATS
    from maltpy.formats.text import TEXT_FORMATS
    return FORMATS + ("ptb",) + PLAIN_FORMATS + TEXT_FORMATS + DISCONTINUOUS_FORMATS


def _output_formats():
    from maltpy.formats.conll import FORMATS
    from maltpy.formats.export import DISCONTINUOUS_FORMATS
    from maltpy.formats.plain import PLAIN_FORMATS
    return FORMATS + ("ptb",) + DISCONTINUOUS_FORMATS + PLAIN_FORMATS


#: settings with a fixed set of values -> the function giving them, from the module that implements
#: them; each imported only when its setting is given (all of them together took 12-15 ms, as
#: long as the rest of a tagging command's settings). The systems' own options come after these.
_CHOICE_SOURCES = {
    "algorithm": _values("maltpy.systems", "SYSTEMS"),
    "learner": _values("maltpy.learners", "LEARNERS"),
    "input_format": _input_formats,
    "output_format": _output_formats,
    "constituent_encoding": _values("maltpy.transform.constituents", "ENCODINGS"),
    "marking_strategy": _values("maltpy.transform.pseudoproj", "MARKING_STRATEGIES"),
    "covered_root": _values("maltpy.transform.pseudoproj", "COVERED_ROOT"),
    "lifting_order": _values("maltpy.transform.pseudoproj", "LIFTING_ORDERS"),
    "null_value": lambda: NULL_VALUES,
    "direction": _values("maltpy.transform.reverse", "DIRECTIONS"),
    "oracle": lambda: ("static", "dynamic"),
    "roots": _values("maltpy.transform.single_root", "ROOT_MODES"),
    "search": _values("maltpy.search", "STRATEGIES"),
    "constraints": lambda: ("false", "true", "strict"),
}


def choices_of(name: str) -> Optional[tuple]:
    """Setting ``name``'s allowed values (None: any value of its type)."""
    source = _CHOICE_SOURCES.get(name)
    if source is not None:
        return source()
    from maltpy.systems import option_choices
    return option_choices().get(name)


def choices() -> dict:
    """Setting -> its allowed values, taken from the modules that implement them."""
    from maltpy.systems import option_choices
    return {name: choices_of(name) for name in (*_CHOICE_SOURCES, *option_choices())}


def check_ensemble_margin(margin) -> Optional[float]:
    """A tagger ensemble's margin (a number, or its text as ``--ensemble-margin`` takes it) as a
    float above 0; None or "none": every member scores every word."""
    if margin is None or (isinstance(margin, str) and margin.strip().lower() == "none"):
        return None
    try:
        value = float(margin) if not isinstance(margin, bool) else float("nan")
    except (TypeError, ValueError):
        value = float("nan")
    if not 0 < value < float("inf"):
        raise MaltpyError(f"the ensemble's margin is a number above 0 or none, not {margin!r}")
    return value


def coerce(name: str, value, source: str):
    """Convert a YAML or command-line value to the setting's type, with a clear error."""
    f = _FIELDS[name]
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    if value is None:
        if f.default is not None:
            raise MaltpyError(f"{source}: {name} needs a value (default: {f.default})")
        return None
    if "bool" in kind:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off"):
            return False
        raise MaltpyError(f"{source}: {name} must be true or false, got {value!r}")
    if "int" in kind:
        try:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError(value)   # YAML's true or 2.5: int() would take them silently
            number = int(value)
        except (TypeError, ValueError, OverflowError):
            raise MaltpyError(f"{source}: {name} must be an integer, got {value!r}") from None
        if name in INT_MINIMUM and number < INT_MINIMUM[name][0]:
            least, meaning = INT_MINIMUM[name]
            raise MaltpyError(f"{source}: {name} must be at least {least} ({meaning}), got {number}")
        if name in INT_MAXIMUM and number > INT_MAXIMUM[name][0]:
            most, meaning = INT_MAXIMUM[name]
            raise MaltpyError(f"{source}: {name} must be at most {most} ({meaning}), got {number}")
        return number
    if isinstance(value, (list, dict)):
        raise MaltpyError(f"{source}: {name} must be text, got {value!r}")
    if name in ("input_charset", "output_charset"):
        from maltpy.formats.charset import codec_name
        try:
            codec_name(value, flag_of(name))
        except MaltpyError as e:
            raise MaltpyError(f"{source}: {e}") from None
        return str(value)
    if name == "ensemble_margin":
        try:
            check_ensemble_margin(value)
            return str(value).strip().lower()
        except MaltpyError as e:
            raise MaltpyError(f"{source}: {e}") from None
    if name in ("beam_scores", "beam_margin"):     # text that the beam's own parsers check
        from maltpy.search.strategy import parse_beam_margin, parse_beam_scores
        check = parse_beam_scores if name == "beam_scores" else parse_beam_margin
        try:
            check(value)
            return str(value).strip().lower()
        except MaltpyError as e:
            raise MaltpyError(f"{source}: {e}") from None
    from maltpy.systems import option_parser
    read_option = option_parser(name)
    if read_option is not None:    # a system's option read by the system's own function
        try:
            return read_option(value)
        except MaltpyError as e:
            raise MaltpyError(f"{source}: {e}") from None
    allowed = choices_of(name)
    if allowed is not None and str(value) not in allowed:
        raise MaltpyError(f"{source}: {name} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def load_config(path: str) -> dict:
    """Read a YAML configuration file into a dict of setting name -> value."""
    import yaml
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except FileNotFoundError:
        raise MaltpyError(f"{path}: configuration file not found") from None
    except OSError as e:   # a directory, a name too long, no permission
        raise MaltpyError(f"{path}: cannot read the configuration file ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        raise MaltpyError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from None
    except UnicodeDecodeError:
        raise MaltpyError(f"{path}: configuration file is not UTF-8 text") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MaltpyError(f"{path}: a configuration must be a mapping of setting: value")
    out = {}
    base = os.path.dirname(os.path.abspath(path))
    for key, value in data.items():
        name = ALIASES.get(str(key).replace("-", "_"), str(key).replace("-", "_"))
        if name not in _FIELDS:
            raise MaltpyError(f"{path}: unknown setting {key!r}; known settings: "
                              f"{', '.join(n for n in _FIELDS if n != 'verbose')}")
        value = coerce(name, value, path)
        # paths in a configuration file are relative to the file
        if name in PATH_SETTINGS + LEARN_FILE_SETTINGS and value and value != "-" and not os.path.isabs(value):
            value = os.path.join(base, value)
        # these take a file or a shipped name: only a value that looks like a path is a file's
        if name in ("features", "reverse_features", "tagger_templates") and value \
                and ("/" in value or value.endswith((".yaml", ".yml", ".xml"))) and not os.path.isabs(value):
            value = os.path.join(base, value)
        if name == "head_rules" and value not in ("collins", "leftmost", "rightmost", "alpino", "negra") \
                and not os.path.isabs(value):
            value = os.path.join(base, value)
        out[name] = value
    return out


def make_settings(**values) -> Settings:
    """Settings from keyword arguments, checking names and types."""
    clean = {}
    for key, value in values.items():
        name = ALIASES.get(key, key)
        if name not in _FIELDS:
            raise MaltpyError(f"unknown setting {key!r}; known settings: {', '.join(_FIELDS)}")
        clean[name] = coerce(name, value, "settings")
    return Settings(**clean)
