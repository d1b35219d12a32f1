r"""Textbook antiderivatives in the forms a model writes: constant offsets,
``\ln|x|`` forms, arctan against arccot, special functions, ``|x|`` answers,
by parts, substitution and hyperbolic forms. All CORRECT."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK = Verdict.CORRECT

CASES = [
    # constant offsets: both are antiderivatives of sin x cos x
    V("sin-squared-over-2", r"\frac{\sin^2 x}{2}", "sin(x)*cos(x)", "latex", OK),
    V("minus-cos-squared-over-2", r"-\frac{\cos^2 x}{2}", "sin(x)*cos(x)", "latex", OK),
    V("minus-cos-2x-over-4", r"-\frac{\cos(2x)}{4} + C", "sin(x)*cos(x)", "latex", OK),
    # ln|x| forms
    V("ln-abs-x", r"\ln|x| + C", "1/x", "latex", OK),
    V("ln-left-right-abs-x", r"\ln\left|x\right|", "1/x", "latex", OK),
    V("log-x-without-abs", r"\log(x)", "1/x", "latex", OK),
    V("ln-abs-2x", r"\ln|2x|", "1/x", "latex", OK),
    V("ln-abs-sec-plus-tan", r"\ln\left|\sec x + \tan x\right| + C", "sec(x)", "latex", OK),
    V("minus-ln-abs-cos", r"-\ln|\cos x|", "tan(x)", "latex", OK),
    V("half-ln-ratio-partial-fractions", r"\frac{1}{2}\ln\left|\frac{x-1}{x+1}\right|", "1/(x**2 - 1)", "latex", OK),
    # arctan vs arccot of 1/x (SymPy's odd arccot: continuous across a pole of
    # its argument; -arccot x jumps at 0, see tests/test_jumps.py)
    V("arctan", r"\arctan x", "1/(1 + x**2)", "latex", OK),
    V("arccot-of-reciprocal", r"\operatorname{arccot}\frac{1}{x}", "1/(1 + x**2)", "latex", OK),
    V("tan-inverse-notation", r"\tan^{-1}(x) + C", "1/(1 + x**2)", "latex", OK),
    # special functions
    V("erf", r"\frac{\sqrt{\pi}}{2}\operatorname{erf}(x)", "exp(-x**2)", "latex", OK),
    V("exponential-integral-Ei", r"\operatorname{Ei}(x)", "exp(x)/x", "latex", OK),
    V("dilogarithm-Li2", r"-\operatorname{Li}_{2}(-x)", "log(1 + x)/x", "latex", OK),
    # Abs answers (real sampling)
    V("x-abs-x-over-2", r"\frac{x|x|}{2}", "Abs(x)", "latex", OK),
    # by parts, substitution, hyperbolic
    V("by-parts-x-exp", r"(x-1)e^{x} + C", "x*exp(x)", "latex", OK),
    V("by-parts-x-ln-x", r"x\ln x - x", "log(x)", "latex", OK),
    V("exp-sin-by-parts-twice", r"\frac{e^{x}(\sin x - \cos x)}{2}", "exp(x)*sin(x)", "latex", OK),
    V("sinh-inverse", r"\sinh^{-1} x", "1/sqrt(x**2 + 1)", "latex", OK),
    V("asinh-as-a-logarithm", r"\ln\left(x + \sqrt{x^2+1}\right)", "1/sqrt(x**2 + 1)", "latex", OK),
    V("x-to-the-3-halves", r"\frac{2}{3}x^{3/2}", "sqrt(x)", "latex", OK),
    V("power-101", r"\frac{x^{101}}{101}", "x**100", "latex", OK),
]
