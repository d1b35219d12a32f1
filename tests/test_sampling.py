r"""Where the numeric evidence looks (issue 25, item 1 and 5): points next to
the critical points of every argument (bumps with no root), past the switch
points of exponential terms (differences only beyond x = 1000), with the
digits the values there need (a unit bump beside a 50-term polynomial), at
the natural scale of e^{kx}, and never deciding on a point that carried no
information. docs/domain.md, "What a numeric-only accept guarantees". The
verdict table is tests/cases/sampling.py."""
from __future__ import annotations

import random

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from rewards import check_antiderivative
from rewards.check.evidence import points as points_module
from rewards.check.evidence.lambdify import compile_expr
from rewards.check.evidence.numeric import NumericComparer
from rewards.check.evidence.points import (
    complex_points,
    far_points,
    feature_points,
    natural_scale,
)
from rewards.check.limits import CAPS
from rewards.check.timebox import Deadline
from tests.cases import sampling
from tests.support import case_id, check_case

x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("case", sampling.CASES, ids=case_id)
def test_verdict(case):
    check_case(case)


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


a_ = sp.Symbol("a")


@pytest.mark.parametrize("arg", [
    2016 * x, 3 * x + 2, -x / 7 + sp.sqrt(2), 2 * x + sp.sqrt(2) * x, a_ * x ** 2 - 5 * x,
    x ** 3 - x ** 3 / 2 + 4, sp.pi * x ** 2 + sp.I * x, x ** 40 + 1, x ** 70 + 1, sp.Integer(5),
])
def test_monomial_terms_are_the_polynomial_terms(arg):
    # The shortcut natural_scale takes instead of sp.Poly must read the
    # same (degree, coefficient) pairs, or refuse where Poly would.
    poly = points_module.small_polynomial(arg, x, CAPS.exact_root_degree)
    terms = points_module._monomial_terms(arg, x)
    if poly is None:
        assert terms is None
    else:
        assert [(k, sp.simplify(c)) for k, c in terms] == \
            [(k, sp.simplify(c)) for (k,), c in poly.terms()]


@pytest.mark.parametrize("arg", [(3 * x + 2) ** 4, x * (x + 1), sp.sqrt(x) + 1, x * sp.exp(x)])
def test_other_shapes_go_to_the_polynomial(arg):
    assert points_module._monomial_terms(arg, x) is None


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


# Sums, products and powers as the parser and SymPy's diff leave them: signs
# in front, reciprocals, half powers both ways, a negative base under a
# power (where one missing parenthesis would compute -(1**2)), a product
# inside a power inside a function, an unevaluated product with a rational.
_PRINTED = [
    -2 * x**3 / (x + 1) + sp.sqrt(x) / 3 - 1 / sp.sqrt(x**2 + 1),
    (-1) ** x + (-2) ** sp.Rational(1, 3) * x,
    -x**2 + sp.Rational(-5, 7) * sp.exp(-x) * sp.sin(x) ** -2,
    sp.log(1 - 2 * x) * (3 * x + 2) ** -1 - sp.atan(x / sp.sqrt(1 - x**2)),
    sp.Mul(sp.Rational(1, 2), sp.Pow(x - 1, -1, evaluate=False), evaluate=False),
    (x**2 - 4) ** sp.Rational(-3, 2) * sp.cosh(x) ** 2 - sp.I * x ** (-sp.Rational(1, 2)),
]


@pytest.mark.parametrize("expr", _PRINTED, ids=str)
def test_the_flat_printer_computes_what_lambdify_computes(expr):
    # compile_expr prints sums, products and powers in full parentheses
    # (no precedence or sign queries): the same values, to the last digits.
    ours = compile_expr([x], expr)
    stock = sp.lambdify([x], expr, "mpmath")
    for dps in (30, 60):
        with mp.workdps(dps):
            for point in (mp.mpf("0.37"), mp.mpf("-2.5"), mp.mpc("1.3", "-0.4")):
                try:
                    expected = mp.mpmathify(stock(point))
                except ZeroDivisionError:
                    with pytest.raises(ZeroDivisionError):
                        ours(point)
                    continue
                got = mp.mpmathify(ours(point))
                assert abs(got - expected) <= mp.mpf(10) ** (4 - dps) * max(1, abs(expected))


@pytest.mark.parametrize("expr", [*_PRINTED, sp.coth(x) ** 2 / (2 - sp.coth(x) ** 2)
                                  + sp.sqrt(2 - sp.coth(x) ** 2) * sp.coth(x)], ids=str)
@pytest.mark.parametrize("modules", ["mpmath", "numpy", ["math", "mpmath"]], ids=str)
def test_compiled_functions_are_lambdifys_with_the_same_printer(expr, modules):
    # compile_expr executes the source lambdify would print, in lambdify's
    # namespace, without its walks: the same values to the last bit.
    from rewards.check.evidence import lambdify as module

    printer = {"numpy": module.NumPyPrinter, "mpmath": module._FlatMpmathPrinter}.get(
        modules if isinstance(modules, str) else "", module.MpmathPrinter)
    ours = compile_expr([x], expr, modules)
    stock = sp.lambdify([x], expr, modules, printer=printer(dict(module._SETTINGS)))
    assert ours.__code__.co_filename == "<compile_expr>"
    points = ([np.linspace(-3, 3, 9)] if modules == "numpy"
              else [mp.mpf("0.37"), mp.mpf("-2.5"), mp.mpc("1.3", "-0.4")])
    for dps in (30, 60):
        with mp.workdps(dps), np.errstate(all="ignore"):
            for point in points:
                outcomes = []
                for fn in (ours, stock):
                    try:
                        outcomes.append(repr(fn(point)))
                    except (ZeroDivisionError, TypeError, ValueError) as exc:
                        outcomes.append(type(exc).__name__)
                assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("expr", [
    x + sp.Symbol("a"),                       # a symbol that is not an argument
    sp.Subs(sp.sin(x * sp.Symbol("t")), sp.Symbol("t"), 2),
    sp.Function("g")(x) + 1,
], ids=str)
def test_what_only_lambdify_compiles_goes_to_lambdify(expr):
    fn = compile_expr([x], expr)
    assert fn.__code__.co_filename != "<compile_expr>"


@pytest.mark.parametrize(("expr", "digits"), [
    # The largest numerator or denominator, a Float's decimal order, a
    # constant power's size, whichever is largest; symbolic powers count
    # only their numbers.
    (x / sp.Integer(37) ** 50 + 1, 79),
    (sp.Float("1e-40") * x + 2, 40),
    (sp.exp(-300) * x, 130),
    (sp.sqrt(2) * x ** 7 + sp.Rational(3, 1000), 4),
    (sp.exp(x) * 10**12, 13),
    (x ** 2, 1),
])
def test_literal_digits_size_every_literal_of_an_expression(expr, digits):
    from rewards.check.evidence.numeric import _literal_digits

    assert _literal_digits(expr) == digits
    assert _literal_digits(expr, sp.Integer(10) ** 200 * x) == 201
