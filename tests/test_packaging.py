"""Packaging: the test requirements match the test extra, and a built wheel installs into a
fresh virtual environment with no Cython and no compiler, and runs the main job.

The wheel test builds a wheel (about a minute on 2 cores) and installs its dependencies, so
it runs where ``MALTPY_WHEEL_TEST=1`` is set (.ci/run sets it) or ``MALTPY_WHEEL`` names a
wheel that is already built (``python -m build`` or cibuildwheel's output)."""
import glob
import os
import shutil
import subprocess
import sys
import venv

import pytest

from conftest import EXAMPLES, ROOT


def _requirement_names(lines):
    return sorted(line.split(";")[0].strip() for line in lines if line.strip() and not line.startswith("#"))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
def test_test_requirements_match_the_test_extra():
    """README's test command installs tests/requirements.txt; pip install ".[test]" the extra."""
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        extra = tomllib.load(f)["project"]["optional-dependencies"]["test"]
    with open(os.path.join(ROOT, "tests", "requirements.txt")) as f:
        listed = f.read().splitlines()
    assert _requirement_names(listed) == _requirement_names(extra)


def _wheel(tmp_path):
    given = os.environ.get("MALTPY_WHEEL")
    if given:
        return given
    if os.environ.get("MALTPY_WHEEL_TEST") != "1":
        pytest.skip("set MALTPY_WHEEL_TEST=1 to build a wheel and install it in a fresh environment "
                    "(about two minutes), or MALTPY_WHEEL=path/to/maltpy.whl")
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), ROOT],
                   check=True, cwd=tmp_path)
    return glob.glob(str(out / "maltpy-*.whl"))[0]


def test_wheel_installs_and_runs_without_cython_or_a_compiler(tmp_path):
    wheel = _wheel(tmp_path)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = str(bindir / "python")
    # nothing but the environment's own scripts on the path: no cc, gcc or cython to fall back on
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=str(bindir), CC="false", CXX="false")
    subprocess.run([python, "-m", "pip", "install", "-q", "--only-binary", ":all:", wheel],
                   check=True, env=env, cwd=tmp_path)
    probe = subprocess.run([python, "-c", "import Cython"], env=env, capture_output=True)
    assert probe.returncode != 0, "Cython must not be installed for this test to mean anything"
    assert shutil.which("gcc", path=env["PATH"]) is None and shutil.which("cc", path=env["PATH"]) is None

    # the README's main job, from a directory outside the checkout (the installed package only)
    work = tmp_path / "job"
    shutil.copytree(EXAMPLES, work)
    maltpy = str(bindir / "maltpy")
    subprocess.run([maltpy, "-c", "toy.yaml", "-m", "learn"], check=True, env=env, cwd=work)
    subprocess.run([maltpy, "-c", "toy.yaml", "-m", "parse", "-i", "toy-test.conll", "-o", "parsed.conll"],
                   check=True, env=env, cwd=work)
    scores = subprocess.run([maltpy, "eval", "toy-test.conll", "parsed.conll"], check=True, env=env,
                            cwd=work, capture_output=True, text=True).stdout
    assert "LAS" in scores
    where = subprocess.run([python, "-c", "import maltpy; print(maltpy.__file__)"], env=env, cwd=work,
                           capture_output=True, text=True, check=True).stdout
    assert str(env_dir) in where
