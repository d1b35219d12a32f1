r"""The real domain of an answer and of the integrand: one rule.

The rule (``docs/domain.md`` explains it with examples): an answer F is an
antiderivative of f when F' = f wherever F is real-valued, and F is
real-valued on the whole of at least one component (maximal interval) of the
real domain of f.

* ``\ln x`` for ``1/x`` (real on the component x > 0), ``\cosh^{-1} x`` for
  ``1/\sqrt{x^2-1}`` (x > 1), ``-\ln(\cos x)`` for ``\tan x`` (|x| < pi/2):
  CORRECT.
* ``\sqrt{x^2}`` for ``x`` (real everywhere, wrong for x < 0) and
  ``e^{2\ln x}`` for ``2x`` (real only for x > 0, a part of the one
  component, the whole line): WRONG.
* An integrand with no real domain at all (``\sqrt{-\operatorname{csch}^2 x}``)
  leaves the question to complex points.

"Real-valued" is read the way the answer is written. Without an imaginary
unit it is real analysis: F is defined at x where every part of it is (a
logarithm of a positive number, an even root of a non-negative one, arcsin of
[-1, 1], no division by zero), so ``e^{2\ln x}`` is undefined for x < 0 even
though SymPy would simplify it to ``x^2``. With ``i`` in it, the answer is a
complex expression (as ``sympy.latex`` prints some antiderivatives): defined
wherever its value is finite, since such forms are often real only up to an
imaginary constant (``-i F(\pi/2 + i x \mid -1)``), which d/dx removes; there
the real-line comparison of F' with f decides. The answer's structure is taken as
parsed, before the checker rebinds the variable (which evaluates
``exp(2 log x)`` away).

Components of the integrand's domain are separated by its own breakpoints of
the kinds that end a domain (poles, zeros of logarithm and radicand
arguments, inverse-function boundaries), never by mere kinks (``|x|``).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath as mp
import sympy as sp

from ..function_facts import FACTS, REAL_WHERE_FINITE
from ..limits import CAPS
from ..timebox import Deadline, within
from . import real_balls
from .lambdify import compile_expr
from .points import (
    Breakpoints,
    Point,
    breakpoints,
    natural_scale,
    real_points,
    scaled_real_points,
)


def restricts_domain(expr: sp.Basic) -> bool:
    """Whether ``expr`` may be non-real on part of the real line: it holds a
    logarithm, a non-integer power, an inverse function with a bounded
    domain, a special function of that kind, or the imaginary unit."""
    if expr.has(sp.I):
        return True
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and not node.exp.is_Integer:
            return True
        if isinstance(node, sp.Function) and not isinstance(node, REAL_WHERE_FINITE):
            return True
    return False


# --- real-analysis evaluation ----------------------------------------------------





class _Undefined(Exception):
    """The expression has no real value at this point."""


class _TooLarge(Exception):
    """A value at this point would have more than ``2**CAPS.log2_magnitude`` magnitude."""


# Returned for a point skipped because a value there is too large to compute.
TOO_LARGE = object()
# An answer real (in real analysis) at a sample point.
REAL = object()

def _retry_precisions(dps: int, t: Any) -> tuple[int, ...]:
    # Far out, an e^{-|x|} term next to 1 needs |x| / 2.3 digits to be seen,
    # csch(x)^2 twice that.
    return (4 * dps, min(CAPS.retry_digits, max(16 * dps, int(abs(t)) + 2 * dps)))


class RealEvaluator:
    """Values of one expression at real points, in real analysis (see the
    module docstring); ``None`` where it is undefined or not real. An
    expression with ``i`` in it is complex: defined where it is finite."""

    def __init__(self, expr: sp.Expr, *, real_values: bool = False) -> None:
        self.expr = expr
        self.names: dict[str, Any] = {}  # symbol name -> value (mpf), set per call
        self.complex_form = expr.has(sp.I)
        # An integrand must be real-valued to have a real domain; an answer in
        # complex form only needs a value (an imaginary constant is allowed).
        self.real_values = real_values
        self._lambdified: dict[Any, Callable[..., Any]] = {}
        self._constants: dict[tuple[sp.Basic, int], Any] = {}

    def __call__(self, values: dict[str, Any]) -> Any:
        self.names = values
        try:
            if self.complex_form:
                value = self._generic(self.expr)
                if self.real_values:
                    return _real_part_if_real(value)
                if not mp.isfinite(value):
                    raise _Undefined
                return value
            return self._value(self.expr, {})
        except _TooLarge:
            return TOO_LARGE
        except (_Undefined, ZeroDivisionError, ValueError, OverflowError, TypeError):
            return None
        except Exception:  # noqa: BLE001 - an evaluation error means "no value here"
            return None

    def _generic(self, node: sp.Basic) -> Any:
        symbols = sorted(node.free_symbols, key=lambda s: s.name)
        fn = self._lambdified.get(node)
        if fn is None:
            fn = self._lambdified[node] = compile_expr(symbols, node)
        return mp.mpmathify(fn(*(self.names[s.name] for s in symbols)))

    def _value(self, node: sp.Basic, memo: dict[sp.Basic, Any]) -> Any:
        done = memo.get(node)
        if done is not None:
            return done
        value = self._compute(node, memo)
        if not mp.isfinite(value):
            raise _Undefined
        memo[node] = value
        return value

    def _compute(self, node: sp.Basic, memo: dict[sp.Basic, Any]) -> Any:
        if node.is_Symbol:
            return self.names[node.name]
        if node.is_Number or node.is_NumberSymbol:
            # The same constant at every point: evalf once per precision.
            key = (node, mp.mp.prec)
            value = self._constants.get(key)
            if value is None:
                value = self._constants[key] = mp.mpmathify(node.evalf(mp.mp.dps + 5))
            return value
        if isinstance(node, sp.Add):
            return mp.fsum(self._value(a, memo) for a in node.args)
        if isinstance(node, sp.Mul):
            out = mp.mpf(1)
            for a in node.args:
                out *= self._value(a, memo)
            return out
        if isinstance(node, sp.Pow):
            return self._power(node, memo)
        if isinstance(node, sp.Piecewise):
            for piece, cond in node.args:
                if self._holds(cond, memo):
                    return self._value(piece, memo)
            raise _Undefined
        func = type(node)
        facts = FACTS.get(func)
        if facts is None or facts.mpmath is None:
            # Special functions (and nodes with non-expression arguments, such
            # as hyper's parameter tuples): real where their value is real.
            return _real_part_if_real(self._generic(node))
        args = [self._value(a, memo) for a in node.args]
        if func is sp.log and len(args) == 2:
            if args[0] <= 0 or args[1] <= 0:
                raise _Undefined
            return mp.log(args[0]) / mp.log(args[1])
        if facts.grows_fast and abs(args[0]) > CAPS.log2_magnitude:
            raise _TooLarge
        if facts.real_domain is not None and not facts.real_domain(args[0]):
            raise _Undefined
        return facts.mpmath(*args)

    def _power(self, node: sp.Pow, memo: dict[sp.Basic, Any]) -> Any:
        base = self._value(node.base, memo)
        exponent = node.exp
        if exponent.is_Integer:
            if base == 0 and exponent < 0:
                raise _Undefined
            return base ** int(exponent)
        e = self._value(exponent, memo)
        if base > 0:
            if abs(e) > 1 and abs(e * mp.log(base, 2)) > CAPS.log2_magnitude:
                raise _TooLarge
            return base ** e
        if base == 0 and e > 0:
            return mp.mpf(0)
        # A negative base to a non-integer power has no real (principal) value.
        raise _Undefined

    def _holds(self, cond: sp.Basic, memo: dict[sp.Basic, Any]) -> bool:
        if cond is sp.true:
            return True
        if cond is sp.false:
            return False
        if isinstance(cond, sp.And):
            return all(self._holds(c, memo) for c in cond.args)
        if isinstance(cond, sp.Or):
            return any(self._holds(c, memo) for c in cond.args)
        if isinstance(cond, sp.Not):
            return not self._holds(cond.args[0], memo)
        if isinstance(cond, sp.core.relational.Relational):
            lhs, rhs = self._value(cond.lhs, memo), self._value(cond.rhs, memo)
            return bool({"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs,
                         "==": lhs == rhs, "!=": lhs != rhs}[cond.rel_op])
        raise _Undefined


class _ImaginaryPart:
    """Im F at a point where F is not real: its principal-branch value, or
    ``None`` where it has none (a pole)."""

    def __init__(self, expr: sp.Expr) -> None:
        self.expr = expr
        self._fn: Callable[..., Any] | None = None

    def __call__(self, values: dict[str, Any]) -> Any:
        try:
            symbols = sorted(self.expr.free_symbols, key=lambda s: s.name)
            if self._fn is None:
                self._fn = compile_expr(symbols, self.expr)
            value = mp.mpmathify(self._fn(*(values[s.name] for s in symbols)))
        except Exception:  # noqa: BLE001 - no value at this point
            return None
        return mp.im(value) if mp.isfinite(value) else None


def _real(members: list[tuple[int, Any]], dps: int) -> list[tuple[int, Any]]:
    return [(i, o) for i, o in members if o is REAL]


def _real_up_to_a_constant(members: list[tuple[int, Any]], dps: int) -> list[tuple[int, Any]]:
    r"""The points of one component where F counts as defined: where it is
    real, or, when its imaginary part is the same at every point of the
    component, everywhere it has a value. F - ic is then a real function,
    an antiderivative exactly when F is: Rubi's
    ``\operatorname{artanh}\sqrt{x+1}`` terms for x > 0 (real part plus
    i pi/2), next to a ``\sqrt{x^2}`` that keeps the check on the real line.
    A logarithm of a negative number on only part of the component leaves an
    imaginary part that changes there, so the rule still rejects it."""
    offsets = [mp.mpf(0) if o is REAL else o for _, o in members]
    if not offsets or any(o is None for o in offsets):
        return _real(members, dps)
    top = max(offsets)
    tolerance = mp.mpf(10) ** (-(dps // 2)) * max(mp.mpf(1), abs(top))
    if top - min(offsets) <= tolerance:
        return members
    return _real(members, dps)


def _real_part_if_real(value: Any) -> Any:
    if isinstance(value, mp.mpc):
        # Relative: I*csch(x) is tiny far out, but never real.
        if abs(value.imag) > abs(value) * mp.mpf(10) ** (-(mp.mp.dps // 2)):
            raise _Undefined
        value = value.real
    if not mp.isfinite(value):
        raise _Undefined
    return value


# --- the rule ----------------------------------------------------------------------

@dataclass
class DomainReport:
    """The real sample of one check and what the domain rule made of it.

    ``decision``: ``ok`` (the answer is real on the whole of a component of
    the integrand's real domain), ``partial`` (on none: WRONG), ``empty``
    (the integrand is real nowhere on the sample: complex points decide).
    ``usable`` are the indices of ``points`` where both are real: where a
    real-line comparison of F' and f counts.
    """

    points: list[Point]
    decision: str
    usable: set[int] = field(default_factory=set)
    components: int = 0
    covered: int = 0
    n_breakpoints: int = 0
    # More breakpoints than a check probes: the real sample may miss a piece.
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The report as stage data."""
        return {"decision": self.decision, "points": len(self.points),
                "usable": len(self.usable), "components": self.components,
                "covered_components": self.covered, "breakpoints": self.n_breakpoints,
                "truncated": self.truncated}


def real_points_of(answer: sp.Expr, integrand: sp.Expr, symbol: str,
                   parameters: dict[str, Any], points: list[Point], deadline: Deadline,
                   dps: int = 20) -> set[int]:
    """Indices of the real ``points`` where both the answer (as written, in
    real analysis) and the integrand are real: where F' = f is owed."""
    F_value, f_value = RealEvaluator(answer), RealEvaluator(integrand, real_values=True)
    usable = set()
    with mp.workdps(dps):
        params = {name: mp.mpf(str(v)) for name, v in parameters.items()}
        for i, (re_, _) in enumerate(points):
            deadline.check()
            values = {symbol: mp.mpf(re_), **params}
            f_at = within(CAPS.point_seconds, deadline, f_value, values)
            if f_at is None or f_at is TOO_LARGE:
                continue
            F_at = within(CAPS.point_seconds, deadline, F_value, values)
            if F_at is not None and F_at is not TOO_LARGE:
                usable.add(i)
    return usable


def _fill_points(rng: random.Random, intervals: list[tuple[Any, Any]], per_gap: int) -> list[Point]:
    """``per_gap`` more points inside each bounded gap between consecutive
    breakpoints (the gaps nearest the origin first, :attr:`~rewards.check.limits.Caps.fill_points`
    in all): half spread over the gap, half next to its ends at distances
    down to 1e-6 of its width, where a domain like (0, 1) is most unlike the
    rest of the line."""
    gaps = sorted(((hi, lo) for (_, hi), (lo, _) in zip(intervals, intervals[1:], strict=False)
                   if lo > hi), key=lambda g: abs(g[0] + g[1]))
    values: list[Point] = []
    with mp.workdps(30):
        for left, right in gaps:
            a = mp.mpf(left.numerator) / left.denominator
            b = mp.mpf(right.numerator) / right.denominator
            for k in range(per_gap):
                if len(values) >= CAPS.fill_points:
                    return values
                if k % 2 == 0:
                    t = mp.mpf(rng.uniform(0.02, 0.98))
                else:
                    t = mp.mpf(10) ** (-rng.uniform(1, 6))
                    t = t if k % 4 == 1 else 1 - t
                value = a + (b - a) * t
                values.append((mp.nstr(value, 24, min_fixed=-mp.inf, max_fixed=mp.inf), "0"))
    return values


def _sample(answer: sp.Expr, integrand: sp.Expr, x: sp.Symbol, rng: random.Random,
            breaks: Breakpoints) -> list[Point]:
    points = real_points(rng, breaks)
    scale = natural_scale([answer, integrand], x)
    if scale is not None:
        # e^{2016 |x|}: the spread points are where nothing below e^{100}
        # relative shows; these are where the values are of size 1.
        points = list(dict.fromkeys([*points, *scaled_real_points(rng, scale)]))
    return points


class _PointValues:
    """F (as written, real analysis) at one real point where the integrand
    is real: its value (REAL where balls settled it), ``None`` where F is
    undefined there, or TOO_LARGE (also where f is not real or too large:
    the point says nothing). Balls settle most points for the exact values
    (:mod:`.real_balls`); elsewhere each value is retried with more digits
    before it counts as undefined."""

    def __init__(self, answer: sp.Expr, integrand: sp.Expr, symbol: str,
                 parameters: dict[str, Any], deadline: Deadline, dps: int) -> None:
        self.f_value = RealEvaluator(integrand, real_values=True)
        self.F_value = RealEvaluator(answer)
        self.symbol, self.deadline, self.dps = symbol, deadline, dps
        self._balls: tuple[Any, Any] | None = None
        with mp.workdps(dps):
            self.params = {name: mp.mpf(str(v)) for name, v in parameters.items()}

    def _on_balls(self, values: dict[str, Any]) -> Any:
        """This point's answer settled for the exact values on balls
        (:mod:`.real_balls`): F's value, UNDEFINED or TOO_LARGE, as below;
        UNKNOWN where the balls cannot tell."""
        if self._balls is None:
            self._balls = (real_balls.compile_real(self.f_value.expr),
                           real_balls.compile_real(self.F_value.expr))
        f_fn, F_fn = self._balls
        env = real_balls.point(values) if f_fn is not None and F_fn is not None else None
        if env is None:
            return real_balls.UNKNOWN
        f_at = real_balls.value_at(f_fn, env)
        if f_at is real_balls.UNKNOWN:
            return f_at
        if f_at is real_balls.UNDEFINED or f_at is real_balls.TOO_LARGE:
            return TOO_LARGE
        F_at = real_balls.value_at(F_fn, env)
        if F_at is real_balls.TOO_LARGE:
            return TOO_LARGE
        if F_at is real_balls.UNKNOWN or F_at is real_balls.UNDEFINED:
            return F_at
        return REAL

    def _at(self, fn: Callable[..., Any], digits: int, point: str) -> Any:
        with mp.workdps(digits):
            return within(CAPS.point_seconds, self.deadline, fn,
                          {self.symbol: mp.mpf(point), **self.params})

    def __call__(self, point: str) -> Any:
        self.deadline.check()
        with mp.workdps(self.dps):
            t = mp.mpf(point)
            values = {self.symbol: t, **self.params}
            # No time limit: arb's operations here are bounded (real_balls).
            settled = self._on_balls(values)
            if settled is not real_balls.UNKNOWN:
                return None if settled is real_balls.UNDEFINED else settled
            f_at = within(CAPS.point_seconds, self.deadline, self.f_value, values)
            if f_at is not None and f_at is not TOO_LARGE and f_at == 0:
                # 0, or only rounded to 0? (1 - coth(x)^2)^(3/2) is imaginary
                # everywhere, but at x = 30 and 20 digits its base is 0.
                f_at = self._at(self.f_value, _retry_precisions(self.dps, t)[-1], point)
            if f_at is None or f_at is TOO_LARGE:
                return TOO_LARGE
            F_at = within(CAPS.point_seconds, self.deadline, self.F_value, values)
            for retry_dps in _retry_precisions(self.dps, t):
                if F_at is not None:
                    break
                # Undefined, or only rounded there? atanh(tanh x / sqrt(1 + sech x))
                # is real everywhere, but at x = 50 and 20 digits its argument
                # rounds to 1. A log of a negative stays undefined at any precision.
                F_at = self._at(self.F_value, retry_dps, point)
            return F_at


def spread_sample(answer: sp.Expr, integrand: sp.Expr, symbol: str,
                  parameters: dict[str, Any], rng: random.Random, deadline: Deadline,
                  dps: int = 20) -> tuple[list[Point], Callable[[int], bool]]:
    """The points of ``analyze(..., spread_only=True)`` (the same draw from
    ``rng``), and a test of each point, run only when asked: whether F' = f
    is owed there by the domain rule because F and f are both real there.
    Each such point is in that report's ``usable`` set, whichever reading it
    took (the rule reads an answer up to an imaginary constant only to add
    points). A wrong answer is rejected on one or two such points, without
    the realness of F and f at every point of the sample."""
    x = next((s for s in (answer.free_symbols | integrand.free_symbols)
              if s.name == symbol), sp.Symbol(symbol))
    points = _sample(answer, integrand, x, rng, Breakpoints())
    values_at = _PointValues(answer, integrand, symbol, parameters, deadline, dps)

    def owed(index: int) -> bool:
        F_at = values_at(points[index][0])
        return F_at is not None and F_at is not TOO_LARGE

    return points, owed


def analyze(answer: sp.Expr, integrand: sp.Expr, symbol: str,
            parameters: dict[str, Any], rng: random.Random, deadline: Deadline,
            dps: int = 20, *, spread_only: bool = False, fill: int = 0) -> DomainReport:
    """Sample the real line (breakpoints of both expressions included) and
    apply the domain rule. ``answer`` and ``integrand`` are as parsed (plain
    symbols, unevaluated where the parser left them so); ``parameters`` maps
    parameter names to the values the checker samples them at.

    ``spread_only`` skips the breakpoints (their root finding is most of the
    cost): enough to find where both sides are real at generic points, and
    to reject an answer that is wrong there, not to apply the rule. ``fill``
    adds that many points inside each bounded gap between breakpoints
    (:func:`_fill_points`): for an integrand real only on a short interval,
    where the usual sample leaves too few points to decide."""
    x = next((s for s in (answer.free_symbols | integrand.free_symbols)
              if s.name == symbol), sp.Symbol(symbol))
    fixed = {s: sp.Rational(str(parameters[s.name]))
             for s in (answer.free_symbols | integrand.free_symbols) if s.name in parameters}
    if spread_only:
        all_breaks = splits = Breakpoints()
    else:
        all_breaks = breakpoints([answer, integrand], x, deadline, fixed)
        splits = breakpoints([integrand], x, deadline, fixed, domain_only=True)
    points = _sample(answer, integrand, x, rng, all_breaks)
    if fill:
        points = list(dict.fromkeys([*points, *_fill_points(rng, all_breaks, fill)]))
    values_at = _PointValues(answer, integrand, symbol, parameters, deadline, dps)
    F_offset = _ImaginaryPart(answer)
    # component -> [(point index, REAL, or Im F where F is not real, or None
    # where it has no value)]
    components: dict[int, list[tuple[int, Any]]] = {}
    usable: set[int] = set()
    with mp.workdps(dps):
        split_at = [mp.mpf(hi.numerator) / hi.denominator for _, hi in splits]
        order = sorted(range(len(points)), key=lambda i: mp.mpf(points[i][0]))
        for i in order:
            t = mp.mpf(points[i][0])
            F_at = values_at(points[i][0])
            if F_at is TOO_LARGE:
                continue
            component = sum(1 for hi in split_at if hi < t)
            offset = REAL if F_at is not None else within(
                CAPS.point_seconds, deadline, F_offset, {symbol: t, **values_at.params})
            components.setdefault(component, []).append((i, offset))
    # Real analysis first; only an answer real on no whole component is read
    # again up to an imaginary constant (acosh x is right on x > 1 and must
    # not be compared on x < -1, where it is acosh|x| + i pi and F' = -f).
    covered = 0
    for reading in (_real, _real_up_to_a_constant):
        usable.clear()
        covered = 0
        for members in components.values():
            defined = reading(members, dps)
            usable.update(i for i, _ in defined)
            covered += len(defined) == len(members)
        if covered:
            break
    if not components:
        decision = "empty"
    else:
        decision = "ok" if covered else "partial"
    return DomainReport(points, decision, usable, len(components), covered, len(all_breaks),
                        all_breaks.truncated)
