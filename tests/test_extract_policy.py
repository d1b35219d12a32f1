"""Behaviour of rewards.extract (the final-answer policy table, candidates and agreement, policy configuration): part of the extraction tests,
split by section from the former tests/test_extract.py."""
from __future__ import annotations

import dataclasses
import json

import pytest

from rewards.check.extract import (
    DEFAULT_POLICY,
    AnswerPolicy,
    BoxPolicy,
    Candidate,
    ExtractionStatus,
    extract_answer,
)
from tests.cases import extraction
from tests.support import case_id, check_case

S = ExtractionStatus


# --- final-answer policy: a table of model-style responses ----------------------
#
# (id, response, expected reason, expected value, expected candidate texts).
# The reason is ``status`` or ``status:code``; ``value`` is None unless OK;
# ``candidates`` lists the graded text of every final candidate in text order
# (None: not checked). Responses are invented for these tests.

H, Q, NA = S.HEDGED, S.QUALIFIED, S.NO_ANSWER

POLICY_TABLE = [
    # -- hedges between answers --
    ("either_or_boxes",
     r"Integrating gives either \boxed{-\cos x + C} or \boxed{\cos x + C}, depending on the sign.",
     "hedged:or_between_answers", None, [r"-\cos x + C", r"\cos x + C"]),
    ("or_between_inline_boxes",
     r"So the antiderivative is $\boxed{\frac{e^{2x}}{2} + C}$ or $\boxed{2e^{2x} + C}$.",
     "hedged:or_between_answers", None, None),
    ("pm_between_boxes", r"We get \boxed{\sin x} \pm \boxed{\cos x}.", "hedged:pm", None, None),
    ("either_long_or",
     r"It is either \boxed{\ln x} (from the first substitution we tried) or, from the "
     r"second one, \boxed{\ln 2x}.",
     "hedged:or_between_answers", None, None),
    ("or_then_unboxed_math", r"The answer is $\boxed{\frac{x^3}{3}}$, or $x^3$ if you prefer.",
     "hedged:or_after_answer", None, [r"\frac{x^3}{3}"]),
    ("too_many_answers", " ".join(rf"\boxed{{x^{k}}}" for k in range(2, 8)),
     "hedged:too_many_answers", None, None),
    # -- restatements and prose that are not hedges --
    ("two_different_bare_boxes",
     r"First attempt: \boxed{\ln(x+1) + C}." "\n\n" r"After checking: \boxed{\ln(x-1) + C}.",
     "ok", r"\ln(x-1) + C", [r"\ln(x+1) + C", r"\ln(x-1) + C"]),
    ("same_answer_twice_spacing_and_constant",
     r"\boxed{\frac{x^4}{4}+C} ... so, once more, \boxed{ \frac{x^4}{4} \, }",
     "ok", r"\frac{x^4}{4} \,", [r"\frac{x^4}{4}+C", r"\frac{x^4}{4} \,"]),
    ("or_equivalently",
     r"\boxed{\sin^2 x + C} or equivalently \boxed{-\frac{1}{2}\cos 2x + C}",
     "ok", r"-\frac{1}{2}\cos 2x + C", None),
    ("or_in_prose_before_single_box",
     r"We can substitute u = 2x or integrate by parts; either way, \boxed{\frac{1}{2}e^{2x} + C}.",
     "ok", r"\frac{1}{2}e^{2x} + C", [r"\frac{1}{2}e^{2x} + C"]),
    ("or_in_prose_after_single_box",
     r"\boxed{\frac{x^2}{2} + C}. You could also check this by differentiating, or by a table.",
     "ok", r"\frac{x^2}{2} + C", None),
    ("either_way_is_prose",
     r"Either way, \boxed{x^2/2 + C}. As a fraction: \boxed{\frac{x^2}{2} + C}.",
     "ok", r"\frac{x^2}{2} + C", [r"x^2/2 + C", r"\frac{x^2}{2} + C"]),
    ("neither_is_not_either",
     r"Neither \boxed{x} nor anything else: final \boxed{x + C}.", "ok", "x + C", None),
    # -- hedges inside one answer --
    ("text_or_in_box", r"\boxed{\arctan x + C \text{ or } -\arctan x + C}", "hedged:or", None, None),
    ("bare_or_in_box", r"\boxed{x^2 or -x^2}", "hedged:or", None, None),
    ("either_in_box", r"\boxed{\text{either } \ln x \text{ or } -\ln x}", "hedged:either", None,
     None),
    ("lor_in_box", r"\boxed{e^x \lor e^{-x}}", "hedged:or", None, None),
    ("pm_in_box", r"Thus \boxed{\pm\sqrt{1 - x^2} + C}.", "hedged:pm", None, None),
    ("unicode_pm_in_box", "Thus \\boxed{±\\sin x + C}.", "hedged:pm", None, None),
    ("mp_in_box", r"\boxed{\mp \cos x + C}", "hedged:mp", None, None),
    ("pm_before_box", r"The antiderivative is $\pm\boxed{\cos x + C}$.", "hedged:pm", None, None),
    ("or_in_answer_tag", "<answer>sin(2*x)/2 + C or cos(2*x) + C</answer>", "hedged:or", None,
     None),
    ("hedge_in_an_earlier_box",
     r"\boxed{x \text{ or } -x} hmm, let me settle: \boxed{x}", "hedged:or", None, None),
    # -- reasoning blocks --
    ("box_only_in_think",
     "<think>Parts: \\boxed{x\\ln x - x}. Looks right.</think>\nThe antiderivative is x ln x - x + C.",
     "no_answer:answer_only_in_reasoning", None, []),
    ("think_box_then_different_text_answer",
     r"<think>Maybe \boxed{\sin x + C}.</think> The antiderivative is $-\cos x + C$.",
     "no_answer:answer_only_in_reasoning", None, []),
    ("think_box_then_answer_tag",
     r"<think>First guess \boxed{\frac{1}{x}}; no, that is the integrand.</think>"
     r"<answer>\ln|x| + C</answer>",
     "ok", r"\ln|x| + C", [r"\ln|x| + C"]),
    ("think_box_then_final_box",
     r"<think>Try \boxed{e^x}. Differentiate: wrong.</think> Final answer: \boxed{e^{x}(x-1) + C}",
     "ok", r"e^{x}(x-1) + C", [r"e^{x}(x-1) + C"]),
    ("unclosed_think_with_box", r"<think>Let me try \boxed{\tan x} and then verify",
     "no_answer:unclosed_reasoning", None, []),
    ("unclosed_think_empty", "<think>", "no_answer:unclosed_reasoning", None, []),
    ("multiple_think_blocks_final_box",
     r"<think>sub u = x^2</think> so far \boxed{u} <think>back-substitute</think>"
     r" \boxed{\frac{1}{2}\sin(x^2) + C}",
     "ok", r"\frac{1}{2}\sin(x^2) + C", [r"\frac{1}{2}\sin(x^2) + C"]),
    ("box_between_think_blocks_only",
     r"<think>a</think> \boxed{x^2} <think>that was wrong</think> Hmm.",
     "no_answer:answer_only_in_reasoning", None, []),
    ("new_think_after_final_answer",
     r"<think>a</think> \boxed{x^2} <think>wait, let me redo", "no_answer:unclosed_reasoning",
     None, []),
    ("template_opened_think", "Working it out...\n</think>\n\n\\boxed{\\sinh x + C}", "ok",
     r"\sinh x + C", None),
    ("think_tags_case_and_spaces",
     r"< THINK >guess \boxed{1}</ think > \boxed{\cosh x + C}", "ok", r"\cosh x + C", None),
    ("think_then_nothing", "<think>hmm</think> I am not sure.", "no_answer", None, []),
    ("answer_tag_in_think_only",
     "<think><answer>x^2</answer></think>", "no_answer:answer_only_in_reasoning", None, []),
    # -- qualifiers --
    ("where_clause", r"\boxed{\sin x + C,\ \text{where } C = -x}", "qualified_answer:where", None,
     None),
    ("for_x_positive", r"\boxed{\ln x + C \text{ for } x > 0}", "qualified_answer:for", None, None),
    ("if_else", r"\boxed{x^2 \text{ if } x \geq 0 \text{ else } -x^2}", "qualified_answer:if",
     None, None),
    ("otherwise", r"\boxed{\frac{x^2}{2} \text{ (otherwise } 0)}", "qualified_answer:otherwise",
     None, None),
    ("quad_neq", r"\boxed{\ln|x| + C, \quad x \neq 0}", "qualified_answer:neq", None, None),
    ("set_membership", r"\boxed{\frac{1}{x} + C \; (x \in \mathbb{R})}", "qualified_answer:in",
     None, None),
    ("geq_condition", r"\boxed{\sqrt{x} + C,\ x \ge 0}", "qualified_answer:geq", None, None),
    ("unicode_relation", "\\boxed{\\sqrt{x} + C, x ≥ 0}", "qualified_answer:geq", None, None),
    ("python_conditional_tag", "<answer>x**2/2 if x > 0 else -x**2/2</answer>",
     "qualified_answer:if", None, None),
    ("qualifier_in_earlier_box",
     r"\boxed{\ln x \text{ for } x>0}, and in general \boxed{\ln|x|}", "qualified_answer:for",
     None, None),
    ("cases_passes_through",
     r"\boxed{\begin{cases} \frac{x^2}{2} & \text{if } x \ge 0 \\ -\frac{x^2}{2} & "
     r"\text{otherwise} \end{cases}}",
     "ok", r"\begin{cases} \frac{x^2}{2} & \text{if } x \ge 0 \\ -\frac{x^2}{2} & "
     r"\text{otherwise} \end{cases}", None),
    ("cases_or_in_condition",
     r"\boxed{\begin{cases} 0 & x < 0 \text{ or } x > 1 \\ x & \text{else} \end{cases}}",
     "ok", None, None),
    ("qualifier_after_cases",
     r"\boxed{\begin{cases} x & x>0 \\ -x & x \le 0 \end{cases} \text{ where } x \ne 0}",
     "qualified_answer:where", None, None),
    ("unclosed_cases_is_scanned",
     r"\boxed{\begin{cases} x \text{ for } x > 0}", "qualified_answer:for", None, None),
    # -- equations: the right-hand side is graded --
    ("integral_equals",
     r"Hence \boxed{\int x e^{x}\,dx = x e^{x} - e^{x} + C}.", "ok", r"x e^{x} - e^{x} + C",
     None),
    ("F_equals", r"\boxed{F(x) = \frac{x^5}{5} + C}", "ok", r"\frac{x^5}{5} + C", None),
    ("y_equals", r"\boxed{y = \ln(1 + e^x) + C}", "ok", r"\ln(1 + e^x) + C", None),
    ("colon_equals_tag", "<answer>F(x) := x**3/3 + C</answer>", "ok", "x**3/3 + C", None),
    ("chain_of_equals", r"\boxed{\int 2x\,dx = x^2 + C = x^2 + C}", "ok", "x^2 + C", None),
    ("equals_in_subscript_kept", r"\boxed{\sum_{n=1}^{3} x^n}", "ok", r"\sum_{n=1}^{3} x^n", None),
    ("rhs_makes_restatement_identical",
     r"\boxed{F(x) = \tan x + C}, i.e. \boxed{\tan x + C}", "ok", r"\tan x + C",
     [r"\tan x + C", r"\tan x + C"]),
    # -- answer tags, boxes inside them, nesting --
    ("box_inside_answer_tag", r"<answer>\boxed{\frac{x^3}{3} + C}</answer>", "ok",
     r"\frac{x^3}{3} + C", [r"\frac{x^3}{3} + C"]),
    ("prose_and_box_in_tag_then_box",
     "<answer>The antiderivative is \\boxed{\\frac{x^3}{3} + C}</answer>\n\nSo "
     "\\boxed{\\frac{x^3}{3}+C}.",
     "ok", r"\frac{x^3}{3}+C", [r"\frac{x^3}{3} + C", r"\frac{x^3}{3}+C"]),
    ("box_then_different_tag", r"\boxed{\sin x} and <answer>\cos x</answer>", "ok", r"\cos x",
     [r"\sin x", r"\cos x"]),
    ("two_boxes_in_one_tag", r"<answer>\boxed{a} or \boxed{b}</answer>",
     "hedged:or_between_answers", None, ["a", "b"]),
    ("unclosed_tag_then_box", r"<answer>\boxed{x^2 + C}", "ok", "x^2 + C", ["x^2 + C"]),
    ("nested_box", r"\boxed{\boxed{x + 1}}", "ok", "x + 1", ["x + 1"]),
    ("box_in_box_with_more", r"\boxed{\boxed{a} + 1}", "ok", r"\boxed{a} + 1", None),
    ("empty_other_box_is_ignored", r"\boxed{} then \boxed{e^x + C}", "ok", "e^x + C", None),
    # -- boxed substitutions: steps of the work, not final answers --
    ("boxed_substitution_then_answer",
     r"Let $\boxed{u = x^2}$, so $du = 2x\,dx$ and the integral is $\int \cos u\,du$. "
     r"Hence \boxed{\sin(x^2) + C}.", "ok", r"\sin(x^2) + C", ["x^2", r"\sin(x^2) + C"]),
    ("answer_then_boxed_substitution_in_a_check",
     r"\boxed{\ln|\tan(x/2)| + C}. Check with \boxed{t = \tan(x/2)}.",
     "ok", r"\ln|\tan(x/2)| + C", None),
    ("boxed_back_substitution_greek",
     r"With \boxed{x = \sin\theta} the integral becomes $\theta$: \boxed{\arcsin x + C}",
     "ok", r"\arcsin x + C", None),
    ("boxed_substitution_in_answer_tags",
     "<answer>u = x**2 + 1</answer> ... <answer>log(x**2 + 1)/2</answer>",
     "ok", "log(x**2 + 1)/2", None),
    ("only_a_substitution_is_graded", r"\boxed{u = x^2}", "ok", "x^2", None),
    ("y_equals_is_an_answer", r"\boxed{y = x^2 + C} and \boxed{x^3}", "ok", "x^3",
     ["x^2 + C", "x^3"]),
    ("substitution_chain_is_an_answer", r"\boxed{u = x^2 = F} \boxed{G}", "ok", "G", None),
    ("substitution_does_not_hide_a_hedge",
     r"\boxed{u = x^2} then either \boxed{\sin u} or \boxed{\cos u}",
     "hedged:or_between_answers", None, None),
]


@pytest.mark.parametrize(("response", "reason", "value", "candidates"),
                         [pytest.param(*row[1:], id=row[0]) for row in POLICY_TABLE])
def test_final_answer_policy_table(response, reason, value, candidates):
    r = extract_answer(response)
    assert r.reason == reason, (r.detail, r.describe())
    assert r.status is ExtractionStatus(reason.split(":")[0])
    assert (r.value is not None) == (r.status is S.OK)
    if value is not None:
        assert r.value == value
    if candidates is not None:
        assert [c.text for c in r.candidates] == candidates
    assert r.policy == DEFAULT_POLICY
    json.dumps(r.to_dict())


def test_policy_table_ids_are_unique():
    assert len({row[0] for row in POLICY_TABLE}) == len(POLICY_TABLE) >= 60


# --- candidates and agreement ----------------------------------------------------


def test_candidates_record_source_index_and_offsets():
    text = r"<answer>\boxed{a}</answer> then \boxed{b} and <answer>c</answer>"
    r = extract_answer(text)
    assert [(c.source, c.index, c.in_answer_tag, c.text) for c in r.candidates] == [
        ("boxed", 0, True, "a"), ("boxed", 1, False, "b"), ("answer_tag", 2, False, "c")]
    for c in r.candidates:
        assert text[c.start] in "\\<"
    assert r.chosen is r.candidates[-1]
    assert (r.n_matches, r.chosen_index, r.source) == (3, 2, "answer_tag")


def test_a_boxed_substitution_is_not_an_answer_the_others_must_agree_with():
    r = extract_answer(r"Let \boxed{u = x^2}. Then \boxed{\sin(x^2) + C}")
    assert [c.status for c in r.candidates] == ["substitution", "ok"]
    assert (r.agreement, r.distinct_texts, r.needs_agreement_check) == (
        "single", (r"\sin(x^2) + C",), False)
    # y = ... is the answer's name, not a substitution: the two must agree.
    r = extract_answer(r"\boxed{y = x^2} \boxed{x^3}")
    assert r.needs_agreement_check and r.distinct_texts == ("x^3", "x^2")


@pytest.mark.parametrize("case", extraction.CASES, ids=case_id)
def test_a_boxed_substitution_before_the_answer_through_the_checker(case):
    check_case(case, timeout_s=None)


def test_agreement_values():
    assert extract_answer(r"\boxed{x}").agreement == "single"
    assert extract_answer(r"\boxed{x + C} \boxed{x}").agreement == "identical"
    assert extract_answer(r"\boxed{x^2} \boxed{x^3}").agreement == "differ"
    assert extract_answer("nothing").agreement == "none"


@pytest.mark.parametrize(("a", "b"), [
    (r"\frac{x^2}{2}+C", r"\frac{x^2}{2}"),
    (r"\frac{x^2}{2} + C", r"\frac{x^2}{2}+c"),
    (r"\frac{x^2}{2} + C_1", r"\frac {x^2} {2}"),
    (r"\left(x+1\right)^2", "(x+1)^2"),
    (r"\displaystyle x\,e^x", "xe^x."),
    (r"x + \text{const}", "x"),
])
def test_textually_identical_after_normalization(a, b):
    r = extract_answer(rf"\boxed{{{a}}} and \boxed{{{b}}}")
    assert r.agreement == "identical"
    assert not r.needs_agreement_check
    assert r.distinct_texts == (b,)


def test_distinct_texts_start_with_the_chosen_answer():
    r = extract_answer(r"\boxed{a} \boxed{b} \boxed{a + C} \boxed{c}", policy="first")
    assert r.value == "a"
    assert r.distinct_texts == ("a", "b", "c")
    assert r.needs_agreement_check


def test_max_distinct_answers_is_configurable():
    text = r"\boxed{1} \boxed{2} \boxed{3}"
    assert extract_answer(text).status is S.OK
    r = extract_answer(text, policy=AnswerPolicy(max_distinct_answers=2))
    assert r.reason == "hedged:too_many_answers"


# --- policy configuration -------------------------------------------------------


HEDGED_BOXES = r"either \boxed{-\sin x + C} or \boxed{\sin x + C}"


def test_hedge_pick_takes_the_box_policy_choice_and_reports():
    pick = AnswerPolicy(hedge="pick")
    r = extract_answer(HEDGED_BOXES, policy=pick)
    assert r.status is S.OK
    assert r.value == r"\sin x + C"
    assert r.hedges == ("or_between_answers",)
    assert not r.needs_agreement_check
    assert "hedge=pick" in r.detail
    r = extract_answer(r"\boxed{\pm x}", policy=pick)
    assert (r.status, r.value, r.hedges) == (S.OK, r"\pm x", ("pm",))
    assert extract_answer(HEDGED_BOXES, policy=pick.replace(box_policy="first")).value == \
        r"-\sin x + C"


def test_hedge_pick_judges_only_the_chosen_answer():
    pick = AnswerPolicy(hedge="pick")
    text = r"\boxed{x \text{ for } x > 0} then \boxed{\ln x}"
    assert extract_answer(text).reason == "qualified_answer:for"
    assert extract_answer(text, policy=pick).value == r"\ln x"


def test_reasoning_ignore_tags_grades_everything():
    text = r"<think>\boxed{\cos x}</think> no final answer"
    assert extract_answer(text).reason == "no_answer:answer_only_in_reasoning"
    r = extract_answer(text, policy=AnswerPolicy(reasoning="ignore_tags"))
    assert (r.status, r.value, r.reasoning, r.graded_from) == (S.OK, r"\cos x", "ignored", 0)
    assert extract_answer("<think>\\boxed{x}",
                          policy=AnswerPolicy(reasoning="ignore_tags")).value == "x"


def test_reasoning_state_and_graded_offset():
    text = r"<think>work</think>\boxed{x}"
    r = extract_answer(text)
    assert r.reasoning == "closed"
    assert r.graded_from == text.index(r"\boxed")
    assert r.candidates[0].start == r.graded_from
    assert extract_answer(r"\boxed{x}").reasoning == "none"
    assert extract_answer("<think>").reasoning == "unclosed"


def test_qualifiers_report_mode():
    r = extract_answer(r"\boxed{\ln x + C \text{ for } x > 0}",
                       policy=AnswerPolicy(qualifiers="report"))
    assert r.status is S.OK
    assert r.qualifiers == ("for", "gt")
    assert r.value == r"\ln x + C \text{ for } x > 0"


def test_box_policy_string_keeps_the_rest_of_the_default():
    r = extract_answer(HEDGED_BOXES, policy="first")
    assert r.policy == DEFAULT_POLICY.replace(box_policy=BoxPolicy.FIRST)
    assert r.status is S.HEDGED


def test_math_fallback_argument_overrides_policy():
    text = r"So $\int x\,dx = \frac{x^2}{2}$."
    assert extract_answer(text).status is S.NO_ANSWER
    r = extract_answer(text, math_fallback=True)
    assert (r.value, r.source, r.policy.math_fallback) == (r"\frac{x^2}{2}", "math_block", True)
    r = extract_answer(text, policy=AnswerPolicy(math_fallback=True), math_fallback=False)
    assert r.status is S.NO_ANSWER


def test_math_fallback_applies_the_policy_after_reasoning():
    text = r"<think>maybe $x^2$</think> The result is $\frac{x^3}{3} \text{ for } x>0$."
    r = extract_answer(text, math_fallback=True)
    assert r.reason == "qualified_answer:for"
    r = extract_answer(r"<think>$x$</think> nothing", math_fallback=True)
    assert r.status is S.NO_ANSWER


@pytest.mark.parametrize("bad", [
    {"reasoning": "after"}, {"hedge": "last"}, {"box_policy": "middle"},
    {"qualifiers": "drop"}, {"math_fallback": "yes"}, {"max_distinct_answers": 0},
    {"max_distinct_answers": True},
])
def test_invalid_answer_policy_is_a_config_error(bad):
    with pytest.raises(ValueError):
        AnswerPolicy(**bad)


def test_answer_policy_is_frozen_and_serializable():
    assert DEFAULT_POLICY.to_dict() == {
        "reasoning": "grade_after", "hedge": "reject", "box_policy": "last",
        "math_fallback": False, "qualifiers": "reject", "max_distinct_answers": 4}
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_POLICY.hedge = "pick"  # type: ignore[misc]
    assert AnswerPolicy(box_policy="FIRST").box_policy is BoxPolicy.FIRST


def test_describe_names_policy_and_winning_marker():
    r = extract_answer(r"<think>x</think> \boxed{a} and <answer>b</answer>")
    text = r.describe()
    assert "hedge=reject" in text and "reasoning: closed" in text
    assert " *[1] answer_tag" in text
    assert "agreement: differ" in text


def test_to_dict_lists_candidates_capped():
    text = " ".join(rf"\boxed{{{i}}}" for i in range(40))
    d = extract_answer(text, policy=AnswerPolicy(hedge="pick")).to_dict()
    assert d["n_candidates"] == 40 and len(d["candidates"]) == 16
    assert d["candidates"][0] == {"source": "boxed", "index": 0, "start": 0, "status": "ok",
                                  "text": "0", "in_answer_tag": False, "hedges": [],
                                  "qualifiers": []}
    assert json.loads(json.dumps(d)) == d


def test_candidate_type():
    c = extract_answer(r"\boxed{F(x) = x}").chosen
    assert isinstance(c, Candidate)
    assert (c.raw, c.text, c.key, c.status) == ("F(x) = x", "x", "x", "ok")
    assert c.to_dict()["raw"] == "F(x) = x"
