"""The domain rule's question on balls (rewards/check/evidence/real_balls.py):
what the balls settle is what RealEvaluator says, for the exact value; what
they cannot settle is left to it; and the rule's point values are the same
with and without them."""
from __future__ import annotations

import random

import mpmath as mp
import pytest
import sympy as sp

from rewards.check.evidence import domain, real_balls
from rewards.check.limits import CAPS
from rewards.check.timebox import Deadline

pytest.importorskip("flint")

x = sp.Symbol("x")
a = sp.Symbol("a")


def _settle(expr, at, **params):
    fn = real_balls.compile_real(expr)
    assert fn is not None, expr
    with mp.workdps(20):
        env = real_balls.point({"x": mp.mpf(at), **{k: mp.mpf(v) for k, v in params.items()}})
        return real_balls.value_at(fn, env)


def _kind(value):
    if value is domain.TOO_LARGE or value is real_balls.TOO_LARGE:
        return "too_large"
    if value is None or value is real_balls.UNDEFINED:
        return "undefined"
    return "defined"


@pytest.mark.parametrize("expr, at, expected", [
    (sp.log(x), "2", "defined"),
    (sp.log(x), "-2", "undefined"),
    (sp.sqrt(1 - x**2), "0.5", "defined"),
    (sp.sqrt(1 - x**2), "1.5", "undefined"),
    (sp.sqrt(1 - x**2), "1", "defined"),          # an exact 0 under the root
    (1 / sp.sqrt(1 - x**2), "1", "undefined"),    # and over it
    (x ** sp.Rational(1, 3), "-8", "undefined"),  # real analysis: no odd root of a negative
    (x ** sp.Rational(2, 3), "0", "defined"),
    (x ** sp.Rational(-2, 3), "0", "undefined"),
    (1 / x, "0", "undefined"),
    (sp.asin(x), "0.999", "defined"),
    (sp.asin(x), "1.001", "undefined"),
    (sp.acosh(x), "-3", "undefined"),
    (sp.atanh(x), "-0.5", "defined"),
    (sp.atanh(x), "2", "undefined"),
    (sp.asec(x), "0.5", "undefined"),
    (sp.asec(x), "-2", "defined"),
    (sp.acoth(x), "3", "defined"),
    (sp.asech(x), "0.5", "defined"),
    (sp.asech(x), "1.5", "undefined"),
    (sp.tan(x) + sp.cot(x) * sp.cot(x), "0.7", "defined"),
    (sp.Abs(x - 3) * sp.exp(x), "-40", "defined"),
    (sp.exp(sp.exp(x)), "400", "too_large"),
    (sp.sinh(x**3), "20000", "too_large"),
    ((x**2 + 1) ** (sp.Integer(2) ** 42 + sp.Rational(1, 2)), "3", "too_large"),
    (sp.log(x) * sp.sqrt(x - 5) + sp.atan(x), "7", "defined"),
    (sp.log(a * x), "2", "defined"),
])
def test_what_balls_settle_is_what_the_mpmath_reading_says(expr, at, expected):
    params = {"a": "1.5"} if a in expr.free_symbols else {}
    settled = _settle(expr, at, **params)
    assert settled is not real_balls.UNKNOWN
    assert _kind(settled) == expected
    with mp.workdps(20):
        values = {"x": mp.mpf(at), **{k: mp.mpf(v) for k, v in params.items()}}
        assert _kind(domain.RealEvaluator(expr)(values)) == expected


@pytest.mark.parametrize("expr, at", [
    (sp.cot(x), "0"),                          # a pole: arb gives no finite value
    (sp.log(1 - sp.tanh(x) ** 2), "60"),       # rounds to log 0 at this precision
    (sp.sin(x ** 100), "1000"),                # past the bound for periodic functions
    (sp.acot(x), "0"),                         # read at 1/x, and 1/0 is no ball
])
def test_what_balls_cannot_settle_is_left_to_the_mpmath_reading(expr, at):
    assert _settle(expr, at) is real_balls.UNKNOWN


def test_a_symbol_without_a_value_is_left_to_the_mpmath_reading():
    fn = real_balls.compile_real(sp.log(x + a))
    with mp.workdps(20):
        assert real_balls.value_at(fn, real_balls.point({"x": mp.mpf(2)})) is real_balls.UNKNOWN


@pytest.mark.parametrize("expr", [
    sp.erf(x), sp.floor(x), sp.Piecewise((x, x > 0), (-x, True)), sp.Function("g")(x),
    sp.EulerGamma * x, sp.I * sp.log(x),
])
def test_nodes_not_mapped_leave_the_expression_to_mpmath(expr):
    assert real_balls.compile_real(expr) is None


def test_a_repeated_subterm_is_evaluated_once_a_point():
    calls = []
    original = sp.cot
    inner = sp.cot(x) ** 2 + sp.cot(x) + sp.sqrt(sp.cot(x) ** 2 + 2)
    fn = real_balls.compile_real(inner)
    with mp.workdps(20):
        env = real_balls.point({"x": mp.mpf("0.4")})
        first = real_balls.value_at(fn, env)
        calls.append(len(env))
        again = real_balls.value_at(fn, env)
    assert original is sp.cot and first.overlaps(again)
    # x, and one kept value per repeated node (cot(x), cot(x)^2).
    assert calls == [3]


# Answers and integrands the domain rule meets (as written, plain symbols),
# each with the integrand whose real domain decides where F is owed.
PAIRS = [
    (sp.asin(x) + sp.sqrt(1 - x**2), x / sp.sqrt(1 - x**2)),
    (sp.log(sp.Abs(x)) + sp.log(x), 1 / x),
    (2 * sp.sqrt(3) * sp.atanh(sp.tanh(x) / sp.sqrt(sp.sech(x) + 1)), sp.sqrt(3 * sp.sech(x) + 3)),
    (-sp.sqrt(sp.cot(x) ** 2 + 2) * sp.cot(x) - 4 * sp.asinh(sp.sqrt(2) * sp.cot(x) / 2),
     (sp.csc(x) ** 2 + 1) ** sp.Rational(3, 2)),
    ((1 - 2 * x) ** sp.Rational(5, 2) * sp.sqrt(5 * x + 3), (1 - 2 * x) ** sp.Rational(3, 2)),
    (sp.acosh(x) + sp.acoth(x), 1 / sp.sqrt(x**2 - 1)),
    (x ** sp.Rational(4, 3) + sp.log(x**2 - 4), x ** sp.Rational(1, 3)),
    (sp.exp(x**2) * sp.cosh(x), sp.exp(x) * x),
    (sp.asec(x) - sp.acsc(2 * x), 1 / (x * sp.sqrt(x**2 - 1))),
    (sp.log(sp.cos(x)) + sp.tan(x), sp.tan(x)),
]
POINTS = ["0", "1", "-1", "0.5", "-0.5", "2", "-2", "0.999999", "1.000001", "-1.000001",
          "3", "10", "-10", "37.5", "700", "-700", "1e-9", "250000", "1.5707963267948966"]


@pytest.mark.parametrize("answer, integrand", PAIRS, ids=str)
def test_the_rule_reads_each_point_the_same_with_and_without_balls(answer, integrand):
    rng = random.Random(str(answer))
    points = POINTS + [repr(rng.uniform(-6, 6)) for _ in range(12)]
    with_balls = domain._PointValues(answer, integrand, "x", {}, Deadline(60), 20)
    without = domain._PointValues(answer, integrand, "x", {}, Deadline(60), 20)
    without._on_balls = lambda values: real_balls.UNKNOWN
    settled = 0
    for at in points:
        assert _kind(with_balls(at)) == _kind(without(at)), at
        with mp.workdps(20):
            settled += with_balls._on_balls({"x": mp.mpf(at)}) is not real_balls.UNKNOWN
    assert settled >= len(points) // 2  # the fast path is taken, not only correct


def test_the_size_limit_is_the_one_the_mpmath_reading_uses():
    # Just below and well above 2^40 for exp's argument.
    below = sp.Integer(CAPS.log2_magnitude) - 10 ** 6
    assert _kind(_settle(sp.exp(x + below), "0")) == "defined"
    assert _kind(_settle(sp.exp(x + 2 * below), "0")) == "too_large"
