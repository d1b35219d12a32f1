"""The checker: pure, worker-side, no I/O.

One :class:`CheckRequest` (variable, syntaxes, answer policy, time limits)
travels with every check through the stages, each a module of its own:

    completion -> extract/ (the final answer, under the policy)
               -> prepare/ (variable, parse/, constants, real variable, F')
               -> evidence/ (seeded points, multi-precision comparison, domain)
               -> proof/ (normal form, then SymPy's ladder)
               -> CheckResult (verdict, confidence, one record per stage)

:mod:`.pipeline` runs them in order; :mod:`.context` turns every way out
into a verdict with a reason, never an exception.
"""
from __future__ import annotations

from .memo import JudgementMemo
from .pipeline import check_antiderivative
from .prepare.variable import infer_variable
from .request import CheckRequest
from .result import (
    NO_ANSWER_REASONS,
    CheckResult,
    Confidence,
    StageRecord,
    Verdict,
    is_no_answer,
)

__all__ = [
    "NO_ANSWER_REASONS",
    "CheckRequest",
    "CheckResult",
    "Confidence",
    "JudgementMemo",
    "StageRecord",
    "Verdict",
    "check_antiderivative",
    "infer_variable",
    "is_no_answer",
]
