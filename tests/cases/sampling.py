r"""Where the numeric evidence looks (issue 25, items 1 and 5; docs/domain.md,
"What a numeric-only accept guarantees"): points next to the critical points
of every argument (bumps with no root), past the switch points of
exponential terms (differences only beyond x = 1000), with the digits the
values there need (a unit bump beside a 50-term polynomial), and at the
natural scale of e^{kx}. Each answer is read as a box alone."""
from __future__ import annotations

import random

import sympy as sp

from rewards import Verdict
from tests.cases import boxed
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

x = sp.Symbol("x", real=True)


def _expanded_antiderivative(poly: sp.Expr) -> str:
    return sp.latex(sp.expand(sp.integrate(sp.expand(poly), x)))


_RNG = random.Random(3)
_POLY50 = sum(sp.Rational(_RNG.randint(-9, 9), _RNG.randint(1, 9)) * x**k for k in range(50))

CASES = [
    # a bump at the minimum of an exponent written as a sum of exponentials
    V("bump_at_exponent_minimum",
      boxed(r"\sin(x + 2\pi e^{-10^8(e^{-37}e^x + e^{37}e^{-x} - 2)}) + x^2"),
      "cos(x) + 2*x", "latex", WRONG),
    V("bump_at_cosh_minimum",
      boxed(r"x^2 + e^{-10^{10}(\cosh(x - 100\sqrt{2}) - 1)}"),
      "2*x", "latex", WRONG),
    V("bump_squared_irrational_centre",
      boxed(r"\ln(x^2+1) + \left(e^{-10^{8}(x-\pi^3)^2}\right)^2"),
      "2*x/(x**2+1)", "latex", WRONG),
    V("bump_in_the_integrand_too",
      boxed(r"\arctan(x) + e^{-10^{8}(x-\pi^3)^2}"),
      "1/(1+x**2) - 2*10**8*(x-pi**3)*exp(-10**8*(x-pi**3)**2)", "latex", OK),
    # far-field switches: F' = f + O(1) only beyond |x| = 1000
    V("switch_beyond_1000", boxed(r"\sin(x + e^{-1000}e^x) + x"), "cos(x) + 1", "latex", WRONG),
    V("switch_below_minus_1000", boxed(r"\sin(x + e^{-1000}e^{-x}) + x"), "cos(x) + 1", "latex", WRONG),
    V("switch_in_one_exponent", boxed(r"\sin(x + e^{x-1000}) + x"), "cos(x) + 1", "latex", WRONG),
    V("switch_of_a_polynomial_exponent",
      boxed(r"\sin(x + e^{x^2/1000 - 1000}) + x"),
      "cos(x) + 1", "latex", WRONG),
    V("step_far_out", boxed(r"\frac{x^2}{2} + \tanh(x - 2500)"), "x", "latex", WRONG),
    V("switch_of_a_high_power",
      boxed(r"\sin(x + (\frac{x+1000}{2000})^{2000}) + x"),
      "cos(x) + 1", "latex", WRONG),
    V("high_power_right",
      boxed(r"\frac{2000}{2001}\left(\frac{x+1000}{2000}\right)^{2001}"),
      "((x+1000)/2000)**2000", "latex", OK),
    V("switch_right_both_sides",
      boxed(r"\sin(x + e^{x-1000})"),
      "cos(x + exp(x-1000))*(1+exp(x-1000))", "latex", OK),
    V("switch_right_in_a_log", boxed(r"\ln(1 + e^{x - 900})"), "exp(x-900)/(1+exp(x-900))", "latex", OK),
    # below the precision: long sums, a constant power, a bump beside 10^78
    V("expanded_power_plus_e300",
      boxed(_expanded_antiderivative((x - 1)**44) + r" + e^{-300} x"),
      "(x-1)**44", "latex", WRONG),
    V("expanded_power", boxed(_expanded_antiderivative((x - 1)**44)), "(x-1)**44", "latex", OK),
    V("fifty_terms_plus_bump",
      boxed(sp.latex(sp.integrate(_POLY50, x)) + r" + e^{-10^{6}(x-37)^{2}}"),
      str(_POLY50), "latex", WRONG),
    V("fifty_terms_plus_step",
      boxed(sp.latex(sp.integrate(_POLY50, x)) + r" + \frac{1}{1+e^{-10^{4}(x-37)}}"),
      str(_POLY50), "latex", WRONG),
    # extreme scales: the values are informative only at |x| ~ 1/2016
    V("scale_1_over_2016",
      boxed(r"\frac{1}{2016}(e^{4032x} - 2e^{2016x} + 2)e^{e^{2016x}}"),
      "exp(exp(2016*x) + 6048*x)", "latex", OK),
    V("scale_nested", boxed(r"e^{e^{100x}}/100"), "exp(100*x + exp(100*x))", "latex", OK),
    V("scale_wrong_factor", boxed(r"\frac{e^{3000x}}{3001}"), "exp(3000*x)", "latex", WRONG),
    # a far switch with its constant written apart: e^{-1500} parses (up to e^{±4000},
    # what the confirmation resolves), and a change of that size is seen
    V("constant_e_minus_1500_right",
      boxed(r"\cos x + e^{-1500}e^{-2x}"),
      "-sin(x)-2*exp(-1500-2*x)", "latex", OK),
    V("constant_e_minus_1500_wrong", boxed(r"\cos x + e^{-1500}e^{-2x}"), "-sin(x)", "latex", WRONG),
    V("constant_e_minus_3000_inside", boxed(r"x + e^{-3000}\sin(x)"), "1", "latex", WRONG),
    # a change of 10^-4342 (cos of e^{-5000}, minus 1): below what the capped
    # digits resolve, so only a proof could accept
    V("change_below_the_capped_digits", boxed(r"\sin x + \cos(e^{-5000}) x"), "cos(x) + 1", "latex", WRONG),
    V("far_switch_at_4669_right", boxed(r"\frac{x^2}{2} + e^{-4669}e^{x}"), "x + exp(x - 4669)", "latex", OK),
]
