"""The helpers the studies in experiments/ share (maltpy.experiments.languages)."""
import argparse

import pytest

from maltpy.errors import MaltpyError
from maltpy.formats.conll import read_conll
from conftest import EXAMPLES


def _args(tmp_path, conll2007):
    ap = argparse.ArgumentParser()
    from maltpy.experiments.languages import add_study_arguments
    add_study_arguments(ap, str(tmp_path / "ud"), conll2007=True)
    return ap.parse_args(["--languages", "--conll2007", str(conll2007)])


def test_conll2007_files_join_a_study_in_conllx_and_latin1_is_read_as_utf8(tmp_path):
    """--conll2007 DIR: the Spanish and Basque files join the study as CoNLL-X treebanks with
    MaltParser's root label; a file in ISO-8859-1 (the Basque one) is read through a UTF-8 copy,
    and the data directory is left as it was."""
    from maltpy.experiments.languages import NAMES, study_paths, treebank_format, ud_split
    text = open(f"{EXAMPLES}/toy-train.conll", encoding="utf-8").read()
    accented = text.replace("1\tthe\t", "1\tñandú\t", 1)   # a form ISO-8859-1 and UTF-8 write differently
    data = tmp_path / "conll2007"
    data.mkdir()
    (data / "esp.train").write_text(accented, encoding="utf-8")
    (data / "eus.train").write_bytes(accented.encode("latin-1"))
    paths = study_paths(_args(tmp_path, data))
    assert set(paths) == {"esp", "eus"} and "Basque" in NAMES["eus"]
    assert paths["esp"] == str(data / "esp.train") and paths["eus"] != str(data / "eus.train")
    assert (data / "eus.train").read_bytes() == accented.encode("latin-1")
    assert treebank_format(paths["eus"]) == ("conllx", "ROOT")
    train, test = ud_split(paths["eus"])
    whole = read_conll(str(data / "esp.train"), "conllx", need_heads=True)
    assert whole[0].forms[0] == "ñandú" and [s.forms for s in train + test] == [s.forms for s in whole]
    assert 0 < len(test) < len(train)


def test_a_missing_conll2007_file_is_a_one_line_error(tmp_path):
    from maltpy.experiments.languages import study_paths
    with pytest.raises(MaltpyError, match="esp.train"):
        study_paths(_args(tmp_path, tmp_path))


def test_studies_split_libsvm_models_on_the_formats_tag_column():
    from maltpy.experiments.languages import learner_settings
    assert learner_settings("libsvm", "nivreeager", fmt="conllu")["split_column"] == "UPOSTAG"
    assert learner_settings("libsvm", "nivreeager", fmt="conllx")["split_column"] == "POSTAG"
