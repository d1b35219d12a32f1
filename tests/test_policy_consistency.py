r"""The configured answer policy decides, once, wherever a completion is judged.

The reward extracts in its own process (to check identical answers once) and
its workers only parse and judge; ``check_antiderivative(...,
input_kind="response")`` extracts in the check. For every field of the
policy, in each of its settings, the two must give the same verdict for the
same text: the completions are every string literal of
the extraction tests (``tests/test_extract_*.py``) that holds an answer
marker, plus answers with
real mathematics in them (hedges, qualifiers, think tags, several boxes).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rewards import AntiderivativeReward, check_antiderivative

EXTRACT_TESTS = sorted(Path(__file__).parent.glob("test_extract_*.py"))
MARKERS = ("\\boxed", "\\fbox", "<answer", "<think", "</think", "$", "\\(", "\\[")
# Long enough that load cannot turn a verdict into TIMEOUT on either side.
TIMEOUT_S = 30.0
# One field changed at a time, to each of its other settings.
POLICIES = [
    {},
    {"reasoning": "ignore_tags"},
    {"hedge": "pick"},
    {"qualifiers": "report"},
    {"box_policy": "first"},
    {"box_policy": "only_if_single"},
    {"math_fallback": True},
]
MATH = [
    r"\boxed{\pm\frac{x^2}{2}}",
    r"\boxed{\frac{x^2}{2}} or \boxed{-\frac{x^2}{2}}",
    r"either \boxed{\frac{x^2}{2}} or \boxed{x^2}",
    r"\boxed{\frac{x^2}{2} + C} and again \boxed{\frac{x^{2}}{2}}",
    r"\boxed{\frac{x^2}{2}} \quad \boxed{\frac{x^2}{2} + 1}",
    r"\boxed{x^2} then corrected: \boxed{\frac{x^2}{2}}",
    r"\boxed{\frac{x^2}{2} + C,\ \text{where } C = -x}",
    r"\boxed{\frac{x^2}{2} \text{ for } x > 0}",
    r"<think>maybe \boxed{x^2}</think> so \boxed{\frac{x^2}{2}}",
    r"<think>\boxed{\frac{x^2}{2}}</think> done",
    r"<think>unfinished \boxed{\frac{x^2}{2}}",
    r"It is $\frac{x^2}{2} + C$.",
    r"<answer>x**2/2</answer> or \boxed{x^2}",
    r"$\pm\boxed{\frac{x^2}{2}}$",
    r"\boxed{\frac{x^2}{2}} \text{ or equivalently } \boxed{\frac{1}{2}x^2}",
]


def _completions() -> list[str]:
    literals = []
    for path in EXTRACT_TESTS:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if any(m in text for m in MARKERS) and len(text) <= 2000:
                    literals.append(text)
    return list(dict.fromkeys(literals + MATH))


COMPLETIONS = _completions()


def test_the_cases_are_many_and_varied():
    # A floor, so an edit of the extraction tests cannot empty this test silently.
    assert len(COMPLETIONS) >= 100
    assert sum("<think" in c for c in COMPLETIONS) >= 5
    assert sum("<answer" in c for c in COMPLETIONS) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: ",".join(
    f"{k}={v}" for k, v in p.items()) or "default")
def test_reward_and_checker_agree_under_the_policy(policy):
    with AntiderivativeReward(workers=1, timeout_s=TIMEOUT_S, **policy) as reward:
        outcomes = reward.score(COMPLETIONS, ["x"] * len(COMPLETIONS))
        request = reward.config.check_request()
    differ = []
    for text, outcome in zip(COMPLETIONS, outcomes, strict=True):
        direct = check_antiderivative(text, "x", request, input_kind="response")
        if outcome.verdict != direct.verdict.value:
            differ.append((text[:80], outcome.verdict, outcome.result.reason,
                           direct.verdict.value, direct.reason))
    assert not differ, differ
    # Each policy setting shows in the verdicts of the real-math answers.
    verdicts = {o.verdict for o in outcomes}
    assert "CORRECT" in verdicts and "WRONG" in verdicts
