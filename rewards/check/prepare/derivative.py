"""F', symbolically: exact across branch cuts, needing no analyticity, and
additive integration constants vanish here for free."""
from __future__ import annotations

import time

import sympy as sp
from sympy.core.function import AppliedUndef

from ..context import Check
from ..evidence.continuity import drop_steps
from ..result import Verdict, show


def derivative_stage(check: Check, answer: sp.Expr, x: sp.Symbol,
                     allowed: set[sp.Symbol]) -> sp.Expr:
    """The ``differentiate`` stage (terms a step of F leaves dropped: see
    :func:`~rewards.check.evidence.continuity.drop_steps`), then what differentiation could not do
    (``differentiable``: ``Derivative(floor(x), x)`` or an undefined ``F(x)``
    leave nothing to compare or evaluate) and symbols it left behind
    (``residual_symbols``); returns F'."""
    start = time.perf_counter()
    if answer.has(sp.frac):
        # frac(u) = u - floor(u): its derivative is u' off the steps.
        answer = answer.replace(sp.frac, lambda u: u - sp.floor(u))
    derivative, stepped = drop_steps(sp.diff(answer, x))
    # The terms a step leaves (DiracDelta, floor') are zero off the steps;
    # whether F jumps there is the continuity check's, before any accept.
    check.record("differentiate", "ok", start, out=show(derivative),
                 **({"steps_dropped": True} if stepped else {}))
    undefined = sorted({str(f.func) for f in derivative.atoms(AppliedUndef)})
    if derivative.has(sp.Derivative) or undefined:
        reason = "undefined_function" if undefined else "not_differentiable"
        check.record("differentiable", "fail", reason=reason, functions=undefined)
        check.decide(Verdict.WRONG, reason)
    extra = sorted(s.name for s in derivative.free_symbols if s not in allowed)
    if extra:
        check.record("residual_symbols", "fail", symbols=extra, when="after_diff")
        check.decide(Verdict.WRONG, "residual_symbols", symbols=extra)
    check.deadline.check()
    return derivative
