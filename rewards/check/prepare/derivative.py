"""F', symbolically: exact across branch cuts, needing no analyticity, and
additive integration constants vanish here for free."""
from __future__ import annotations

import time

import sympy as sp
from sympy.core.function import AppliedUndef

from ..context import Check
from ..result import Verdict, show


def derivative_stage(check: Check, answer: sp.Expr, x: sp.Symbol,
                     allowed: set[sp.Symbol]) -> sp.Expr:
    """The ``differentiate`` stage, then what differentiation could not do
    (``differentiable``: ``Derivative(floor(x), x)`` or an undefined ``F(x)``
    leave nothing to compare or evaluate) and symbols it left behind
    (``residual_symbols``); returns F'."""
    start = time.perf_counter()
    derivative = sp.diff(answer, x)
    check.record("differentiate", "ok", start, out=show(derivative))
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
