"""MaltParser's long option names (--config-name=test, --name=test) on maltpy's command line."""
import os
import xml.etree.ElementTree as ET

import pytest

import maltpy
from maltpy.cli.longnames import maltparser_options, translate
from maltpy.cli.main import _main_parser, main
from maltpy.errors import UsageError
from conftest import EXAMPLES, SHARED

TRAIN = os.path.join(EXAMPLES, "toy-train.conll")
TEST = os.path.join(EXAMPLES, "toy-test.conll")


def _translate(argv):
    options = _main_parser(with_choices=False)._option_string_actions
    return translate(argv, [o for o in options if o.startswith("--")], options)


def test_the_table_is_maltparsers_options_xml():
    path = os.path.join(SHARED, "reference", "maltparser", "options.xml")
    if not os.path.exists(path):
        pytest.skip(f"{path} not available")
    root = ET.parse(path).getroot()
    expected = [(g.get("groupname"), o.get("name"), o.get("flag"))
                for g in root.iter("optiongroup") for o in g.iter("option")]
    assert maltparser_options() == expected


@pytest.mark.parametrize("argv, flags", [
    (["--config-name=m", "--config-flowchart=learn"], ["-c", "m", "-m", "learn"]),
    (["--name=m", "--infile", "a b.conll"], ["-c", "m", "-i", "a b.conll"]),     # a name no other group has
    (["--input-format=conllu", "--output-format", "conllx"], ["-if", "conllu", "-of", "conllx"]),
    (["--lib-options=-s 4 -c 0.1", "--guide-features=x.yaml"], ["-lo", "-s 4 -c 0.1", "-F", "x.yaml"]),
    (["--nivre-allow_root=false", "--covington-allow_root=true"], ["-nr", "false", "-cr", "true"]),
    (["--value=a=b"], ["--value=a=b"]),          # not MaltParser's: left to argparse
    (["--beam=4", "--quiet", "--", "--name=x"], ["--beam=4", "--quiet", "--", "--name=x"]),   # maltpy's own
])
def test_long_names_become_flags(argv, flags):
    assert _translate(argv) == flags


@pytest.mark.parametrize("argv, message", [
    (["--format=conllu"], "--input-format or --output-format"),
    (["--allow_root=true"], "--nivre-allow_root or --covington-allow_root"),
    (["--config-workingdir=."], "MaltParser's -w"),
    (["--system-verbosity=info"], "MaltParser's -v"),        # maltpy's -v takes no level
    (["--system-help=yes"], "takes no value"),
    (["-q", "--infile"], "needs a value"),
])
def test_ambiguous_and_missing_long_names_are_usage_errors(argv, message, capsys):
    with pytest.raises(UsageError, match=message):
        _translate(argv)
    assert main(argv + ["-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_maltparser_command_line_learns_and_parses_as_the_flags_do(tmp_path):
    by_flags, by_names = tmp_path / "a.mpz", tmp_path / "b.mpz"
    assert main(["-c", str(by_flags), "-m", "learn", "-i", TRAIN, "-a", "stackproj", "-q"]) == 0
    assert main([f"--config-name={by_names}", "--config-flowchart=learn", f"--input-infile={TRAIN}",
                 "--singlemalt-parsing_algorithm=stackproj", "-q"]) == 0
    assert maltpy.load(str(by_names)).settings.algorithm == "stackproj"
    out_a, out_b = tmp_path / "a.conll", tmp_path / "b.conll"
    assert main(["-c", str(by_flags), "-i", TEST, "-o", str(out_a), "-q"]) == 0
    assert main([f"--name={by_names}", f"--infile={TEST}", "--outfile", str(out_b), "-q"]) == 0
    assert out_a.read_bytes() == out_b.read_bytes()
