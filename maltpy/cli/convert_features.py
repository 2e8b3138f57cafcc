"""``maltpy convert-features``: a MaltParser XML feature model as YAML."""
from __future__ import annotations


from maltpy.cli.common import ArgumentParser
import os

from maltpy.errors import MaltpyError


def cmd_convert_features(argv):
    from maltpy.features.spec import convert_maltparser_xml
    from maltpy.formats.conll import atomic_output
    p = ArgumentParser(prog="maltpy convert-features",
                                description="Convert a MaltParser XML feature model to maltpy YAML.")
    p.add_argument("xml", help="MaltParser feature model (.xml)")
    p.add_argument("-o", help="output YAML file (default: standard output)")
    a = p.parse_args(argv)
    try:
        with open(a.xml, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MaltpyError(f"{a.xml}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise MaltpyError(f"{a.xml}: not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start}); "
                          "expected a MaltParser XML feature model") from None
    models = convert_maltparser_xml(text, a.xml)
    with atomic_output(a.o) as out:
        for k, m in enumerate(models):
            if k:
                out.write("---\n")
            out.write(m.to_yaml(f"converted from {os.path.basename(a.xml)} by maltpy convert-features"))
