"""One home for every bound (rewards/check/limits.py, issue 26 item 2): no
module defines its own, the size profiles and the caps are frozen, each
parser reads the profile it is given, and every cap is read."""
from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from rewards.check.errors import ParseFailure
from rewards.check.limits import ANSWER, CAPS, INTEGRAND, LATEX_FAST_PATH, PROFILES, Caps, Limits
from rewards.check.parse.read import parse_integrand
from rewards.check.parse.sympy_text import parse_sympy_text

PACKAGE = Path(__file__).resolve().parents[1] / "rewards"
LIMITS = PACKAGE / "check" / "limits.py"


def bounds_defined(source: str) -> set[str]:
    """Module-level names that look like a bound (``MAX_*``, ``_MAX_*``)."""
    names = set()
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id.lstrip("_").startswith("MAX_"):
                names.add(target.id)
    return names


def stray_bounds(sources: dict[str, str]) -> dict[str, list[str]]:
    return {rel: sorted(found) for rel, text in sources.items()
            if (found := bounds_defined(text))}


def package_sources() -> dict[str, str]:
    return {path.relative_to(PACKAGE.parent).as_posix(): path.read_text()
            for path in sorted(PACKAGE.rglob("*.py")) if path != LIMITS}


def test_no_module_outside_limits_defines_a_bound():
    assert stray_bounds(package_sources()) == {}


@pytest.mark.parametrize("line", ["MAX_POINTS = 48", "_MAX_DIGITS: int = 4000",
                                  "MAX_A = MAX_B = 1"])
def test_the_scan_finds_a_bound_added_anywhere(line):
    sources = package_sources()
    sources["rewards/check/evidence/points.py"] += f"\n{line}\n"
    assert list(stray_bounds(sources)) == ["rewards/check/evidence/points.py"]


def test_limits_imports_nothing_of_the_package():
    imported = {node.module for node in ast.walk(ast.parse(LIMITS.read_text()))
                if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(ast.parse(LIMITS.read_text()))
                 if isinstance(node, ast.Import) for alias in node.names}
    assert imported <= {"__future__", "dataclasses"}


def test_caps_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CAPS.breakpoints = 1
    assert CAPS == Caps()


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Caps)])
def test_every_cap_is_read(name):
    # A cap nothing reads is a bound that binds nothing.
    readers = [rel for rel, text in package_sources().items()
               if re.search(rf"\bCAPS\.{name}\b", text)]
    assert readers, name


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
