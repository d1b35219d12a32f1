r"""Verdicts on answer forms real models write, as tables.

Each row is (answer or response, integrand, expected verdict, expected
reason), in the style of math-verify's test suite. The rows are new,
model-style cases written for these tests (none is copied from a data set):
piecewise answers (``cases``, ``dcases``, SymPy ``Piecewise``), incomplete
gamma, long sums, large exponents and huge constants, ``x^{e}``, letters
written together (``xe^x``), a constant inside a logarithm, Unicode minus,
times, roots and superscripts, and exact decimals. Next to each accepted
form stand held-out wrong answers that differ from it only slightly (a wrong
piece, a wrong coefficient in a long sum, a decimal off in the third place):
the reader must not pay for those.

``kind`` says how the first column is read: ``latex`` / ``sympy`` (an
extracted answer) or ``response`` (a whole completion: ``\boxed{}`` or
``<answer>`` tags, SymPy syntax or LaTeX by content). Verdicts and reasons
are asserted, never times. The piecewise, function and writing tables are
data in ``tests/cases/`` (one ``VerdictCase`` per row, with a readable id).
"""
from __future__ import annotations

from math import comb

import pytest

from rewards import Verdict, check_antiderivative
from tests.cases import functions_and_exponents, piecewise, writing
from tests.support import case_id, check_case

OK, WRONG, UNP = Verdict.CORRECT, Verdict.WRONG, Verdict.UNPARSEABLE


def check(answer: str, integrand: str, kind: str, integrand_kind: str = "sympy"):
    return check_antiderivative(answer, integrand, input_kind=kind,
                                integrand_kind=integrand_kind, timeout_s=30)


# --- piecewise answers ----------------------------------------------------------
@pytest.mark.parametrize("case", piecewise.CASES, ids=case_id)
def test_piecewise_answers(case):
    check_case(case)


# --- special functions, exponents, constants ------------------------------------
@pytest.mark.parametrize("case", functions_and_exponents.CASES, ids=case_id)
def test_functions_exponents_constants(case):
    check_case(case)


# --- how the text is written ------------------------------------------------------
@pytest.mark.parametrize("case", writing.CASES, ids=case_id)
def test_writing(case):
    check_case(case)


def test_decimal_integrand_in_latex_means_the_same_number():
    result = check("log(x + 0.3) + C", r"\frac{1}{x + 0.3}", "sympy", integrand_kind="latex")
    assert result.verdict is OK, result.render()
    result = check(r"\ln|x + 0.31|", r"\frac{1}{x + 0.3}", "latex", integrand_kind="latex")
    assert result.verdict is WRONG, result.render()


def test_large_exponent_integrand_in_latex():
    result = check(r"-\frac{(1-x)^{2015}}{2015} + \frac{(1-x)^{2016}}{2016} + C",
                   r"x(1-x)^{2014}", "latex", integrand_kind="latex")
    assert result.verdict is OK, result.render()


# --- long sums --------------------------------------------------------------------
def _poly_antiderivative(n: int, changed: int | None = None) -> str:
    """LaTeX for the expanded antiderivative of (x + 1)^n: n + 1 terms."""
    terms = []
    for k in range(n + 1):
        coefficient = comb(n, k) + (1 if k == changed else 0)
        terms.append(rf"\frac{{{coefficient} x^{{{k + 1}}}}}{{{k + 1}}}")
    return " + ".join(reversed(terms)) + " + C"


def _harmonic(n: int, changed: int | None = None, syntax: str = "latex") -> str:
    """sum_{k=1}^{n} x^k / k (n terms), one denominator changed if asked."""
    terms = []
    for k in range(1, n + 1):
        d = k + 1 if k == changed else k
        terms.append(rf"\frac{{x^{{{k}}}}}{{{d}}}" if syntax == "latex" else f"x**{k}/{d}")
    return " + ".join(terms)


LONG = [
    (_poly_antiderivative(60), "(x + 1)**60", OK),
    (_poly_antiderivative(60, changed=30), "(x + 1)**60", WRONG),
    (_harmonic(150), "(x**150 - 1)/(x - 1)", OK),
    (_harmonic(150, changed=77), "(x**150 - 1)/(x - 1)", WRONG),
]


@pytest.mark.parametrize("answer, integrand, verdict", LONG,
                         ids=["poly61", "poly61_coefficient", "sum150", "sum150_coefficient"])
def test_long_latex_sums(answer, integrand, verdict):
    result = check(answer, integrand, "latex")
    assert result.verdict is verdict, result.render()


def test_long_sympy_sum():
    assert check(_harmonic(150, syntax="sympy"), "(x**150 - 1)/(x - 1)", "sympy").verdict is OK
    wrong = _harmonic(150, changed=77, syntax="sympy")
    assert check(wrong, "(x**150 - 1)/(x - 1)", "sympy").verdict is WRONG


def test_long_sum_bounded_by_terms_not_depth():
    # 700 terms: refused for its length, quickly, not for its nesting.
    text = " + ".join(f"x^{{{k % 9}}}" for k in range(700))
    result = check(text, "x", "latex")
    assert result.verdict is UNP and result.reason == "too_long", result.render()
