"""The job: one answer to judge, built once from (completion, integrand, request).

:func:`build_job` is the one place a response becomes what is checked: its
final answer extracted under the request's answer policy (the
``candidate_extract`` stage) and a trailing ``+ C`` stripped, since F and
F + C have one derivative and so one verdict. The reward builds its jobs
with it (and dedups and caches them by it), its workers judge them
(:func:`~rewards.check.check_antiderivative` with ``input_kind="extracted"``
and the job's extraction record), and ``check_antiderivative`` reads a whole
response (``input_kind="response"``) through it too: a response gets the
same job, and the same result, in-process and in a worker.

>>> from rewards.check.request import CheckRequest
>>> job = build_job(r"so \\boxed{\\frac{x^2}{2} + C}", "x", CheckRequest(symbol="x"))
>>> job.answer, job.extracted, job.extraction.stage
('\\\\frac{x^2}{2}', '\\\\frac{x^2}{2} + C', 'candidate_extract')
>>> build_job("no idea", "x", CheckRequest()).reason
'no_answer'
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .extract.choose import extract_answer
from .extract.policy import Extraction, ExtractionStatus
from .parse import without_integration_constant
from .request import CheckRequest
from .result import CheckResult, StageRecord, Verdict, ms_since


@dataclass(frozen=True)
class Job:
    """One check, as it crosses to a worker and as the reward dedups and
    caches it.

    Args:
        answer: the answer as extracted under the request's policy, its
            integration constant stripped.
        integrand: f, as the request's ``integrand_kind`` writes it.
        symbol: the variable (``None``: inferred from the integrand).
        alternatives: the response's other final answers, which must agree
            with ``answer`` (usually none).
        extraction: the ``candidate_extract`` record of the response it came
            from, the first stage of its result. Not part of the job's
            identity: another response with the same answer is the same job.
    """

    answer: str
    integrand: Any
    symbol: str | None
    alternatives: tuple[str, ...] = ()
    extraction: StageRecord | None = field(default=None, compare=False, repr=False)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Sent to a worker with every task: its values, not its field names.
        return Job, (self.answer, self.integrand, self.symbol, self.alternatives,
                     self.extraction)

    @property
    def extracted(self) -> str | None:
        """The answer as extracted, before its constant was stripped."""
        if self.extraction is None:
            return None
        chosen = self.extraction.data.get("chosen")
        return None if chosen is None else str(chosen)


def build_job(completion: object, integrand: Any, request: CheckRequest) -> Job | CheckResult:
    """The job for ``completion`` (a whole response), or its verdict when it
    has no answer to judge (none, a hedge, a qualified answer...).
    ``request`` gives the answer policy and the variable."""
    start = time.perf_counter()
    extraction = extract_answer(completion, policy=request.answer_policy)
    record = _extraction_record(extraction, ms_since(start))
    if record.status != "ok":
        return _unextracted_result(record)
    texts = extraction.distinct_texts if extraction.needs_agreement_check else ()
    return Job(without_integration_constant(extraction.value, request.symbol), integrand,
               request.symbol, tuple(texts[1:]), record)


def _extraction_record(extraction: Extraction, ms: float) -> StageRecord:
    # The candidate_extract stage: the policy that applied, every final
    # answer found, which one won.
    ok = extraction.status is ExtractionStatus.OK
    data = extraction.to_dict()
    data["chosen"] = data.pop("value")
    if not ok:
        data["message"] = data.pop("detail")
    return StageRecord("candidate_extract", "ok" if ok else "fail", ms, data)


def _unextracted_result(record: StageRecord) -> CheckResult:
    # A bug of ours is no gradient; a hedge is a wrong answer (two answers,
    # at most one right); anything else means there is no answer to judge.
    status, reason = record.data["status"], record.data["reason"]
    hedged = status == ExtractionStatus.HEDGED.value
    verdict = (Verdict.CHECKER_ERROR if status == ExtractionStatus.INTERNAL_ERROR.value
               else Verdict.WRONG if hedged else Verdict.UNPARSEABLE)
    detail = {"reason": "hedged" if hedged else reason,
              "message": record.data.get("message", ""), "total_ms": round(record.ms, 3)}
    if hedged:
        detail["hedge"] = reason.partition(":")[2]
    return CheckResult(verdict, "candidate_extract", [record], detail)


def job_result(job: Job, wire: dict[str, Any]) -> CheckResult:
    """``job``'s result from the wire form (:meth:`CheckResult.to_dict`, what
    a worker returns and the reward caches): the one conversion back, with
    ``job``'s own extraction record first. A dedup or cache hit was checked
    for another response with the same answer (its record, or none: see
    :func:`cache_entry`)."""
    result = CheckResult.from_dict(wire)
    if job.extraction is not None:
        if result.stages and result.stages[0].stage == job.extraction.stage:
            result.stages[0] = job.extraction
        else:
            result.stages.insert(0, job.extraction)
    return result


def cache_entry(job: Job, wire: dict[str, Any]) -> tuple[Job, dict[str, Any]]:
    """What a cache keeps of a job's result: the job and its wire form, less
    the extraction record, which belongs to one response, not to the job
    (a record per entry would grow a 20,000-entry cache by tens of MB)."""
    stages = wire.get("stages") or []
    if job.extraction is not None and stages and stages[0].get("stage") == job.extraction.stage:
        wire = {**wire, "stages": stages[1:]}
    # Not dataclasses.replace: it inspects the fields on every call, for
    # every fresh result of a batch.
    return Job(job.answer, job.integrand, job.symbol, job.alternatives), wire


__all__ = ["Job", "build_job", "cache_entry", "job_result"]
