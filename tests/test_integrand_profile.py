"""Integrands come from datasets and get the integrand profile of
rewards/check/limits.py: exact literals of thousands of digits in SymPy text
(e^{-300} as a rational, a 1e-12-wide bump written out) are read, where an
answer of the policy keeps the tight bound; and an answer's constants are
bounded per term (they are only added across terms)."""
from __future__ import annotations

import pytest

from rewards import check_antiderivative
from rewards.check.errors import ParseFailure
from rewards.check.limits import ANSWER, INTEGRAND
from rewards.check.parse.read import parse_integrand
from rewards.check.parse.sympy_text import parse_sympy_text

_BIG = "7" * (ANSWER.literal_digits + 50)


def test_long_literals_in_integrands_only():
    with pytest.raises(ParseFailure):
        parse_sympy_text(f"x/{_BIG}")
    assert parse_integrand(f"x/{_BIG}", "sympy", "x") is not None
    assert INTEGRAND.literal_digits > ANSWER.literal_digits


def test_a_tiny_exact_coefficient_in_the_integrand_is_checked():
    integrand = f"cos(x) + x/{_BIG}"
    right = check_antiderivative(rf"\boxed{{\sin x + \frac{{x^2}}{{2\cdot {_BIG}}}}}", integrand,
                                 symbol="x", timeout_s=20)
    wrong = check_antiderivative(r"\boxed{\sin x}", integrand, symbol="x", timeout_s=20)
    assert right.verdict.name == "CORRECT", (right.reason, right.detail)
    assert wrong.verdict.name == "WRONG", (wrong.reason, wrong.detail)


def test_constants_are_bounded_per_term():
    # Twenty terms of 200-digit coefficients: 13,300 bits in all (over the old
    # whole-answer bound of 12,000), each term cheap.
    coefficient = "9" * 200
    answer = " + ".join(rf"\frac{{x^{{{k + 1}}}}}{{{coefficient}}}" for k in range(20))
    integrand = " + ".join(f"{k + 1}*x**{k}/{coefficient}" for k in range(20))
    result = check_antiderivative(rf"\boxed{{{answer}}}", integrand, symbol="x", timeout_s=30)
    assert result.verdict.name == "CORRECT", (result.reason, result.detail)
