"""``maltpy combine``: a left-to-right and a right-to-left parse combined."""
from __future__ import annotations

import sys

from maltpy.cli.common import ArgumentParser, _non_negative_int, _read_for_good


def cmd_combine(argv):
    from maltpy.formats.conll import detect_format, read_conll, write_conll
    from maltpy.transform.combine import CRITERIA, combine_sentences
    p = ArgumentParser(
        prog="maltpy combine",
        description="Combine a left-to-right and a right-to-left parse of the same file (Fernández-González, "
                    "Gómez-Rodríguez & Vilares): each word takes its head and label from the first parser "
                    "when its position (or the first parser's arc length) is at most PARAM, else from the "
                    "second; a sentence whose result has a cycle keeps the left-to-right parse.",
        epilog="example: maltpy combine ltr.conll rtl.conll --criterion position --param 7 -o combined.conll")
    p.add_argument("ltr", help="the left-to-right parse")
    p.add_argument("rtl", help="the right-to-left parse (-dir rtl) of the same text")
    p.add_argument("--criterion", choices=CRITERIA, default="position",
                   help="position: the word's position; length: the first parser's arc length (default position)")
    p.add_argument("--param", type=_non_negative_int, required=True,
                   help="the largest position/length the first parser decides (0: the second parser everywhere)")
    p.add_argument("--first", choices=("ltr", "rtl"), default="ltr",
                   help="which parse is the first parser (default ltr: ARC+REV in the paper; rtl: REV+ARC)")
    p.add_argument("-if", dest="fmt", choices=("conllx", "conllu"), help="format of both files")
    p.add_argument("-ic", dest="charset", default="UTF-8", metavar="CHARSET",
                   help="character encoding of the files (default UTF-8; e.g. ISO-8859-1)")
    p.add_argument("-o", metavar="FILE", help="output file (default: standard output)")
    a = p.parse_args(argv)
    fmt = a.fmt or detect_format(a.ltr)
    ltr = _read_for_good(read_conll, a.ltr, fmt, need_heads=True)
    rtl = _read_for_good(read_conll, a.rtl, a.fmt or detect_format(a.rtl), need_heads=True)
    out, fallbacks = combine_sentences(ltr, rtl, a.criterion, a.param, a.first, source=(a.ltr, a.rtl))
    write_conll(out, a.o)
    print(f"maltpy: combined {len(out)} sentences ({a.criterion} <= {a.param}, {a.first} first); "
          f"{fallbacks} kept the left-to-right parse because of a cycle", file=sys.stderr)
