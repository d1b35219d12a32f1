r"""Verdicts on answer forms real models write, as tables.

Each row is (answer or response, integrand, expected verdict, expected
reason), in the style of math-verify's test suite. The rows are new,
model-style cases written for these tests (none is copied from a data set):
piecewise answers (``cases``, ``dcases``, SymPy ``Piecewise``), incomplete
gamma, long and finite sums, large exponents and huge constants, ``x^{e}``, letters
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

import pytest

from rewards import Verdict, check_antiderivative
from tests.cases import functions_and_exponents, piecewise, sums, writing
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


# --- long sums ---------------------------------------------------------------------
@pytest.mark.parametrize("case", sums.CASES, ids=case_id)
def test_long_and_finite_sums(case):
    check_case(case)


def test_long_sympy_sum():
    assert check(sums.harmonic(150, syntax="sympy"), "(x**150 - 1)/(x - 1)", "sympy").verdict is OK
    wrong = sums.harmonic(150, changed=77, syntax="sympy")
    assert check(wrong, "(x**150 - 1)/(x - 1)", "sympy").verdict is WRONG


def test_long_sum_bounded_by_terms_not_depth():
    # 700 terms: refused for its length, quickly, not for its nesting.
    text = " + ".join(f"x^{{{k % 9}}}" for k in range(700))
    result = check(text, "x", "latex")
    assert result.verdict is UNP and result.reason == "too_long", result.render()
