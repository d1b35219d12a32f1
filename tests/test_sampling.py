r"""Where the numeric evidence looks (issue 25, item 1 and 5): points next to
the critical points of every argument (bumps with no root), past the switch
points of exponential terms (differences only beyond x = 1000), with the
digits the values there need (a unit bump beside a 50-term polynomial), at
the natural scale of e^{kx}, and never deciding on a point that carried no
information. docs/domain.md, "What a numeric-only accept guarantees"."""
from __future__ import annotations

import random

import mpmath as mp
import pytest
import sympy as sp

from rewards import check_antiderivative
from rewards.check.evidence.lambdify import compile_expr
from rewards.check.evidence.numeric import NumericComparer
from rewards.check.evidence.points import (
    complex_points,
    far_points,
    feature_points,
    natural_scale,
)
from rewards.check.timebox import Deadline

x = sp.Symbol("x", real=True)


def _expanded_antiderivative(poly: sp.Expr) -> str:
    return sp.latex(sp.expand(sp.integrate(sp.expand(poly), x)))


_RNG = random.Random(3)
_POLY50 = sum(sp.Rational(_RNG.randint(-9, 9), _RNG.randint(1, 9)) * x**k for k in range(50))

CASES = [
    # a bump at the minimum of an exponent written as a sum of exponentials
    ("bump_at_exponent_minimum",
     r"\sin(x + 2\pi e^{-10^8(e^{-37}e^x + e^{37}e^{-x} - 2)}) + x^2", "cos(x) + 2*x", "WRONG"),
    ("bump_at_cosh_minimum", r"x^2 + e^{-10^{10}(\cosh(x - 100\sqrt{2}) - 1)}", "2*x", "WRONG"),
    ("bump_squared_irrational_centre", r"\ln(x^2+1) + \left(e^{-10^{8}(x-\pi^3)^2}\right)^2",
     "2*x/(x**2+1)", "WRONG"),
    ("bump_in_the_integrand_too", r"\arctan(x) + e^{-10^{8}(x-\pi^3)^2}",
     "1/(1+x**2) - 2*10**8*(x-pi**3)*exp(-10**8*(x-pi**3)**2)", "CORRECT"),
    # far-field switches: F' = f + O(1) only beyond |x| = 1000
    ("switch_beyond_1000", r"\sin(x + e^{-1000}e^x) + x", "cos(x) + 1", "WRONG"),
    ("switch_below_minus_1000", r"\sin(x + e^{-1000}e^{-x}) + x", "cos(x) + 1", "WRONG"),
    ("switch_in_one_exponent", r"\sin(x + e^{x-1000}) + x", "cos(x) + 1", "WRONG"),
    ("switch_of_a_polynomial_exponent", r"\sin(x + e^{x^2/1000 - 1000}) + x", "cos(x) + 1",
     "WRONG"),
    ("step_far_out", r"\frac{x^2}{2} + \tanh(x - 2500)", "x", "WRONG"),
    ("switch_of_a_high_power", r"\sin(x + (\frac{x+1000}{2000})^{2000}) + x", "cos(x) + 1",
     "WRONG"),
    ("high_power_right", r"\frac{2000}{2001}\left(\frac{x+1000}{2000}\right)^{2001}",
     "((x+1000)/2000)**2000", "CORRECT"),
    ("switch_right_both_sides", r"\sin(x + e^{x-1000})", "cos(x + exp(x-1000))*(1+exp(x-1000))",
     "CORRECT"),
    ("switch_right_in_a_log", r"\ln(1 + e^{x - 900})", "exp(x-900)/(1+exp(x-900))", "CORRECT"),
    # below the precision: long sums, a constant power, a bump beside 10^78
    ("expanded_power_plus_e300", _expanded_antiderivative((x - 1)**44) + r" + e^{-300} x",
     "(x-1)**44", "WRONG"),
    ("expanded_power", _expanded_antiderivative((x - 1)**44), "(x-1)**44", "CORRECT"),
    ("fifty_terms_plus_bump", sp.latex(sp.integrate(_POLY50, x)) + r" + e^{-10^{6}(x-37)^{2}}",
     str(_POLY50), "WRONG"),
    ("fifty_terms_plus_step",
     sp.latex(sp.integrate(_POLY50, x)) + r" + \frac{1}{1+e^{-10^{4}(x-37)}}", str(_POLY50),
     "WRONG"),
    # extreme scales: the values are informative only at |x| ~ 1/2016
    ("scale_1_over_2016", r"\frac{1}{2016}(e^{4032x} - 2e^{2016x} + 2)e^{e^{2016x}}",
     "exp(exp(2016*x) + 6048*x)", "CORRECT"),
    ("scale_nested", r"e^{e^{100x}}/100", "exp(100*x + exp(100*x))", "CORRECT"),
    ("scale_wrong_factor", r"\frac{e^{3000x}}{3001}", "exp(3000*x)", "WRONG"),
    # a far switch with its constant written apart: e^{-1500} parses (up to e^{±4000},
    # what the confirmation resolves), and a change of that size is seen
    ("constant_e_minus_1500_right", r"\cos x + e^{-1500}e^{-2x}", "-sin(x)-2*exp(-1500-2*x)",
     "CORRECT"),
    ("constant_e_minus_1500_wrong", r"\cos x + e^{-1500}e^{-2x}", "-sin(x)", "WRONG"),
    ("constant_e_minus_3000_inside", r"x + e^{-3000}\sin(x)", "1", "WRONG"),
    # a change of 10^-4342 (cos of e^{-5000}, minus 1): below what the capped
    # digits resolve, so only a proof could accept
    ("change_below_the_capped_digits", r"\sin x + \cos(e^{-5000}) x", "cos(x) + 1", "WRONG"),
    ("far_switch_at_4669_right", r"\frac{x^2}{2} + e^{-4669}e^{x}", "x + exp(x - 4669)",
     "CORRECT"),
]


@pytest.mark.parametrize(("answer", "integrand", "expected"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_verdict(answer, integrand, expected):
    result = check_antiderivative(rf"\boxed{{{answer}}}", integrand, symbol="x", timeout_s=30)
    assert result.verdict.name == expected, (result.reason, result.detail)


@pytest.mark.slow
@pytest.mark.parametrize("answer", [
    r"\sin(x + \frac{2\pi}{1 + (37/x)^{5000}}) + x",
    r"\sin x + x + \frac{1}{1 + (x/41)^{4000}}",
], ids=["literal_of_7841_digits", "literal_of_6450_digits"])
def test_literals_too_long_to_print_get_a_verdict(answer):
    # SymPy's printer used to raise on them (str() of an int past 4300
    # digits), and the reward returned None, paying a wrong answer better
    # than 0. Their confirmation runs at 4,000 extra digits: seconds, so a
    # loaded machine may reach the deadline instead, which pays 0 too.
    result = check_antiderivative(rf"\boxed{{{answer}}}", "cos(x)+1", symbol="x", timeout_s=60)
    assert result.verdict.name in ("WRONG", "TIMEOUT"), (result.reason, result.detail)
    assert result.reason != "unexpected"


def test_numeric_only_accept_names_its_guarantee():
    result = check_antiderivative(r"e^{\sin(x/2)\cos(x/2)}", "cos(x)/2*exp(sin(x)/2)",
                                  input_kind="latex", timeout_s=20, proof_budget_s=0.0)
    assert result.confidence.name == "NUMERIC_ONLY"
    assert result.detail["guarantee"] == "complex_sample"
    assert result.detail["feature_points"] > 0
    assert result.detail["levels"][1] >= 120


def test_critical_points_of_a_rootless_exponent_are_features():
    # e^{x-37} + e^{37-x} - 2 has no sign change; its minimum at 37 is a feature.
    exponent = -10**8 * (sp.exp(x - 37) + sp.exp(37 - x) - 2)
    points = feature_points([sp.exp(exponent)], x, Deadline(10), random.Random(0))
    assert any(abs(float(p) - 37) < 1e-3 for p, _ in points)


@pytest.mark.parametrize(("expr", "switch"), [
    (sp.exp(-1000) * sp.exp(x), 1000),
    (sp.exp(x - 800), 800),
    (sp.Rational(1, 10**300) * sp.exp(x), 690.8),
    (sp.exp(-x - 1500), -1500),
    (1 / sp.cosh(x - 3000), 3000),
    (sp.log(1 + sp.exp(x**2 - 10**6)), 1000),
    (sp.sin(x + ((x + 1000) / 2000)**2000), 1000),
    (((x + 1000) / 2000)**2000, -3000),
], ids=["constant_factor", "shifted_exponent", "rational_factor", "mirror", "sech",
        "polynomial_exponent", "high_power", "high_power_negative_side"])
def test_far_points_straddle_the_switch(expr, switch):
    points = [float(p) for p, _ in far_points([expr], x, Deadline(10), random.Random(1))]
    assert any(switch < p < switch + 60 for p in points)
    assert any(switch - 60 < p < switch for p in points)


def test_bounded_exponents_switch_nothing_on():
    assert far_points([sp.exp(sp.sin(x) / 2)], x, Deadline(10), random.Random(1)) == []


def test_natural_scale_of_steep_exponentials():
    assert natural_scale([sp.exp(sp.exp(2016 * x))], x) == pytest.approx(1 / 2016)
    assert natural_scale([sp.exp(x) + sp.sin(3 * x)], x) is None


def test_a_point_without_information_decides_nothing():
    # F' = f, written two ways; at |x| ~ 0.5 e^{e^{2016x}} has arguments of
    # size 10^400 and its values are noise at any affordable precision.
    F = (sp.exp(4032 * x) - 2 * sp.exp(2016 * x) + 2) * sp.exp(sp.exp(2016 * x)) / 2016
    f = sp.exp(sp.exp(2016 * x) + 6048 * x)
    noisy = complex_points(random.Random(1))
    comparer = NumericComparer(sp.diff(F, x), f, x, [], Deadline(20), noisy, param_values=[])
    assert comparer.screen()["decision"] != "nonzero"
    scaled = noisy + complex_points(random.Random(2), scale=1 / 4032)
    comparer = NumericComparer(sp.diff(F, x), f, x, [], Deadline(20), scaled, param_values=[])
    assert comparer.screen()["decision"] in ("zero", "zero_low")


def test_long_literals_are_passed_in_not_printed():
    fn = compile_expr([x], x / sp.Integer(37) ** 5000)
    with mp.workdps(30):
        assert abs(fn(mp.mpf(37) ** 5000) - 1) < mp.mpf("1e-25")


# numpy has no LambertW: the branch-cut scan of a complex log's argument then
# goes point by point in mpmath instead of finding no crossing at all.
_LAMBERT_INTEGRAND = "LambertW(x)/(x*(1+LambertW(x))*((LambertW(x)-1)**2+4))"


@pytest.mark.parametrize(("answer", "expected"), [
    (r"\frac{1}{4i}\ln\frac{W(x)-1-2i}{W(x)-1+2i}", "WRONG"),
    (r"\frac{1}{2}\arctan\frac{W(x)-1}{2}", "CORRECT"),
], ids=["log_crossing_its_cut_at_e", "arctan_form"])
def test_cut_crossings_of_arguments_numpy_cannot_evaluate(answer, expected):
    result = check_antiderivative(rf"\boxed{{{answer}}}", _LAMBERT_INTEGRAND, symbol="x",
                                  timeout_s=30)
    assert result.verdict.name == expected, (result.reason, result.detail)


def test_the_real_sample_reaches_the_natural_scale():
    from rewards.check.evidence.domain import analyze

    F = sp.sign(x) * (sp.exp(2016 * sp.Abs(x)) - 1) / 2016
    report = analyze(F, sp.exp(2016 * sp.Abs(x)), "x", {}, random.Random(0), Deadline(10))
    assert sum(abs(float(p)) < 0.01 for p, _ in report.points) >= 4
