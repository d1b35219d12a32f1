r"""Is F continuous wherever the integrand is? One-sided limits at F's jumps.

Differentiation cannot see a jump: each piece of ``x^2/2`` for ``x >= 0``,
``1 - x^2/2`` below, differentiates to ``|x|``, and so does every term of
``x + |x|/x`` to 1 away from 0, and ``\arctan(\tan(x/2)/\sqrt 3)`` to
``1/(2 + \cos x)`` away from the odd multiples of pi. By the definition
(``docs/domain.md``), F must be continuous on every interval of the
integrand's real domain; a different constant on each interval is fine, so a
jump is allowed only where f itself is not (a pole: ``\ln|x| + 3\operatorname{sgn}x``
for 1/x).

Where F can jump with finite one-sided limits: the zeros of the arguments of
its steps and kinks (sign, Heaviside, ``|u|``, floor/ceiling/frac, Min/Max,
piece boundaries: :data:`~rewards.check.functions.KINK` breakpoints) and the
poles inside the arguments of its bounded functions (arctan, tanh, erf...:
:data:`~rewards.check.functions.BOUNDED`). At each such point c inside f's
domain (f real and finite on both sides, not blowing up), F is evaluated in
real analysis at ``c +- d`` for two distances d: a difference that does not
shrink with d, and is larger than what f could add across ``[c - d, c + d]``,
is a jump. A derivative's DiracDelta terms (``sign' = 2\delta``) and the
derivatives of floor steps are dropped only once this check passed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath as mp
import sympy as sp

from ..functions import BOUNDED, KINK, POLE, breakpoint_arguments
from ..timebox import Deadline
from .domain import TOO_LARGE, RealEvaluator
from .points import breakpoints

# Digits for the one-sided values: jumps down to ~1e-12 of F's size stand out.
DPS = 40
# The two distances from a candidate point, relative to max(1, |c|): far
# beyond the width of its isolating interval (1e-12 exact, ~1e-15 numeric).
NEAR, NEARER = mp.mpf("1e-6"), mp.mpf("1e-9")
# A difference below this (relative to F's size) is no jump.
JUMP_TOLERANCE = mp.mpf("1e-7")
# Continuous F: the difference shrinks with the distance (by 1e-3 for a smooth
# F, 0.03 even for a square-root cusp); a jump keeps it.
KEEPS = mp.mpf("0.3")
# f blowing up towards c (a pole of f: jumps are allowed there).
BLOW_UP = 100


@dataclass(frozen=True)
class Jump:
    """A jump of F at a point where the integrand is continuous."""

    at: str
    size: str

    def to_dict(self) -> dict[str, str]:
        """The jump as stage data."""
        return {"at": self.at, "size": self.size}


def jump_arguments(answer: sp.Expr) -> list[tuple[sp.Expr, str]]:
    """``(g, kind)`` pairs whose real zeros are where ``answer`` may jump."""
    pairs = [(g, kind) for g, kind in breakpoint_arguments(answer) if kind == KINK]
    for node in sp.preorder_traversal(answer):
        if isinstance(node, BOUNDED) and node.args:
            pairs.extend((g, POLE) for g, kind in breakpoint_arguments(node.args[0])
                         if kind == POLE)
    return pairs


def find_jump(answer: sp.Expr, integrand: sp.Expr, symbol: str,
              parameters: dict[str, str], deadline: Deadline) -> tuple[Jump | None, int]:
    """The first jump of ``answer`` (as written: plain symbols) inside the
    integrand's domain, or ``None``; and how many points were looked at."""
    pairs = jump_arguments(answer)
    if not pairs:
        return None, 0
    x = next((s for s in answer.free_symbols | integrand.free_symbols if s.name == symbol),
             sp.Symbol(symbol))
    fixed = {s: sp.Rational(str(parameters[s.name]))
             for s in answer.free_symbols | integrand.free_symbols if s.name in parameters}
    candidates = breakpoints([], x, deadline, fixed, arguments=pairs)
    # The integrand's own poles and domain ends: a new constant may start there.
    ends = breakpoints([integrand], x, deadline, fixed, domain_only=True)
    candidates = [(lo, hi) for lo, hi in candidates
                  if not any(lo <= e_hi and e_lo <= hi for e_lo, e_hi in ends)]
    F, f = RealEvaluator(answer), RealEvaluator(integrand, real_values=True)
    with mp.workdps(DPS):
        params = {name: mp.mpf(str(v)) for name, v in parameters.items()}
        for lo, hi in candidates:
            deadline.check()
            c = (mp.mpf(lo.numerator) / lo.denominator + mp.mpf(hi.numerator) / hi.denominator) / 2
            jump = _jump_at(c, F, f, symbol, params)
            if jump is not None:
                return jump, len(candidates)
    return None, len(candidates)


def _values(fn: RealEvaluator, c: Any, d: Any, symbol: str,
            params: dict[str, Any]) -> tuple[Any, Any] | None:
    below = fn({symbol: c - d, **params})
    above = fn({symbol: c + d, **params})
    if below is None or above is None or below is TOO_LARGE or above is TOO_LARGE:
        return None
    return below, above


def _jump_at(c: Any, F: RealEvaluator, f: RealEvaluator, symbol: str,
             params: dict[str, Any]) -> Jump | None:
    scale = max(mp.mpf(1), abs(c))
    near, nearer = NEAR * scale, NEARER * scale
    f_near, f_nearer = _values(f, c, near, symbol, params), _values(f, c, nearer, symbol, params)
    if f_near is None or f_nearer is None:
        return None  # c is not inside f's real domain: F may jump there
    size_near = max(abs(v) for v in f_near)
    size_nearer = max(abs(v) for v in f_nearer)
    if size_nearer > BLOW_UP * (size_near + 1):
        return None  # f blows up towards c: a pole, where a new constant may start
    F_near, F_nearer = _values(F, c, near, symbol, params), _values(F, c, nearer, symbol, params)
    if F_near is None or F_nearer is None:
        return None  # F is not real on both sides: the domain rule's business
    wide = abs(F_near[1] - F_near[0])
    narrow = abs(F_nearer[1] - F_nearer[0])
    size = max(mp.mpf(1), *(abs(v) for v in F_nearer))
    # What f itself could add across [c - nearer, c + nearer].
    allowed = 2 * nearer * max(size_near, size_nearer) * 10
    if narrow > JUMP_TOLERANCE * size and narrow > KEEPS * wide and narrow > allowed:
        return Jump(mp.nstr(c, 12), mp.nstr(narrow, 6))
    return None


def drop_steps(derivative: sp.Expr) -> tuple[sp.Expr, bool]:
    """F' without the terms a step of F leaves (DiracDelta from sign and
    Heaviside, the derivative of floor or ceiling, a Piecewise whose every
    value is 0: a constant per piece), and whether there were any. Only
    valid once :func:`find_jump` found no jump; a Piecewise F covers the
    integrand's domain (``piecewise_gap``), so its zero derivative is zero
    wherever F is defined."""
    # One walk for the four kinds: most derivatives have none of them.
    found = derivative.atoms(sp.DiracDelta, sp.Derivative, sp.Piecewise, sp.Subs)
    if not found:
        return derivative, False
    steps = {d for d in found if isinstance(d, sp.DiracDelta)} | {
        d for d in found if isinstance(d, sp.Derivative)
        and d.expr.has(sp.floor, sp.ceiling) and not d.expr.has(sp.frac)}
    steps |= {p for p in found if isinstance(p, sp.Piecewise)
              and all(value == 0 for value, _cond in p.args)}
    steps |= {s for s in found if isinstance(s, sp.Subs)
              and all(isinstance(d, sp.Derivative) and d.expr.func in (sp.floor, sp.ceiling)
                      for d in s.atoms(sp.Derivative))}
    if not steps:
        return derivative, False
    return derivative.xreplace({s: sp.S.Zero for s in steps}), True


__all__ = ["Jump", "drop_steps", "find_jump", "jump_arguments"]
