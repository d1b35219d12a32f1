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
