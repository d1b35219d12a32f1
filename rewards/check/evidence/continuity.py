r"""Is F continuous wherever the integrand is? One-sided limits at F's jumps.

Differentiation cannot see a jump: each piece of ``x^2/2`` for ``x >= 0``,
``1 - x^2/2`` below, differentiates to ``|x|``, and so does every term of
``x + |x|/x`` to 1 away from 0, and ``\arctan(\tan(x/2)/\sqrt 3)`` to
``1/(2 + \cos x)`` away from the odd multiples of pi. By the definition
(``docs/domain.md``), F must be continuous on every interval of the
integrand's real domain; a different constant on each interval is fine, so a
jump is allowed only where f itself is not (a pole: ``\ln|x| + 3\operatorname{sgn}x``
for 1/x).

Where F can jump with finite one-sided limits:

* the zeros of the arguments of its steps and kinks (sign, Heaviside,
  ``|u|``, floor/ceiling/frac, Min/Max, piece boundaries:
  :data:`~rewards.check.function_facts.KINK` breakpoints);
* the poles inside the arguments of its bounded functions (arctan, arccot,
  tanh, erf...: :data:`~rewards.check.function_facts.BOUNDED`);
* in an answer written with ``i``, the real points where the argument of a
  logarithm, a non-integer power or an inverse function crosses that
  function's branch cut (:func:`~rewards.check.function_facts.cut_arguments`):
  ``\frac{1}{4i}\ln\frac{x - 2i}{x + 2i}`` is real, differentiates to
  ``1/(x^2 + 4)``, and jumps by pi/2 at 0, where its argument crosses the
  negative reals. The crossings are the real zeros of the imaginary (or real)
  part of the argument, whatever its written form, kept where the argument
  is on the cut there.

At each such point c inside f's domain (f real on both sides), F is
evaluated at ``c +- d``. What f can add across ``[c - d, c + d]`` is at most
``2 d max|f|``, and that is large next to a tall peak of f (``10^8`` at 3 for
``-\arctan(1/(10^8(x - 3)))``, whose jump of pi hides below it at every fixed
d): d shrinks, with the digits it needs and c refined to well below it, until
f can add no more than the tolerance. A difference that remains there, and
keeps at d/1000 while f settles to a finite value (no pole of f, where a new
constant may start), is a jump. A derivative's DiracDelta terms
(``sign' = 2\delta``) and the derivatives of floor steps are dropped only
once this check passed.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath as mp
import numpy as np
import sympy as sp

from ..function_facts import BOUNDED, KINK, POLE, breakpoint_arguments, cut_arguments
from ..limits import CAPS
from ..timebox import Deadline, within
from .domain import TOO_LARGE, RealEvaluator
from .lambdify import compile_expr
from .points import breakpoints

# Digits for the one-sided values beyond those the distance takes: jumps down
# to ~1e-12 of F's size stand out.
DPS = 40
# The first distance from a candidate point is 10^-FIRST_ORDER of max(1, |c|):
# far beyond the width of its isolating interval (1e-12 exact, ~1e-15
# numeric). The deepest is 10^-DEEPEST_ORDER: f larger than ~1e50 next to c is
# taken for a pole of f.
FIRST_ORDER, DEEPEST_ORDER = 9, 60
# The scan for branch-cut crossings: dense near the origin, logarithmic out
# to 1000 (the span of the breakpoint search).
_SCAN = np.unique(np.concatenate([np.linspace(-20, 20, 801),
                                  np.geomspace(1e-3, 1000, 97), -np.geomspace(1e-3, 1000, 97)]))
# A part of the argument this small next to its size is rounding, no sign.
_SCAN_NOISE = 1e-9
# Orders of magnitude between the distance and its confirmation.
CONFIRM_ORDERS = 3
# A difference below this (relative to F's size) is no jump.
JUMP_TOLERANCE = mp.mpf("1e-7")
# Continuous F: the difference shrinks with the distance; a jump keeps it.
KEEPS = mp.mpf("0.3")
# f settles towards c (a finite value, not a pole): its largest size at
# d/1000 is within this share of the one at d.
SETTLES = mp.mpf("1e-3")
# Safety factor on 2 d max|f|: f sampled at three points of [c - d, c + d].
MARGIN = 10


@dataclass(frozen=True)
class Jump:
    """A jump of F at a point where the integrand is continuous."""

    at: str
    size: str

    def to_dict(self) -> dict[str, str]:
        """The jump as stage data."""
        return {"at": self.at, "size": self.size}


def jump_arguments(answer: sp.Expr) -> list[tuple[sp.Expr, str]]:
    """``(g, kind)`` pairs whose real zeros are where ``answer`` may jump
    (steps, kinks, pieces, poles inside bounded functions)."""
    pairs = [(g, kind) for g, kind in breakpoint_arguments(answer) if kind == KINK]
    for node in sp.preorder_traversal(answer):
        if isinstance(node, BOUNDED) and node.args:
            pairs.extend((g, POLE) for g, kind in breakpoint_arguments(node.args[0])
                         if kind == POLE)
    return pairs


def has_jump_arguments(answer: sp.Expr) -> bool:
    """``bool(jump_arguments(answer))``, cached per node: asked of every
    accepted answer and for every memo key, and a group's answers share
    their terms."""
    return _jumps(answer)


@functools.lru_cache(maxsize=8192)
def _jumps(node: sp.Basic) -> bool:
    # jump_arguments walks the whole tree for KINK breakpoints and for
    # bounded functions of a pole: the same node tests, one node at a time.
    if isinstance(node, BOUNDED) and node.args and _has_pole(node.args[0]):
        return True
    if any(kind == KINK for _, kind in _own_breakpoints(node)):
        return True
    return any(_jumps(a) for a in node.args)


@functools.lru_cache(maxsize=8192)
def _has_pole(node: sp.Basic) -> bool:
    # Whether breakpoint_arguments(node) yields a POLE.
    return (any(kind == POLE for _, kind in _own_breakpoints(node))
            or any(_has_pole(a) for a in node.args))


def _own_breakpoints(node: sp.Basic) -> list[tuple[sp.Expr, str]]:
    # What breakpoint_arguments yields for this node itself (its preorder
    # walk visits the arguments after it).
    return list(breakpoint_arguments(node, deep=False))


def can_jump(answer: sp.Expr) -> bool:
    """Whether ``answer`` (as written) has anything that may jump on the real
    line: a step, kink or piece, a bounded function of a pole, or, written
    with ``i``, a function with a branch cut."""
    if has_jump_arguments(answer):
        return True
    return answer.has(sp.I) and next(iter(cut_arguments(answer)), None) is not None


@dataclass(frozen=True)
class _Candidate:
    """An isolating interval of a point where F may jump, and the real
    function of x whose sign changes there (to refine it): a breakpoint
    argument, or a part of a cut function's argument."""

    lo: Fraction
    hi: Fraction
    value: Callable[[Any], Any]


def _expr_value(x: sp.Symbol, g: sp.Expr) -> Callable[[Any], Any]:
    fn: list[Any] = []

    def value(t: Any) -> Any:
        if not fn:
            fn.append(compile_expr([x], g))
        return fn[0](t)
    return value


def _part_value(u_fn: Callable[[Any], Any], part: str) -> Callable[[Any], Any]:
    def value(t: Any) -> Any:
        w = mp.mpc(u_fn(t))
        return w.imag if part == "im" else w.real
    return value


def _cut_crossings(answer: sp.Expr, x: sp.Symbol, fixed: dict[sp.Symbol, sp.Expr],
                   deadline: Deadline) -> list[_Candidate]:
    """The real points where the argument u of a cut function in an answer
    written with ``i`` crosses the cut: sign changes of Im u (or Re u) on a
    scan of the line, at a value of u on the cut. Vectorized in machine
    complex numbers (Rubi's and SymPy's complex forms have arguments
    hundreds of nodes long), each sign change then bisected."""
    if not answer.has(sp.I):
        return []
    found: list[_Candidate] = []
    seen: set[tuple[sp.Expr, str]] = set()
    for u, part, on_cut in cut_arguments(answer):
        u = u.xreplace(fixed) if fixed else u
        if not u.has(x) or (u, part) in seen or u.free_symbols - {x}:
            continue
        seen.add((u, part))
        deadline.check()
        values = _scan(x, u, deadline)
        if values is None:
            continue
        parts = values.imag if part == "im" else values.real
        size = np.abs(values)
        clear = np.isfinite(parts) & (np.abs(parts) > _SCAN_NOISE * size)
        # Consecutive clear signs (a zero on the scan itself, x = 0, is skipped over).
        where = np.nonzero(clear)[0]
        signs = np.sign(parts[where])
        changes = np.nonzero(signs[:-1] * signs[1:] < 0)[0]
        if len(changes) > CAPS.breakpoints:
            changes = changes[np.argsort(np.abs(_SCAN[where[changes]]))[:CAPS.breakpoints]]
        u_fn = compile_expr([x], u)
        value = _part_value(u_fn, part)
        for k in changes:
            lo, hi = _bisect(value, float(_SCAN[where[k]]), float(_SCAN[where[k + 1]]), deadline)
            with mp.workdps(30):
                w = within(CAPS.point_seconds, deadline, _complex_at, u_fn, mp.mpf((lo + hi) / 2))
            if w is not None and on_cut(w):
                found.append(_Candidate(Fraction(lo), Fraction(hi), value))
    return found


def _scan(x: sp.Symbol, u: sp.Expr, deadline: Deadline) -> Any:
    """``u`` on the scan grid: vectorized, or point by point in mpmath where
    numpy has no such function (LambertW, a Fresnel integral) or the whole
    array fails; ``None`` only when neither gives values."""
    try:
        fn = compile_expr([x], u, "numpy")
        with np.errstate(all="ignore"):
            values = np.asarray(fn(_SCAN.astype(complex)), dtype=complex)
        if values.shape == _SCAN.shape:
            return values
    except Exception:  # noqa: BLE001 - numpy cannot evaluate it: point by point below
        pass
    return _scan_pointwise(x, u, deadline)


def _scan_pointwise(x: sp.Symbol, u: sp.Expr, deadline: Deadline) -> Any:
    try:
        fn = compile_expr([x], u)
    except Exception:  # noqa: BLE001 - not even mpmath can evaluate it: no candidates
        return None
    values = np.full(_SCAN.shape, np.nan, dtype=complex)
    with mp.workdps(15):
        for k, t in enumerate(_SCAN):
            if k % 64 == 0:
                deadline.check()
            w = within(CAPS.point_seconds, deadline, _complex_at, fn, mp.mpf(float(t)))
            if w is not None:
                values[k] = complex(w)
    return values if np.isfinite(values).any() else None


def _bisect(value: Callable[[Any], Any], lo: float, hi: float,
            deadline: Deadline) -> tuple[float, float]:
    """Shrink a sign change of ``value`` to machine precision."""
    with mp.workdps(20):
        try:
            s_lo = mp.sign(value(mp.mpf(lo)))
        except Exception:  # noqa: BLE001 - no value at the end: keep the scan's interval
            return lo, hi
        for _ in range(60):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            try:
                s = mp.sign(value(mp.mpf(mid)))
            except Exception:  # noqa: BLE001 - no value: stop here
                break
            if s == 0:
                return mid, mid
            lo, hi = (mid, hi) if s == s_lo else (lo, mid)
    deadline.check()
    return lo, hi


def _candidates(answer: sp.Expr, integrand: sp.Expr, x: sp.Symbol,
                fixed: dict[sp.Symbol, sp.Expr], deadline: Deadline) -> list[_Candidate]:
    found: list[_Candidate] = []
    for g, kind in jump_arguments(answer):
        g = g.xreplace(fixed) if fixed else g
        for lo, hi in breakpoints([], x, deadline, arguments=[(g, kind)]):
            found.append(_Candidate(lo, hi, _expr_value(x, g)))
    found.extend(_cut_crossings(answer, x, fixed, deadline))
    if not found:
        return []
    # The integrand's own poles and domain ends: a new constant may start there.
    ends = breakpoints([integrand], x, deadline, fixed, domain_only=True)
    kept: list[_Candidate] = []
    for cand in sorted(found, key=lambda k: abs(k.lo + k.hi)):
        if any(cand.lo <= e_hi and e_lo <= cand.hi for e_lo, e_hi in ends):
            continue
        if any(cand.lo <= k.hi and k.lo <= cand.hi for k in kept):
            continue  # the same point from two arguments
        kept.append(cand)
    return kept[:CAPS.breakpoints]


def _complex_at(fn: Any, t: Any) -> Any:
    try:
        value = mp.mpmathify(fn(t))
    except Exception:  # noqa: BLE001 - no value there: not a crossing to look at
        return None
    return mp.mpc(value) if mp.isfinite(value) else None


def _mid(lo: Fraction, hi: Fraction) -> Any:
    return (mp.mpf(lo.numerator) / lo.denominator + mp.mpf(hi.numerator) / hi.denominator) / 2


def find_jump(answer: sp.Expr, integrand: sp.Expr, symbol: str,
              parameters: dict[str, str], deadline: Deadline) -> tuple[Jump | None, int]:
    """The first jump of ``answer`` (as written: plain symbols) inside the
    integrand's domain, or ``None``; and how many points were looked at."""
    if not can_jump(answer):
        return None, 0
    x = next((s for s in answer.free_symbols | integrand.free_symbols if s.name == symbol),
             sp.Symbol(symbol))
    fixed = {s: sp.Rational(str(parameters[s.name]))
             for s in answer.free_symbols | integrand.free_symbols if s.name in parameters}
    candidates = _candidates(answer, integrand, x, fixed, deadline)
    F, f = RealEvaluator(answer), RealEvaluator(integrand, real_values=True)
    params = {name: mp.mpf(str(v)) for name, v in parameters.items()}
    for cand in candidates:
        deadline.check()
        jump = _jump_at(cand, x, F, f, symbol, params, deadline)
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


class _Refiner:
    """The candidate point to any precision: bisection of g's sign change
    (an even zero, which cannot be refined, keeps its interval)."""

    def __init__(self, cand: _Candidate) -> None:
        # An exact point (a rational root) is read at each call's precision.
        self.exact = cand.lo if cand.lo == cand.hi else None
        self.cand = cand
        self.lo: Any = None
        self.hi: Any = None
        self._sign_lo: int | None = None

    def _sign(self, t: Any) -> int:
        try:
            value = mp.mpmathify(self.cand.value(t))
        except Exception:  # noqa: BLE001 - no value: no sign
            return 0
        if isinstance(value, mp.mpc):
            value = value.real
        return 0 if not mp.isfinite(value) else (value > 0) - (value < 0)

    def point(self, width: Any, deadline: Deadline) -> Any | None:
        """The midpoint of an interval no wider than ``width``, or ``None``."""
        if self.exact is not None:
            point = mp.mpf(self.exact.numerator) / self.exact.denominator
            if self._sign(point) == 0:
                return point
            # A machine zero of g (10^12 (x - sqrt 3) at the double nearest
            # sqrt 3), not an exact one: bracket the sign change around it.
            self.exact = None
            for spread in ("1e-15", "1e-12", "1e-9"):
                eps = mp.mpf(spread) * max(mp.mpf(1), abs(point))
                self.lo, self.hi = point - eps, point + eps
                if self._sign(self.lo) * self._sign(self.hi) < 0:
                    break
            else:
                return None
        if self.lo is None:
            self.lo = mp.mpf(self.cand.lo.numerator) / self.cand.lo.denominator
            self.hi = mp.mpf(self.cand.hi.numerator) / self.cand.hi.denominator
        if self.hi - self.lo <= width:
            return (self.lo + self.hi) / 2
        if self._sign_lo is None:
            self._sign_lo = self._sign(self.lo)
            if self._sign_lo == 0 or self._sign(self.hi) != -self._sign_lo:
                self._sign_lo = 0
        if self._sign_lo == 0:
            return None
        while self.hi - self.lo > width:
            deadline.check()
            mid = (self.lo + self.hi) / 2
            s = self._sign(mid)
            if s == 0:
                self.lo = self.hi = mid
            elif s == self._sign_lo:
                self.lo = mid
            else:
                self.hi = mid
        return (self.lo + self.hi) / 2


def _jump_at(cand: _Candidate, x: sp.Symbol, F: RealEvaluator, f: RealEvaluator,
             symbol: str, params: dict[str, Any], deadline: Deadline) -> Jump | None:
    refiner = _Refiner(cand)
    scale = max(mp.mpf(1), abs(_mid(cand.lo, cand.hi)))
    order = FIRST_ORDER
    while order <= DEEPEST_ORDER:
        deadline.check()
        with mp.workdps(DPS + order + CONFIRM_ORDERS):
            d = scale * mp.mpf(10) ** (-order)
            c = refiner.point(d * mp.mpf(10) ** (-CONFIRM_ORDERS - 6), deadline)
            if c is None and _mid(cand.hi, cand.hi) - _mid(cand.lo, cand.lo) <= d / 1000:
                # No sign change to refine (an even zero, or g without a value
                # at these digits): the isolating interval itself, well inside d.
                c = _mid(cand.lo, cand.hi)
            if c is None:
                return None  # cannot be placed closer than d: nothing to conclude
            at_d = _sizes(F, f, c, d, symbol, params)
            if at_d is None:
                return None  # not inside f's real domain, or F not real on both sides
            diff, size, bound, sides = at_d
            if bound > JUMP_TOLERANCE * size:
                # f could add more than the tolerance across [c - d, c + d]:
                # come closer, to where it cannot.
                order += max(3, math.ceil(float(mp.log10(bound / (JUMP_TOLERANCE * size)))) + 1)
                continue
            if diff <= JUMP_TOLERANCE * size:
                return None  # continuous at c
            closer = _sizes(F, f, c, d * mp.mpf(10) ** (-CONFIRM_ORDERS), symbol, params)
            if closer is None:
                return None
            diff_closer, _, _, sides_closer = closer
            # On the two sides only: next to a pole of f, f at c itself may
            # be any size.
            settled = abs(sides_closer - sides) <= SETTLES * max(sides, mp.mpf(1))
            if not settled:
                order += CONFIRM_ORDERS  # f still growing towards c: a pole?
                continue
            if diff_closer > KEEPS * diff:
                return Jump(mp.nstr(c, 12), mp.nstr(diff_closer, 6))
            return None
    return None


def _sizes(F: RealEvaluator, f: RealEvaluator, c: Any, d: Any, symbol: str,
           params: dict[str, Any]) -> tuple[Any, Any, Any, Any] | None:
    """|F(c + d) - F(c - d)|, F's size there, ``MARGIN * 2 d max|f|`` over
    c - d, c, c + d (f undefined at c itself is left out), and max |f(c +- d)|."""
    f_sides = _values(f, c, d, symbol, params)
    if f_sides is None:
        return None
    F_sides = _values(F, c, d, symbol, params)
    if F_sides is None:
        return None
    at_c = f({symbol: c, **params})
    sides = max(abs(v) for v in f_sides)
    peak = sides if at_c is None or at_c is TOO_LARGE else max(sides, abs(at_c))
    bound = MARGIN * 2 * d * peak
    size = max(mp.mpf(1), *(abs(v) for v in F_sides))
    return abs(F_sides[1] - F_sides[0]), size, bound, sides


# The nodes a step of F leaves in F' (see drop_steps).
STEP_NODES = (sp.DiracDelta, sp.Derivative, sp.Piecewise, sp.Subs)


def drop_steps(derivative: sp.Expr) -> tuple[sp.Expr, bool]:
    """F' without the terms a step of F leaves (DiracDelta from sign and
    Heaviside, the derivative of floor or ceiling, a Piecewise whose every
    value is 0: a constant per piece), and whether there were any. Only
    valid once :func:`find_jump` found no jump; a Piecewise F covers the
    integrand's domain (``piecewise_gap``), so its zero derivative is zero
    wherever F is defined."""
    # One walk for the four kinds: most derivatives have none of them.
    found = derivative.atoms(*STEP_NODES)
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


__all__ = ["STEP_NODES", "Jump", "can_jump", "drop_steps", "find_jump", "has_jump_arguments",
           "jump_arguments"]
