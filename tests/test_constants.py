"""Numbers with names: the feature key's template shift, the most moves a system has, the layout
of a state's and a gold tree's allocations and the feature map's first size are each said once,
in the lowest layer that uses them; a bare copy elsewhere is what this test looks for."""
import os
import re

from conftest import ROOT

#: pattern of a bare number -> the one file allowed to hold it (where its constant is defined)
BARE = {
    r"(<<|>>)\s*(np\.uint64\()?50\b": "maltpy/features/extract.pxd",
    r"\[64\]|>\s*64\b|at most 64 moves": "maltpy/systems/state.pxd",
    r"FeatMap\(1\s*<<\s*16\)": None,
    r"malloc\([^)]*\b(23|17)\b": None,
    r"MAX_MOVES\s*=\s*64": "maltpy/systems/state.pxd",
}


def _sources(root):
    for folder, _, files in os.walk(os.path.join(root, "maltpy")):
        for name in files:
            if name.endswith((".py", ".pyx", ".pxd")):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), open(path, encoding="utf-8").read()


def bare_numbers(root):
    """(pattern, file) for every file outside a constant's home that writes it as a bare number
    (comments aside)."""
    out = set()
    for path, text in _sources(root):
        for line in text.splitlines():
            code = line.split("#")[0]
            for pattern, home in BARE.items():
                if path != home and re.search(pattern, code):
                    out.add((pattern, path))
    return sorted(out)


def test_named_constants_are_not_repeated_as_bare_numbers():
    assert bare_numbers(ROOT) == []


def test_a_planted_bare_number_is_found(tmp_path):
    """The check can fail: step.pyx's line with the template shift written out again."""
    (tmp_path / "maltpy" / "search").mkdir(parents=True)
    (tmp_path / "maltpy" / "search" / "step.pyx").write_text("        if by_template[keys[i] >> 50] == mark:\n")
    (tmp_path / "maltpy" / "systems").mkdir()
    (tmp_path / "maltpy" / "systems" / "base.pyx").write_text("        cdef bint mask[64]   # the moves\n")
    assert [path for _, path in bare_numbers(str(tmp_path))] == ["maltpy/search/step.pyx", "maltpy/systems/base.pyx"]
