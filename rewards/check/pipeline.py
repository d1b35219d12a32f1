"""The staged antiderivative checker: is F an antiderivative of f?

Symbolic-first: differentiate the candidate with SymPy and compare it with
the integrand, through stages that each leave a record, in this order:

    candidate_extract (responses only) -> candidate_parse -> integrand_parse
    -> constants / residual_symbols -> normalize -> differentiate
    -> differentiable -> residual_symbols (after) -> [memo] -> structural
    -> numeric_screen -> fast_proof -> numeric_confirm -> symbolic_confirm
    [-> domain] [-> invisible_terms | numeric_accept] [-> agreement]

``result.stages[-1]`` is, by construction, the stage that decided (or broke).
The function is pure (no I/O, no globals beyond caches of parsed integrands)
and never raises: bad input is a verdict with a reason.
"""
from __future__ import annotations

import random
import time
import traceback
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Literal

import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import ParseFailure
from .evidence.domain import DomainReport, analyze, restricts_domain
from .evidence.numeric import NumericComparer, sampling_mode
from .evidence.points import complex_points, parameter_values, seed_for, structure_digest
from .extract import (
    DEFAULT_POLICY,
    AnswerPolicy,
    BoxPolicy,
    Extraction,
    ExtractionStatus,
    answer_flags,
    extract_answer,
)
from .parse import parse_answer, parse_integrand
from .parse.names import is_constant_name, valid_variable_name
from .prepare.normalize import bind_real, drop_additive_constants, normalize, piecewise_refusal
from .proof.ladder import (
    FAST_PROOF_BUDGET_S,
    LADDER_BUDGET_S,
    fast_proof,
    symbolic_zero,
    zero_almost_everywhere,
)
from .result import CheckResult, Confidence, StageRecord, Verdict, ms_since, show
from .timebox import Deadline, StepTimeout, time_limit

# Every stage name a CheckResult can hold, in the order the stages run.
STAGES = ("symbol", "candidate_extract", "candidate_ingest", "candidate_parse", "integrand_parse",
          "constants", "residual_symbols", "normalize", "differentiate", "differentiable",
          "structural", "numeric_screen", "fast_proof", "numeric_confirm", "symbolic_confirm",
          "invisible_terms", "domain", "numeric_accept", "memo", "agreement", "resources", "deadline",
          "unexpected",
          # set by the worker pool for samples no worker reported on
          "pool", "watchdog", "worker_crash")

InputKind = Literal["response", "latex", "sympy", "expr"]
AnswerSyntax = Literal["auto", "latex", "sympy"]

# Share of the remaining budget the symbolic ladder may use; the rest is
# kept for the high-precision numeric confirmation of an unproven answer.
_SYMBOLIC_SHARE = 0.75
# Functions whose branch cuts can make a correct real-line answer disagree
# with the integrand at complex points.
_BRANCHY = (sp.log, sp.Pow, sp.atan, sp.asin, sp.acos, sp.acot, sp.asinh, sp.acosh, sp.atanh,
            sp.acoth, sp.asec, sp.acsc)


class _Decided(Exception):
    """Carries an early verdict out of the stage sequence."""

    def __init__(self, verdict: Verdict, reason: str, **detail: Any) -> None:
        super().__init__(reason)
        self.verdict = verdict
        detail.pop("total_ms", None)  # finish() measures the whole check
        self.detail = {"reason": reason, **detail}


def extraction_stage(extraction: Extraction, ms: float) -> StageRecord:
    """The ``candidate_extract`` record, the same whether the checker or the
    reward (which extracts in the parent to deduplicate answers) extracted:
    the policy that applied, every final answer found, which one won."""
    ok = extraction.status is ExtractionStatus.OK
    data = extraction.to_dict()
    data["chosen"] = data.pop("value")
    if not ok:
        data["message"] = data.pop("detail")
    return StageRecord("candidate_extract", "ok" if ok else "fail", ms, data)


def _extraction_verdict(status: str) -> Verdict:
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
    return CheckResult(_extraction_verdict(status), "candidate_extract", [record], detail)


def answers_to_check(extraction: Extraction) -> tuple[str, tuple[str, ...]]:
    """The answer to judge and the other final answers that must agree with it."""
    texts = extraction.distinct_texts if extraction.needs_agreement_check else ()
    return extraction.value, tuple(texts[1:])


def _ingest_candidate(candidate: Any, kind: str, symbol: str, stages: list[StageRecord],
                      policy: AnswerPolicy, answer_syntax: str,
                      alternatives: list[str], context: frozenset[str] = frozenset()) -> sp.Expr:
    if isinstance(candidate, sp.Expr) or kind == "expr":
        if not isinstance(candidate, sp.Expr):
            raise ParseFailure("not_an_expression", f"expected a SymPy Expr, got "
                                                    f"{type(candidate).__name__}")
        stages.append(StageRecord("candidate_ingest", data={"kind": "expr",
                                                            "out": show(candidate)}))
        return candidate
    if kind == "response":
        start = time.perf_counter()
        extraction = extract_answer(candidate, policy=policy)
        record = extraction_stage(extraction, ms_since(start))
        stages.append(record)
        if extraction.status is not ExtractionStatus.OK:
            decided = unextracted_result(record)
            raise _Decided(decided.verdict, **decided.detail)
        candidate, others = answers_to_check(extraction)
        alternatives.extend(others)
        kind = answer_syntax
    elif isinstance(candidate, str):
        # Already-extracted text gets the answer policy's hedge and qualifier
        # rules too: "\sin x \text{ for } x > 0" is not silently "\sin x".
        _refuse_hedges_and_qualifiers(candidate, policy, stages)
    if not isinstance(candidate, str):
        raise ParseFailure("not_text", f"candidate is {type(candidate).__name__}")
    if not candidate.strip():
        raise ParseFailure("empty", "no candidate text")
    return parse_answer(candidate, kind, symbol, stages, "candidate", context)


def _refuse_hedges_and_qualifiers(text: str, policy: AnswerPolicy,
                                  stages: list[StageRecord]) -> None:
    hedges, qualifiers = answer_flags(text)
    if hedges and policy.hedge == "reject":
        stages.append(StageRecord("candidate_ingest", "fail", data={"hedges": list(hedges)}))
        raise _Decided(Verdict.WRONG, "hedged", hedge=hedges[0])
    if qualifiers and policy.qualifiers == "reject":
        stages.append(StageRecord("candidate_ingest", "fail",
                                  data={"qualifiers": list(qualifiers)}))
        raise ParseFailure(f"qualified_answer:{qualifiers[0]}",
                           f"a conditional answer is not graded ({', '.join(qualifiers)})")


def _integrand_names(integrand: Any, kind: str, symbol: str) -> frozenset[str]:
    """The integrand's own names, which the answer's parser reads letters
    written together against (``xe^x``); a failure is reported later, by
    the integrand_parse stage (the parse is cached)."""
    try:
        expr = integrand if isinstance(integrand, sp.Expr) else parse_integrand(
            integrand, "latex" if kind == "latex" else "sympy", symbol)
    except (ParseFailure, TypeError, AttributeError):
        return frozenset()
    return frozenset(s.name for s in expr.free_symbols)


def _ingest_integrand(integrand: Any, kind: str, symbol: str,
                      stages: list[StageRecord]) -> sp.Expr:
    start = time.perf_counter()
    try:
        if isinstance(integrand, sp.Expr):
            expr = integrand
        elif not isinstance(integrand, str) or not integrand.strip():
            raise ParseFailure("integrand_missing", "no integrand given")
        else:
            expr = parse_integrand(integrand, "latex" if kind == "latex" else "sympy", symbol)
    except ParseFailure as exc:
        stages.append(StageRecord("integrand_parse", status="fail", ms=ms_since(start),
                                  data={"in": str(integrand)[:300], "reason": exc.reason,
                                        "message": exc.message[:300]}))
        # Not the model's fault: a CHECKER_ERROR, which shaping can leave
        # out of the gradient, rather than a penalty on the policy.
        reason = exc.reason if exc.reason.startswith("integrand_") else "integrand_unparseable"
        raise _Decided(Verdict.CHECKER_ERROR, reason, message=exc.message) from None
    stages.append(StageRecord("integrand_parse", ms=ms_since(start), data={"out": show(expr)}))
    return expr


def check_antiderivative(
    candidate: str | sp.Expr,
    integrand: str | sp.Expr,
    *,
    symbol: str = "x",
    timeout_s: float = 10.0,
    input_kind: InputKind = "latex",
    integrand_kind: InputKind = "sympy",
    box_policy: BoxPolicy | str = BoxPolicy.LAST,
    math_fallback: bool = False,
    answer_policy: AnswerPolicy | None = None,
    answer_syntax: AnswerSyntax = "auto",
    proof_budget_s: float = LADDER_BUDGET_S,
    alternatives: Sequence[str] = (),
    memo: JudgementMemo | None = None,
) -> CheckResult:
    """Decide whether ``candidate`` is an antiderivative of ``integrand``.

    ``input_kind`` selects how ``candidate`` is read:
      response -- raw model output; the final answer is extracted first
                  under ``answer_policy`` (default: the RL policy of
                  :mod:`.extract` with ``box_policy`` and ``math_fallback``:
                  text after the reasoning, every final ``\\boxed{}`` and
                  ``<answer>`` tag must agree, no hedges or qualifiers), then
                  parsed as ``answer_syntax`` (auto: SymPy syntax when the
                  text has no backslash or brace, else LaTeX)
      latex    -- already-extracted LaTeX
      sympy    -- a Python/SymPy-syntax string (parsed without eval)
      expr     -- an existing SymPy Expr

    ``alternatives`` are other final answers of the same response: each must
    be an antiderivative too (so they agree up to a constant), otherwise the
    response hedges and is WRONG with reason ``hedged``. A response's own
    alternatives are found by extraction.

    ``memo`` (a :class:`JudgementMemo`, kept by each worker process) reuses
    the verdict of an earlier answer with the same derivative against the
    same integrand: ``F``, ``F + C`` and ``F + 7`` are judged once.

    ``timeout_s`` bounds the whole check from inside this process (signal
    timers on a main thread, cooperative checks elsewhere). Once the strict
    numeric test has passed, the symbolic proof gets at most
    ``proof_budget_s``: it then only decides symbolic vs numeric-only.

    >>> check_antiderivative(r"\\frac{x^{2}}{2} + C", "x").verdict.value
    'CORRECT'
    >>> check_antiderivative(r"\\boxed{-\\cos x + C}", "sin(x)", input_kind="response").correct
    True
    >>> check_antiderivative("x**2/2 + y", "x", input_kind="sympy").reason
    'residual_symbols'
    >>> check_antiderivative(r"\\boxed{x^2/2} or \\boxed{x^2}", "x", input_kind="response").reason
    'hedged'
    """
    stages: list[StageRecord] = []
    started = time.perf_counter()
    deadline = Deadline(timeout_s)

    def finish(verdict: Verdict, stage: str, detail: dict[str, Any] | None = None,
               confidence: Confidence = Confidence.NONE) -> CheckResult:
        detail = dict(detail or {})
        detail["total_ms"] = round(ms_since(started), 3)
        return CheckResult(verdict, stage, stages, detail, confidence)

    policy = answer_policy or DEFAULT_POLICY.replace(
        box_policy=BoxPolicy(box_policy), math_fallback=bool(math_fallback))
    others = list(alternatives)
    result = _checked(candidate, integrand, symbol, input_kind, integrand_kind, policy,
                      answer_syntax, proof_budget_s, stages, deadline, finish, timeout_s, others,
                      memo)
    if not others:
        return result
    syntax = answer_syntax if input_kind == "response" else input_kind
    return _agree(result, others, integrand, symbol=symbol, syntax=syntax,
                  integrand_kind=integrand_kind, proof_budget_s=proof_budget_s,
                  deadline=deadline, finish=finish)


def _checked(candidate, integrand, symbol, input_kind, integrand_kind, policy, answer_syntax,
             proof_budget_s, stages, deadline, finish, timeout_s, others, memo) -> CheckResult:
    """The stages under the check's time limit, every way out a verdict."""
    try:
        with time_limit(max(timeout_s, 1e-3)):
            return _run_stages(candidate, integrand, symbol, input_kind, integrand_kind,
                               policy, answer_syntax, proof_budget_s, stages, deadline, finish,
                               others, memo)
    except _Decided as decided:
        return finish(decided.verdict, stages[-1].stage if stages else "candidate_ingest", decided.detail)
    except ParseFailure as exc:
        return finish(Verdict.UNPARSEABLE, stages[-1].stage if stages else "candidate_ingest",
                      {"reason": exc.reason, "message": exc.message[:500]})
    except StepTimeout:
        stage = stages[-1].stage if stages else "candidate_ingest"
        stages.append(StageRecord("deadline", status="fail",
                                  data={"timeout_s": timeout_s, "after_stage": stage}))
        return finish(Verdict.TIMEOUT, "deadline", {"reason": "timeout", "timeout_s": timeout_s})
    except (RecursionError, MemoryError) as exc:
        # Pathological input, not a checker bug: a deep tree or a huge
        # expansion. The answer could not be judged in the resources given.
        stages.append(StageRecord("resources", status="fail",
                                  data={"error": type(exc).__name__}))
        return finish(Verdict.UNPARSEABLE, "resources", {"reason": "too_complex",
                                                         "message": type(exc).__name__})
    except Exception as exc:  # noqa: BLE001 - a bug in us must not reach the trainer
        stages.append(StageRecord("unexpected", status="fail",
                                  data={"error": f"{type(exc).__name__}: {exc}"[:500]}))
        return finish(Verdict.CHECKER_ERROR, "unexpected",
                      {"reason": "exception", "error": f"{type(exc).__name__}: {exc}"[:500],
                       "traceback": traceback.format_exc()[-4000:]})


def _agree(result: CheckResult, alternatives: list[str], integrand: Any, *, symbol: str,
           syntax: str, integrand_kind: str, proof_budget_s: float, deadline: Deadline,
           finish: Any) -> CheckResult:
    """All final answers of a response must be antiderivatives (then they
    agree up to a constant); otherwise the response hedges.

    The other answers are checked only when the chosen one is CORRECT: a
    wrong or unreadable chosen answer already makes the hedge WRONG.
    """
    stages = result.stages
    if result.verdict in (Verdict.TIMEOUT, Verdict.CHECKER_ERROR):
        return result
    seen: list[dict[str, Any]] = []
    worst = result
    if result.verdict is Verdict.CORRECT:
        for text in alternatives:
            other = check_antiderivative(
                text, integrand, symbol=symbol, timeout_s=max(deadline.remaining(), 1e-3),
                input_kind=syntax, integrand_kind=integrand_kind, proof_budget_s=proof_budget_s)
            seen.append({"answer": text[:300], "verdict": other.verdict.value,
                         "reason": other.reason, "confidence": other.confidence.value})
            if other.verdict is not Verdict.CORRECT:
                worst = other
                break
            if other.confidence is Confidence.NUMERIC_ONLY:
                worst = other
    data = {"answers": 1 + len(alternatives), "chosen": result.verdict.value, "others": seen}
    if worst.verdict is Verdict.CORRECT:
        stages.append(StageRecord("agreement", data=data))
        return finish(Verdict.CORRECT, "agreement",
                      {**result.detail, "agreement": len(alternatives) + 1},
                      worst.confidence)
    stages.append(StageRecord("agreement", status="fail", data=data))
    if worst.verdict in (Verdict.TIMEOUT, Verdict.CHECKER_ERROR):
        return finish(worst.verdict, "agreement", {"reason": worst.reason})
    return finish(Verdict.WRONG, "agreement",
                  {"reason": "hedged", "hedge": "answers_disagree",
                   "chosen_reason": result.reason})


def _run_stages(candidate, integrand, symbol, input_kind, integrand_kind, policy,
                answer_syntax, proof_budget_s, stages, deadline, finish,
                alternatives, memo) -> CheckResult:
    # --- the variable: data from the dataset, so a bad one is our error ----
    if not valid_variable_name(symbol):
        stages.append(StageRecord("symbol", status="fail", data={"symbol": repr(symbol)[:60]}))
        return finish(Verdict.CHECKER_ERROR, "symbol",
                      {"reason": "invalid_symbol", "symbol": repr(symbol)[:60]})
    # --- ingest -----------------------------------------------------------
    candidate_expr = _ingest_candidate(candidate, input_kind, symbol, stages, policy,
                                       answer_syntax, alternatives,
                                       _integrand_names(integrand, integrand_kind, symbol))
    integrand_expr = _ingest_integrand(integrand, integrand_kind, symbol, stages)
    deadline.check()

    # --- constants: checked BEFORE differentiating ------------------------
    # ``x**2/2 + y`` differentiates to the right thing, yet y is not the
    # variable and not an integration constant: a free parameter the policy
    # could use to smuggle anything in. Only additive constants may go.
    start = time.perf_counter()
    params = {s.name for s in integrand_expr.free_symbols if s.name != symbol}
    rules: list[str] = []
    # The variable is never a constant, even when named c or C.
    candidate_expr = drop_additive_constants(candidate_expr, params | {symbol}, rules)
    extra = sorted(s.name for s in candidate_expr.free_symbols
                   if s.name != symbol and s.name not in params)
    if extra:
        kind = ("misplaced_constant" if all(is_constant_name(n) for n in extra)
                else "extra_symbols")
        stages.append(StageRecord("residual_symbols", status="fail", ms=ms_since(start),
                                  data={"symbols": extra, "kind": kind, "when": "before_diff"}))
        return finish(Verdict.WRONG, "residual_symbols",
                      {"reason": "residual_symbols", "symbols": extra})
    if candidate_expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        stages.append(StageRecord("constants", status="fail", ms=ms_since(start),
                                  data={"reason": "non_finite"}))
        return finish(Verdict.WRONG, "constants", {"reason": "non_finite"})
    stages.append(StageRecord("constants", ms=ms_since(start),
                              data={"rules_applied": rules, "parameters": sorted(params)}))
    # As parsed: the domain rule reads the answer as written (e^{2 ln x} is
    # undefined for x < 0), before rebinding the variable evaluates it away.
    written, parsed_integrand = candidate_expr, integrand_expr

    # --- real symbol + normalize ------------------------------------------
    start = time.perf_counter()
    real_symbol = sp.Symbol(symbol, real=True)
    # Parameters are taken real and positive, the usual reading of "a" in a
    # table of integrals; the numeric screen samples them at fixed values.
    param_symbols = {p: sp.Symbol(p, positive=True) for p in params}
    rules = ["bind_real_symbol"]
    mapping = {s: param_symbols[s.name] for s in integrand_expr.free_symbols
               if s.name in param_symbols}
    candidate_expr = bind_real(candidate_expr.xreplace(
        {s: param_symbols[s.name] for s in candidate_expr.free_symbols
         if s.name in param_symbols}), symbol, real_symbol)
    integrand_expr = bind_real(integrand_expr.xreplace(mapping), symbol, real_symbol)
    try:
        candidate_expr = normalize(candidate_expr, rules)
        integrand_expr = normalize(integrand_expr, [])
        refused = piecewise_refusal(candidate_expr, integrand_expr, real_symbol)
    except ParseFailure as exc:
        stages.append(StageRecord("normalize", status="fail", ms=ms_since(start),
                                  data={"rules_applied": rules, "reason": exc.reason}))
        raise
    if refused:
        # A cases answer silent on part of the domain, or wrong on a piece.
        stages.append(StageRecord("normalize", status="fail", ms=ms_since(start),
                                  data={"rules_applied": rules, **refused}))
        return finish(Verdict.WRONG, "normalize", refused)
    stages.append(StageRecord("normalize", ms=ms_since(start),
                              data={"rules_applied": rules, "out": show(candidate_expr)}))
    deadline.check()

    # --- differentiate ----------------------------------------------------
    # Symbolic, not numeric: exact across branch cuts, needs no analyticity,
    # and additive integration constants vanish here for free.
    start = time.perf_counter()
    derivative = sp.diff(candidate_expr, real_symbol)
    stages.append(StageRecord("differentiate", ms=ms_since(start),
                              data={"out": show(derivative)}))

    # --- what differentiation could not do --------------------------------
    # Derivative(floor(x), x) or an undefined F(x): no derivative to compare,
    # and nothing a numeric screen could evaluate.
    undefined = sorted({str(f.func) for f in derivative.atoms(AppliedUndef)})
    if derivative.has(sp.Derivative) or undefined:
        reason = "undefined_function" if undefined else "not_differentiable"
        stages.append(StageRecord("differentiable", status="fail",
                                  data={"reason": reason, "functions": undefined}))
        return finish(Verdict.WRONG, "differentiable", {"reason": reason})

    # --- residual free symbols after differentiation ----------------------
    allowed = {real_symbol, *param_symbols.values()}
    extra_after = sorted(s.name for s in derivative.free_symbols if s not in allowed)
    if extra_after:
        stages.append(StageRecord("residual_symbols", status="fail",
                                  data={"symbols": extra_after, "when": "after_diff"}))
        return finish(Verdict.WRONG, "residual_symbols",
                      {"reason": "residual_symbols", "symbols": extra_after})
    deadline.check()

    def judge() -> CheckResult:
        evidence = _Evidence(written, parsed_integrand, symbol, derivative, integrand_expr,
                             real_symbol, sorted(param_symbols.values(), key=lambda s: s.name),
                             deadline)

        def accept(stage: str, detail: dict[str, Any], confidence: Confidence) -> CheckResult:
            # An accept that rests on the real line obeys the domain rule.
            refused = evidence.domain_refusal(stages)
            if refused is not None:
                return finish(Verdict.WRONG, "domain", refused)
            return finish(Verdict.CORRECT, stage, detail, confidence)

        # --- structural zero --------------------------------------------------
        start = time.perf_counter()
        residual = derivative - integrand_expr
        structural = zero_almost_everywhere(residual)
        stages.append(StageRecord("structural", ms=ms_since(start), data={"is_zero": structural}))
        if structural:
            return accept("structural", {"reason": "structural"}, Confidence.SYMBOLIC)

        # --- numeric screen ---------------------------------------------------
        start = time.perf_counter()
        comparer, screen = evidence.screen()
        stages.append(StageRecord("numeric_screen", ms=ms_since(start), data=screen))
        if screen["decision"] == "nonzero":
            return finish(Verdict.WRONG, "numeric_screen",
                          {"reason": "numeric_mismatch",
                           "worst_rel_residual": screen["worst_rel_residual"]})

        # --- the fast proof -------------------------------------------------
        # A normal form decides most correct answers in milliseconds, and a
        # proof needs no higher-precision confirmation.
        start = time.perf_counter()
        fast = fast_proof(residual, real_symbol, min(FAST_PROOF_BUDGET_S, deadline.remaining()))
        stages.append(StageRecord("fast_proof", status="ok" if fast["proved"] else "fail",
                                  ms=ms_since(start), data=fast))
        if fast["proved"]:
            return accept("fast_proof", {"reason": f"proved_by_{fast['by']}"},
                          Confidence.SYMBOLIC)

        # --- numeric confirm, then the proof ladder --------------------------
        # The strict multi-precision test (60 and 120 digits) comes first: it
        # costs tens of milliseconds, rejects hidden tiny terms (1e-30 x) before
        # any expensive simplification, and once it passes, the proof only
        # decides between a symbolic and a numeric-only accept, so it gets a
        # bounded budget instead of everything that is left.
        confirm: dict[str, Any] = {"decision": "inconclusive"}
        if screen["decision"] in ("zero_low", "zero"):
            start = time.perf_counter()
            confirm = comparer.confirm_zero()
            stages.append(StageRecord("numeric_confirm", status="ok" if confirm["decision"] == "zero"
                                      else "fail", ms=ms_since(start), data=confirm))
            if confirm["decision"] == "nonzero":
                return finish(Verdict.WRONG, "numeric_confirm",
                              {"reason": "numeric_mismatch",
                               "worst_rel_residual": confirm["worst_rel_residual"]})

        start = time.perf_counter()
        numerically_sure = confirm["decision"] == "zero"
        budget = deadline.remaining() * _SYMBOLIC_SHARE
        if numerically_sure:
            budget = min(budget, proof_budget_s)
        proof = symbolic_zero(residual, Deadline(budget))
        stages.append(StageRecord("symbolic_confirm", status="ok" if proof["proved"] else "fail",
                                  ms=ms_since(start), data=proof))
        if proof["proved"]:
            return accept("symbolic_confirm", {"reason": f"proved_by_{proof['by']}"},
                          Confidence.SYMBOLIC)
        if numerically_sure:
            hidden = comparer.invisible_terms(derivative, real_symbol, evidence.params)
            if hidden:
                stages.append(StageRecord("invisible_terms", status="fail",
                                          data={"terms": hidden[:5], "n": len(hidden)}))
                return finish(Verdict.WRONG, "invisible_terms", {"reason": "invisible_terms"})
            # Record the deciding evidence last, as the trace convention wants.
            refused = evidence.domain_refusal(stages)
            if refused is not None:
                return finish(Verdict.WRONG, "domain", refused)
            stages.append(StageRecord("numeric_accept", data={
                "decision": "zero", "levels": confirm["levels"],
                "worst_rel_residual": confirm["worst_rel_residual"],
                "symbolic_outcome": proof["outcome"]}))
            return finish(Verdict.CORRECT, "numeric_accept",
                          {"reason": "numeric_only", "symbolic_outcome": proof["outcome"]},
                          Confidence.NUMERIC_ONLY)
        if proof["outcome"] in ("timeout", "partial_timeout") or deadline.expired():
            return finish(Verdict.TIMEOUT, "symbolic_confirm", {"reason": "timeout"})
        # Neither evaluable nor provable: never accept what nothing supports.
        return finish(Verdict.WRONG, "symbolic_confirm", {"reason": "unverifiable"})

    if memo is None:
        return judge()
    key = memo.key(derivative, integrand_expr, written)
    cached = memo.get(key)
    if cached is not None:
        verdict, stage, detail, confidence, decided = cached
        stages.append(StageRecord("memo", data={"note": "same derivative as an answer "
                                                        "judged before: its verdict"}))
        stages.extend(StageRecord.from_dict(d) for d in decided)
        return finish(verdict, stage, dict(detail), confidence)
    first = len(stages)
    result = judge()
    memo.put(key, result, stages[first:])
    return result


class JudgementMemo:
    """Verdicts by (derivative, integrand), an LRU for one worker process.

    Answers that differ by a constant have the same derivative: the second
    one skips the numeric and symbolic stages. An answer whose real reading
    matters (a logarithm, a radical: see :mod:`.domain`) is keyed by its
    written form too, without additive constants. TIMEOUT and CHECKER_ERROR
    are never kept (they depend on load, not on the answer).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, ...], tuple] = OrderedDict()

    @staticmethod
    def key(derivative: sp.Expr, integrand: sp.Expr, written: sp.Expr) -> tuple[str, ...]:
        # Structural digests, not srepr: printing each derivative again for
        # its key cost as much as the digest its sample points are seeded by.
        form = ""
        if restricts_domain(written):
            form = structure_digest(
                sp.Add(*(t for t in sp.Add.make_args(written) if t.free_symbols))).hex()
        return structure_digest(derivative, integrand).hex(), form

    def get(self, key: tuple[str, ...]) -> tuple | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: tuple[str, ...], result: CheckResult,
            decided: list[StageRecord]) -> None:
        if result.verdict in (Verdict.TIMEOUT, Verdict.CHECKER_ERROR) or self.size <= 0:
            return
        detail = {k: v for k, v in result.detail.items() if k != "total_ms"}
        self._entries[key] = (result.verdict, result.stage, detail, result.confidence,
                              [r.to_dict() for r in decided])
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)


class _Evidence:
    """The numeric side of one check: points drawn for this (answer,
    integrand) pair, the comparisons on them, and the domain rule.

    Randomness is seeded by the answer and the integrand as parsed (see
    :mod:`.sampling`), one stream per use, so each is reproducible alone.
    """

    def __init__(self, written: sp.Expr, parsed_integrand: sp.Expr, symbol: str,
                 derivative: sp.Expr, integrand: sp.Expr, real_symbol: sp.Symbol,
                 params: list[sp.Symbol], deadline: Deadline) -> None:
        self.written, self.parsed_integrand, self.symbol = written, parsed_integrand, symbol
        self.derivative, self.integrand, self.x = derivative, integrand, real_symbol
        self.params = params
        self.deadline = deadline
        # Seeded by the derivative: F and F + 7 are one answer and get the
        # same points (and one memo entry).
        self.seed = seed_for(derivative, integrand, sp.Symbol(symbol))
        self.param_values = parameter_values(random.Random(self.seed ^ 2), len(params))
        self._domain: DomainReport | None = None
        # True once the evidence for F' = f comes from the real line rather
        # than from an identity of analytic functions (complex points).
        self.on_real_line = False

    def _parameters(self) -> dict[str, str]:
        return {p.name: v for p, v in zip(self.params, self.param_values, strict=True)}

    def domain(self) -> DomainReport:
        if self._domain is None:
            self._domain = analyze(self.written, self.parsed_integrand, self.symbol,
                                   self._parameters(), random.Random(self.seed ^ 1),
                                   self.deadline)
        return self._domain

    def _comparer(self, points, usable=None, real_only=True) -> NumericComparer:
        return NumericComparer(self.derivative, self.integrand, self.x, self.params,
                               self.deadline, points, usable=usable,
                               param_values=self.param_values, real_only=real_only)

    def _real_line_comparer(self, domain: DomainReport) -> NumericComparer:
        if domain.decision == "empty":
            # An integrand real nowhere on the line (sqrt(-csch(x)^2)): its
            # complex values are compared as they are, on every point.
            return self._comparer(domain.points, real_only=False)
        return self._comparer(domain.points, domain.usable)

    def screen(self) -> tuple[NumericComparer, dict[str, Any]]:
        """The cheap first comparison, on complex points for analytic
        expressions and on the real line (domain rule applied) otherwise."""
        if sampling_mode(self.derivative, self.integrand) == "real":
            domain = self.domain()
            comparer = self._real_line_comparer(domain)
            self.on_real_line = True
            return comparer, self._real_screen(comparer, domain)
        comparer = self._comparer(complex_points(random.Random(self.seed)))
        screen = comparer.screen()
        if screen["decision"] in ("nonzero", "inconclusive") and (
                self.derivative.has(*_BRANCHY) or self.integrand.has(*_BRANCHY)):
            # A correct real-line answer can sit on another branch of sqrt/log
            # than the integrand off the real axis: judge it on the real line,
            # where both are real (breakpoints and both sides of them sampled).
            # Generic real points first: a wrong answer (the usual reason for
            # a complex mismatch) fails there, without the breakpoint search.
            quick = analyze(self.written, self.parsed_integrand, self.symbol,
                            self._parameters(), random.Random(self.seed ^ 3), self.deadline,
                            spread_only=True)
            if quick.decision != "empty":
                quick_screen = self._real_line_comparer(quick).screen()
                if quick_screen["decision"] == "nonzero":
                    screen["real_fallback"] = "nonzero"
                    return comparer, {**screen, "decision": "nonzero",
                                      "real_spread": quick_screen}
            domain = self.domain()
            real = self._real_line_comparer(domain)
            real_screen = self._real_screen(real, domain)
            screen["real_fallback"] = real_screen["decision"]
            if real_screen["decision"] in ("zero", "zero_low"):
                self.on_real_line = True
                return real, {**real_screen, "complex_decision": screen["decision"]}
        return comparer, screen

    @staticmethod
    def _real_screen(comparer: NumericComparer, domain: DomainReport) -> dict[str, Any]:
        screen = {**comparer.screen(), "domain": domain.to_dict()}
        if domain.truncated and screen["decision"] in ("zero", "zero_low"):
            # Agreement on a sample that skipped some pieces is no evidence
            # for them: only a proof may accept (padding an answer with
            # harmless kinks must not hide a wrong piece).
            screen["decision"] = "inconclusive"
            screen["note"] = "too many breakpoints to sample every piece"
        return screen

    def domain_refusal(self, stages: list[StageRecord]) -> dict[str, Any] | None:
        """``None`` when the answer may be accepted; else the WRONG detail.

        An identity of analytic functions (a structural zero, a proof, or
        agreement at complex points) needs no look: F' = f then holds for the
        principal branches everywhere, the reading of a computer algebra
        system. Evidence from the real line counts only where both sides are
        real, so it also needs F real on the whole of a component of the
        integrand's real domain; an answer real wherever the integrand is (no
        logarithm, radical or bounded inverse in it) has that already."""
        if not self.on_real_line or not restricts_domain(self.written):
            return None
        start = time.perf_counter()
        domain = self.domain()
        ok = domain.decision in ("ok", "empty")
        stages.append(StageRecord("domain", "ok" if ok else "fail", ms_since(start),
                                  domain.to_dict()))
        if ok:
            return None
        return {"reason": "partial_domain",
                "message": "the answer is real on no whole interval of the integrand's "
                           "real domain"}


__all__ = ["check_antiderivative"]
