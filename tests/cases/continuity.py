r"""Continuity (docs/domain.md): an answer that jumps where the integrand is
continuous is no antiderivative, though each piece differentiates to f; a
new constant is allowed where f has a pole or its domain ends; answers
written with steps (``sgn``, ``H``, ``\lfloor\rfloor``, ``\max``) that are
continuous are correct, and look-alikes wrong somewhere are not."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    # jumps where the integrand is continuous
    V("cases-jump-of-1-at-0-for-abs-x", r"\begin{cases} x^2/2 & x \ge 0 \\ 1 - x^2/2 & x < 0 \end{cases}",
      "Abs(x)", "latex", WRONG, "discontinuous"),
    V("x-plus-sign-x", r"x + \frac{|x|}{x}", "1", "latex", WRONG, "discontinuous"),
    V("exp-plus-sign-of-x-minus-3", r"e^x + \frac{x - 3}{|x - 3|}", "exp(x)", "latex", WRONG, "discontinuous"),
    V("sin-plus-2-sgn-x-plus-7", r"\sin x + 2\operatorname{sgn}(x + 7)", "cos(x)", "latex", WRONG, "discontinuous"),
    V("cube-plus-floor-x", r"\frac{x^3}{3} + \lfloor x \rfloor", "x**2", "latex", WRONG, "discontinuous"),
    V("x-plus-heaviside-x-minus-1", "x + H(x - 1)", "1", "latex", WRONG, "discontinuous"),
    V("arctan-of-x-plus-1-over-1-minus-x", r"\arctan\frac{x + 1}{1 - x}",
      "1/(1 + x**2)", "latex", WRONG, "discontinuous"),
    V("arctan-tan-half-x-unjoined", r"\frac{2}{\sqrt3}\arctan\frac{\tan(x/2)}{\sqrt3}",
      "1/(2 + cos(x))", "latex", WRONG, "discontinuous"),
    # A new constant is allowed where the integrand has a pole or ends.
    V("ln-abs-x-new-constant-at-the-pole", r"\ln|x| + 3\operatorname{sgn} x", "1/x", "latex", OK),
    V("cases-log-new-constants-each-side", r"\begin{cases} \ln x + 1 & x > 0 \\ \ln(-x) - 2 & x < 0 \end{cases}",
      "1/x", "latex", OK),
    V("tan-plus-floor-constant-per-period", r"\tan x + \lfloor x/\pi + 1/2 \rfloor", "sec(x)**2", "latex", OK),
    V("minus-cot-plus-sgn-sin-per-period", r"-\cot x + 5\operatorname{sgn}(\sin x)", "csc(x)**2", "latex", OK),
    V("log-ratio-constants-per-interval",
      r"\frac{1}{2}\ln\left|\frac{x-1}{x+1}\right| + \begin{cases} 2 & x > 1 \\ 0 & -1 < x < 1 "
      r"\\ -5 & x < -1 \end{cases}",
      "1/(x**2 - 1)", "latex", OK),
    V("log-ratio-jump-at-0-inside-an-interval",
      r"\frac{1}{2}\ln\left|\frac{x-1}{x+1}\right| + \begin{cases} 2 & x > 0 \\ 0 & x \le 0 \end{cases}",
      "1/(x**2 - 1)", "latex", WRONG, "discontinuous"),
    # continuous answers written with steps
    V("half-x-squared-sgn-for-abs-x", r"\frac{x^2}{2}\operatorname{sgn} x", "Abs(x)", "latex", OK),
    V("x-heaviside-for-heaviside", r"x\,H(x)", "Heaviside(x)", "latex", OK),
    V("sgn-times-exp-abs-minus-1", r"\operatorname{sgn}(x)\left(e^{|x|} - 1\right)", "exp(Abs(x))", "latex", OK),
    V("max-x-0-squared-over-2", r"\frac{\max(x, 0)^2}{2}", "Max(x, 0)", "latex", OK),
    V("floor-plus-frac-is-x", r"\lfloor x \rfloor + \operatorname{frac}(x)", "1", "latex", OK),
    V("arctan-tan-half-x-joined-by-floor",
      r"\frac{2}{\sqrt3}\arctan\frac{\tan(x/2)}{\sqrt3} + \frac{2\pi}{\sqrt3}\left\lfloor\frac{x + \pi}{2\pi}\right\rfloor",
      "1/(2 + cos(x))", "latex", OK),
    V("sympy-sum-of-floors-for-floor", "x*floor(x) - floor(x)*(floor(x) + 1)/2", "floor(x)", "latex", OK),
    # Look-alikes that are wrong somewhere.
    V("half-x-squared-sgn-wrong-for-x", r"\frac{x^2}{2}\operatorname{sgn} x", "x", "latex", WRONG),
    V("max-x-0-squared-wrong-for-abs-x", r"\frac{\max(x, 0)^2}{2}", "Abs(x)", "latex", WRONG),
]
