"""The checker: pure, worker-side, no I/O.

completion -> :mod:`.extract` (final answer) -> :mod:`.parse` (LaTeX or SymPy
text, never ``eval``) -> :mod:`.normalize` -> differentiate ->
:mod:`.numeric` (multi-precision screen) and :mod:`.symbolic` (proof) ->
:class:`~.result.CheckResult`. :mod:`.pipeline` runs the stages; every stage
leaves a :class:`~.result.StageRecord`, and every failure is a verdict with a
reason, never an exception.
"""
from __future__ import annotations

from .pipeline import check_antiderivative
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
    "CheckResult",
    "Confidence",
    "StageRecord",
    "Verdict",
    "check_antiderivative",
    "is_no_answer",
]
