"""Build the Cython extensions; all metadata lives in pyproject.toml."""
import os
import shutil
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithFeatureModels(build_py):
    """Ship the top-level feature_models/ inside the package (maltpy/feature_models)."""

    def run(self):
        super().run()
        src = os.path.join(HERE, "feature_models")
        dst = os.path.join(self.build_lib, "maltpy", "feature_models")
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.md"))

class ParallelBuildExt(build_ext):
    """Compile the extensions on every core (``pip install .`` otherwise compiles one at a time)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


# largest generated C first, so that the parallel compile ends with small files on every core
MODULES = [
    "maltpy.search.step",
    "maltpy.search.weights",
    "maltpy.search.kernel",
    "maltpy.search.greedy",
    "maltpy.search.beam",
    "maltpy.features.extract",
    "maltpy.learners.mcsvm",
    "maltpy.learners.svc",
    "maltpy.learners.averaged_perceptron",
    "maltpy.search.online",
    "maltpy.search.oracle",
    "maltpy.search.decision",
    "maltpy.systems.classes",
    "maltpy.features.corpus",
    "maltpy.search.trainable",
    "maltpy.systems.base",
    "maltpy.features.featmap",
    "maltpy.tagging.perceptron",
    "maltpy.tagging.chunks",
    "maltpy.tokenizing.segment",
    "maltpy.tokenizing.render",
    "maltpy.formats.scan",
    "maltpy.parsing.intern",
    "maltpy.systems.planar",
    "maltpy.systems.twoplanar",
    "maltpy.systems.nivreeager",
    "maltpy.systems.covington",
    "maltpy.systems.nivrestandard",
    "maltpy.systems.stack",
    "maltpy.systems.stackeager",
    "maltpy.systems.stacklazy",
    "maltpy.systems.stackproj",
    "maltpy.systems.covnonproj",
    "maltpy.systems.covproj",
    "maltpy.transform.reduce",
    "maltpy.transform.discdecode",
    "maltpy.formats.exportread",
    "maltpy.formats.discbracketio",
]

#: modules with prange loops; elsewhere (e.g. Apple clang without libomp) they build and run serially
OPENMP_MODULES = {"maltpy.search.kernel", "maltpy.search.greedy", "maltpy.search.beam", "maltpy.learners.svc"}
OPENMP = ["-fopenmp"] if sys.platform.startswith("linux") and os.environ.get("MALTPY_NO_OPENMP") is None else []

COMPILE_ARGS = ["-O3", "-g0"] if os.name != "nt" else ["/O2"]

extensions = [
    Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[numpy.get_include(), HERE],   # HERE: maltpy/simd.h
        # -g0: Python's own CFLAGS ask for debug information, which makes compiling slower
        extra_compile_args=COMPILE_ARGS + (OPENMP if name in OPENMP_MODULES else []),
        extra_link_args=OPENMP if name in OPENMP_MODULES else [],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

setup(
    cmdclass={"build_py": BuildPyWithFeatureModels, "build_ext": ParallelBuildExt},
    ext_modules=cythonize(
        extensions,
        nthreads=(os.cpu_count() or 1) if sys.platform.startswith("linux") else 0,  # fork-safe only there
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
