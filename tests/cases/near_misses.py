r"""Wrong answers next to right ones: a wrong coefficient, the derivative or
the integrand given instead, the tolerance exploits of a pure relative
tolerance (a tiny extra term), and extra symbols (right derivative, but not
an antiderivative in x alone). Each WRONG with its reason."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

WRONG = Verdict.WRONG

CASES = [
    V("cube-over-2", r"\frac{x^3}{2}", "x**2", "latex", WRONG, "numeric_mismatch"),
    V("cos-for-sin", r"\cos x", "sin(x)", "latex", WRONG, "numeric_mismatch"),
    V("the-derivative-given", r"2x", "x**2", "latex", WRONG, "numeric_mismatch"),  # the derivative given instead
    V("the-integrand-itself", r"x^2", "x**2", "latex", WRONG, "numeric_mismatch"),  # the integrand itself
    # the two tolerance exploits of a pure relative tolerance
    V("tiny-sin-term-1e-30", r"\sin x + \sin(10^{-30}x)", "cos(x)", "latex", WRONG, "numeric_mismatch"),
    V("tiny-linear-term-1e-13", r"e^x + 10^{-13}x", "exp(x)", "latex", WRONG, "numeric_mismatch"),
    V("tiny-linear-term-1e-40", r"\frac{x^3}{3} + 10^{-40} x", "x**2", "latex", WRONG, "numeric_mismatch"),
    # extra symbols: right derivative, but not an antiderivative in x alone
    V("stray-y", r"\frac{x^2}{2} + y", "x", "latex", WRONG, "residual_symbols"),
    V("C-times-x", r"Cx", "1", "latex", WRONG, "residual_symbols"),
    V("C-times-x-squared-over-2", r"C \cdot \frac{x^2}{2}", "x", "latex", WRONG, "residual_symbols"),
    V("x-times-e-to-the-C", r"x e^{C}", "1", "latex", WRONG, "residual_symbols"),
]
