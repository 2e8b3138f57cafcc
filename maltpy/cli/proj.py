"""``maltpy -m proj`` and ``-m deproj``: pseudo-projective encoding and decoding of files."""
from __future__ import annotations


from maltpy.cli.common import _detect, _in_output_charset, _input
from maltpy.errors import MaltpyError


def run_pseudo_projective(settings, log, mode):
    """-m proj / -m deproj: MaltParser's pseudo-projective transformation on a file (read in -ic's
    encoding, written in -oc's)."""
    from maltpy.acyclic import acyclic
    from maltpy.formats.conll import iter_conll, write_conll
    from maltpy.transform import PseudoProjective
    pp = PseudoProjective(settings.marking_strategy, settings.covered_root, settings.lifting_order)
    if not pp.active:
        raise MaltpyError(f"-m {mode} needs a marking strategy, e.g. -pp head (or -pcr)")
    fmt = _detect(settings.input, settings.input_format) or "conllx"
    fn = pp.projectivize if mode == "proj" else pp.deprojectivize
    counts = [0, 0]     # sentences, arcs moved

    def transformed():
        # a sentence at a time as it is read: flat memory on a treebank of any size
        for sent in iter_conll(_input(settings), fmt, need_heads=True):
            new = pp.apply(fn, sent)
            counts[0] += 1
            counts[1] += sum(a != b for a, b in zip(new.heads, sent.heads))
            yield new
    with acyclic():
        _in_output_charset(settings, lambda target: write_conll(transformed(), target))  # -oc: the input's by default
    log(f"{'projectivized' if mode == 'proj' else 'deprojectivized'} {counts[0]} sentences "
        f"({settings.marking_strategy}): {counts[1]} arcs moved")
