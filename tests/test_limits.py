"""One home for every size bound (rewards/check/limits.py, issue 26 item 2):
no module defines its own input bound, the profiles are frozen, and each
parser reads the profile it is given."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from rewards.check.errors import ParseFailure
from rewards.check.limits import ANSWER, INTEGRAND, LATEX_FAST_PATH, PROFILES, Limits
from rewards.check.parse.read import parse_integrand
from rewards.check.parse.sympy_text import parse_sympy_text

PACKAGE = Path(__file__).resolve().parents[1] / "rewards"

# Bounds that are not on an input: how much evidence a check gathers and how
# far a proof goes (their modules say why), and caps on what is logged.
NOT_INPUT_BOUNDS = {
    "rewards/check/evidence/numeric.py": {"MAX_FAR_DIGITS", "MAX_EXTRA_DIGITS",
                                          "MAX_SIZED_TERMS", "MAX_SIZE_DIGITS"},
    "rewards/check/evidence/domain.py": {"_MAX_RETRY_DPS", "MAX_FILL_POINTS", "MAX_LOG2"},
    "rewards/check/evidence/points.py": {"MAX_BREAKPOINTS", "_MAX_EXACT_DEGREE", "_MAX_LEAVES",
                                         "MAX_FEATURES", "MAX_CRITICAL_ARGUMENTS",
                                         "MAX_SWITCHES", "_MAX_BASE_DEGREE"},
    "rewards/check/proof/normal_form/algebra.py": {"MAX_SUM_POWER", "MAX_TERM_POWER",
                                                   "MAX_FACTOR_INT", "MAX_REPLANS"},
    "rewards/reward/antiderivative.py": {"_MAX_WARNED"},
    "rewards/check/extract/policy.py": {"_MAX_LISTED"},
}


def _bounds_defined(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id.lstrip("_").startswith("MAX_"):
                names.add(target.id)
    return names


def test_no_module_defines_its_own_size_bound():
    stray = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        extra = _bounds_defined(path) - NOT_INPUT_BOUNDS.get(rel, set())
        if extra:
            stray[rel] = sorted(extra)
    assert stray == {}


def test_the_allow_list_names_only_what_exists():
    for rel, names in NOT_INPUT_BOUNDS.items():
        assert names <= _bounds_defined(PACKAGE.parent / rel), rel


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_profiles_are_frozen(name):
    with pytest.raises(dataclasses.FrozenInstanceError):
        PROFILES[name].exponent = 1


def test_profiles_differ_only_where_they_say():
    def differences(a: Limits, b: Limits) -> set[str]:
        return {f.name for f in dataclasses.fields(Limits)
                if getattr(a, f.name) != getattr(b, f.name)}

    assert differences(ANSWER, INTEGRAND) == {"exponent", "exponent_coefficient",
                                              "sympy_chars", "sympy_depth", "sympy_nodes",
                                              "literal_digits", "number_digits",
                                              "constant_exponent"}
    assert differences(ANSWER, LATEX_FAST_PATH) == {"sympy_chars", "sympy_depth", "sympy_nodes"}


def test_each_parser_reads_its_profile():
    power = f"x**{ANSWER.exponent + 1}"
    with pytest.raises(ParseFailure):
        parse_sympy_text(power)
    assert parse_sympy_text(power, limits=INTEGRAND, answer=False).has(
        parse_sympy_text("x").free_symbols.pop())
    # An integrand from a dataset gets the integrand profile.
    assert parse_integrand(power, "sympy", "x") is not None
    long_sum = "+".join(["x"] * (ANSWER.sympy_chars // 2 + 1))
    with pytest.raises(ParseFailure):
        parse_sympy_text(long_sum)
    assert parse_sympy_text(long_sum, limits=INTEGRAND, answer=False) is not None
