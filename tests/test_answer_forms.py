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
are asserted, never times.
"""
from __future__ import annotations

from math import comb

import pytest

from rewards import Verdict, check_antiderivative

OK, WRONG, UNP = Verdict.CORRECT, Verdict.WRONG, Verdict.UNPARSEABLE


def check(answer: str, integrand: str, kind: str, integrand_kind: str = "sympy"):
    return check_antiderivative(answer, integrand, input_kind=kind,
                                integrand_kind=integrand_kind, timeout_s=30)


def box(s: str) -> str:
    return f"Integrating term by term, we get\n\n\\boxed{{{s}}}"


def tag(s: str) -> str:
    return f"<think>integrate</think>\nThe antiderivative is\n<answer>{s}</answer>"


def run_table(row):
    answer, integrand, kind, verdict, reason = row
    result = check(answer, integrand, kind)
    assert result.verdict is verdict, (answer[:120], result.render())
    if reason is not None:
        assert result.reason == reason, (answer[:120], result.render())


# --- piecewise answers ----------------------------------------------------------
PIECEWISE = [
    (box(r"\begin{cases} \frac{x^{2}}{2} & x \geq 0 \\ -\frac{x^{2}}{2} & x < 0 \end{cases} + C"),
     "Abs(x)", "response", OK, None),
    (r"F(x) = \begin{dcases} \frac{x^3}{3} & \text{if } x \ge 0, \\ -\frac{x^3}{3} & "
     r"\text{otherwise.} \end{dcases}", "x*Abs(x)", "latex", OK, None),
    (r"\begin{cases} \ln x + C_1 & x > 0 \\ \ln(-x) + C_2 & x < 0 \end{cases}", "1/x",
     "latex", OK, None),
    (r"\begin{cases} x - \frac{x^{3}}{3} & |x| \le 1 \\ \frac{2}{3} & x > 1 \\ "
     r"-\frac{2}{3} & x < -1 \end{cases}", "Piecewise((1 - x**2, Abs(x) <= 1), (0, True))",
     "latex", OK, None),
    (r"\begin{cases} -x & x \in (-\infty, 0) \\ x & x \in [0, \infty) \end{cases}",
     "sign(x)", "latex", OK, None),
    # The uncovered (-1, 1) is outside the integrand's real domain.
    (r"\begin{cases} \sqrt{x^2-1} & x \ge 1 \\ \sqrt{x^2-1} & x \le -1 \end{cases}",
     "x/sqrt(x**2 - 1)", "latex", OK, None),
    (tag("Piecewise((x**2/2, x >= 0), (-x**2/2, True))"), "Abs(x)", "response", OK, None),
    (tag("Piecewise((x**2/2, (x >= 0) & (x < 5)), (-x**2/2, x < 0), (x**2/2, True))"),
     "Abs(x)", "response", OK, None),
    (tag("Piecewise((-x**2/2, x < 0), (x**2/2, 0 <= x))"), "Abs(x)", "response", OK, None),
    # held out: one wrong piece, a piece wrong only far out or on a narrow
    # interval, a gap, one side only
    (box(r"\begin{cases} \frac{x^{2}}{2} & x \geq 0 \\ \frac{x^{2}}{2} & x < 0 \end{cases}"),
     "Abs(x)", "response", WRONG, None),
    (r"\begin{cases} \ln x & x > 0 \\ \ln(x^{2}) & x < 0 \end{cases}", "1/x", "latex", WRONG,
     "piecewise_piece"),
    (r"\begin{cases} \frac{x^2}{2} & 0 \le x \le 30 \\ -\frac{x^2}{2} & x < 0 \\ 450 & "
     r"\text{otherwise} \end{cases}", "Abs(x)", "latex", WRONG, "piecewise_piece"),
    (r"\begin{cases} \frac{x^2}{2} & x \ge 0 \\ -\frac{x^2}{2} + x & -0.002 < x < -0.001 "
     r"\\ -\frac{x^2}{2} & \text{otherwise} \end{cases}", "Abs(x)", "latex", WRONG,
     "piecewise_piece"),
    (r"\begin{cases} \frac{x^2}{2} & x > 1 \\ -\frac{x^2}{2} & x < -1 \end{cases}", "Abs(x)",
     "latex", WRONG, "piecewise_gap"),
    (r"\begin{cases} \ln x & x > 0 \end{cases} + C", "1/x", "latex", WRONG, "piecewise_gap"),
    (tag("Piecewise((x**2/2, x >= 0), (-x**2/2, x > -20), (x**2/2, True))"), "Abs(x)",
     "response", WRONG, "piecewise_piece"),
    (tag("Piecewise((x**2/2, x > 1), (-x**2/2, x < -1))"), "Abs(x)", "response", WRONG,
     "piecewise_gap"),
    # conditions the checker cannot read are named, never dropped
    (r"\begin{cases} x^2 & x > C \\ 0 & \text{otherwise} \end{cases}", "2*x", "latex", UNP,
     "cases_condition"),
    (r"\begin{cases} x^2 & \sin x > 0 \\ -x^2 & \text{otherwise} \end{cases}", "2*x", "latex",
     UNP, "cases_condition"),
    (r"\begin{cases} x^2 & \text{when it rains} \\ 0 & \text{otherwise} \end{cases}", "2*x",
     "latex", UNP, "cases_condition"),
    (tag("x**2/2 + (x > 0)"), "x", "response", UNP, None),
    (tag("Piecewise((x**2/2, y > 0), (x**2/2, True))"), "x", "response", UNP, "bad_condition"),
]


@pytest.mark.parametrize("row", PIECEWISE, ids=[f"pw{i}" for i in range(len(PIECEWISE))])
def test_piecewise_answers(row):
    run_table(row)


# --- special functions, exponents, constants ------------------------------------
FUNCTIONS = [
    (r"-\Gamma\left(\frac{3}{2}, x\right) + C", "sqrt(x)*exp(-x)", "latex", OK, None),
    (r"\gamma\left(\frac{3}{2}, x\right)", "sqrt(x)*exp(-x)", "latex", OK, None),
    (box(r"-\Gamma(2, x)"), "x*exp(-x)", "response", OK, None),
    (r"\Gamma\left(\frac{3}{2}, x\right)", "sqrt(x)*exp(-x)", "latex", WRONG, None),
    (r"-\Gamma\left(\frac{5}{2}, x\right)", "sqrt(x)*exp(-x)", "latex", WRONG, None),
    (r"\Gamma\left(50, x\right)", "x**49*exp(-x)", "latex", UNP, "number_too_large"),
    # large exponents: the cost of a power of the variable does not grow with it
    (r"\frac{x^{2025}}{2025} + C", "x**2024", "latex", OK, None),
    (r"-\frac{(1-x)^{2015}}{2015} + \frac{(1-x)^{2016}}{2016} + C", "x*(1 - x)**2014", "latex",
     OK, None),
    (r"-\frac{(1-x)^{2015}}{2016} + \frac{(1-x)^{2016}}{2015} + C", "x*(1 - x)**2014", "latex",
     WRONG, None),
    (r"\frac{\tan^{2025} x}{2025}", "tan(x)**2024*sec(x)**2", "latex", OK, None),
    (r"\frac{1}{2024}\ln\left|1 + x^{2024}\right|", "x**2023/(1 + x**2024)", "latex", OK, None),
    (tag("x**2025/2025 + C"), "x**2024", "response", OK, None),
    (r"x^{6000}", "6000*x**5999", "latex", UNP, "exponent_too_large"),
    # a huge constant is still only a constant; huge elsewhere is refused
    (r"\frac{x^{3}}{3} + 10^{10^{10}}", "x**2", "latex", OK, None),
    (tag("x**3/3 + 10**(10**10) + C"), "x**2", "response", OK, None),
    (r"\frac{x^{3}}{3} + 10^{10^{10}} x", "x**2", "latex", UNP, "exponent_too_large"),
    (r"10^{10^{10}}", "0", "latex", UNP, "exponent_too_large"),
    (tag("x**3/3 + 1e999999999"), "x**2", "response", UNP, "number_too_large"),
    # x^{e}
    (r"\frac{x^{e+1}}{e+1} + C", "x**E", "latex", OK, None),
    (r"x^{e} e^{x}", "(x**E + E*x**(E - 1))*exp(x)", "latex", OK, None),
    (r"\frac{x^{e}}{e}", "x**E", "latex", WRONG, None),
    # a multiplicative constant inside a logarithm is an additive constant
    (r"\ln|Cx|", "1/x", "latex", OK, None),
    (box(r"\ln\left(C(x+1)\right)"), "1/(x + 1)", "response", OK, None),
    (r"2\ln\left|\frac{x}{K}\right| + C_1", "2/x", "latex", OK, None),
    (tag("log(K*x**2)"), "2/x", "response", OK, None),
    (r"x\ln|Cx|", "log(x) + 1", "latex", WRONG, "residual_symbols"),
    (r"\ln|x + C|", "1/x", "latex", WRONG, "residual_symbols"),
    (r"\ln|Cx|", "2/x", "latex", WRONG, None),
    (r"\ln|ax|", "1/x", "latex", WRONG, "residual_symbols"),
]


@pytest.mark.parametrize("row", FUNCTIONS, ids=[f"fn{i}" for i in range(len(FUNCTIONS))])
def test_functions_exponents_constants(row):
    run_table(row)


# --- how the text is written ------------------------------------------------------
WRITING = [
    # letters written together: a product unless the integrand uses the name
    (tag("xe^x - e^x + C"), "x*exp(x)", "response", OK, None),
    (box("2xe^{x}"), "2*exp(x) + 2*x*exp(x)", "response", OK, None),
    (tag("ax^2/2 + C"), "a*x", "response", OK, None),
    (tag("xe^x + C"), "x*exp(x)", "response", WRONG, None),
    (tag("xe^x - e^x + y"), "x*exp(x)", "response", WRONG, "residual_symbols"),
    (tag("ab*x**2/2"), "ab*x", "response", OK, None),
    (tag("abx**2/2"), "ab*x", "response", WRONG, "residual_symbols"),
    # Unicode minus, times, middle dot, roots, superscripts
    (tag("x³/3 − 2·x + C"), "x**2 - 2", "response", OK, None),
    (box("2√x + C"), "1/sqrt(x)", "response", OK, None),
    (tag("∛(x+1)"), "1/(3*(x + 1)**(2/3))", "response", OK, None),
    (box(r"−2\cos x × 3"), "6*sin(x)", "response", OK, None),
    (tag("x⁻¹ + C"), "-1/x**2", "response", OK, None),
    (tag("x¹⁰/10"), "x**9", "response", OK, None),
    (tag("x¹⁰/11"), "x**9", "response", WRONG, None),
    (box("∜x"), "1/(4*x**(3/4))", "response", OK, None),
    # exact decimals, the same number on both sides whatever the syntax
    (r"\ln\left|x + 2.2\right| + C", "1/(x + 2.2)", "latex", OK, None),
    (tag("ln|x + 2.2| + C"), "1/(x + 2.2)", "response", OK, None),
    (tag("log(x + 2.2) + C"), "1/(x + 2.2)", "response", OK, None),
    (r"\ln\left|x + 2.21\right| + C", "1/(x + 2.2)", "latex", WRONG, None),
    (r"1.125x^{2}", "2.25*x", "latex", OK, None),
    (r"1.126x^{2}", "2.25*x", "latex", WRONG, None),
    (r"0.333x^{3}", "x**2", "latex", WRONG, None),
    (r"\frac{x^{2}}{2.5}", "0.8*x", "latex", OK, None),
    (r"e^{0.5x} \cdot 2", "exp(x/2)", "latex", OK, None),
    (r"e^{0.501x} \cdot 2", "exp(x/2)", "latex", WRONG, None),
]


@pytest.mark.parametrize("row", WRITING, ids=[f"wr{i}" for i in range(len(WRITING))])
def test_writing(row):
    run_table(row)


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
