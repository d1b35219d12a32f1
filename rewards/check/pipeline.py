"""The staged antiderivative checker: is F an antiderivative of f?

Symbolic-first: differentiate the candidate with SymPy and compare it with
the integrand, through stages that each leave a record, in this order:

    candidate_extract (job: a whole response) | candidate_ingest  (prepare.ingest)
    -> symbol -> integrand_parse -> candidate_parse   (prepare.variable, prepare.ingest)
    -> constants / residual_symbols -> normalize      (prepare.constants, prepare.real)
    -> differentiate -> differentiable -> residual_symbols   (prepare.derivative)
    -> [memo] -> structural [-> fast_proof] -> numeric_screen -> fast_proof -> numeric_confirm
    -> symbolic_confirm [-> domain] [-> invisible_terms | numeric_accept]
    [-> agreement]

(``fast_proof`` runs once: before the screen when F' and f agree in doubles
at the screen's points, :func:`.evidence.first_look.agree`.)
``result.stages[-1]`` is, by construction, the stage that decided (or broke).
The function is pure (no I/O, no globals beyond caches of parsed integrands)
and never raises: bad input is a verdict with a reason (:mod:`.context`).
"""
from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from typing import Any

import sympy as sp

from .context import Check
from .errors import strict_mode
from .evidence.gather import Evidence, Pair
from .job import build_job
from .limits import CAPS
from .memo import JudgementMemo
from .prepare.constants import constants_stage
from .prepare.derivative import derivative_stage
from .prepare.ingest import InputKind, ingest_candidate, read_candidate, read_integrand
from .prepare.real import real_stage
from .prepare.variable import variable_stage
from .proof.fast import fast_proof, zero_almost_everywhere
from .proof.ladder import symbolic_zero
from .request import CheckRequest
from .result import CheckResult, Confidence, StageRecord, Verdict, ms_since
from .timebox import Deadline

# Every stage name a CheckResult can hold, in the order the stages run.
STAGES = ("candidate_extract", "candidate_ingest", "symbol", "integrand_parse",
          "candidate_parse", "constants", "residual_symbols", "normalize", "differentiate",
          "differentiable", "memo", "structural", "numeric_screen", "fast_proof",
          "numeric_confirm", "symbolic_confirm", "invisible_terms", "localized", "continuity",
          "domain", "parameters", "numeric_accept", "agreement", "resources", "deadline", "unexpected",
          # set by the worker pool for samples no worker reported on
          "pool", "watchdog", "worker_crash")

# Share of the remaining budget the symbolic ladder may use; the rest is
# kept for the high-precision numeric confirmation of an unproven answer.
_SYMBOLIC_SHARE = 0.75


def check_antiderivative(candidate: str | sp.Expr, integrand: str | sp.Expr,
                         request: CheckRequest | None = None, *,
                         input_kind: InputKind = "latex", alternatives: Sequence[str] = (),
                         memo: JudgementMemo | None = None,
                         extraction: StageRecord | None = None, **options: Any) -> CheckResult:
    r"""Decide whether ``candidate`` is an antiderivative of ``integrand``.

    Args:
        candidate: the model's answer, read as ``input_kind`` says:
            ``response`` (raw model output: read as the job
            :func:`~rewards.check.job.build_job` makes of it, its final answer
            extracted under the request's answer policy and read as its
            ``answer_syntax``), ``extracted`` (the output of that extraction:
            read as is, the policy is not applied twice), ``latex``,
            ``sympy`` or ``auto`` (an answer given alone: the policy's hedge
            and qualifier rules apply, then it is read in that syntax), or
            ``expr`` (a SymPy Expr).
        integrand: f, in the request's ``integrand_kind`` (or a SymPy Expr).
        request: a :class:`~rewards.check.request.CheckRequest`; the defaults
            where it is ``None``.
        alternatives: other final answers of the same response; each must be
            an antiderivative too, else the response hedges (WRONG,
            ``hedged``). A response's own alternatives are found by extraction.
        memo: a worker's :class:`~rewards.check.memo.JudgementMemo`: the
            verdict of an earlier answer with the same derivative is reused.
        extraction: for an ``extracted`` candidate, the ``candidate_extract``
            record of the extraction that produced it; the result's first stage.
        **options: :class:`CheckRequest` fields overriding ``request``
            (``symbol``, ``timeout_s``, ``answer_syntax``, ...), and
            ``box_policy`` / ``math_fallback`` for its answer policy.

    Returns:
        A :class:`~rewards.check.result.CheckResult`; never raises on any
        input (a bug of ours is CHECKER_ERROR, or raises in strict mode).

    Example:

    >>> check_antiderivative(r"\frac{x^{2}}{2} + C", "x").verdict.value
    'CORRECT'
    >>> check_antiderivative(r"\boxed{-\cos t + C}", "sin(t)", input_kind="response").correct
    True
    >>> check_antiderivative("x**2/2 + y", "x", input_kind="sympy").reason
    'residual_symbols'
    >>> check_antiderivative(r"\boxed{x^2/2} or \boxed{x^2}", "x", input_kind="response").reason
    'hedged'
    """
    check = Check.start(CheckRequest.build(request, **options))
    if input_kind == "response" and not isinstance(candidate, sp.Expr):
        job = build_job(candidate, integrand, check.request)
        if isinstance(job, CheckResult):
            return job
        input_kind, candidate, extraction = "extracted", job.answer, job.extraction
        alternatives = (*alternatives, *job.alternatives)
    if extraction is not None:
        check.stages.append(extraction)
    others = list(alternatives)
    result = check.guarded(functools.partial(_stages, check, candidate, integrand, input_kind,
                                             others, memo))
    if not others or result.verdict in (Verdict.TIMEOUT, Verdict.CHECKER_ERROR):
        return result
    # A response's other answers were extracted under the policy too.
    kind = "extracted" if input_kind in ("response", "extracted") else input_kind
    try:
        return _agree(check, result, others, integrand, kind)
    except Exception as exc:  # noqa: BLE001 - never raise to the caller (see Returns)
        if strict_mode():
            raise
        return check.broken(exc)


def _stages(check: Check, candidate: Any, integrand: Any, input_kind: InputKind,
            others: list[str], memo: JudgementMemo | None) -> CheckResult:
    ingested = ingest_candidate(check, candidate, input_kind)
    variable_stage(check, integrand)
    integrand_expr = read_integrand(check, integrand)
    answer = read_candidate(check, ingested, integrand_expr)
    check.deadline.check()
    answer, params = constants_stage(check, answer, integrand_expr)
    # As parsed: the domain rule reads the answer as written (e^{2 ln x} is
    # undefined for x < 0), before rebinding the variable evaluates it away.
    written, parsed_integrand = answer, integrand_expr
    as_written: tuple[str, ...] = ()
    if memo is not None:
        # The same answer again (F and F + C): its verdict, before rebinding
        # and differentiating it again.
        as_written = memo.written_key(written, parsed_integrand, check.symbol)
        cached = memo.get(as_written)
        if cached is not None:
            return _from_memo(check, cached)
    answer, integrand_expr, x, param_symbols = real_stage(check, answer, integrand_expr, params)
    check.deadline.check()
    derivative = derivative_stage(check, answer, x, {x, *param_symbols.values()})
    evidence = Evidence(Pair(written, parsed_integrand, check.symbol, derivative, integrand_expr,
                             x, tuple(sorted(param_symbols.values(), key=lambda s: s.name))),
                        check.deadline)
    if memo is None:
        return _judge(check, evidence)
    key = memo.key(derivative, integrand_expr, written)
    cached = memo.get(key)
    if cached is not None:
        memo.keep((as_written,), cached)
        return _from_memo(check, cached)
    first = len(check.stages)
    result = _judge(check, evidence)
    memo.put((key, as_written), result, check.stages[first:])
    return result


def _from_memo(check: Check, cached: tuple) -> CheckResult:
    """The verdict of an answer judged before (:class:`JudgementMemo`), with
    the stages that decided it, after a ``memo`` record."""
    verdict, stage, detail, confidence, decided = cached
    check.record("memo", note="same derivative as an answer judged before: its verdict")
    check.stages.extend(StageRecord.from_dict(d) for d in decided)
    return check.finish(verdict, stage, dict(detail), confidence)


def _judge(check: Check, evidence: Evidence) -> CheckResult:
    """F' against f: a structural zero, the numeric screen, the fast proof,
    the strict numeric confirmation, then the ladder; every accept that rests
    on the real line obeys the domain rule."""
    stages, deadline = check.stages, check.deadline

    def refusal() -> CheckResult | None:
        # Every accept needs F continuous wherever f is, obeys the domain rule
        # and holds for every sign of the parameters (docs/domain.md); the
        # stage that refused is the last one recorded.
        refused = (evidence.jump_refusal(stages) or evidence.domain_refusal(stages)
                   or evidence.parameter_refusal(stages))
        return None if refused is None else check.finish(Verdict.WRONG, check.last_stage,
                                                         refused)

    def accept(stage: str, reason: str, confidence: Confidence) -> CheckResult:
        return refusal() or check.finish(Verdict.CORRECT, stage, {"reason": reason},
                                         confidence)

    start = time.perf_counter()
    residual = evidence.derivative - evidence.integrand
    structural = zero_almost_everywhere(residual, ask_assumptions=False)
    check.record("structural", "ok", start, is_zero=structural)
    if structural:
        return accept("structural", "structural", Confidence.SYMBOLIC)

    # Where F' and f agree in doubles at the screen's complex points
    # (first_look.agree), it would find no difference: the normal form goes first,
    # and a proved answer pays for no multi-precision evaluation at all. An
    # unproved one still meets the screen; nothing is decided on doubles.
    fast: dict[str, Any] | None = None
    start = time.perf_counter()
    agreeing = evidence.agrees_in_doubles()
    if agreeing:
        fast = _fast_stage(check, evidence, residual, start, doubles_agree=agreeing)
        if fast["proved"]:
            return accept("fast_proof", f"proved_by_{fast['by']}", Confidence.SYMBOLIC)
        start = time.perf_counter()
    # Else the look in doubles that found a difference is the screen's first
    # step (it chose the screen's first point), and its time the screen's.
    comparer, screen = evidence.screen()
    stages.append(StageRecord("numeric_screen", "ok", ms_since(start), screen))
    if screen["decision"] == "nonzero":
        return check.finish(Verdict.WRONG, "numeric_screen",
                            {"reason": "numeric_mismatch",
                             "worst_rel_residual": screen["worst_rel_residual"]})

    # A normal form decides most correct answers in milliseconds, and a proof
    # needs no higher-precision confirmation.
    if fast is None:
        fast = _fast_stage(check, evidence, residual, time.perf_counter())
        if fast["proved"]:
            return accept("fast_proof", f"proved_by_{fast['by']}", Confidence.SYMBOLIC)

    # The strict multi-precision test (60 and 120 digits) comes before the
    # ladder: it costs tens of milliseconds, rejects hidden tiny terms (1e-30 x)
    # before any expensive simplification, and once it passes the proof only
    # decides symbolic vs numeric-only, so it gets a bounded budget.
    confirm: dict[str, Any] = {"decision": "inconclusive"}
    if screen["decision"] in ("zero_low", "zero"):
        start = time.perf_counter()
        confirm = comparer.confirm_zero()
        stages.append(StageRecord("numeric_confirm",
                                  "ok" if confirm["decision"] == "zero" else "fail",
                                  ms_since(start), confirm))
        if confirm["decision"] == "nonzero":
            return check.finish(Verdict.WRONG, "numeric_confirm",
                                {"reason": "numeric_mismatch",
                                 "worst_rel_residual": confirm["worst_rel_residual"]})

    start = time.perf_counter()
    numerically_sure = confirm["decision"] == "zero"
    budget = deadline.remaining() * _SYMBOLIC_SHARE
    if numerically_sure:
        budget = min(budget, check.request.proof_budget_s)
    proof = symbolic_zero(residual, Deadline(budget))
    stages.append(StageRecord("symbolic_confirm", "ok" if proof["proved"] else "fail",
                              ms_since(start), proof))
    if proof["proved"]:
        return accept("symbolic_confirm", f"proved_by_{proof['by']}", Confidence.SYMBOLIC)
    if numerically_sure:
        hidden = comparer.invisible_terms(evidence.derivative, evidence.x, evidence.params)
        if hidden:
            check.record("invisible_terms", "fail", terms=hidden[:5], n=len(hidden))
            return check.finish(Verdict.WRONG, "invisible_terms", {"reason": "invisible_terms"})
        # No proof: a term can hide where no generic point looks (a steep step
        # between them); then the accept-time rules. The deciding evidence
        # is recorded last, as the trace convention wants.
        localized = evidence.localized_refusal(stages)
        if localized is not None:
            return check.finish(Verdict.WRONG, "localized", localized)
        refused = refusal()
        if refused is not None:
            return refused
        check.record("numeric_accept", decision="zero", levels=confirm["levels"],
                     worst_rel_residual=confirm["worst_rel_residual"],
                     symbolic_outcome=proof["outcome"])
        return check.finish(Verdict.CORRECT, "numeric_accept",
                            {"reason": "numeric_only", "symbolic_outcome": proof["outcome"],
                             **evidence.guarantee(confirm)},
                            Confidence.NUMERIC_ONLY)
    if proof["outcome"] in ("timeout", "partial_timeout") or deadline.expired():
        return check.finish(Verdict.TIMEOUT, "symbolic_confirm", {"reason": "timeout"})
    # Neither evaluable nor provable: never accept what nothing supports.
    return check.finish(Verdict.WRONG, "symbolic_confirm", {"reason": "unverifiable"})


def _fast_stage(check: Check, evidence: Evidence, residual: sp.Expr, start: float,
                **note: Any) -> dict[str, Any]:
    """The normal-form proof of ``residual`` = 0, recorded as ``fast_proof``."""
    fast = fast_proof(residual, evidence.x,
                      min(CAPS.fast_proof_seconds, check.deadline.remaining()))
    check.stages.append(StageRecord("fast_proof", "ok" if fast["proved"] else "fail",
                                    ms_since(start), {**fast, **note}))
    return fast


def _agree(check: Check, result: CheckResult, alternatives: list[str], integrand: Any,
           input_kind: InputKind) -> CheckResult:
    """All final answers of a response must be antiderivatives (then they
    agree up to a constant); otherwise the response hedges. The others are
    checked only when the chosen one is CORRECT: a wrong or unreadable chosen
    answer already makes the hedge WRONG."""
    seen: list[dict[str, Any]] = []
    worst = result
    if result.verdict is Verdict.CORRECT:
        request = check.request.replace(timeout_s=max(check.deadline.remaining(), 1e-3),
                                        symbol=check.symbol)
        for text in alternatives:
            other = check_antiderivative(text, integrand, request, input_kind=input_kind)
            seen.append({"answer": text[:300], "verdict": other.verdict.value,
                         "reason": other.reason, "confidence": other.confidence.value})
            if other.verdict is not Verdict.CORRECT:
                worst = other
                break
            if other.confidence is Confidence.NUMERIC_ONLY:
                worst = other
    data = {"answers": 1 + len(alternatives), "chosen": result.verdict.value, "others": seen}
    if worst.verdict is Verdict.CORRECT:
        check.record("agreement", **data)
        return check.finish(Verdict.CORRECT, "agreement",
                            {**result.detail, "agreement": len(alternatives) + 1},
                            worst.confidence)
    check.record("agreement", "fail", **data)
    if worst.verdict in (Verdict.TIMEOUT, Verdict.CHECKER_ERROR):
        return check.finish(worst.verdict, "agreement", {"reason": worst.reason})
    return check.finish(Verdict.WRONG, "agreement",
                        {"reason": "hedged", "hedge": "answers_disagree",
                         "chosen_reason": result.reason})


def warm_up() -> None:
    """Ready this process for checks: the LaTeX parser's prediction cache
    (the first parse in a process takes ~200 ms, each new shape of answer
    tens of ms), the compiled evaluators' namespaces (numpy's took 0.23 s in
    a first breakpoint search) and one check. A worker initializer calls it."""
    from .evidence.lambdify import warm_up as warm_up_evaluators
    from .parse.latex.grammar import warm_up as warm_up_parser

    warm_up_parser()
    warm_up_evaluators()
    check_antiderivative(r"\frac{x^{2}}{2}", "x", timeout_s=30)


__all__ = ["STAGES", "check_antiderivative", "warm_up"]
