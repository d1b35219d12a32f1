r"""The definition of an antiderivative, part by part (docs/domain.md).

Answers a policy under RL pressure would write in each class the definition
rules on: jumps where the integrand is continuous, continuous answers written
with steps, parameters of either sign, terms localized between sample
points, and the notation models use. Each row: (answer, integrand, verdict,
reason or None). The larger held-out tables are ``python -m benchmarks
soundness``.
"""
from __future__ import annotations

import resource

import pytest

from rewards import Verdict, check_antiderivative
from rewards.check.memory import memory_cap

TIMEOUT_S = 30.0  # generous: load must not turn a verdict into TIMEOUT

JUMPS = [
    (r"\begin{cases} x^2/2 & x \ge 0 \\ 1 - x^2/2 & x < 0 \end{cases}", "Abs(x)", "WRONG",
     "discontinuous"),
    (r"x + \frac{|x|}{x}", "1", "WRONG", "discontinuous"),
    (r"e^x + \frac{x - 3}{|x - 3|}", "exp(x)", "WRONG", "discontinuous"),
    (r"\sin x + 2\operatorname{sgn}(x + 7)", "cos(x)", "WRONG", "discontinuous"),
    (r"\frac{x^3}{3} + \lfloor x \rfloor", "x**2", "WRONG", "discontinuous"),
    (r"x + H(x - 1)", "1", "WRONG", "discontinuous"),
    (r"\arctan\frac{x + 1}{1 - x}", "1/(1 + x**2)", "WRONG", "discontinuous"),
    (r"\frac{2}{\sqrt3}\arctan\frac{\tan(x/2)}{\sqrt3}", "1/(2 + cos(x))", "WRONG",
     "discontinuous"),
    # A new constant is allowed where the integrand has a pole or ends.
    (r"\ln|x| + 3\operatorname{sgn} x", "1/x", "CORRECT", None),
    (r"\begin{cases} \ln x + 1 & x > 0 \\ \ln(-x) - 2 & x < 0 \end{cases}", "1/x", "CORRECT",
     None),
    (r"\tan x + \lfloor x/\pi + 1/2 \rfloor", "sec(x)**2", "CORRECT", None),
    (r"-\cot x + 5\operatorname{sgn}(\sin x)", "csc(x)**2", "CORRECT", None),
    (r"\frac{1}{2}\ln\left|\frac{x-1}{x+1}\right| + \begin{cases} 2 & x > 1 \\ 0 & -1 < x < 1 "
     r"\\ -5 & x < -1 \end{cases}", "1/(x**2 - 1)", "CORRECT", None),
    (r"\frac{1}{2}\ln\left|\frac{x-1}{x+1}\right| + \begin{cases} 2 & x > 0 \\ 0 & x \le 0 "
     r"\end{cases}", "1/(x**2 - 1)", "WRONG", "discontinuous"),
]

CONTINUOUS_STEPS = [
    (r"\frac{x^2}{2}\operatorname{sgn} x", "Abs(x)", "CORRECT", None),
    (r"x\,H(x)", "Heaviside(x)", "CORRECT", None),
    (r"\operatorname{sgn}(x)\left(e^{|x|} - 1\right)", "exp(Abs(x))", "CORRECT", None),
    (r"\frac{\max(x, 0)^2}{2}", "Max(x, 0)", "CORRECT", None),
    (r"\lfloor x \rfloor + \operatorname{frac}(x)", "1", "CORRECT", None),
    (r"\frac{2}{\sqrt3}\arctan\frac{\tan(x/2)}{\sqrt3} + "
     r"\frac{2\pi}{\sqrt3}\left\lfloor\frac{x + \pi}{2\pi}\right\rfloor", "1/(2 + cos(x))",
     "CORRECT", None),
    ("x*floor(x) - floor(x)*(floor(x) + 1)/2", "floor(x)", "CORRECT", None),
    # Look-alikes that are wrong somewhere.
    (r"\frac{x^2}{2}\operatorname{sgn} x", "x", "WRONG", None),
    (r"\frac{\max(x, 0)^2}{2}", "Abs(x)", "WRONG", None),
]

PARAMETERS = [
    (r"\frac{e^{ax}}{|a|}", "exp(a*x)", "WRONG", "parameter_values"),
    (r"\frac{e^{ax}}{\sqrt{a^2}}", "exp(a*x)", "WRONG", "parameter_values"),
    (r"\frac{1}{a}\arctan\frac{x}{|a|}", "1/(x**2 + a**2)", "WRONG", "parameter_values"),
    (r"-\frac{\cos(|a| x)}{|a|}", "sin(a*x)", "WRONG", "parameter_values"),
    (r"\frac{|b|}{b}\ln|x + b|", "1/(x + b)", "WRONG", "parameter_values"),
    (r"\frac{e^{ax}}{a}", "exp(a*x)", "CORRECT", None),
    (r"\frac{1}{a}\arctan\frac{x}{a}", "1/(x**2 + a**2)", "CORRECT", None),
    (r"\frac{x^{n+1}}{n+1}", "x**n", "CORRECT", None),
    (r"\frac{1}{a}\ln|ax + b|", "1/(a*x + b)", "CORRECT", None),
    # Bars inside bars: |b| is the same for b and -b, so this one holds for both.
    (r"\frac{1}{2|b|}\ln\left|\frac{x-|b|}{x+|b|}\right|", "1/(x**2 - b**2)", "CORRECT", None),
    (r"\frac{1}{2b}\ln\left|\frac{x-|b|}{x+|b|}\right|", "1/(x**2 - b**2)", "WRONG",
     "parameter_values"),
]

LOCALIZED = [
    (r"\sin x + \tanh(200x)", "cos(x)", "WRONG", None),
    (r"\frac{x^3}{3} + \tanh\left(10^{6}(x - 123.5)\right)", "x**2", "WRONG", None),
    (r"e^x + \frac{1}{1 + e^{-500(x + 40)}}", "exp(x)", "WRONG", None),
    (r"\ln|x| + \arctan\left(10^{5}(x - 2)\right)", "1/x", "WRONG", None),
    (r"x + \operatorname{erf}\left(10^{4}(x - 7)\right)", "1", "WRONG", None),
    # The integrand has the feature itself, or the added term is a constant.
    (r"\tanh(200x)", "200*sech(200*x)**2", "CORRECT", None),
    (r"e^{-10^6 (x-1)^2}", "-2*10**6*(x - 1)*exp(-10**6*(x - 1)**2)", "CORRECT", None),
    (r"x + \operatorname{erf}(50x) + \operatorname{erfc}(50x)", "1", "CORRECT", None),
]

NOTATION = [
    (r"\frac{\varphi^{2}}{2}", "phi", "CORRECT", None),
    (r"\frac{\vartheta^{3}}{3}", "theta**2", "CORRECT", None),
    (r"x\left(W(x) - 1 + \frac{1}{W(x)}\right)", "LambertW(x)", "CORRECT", None),
    (r"x\left(W_{0}(x) - 1\right) + \frac{x}{W_0(x)}", "LambertW(x)", "CORRECT", None),
    (r"x\left(\operatorname{W}(x) - 1\right) + \frac{x}{\operatorname{W}(x)}", "LambertW(x)",
     "CORRECT", None),
    (r"\mathrm{W}_{-1}(x)", "LambertW(x, -1)/(x*(1 + LambertW(x, -1)))", "CORRECT", None),
    (r"\operatorname{W}(x)", "LambertW(x, -1)/(x*(1 + LambertW(x, -1)))", "WRONG", None),
    (r"-E_1(x)", "exp(-x)/x", "CORRECT", None),
    (r"\operatorname{S}(x)", "sin(pi*x**2/2)", "CORRECT", None),
    (r"\operatorname{C}(x)", "sin(pi*x**2/2)", "WRONG", None),
    (r"F(x \mid m)", "1/sqrt(1 - m*sin(x)**2)", "CORRECT", None),
    (r"F(x|-2)", "1/sqrt(1 + 2*sin(x)**2)", "CORRECT", None),
    (r"F\left(x \,|\, \frac{1}{3}\right)", "1/sqrt(1 - sin(x)**2/3)", "CORRECT", None),
    # SymPy's own spellings of exact numbers in an integrand.
    (r"\frac{x^2}{3}", "S(2)/3*x", "CORRECT", None),
    (r"\frac{x^2}{3}", "Rational(2, 3)*x", "CORRECT", None),
    ("<answer>`x**3/3 + C`</answer>", "x**2", "CORRECT", None),
    ("<answer>```python\nsin(x) + C\n```</answer>", "cos(x)", "CORRECT", None),
    ("<answer>Max(x, 0)**2/2</answer>", "Max(x, 0)", "CORRECT", None),
    ("<answer>floor(x) + frac(x)</answer>", "1", "CORRECT", None),
    ("<answer>-E1(x)</answer>", "exp(-x)/x", "CORRECT", None),
    ("<answer>vartheta**3/3</answer>", "theta**2", "CORRECT", None),
]


def _check(answer: str, integrand: str):
    kind = "response" if answer.startswith("<answer>") else "latex"
    return check_antiderivative(answer, integrand, input_kind=kind, timeout_s=TIMEOUT_S)


@pytest.mark.parametrize("answer, integrand, verdict, reason",
                         JUMPS + CONTINUOUS_STEPS + PARAMETERS + LOCALIZED + NOTATION)
def test_the_definition(answer, integrand, verdict, reason):
    result = _check(answer, integrand)
    assert result.verdict.value == verdict, result.render()
    if reason is not None:
        assert result.reason == reason, result.render()


def test_a_parameter_refusal_names_the_values_and_the_stage():
    result = _check(r"\frac{e^{ax}}{|a|}", "exp(a*x)")
    assert result.stage == "parameters" == result.stages[-1].stage
    assert float(result.detail["values"]["a"]) < 0


def test_a_jump_names_where_it_is():
    result = _check(r"e^x + \frac{x - 3}{|x - 3|}", "exp(x)")
    assert result.stage == "continuity" and abs(float(result.detail["at"]) - 3) < 1e-6


def test_pathological_nested_special_functions_end_as_a_verdict_in_process():
    # Ei(li(Chi(Shi(x)))) far out asks for a 10^11-bit number: the in-process
    # memory cap turns that allocation into an error at once (no timing here:
    # benchmarks soundness measures the wall time of such calls).
    result = check_antiderivative("Ei(li(Chi(Shi(x)))) + Abs(x)", "sign(x)",
                                  input_kind="sympy", timeout_s=3.0)
    assert result.verdict in (Verdict.WRONG, Verdict.TIMEOUT), result.render()


def test_the_memory_cap_is_lifted_after_the_check():
    before = resource.getrlimit(resource.RLIMIT_AS)
    with memory_cap(256) as capped:
        during = resource.getrlimit(resource.RLIMIT_AS)
        with pytest.raises(MemoryError):
            bytearray(2 * 2**30)
    assert capped and during[0] != before[0]
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    with memory_cap(None) as capped:
        assert not capped and resource.getrlimit(resource.RLIMIT_AS) == before
