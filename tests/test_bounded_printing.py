r"""Nothing the checker prints can raise: huge integers in an answer.

``str()`` of a Python int past 4300 digits raises ``ValueError``
(``sys.int_max_str_digits``, a process-wide setting the checker does not
touch). Answers such as ``\frac{1}{1 + (x/41)^{4000}}`` make SymPy hold such
numbers in F', and the trace printer, the sample-point seed and the memo key
all used to print them: ``check_antiderivative`` raised, and the reward
returned None for a wrong answer. These tests only ask for a verdict; which
verdict is the evidence's business.
"""
from __future__ import annotations

import json

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewards import AntiderivativeReward, check_antiderivative
from rewards.check.evidence.points import structure_digest
from rewards.check.memo import JudgementMemo
from rewards.check.result import CheckResult, Verdict, int_text, safe_text, show

x = sp.Symbol("x")
HUGE = 7 ** 20000  # 9.137e16901: 16,902 digits

HUGE_ANSWERS = [
    (r"\sin(x + \frac{2\pi}{1 + (37/x)^{5000}}) + x", "cos(x) + 1"),
    (r"\sin x + x + \frac{1}{1 + (x/41)^{4000}}", "cos(x) + 1"),
    (r"\frac{x^2}{2} + \frac{1}{(1 + x/3)^{4500}}", "x"),
    (r"x + (x/13)^{4999}", "1"),
    ("x + (x/13)**4999", "1"),
]


@pytest.mark.parametrize(("answer", "integrand"), HUGE_ANSWERS)
def test_huge_numbers_in_the_derivative_give_a_verdict(answer, integrand):
    result = check_antiderivative(answer, integrand, timeout_s=5)
    assert isinstance(result, CheckResult)
    assert result.verdict is not Verdict.CHECKER_ERROR, result.detail
    json.dumps(result.to_dict())
    assert result.render()


def test_with_a_memo_too():
    # F' holds 13**4999 (5,570 digits): the memo keys and stores it. (The
    # 41**4000 answer holds one too, but takes 3 s of 4000-digit evaluations.)
    memo = JudgementMemo()
    answer, integrand = HUGE_ANSWERS[3]
    first = check_antiderivative(answer, integrand, memo=memo, timeout_s=5)
    again = check_antiderivative(answer, integrand, memo=memo, timeout_s=5)
    derivative = next(s for s in first.stages if s.stage == "differentiate")
    assert "~" in derivative.data["out"]  # printed bounded: ~4.007e+5568
    assert again.verdict is first.verdict
    assert "memo" in [s.stage for s in again.stages]


@pytest.mark.parametrize("value", [
    sp.Integer(HUGE), sp.Rational(1, HUGE), sp.Rational(HUGE, 3) * x + 1,
    x ** 2 / HUGE + sp.sin(x), sp.Integer(-HUGE), [sp.Integer(HUGE)], HUGE,
], ids=["integer", "reciprocal", "linear", "sum", "negative", "list", "int"])
def test_printing_is_bounded(value):
    text = safe_text(value)
    assert len(text) < 600
    if isinstance(value, sp.Basic):
        assert show(value) == text[:503] or len(show(value)) <= 503


def test_int_text_keeps_small_numbers_exact():
    assert int_text(10 ** 199) == str(10 ** 199)
    assert int_text(-12) == "-12"
    assert int_text(HUGE).startswith("~") and int_text(HUGE).endswith("e+16901")


def test_digests_tell_huge_numbers_apart():
    # The seed of the sample points and the memo key digest the exact value.
    assert structure_digest(sp.Integer(HUGE) * x) != structure_digest(sp.Integer(HUGE + 1) * x)
    assert structure_digest(sp.Integer(HUGE) * x) == structure_digest(sp.Integer(HUGE) * x)


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(base=st.integers(2, 97), power=st.integers(3000, 6000),
       shape=st.sampled_from([r"x + (x/{b})^{{{p}}}", r"\sin x + \frac{{1}}{{1 + (x/{b})^{{{p}}}}}",
                              r"x + \frac{{x}}{{{b}^{{{p}}}}}", r"x + ({b}x)^{{{p}}}"]))
def test_no_huge_power_raises(base, power, shape):
    result = check_antiderivative(shape.format(b=base, p=power), "1", timeout_s=5)
    assert isinstance(result, CheckResult)
    assert result.verdict is not Verdict.CHECKER_ERROR, result.detail
    json.dumps(result.to_dict())


@pytest.mark.slow
def test_the_reward_scores_them():
    completions = [rf"So $\boxed{{{a}}}$." for a, _ in HUGE_ANSWERS[:2]]
    with AntiderivativeReward(workers=1, timeout_s=5) as reward:
        out = reward(prompts=["Integrate"] * 2, completions=completions,
                     completion_ids=[[1, 2]] * 2, integrand=[f for _, f in HUGE_ANSWERS[:2]])
    # Wrong answers: a reward, never None (not judged), which would pay them
    # better than 0; not a positive one either.
    assert len(out) == 2
    assert all(isinstance(v, float) and v <= 0.0 for v in out), out


def test_a_failure_while_finishing_is_a_checker_error(monkeypatch):
    import rewards.check.context as context

    real = context.resolve_shown

    def failing(stages, keep):
        if keep:
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        real(stages, keep)

    monkeypatch.setattr(context, "resolve_shown", failing)
    monkeypatch.delenv("INTEGRAL_REWARDS_STRICT", raising=False)
    result = check_antiderivative(r"x^3", "x")        # WRONG: its trace is printed
    assert result.verdict is Verdict.CHECKER_ERROR
    assert result.reason == "exception:ValueError"
    json.dumps(result.to_dict())


# Products whose sign decides their parentheses: a negative leading number,
# a negative rational, a product inside a power, a sum and a function, an
# unevaluated product, zoo (where -p == p), and SymPy's derivatives of answers.
a = sp.Symbol("a")
_SIGNED = [
    -x * sp.sin(x), -2 * x / 3 - 1, (-2 * x) ** 3, (-x * a) ** sp.Rational(1, 3),
    sp.sin(-3 * x * a), x - 2 * a * x, -(x + 1) * (a - 2), 1 / (-x * a - 1),
    -sp.Rational(1, 2) * x ** -2 * sp.log(x), sp.Mul(-1, x, evaluate=False) + 1,
    sp.Mul(sp.S.One, -x, a, evaluate=False), sp.zoo * x + 1, sp.Float(-0.5) * x * a,
    sp.Mul(x, sp.Mul(-2, a, evaluate=False), evaluate=False),
    sp.Pow(sp.Mul(-2, a, evaluate=False), 2, evaluate=False) - x,
    sp.Mul(-1, sp.Mul(-1, a, x, evaluate=False), sp.Pow(a, 2), evaluate=False),
    sp.Mul(-1, sp.Mul(-1, sp.Rational(2, 5), x, evaluate=False), x - 1, evaluate=False) + 1,
    sp.Mul(-1, sp.Mul(sp.Mul(-1, sp.zoo, evaluate=False), sp.Mul(-1, sp.zoo, a, evaluate=False),
                      evaluate=False), evaluate=False),
    sp.diff(x * sp.sqrt(1 - x**2) - sp.asin(x) / (x + 1), x),
    sp.diff(sp.log(x**2 - 4) / 3 - 2 * sp.atan(x / 2) / (x - 1) ** 2, x),
    # Denominators and exponents the printer writes without building them:
    # 1/b, 1/(b*c) (SymPy issue 14160), 1/sqrt, b**(-p/q), a coefficient's
    # denominator, a sign before one power, a power of 1/3.
    -2 * x**2, -3 / (x + 1), 1 / (x * a) ** 1, 1 / (x * a), -x / (2 * (x + 1) ** 2),
    a / sp.Pow(x * a, -1, evaluate=False), x ** sp.Rational(-2, 3) * a / 5,
    -sp.sqrt(2) * x / sp.sqrt(x + 1), x**-3 - (x + 1) ** sp.Rational(3, 2),
    sp.Pow(sp.Rational(1, 3), -x) * a, sp.Pow(x, sp.Float(-0.5)) * a, -x**(-x),
    -sp.I * x / 2, sp.pi * x / 4 - sp.E**x / 3,
]


def _sympy_str(expr: sp.Basic) -> str:
    from sympy.printing.str import StrPrinter
    return StrPrinter({"order": "none"}).doprint(expr)


@pytest.mark.parametrize("expr", _SIGNED, ids=str)
def test_show_prints_what_sympys_str_printer_prints(expr):
    # show's printer ranks products by their leading coefficient instead of
    # building each negated product: the same text, character for character.
    assert show(expr, 10_000) == _sympy_str(expr)


_atoms = st.sampled_from([x, a, sp.Integer(-3), sp.Rational(-2, 5), sp.Integer(2), sp.pi])


@given(st.recursive(_atoms, lambda inner: st.one_of(
    st.tuples(inner, inner).map(lambda p: p[0] + p[1]),
    st.tuples(inner, inner).map(lambda p: p[0] * p[1]),
    st.tuples(inner, inner).map(lambda p: p[0] - p[1]),
    st.tuples(inner, st.sampled_from([-1, 2, -2, sp.Rational(1, 2)])).map(lambda p: p[0] ** p[1]),
    inner.map(sp.sin), inner.map(sp.exp), inner.map(lambda e: -e),
    # Unevaluated, as the parser may leave them: products inside products.
    st.tuples(inner, inner).map(lambda p: sp.Mul(p[0], p[1], evaluate=False)),
    st.tuples(inner, inner).map(lambda p: sp.Add(p[0], p[1], evaluate=False)),
    st.tuples(inner, inner).map(lambda p: sp.Pow(p[0], p[1], evaluate=False))), max_leaves=8))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_show_prints_what_sympys_str_printer_prints_on_random_expressions(expr):
    assert show(expr, 10_000) == _sympy_str(expr)


def test_structure_digest_is_kept_per_expression_but_never_across_float_precisions():
    f = sp.sin(x) / (x**2 + 1)
    first = structure_digest(f.diff(x), f, x)
    assert structure_digest(f.diff(x), f, x) == first  # from the kept bytes
    assert structure_digest(f, f.diff(x), x) != first  # order matters
    low, high = sp.Float(0.5, 15) * x, sp.Float(0.5, 30) * x
    assert structure_digest(low) != structure_digest(high)
    assert structure_digest(high) != structure_digest(low)
