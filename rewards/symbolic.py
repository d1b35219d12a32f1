"""Symbolic proof that F' - f is zero: cheapest transforms first.

Each transform runs under its own time box (a signal timer on a worker's
main thread, see :mod:`rewards.timebox`) and the ladder stops at the first
proof. ``simplify`` comes last: it is the slowest and, on a wrong answer,
the one most likely to run for minutes.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sympy as sp

from .timebox import Deadline, StepTimeout, time_limit


def zero_almost_everywhere(expr: sp.Expr | None) -> bool:
    """True when expr is zero except possibly on a measure-zero set.

    ``simplify(diff(log(Abs(x))) - 1/x)`` yields
    ``Piecewise((zoo, Eq(x, 0)), (0, True))``: zero everywhere except the
    singularity. A plain ``is_zero`` returns None for that, so the generic
    branch has to be inspected directly.
    """
    if expr is None:
        return False
    try:
        if expr == 0 or expr.is_zero:
            return True
    except (TypeError, AttributeError, RecursionError):
        return False
    if isinstance(expr, sp.Piecewise):
        generic = [e for e, cond in expr.args if cond == sp.true]
        if generic and all(e == 0 or bool(e.is_zero) for e in generic):
            return True
    return False


def _rewrite_exp(expr: sp.Expr) -> sp.Expr:
    # Trig and hyperbolic identities (sin^2 + cos^2, cosh^2 - sinh^2, double
    # angles) become polynomial identities in exp(i x), which cancel proves.
    return sp.cancel(sp.expand(expr.rewrite(sp.exp)))


# (name, transform, share of the remaining budget it may take at most)
LADDER: tuple[tuple[str, Callable[[sp.Expr], sp.Expr], float], ...] = (
    ("expand", sp.expand, 0.15),
    ("cancel", sp.cancel, 0.15),
    ("together_expand", lambda e: sp.expand(sp.together(e)), 0.15),
    ("rewrite_exp", _rewrite_exp, 0.25),
    ("trigsimp", sp.trigsimp, 0.25),
    ("logcombine", lambda e: sp.expand(sp.logcombine(e, force=True)), 0.15),
    ("powsimp", lambda e: sp.expand(sp.powsimp(e, force=True)), 0.15),
    ("radsimp", lambda e: sp.cancel(sp.radsimp(e)), 0.2),
    # polylog(1, z), lowergamma(1/2, x), ... into elementary functions.
    ("expand_func", lambda e: sp.cancel(sp.expand(sp.expand_func(e))), 0.2),
    ("simplify", sp.simplify, 1.0),
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
    for name, transform, share in LADDER:
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
