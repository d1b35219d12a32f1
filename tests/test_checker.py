"""Verdicts of the staged checker on cases the project writes itself."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from rewards import CheckResult, Confidence, Verdict, check_antiderivative
from tests.cases import classic_forms, near_misses, refusals, variables
from tests.support import case_id, check_case

x = sp.Symbol("x")


def verdict(candidate, integrand, kind="latex", **kw) -> CheckResult:
    return check_antiderivative(candidate, integrand, input_kind=kind, timeout_s=20, **kw)


@pytest.mark.parametrize("case", classic_forms.CASES, ids=case_id)
def test_correct_forms(case):
    result = check_case(case, timeout_s=20)
    assert result.confidence in (Confidence.SYMBOLIC, Confidence.NUMERIC_ONLY)


@pytest.mark.parametrize("case", near_misses.CASES, ids=case_id)
def test_wrong(case):
    result = check_case(case, timeout_s=20)
    assert result.stages[-1].stage == result.stage


def test_piecewise_matching_half_the_line_is_wrong():
    # Right on x > 0 only: the real sampling straddles zero.
    half = sp.Piecewise((x**3 / 3, x > 0), (0, True))
    assert verdict(half, "x**2", kind="expr").verdict is Verdict.WRONG
    abs_trick = sp.Abs(x) ** 3 / 3
    assert verdict(abs_trick, "x**2", kind="expr").verdict is Verdict.WRONG


def test_piecewise_answers_must_be_continuous_where_the_integrand_is():
    # Each piece differentiates to x^2, but a jump of 5 at 0, where x^2 is
    # continuous, is no antiderivative (docs/domain.md); joined, it is one.
    jumps = verdict(sp.Piecewise((x**3 / 3, x > 0), (x**3 / 3 + 5, True)), "x**2", kind="expr")
    assert (jumps.verdict, jumps.reason, jumps.stage) == (Verdict.WRONG, "discontinuous",
                                                          "continuity")
    joined = sp.Piecewise((x**3 / 3 + 5, x > 0), (x**3 / 3 + 5, True))
    assert verdict(joined, "x**2", kind="expr").verdict is Verdict.CORRECT
    # A new constant where the integrand has a pole is allowed.
    split = sp.Piecewise((sp.log(x), x > 0), (sp.log(-x) + 5, True))
    assert verdict(split, "1/x", kind="expr").verdict is Verdict.CORRECT


def test_echoed_integral_is_unparseable_never_evaluated():
    result = verdict(r"\int x^2\, dx", "x**2")
    assert result.verdict is Verdict.UNPARSEABLE
    assert result.reason == "echoed_integral"
    expr_result = verdict(sp.Integral(x**2, x), "x**2", kind="expr")
    assert expr_result.verdict is Verdict.UNPARSEABLE
    assert expr_result.reason == "echoed_integral"


def test_derivative_node_is_not_evaluated_for_the_model():
    result = verdict(sp.Derivative(x**3 / 3, x), "x**2", kind="expr")
    assert result.verdict is Verdict.UNPARSEABLE


def test_numeric_only_accept_is_marked_and_still_correct():
    # A budget too small for any proof: the strict numeric test decides.
    result = check_antiderivative(r"\frac{x^3}{3}", "x**2", input_kind="latex",
                                  timeout_s=20, proof_budget_s=0.0)
    assert result.verdict is Verdict.CORRECT
    assert result.confidence in (Confidence.SYMBOLIC, Confidence.NUMERIC_ONLY)
    # The same exponent written two ways: beyond the normal form (which keeps
    # exp(sin(x/2) cos(x/2)) and exp(sin(x)/2) apart), and no ladder budget.
    hard = check_antiderivative(r"e^{\sin(x/2)\cos(x/2)}", "cos(x)/2*exp(sin(x)/2)",
                                input_kind="latex", timeout_s=20, proof_budget_s=0.0)
    assert hard.verdict is Verdict.CORRECT
    assert hard.confidence is Confidence.NUMERIC_ONLY
    assert hard.stage == "numeric_accept"


def test_cancellation_needs_more_digits_and_is_rescued():
    # x**100 * erfc-type pairs lose many digits to cancellation at 30 digits.
    integrand = "x**20*exp(-x)"
    candidate = -sp.exp(-x) * sum(sp.factorial(20) / sp.factorial(k) * x**k
                                  for k in range(21))
    result = verdict(candidate, integrand, kind="expr")
    assert result.verdict is Verdict.CORRECT


def test_response_kind_extracts_then_parses():
    text = r"Integrating by parts... so the answer is $\boxed{x\sin x + \cos x + C}$."
    result = verdict(text, "x*cos(x)", kind="response")
    assert result.verdict is Verdict.CORRECT
    assert result.stages[0].stage == "candidate_extract"
    assert result.extracted == r"x\sin x + \cos x + C"


def test_response_with_answer_tags_in_sympy_syntax():
    text = "Thinking...\n<answer>-2*x*asin(x) - 2*sqrt(1 - x**2) + C</answer>"
    result = verdict(text, "-2*asin(x)", kind="response")
    assert result.verdict is Verdict.CORRECT
    parse = next(s for s in result.stages if s.stage == "candidate_parse")
    assert parse.data["parser"] == "sympy"


@pytest.mark.parametrize("case", refusals.CASES, ids=case_id)
def test_refused_answers_are_unparseable_with_reason(case):
    check_case(case)


def test_math_fallback_is_opt_in():
    text = r"The antiderivative is $\frac{x^2}{2}$."
    assert verdict(text, "x", kind="response").reason == "no_answer"
    assert verdict(text, "x", kind="response", math_fallback=True).verdict is Verdict.CORRECT


@pytest.mark.parametrize("case", variables.CASES, ids=case_id)
def test_the_variable_and_names_like_a_constant(case):
    check_case(case)


def test_integrand_parameters_may_appear_in_the_answer():
    assert verdict(r"\frac{a x^2}{2}", "a*x").verdict is Verdict.CORRECT
    assert verdict(r"\frac{b x^2}{2}", "a*x").verdict is Verdict.WRONG


def test_bad_integrand_is_a_checker_error_not_a_model_penalty():
    result = verdict(r"x", "__import__('os')")
    assert result.verdict is Verdict.CHECKER_ERROR
    assert result.reason.startswith("integrand_")
    assert verdict("x", None).verdict is Verdict.CHECKER_ERROR


def test_imaginary_unit_from_latex():
    # sympy.latex prints I as i
    result = verdict(r"\frac{i}{2} \log(1 - i x) - \frac{i}{2}\log(1 + i x)", "1/(1 + x**2)")
    assert result.verdict is Verdict.CORRECT, result.render()


def test_result_serializes_and_renders():
    result = verdict(r"\sin x + \sin(10^{-30}x)", "cos(x)")
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["verdict"] == "WRONG"
    assert payload["stages"][-1]["stage"] == payload["verdict_stage"]
    assert CheckResult.from_dict(payload).verdict is Verdict.WRONG
    text = result.render()
    assert "numeric_screen" in text and "verdict=WRONG" in text


@pytest.mark.parametrize("text", [
    "", "\x00\x01\x02", "x" * 1_000_000, r"\boxed{" * 5000, r"\boxed{x}" * 5000,
    r"\boxed{(x+1)^{100000}}", r"\boxed{(10^{10})!}", r"\boxed{9^{9^{9^{9}}}}",
    "import os; os.system('echo hi')", r"\boxed{" + "(" * 3000 + "x" + ")" * 3000 + "}",
    r"\boxed{\frac{1}{0}}", r"\boxed{\infty}", "<answer>zoo</answer>", "<answer>nan</answer>",
])
def test_bad_input_always_gives_a_result(text):
    result = check_antiderivative(text, "x", input_kind="response", timeout_s=5)
    assert isinstance(result, CheckResult)
    assert result.verdict is not Verdict.CORRECT
    assert result.verdict is not Verdict.CHECKER_ERROR, result.render()


@pytest.mark.parametrize("answer, integrand", [
    (sp.elliptic_f(sp.asin(x), -1), 1 / sp.sqrt(1 - x**4)),
    (sp.elliptic_e(sp.asin(x), sp.Rational(1, 2)), sp.sqrt(1 - x**2 / 2) / sp.sqrt(1 - x**2)),
    (-sp.I * sp.elliptic_f(sp.I * x + sp.pi / 2, -1), 1 / sp.sqrt(sp.cosh(x)**2 + 1)),
    (x * sp.hyper([sp.Rational(1, 2), 2], [sp.Rational(3, 2)], -x**2), 1 / (1 + x**2)**2),
])
def test_special_function_latex_as_sympy_prints_it(answer, integrand):
    # sympy.latex writes F(phi|m), E(phi|m), {}_2F_1(...|z): lifted and parsed.
    result = verdict(sp.latex(answer), integrand)  # an Expr integrand is read as is
    assert result.verdict is Verdict.CORRECT, result.render()
    parse = next(s for s in result.stages if s.stage == "candidate_parse")
    assert "special_function_call" in parse.data["rules_applied"]


def test_f_of_x_equation_is_not_an_elliptic_integral():
    assert verdict(r"F\left(x\right) = \frac{x^2}{2} + C", "x").verdict is Verdict.CORRECT


def test_real_fallback_judges_only_where_the_integrand_is_real():
    # 2 sqrt((3x-1)^3) is an antiderivative of 9 sqrt(3x-1) where that is real
    # (x > 1/3); below, both are imaginary and on different branches.
    ok = verdict("2 * sqrt((3*x - 1)**3)", "9*sqrt(3*x - 1)", kind="sympy")
    assert ok.verdict is Verdict.CORRECT
    assert verdict("-2*(3*x-1)**(3/2)", "9*sqrt(3*x - 1)", kind="sympy").verdict is Verdict.WRONG
