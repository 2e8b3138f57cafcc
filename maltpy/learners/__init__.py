"""Learners: train on sparse one-hot instances (maltpy's own solvers or scikit-learn), export weights
for the C loop."""
from maltpy.errors import MaltpyError
from maltpy.learners.liblinear import LiblinearLearner, parse_liblinear_options
from maltpy.learners.libsvm import LibsvmLearner, SvmModel, parse_libsvm_options
from maltpy.learners.perceptron import PerceptronLearner, parse_perceptron_options

LEARNERS = {"liblinear": LiblinearLearner, "libsvm": LibsvmLearner, "perceptron": PerceptronLearner}


def request_stop(stop: bool = True) -> None:
    """Ask every running solver (LIBLINEAR's and LIBSVM's) to stop soon, e.g. on Ctrl-C;
    ``stop=False`` clears the request before training."""
    from maltpy.learners import mcsvm, svc
    mcsvm.request_stop(stop)
    svc.request_stop(stop)


def make_learner(name: str, options: str = ""):
    """Learner by MaltParser name (``-l``) with MaltParser-style options (``-lo``)."""
    if name not in LEARNERS:
        raise MaltpyError(f"unknown learner {name!r}; available: {', '.join(LEARNERS)}")
    return LEARNERS[name].from_options(options)


__all__ = ["LEARNERS", "LiblinearLearner", "LibsvmLearner", "PerceptronLearner", "SvmModel", "make_learner",
           "parse_liblinear_options", "parse_libsvm_options", "parse_perceptron_options", "request_stop"]
