"""The fast, decisive proof: :func:`fast_proof` maps the residual F' - f to
a normal form (:mod:`.normal_form`) in which elementary identities
(exp/log/trig/hyperbolic, their inverses, radicals as algebraic symbols)
become polynomial identities: milliseconds, and it proves nearly every
elementary antiderivative. What it cannot prove goes to the ladder
(:mod:`.ladder`)."""
from __future__ import annotations

from typing import Any

import sympy as sp

from .normal_form import prove_zero


def fast_proof(residual: sp.Expr, x: sp.Symbol, budget_s: float) -> dict[str, Any]:
    """The normal-form proof; returns the stage data (``proved``, ``by``: the
    rung that proved it, ``tried``)."""
    attempt = prove_zero(residual, x, budget_s)
    return {"proved": attempt.proved, "by": attempt.rung,
            "tried": [{"step": step, "ms": ms, "result": result}
                      for step, ms, result in attempt.tried]}


def zero_almost_everywhere(expr: sp.Expr | None, *, ask_assumptions: bool = True) -> bool:
    """True when expr is zero except possibly on a measure-zero set.

    ``simplify(diff(log(Abs(x))) - 1/x)`` yields
    ``Piecewise((zoo, Eq(x, 0)), (0, True))``: zero everywhere except the
    singularity. A plain ``is_zero`` returns None for that, so the generic
    branch has to be inspected directly.

    ``ask_assumptions=False`` (the structural stage): only what cancelled
    when it was built. ``is_zero`` on a whole residual asks every term for
    its zero-ness, sign and reality, a tenth of a wrong answer's check, and
    where it can say True the normal form proves it milliseconds later.
    """
    if expr is None:
        return False

    def zero(e: sp.Expr) -> bool:
        return e == 0 or (ask_assumptions and bool(e.is_zero))

    try:
        if zero(expr):
            return True
    except (TypeError, AttributeError, RecursionError):
        return False
    if isinstance(expr, sp.Piecewise):
        generic = [e for e, cond in expr.args if cond == sp.true]
        if generic and all(zero(e) for e in generic):
            return True
    return False
