"""The proof ladder: what the fast proof (:mod:`.fast`) cannot prove goes to
:func:`symbolic_zero`, SymPy's general transforms, cheapest first,
each under its own time box (a signal timer on a worker's main thread, see
:mod:`.timebox`), stopping at the first proof. ``simplify`` comes last: it is
the slowest and, on a wrong answer, the one most likely to run for minutes.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sympy as sp

from ..function_facts import INVERSE_TRIG, TRIG
from ..timebox import Deadline, StepTimeout, time_limit
from .fast import zero_almost_everywhere

# Time the ladder gets once the strict numeric test has passed (it then only
# decides symbolic vs numeric-only). Measured with 0.25 s: of ~2,600 correct
# Rubi and reasoning-gym answers (benchmarks accuracy, seeds 0 and 7) the
# ladder proved 2 (simplify); the ~150 the fast path leaves each spent the
# whole budget. A larger one buys little and costs the 99th percentile.
LADDER_BUDGET_S = 0.1



def _always(expr: sp.Expr) -> bool:
    return True


def _has_trig(expr: sp.Expr) -> bool:
    return expr.has(*TRIG) or expr.has(*INVERSE_TRIG) or expr.has(sp.exp)


def _has_log(expr: sp.Expr) -> bool:
    return expr.has(sp.log)


def _has_radical(expr: sp.Expr) -> bool:
    return any(isinstance(p.exp, sp.Rational) and not p.exp.is_Integer
               for p in expr.atoms(sp.Pow))


def _has_special(expr: sp.Expr) -> bool:
    return any(isinstance(f, sp.Function) and not isinstance(f, (*TRIG, *INVERSE_TRIG, sp.exp,
                                                                   sp.log, sp.Abs, sp.sign))
               for f in expr.atoms(sp.Function))


# (name, transform, applies-to predicate, share of the remaining budget).
# A rung that cannot apply (trigsimp on a rational function) is skipped: on
# a hard true identity every rung runs, so wasted rungs cost real seconds.
# The fast path already covers what expand, cancel, together and an exp
# rewrite can prove; the ladder keeps the transforms it has no counterpart of.
LADDER: tuple[tuple[str, Callable[[sp.Expr], sp.Expr], Callable[[sp.Expr], bool], float], ...] = (
    ("trigsimp", sp.trigsimp, _has_trig, 0.25),
    ("logcombine", lambda e: sp.expand(sp.logcombine(e, force=True)), _has_log, 0.15),
    ("powsimp", lambda e: sp.expand(sp.powsimp(e, force=True)), _has_radical, 0.15),
    ("radsimp", lambda e: sp.cancel(sp.radsimp(e)), _has_radical, 0.2),
    # polylog(1, z), lowergamma(1/2, x), ... into elementary functions.
    ("expand_func", lambda e: sp.cancel(sp.expand(sp.expand_func(e))), _has_special, 0.2),
    ("simplify", sp.simplify, _always, 1.0),
)


def symbolic_zero(residual: sp.Expr, deadline: Deadline,
                  step_cap_s: float | None = None) -> dict[str, Any]:
    """Try to prove ``residual == 0``; returns the stage data.

    ``proved`` is True with the transform that proved it, else False with
    ``outcome`` ok (every rung tried, none proved), timeout (the deadline
    ran out) or error. A False is never evidence of a wrong answer: SymPy
    fails to prove many true identities (``.equals()`` even returns False
    for ``diff(log|x|)`` vs ``1/x``), so the caller decides with the numeric
    evidence.
    """
    tried: list[dict[str, Any]] = []
    outcome = "ok"
    for name, transform, applies, share in LADDER:
        if not applies(residual):
            continue
        remaining = deadline.remaining()
        if remaining <= 0.01:
            outcome = "timeout"
            break
        budget = remaining * share
        if step_cap_s is not None:
            budget = min(budget, step_cap_s)
        started = time.perf_counter()
        try:
            with time_limit(budget):
                proved = zero_almost_everywhere(transform(residual))
        except StepTimeout:
            tried.append({"step": name, "ms": _ms(started), "result": "timeout"})
            continue
        except (RecursionError, MemoryError) as exc:
            tried.append({"step": name, "ms": _ms(started), "result": type(exc).__name__})
            continue
        except Exception as exc:  # noqa: BLE001 - SymPy raises many kinds on odd input
            tried.append({"step": name, "ms": _ms(started),
                          "result": f"error: {type(exc).__name__}"})
            continue
        tried.append({"step": name, "ms": _ms(started), "result": bool(proved)})
        if proved:
            return {"proved": True, "by": name, "outcome": "ok", "tried": tried}
    if outcome == "ok" and any(t["result"] == "timeout" for t in tried):
        outcome = "partial_timeout"
    return {"proved": False, "by": None, "outcome": outcome, "tried": tried}


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
