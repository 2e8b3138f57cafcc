"""The package's layers (docs/architecture.md): every import, lazy ones and Cython's cimports
included, goes to a lower layer, and no module imports itself back through others."""
import os
import re

from conftest import ROOT

PACKAGE = os.path.join(ROOT, "maltpy")

#: lowest first; a unit is a sub-package or a top-level module of maltpy
LAYERS = [
    {"errors", "version"},
    {"chunks", "progress", "hashing", "simd", "bytebuf", "output", "acyclic"},
    {"systems", "learners", "formats"},
    {"features", "evaluation"},
    {"transform", "visual", "search"},
    {"config"},
    {"parsing"},
    {"tagging", "tokenizing"},
    {"components"},
    {"integrations"},
    {"experiments"},
    {"cli", "__init__"},
    {"__main__"},
]
_IMPORT = re.compile(r"^\s*(?:from|cimport)\s+(maltpy[\w.]*)\s+c?import\s+(.+)|^\s*c?import\s+(maltpy[\w.]*)")


def _modules():
    """module name -> its source files (.py, .pyx, .pxd)."""
    out = {}
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            base, ext = os.path.splitext(f)
            if ext in (".py", ".pyx", ".pxd"):
                rel = os.path.relpath(os.path.join(folder, base), ROOT).replace(os.sep, ".")
                out.setdefault(rel[:-len(".__init__")] if rel.endswith(".__init__") else rel, []).append(
                    os.path.join(folder, f))
    return out


def _imports(modules):
    """module -> the maltpy modules it imports (``from maltpy.x import y`` is maltpy.x.y when that
    is a module, else maltpy.x)."""
    edges = {}
    for module, paths in modules.items():
        targets = set()
        for path in paths:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    m = _IMPORT.match(line)
                    if not m:
                        continue
                    if m.group(3):
                        targets.add(m.group(3))
                        continue
                    names = [n.strip().split(" ")[0] for n in m.group(2).strip("()\\ \n").split(",")]
                    subs = [f"{m.group(1)}.{n}" for n in names if f"{m.group(1)}.{n}" in modules]
                    targets.update(subs or [m.group(1)])
        edges[module] = {t for t in targets if t != module}
    return edges


def _unit(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(unit):
    return next(k for k, layer in enumerate(LAYERS) if unit in layer)


def test_every_unit_has_a_layer():
    units = {_unit(m) for m in _modules()}
    assert all(any(u in layer for layer in LAYERS) for u in units), sorted(
        u for u in units if not any(u in layer for layer in LAYERS))


def test_imports_go_down_the_layers():
    bad = []
    for module, targets in _imports(_modules()).items():
        for t in targets:
            a, b = _unit(module), _unit(t)
            if a != b and _layer(b) >= _layer(a):
                bad.append(f"{module} -> {t}")
    assert bad == []


def test_no_module_imports_itself_back():
    edges = _imports(_modules())
    state, cycles = {}, []

    def visit(m, path):
        state[m] = 1
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                cycles.append(path[path.index(t):] + [t] if t in path else [m, t])
            elif t in edges and not state.get(t):
                visit(t, path + [t])
        state[m] = 2
    for m in sorted(edges):
        if not state.get(m):
            visit(m, [m])
    assert cycles == []


def _system_module_imports(modules, names):
    """Imports of one transition system's module (maltpy.systems.<system>) by the given modules."""
    systems = {m for m in modules if m.startswith("maltpy.systems.")} - {
        "maltpy.systems.base", "maltpy.systems.state", "maltpy.systems.checks", "maltpy.systems.classes",
        "maltpy.systems.undirected", "maltpy.systems.planar_arcs"}
    edges = _imports({n: modules[n] for n in names})
    return sorted((m, t) for m in edges for t in edges[m] if t in systems)


def test_the_settings_and_the_parts_know_no_system_by_its_module():
    """Issue #51: each system declares its options, their values and readers, its checks and its
    feature model; the settings (config) and the parser's parts (assemble) ask the registry."""
    modules = _modules()
    assert _system_module_imports(modules, ["maltpy.config", "maltpy.parsing.assemble"]) == []
    assert _system_module_imports(modules, ["maltpy.parsing.training"]) == []
    # the check finds one: the registry itself imports every system
    assert ("maltpy.systems", "maltpy.systems.nivreeager") in _system_module_imports(modules, ["maltpy.systems"])
