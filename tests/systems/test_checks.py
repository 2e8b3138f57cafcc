"""maltpy.systems.checks: the checks every transition system passes (for extension authors, as
scikit-learn's check_estimator), run on every registered system with its options, and shown to
fail on systems that claim what they do not do."""
import pytest

from maltpy.systems import SYSTEMS, CovNonProj, NivreEager, StackProj
from maltpy.systems.checks import check_transition_system

#: option sets each system is checked with besides its defaults
OPTIONS = {
    "nivreeager": [{"allow_reduce": True}, {"allow_root": False}, {"enforce_tree": True}, {"root_at_end": False},
                   {"root_at_end": False, "allow_reduce": True}],
    "nivrestandard": [{"allow_root": False}],
    "covproj": [{"allow_shift": True}, {"allow_root": False}],
    "covnonproj": [{"allow_shift": True}, {"allow_root": False}],
    "planar": [{"connectedness": "reduceonly"}, {"connectedness": "full"}, {"no_covered_roots": True}],
    "2planar": [{"reduceonswitch": True}],
}


#: options only the parse follows: MaltParser's planar oracle does not take the connectedness
#: constraints into account (it may choose a move they forbid)
PARSE_ONLY = {"connectedness", "no_covered_roots"}


@pytest.mark.parametrize("name,options", [(name, {}) for name in SYSTEMS] +
                         [(name, o) for name, sets in OPTIONS.items() for o in sets])
def test_every_system_passes_the_checks(name, options):
    check_transition_system(SYSTEMS[name], options, seed=len(name) + len(options),
                            oracle_options={k: v for k, v in options.items() if k not in PARSE_ONLY})


class LooseBound(StackProj):
    def max_transitions(self, n):
        return n           # too few: every word is shifted and attached


class ClaimsProjective(CovNonProj):
    builds = "projective"


class ClaimsExactEverywhere(NivreEager):
    costs_exact_on = "any"   # arc-eager's costs count lost arcs one by one on non-projective trees


class CoversTooMuch(NivreEager):
    covers = "any"


class CountsOnAnEndItHasNot(NivreEager):
    @property
    def end_attaches_root(self):
        return False    # its trees scored without the end's root arcs, its costs counting on them


@pytest.mark.parametrize("cls,says", [(LooseBound, "bound"), (ClaimsProjective, "not projective"),
                                      (ClaimsExactEverywhere, "exhaustive search says"),
                                      (CoversTooMuch, "the oracle built"),
                                      (CountsOnAnEndItHasNot, "exhaustive search says")])
def test_the_checks_fail_on_a_system_that_claims_too_much(cls, says):
    with pytest.raises(AssertionError, match=says):
        check_transition_system(cls, n_cost_trees=200, max_cost_words=5)


# ---------------------------------------------------------------- search strategies

def test_the_shipped_strategies_pass_the_checks():
    import warnings
    from maltpy.errors import MaltpyWarning
    from maltpy.parsing.checks import check_strategy
    from maltpy.search.beam import Beam
    from maltpy.search.greedy import Greedy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MaltpyWarning)     # few training sentences
        check_strategy(Greedy())
        check_strategy(Beam(beam_width=4))


def test_the_strategy_checks_fail_on_a_strategy_that_builds_no_tree():
    import warnings
    import numpy as np
    from maltpy.errors import MaltpyWarning
    from maltpy.parsing.checks import check_strategy
    from maltpy.search.greedy import Greedy

    class AllOnWordOne(Greedy):
        """Greedy, then every word attached to word 1 (word 1 to itself: a cycle)."""

        def parse(self, model, corpus, *args, **kwargs):
            heads, labels = super().parse(model, corpus, *args, **kwargs)[:2]
            heads = np.where(heads >= 0, 1, heads).astype(np.int32)
            return heads, labels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MaltpyWarning)
        with pytest.raises(AssertionError, match="not a tree"):
            check_strategy(AllOnWordOne())
