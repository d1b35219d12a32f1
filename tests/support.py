"""Helpers the tests share (imported as ``tests.support``): hang guards,
process checks, and the one runner of a verdict table (``tests/cases/``);
never performance assertions."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from rewards import CheckResult, Verdict, check_antiderivative

# How long a test waits for something that should happen soon: a hang guard.
HANG_GUARD_S = 120.0


def eventually(predicate: Callable[[], bool], seconds: float = HANG_GUARD_S) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@dataclass(frozen=True)
class VerdictCase:
    """One row of a verdict table: ``id`` says what the case is (the test id);
    ``kind`` is how ``answer`` is read (``latex`` / ``sympy``: an extracted
    answer; ``response``: a whole completion); ``reason`` None: any reason;
    ``symbol``: the variable of integration (None: inferred from the integrand)."""

    id: str
    answer: str
    integrand: str
    kind: str
    verdict: Verdict
    reason: str | None = None
    integrand_kind: str = "sympy"
    symbol: str | None = None


# Long enough that load on a shared machine cannot turn a verdict into TIMEOUT.
CASE_TIMEOUT_S = 30.0


def case_id(case: VerdictCase) -> str:
    """The pytest id of a row (``ids=case_id``)."""
    return case.id


def check_case(case: VerdictCase, timeout_s: float | None = CASE_TIMEOUT_S) -> CheckResult:
    """Judge one row and assert its verdict (and its reason, when given); the
    result, for a test's further assertions. ``timeout_s`` None: the
    checker's default deadline."""
    deadline = {} if timeout_s is None else {"timeout_s": timeout_s}
    result = check_antiderivative(case.answer, case.integrand, input_kind=case.kind,
                                  integrand_kind=case.integrand_kind, symbol=case.symbol,
                                  **deadline)
    assert result.verdict is case.verdict, (case.id, case.answer[:120], result.render())
    if case.reason is not None:
        assert result.reason == case.reason, (case.id, case.answer[:120], result.render())
    return result
