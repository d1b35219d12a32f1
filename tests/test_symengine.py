"""F' by SymEngine (rewards/check/prepare/symengine_diff.py) must be SymPy's F'.

Checked numerically at real points on both sides of the branch cuts and at
complex points: a SymEngine rule that differs from SymPy's anywhere (as its
acosh rule does for u < -1) must not be trusted. What SymEngine is not trusted
with falls back to SymPy, and ``differentiate`` counts the fallbacks.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import mpmath as mp
import pytest
import sympy as sp

from rewards.check.pipeline import check_antiderivative
from rewards.check.prepare import derivative as derivative_module
from rewards.check.prepare import symengine_diff
from rewards.check.prepare.derivative import differentiate
from rewards.check.prepare.symengine_diff import _TRUSTED_FUNCTIONS, symengine_derivative

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "rubi_pairs.jsonl"
x, a = sp.symbols("x a")
R, J = sp.Rational, sp.I
# Exact points: evaluated at 30 digits, the two forms agree to ~30 digits.
POINTS = [-5, R(-3, 2), R(-7, 10), R(-1, 5), R(3, 10), R(9, 10), R(17, 10), 4,
          2 + J, -3 - J / 2, J / 2, -2 * J]
U = x**2 - 3 * x + sp.Rational(1, 3)  # crosses -1, 0 and 1 on the real line


@pytest.fixture
def with_symengine():
    """The SymEngine path's tests: skipped where the ``fast`` extra is absent."""
    pytest.importorskip("symengine")
    derivative_module._term_derivative.cache_clear()
    yield
    derivative_module._term_derivative.cache_clear()


@pytest.fixture
def without_symengine(monkeypatch):
    """SymPy only, as where symengine is not installed (term derivatives cached
    by SymEngine before are dropped, before and after)."""
    monkeypatch.setattr(symengine_diff, "se", None)
    derivative_module._term_derivative.cache_clear()
    yield
    derivative_module._term_derivative.cache_clear()


def _max_gap(d1: sp.Expr, d2: sp.Expr, subs: dict | None = None) -> float:
    """Largest relative gap of two derivatives over POINTS, by mpmath at 40
    digits (lambdified once: ``subs`` + ``N`` per point costs ~50x more)."""
    d1, d2 = (sp.sympify(d).subs(subs or {}) for d in (d1, d2))
    f1, f2 = (sp.lambdify(x, d, "mpmath") for d in (d1, d2))
    gap = 0.0
    with mp.workdps(40):
        for p in POINTS:
            re, im = sp.sympify(p).as_real_imag()  # exact rationals
            point = mp.mpc(mp.mpf(re.p) / re.q, mp.mpf(im.p) / im.q)
            try:
                v1, v2 = complex(f1(point)), complex(f2(point))
            except ZeroDivisionError:  # a pole of F' (atanh's at x = -3/2 in one Rubi row)
                continue
            gap = max(gap, abs(v1 - v2) / max(1.0, abs(v2)))
    return gap


@pytest.mark.usefixtures("with_symengine")
@pytest.mark.parametrize("function", sorted(_TRUSTED_FUNCTIONS, key=str), ids=str)
def test_each_trusted_rule_is_sympys_on_and_off_the_cuts(function):
    term = function(U)
    ours = symengine_derivative(term, x)
    assert ours is not None
    assert _max_gap(ours, sp.diff(term, x)) < 1e-20


@pytest.mark.usefixtures("with_symengine")
@pytest.mark.parametrize("function", sorted(_TRUSTED_FUNCTIONS, key=str), ids=str)
def test_each_trusted_rule_holds_for_a_real_variable(function):
    # The checker differentiates in a real x. SymEngine's own conversion of
    # a SymPy symbol with assumptions is not its Symbol("x"): asech(1/x) and
    # acsch(sqrt(x)) came out with F' = 0, and asech(1/x) was accepted as an
    # antiderivative of 0.
    xr = sp.Symbol("x", real=True)
    for term in (function(U.subs(x, xr)), function(1 / xr), x**2 * function(sp.sqrt(xr))):
        term = term.subs(x, xr)
        ours = symengine_derivative(term, xr)
        assert ours is not None
        assert _max_gap(ours, sp.diff(term, xr), {xr: x}) < 1e-20, term


@pytest.mark.parametrize("answer, integrand", [
    (r"\operatorname{asech}(1/x)", "0"),
    (r"x^2 + \operatorname{arcsch}(\sqrt{x})", "2*x"),
    (r"x \operatorname{asech}(\sqrt{x})", "asech(sqrt(x))"),
])
def test_a_term_with_a_nonzero_derivative_is_never_dropped(answer, integrand):
    derivative_module._term_derivative.cache_clear()
    assert check_antiderivative(answer, integrand, timeout_s=30.0).verdict == "WRONG"


@pytest.mark.usefixtures("with_symengine")
@pytest.mark.parametrize("term", [
    sp.sqrt(3) * sp.atanh(1 - x), sp.sqrt(2) * x * sp.sin(3 - x), x * sp.tan(1 - x**2),
    sp.cbrt(2) * sp.sqrt(3) * sp.atanh(sp.cbrt(2) * sp.sqrt(3) * sp.cbrt(x**2 + 1) / x
                                       - sp.sqrt(3) / x),
], ids=str)
def test_a_product_holding_an_odd_functions_sign_is_symengines(term):
    # SymEngine writes atanh(1 - x) as -atanh(x - 1): a factor -1 in the
    # product above it, which then holds one factor more than SymPy's.
    xr = sp.Symbol("x", real=True)
    term = term.subs(x, xr)
    ours = symengine_derivative(term, xr)
    assert ours is not None
    assert _max_gap(ours, sp.diff(term, xr), {xr: x}) < 1e-20, term


@pytest.mark.parametrize("term", [
    sp.acosh(U),                   # SymEngine's rule is wrong for u < -1
    sp.Abs(x - 1) * x,
    sp.sign(x) * x**2,
    sp.Piecewise((x**2, x > 0), (-x, True)),
    sp.LambertW(x**2),
    sp.polylog(2, x**2 + 1),
    sp.hyper([1, 2], [3], x**2),
    sp.erf(x) * sp.exp(x),
    sp.Ei(2 * x),
    sp.fresnels(x),
    sp.elliptic_e(x),
    sp.floor(x) * x,
    sp.sin(sp.Float("0.5", 30) * x),  # a float's precision stays SymPy's
    sp.sin(sp.Symbol("x", positive=True) * x),  # two symbols named x
    sp.sin(sp.Dummy("t") * x),
], ids=str)
def test_what_symengine_is_not_trusted_with_falls_back_to_sympy(term):
    assert symengine_derivative(term, x) is None
    counted = [0]
    ours = differentiate(term, x, counted)
    assert counted[0] == 1
    assert ours == sp.diff(term, x)


@pytest.mark.usefixtures("with_symengine")
def test_symbols_keep_their_assumptions():
    b = sp.Symbol("b", positive=True)
    term = sp.exp(b * x) * sp.log(x**2 + b)
    ours = symengine_derivative(term, x)
    assert ours is not None and b in ours.free_symbols
    assert sp.Symbol("b") not in ours.free_symbols
    assert _max_gap(ours, sp.diff(term, x), {b: 3}) < 1e-20


@pytest.mark.parametrize("answer", [
    x**x + sp.sqrt(x**3 - 2 * x) / (x + 1),
    sp.atan(sp.sqrt(a * x + 1)) - sp.log(sp.sin(x) ** 2 + a) / a,
    sp.asinh(x / 3) * sp.sec(x) ** 2 + (x - 1) ** sp.Rational(-5, 3),
    sp.exp(sp.I * x) * sp.acot(x) + sp.pi * sp.acsch(x**2 - 2),
    sp.LambertW(x) + sp.atan(x) + 3 * sp.acosh(x),  # two of three fall back
])
def test_mixed_answers_match_sympy(answer):
    counted = [0]
    ours = differentiate(answer, x, counted)
    assert counted[0] == sum(symengine_derivative(t.as_coeff_Mul()[1], x) is None
                             for t in sp.Add.make_args(answer))
    assert _max_gap(ours, sp.diff(answer, x), {a: sp.Rational(7, 3)}) < 1e-20


@pytest.mark.usefixtures("without_symengine")
def test_without_symengine_everything_is_sympys():
    answer = sp.atan(x) + sp.sin(x) ** 2 + sp.exp(a * x) * sp.log(x**2 + 1)
    assert symengine_derivative(sp.atan(x), x) is None
    counted = [0]
    assert differentiate(answer, x, counted) == sp.diff(answer, x)
    assert counted[0] == 3


# (answer, integrand): accepted and rejected, across the trusted functions and not.
VERDICT_PAIRS = [
    (r"\arctan(x) + \sin^2(x)", "1/(1 + x**2) + sin(2*x)"),
    (r"\ln(x^2 + 1) + e^{3x}", "2*x/(x**2 + 1) + 3*exp(3*x)"),
    (r"\operatorname{arcsinh}(x/2) - \tan(x)", "1/sqrt(x**2 + 4) - sec(x)**2"),
    (r"x \sec(x) + \frac{1}{x}", "sec(x) + x*sec(x)*tan(x) - 1/x**2"),
    (r"\arctan(x) + \sin^2(x)", "1/(1 + x**2) + sin(x)**2"),        # wrong
    (r"\ln|x| + \cosh(2x)", "1/x + 2*sinh(2*x)"),                   # Abs: SymPy's
    (r"2\sqrt{x} \sin(\sqrt{x})", "sin(sqrt(x))/sqrt(x) + cos(sqrt(x))"),
    (r"\operatorname{arccosh}(x)", "1/sqrt(x**2 - 1)"),                # acosh: SymPy's
    (r"\operatorname{asech}(1/x)", "1/(x*sqrt(1 - 1/x**2))"),
    (r"\sin(5 - x^2) + \operatorname{atanh}(\sqrt{2} x - \sqrt{3})",
     "2*x*cos(x**2 - 5) - sqrt(2)/((sqrt(2)*x - sqrt(3))**2 - 1)"),
]


@pytest.mark.parametrize("answer, integrand", VERDICT_PAIRS, ids=[p[0] for p in VERDICT_PAIRS])
def test_the_fallback_gives_the_same_derivative_and_verdict(answer, integrand, monkeypatch):
    def judged():
        derivative_module._term_derivative.cache_clear()
        result = check_antiderivative(answer, integrand, trace_accepted=True, timeout_s=30.0)
        stage = next(s for s in result.stages if s.stage == "differentiate")
        return result, stage.data
    fast, fast_data = judged()
    monkeypatch.setattr(symengine_diff, "se", None)
    slow, slow_data = judged()
    derivative_module._term_derivative.cache_clear()
    assert (fast.verdict, fast.reason) == (slow.verdict, slow.reason), (fast.render(), slow.render())
    parsed = [sp.sympify(str(d["out"]), locals={"x": x}) for d in (fast_data, slow_data)]
    assert sp.simplify(parsed[0] - parsed[1]) == 0
    assert slow_data["symengine_fallbacks"] >= 1  # without symengine every term is SymPy's


@pytest.mark.data
@pytest.mark.usefixtures("with_symengine")
@pytest.mark.skipif(not DATA.exists(), reason="../shared/data not present")
def test_rubi_antiderivatives_differentiate_as_with_sympy():
    rows = [json.loads(line) for line in DATA.open()]
    rows = [r for r in rows if len(r["antiderivative"]) < 200]
    trusted = 0
    # 80 rows: the inner loop's largest single test at 150 (6 s); the other
    # tests of this file check each trusted rule on and off its branch cuts.
    for row in random.Random(27).sample(rows, 80):
        F = sp.sympify(row["antiderivative"], locals={"x": x})
        for term in sp.Add.make_args(F):
            rest = term.as_coeff_Mul()[1]
            ours = symengine_derivative(rest, x)
            if ours is None:
                continue
            trusted += 1
            assert _max_gap(ours, sp.diff(rest, x)) < 1e-20, row["id"]
    assert trusted > 80  # most Rubi terms are elementary
