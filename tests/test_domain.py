"""The domain rule and the sampling behind the numeric evidence.

The rule (rewards/check/domain.py, docs/domain.md): F is an antiderivative of
f when F' = f wherever F is real-valued and F is real on the whole of at least
one component of f's real domain. Sample points are drawn per check from a
generator seeded by (answer, integrand): wrong answers that differ from a
right one only between two points, beyond them, or on half the line, must
never pass, wherever the difference is.
"""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewards import Confidence, Verdict, check_antiderivative
from rewards.check.evidence import points as points_module
from rewards.check.evidence.domain import analyze, restricts_domain, spread_sample
from rewards.check.evidence.points import breakpoints, complex_points, real_points, seed_for
from rewards.check.limits import CAPS
from rewards.check.timebox import Deadline
from tests.cases import domain
from tests.support import case_id, check_case

x = sp.Symbol("x")


def check(answer, integrand, kind="latex"):
    return check_antiderivative(answer, integrand, input_kind=kind, timeout_s=30)


@pytest.mark.parametrize("case", domain.CASES, ids=case_id)
def test_the_domain_rule(case):
    check_case(case)


def test_an_identity_of_analytic_functions_needs_no_real_reading():
    # e^{2 ln x} is x^2 for every x != 0 on the principal branch (how SymPy
    # and every CAS read it), and Rubi's own antiderivatives are full of
    # forms real only up to an imaginary constant (atanh of an argument > 1):
    # an identity at complex points is accepted without the real-domain look.
    assert check(r"e^{2\ln x}", "2*x").verdict is Verdict.CORRECT
    rubi_form = "2*sqrt(x) + x*log(1 - x) - atanh(sqrt(x))"
    assert check(rubi_form, "log(1 - x)", kind="sympy").verdict is Verdict.WRONG
    assert check("sqrt(x) + x*acoth(sqrt(x)) - atanh(sqrt(x))", "acoth(sqrt(x))",
                 kind="sympy").verdict is Verdict.CORRECT


def test_domain_report_counts_components_and_coverage():
    rng = random.Random(0)
    report = analyze(sp.log(x), 1 / x, "x", {}, rng, Deadline(10))
    assert report.decision == "ok" and report.components == 2 and report.covered == 1
    # Real on x > 0 only, and for x < 0 its imaginary part changes with x:
    # real on part of the one component (the line), however it is read.
    report = analyze(sp.Rational(2, 3) * x ** sp.Rational(3, 2), sp.sqrt(sp.Abs(x)), "x", {},
                     rng, Deadline(10))
    assert report.decision == "partial" and report.components == 1
    # Real nowhere on x > 0 (the domain of log x), but real there up to the
    # constant i*pi/2: F minus that constant is a real function.
    report = analyze(sp.atanh(sp.sqrt(x + 1), evaluate=False) + x * sp.Abs(x), sp.log(x),
                     "x", {}, rng, Deadline(10))
    assert report.decision == "ok" and report.covered == 1
    report = analyze(x, sp.sqrt(-1 - x**2), "x", {}, rng, Deadline(10))
    assert report.decision == "empty"


@pytest.mark.parametrize("expr, restricts", [
    (x**3 / 3 + sp.sin(x), False), (sp.Abs(x) * x, False), (sp.atan(x), False),
    (sp.log(x), True), (sp.sqrt(x), True), (sp.acosh(x), True), (sp.I * x, True),
])
def test_which_answers_need_the_domain_look(expr, restricts):
    assert restricts_domain(expr) is restricts


# --- sampling ------------------------------------------------------------------------

def test_points_depend_on_the_pair_and_are_reproducible():
    a = complex_points(random.Random(seed_for(x**2, x)))
    b = complex_points(random.Random(seed_for(x**2, x)))
    c = complex_points(random.Random(seed_for(x**2 + 1, x)))
    assert a == b and a != c


def test_complex_points_cover_both_half_planes_and_large_scales():
    for seed in range(50):
        points = [complex(float(re), float(im))
                  for re, im in complex_points(random.Random(seed), 8)]
        assert sum(p.real > 0 for p in points) == 4 and sum(p.imag > 0 for p in points) == 4
    reach = [max(abs(complex(float(re), float(im))) for re, im in
                 complex_points(random.Random(seed), 8)) for seed in range(50)]
    assert max(reach) > 100


def test_breakpoints_are_isolated_even_when_a_thousandth_apart():
    g = sp.Abs(x - sp.Rational(4070, 1000)) - sp.Abs(x - sp.Rational(4071, 1000))
    found = breakpoints([g], x, Deadline(10))
    assert len(found) == 2
    points = [Fraction(p) for p, _ in real_points(random.Random(1), found)]
    assert any(Fraction(4070, 1000) < p < Fraction(4071, 1000) for p in points)
    assert any(p < Fraction(4070, 1000) for p in points)
    assert any(p > Fraction(4071, 1000) for p in points)


def test_padding_an_answer_with_harmless_kinks_gives_no_numeric_accept():
    # Max(x, a) + Min(x, a) = x + a: 50 kinks that change nothing, meant to
    # push the sampled breakpoints away from a wrong piece far out.
    padding = sum(sp.Max(x, sp.Rational(k, 7)) + sp.Min(x, sp.Rational(k, 7)) - x
                  for k in range(1, 51))
    hidden = sp.Abs(x - 900) - sp.Abs(x - 901)
    # No proof can exist, so the ladder would spend any deadline trying.
    result = check_antiderivative(x**3 / 3 + padding + hidden, "x**2", input_kind="expr",
                                  timeout_s=4)
    assert result.verdict is not Verdict.CORRECT, result.render()


# --- property tests (issue: kink-aware sampling) -------------------------------------

PAIRS = [("x**2", x**3 / 3), ("cos(x)", sp.sin(x)), ("exp(x)", sp.exp(x)),
         ("1/(1 + x**2)", sp.atan(x)), ("x*exp(x)", (x - 1) * sp.exp(x))]
decimals = st.decimals(min_value=-500, max_value=500, places=3, allow_nan=False,
                       allow_infinity=False)
PROPERTY = settings(max_examples=25, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(pair=st.sampled_from(PAIRS), a=decimals,
       gap=st.decimals(min_value="0.001", max_value=50, places=3))
def test_a_wrong_piece_between_two_kinks_is_caught(pair, a, gap):
    integrand, antiderivative = pair
    left, right = sp.Rational(str(a)), sp.Rational(str(a + gap))
    wrong = antiderivative + sp.Abs(x - left) - sp.Abs(x - right)
    result = check(wrong, integrand, kind="expr")
    assert result.verdict is Verdict.WRONG, result.render()


@PROPERTY
@given(pair=st.sampled_from(PAIRS),
       c=st.decimals(min_value="0.000001", max_value=250000, places=6))
def test_a_wrong_piece_around_the_origin_is_caught(pair, c):
    integrand, antiderivative = pair
    wrong = antiderivative + sp.Abs(x**2 - sp.Rational(str(c))) - x**2
    result = check(wrong, integrand, kind="expr")
    assert result.verdict is Verdict.WRONG, result.render()


@PROPERTY
@given(a=decimals)
def test_log_of_a_shifted_abs_is_correct(a):
    result = check(f"log(Abs(x - ({a})))", f"1/(x - ({a}))", kind="sympy")
    assert result.verdict is Verdict.CORRECT, result.render()
    assert result.confidence is Confidence.SYMBOLIC


@pytest.mark.parametrize("expr, at, expected", [
    (sp.sign(x), -1, -1),                       # piecewise-constant functions are real everywhere
    (sp.floor(x), -1.5, -2),
    (sp.ceiling(x), -1.5, -1),
    (sp.frac(x), -1.25, 0.75),
    (sp.Heaviside(x), -1, 0),
    (sp.Heaviside(x), 0, 0.5),                  # SymPy's value at 0
    (sp.Max(x, 2 * x), -1, -1),
    (sp.Abs(x), -3, 3),
    (sp.log(x, evaluate=False), -1, None),      # complex, so no real value
    (sp.sqrt(x, evaluate=False), -1, None),
    (sp.asin(2 * x), 1, None),
    (sp.exp(2 * sp.log(x, evaluate=False), evaluate=False), -1, None),  # not real: ln(-1)
    (sp.exp(2 * sp.log(x, evaluate=False), evaluate=False), 2, 4),
    (1 / x, 0, None),
])
def test_real_evaluator_reads_each_function_on_the_real_line(expr, at, expected):
    import mpmath as mp

    from rewards.check.evidence.domain import RealEvaluator

    value = RealEvaluator(expr)({"x": mp.mpf(at)})
    if expected is None:
        assert value is None
    else:
        assert value is not None and abs(value - expected) < 1e-12


def test_a_point_where_a_value_is_too_large_to_hold_is_skipped_not_undefined():
    import mpmath as mp

    from rewards.check.evidence.domain import TOO_LARGE, RealEvaluator

    tower = x ** (x ** (x ** x))  # at 300 its binary exponent alone needs 10^740 bits
    assert RealEvaluator(tower)({"x": mp.mpf(300)}) is TOO_LARGE
    assert RealEvaluator(sp.exp(sp.exp(x)))({"x": mp.mpf(400)}) is TOO_LARGE
    # ... so a correct answer that is only too big far out keeps its verdict.
    result = check(r"e^{e^{x}} + |x|", "exp(x)*exp(exp(x)) + sign(x)")
    assert result.verdict is Verdict.CORRECT, result.render()


@pytest.mark.parametrize("seed", range(6))
def test_an_answer_real_everywhere_is_not_cut_short_by_rounding_far_out(seed):
    # atanh(u) with u = 1 - e^{-x} far out: at 20 digits u rounds to 1 for
    # x > 46, where the answer is still real (a correct Rubi antiderivative).
    answer = 2 * sp.sqrt(3) * sp.atanh(sp.tanh(x) / sp.sqrt(sp.sech(x) + 1))
    report = analyze(answer, sp.sqrt(3 * sp.sech(x) + 3), "x", {}, random.Random(seed),
                     Deadline(30))
    assert report.decision == "ok" and report.covered == report.components, report
    # ... while a root of a negative number stays undefined at any precision.
    assert analyze(sp.sqrt(-x**2 - 1, evaluate=False), x, "x", {}, random.Random(seed),
                   Deadline(30)).decision == "partial"


def test_atanh_answer_real_on_the_whole_line_is_correct():
    result = check(r"2 \sqrt{3} \operatorname{atanh}{\left(\frac{\tanh{\left(x \right)}}"
                   r"{\sqrt{\operatorname{sech}{\left(x \right)} + 1}} \right)} + C",
                   "sqrt(3*sech(x) + 3)")
    assert result.verdict is Verdict.CORRECT, result.render()


def _comparer(derivative, integrand, points):
    from rewards.check.evidence.numeric import NumericComparer

    return NumericComparer(derivative, integrand, x, [], Deadline(30), points, param_values=[])


def test_points_where_both_sides_vanish_are_no_evidence_for_an_answer():
    # At x >= 700 both 2e^{-x} and e^{-x} are below any precision the screen
    # uses: they "agree" there whatever the answer is, so they must not
    # count (a scaled Rubi answer was accepted on such points).
    far = [(str(t), "0") for t in (700, 720, 750, 780, 800)]
    assert _comparer(2 * sp.exp(-x), sp.exp(-x), far).screen()["decision"] == "inconclusive"
    near = far + [(str(t), "0") for t in ("0.5", "-1.25", "2", "3.5")]
    assert _comparer(2 * sp.exp(-x), sp.exp(-x), near).screen()["decision"] == "nonzero"
    # One point with a stable difference is enough to reject.
    assert _comparer(2 * sp.exp(-x), sp.exp(-x), far + [("1", "0")]).screen()["decision"] \
        == "nonzero"


def test_cancellation_far_out_is_not_a_difference():
    # 1 - sqrt(1 + e^z) is 0 at 60 digits for z = -340: F' of a correct
    # answer then looks wrong there until evaluated with enough digits.
    s = sp.sqrt(1 + sp.exp(x))
    derivative = sp.diff(sp.log(1 - s) - sp.log(1 + s), x)
    points = [("-340.5", "0.0776"), ("0.31", "0.7"), ("-1.2", "-0.4"), ("2.5", "1.5"),
              ("-4.1", "2.2"), ("0.9", "-3.3")]
    assert _comparer(derivative, 1 / s, points).screen()["decision"] in ("zero", "zero_low")
    # ... while a real difference there stays one.
    assert _comparer(2 * derivative, 1 / s, points).screen()["decision"] == "nonzero"


@pytest.mark.parametrize("far", ["99.40659", "166.28671"])
@pytest.mark.parametrize("derivative, integrand", [
    (1 / ((1 - sp.coth(x)**2) * sp.sinh(x)**2), -sp.Integer(1)),
    (sp.diff(sp.log(1 - sp.coth(x)**2), x), -2 * sp.coth(x)),
    (sp.diff(sp.atanh(sp.sqrt(sp.coth(x) + 1) / sp.sqrt(2)), x),
     sp.exp(x) / (sp.sqrt(2 * sp.coth(x) + 2) * sp.sinh(x))),
], ids=str)
def test_cancellation_of_twice_the_exponent_far_out_is_not_a_difference(far, derivative,
                                                                         integrand):
    # 1 - coth(z)^2 is 4e^{-2z}: 10^-144 at z = 166, twice the digits e^z
    # alone would eat. With too few, F' is a finite wrong value, the same at
    # 60 digits as at 134 (correct Rubi answers in coth were rejected).
    points = [(far, "-0.696273"), ("0.31", "0.7"), ("-1.2", "-0.4"), ("2.5", "1.5"),
              ("-4.1", "2.2"), ("0.9", "-3.3")]
    assert _comparer(derivative, integrand, points).screen()["decision"] in ("zero", "zero_low")
    assert _comparer(2 * derivative, integrand, points).screen()["decision"] == "nonzero"
    assert _comparer(derivative + sp.exp(-x) / 10**6, integrand, points).screen()["decision"] \
        == "nonzero"


# Answers as parsed (plain x) and integrands whose real reading differs from
# the complex one: logs and roots of expressions negative on part of the
# line, an answer real only up to an imaginary constant (acosh, atanh of
# sqrt), one real nowhere the integrand is, and one complex form.
SPREAD_PAIRS = [
    (sp.log(x), 1 / x),
    (2 * sp.log(x - 1), 1 / (x - 1)),
    (sp.sqrt(x**2 - 1), x / sp.sqrt(x**2 - 1)),
    (sp.acosh(x), 1 / sp.sqrt(x**2 - 1)),
    (sp.atanh(sp.sqrt(x + 1)), 1 / (2 * x * sp.sqrt(x + 1))),
    (sp.log(-x**2 - 1), 2 * x / (x**2 + 1)),
    (sp.asin(x / 10) + sp.log(x), 1 / sp.sqrt(100 - x**2)),
    (sp.I * sp.log(x), 1 / x),
    (sp.sqrt(sp.exp(40 * x) - 3), sp.exp(40 * x)),
]


@pytest.mark.parametrize("answer, integrand", SPREAD_PAIRS, ids=str)
def test_a_point_the_lazy_rule_calls_owed_is_usable_in_the_full_report(answer, integrand):
    # The spread rejection tests the rule only at the points it tries; each
    # point it calls owed must be one the full report uses, or it could
    # reject on a point where the rule owes nothing.
    seed = seed_for(answer, integrand, x)
    full = analyze(answer, integrand, "x", {}, random.Random(seed), Deadline(30),
                   spread_only=True)
    points, owed = spread_sample(answer, integrand, "x", {}, random.Random(seed), Deadline(30))
    assert points == full.points
    called = {i for i in range(len(points)) if owed(i)}
    assert called <= full.usable
    # Owed where F is real (or, written with i, finite): only the answer
    # real nowhere on the line leaves nothing to try.
    assert bool(called) is (answer != sp.log(-x**2 - 1))


@pytest.mark.parametrize("answer, integrand, reason", [
    # Wrong on the real line, and sure to branch off it: the screen turns to
    # the line and rejects on the first owed point it tries.
    (r"2\sqrt{x^2 - 1}", "x/sqrt(x**2 - 1)", "numeric_mismatch"),
    (r"-\sqrt{1 - x^2}", "2*x/sqrt(1 - x**2)", "numeric_mismatch"),
    (r"\ln(x + \sqrt{x^2 + 1}) + x", "1/sqrt(x**2 + 1)", "numeric_mismatch"),
])
def test_a_wrong_answer_with_a_branch_is_rejected_on_the_line(answer, integrand, reason):
    result = check(answer, integrand)
    assert (result.verdict, result.reason) == (Verdict.WRONG, reason)
    screen = next(s for s in result.stages if s.stage == "numeric_screen").data
    assert screen["real_fallback"] == "nonzero"
    spread = screen["real_spread"]
    assert spread["decision"] == "nonzero" and spread["first_look"] >= 1
    # The rule was applied at the points tried, not at the whole sample.
    assert 1 <= spread["n_points"] <= CAPS.first_look_tries


@pytest.mark.parametrize("answer, integrand", [
    # Right where they are real, other branches off the line: the lazy
    # spread look finds nothing to reject and the full rule accepts.
    (r"\ln(x - 1)", "1/(x - 1)"),
    (r"\cosh^{-1}(x)", "1/sqrt(x**2 - 1)"),
    (r"\ln(x^2 - 4)", "2*x/(x**2 - 4)"),
])
def test_a_right_answer_on_another_branch_is_not_rejected_by_the_spread_look(answer,
                                                                              integrand):
    assert check(answer, integrand).verdict is Verdict.CORRECT


@pytest.mark.parametrize("g", [
    x**2 - 2, sp.sin(3 * x) - sp.Rational(1, 2), sp.log(x) - 1, sp.sqrt(4 - x**2) - 1,
    sp.tan(x), 1 / (x - sp.Rational(1, 3)), sp.exp(x) - 10**6, sp.acosh(x) - 2,
    sp.LambertW(x) - 1, sp.cot(x) * (x - 7), x * sp.exp(-x**2) - sp.Rational(1, 10**12),
])
def test_the_vectorized_root_scan_finds_what_the_point_by_point_scan_finds(g, monkeypatch):
    # One numpy evaluation gives the grid's signs; a point it cannot call
    # (outside the domain, near 0, no numpy function) is evaluated alone.
    assert (points_module._grid_signs(g, x) is None) is g.has(sp.LambertW)
    found = points_module._numeric_roots(g, x, Deadline(30))
    monkeypatch.setattr(points_module, "_grid_signs", lambda g, x: None)
    assert found == points_module._numeric_roots(g, x, Deadline(30))


BRANCHING = [
    # (answer, integrand, verdict): wrong on the line, right on it, and right
    # where it is real with another branch off it.
    (r"2\sqrt{x^2 - 1}", "x/sqrt(x**2 - 1)", Verdict.WRONG),
    (r"-\sqrt{1 - x^2} + x", "x/sqrt(1 - x**2)", Verdict.WRONG),
    (r"\ln|x| + \sqrt{x}", "1/x + 1/(2*sqrt(x))", Verdict.CORRECT),
    (r"\ln(x - 1)", "1/(x - 1)", Verdict.CORRECT),
    (r"\cosh^{-1}(x)", "1/sqrt(x**2 - 1)", Verdict.CORRECT),
    (r"(1 - 2x)^{5/2}", "-5*(1 - 2*x)**(3/2)", Verdict.CORRECT),
    (r"(1 - 2x)^{5/2}", "-5*(1 - 2*x)**(3/2) + 1", Verdict.WRONG),
]


@pytest.mark.parametrize("answer, integrand, verdict", BRANCHING)
def test_the_line_looked_at_first_when_doubles_differ_changes_no_verdict(
        answer, integrand, verdict, monkeypatch):
    from rewards.check.evidence.numeric import NumericComparer
    first = check(answer, integrand)
    monkeypatch.setattr(NumericComparer, "differs_in_doubles", lambda self: False)
    before = check(answer, integrand)
    assert first.verdict is before.verdict is verdict
    assert (first.stage, first.reason) == (before.stage, before.reason)


def test_a_branching_wrong_answer_is_rejected_without_the_complex_digits():
    result = check(r"2\sqrt{x^2 - 1}", "x/sqrt(x**2 - 1)")
    screen = next(s for s in result.stages if s.stage == "numeric_screen").data
    assert screen["complex_screen"].startswith("not run")
    assert screen["real_spread"]["mode"] == "real"
    assert result.detail["worst_rel_residual"] == screen["real_spread"]["worst_rel_residual"]
