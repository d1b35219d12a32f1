"""Prompt building and scoring for the ``integrals_antiderivative`` lm-eval task.

lm-eval loads this file next to the task YAML (``!function utils.*``). The
verdicts come from :func:`rewards.check_antiderivative` on the whole response
(``input_kind="response"``) with the reward's defaults (last box or
``<answer>`` tag, answer syntax auto-detected, 5 s deadline), so an eval
score and a GRPO reward agree on every completion.

Example (no lm-eval needed)::

    >>> doc = {"integrand": "x**2", "variable": "x"}
    >>> process_results(doc, [r"so \\boxed{x^3/3 + C}"])
    {'acc': 1.0, 'acc_symbolic': 1.0, 'answered': 1.0}
"""
from __future__ import annotations

import os
from typing import Any

from rewards import Confidence, Verdict, check_antiderivative, prompts
from rewards.check import is_no_answer

INTEGRAND_KEYS = ("integrand", "integrand_sympy")
SYMBOL_KEYS = ("variable", "symbol")

# Same wording as examples/train_grpo.py, so a model is evaluated on the
# prompt it was trained on.
USER_TEMPLATE = prompts.USER_TEMPLATE


def _first(doc: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = doc.get(key)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _timeout_s() -> float:
    try:
        return float(os.environ.get("REWARDS_EVAL_TIMEOUT_S", "5"))
    except ValueError:
        return 5.0


def doc_to_text(doc: dict[str, Any]) -> str:
    integrand = _first(doc, INTEGRAND_KEYS) or "?"
    return USER_TEMPLATE.format(integrand=integrand, symbol=_first(doc, SYMBOL_KEYS) or "x")


def doc_to_target(doc: dict[str, Any]) -> str:
    # Only logged: the checker needs no reference answer.
    for key in ("antiderivative", "reference_answer_sympy", "answer"):
        if doc.get(key):
            return str(doc[key])
    return ""


def check(doc: dict[str, Any], response: str) -> Any:
    """The :class:`rewards.CheckResult` of one response to one document."""
    return check_antiderivative(
        response, _first(doc, INTEGRAND_KEYS) or "", symbol=_first(doc, SYMBOL_KEYS) or "x",
        input_kind="response", timeout_s=_timeout_s(),
        math_fallback=os.environ.get("REWARDS_EVAL_ANSWER_FALLBACK", "") == "1")


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """lm-eval's hook: one generation in, the task's metrics out."""
    result = check(doc, results[0] if results else "")
    no_answer = result.verdict is Verdict.UNPARSEABLE and is_no_answer(result.reason)
    return {
        "acc": float(result.verdict is Verdict.CORRECT),
        "acc_symbolic": float(result.verdict is Verdict.CORRECT
                              and result.confidence is Confidence.SYMBOLIC),
        "answered": float(not no_answer),
    }
