r"""Elementary answers the fast proof decides (structurally or by the normal
form, before any multi-precision confirmation or the general ladder), and
wrong answers that must never reach an accept (a tiny hidden term is no
proof)."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    V("half-sin-squared-exp-normal-form", r"\frac{\sin^2 x}{2}", "sin(x)*cos(x)", "latex", OK),
    V("exp-times-sin-minus-cos", r"\frac{e^{x}(\sin x - \cos x)}{2}", "exp(x)*sin(x)", "latex", OK),
    V("sinh-2x-hyperbolic-vs-exp", r"\frac{\sinh(2x)}{4} - \frac{x}{2}", "sinh(x)**2", "latex", OK),
    V("log-ratio-rational", r"\frac{1}{2}\ln\left|\frac{x-1}{x+1}\right|", "1/(x**2 - 1)", "latex", OK),
    V("log-of-x-plus-root-radicals-as-symbols", r"\ln\left(x + \sqrt{x^2+1}\right)", "1/sqrt(x**2 + 1)",
      "latex", OK),
    V("root-and-arcsin-over-2", r"\frac{x\sqrt{1-x^2} + \arcsin x}{2}", "sqrt(1 - x**2)", "latex", OK),
    V("three-halves-power-of-2x-plus-1", r"\frac{(2x+1)^{3/2}}{3}", "sqrt(2*x + 1)", "latex", OK),
    V("tan-minus-x", r"\tan x - x", "tan(x)**2", "latex", OK),
    # wrong: never an accept
    V("cube-over-2-never-an-accept", r"\frac{x^3}{2}", "x**2", "latex", WRONG),
    V("sin-plus-a-tiny-hidden-term", r"\sin x + \sin(10^{-30} x)", "cos(x)", "latex", WRONG),
    V("log-plus-a-tiny-hidden-term", r"\ln|x| + 10^{-40} x", "1/x", "latex", WRONG),
]
