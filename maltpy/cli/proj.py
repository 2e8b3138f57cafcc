"""``maltpy -m proj`` and ``-m deproj``: pseudo-projective encoding and decoding of files."""
from __future__ import annotations


from maltpy.cli.common import _detect, _in_output_charset, _input, _read_for_good
from maltpy.errors import MaltpyError


def run_pseudo_projective(settings, log, mode):
    """-m proj / -m deproj: MaltParser's pseudo-projective transformation on a file (read in -ic's
    encoding, written in -oc's)."""
    from maltpy.formats.conll import read_conll, write_conll
    from maltpy.transform import PseudoProjective
    pp = PseudoProjective(settings.marking_strategy, settings.covered_root, settings.lifting_order)
    if not pp.active:
        raise MaltpyError(f"-m {mode} needs a marking strategy, e.g. -pp head (or -pcr)")
    fmt = _detect(settings.input, settings.input_format) or "conllx"
    sentences = _read_for_good(read_conll, _input(settings), fmt, need_heads=True)
    fn = pp.projectivize if mode == "proj" else pp.deprojectivize
    out, lifted = [], 0
    for sent in sentences:
        new = pp.apply(fn, sent)
        lifted += sum(a != b for a, b in zip(new.heads, sent.heads))
        out.append(new)
    _in_output_charset(settings, lambda target: write_conll(out, target))     # -oc, the input's by default
    log(f"{'projectivized' if mode == 'proj' else 'deprojectivized'} {len(sentences)} sentences "
        f"({settings.marking_strategy}): {lifted} arcs moved")
