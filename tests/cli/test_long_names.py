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
    (["--system-verbosity=off"], ["-v", "off"]),
    (["--value=a=b"], ["--value=a=b"]),          # not MaltParser's: left to argparse
    (["--beam=4", "--quiet", "--", "--name=x"], ["--beam=4", "--quiet", "--", "--name=x"]),   # maltpy's own
])
def test_long_names_become_flags(argv, flags):
    assert _translate(argv) == flags


@pytest.mark.parametrize("argv, message", [
    (["--format=conllu"], "--input-format or --output-format"),
    (["--allow_root=true"], "--nivre-allow_root or --covington-allow_root"),
    (["--config-workingdir=."], "MaltParser's -w"),
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


def _option_file(path, groups, containers=1):
    """An option file as MaltParser's user guide writes one: ``groups`` {group: {name: value}}."""
    body = "".join(f'    <optiongroup groupname="{g}">\n'
                   + "".join(f'      <option name="{n}" value="{v}"/>\n' for n, v in options.items())
                   + "    </optiongroup>\n" for g, options in groups.items())
    text = '<?xml version="1.0" encoding="UTF-8"?>\n<experiment>\n' + (
        "  <optioncontainer>\n" + body + "  </optioncontainer>\n") * containers + "</experiment>\n"
    path.write_text(text)
    return str(path)


def test_an_option_file_learns_as_its_flags_and_the_command_line_overrides_it(tmp_path):
    model = tmp_path / "f.mpz"
    path = _option_file(tmp_path / "options.xml", {
        "config": {"name": model, "flowchart": "learn"},
        "singlemalt": {"parsing_algorithm": "nivrestandard"},
        "input": {"infile": TRAIN},
        "nivre": {"allow_root": "false"}})
    assert main(["-f", path, "-q"]) == 0
    settings = maltpy.load(str(model)).settings
    assert (settings.algorithm, settings.allow_root) == ("nivrestandard", False)
    assert main(["-f", path, "-a", "stackproj", "-q"]) == 0      # the command line's -a wins
    assert maltpy.load(str(model)).settings.algorithm == "stackproj"
    out_f, out_flags = tmp_path / "f.conll", tmp_path / "flags.conll"
    parse = _option_file(tmp_path / "parse.xml", {"config": {"name": model}, "input": {"infile": TEST},
                                                   "output": {"outfile": out_f}})
    assert main([f"-f={parse}", "-q"]) == 0
    assert main(["-c", str(model), "-i", TEST, "-o", str(out_flags), "-q"]) == 0
    assert out_f.read_bytes() == out_flags.read_bytes()


def test_only_the_first_option_container_is_read(tmp_path, capsys):
    path = _option_file(tmp_path / "two.xml", {"config": {"name": tmp_path / "m.mpz", "flowchart": "learn"},
                                               "input": {"infile": TRAIN}}, containers=2)
    # the second container names another model and system: not read
    text = open(path).read()
    last = text.rindex("<optioncontainer>")
    with open(path, "w") as f:
        f.write(text[:last] + text[last:].replace("m.mpz", "other.mpz").replace(
            '<optiongroup groupname="input">', '<optiongroup groupname="singlemalt"><option '
            'name="parsing_algorithm" value="covnonproj"/></optiongroup><optiongroup groupname="input">'))
    assert main(["-f", path, "-q"]) == 0
    assert "only the first of its 2 option containers is read" in capsys.readouterr().err
    assert maltpy.load(str(tmp_path / "m.mpz")).settings.algorithm == "nivreeager"
    assert not (tmp_path / "other.mpz").exists()


@pytest.mark.parametrize("text, message", [
    ('<experiment><optioncontainer>\n<optiongroup groupname="config"><option name="workingdir" value="."/>'
     "</optiongroup></optioncontainer></experiment>", "options.xml:2: config/workingdir (MaltParser's -w) is not"),
    ('<experiment><optioncontainer>\n\n<optiongroup groupname="input"><option name="colour" value="red"/>'
     "</optiongroup></optioncontainer></experiment>", "options.xml:3: input/colour is not one of MaltParser's"),
    ('<experiment><optioncontainer><optiongroup groupname="input">\n<option name="infile"/>'
     "</optiongroup></optioncontainer></experiment>", "options.xml:2: <option> needs a name and a value"),
    ("<options/>", "options.xml:1: a MaltParser option file begins with <experiment>"),
    ('<experiment><optioncontainer><optiongroup groupname="system"><option name="option_file" value="o.xml"/>'
     "</optiongroup></optioncontainer></experiment>", "options.xml:1: an option file cannot name another"),
    ("<experiment>\n<optioncontainer>\n", "options.xml:3: not an XML option file"),
    ("<experiment></experiment>", "no <optioncontainer>"),
    ("\x00\x01binary", "options.xml:1: not an XML option file"),
    ('<!DOCTYPE e [\n<!ENTITY a "aaaa">\n]><experiment/>', "options.xml:2: the option file declares an entity"),
])
def test_bad_option_files_are_one_line_errors_naming_file_and_line(tmp_path, capsys, text, message):
    (tmp_path / "options.xml").write_text(text)
    assert main(["-f", str(tmp_path / "options.xml"), "-q"]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_option_file_usage_errors(tmp_path, capsys):
    assert main(["-f", str(tmp_path / "missing.xml"), "-q"]) == 1
    assert "missing.xml: cannot read the option file" in capsys.readouterr().err
    assert main(["-q", "-f"]) == 2
    assert "-f needs the option file's path" in capsys.readouterr().err
    assert main(["-f", "a.xml", "-f", "b.xml"]) == 2
    assert "one option file at most" in capsys.readouterr().err


@pytest.mark.parametrize("level, shown", [("off", False), ("error", False), ("info", True), ("debug", True),
                                          (None, True)])
def test_maltparsers_verbosity_levels(model, tmp_path, capsys, level, shown):
    # learning says what it does at info and debug (and with a bare -v), nothing at off to warn
    assert main(["-c", str(tmp_path / "v.mpz"), "-m", "learn", "-i", TRAIN, "-v"] + ([level] if level else [])) == 0
    assert bool(capsys.readouterr().err) == shown


def test_an_unknown_verbosity_level_is_a_usage_error(capsys):
    assert main(["-v", "loud"]) == 2
    err = capsys.readouterr().err
    assert "off, fatal, error, warn, info, debug" in err and err.count("\n") == 1
