r"""Terms localized between sample points: a steep step (``tanh``, a
logistic, ``erf``, ``arctan`` of a large multiple) added to a right answer
is wrong wherever it sits; where the integrand has the feature itself, or
the added term is a constant, the answer is right."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    V("sin-plus-tanh-200x", r"\sin x + \tanh(200x)", "cos(x)", "latex", WRONG),
    V("cube-plus-tanh-step-at-123.5", r"\frac{x^3}{3} + \tanh\left(10^{6}(x - 123.5)\right)", "x**2", "latex", WRONG),
    V("exp-plus-logistic-step-at-minus-40", r"e^x + \frac{1}{1 + e^{-500(x + 40)}}", "exp(x)", "latex", WRONG),
    V("ln-plus-arctan-step-at-2", r"\ln|x| + \arctan\left(10^{5}(x - 2)\right)", "1/x", "latex", WRONG),
    V("x-plus-erf-step-at-7", r"x + \operatorname{erf}\left(10^{4}(x - 7)\right)", "1", "latex", WRONG),
    # The integrand has the feature itself, or the added term is a constant.
    V("tanh-200x-in-the-integrand", r"\tanh(200x)", "200*sech(200*x)**2", "latex", OK),
    V("narrow-gaussian-in-the-integrand", "e^{-10^6 (x-1)^2}", "-2*10**6*(x - 1)*exp(-10**6*(x - 1)**2)", "latex", OK),
    V("erf-plus-erfc-is-a-constant", r"x + \operatorname{erf}(50x) + \operatorname{erfc}(50x)", "1", "latex", OK),
]
