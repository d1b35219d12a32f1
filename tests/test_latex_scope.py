r"""How far an unparenthesised function argument reaches, and the differential
in LaTeX integrands (docs/domain.md, "How LaTeX is read").

The rule, the same for answers and integrands: the argument of ``\sin``,
``\log``, ... written without parentheses is its run of factors up to and
including the first one that holds the variable (``\sin 2x``, ``\sin \pi x``,
``\sin \frac{x}{2}``), so what follows it multiplies the function
(``\log x(\log x - 1)``, ``\sin x \sqrt 2``).
"""
from __future__ import annotations

import pytest
import sympy as sp

from rewards import Verdict, check_antiderivative
from rewards.check.errors import ParseFailure
from rewards.check.parse.read import parse_integrand, parse_latex_text
from rewards.check.parse.sympy_text import parse_sympy_text
from tests.cases import latex_scope
from tests.support import case_id, check_case

# (LaTeX as people and CAS write it, what it means in SymPy syntax)
SCOPE = [
    # a factor after the argument multiplies the function
    (r"\log x(\log(1+\log x) - 1)", "log(x)*(log(1 + log(x)) - 1)"),
    (r"\sin x \sqrt{1+\tan^2 x}", "sin(x)*sqrt(1 + tan(x)**2)"),
    (r"\cos^4 x(\cos x+\sin x)", "cos(x)**4*(cos(x) + sin(x))"),
    (r"\sin x\sqrt 2", "sqrt(2)*sin(x)"),
    (r"\sin x \sqrt{2}", "sqrt(2)*sin(x)"),
    (r"\sin x(1+x)", "sin(x)*(1 + x)"),
    (r"\ln x (x+1)", "log(x)*(x + 1)"),
    (r"\ln|x|(x^2+1)", "log(Abs(x))*(x**2 + 1)"),
    (r"\sin 2x(1+x)", "sin(2*x)*(1 + x)"),
    (r"x\ln x(\ln x - 2) + 2x", "x*log(x)*(log(x) - 2) + 2*x"),
    (r"\frac{1}{2}\sin x\cos x", "sin(x)*cos(x)/2"),
    (r"\tan x \sec x", "tan(x)*sec(x)"),
    (r"\sin x y", "sin(x)*y"),
    # the argument is the run of factors up to the one holding x
    (r"\sin 2x", "sin(2*x)"),
    (r"\sin \pi x", "sin(pi*x)"),
    (r"\sin 2\pi x", "sin(2*pi*x)"),
    (r"\cos kx", "cos(k*x)"),
    (r"\sin \frac{x}{2}", "sin(x/2)"),
    (r"\sin \frac{1}{2} x", "sin(x/2)"),
    (r"\sin \sqrt 2 x", "sin(sqrt(2)*x)"),
    (r"\sin a(x+1)", "sin(a*(x + 1))"),
    (r"\sin 0.5x", "sin(x/2)"),
    (r"\ln 2x", "log(2*x)"),
    (r"\sin x^2", "sin(x**2)"),
    (r"\sin 2x^2", "sin(2*x**2)"),
    (r"\sin^2 x", "sin(x)**2"),
    (r"\sin x \cos x", "sin(x)*cos(x)"),
    (r"\sin \cos x", "sin(cos(x))"),
    (r"\ln|x|", "log(Abs(x))"),
    (r"\ln|x| + 1", "log(Abs(x)) + 1"),
    (r"\tan^{-1} x", "atan(x)"),
    (r"\tan^{-1} \frac{x}{2}", "atan(x/2)"),
    (r"\ln x + 1", "log(x) + 1"),
    (r"\ln x - x", "log(x) - x"),
    (r"\sin x/2", "sin(x)/2"),
    (r"\sin x \cdot \cos x", "sin(x)*cos(x)"),
    (r"\sin(x) \cos(x)", "sin(x)*cos(x)"),
    (r"\sin (x+1)(x+2)", "sin(x + 1)*(x + 2)"),
    (r"e^{x}\sin x", "exp(x)*sin(x)"),
    (r"\arcsin \sqrt{x}", "asin(sqrt(x))"),
    (r"\sqrt{x}\arcsin \sqrt{x}\sqrt{1-x}", "sqrt(x)*asin(sqrt(x))*sqrt(1 - x)"),
]


def _expected(text: str) -> sp.Expr:
    return parse_sympy_text(text, "x")


@pytest.mark.parametrize(("latex", "meaning"), SCOPE)
def test_an_answer_reads_as_people_mean_it(latex, meaning):
    expr, _ = parse_latex_text(latex, "x", [])
    assert sp.simplify(expr - _expected(meaning)) == 0, expr


@pytest.mark.parametrize(("latex", "meaning"), SCOPE)
def test_an_integrand_reads_the_same(latex, meaning):
    expr = parse_integrand(latex, "latex", "x")
    assert sp.simplify(expr - _expected(meaning)) == 0, expr


def test_the_variable_decides_which_factor_ends_the_argument():
    t = sp.Symbol("t")
    expr, _ = parse_latex_text(r"\sin t x", "t", [])
    assert expr == sp.sin(t) * sp.Symbol("x")
    expr, _ = parse_latex_text(r"\sin \omega t \cos t", "t", [])
    assert expr == sp.sin(sp.Symbol("omega") * t) * sp.cos(t)
    theta = sp.Symbol("theta")
    expr, _ = parse_latex_text(r"\sin \theta (1 + \theta)", "theta", [])
    assert expr == sp.sin(theta) * (1 + theta)


@pytest.mark.parametrize("case", latex_scope.SCOPE_VERDICTS, ids=case_id)
def test_verdicts_follow_the_rule(case):
    check_case(case, timeout_s=None)


def test_the_wrong_reading_stays_wrong():
    # sin(x sqrt 2) is not sqrt 2 sin x: the scope decides the verdict.
    result = check_antiderivative(r"\sin(x\sqrt 2)", r"\sqrt 2\cos x", integrand_kind="latex")
    assert result.verdict is Verdict.WRONG


# Integrands as people write them: the differential in the numerator,
# punctuation after the formula, a parameter named d.
INTEGRANDS = [
    (r"\frac{dx}{x(x^5+1)}", "1/(x*(x**5 + 1))"),
    (r"\frac{dx}{x\log x + 2x},", "1/(x*log(x) + 2*x)"),
    (r"\frac{dx}{x\log x + 2x}.", "1/(x*log(x) + 2*x)"),
    (r"\frac{dx}{x\log x + 2x};", "1/(x*log(x) + 2*x)"),
    (r"\dfrac{\mathrm{d}x}{1+x^2}", "1/(1 + x**2)"),
    (r"\frac{x\,dx}{1+x^2}", "x/(1 + x**2)"),
    (r"\frac{x^2 dx}{1+x^3}.", "x**2/(1 + x**3)"),
    (r"\frac{2 dx}{x}", "2/x"),
    (r"\frac{1}{x} \, dx", "1/x"),
    (r"x^2 + dx", "x**2 + d*x"),
    (r"x^2 - dx", "x**2 - d*x"),
    (r"d x^2", "d*x**2"),
    (r"x^2 + dx \, dx", "x**2 + d*x"),
    (r"\frac{dx}{2} \, dx", "d*x/2"),
    (r"x^2\,dx", "x**2"),
]


@pytest.mark.parametrize(("latex", "meaning"), INTEGRANDS)
def test_integrands_with_a_differential(latex, meaning):
    expr = parse_integrand(latex, "latex", "x")
    assert sp.simplify(expr - _expected(meaning)) == 0, expr


@pytest.mark.parametrize("case", latex_scope.DIFFERENTIAL_VERDICTS, ids=case_id)
def test_integrands_with_a_differential_are_judged(case):
    check_case(case, timeout_s=None)


def test_a_parameter_d_in_the_answer_is_not_a_derivative():
    expr, _ = parse_latex_text(r"\frac{x^3}{3} + \frac{d x^2}{2}", "x", [])
    assert expr.free_symbols == {sp.Symbol("x"), sp.Symbol("d")}
    wrong = check_antiderivative(r"\frac{x^3}{3} + d x^2", r"x^2 + dx", integrand_kind="latex")
    assert wrong.verdict is Verdict.WRONG


# The exponential integral E_n as sympy.latex prints it, and by hand.
@pytest.mark.parametrize("answer", [
    r"-E_2(x)", r"-E_{2}(x) + C", r"- \operatorname{E}_{2}\left(x\right)",
    r"-\mathrm{E}_2(x)", r"\boxed{-E_2(x)}",
])
@pytest.mark.parametrize(("integrand", "kind"), [
    ("expint(1, x)", "sympy"), (r"E_1(x)", "latex"), (r"\operatorname{E}_{1}\left(x\right)", "latex"),
])
def test_generalized_exponential_integral(answer, integrand, kind):
    input_kind = "response" if answer.startswith(r"\boxed") else "latex"
    result = check_antiderivative(answer, integrand, integrand_kind=kind, input_kind=input_kind)
    assert result.verdict is Verdict.CORRECT, (result.reason, result.detail)


def test_generalized_exponential_integral_wrong_order():
    result = check_antiderivative(r"-\operatorname{E}_{3}\left(x\right)", "expint(1, x)")
    assert result.verdict is Verdict.WRONG


@pytest.mark.parametrize("text", [r"\sqrt{x \sqrt{x \sqrt{x \cdots}}}", r"1 + x + x^2 + \dots",
                                  r"x \cdot \ldots", "x + \u2026"])
def test_an_ellipsis_is_not_a_formula(text):
    # \cdots used to read as \cdot s: a product with a stray symbol s.
    with pytest.raises(ParseFailure) as info:
        parse_integrand(text, "latex", "x")
    assert info.value.reason == "ellipsis"
    assert check_antiderivative(r"\frac{x^2}{2} + \cdots", "x").verdict is Verdict.UNPARSEABLE
