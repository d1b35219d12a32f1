"""Behaviour of rewards.extract (the graded right-hand side, internal errors, hostile inputs for the new scans, integrals left in the answer): part of the extraction tests,
split by section from the former tests/test_extract.py."""
from __future__ import annotations

import json

import pytest

from rewards import Verdict, check_antiderivative
from rewards.check.extract import (
    DEFAULT_POLICY,
    AnswerPolicy,
    ExtractionStatus,
    extract_answer,
)
from rewards.check.extract import choose as extract_module
from rewards.check.parse.equation import equation_rhs

S = ExtractionStatus


# --- the graded text is the right-hand side (the rule the parsers share) -------------


@pytest.mark.parametrize(("text", "rhs"), [
    (r"\int x\,dx = \frac{x^2}{2} + C", r"\frac{x^2}{2} + C"),
    ("F(x) = x^2", "x^2"),
    ("y=e^x", "e^x"),
    ("F(x) := x", "x"),
    ("a = b = c", "c"),
    ("x^2 + C", "x^2 + C"),
    (r"f_{n=1}(x)", r"f_{n=1}(x)"),
    (r"\text{C = const} + x", r"\text{C = const} + x"),
    ("g(a=1)", "g(a=1)"),
    (r"\{a = 1\} + x", r"\{a = 1\} + x"),
    ("x = 1, y = 2", "x = 1, y = 2"),
    ("x <= 1", "x <= 1"),
    ("x != 1", "x != 1"),
    ("F(x) =", "F(x)"),
    ("=", ""),
    ("", ""),
    (") = x", "x"),
])
def test_equation_rhs(text, rhs):
    assert equation_rhs(text) == rhs


def test_equation_rhs_is_linear_on_hostile_input():
    assert equation_rhs("(" * 200_000 + "= x") == "(" * 200_000 + "= x"
    # "==" is a comparison, never a definition: nothing is split.
    assert equation_rhs("=" * 200_000 + "x") == "=" * 200_000 + "x"
    assert equation_rhs("\\" * 200_000 + "= y") == "y"
    # An odd run ends in "\=", a control symbol, not an equation.
    assert equation_rhs("\\" * 200_001 + "= y") == "\\" * 200_001 + "= y"


# --- internal errors ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["_split_reasoning", "_final_markers", "_analyze",
                                  "answer_flags", "equation_rhs", "_prose_hedges",
                                  "_comparison_key", "_unwrap_nested_boxes"])
def test_internal_error_is_not_no_answer(monkeypatch, name, lenient):
    def boom(*args, **kwargs):
        raise RuntimeError("bug in extraction")

    monkeypatch.setattr(extract_module, name, boom)
    r = extract_answer(r"<think>x</think> \boxed{\boxed{F(x) = x}}")
    assert r.status is S.INTERNAL_ERROR
    assert r.reason == "extraction_error"
    assert (r.value, r.chosen_index, r.candidates) == (None, None, ())
    assert "RuntimeError" in r.detail and "bug in extraction" in r.detail
    assert r.status is not S.NO_ANSWER
    json.dumps(r.to_dict())


def test_config_errors_still_raise_outside_the_net():
    with pytest.raises(ValueError):
        extract_answer(r"\boxed{x}", policy="nope")


def test_unsupported_input_reason():
    assert extract_answer(3.5).reason == "no_answer:unsupported_input"


# --- hostile inputs for the new scans ---------------------------------------------------


@pytest.mark.parametrize("text", [
    "<think>" * 25_000,
    "</think>" * 25_000,
    "<think></think>" * 12_000 + r"\boxed{x}",
    ("< / " + " " * 40) * 4_000 + "think>",
    "".join(rf"\boxed{{{i}}} or " for i in range(10_000)),
    r"\boxed{" + r"\begin{cases}" * 14_000 + "}",
    r"\boxed{" + r"\begin{cases}x\end{cases}" * 7_000 + "}",
    r"\boxed{" + "a or " * 38_000 + "}",
    r"\boxed{" + "=" * 190_000 + "}",
    r"\boxed{" + "(" * 190_000 + "}",
    r"\boxed{" + "\\," * 95_000 + "}",
    r"\pm\boxed{x}" * 15_000,
    "<answer>" + r"\boxed{1}" * 20_000,
    r"<answer>\boxed{1}</answer>" * 7_000,
    r"\boxed{x}" + " or $" * 40_000,
])
def test_hostile_inputs_for_policy_scans(text):
    for policy in (DEFAULT_POLICY, AnswerPolicy(hedge="pick", qualifiers="report")):
        r = extract_answer(text, policy=policy, max_answer_chars=10**6)
        assert r.status is not S.INTERNAL_ERROR, r.detail
        json.dumps(r.to_dict())


@pytest.mark.parametrize("answer", [
    r"\ln\left|\sec x + \tan x\right| + C",
    r"\frac{1}{2}\arctan\left(\frac{x}{2}\right) + C",
    r"\frac{\sqrt{\pi}}{2}\operatorname{erf}(x) + C",
    r"x\sin x + \cos x + C",
    r"\frac{2}{3}(x+1)^{3/2}",
    r"e^{x}\left(x^{2}-2x+2\right)+C",
    r"\sinh^{-1}(x) + C",
    r"\log_{2}|x| + C",
    r"\text{Li}_2(x)",
    r"\mathrm{Si}(x) + \mathrm{d}",
    r"\frac{x^2}{2}\ln x - \frac{x^2}{4} + C",
    r"\tan^{-1} x + \text{const}",
    r"\frac{1}{4}\sin(4x) \cdot \mathrm{sgn}(x)",
    "x*exp(x) - exp(x) + C",
    "asinh(x) + sqrt(x**2 + 1)",
    r"\left\{ x \right.",
])
def test_clean_answers_are_not_flagged(answer):
    for wrap in (r"Therefore \boxed{%s}.", "<answer>%s</answer>",
                 "<think>try \\boxed{0}</think> So \\boxed{%s}"):
        r = extract_answer(wrap.replace("%s", answer))
        assert r.status is S.OK, (wrap, r.reason, r.detail)
        assert r.value == answer
        assert (r.hedges, r.qualifiers, r.agreement) == ((), (), "single")


def test_other_final_answer_too_long_under_reject():
    text = r"\boxed{" + "x+" * 3_000 + "x} and finally \\boxed{x}"
    r = extract_answer(text)
    assert r.status is S.TOO_LONG
    assert r.chosen_index == 1
    assert extract_answer(text, policy=AnswerPolicy(hedge="pick")).value == "x"


def test_first_policy_with_agreeing_answers():
    r = extract_answer(r"\boxed{\sin x + C} and, to be clear, \boxed{\sin x}", policy="first")
    assert (r.status, r.value, r.agreement) == (S.OK, r"\sin x + C", "identical")
    assert not r.needs_agreement_check


# An integral left in the answer is passed on by extraction and refused by the
# parser (one place decides it), never evaluated: UNPARSEABLE echoed_integral.
@pytest.mark.parametrize("response", [
    r"\boxed{\int \cos x\,dx}",
    r"\boxed{\int_0^x \sin t\,dt}",
    r"\boxed{\int \sec^2 x\,dx = }",
    "\\boxed{∫ x dx}",
    "<answer>Integral(x**2, x)</answer>",
    "<answer>integrate(x**2, x)</answer>",
    r"\boxed{x^2 - \int 2x\,dx}",
])
def test_echoed_integrals_are_refused_not_evaluated(response):
    result = check_antiderivative(response, "cos(x)", input_kind="response")
    assert result.verdict is Verdict.UNPARSEABLE
    assert result.reason == "echoed_integral"
