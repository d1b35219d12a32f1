"""The ``candidate_extract`` stage, shared by the checker and the reward
(which extracts in its own process to check identical answers once): one
function, so both apply the configured policy once and the same way."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..result import CheckResult, StageRecord, Verdict, ms_since
from .choose import extract_answer
from .policy import AnswerPolicy, Extraction, ExtractionStatus


@dataclass(frozen=True)
class Extracted:
    """What extraction hands on: the answer to judge, the response's other
    final answers that must agree with it, and the stage record."""

    answer: str
    alternatives: tuple[str, ...]
    record: StageRecord


def extraction_record(extraction: Extraction, ms: float) -> StageRecord:
    """The policy that applied, every final answer found, which one won."""
    ok = extraction.status is ExtractionStatus.OK
    data = extraction.to_dict()
    data["chosen"] = data.pop("value")
    if not ok:
        data["message"] = data.pop("detail")
    return StageRecord("candidate_extract", "ok" if ok else "fail", ms, data)


def _verdict(status: str) -> Verdict:
    # A bug of ours is no gradient; a hedge is a wrong answer (two answers,
    # at most one right); anything else means there is no answer to judge.
    if status == ExtractionStatus.INTERNAL_ERROR.value:
        return Verdict.CHECKER_ERROR
    if status == ExtractionStatus.HEDGED.value:
        return Verdict.WRONG
    return Verdict.UNPARSEABLE


def unextracted_result(record: StageRecord) -> CheckResult:
    """The verdict for a response whose answer could not be extracted."""
    status, reason = record.data["status"], record.data["reason"]
    detail = {"reason": "hedged" if status == ExtractionStatus.HEDGED.value else reason,
              "message": record.data.get("message", ""), "total_ms": round(record.ms, 3)}
    if status == ExtractionStatus.HEDGED.value:
        detail["hedge"] = reason.partition(":")[2]
    return CheckResult(_verdict(status), "candidate_extract", [record], detail)


def extract_stage(completion: object, policy: AnswerPolicy) -> Extracted | CheckResult:
    """The answer of a whole response under ``policy``, or the verdict when
    there is none to judge (no answer, a hedge, a qualified answer...)."""
    start = time.perf_counter()
    extraction = extract_answer(completion, policy=policy)
    record = extraction_record(extraction, ms_since(start))
    if record.status != "ok":
        return unextracted_result(record)
    texts = extraction.distinct_texts if extraction.needs_agreement_check else ()
    return Extracted(extraction.value, tuple(texts[1:]), record)
