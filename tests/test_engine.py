"""The verification engine's fast path and the work shared between answers.

Behaviour only: which stage decides, with what confidence; never times.
"""
from __future__ import annotations

import pytest
import sympy as sp

from rewards import Confidence, Verdict, check_antiderivative
from rewards.check.pipeline import JudgementMemo
from tests.cases import fast_proofs
from tests.support import case_id, check_case


def stage_names(result):
    return [s.stage for s in result.stages]


@pytest.mark.parametrize("case", [c for c in fast_proofs.CASES if c.verdict is Verdict.CORRECT],
                         ids=case_id)
def test_the_fast_proof_decides_elementary_answers(case):
    result = check_case(case)
    assert result.confidence is Confidence.SYMBOLIC
    # Decided structurally or by the normal form, before any multi-precision
    # confirmation or the general ladder.
    assert result.stage in ("structural", "fast_proof"), result.render()
    assert not {"numeric_confirm", "symbolic_confirm"} & set(stage_names(result))


@pytest.mark.parametrize("case", [c for c in fast_proofs.CASES if c.verdict is Verdict.WRONG],
                         ids=case_id)
def test_wrong_answers_never_reach_an_accept(case):
    check_case(case)


def test_answers_that_differ_by_a_constant_are_judged_once():
    memo = JudgementMemo()
    first = check_antiderivative(r"\frac{x^3}{3} + \sin x", "x**2 + cos(x)", memo=memo)
    again = check_antiderivative(r"\frac{x^3}{3} + \sin x + 7", "x**2 + cos(x)", memo=memo)
    other = check_antiderivative(r"\frac{x^3}{3}", "x**2 + cos(x)", memo=memo)
    assert first.verdict is again.verdict is Verdict.CORRECT
    assert "memo" not in stage_names(first) and "memo" in stage_names(again)
    # The reused verdict keeps its deciding stage last, as every result does.
    assert again.stage == first.stage == again.stages[-1].stage
    assert other.verdict is Verdict.WRONG and "memo" not in stage_names(other)


@pytest.mark.parametrize("again", [r"\frac{x^3}{3} + \sin x + C", r"7 + \sin x + \frac{x^3}{3}"])
def test_the_same_answer_again_is_found_before_it_is_differentiated(again):
    memo = JudgementMemo()
    first = check_antiderivative(r"\frac{x^3}{3} + \sin x", "x**2 + cos(x)", memo=memo)
    second = check_antiderivative(again, "x**2 + cos(x)", memo=memo)
    assert (second.verdict, second.stage, second.confidence) == \
        (first.verdict, first.stage, first.confidence)
    names = stage_names(second)
    assert "memo" in names and "normalize" not in names and "differentiate" not in names


def test_the_same_text_under_another_variable_is_judged_again():
    # x^2 y / 2 against the integrand x y: right in x, wrong in y.
    memo = JudgementMemo()
    in_x = check_antiderivative("x**2*y/2", "x*y", symbol="x", input_kind="sympy", memo=memo)
    in_y = check_antiderivative("x**2*y/2", "x*y", symbol="y", input_kind="sympy", memo=memo)
    assert (in_x.verdict, in_y.verdict) == (Verdict.CORRECT, Verdict.WRONG)
    assert "memo" not in stage_names(in_y)


def test_the_memo_does_not_keep_load_dependent_outcomes():
    memo = JudgementMemo()
    hard = sp.Symbol("x") ** 3 / 3
    slow = check_antiderivative(hard, "x**2", input_kind="expr", timeout_s=1e-6, memo=memo)
    assert slow.verdict is Verdict.TIMEOUT
    later = check_antiderivative(hard, "x**2", input_kind="expr", timeout_s=30, memo=memo)
    assert later.verdict is Verdict.CORRECT and "memo" not in stage_names(later)


@pytest.mark.parametrize("first, second, verdicts", [
    # Same derivative off a point, one of them jumps where f is continuous.
    (r"\frac{x^3}{3}", r"\frac{x^3}{3} + \operatorname{sgn}(x - 2)", ("CORRECT", "WRONG")),
    (r"\frac{x^3}{3} + \operatorname{sgn}(x - 2)", r"\frac{x^3}{3} + 1", ("WRONG", "CORRECT")),
])
def test_the_memo_never_lends_a_verdict_across_a_jump(first, second, verdicts):
    # F' is the same for both (the step's DiracDelta dropped); whether F
    # jumps is a property of F: each gets its own verdict.
    memo = JudgementMemo()
    a = check_antiderivative(first, "x**2", memo=memo, timeout_s=30)
    b = check_antiderivative(second, "x**2", memo=memo, timeout_s=30)
    assert (a.verdict.value, b.verdict.value) == verdicts
    assert "memo" not in stage_names(b)
