"""Both texts in: the answer (extracted by its job, or taken as given) and
parsed, the integrand parsed. Stages ``candidate_ingest``,
``integrand_parse`` and ``candidate_parse``."""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Literal

import sympy as sp

from ..context import Check
from ..errors import ParseFailure
from ..extract import answer_flags
from ..parse import parse_answer, parse_integrand
from ..result import Shown, Verdict, safe_text, show

# What a candidate is: a whole response (its answer is extracted under the
# request's policy, by rewards.check.job), an answer already extracted under
# that policy (a job's), an answer given alone in a syntax, or a SymPy Expr.
InputKind = Literal["response", "extracted", "auto", "latex", "sympy", "expr"]


@dataclass(frozen=True)
class Ingested:
    """The answer once ingested: text and the syntax to read it in (or an Expr)."""

    value: str | sp.Expr
    syntax: str


def ingest_candidate(check: Check, candidate: Any, input_kind: InputKind) -> Ingested:
    """The answer to judge, before the variable is known."""
    request = check.request
    if isinstance(candidate, sp.Expr) or input_kind == "expr":
        if not isinstance(candidate, sp.Expr):
            raise ParseFailure("not_an_expression", f"expected a SymPy Expr, got "
                                                    f"{type(candidate).__name__}")
        check.record("candidate_ingest", kind="expr", out=Shown(candidate))
        return Ingested(candidate, "expr")
    # A whole response arrives here extracted ("extracted"): its job
    # (rewards.check.job.build_job) applied the policy once, never again here.
    if input_kind == "extracted":
        return _text(Ingested(candidate, request.answer_syntax))
    if isinstance(candidate, str):
        # An answer given alone gets the policy's hedge and qualifier rules:
        # "\sin x \text{ for } x > 0" is not silently "\sin x".
        _refuse_hedges_and_qualifiers(check, candidate)
    return _text(Ingested(candidate, input_kind))


def _text(candidate: Ingested) -> Ingested:
    if not isinstance(candidate.value, str):
        raise ParseFailure("not_text", f"candidate is {type(candidate.value).__name__}")
    if not candidate.value.strip():
        raise ParseFailure("empty", "no candidate text")
    return candidate


def _refuse_hedges_and_qualifiers(check: Check, text: str) -> None:
    policy = check.request.answer_policy
    hedges, qualifiers = answer_flags(text)
    if hedges and policy.hedge == "reject":
        check.record("candidate_ingest", "fail", hedges=list(hedges))
        check.decide(Verdict.WRONG, "hedged", hedge=hedges[0])
    if qualifiers and policy.qualifiers == "reject":
        check.record("candidate_ingest", "fail", qualifiers=list(qualifiers))
        raise ParseFailure(f"qualified_answer:{qualifiers[0]}",
                           f"a conditional answer is not graded ({', '.join(qualifiers)})")


def read_integrand(check: Check, integrand: Any) -> sp.Expr:
    """The integrand in the chosen variable. A dataset's integrand that does
    not parse is not the model's fault: CHECKER_ERROR, which shaping can leave
    out of the gradient, rather than a penalty on the policy."""
    start = time.perf_counter()
    try:
        if isinstance(integrand, sp.Expr):
            expr = integrand
        elif not isinstance(integrand, str) or not integrand.strip():
            raise ParseFailure("integrand_missing", "no integrand given")
        else:
            expr = parse_integrand(integrand, check.request.integrand_kind, check.symbol)
    except ParseFailure as exc:
        check.record("integrand_parse", "fail", start, **{"in": safe_text(integrand)[:300]},
                     reason=exc.reason, message=exc.message[:300])
        reason = exc.reason if exc.reason.startswith("integrand_") else "integrand_unparseable"
        check.decide(Verdict.CHECKER_ERROR, reason, message=exc.message)
    check.record("integrand_parse", "ok", start, out=_shown_integrand(expr))
    return expr


@functools.lru_cache(maxsize=256)
def _shown_integrand(expr: sp.Expr) -> str:
    # A GRPO group brings one integrand 8+ times: printed once.
    return show(expr)


def read_candidate(check: Check, candidate: Ingested, integrand: sp.Expr) -> sp.Expr:
    """The answer parsed in the chosen variable; letters written together
    are read against the integrand's own names (``xe^x``)."""
    if isinstance(candidate.value, sp.Expr):
        return candidate.value
    names = frozenset(s.name for s in integrand.free_symbols)
    return parse_answer(candidate.value, candidate.syntax, check.symbol, check.stages,
                        "candidate", names)
