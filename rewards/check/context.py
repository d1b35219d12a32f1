"""One check in progress: its request, its clock and the stages it recorded.

Every stage function takes the :class:`Check` it belongs to: it reads the
request and the deadline from it, appends its :class:`StageRecord`, and ends
the check early by raising :class:`Decided` (a verdict) or
:class:`~rewards.check.errors.ParseFailure` (UNPARSEABLE).
:meth:`Check.guarded` turns every way out of the stages into a
:class:`CheckResult`, so the last stage recorded is the one that decided.
"""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from .errors import ParseFailure, describe, strict_mode
from .memory import memory_cap
from .request import CheckRequest
from .result import CheckResult, Confidence, StageRecord, Verdict, ms_since, resolve_shown
from .timebox import Deadline, StepTimeout, time_limit


class Decided(Exception):
    """Carries an early verdict out of the stage sequence."""

    def __init__(self, verdict: Verdict, reason: str, **detail: Any) -> None:
        super().__init__(reason)
        self.verdict = verdict
        detail.pop("total_ms", None)  # finish() measures the whole check
        self.detail = {"reason": reason, **detail}


@dataclass
class Check:
    """The state of one check; see the module docstring."""

    request: CheckRequest
    deadline: Deadline
    stages: list[StageRecord] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    # The integration variable once the symbol stage chose it, and how.
    symbol: str | None = None
    symbol_source: str | None = None

    @classmethod
    def start(cls, request: CheckRequest) -> Check:
        """A check of ``request`` whose clock starts now."""
        return cls(request, Deadline(request.timeout_s))

    def record(self, stage: str, status: str = "ok", started: float | None = None,
               **data: Any) -> StageRecord:
        """Append a stage record (timed from ``started``) and return it."""
        record = StageRecord(stage, status, 0.0 if started is None else ms_since(started), data)
        self.stages.append(record)
        return record

    def decide(self, verdict: Verdict, reason: str, **detail: Any) -> NoReturn:
        """End the check now with ``verdict``: raises :class:`Decided`."""
        raise Decided(verdict, reason, **detail)

    @property
    def last_stage(self) -> str:
        """The stage recorded last (the one a verdict is attributed to)."""
        return self.stages[-1].stage if self.stages else "candidate_ingest"

    def finish(self, verdict: Verdict, stage: str, detail: dict[str, Any] | None = None,
               confidence: Confidence = Confidence.NONE) -> CheckResult:
        """The result: the stages so far, the detail with the variable and total time."""
        detail = dict(detail or {})
        if self.symbol is not None:
            detail.setdefault("variable", self.symbol)
            if self.symbol_source != "given":
                detail.setdefault("variable_from", self.symbol_source)
        # The reward traces rejected and numeric-only answers: theirs are
        # printed (when it writes a trace at all).
        traced = verdict is not Verdict.CORRECT or confidence is Confidence.NUMERIC_ONLY
        resolve_shown(self.stages, self.request.trace_accepted
                      or (traced and self.request.trace_rejected))
        detail["total_ms"] = round(ms_since(self.started), 3)
        return CheckResult(verdict, stage, self.stages, detail, confidence)

    def guarded(self, stages: Callable[[], CheckResult]) -> CheckResult:
        """``stages()`` under the check's time limit, every way out a verdict.

        A bug of ours is CHECKER_ERROR with the exception's type in the
        reason (the sample leaves the gradient), or raises in strict mode;
        it is never scored as the model's fault. That holds for a bug in
        finishing itself (printing the trace of a verdict): :meth:`broken`."""
        try:
            timeout_s = self.request.timeout_s
            try:
                with memory_cap(self.request.memory_limit_mb), \
                        time_limit(max(self.deadline.remaining(), 1e-3)):
                    return stages()
            except Decided as decided:
                return self.finish(decided.verdict, self.last_stage, decided.detail)
            except ParseFailure as exc:
                return self.finish(Verdict.UNPARSEABLE, self.last_stage,
                                   {"reason": exc.reason, "message": exc.message[:500]})
            except StepTimeout:
                stage = self.last_stage
                self.record("deadline", "fail", timeout_s=timeout_s, after_stage=stage)
                return self.finish(Verdict.TIMEOUT, "deadline",
                                   {"reason": "timeout", "timeout_s": timeout_s})
            except (RecursionError, MemoryError) as exc:
                # Pathological input, not a checker bug: a deep tree or a huge
                # expansion. The answer could not be judged in the resources given.
                self.record("resources", "fail", error=type(exc).__name__)
                return self.finish(Verdict.UNPARSEABLE, "resources",
                                   {"reason": "too_complex", "message": type(exc).__name__})
            except Exception as exc:  # noqa: BLE001 - a bug in us must not reach the trainer
                if strict_mode():
                    raise
                error = describe(exc, 500)
                self.record("unexpected", "fail", error=error)
                return self.finish(Verdict.CHECKER_ERROR, "unexpected",
                                   {"reason": f"exception:{type(exc).__name__}", "error": error,
                                    "traceback": traceback.format_exc()[-4000:]})
        except Exception as exc:  # noqa: BLE001 - finishing itself failed (printing)
            if strict_mode():
                raise
            return self.broken(exc)

    def broken(self, exc: BaseException) -> CheckResult:
        """CHECKER_ERROR for an exception that escaped even :meth:`finish`:
        built without printing anything (the trace's expressions dropped)."""
        resolve_shown(self.stages, False)
        self.stages.append(StageRecord("unexpected", "fail", 0.0,
                                       {"error": type(exc).__name__}))
        return CheckResult(Verdict.CHECKER_ERROR, "unexpected", self.stages,
                           {"reason": f"exception:{type(exc).__name__}",
                            "error": type(exc).__name__,
                            "total_ms": round(ms_since(self.started), 3)})
