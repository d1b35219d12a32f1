r"""Parameters of either sign (docs/domain.md): an answer right only for some
signs of a parameter (``|a|`` where ``a`` belongs) is wrong, named
``parameter_values``; the generic answer is correct."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    V("exp-ax-over-abs-a", r"\frac{e^{ax}}{|a|}", "exp(a*x)", "latex", WRONG, "parameter_values"),
    V("exp-ax-over-sqrt-a-squared", r"\frac{e^{ax}}{\sqrt{a^2}}", "exp(a*x)", "latex", WRONG, "parameter_values"),
    V("arctan-x-over-abs-a", r"\frac{1}{a}\arctan\frac{x}{|a|}", "1/(x**2 + a**2)", "latex", WRONG, "parameter_values"),
    V("cos-abs-a-x-over-abs-a", r"-\frac{\cos(|a| x)}{|a|}", "sin(a*x)", "latex", WRONG, "parameter_values"),
    V("abs-b-over-b-log", r"\frac{|b|}{b}\ln|x + b|", "1/(x + b)", "latex", WRONG, "parameter_values"),
    V("exp-ax-over-a", r"\frac{e^{ax}}{a}", "exp(a*x)", "latex", OK),
    V("arctan-x-over-a-generic-a", r"\frac{1}{a}\arctan\frac{x}{a}", "1/(x**2 + a**2)", "latex", OK),
    V("power-n-plus-1", r"\frac{x^{n+1}}{n+1}", "x**n", "latex", OK),
    V("log-ax-plus-b-over-a", r"\frac{1}{a}\ln|ax + b|", "1/(a*x + b)", "latex", OK),
    # Bars inside bars: |b| is the same for b and -b, so this one holds for both.
    V("log-ratio-abs-b-bars-inside-bars", r"\frac{1}{2|b|}\ln\left|\frac{x-|b|}{x+|b|}\right|",
      "1/(x**2 - b**2)", "latex", OK),
    V("log-ratio-over-2b-with-abs-b-inside", r"\frac{1}{2b}\ln\left|\frac{x-|b|}{x+|b|}\right|",
      "1/(x**2 - b**2)", "latex", WRONG, "parameter_values"),
]
