r"""How far a LaTeX function's argument reaches, judged: answers and LaTeX
integrands that are CORRECT only when read as people mean them (the scope
rule of ``tests/test_latex_scope.py``), and integrands written with their
differential (``\frac{dx}{...}``, a parameter named ``d``)."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK = Verdict.CORRECT

# CORRECT on both sides of the scope rule; a boxed answer is a whole response.
SCOPE_VERDICTS = [
    V("log-argument-ends-before-the-bracket",
      r"x\log x(\log(1+\log x) - 1)", r"\log x \log(1 + \log x) - \log x + \frac{\log x}{1 + \log x}"
      r" + \log(1+\log x) - 1", "latex", OK, integrand_kind="latex"),
    V("sin-x-times-sqrt2-boxed", r"\boxed{\sin x \sqrt{2}}", r"\sqrt 2\cos x", "response", OK,
      integrand_kind="latex"),
    V("sin-x-times-1-plus-x-boxed", r"\boxed{\sin x(1+x)}", r"\cos x(1+x) + \sin x", "response",
      OK, integrand_kind="latex"),
    V("cos-2x-argument", r"-\frac{1}{2}\cos 2x", r"\sin 2x", "latex", OK, integrand_kind="latex"),
    V("sin-squared-x", r"\frac{1}{2}\sin^2 x", r"\sin x\cos x", "latex", OK,
      integrand_kind="latex"),
    V("tan-x-minus-x", r"\tan x - x", r"\tan^2 x", "latex", OK, integrand_kind="latex"),
]

# Integrands with their differential, judged (the answer read as LaTeX).
DIFFERENTIAL_VERDICTS = [
    V("dx-in-the-numerator", r"-\frac{1}{5}\ln|1+x^{-5}|", r"\frac{dx}{x(x^5+1)}", "latex", OK,
      integrand_kind="latex"),
    V("dx-then-a-comma", r"\ln|\ln x + 2|", r"\frac{dx}{x\log x + 2x},", "latex", OK,
      integrand_kind="latex"),
    V("parameter-d-times-x", r"\frac{x^3}{3} + \frac{d x^2}{2}", r"x^2 + dx", "latex", OK,
      integrand_kind="latex"),
    V("parameter-d-times-x-squared", r"\frac{d x^3}{3}", r"d x^2", "latex", OK,
      integrand_kind="latex"),
]
