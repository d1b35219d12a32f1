"""F' and f on FLINT's balls (rewards/check/evidence/balls.py): the same
values as mpmath's wherever a ball is used, mpmath wherever it is not, and
every verdict and reason the same with and without python-flint."""
from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from rewards.check.evidence import balls, numeric
from rewards.check.evidence.lambdify import compile_expr
from rewards.check.pipeline import check_antiderivative

flint = pytest.importorskip("flint")

x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)
LOST_BITS = numeric._LOST_BITS


def _both(expr, point, params=(), dps=30, args=(x,)):
    fn = compile_expr(list(args), expr)
    on_balls = balls.ball_function(fn)
    assert on_balls is not None
    with mp.workdps(dps):
        point = mp.mpmathify(point)
        params = [mp.mpf(p) for p in params]
        try:
            expected = mp.mpmathify(fn(point, *params))
        except ZeroDivisionError:
            expected = None
        got = balls.evaluate([on_balls], point, params, lost_bits=LOST_BITS)
        got = None if got is None else [balls.to_mpmath(v) for v in got]
        return expected, got


def _close(expected, got, dps):
    with mp.workdps(dps):
        return abs(expected - got) <= abs(expected) * mp.mpf(10) ** (-(dps - 5))


# Every mapped function on both sides of each of its branch cuts, and on the
# cut itself, where the side taken is a convention: arb's must be mpmath's.
_CUTS = {
    sp.sqrt: [-2, -0.5], sp.log: [-2, -0.5], sp.asin: [2, -2, 1.5], sp.acos: [2, -2, -1.5],
    sp.atan: [2j, -2j, 1.5j], sp.asinh: [2j, -2j, -1.5j], sp.acosh: [0.5, -2, -0.5],
    sp.atanh: [2, -2, 1.5],
}


@pytest.mark.parametrize(("func", "where"), [(f, w) for f, ws in _CUTS.items() for w in ws])
@pytest.mark.parametrize("side", [0, 1e-25, -1e-25])
def test_the_same_side_of_every_branch_cut(func, where, side):
    # Off the cut by a hair (the ball decides the side, or gives up), or on it.
    point = complex(where) + (side * 1j if complex(where).imag == 0 else side)
    expected, got = _both(func(x), point)
    if got is not None:
        assert _close(expected, got[0], 30)
    if side == 0:
        assert got is not None  # an exact point on the cut: a definite value


ELEMENTARY = [
    sp.exp(x) * sp.sin(x) ** 2 / (1 + x ** 2), sp.sqrt(x ** 2 + 1) * sp.log(x + 2),
    sp.tan(x) + sp.sec(x) ** 3 - sp.csc(x) * sp.cot(x), sp.sech(x) ** 2 * sp.tanh(x) + sp.csch(x),
    sp.coth(x) - sp.cosh(x) * sp.sinh(x), sp.asin(x / 3) + sp.acos(x / 5) - sp.atan(x),
    sp.asinh(x) * sp.acosh(x + 3) / sp.atanh(x / 7), (x + 1) ** sp.Rational(2, 3) - sp.pi * sp.E,
    x ** sp.Float("0.25") + sp.I * x, (2 * x + 1) ** -5 * sp.Rational(7, 3),
]


@pytest.mark.parametrize("expr", ELEMENTARY, ids=[str(e)[:30] for e in ELEMENTARY])
@pytest.mark.parametrize("point", ["0.37+0.21j", "-1.9+0.8j", "2.2", "-0.6", "12.5-3.1j"])
@pytest.mark.parametrize("dps", [30, 60])
def test_the_values_are_mpmaths(expr, point, dps):
    expected, got = _both(expr, point, dps=dps)
    if got is not None:
        assert _close(expected, got[0], dps)


@pytest.mark.parametrize("expr", ELEMENTARY, ids=[str(e)[:30] for e in ELEMENTARY])
def test_a_generic_point_is_evaluated_on_balls(expr):
    assert _both(expr, "0.37+0.21j")[1] is not None


def test_parameters_are_passed_in_order():
    expected, got = _both(a * x ** 2 - sp.sqrt(a) * x, "0.5+0.25j", ["3.5"], args=(x, a))
    assert _close(expected, got[0], 30)


@pytest.mark.parametrize(("expr", "point"), [
    (1 / x, "0"),                                  # a pole: mpmath decides (unusable)
    (1 / (1 - sp.tanh(x) ** 2), "300.5+0.1j"),     # 1 - tanh^2 cancels to nothing
    (sp.exp(x) - 1 - x - x ** 2 / 2, "1e-12"),     # digits lost to cancellation
])
def test_no_value_where_the_ball_is_not_tight(expr, point):
    _, got = _both(expr, point)
    assert got is None


@pytest.mark.parametrize("expr", [
    sp.sign(x) * x, sp.Abs(x) + 1, sp.erf(x), sp.gamma(x + 3), sp.li(x + 2),
    x / sp.Integer(37) ** 5000,                    # a literal passed in by a wrapper
])
def test_what_stays_with_mpmath(expr):
    assert balls.ball_function(compile_expr([x], expr)) is None


def test_without_flint_there_are_no_balls(monkeypatch):
    monkeypatch.setattr(balls, "acb", None)
    assert balls.ball_function(compile_expr([x], sp.sin(x))) is None


# (answer, integrand): right and wrong answers as a policy writes them,
# differing everywhere, only somewhere, or below the screen's first digits.
CASES = [
    ("2*log(x**2 + 1)", "2*x/(x**2 + 1)", "WRONG"),
    ("-x**3/3 - x", "x**2 + 1", "WRONG"),
    ("x**2/2 + tanh(200*(x - 3/10))/200", "x", "WRONG"),
    ("x**2/2 + 10**(-30)*x", "x", "WRONG"),
    ("sqrt(x - 1)*sqrt(x + 1)", "x/sqrt(x**2 - 1)", "WRONG"),
    ("a*x**2", "a*x", "WRONG"),
    ("log(x**2 + 1)", "2*x/(x**2 + 1)", "CORRECT"),
    ("x - tanh(x)", "(1/(1 - tanh(x)**2) - 1)*sech(x)**2", "CORRECT"),
    ("asinh(x)*x - sqrt(x**2 + 1)", "asinh(x)", "CORRECT"),
    ("acosh(x)**2/2", "acosh(x)/(sqrt(x - 1)*sqrt(x + 1))", "CORRECT"),
    ("2*sqrt(x)*exp(sqrt(x))", "exp(sqrt(x))*(1 + 1/sqrt(x))", "CORRECT"),
]


@pytest.mark.parametrize(("answer", "integrand", "verdict"), CASES,
                         ids=[f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_same_verdict_and_stages_with_and_without_balls(answer, integrand, verdict,
                                                        monkeypatch):
    def run():
        result = check_antiderivative(answer, integrand, symbol="x", input_kind="sympy")
        decisions = [(s.stage, s.status, s.data.get("decision"), s.data.get("levels"))
                     for s in result.stages]
        return result.verdict.value, result.reason, result.confidence.value, decisions

    used = []

    def counted(*args, **kwargs):
        values = balls.evaluate(*args, **kwargs)
        used.append(values is not None)
        return values

    monkeypatch.setattr(numeric, "evaluate", counted)
    with_balls = run()
    assert any(used) or with_balls[1].startswith("proved") or with_balls[1] == "structural"
    monkeypatch.setattr(balls, "acb", None)
    numeric._compile.cache_clear()
    try:
        without = run()
    finally:
        numeric._compile.cache_clear()
    assert with_balls == without
    assert with_balls[0] == verdict
