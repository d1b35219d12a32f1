"""Multi-precision numeric comparison of F' and f.

The screen answers "is F' - f identically zero?" by evaluation at points
drawn for this check (:mod:`.points`: seeded by the answer and integrand,
complex for analytic expressions, real with the breakpoints for the rest).
A fixed precision with a relative tolerance is exploitable: with
rtol=1e-12, ``e^x + 10^{-13} x`` passes for ``e^x`` and
``sin x + sin(10^{-30} x)`` passes for ``cos x``. A fixed precision also
false-rejects true pairs that lose digits to cancellation (``x**100`` times
``erfc``). Both are solved the same way: evaluate again with more digits.
Round-off shrinks as precision rises; a real difference does not.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import mpmath as mp
import sympy as sp

from ..function_facts import CIRCULAR, HYPERBOLIC, NON_ANALYTIC
from ..limits import CAPS
from ..result import show
from ..timebox import Deadline, within
from ..walk import distinct_nodes
from .balls import ball_function, evaluate, to_mpmath
from .first_look import suspects
from .lambdify import compile_expr
from .points import Point, log_size

# Digits used at each level. 30 is the cheap screen; 60 and 120 are only
# paid for rejections that need confirming and for unproven accepts.
LEVELS = (30, 60, 120)
# Digits a computation may lose to rounding and still count as "agrees" at
# that precision: at 30 digits a residual below 1e-20 is round-off.
GUARD_DIGITS = 10
# A ball's value is used when it is known to within what GUARD_DIGITS allows
# round-off to take (:func:`.balls.evaluate`): mpmath's value lost as much there.
_LOST_BITS = int(GUARD_DIGITS * math.log2(10))
# A residual that shrinks by fewer than this many orders of magnitude when
# the precision rises is a real difference, not round-off.
STABLE_ORDERS = 3
MIN_USABLE_POINTS = 4
# Beyond this |z|, an exponential term is below round-off next to 1 at the
# screen's digits: a difference found there is checked with more digits.
FAR_OUT = 30


def sampling_mode(*exprs: sp.Expr) -> str:
    """``complex`` points for analytic expressions; the real line as soon as
    one is not (for complex z, ``sign(z)/|z|`` is ``1/conj(z)``, not ``1/z``:
    complex sampling would reject a correct ``ln|x|``)."""
    return "real" if any(_non_analytic(e) for e in exprs) else "complex"


@functools.lru_cache(maxsize=8192)
def _non_analytic(expr: sp.Basic) -> bool:
    # ``expr.has(*NON_ANALYTIC)``, cached per node: asked of F' and f at each
    # turn of the screen, and a group's answers share f and the derivatives
    # of their common terms.
    return isinstance(expr, NON_ANALYTIC) or any(_non_analytic(a) for a in expr.args)


@functools.lru_cache(maxsize=256)
def _compile(expr: sp.Expr, args: tuple[sp.Symbol, ...]):
    # A GRPO group checks 8+ answers against one integrand: compile it once;
    # and a check compares its F' on complex points, then on the real line.
    return compile_expr(args, expr)


class _Compiled:
    """F' and f lambdified once; evaluated at any precision."""

    def __init__(self, derivative: sp.Expr, integrand: sp.Expr, symbol: sp.Symbol,
                 params: list[sp.Symbol], param_values: list[str]) -> None:
        args = [symbol, *params]
        # Separately, rather than lambdifying a simplified residual:
        # ``simplify`` can produce a Piecewise holding ``zoo``, which lambdify
        # cannot compile at all.
        self.f_derivative = _compile(derivative, tuple(args))
        self.f_integrand = _compile(integrand, tuple(args))
        # The same compiled code on FLINT's balls, where both can run there.
        on_balls = [ball_function(self.f_derivative), ball_function(self.f_integrand)]
        self.balls = on_balls if all(on_balls) else None
        self.param_values = list(param_values)
        self.derivative, self.integrand, self.args = derivative, integrand, tuple(args)

    def at(self, point: Any, params: list[Any]) -> tuple[Any, Any] | None:
        """(F', f) at one point; ``None`` at a pole or outside a domain.
        Balls first (:mod:`.balls`); mpmath where a ball is not tight."""
        if self.balls is not None:
            values = evaluate(self.balls, point, params, lost_bits=_LOST_BITS)
            if values is not None:
                derivative, integrand = values
                value_f = to_mpmath(integrand)
                # Overlapping balls cannot tell F' from f at this precision
                # (a right answer's always overlap): one value, the exact zero
                # residual mpmath gives where its roundings of F' and f agree.
                # What they hide is below the round-off GUARD_DIGITS allows.
                if derivative.overlaps(integrand):
                    return value_f, value_f
                return to_mpmath(derivative), value_f
        try:
            return (mp.mpmathify(self.f_derivative(point, *params)),
                    mp.mpmathify(self.f_integrand(point, *params)))
        except Exception:  # noqa: BLE001 - a pole or domain error: point unusable
            return None

    def residuals(self, dps: int, points: list[Point], deadline: Deadline,
                  usable: set[int] | None = None, real_only: bool = True,
                  into: dict[int, tuple[Any, Any]] | None = None) -> dict:
        """Relative residual at each usable point index, at ``dps`` digits;
        ``into`` (when given) receives (F', f) at each of those points."""
        out: dict[int, Any] = {}
        with mp.workdps(dps):
            # Below this, any answer "agrees" (the residual's scale is at
            # least 1): such a point is no evidence.
            negligible = mp.mpf(10) ** (-(dps - GUARD_DIGITS))
            params = [mp.mpf(v) for v in self.param_values]
            for index, (re_, im_) in enumerate(points):
                if usable is not None and index not in usable:
                    continue
                deadline.check()
                point = mp.mpf(re_) if im_ == "0" else mp.mpc(re_, im_)
                values = within(CAPS.point_seconds, deadline, self.at, point, params)
                if values is None:
                    continue
                value_d, value_f = values
                if not (mp.isfinite(value_d) and mp.isfinite(value_f)):
                    continue
                if (real_only and im_ == "0"
                        and abs(mp.im(value_f)) > abs(value_f) * mp.mpf(10) ** (-dps // 2)):
                    # On the real line an antiderivative is owed only where
                    # the integrand is real: 2 sqrt((3x-1)^3) is right for
                    # 9 sqrt(3x-1) on x > 1/3 and on another branch below.
                    continue
                if max(abs(value_d), abs(value_f)) < negligible:
                    # Both sides vanish to this precision (csch(x)^3 at
                    # x = 750): any answer agrees here, so the point is no
                    # evidence, for or against.
                    continue
                scale = max(abs(value_d), abs(value_f), mp.mpf(1))
                out[index] = abs(value_d - value_f) / scale
                if into is not None:
                    into[index] = (value_d, value_f)
        return out


def _abs_values(fn, point, params) -> list[Any] | None:
    """|each term| at one point (``None`` for a term that cannot be sized)."""
    try:
        raw = fn(point, *params)
    except Exception:  # noqa: BLE001 - a pole in some term: this point says nothing
        return None
    out = []
    for value in raw:
        try:
            out.append(abs(mp.mpmathify(value)))
        except Exception:  # noqa: BLE001 - not a number: this term says nothing here
            out.append(None)
    return out


# Two evaluations of one value at different precisions that differ by more
# than this (relatively) were not both computing it: at least the lower one
# is noise (sin of an argument of size 10^450 at 30 digits).
_INFORMATIVE_RTOL = mp.mpf("1e-5")


def _same_value(low, high, floor) -> bool:
    size = max(abs(low), abs(high))
    return size <= floor or abs(low - high) <= _INFORMATIVE_RTOL * size


def _tiny(residual, dps: int) -> bool:
    return residual <= mp.mpf(10) ** (-(dps - GUARD_DIGITS))


def _classify(low, high, low_dps: int, high_dps: int) -> str:
    """zero | nonzero | undecided, from the residuals at two precisions."""
    if _tiny(high, high_dps):
        return "zero"
    added = high_dps - low_dps
    if high == 0 or (low > 0 and high <= low * mp.mpf(10) ** (-(added // 2))):
        # Shrinking by at least half the added digits is round-off being
        # squeezed out; accept only once the top level agrees to 20 digits.
        return "zero" if high <= mp.mpf("1e-20") else "undecided"
    if low == 0 or high >= low * mp.mpf(10) ** (-STABLE_ORDERS):
        # Stable, or a difference that only appeared with more digits (a
        # 1e-40 term is invisible at 30 digits): a real difference.
        return "nonzero"
    return "undecided"


def _literal_digits(*exprs: sp.Expr) -> int:
    """Decimal digits of the largest numerator or denominator of a literal,
    or of the largest or smallest constant power (e^{-300}: 131 digits)."""
    return max((_digits_of(e) for e in exprs), default=0)


@functools.lru_cache(maxsize=1024)
def _digits_of(expr: sp.Expr) -> int:
    # One walk, once per expression: a check builds several comparers of its
    # F' (complex points, the real spread, the domain's sample), and a group
    # compares 8+ answers with one integrand.
    best = 0
    for node in distinct_nodes(expr):
        if isinstance(node, sp.Rational):
            # bit_length, not str(): str() of a 5000-digit int raises ValueError.
            best = max(best, int(max(abs(node.p), node.q).bit_length() * 0.30103) + 1)
        elif isinstance(node, sp.Float):
            if node != 0:
                best = max(best, int(abs(mp.log10(abs(mp.mpf(node._mpf_))))))
        elif isinstance(node, (sp.exp, sp.Pow)) and not node.free_symbols:
            best = max(best, _constant_digits(node))
    return best


def _constant_digits(constant: sp.Expr) -> int:
    """|log10| of a constant power (0 when it cannot be sized)."""
    size = log_size(constant)
    return int(abs(size) / math.log(10)) if size is not None else 0


class NumericComparer:
    """Evaluates F' - f at the given points and escalates precision on demand.

    ``points`` are complex or real (``(re, "0")``); ``usable``, when given,
    restricts a real comparison to the points where the domain rule says
    both sides are real (:mod:`.domain`). ``screen()`` is the cheap first
    pass (30 digits, escalating only to confirm a rejection);
    ``confirm_zero()`` is the strict test an answer must pass to be accepted
    without a symbolic proof.
    """

    def __init__(self, derivative: sp.Expr, integrand: sp.Expr, symbol: sp.Symbol,
                 params: list[sp.Symbol], deadline: Deadline, points: list[Point], *,
                 param_values: list[str], usable: set[int] | None = None,
                 real_only: bool = True, extra_digits: int | None = None) -> None:
        self.points = list(points)
        # False for an integrand real nowhere: its (complex) values are
        # compared as they are, principal branches on both sides.
        self.real_only = real_only
        self.mode = "real" if all(im == "0" for _, im in self.points) else "complex"
        self.usable = usable
        self.deadline = deadline
        try:
            self._compiled: _Compiled | None = _Compiled(derivative, integrand, symbol, params,
                                                          param_values)
        except Exception:  # noqa: BLE001 - a node lambdify cannot print: no usable point
            self._compiled = None
        self._cache: dict[int, dict[int, Any]] = {}
        self._values: dict[int, dict[int, tuple[Any, Any]]] = {}
        # Points found to say nothing (see _cancellation_far_out).
        self._dropped: set[int] = set()
        self._sizes: dict[int, Any] = {}
        self._suspected: dict[tuple[int, ...], list[int]] = {}
        # A literal with d digits can hide a change of size 10^-d (inside a
        # function or a factor, where invisible_terms cannot see it): the
        # confirmation must resolve twice that (cos(10^-d) - 1 ~ 10^-2d).
        literal = 2 * max(0, _literal_digits(derivative, integrand) - 15)
        self.extra_digits = min(CAPS.extra_digits, max(literal, extra_digits or 0))
        # A constant below what the capped digits resolve (e^{-5000}): agreement
        # is then no evidence that a change of its size is absent.
        self.unresolved = literal > CAPS.extra_digits

    def _at(self, dps: int) -> dict[int, Any]:
        if self._compiled is None:
            return {}
        if dps not in self._cache:
            values = self._values.setdefault(dps, {})
            self._cache[dps] = self._compiled.residuals(dps, self.points, self.deadline,
                                                        self.usable, self.real_only, values)
        return self._cache[dps]

    def raise_to_sizes(self, dps: int) -> None:
        """Add to the strict levels the decimal orders of the largest |F'| or
        |f| at the points (evaluated at ``dps``): a difference of size 1
        where both are 10^78 is then as visible as anywhere else (capped at
        :attr:`Caps.size_digits <rewards.check.limits.Caps.size_digits>`)."""
        self._at(dps)
        sizes = [max(abs(d), abs(f)) for d, f in self._values.get(dps, {}).values()]
        top = max(sizes, default=mp.mpf(1))
        if top > 1:
            orders = int(mp.log10(top)) + 1
            self.extra_digits = min(CAPS.extra_digits,
                                    self.extra_digits + min(orders, CAPS.size_digits))

    def _informative(self, index: int, low: int, high: int) -> bool:
        """Whether F' and f at point ``index`` came out the same at ``low``
        and ``high`` digits. A point where they did not carried no
        information at ``low`` (the arguments there exceed what its digits
        resolve: e^{e^{2016 z}} at |z| = 0.9), so it decides nothing, for or
        against, at that pair of levels."""
        a, b = self._values.get(low, {}).get(index), self._values.get(high, {}).get(index)
        if a is None or b is None:
            return True
        with mp.workdps(high):
            floor = mp.mpf(10) ** (-(low - GUARD_DIGITS))
            return _same_value(a[0], b[0], floor) and _same_value(a[1], b[1], floor)

    def _common(self, *levels: int) -> tuple[list[Any], int, str | None]:
        """Worst residual per level over the points usable at every level."""
        maps = [self._at(d) for d in levels]
        keys = set(maps[0]) - self._dropped
        for m in maps[1:]:
            keys &= set(m)
        if len(levels) > 1:
            keys = {k for k in keys if self._informative(k, levels[0], levels[-1])}
        if not keys:
            return [None] * len(levels), 0, None
        worst_key = max(keys, key=lambda k: maps[-1][k])
        worst = [max(m[k] for k in keys) for m in maps]
        return worst, len(keys), self._label(worst_key)

    def _label(self, index: int) -> str:
        re_, im_ = self.points[index]
        return re_ if im_ == "0" else f"{re_}{'+' if not im_.startswith('-') else ''}{im_}j"

    def _size(self, index: int) -> Any:
        # |point|, asked of a point by the first look and again by its test.
        size = self._sizes.get(index)
        if size is None:
            re_, im_ = self.points[index]
            size = self._sizes[index] = abs(mp.mpc(mp.mpf(re_), mp.mpf(im_)))
        return size

    def _record(self, decision: str, levels: tuple[int, ...], worst: list[Any], n_usable: int,
                point: str | None) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "decision": decision,
            "n_points": len(self.points) if self.usable is None else len(self.usable),
            "n_usable": n_usable,
            "levels": list(levels),
            "worst_rel_residual": [None if w is None else mp.nstr(w, 3) for w in worst],
            "worst_point": point,
        }

    def screen(self) -> dict[str, Any]:
        """zero_low | zero | nonzero | inconclusive.

        ``zero_low`` means "agrees to 20 digits at 30-digit precision": good
        enough to go on to the symbolic proof, not good enough to accept
        without one (an added 1e-30 term hides there).
        """
        first = LEVELS[0]
        quick = self._first_look(first, LEVELS[1])
        if quick is not None:
            return quick
        worst, n_usable, point = self._common(first)
        if n_usable == 0:
            return self._record("inconclusive", (first,), worst, n_usable, point)
        if _tiny(worst[0], first):
            if n_usable < MIN_USABLE_POINTS:
                return self._record("inconclusive", (first,), worst, n_usable, point)
            return self._record("zero_low", (first,), worst, n_usable, point)
        return self._escalate()

    def _escalate(self) -> dict[str, Any]:
        # One point with a stable difference rejects; agreement needs
        # MIN_USABLE_POINTS of them (csch(x)^7 vanishes at most far points,
        # which are then no evidence: the few left must still reject).
        quick = self._worst_point_rejects(LEVELS[0], LEVELS[1])
        if quick is not None:
            return quick
        for low, high in zip(LEVELS, LEVELS[1:], strict=False):
            decision, worst, n_usable, point = self._decide(low, high)
            if decision == "nonzero":
                return self._record(decision, (low, high), worst, n_usable, point)
            if n_usable < MIN_USABLE_POINTS:
                return self._record("inconclusive", (low, high), worst, n_usable, point)
            if decision != "undecided":
                return self._record(decision, (low, high), worst, n_usable, point)
        return self._record("inconclusive", (LEVELS[-2], LEVELS[-1]), worst, n_usable, point)

    def _decide(self, low: int, high: int) -> tuple[str, list[Any], int, str | None]:
        """(decision, worst residuals, usable points, worst point) at two
        levels, once far-out points that only showed cancellation are out."""
        while True:
            worst, n_usable, point = self._common(low, high)
            decision = _classify(worst[0], worst[1], low, high) if n_usable else "undecided"
            if decision == "zero" or not self._cancellation_far_out(high):
                return decision, worst, n_usable, point

    def _worst_point_rejects(self, low: int, high: int) -> dict[str, Any] | None:
        """The usual wrong answer differs everywhere: its worst point at
        ``low`` digits, evaluated again at ``high``, already shows a stable
        difference, and the other points need no second evaluation. Far-out
        worst points take the full path (cancellation check)."""
        first = {k: v for k, v in self._at(low).items() if k not in self._dropped}
        if not first or self._compiled is None:
            return None
        k = max(first, key=lambda i: first[i])
        return self._rejects_at(k, low, high, first[k], len(first))

    def differs_in_doubles(self) -> bool:
        """Whether the first look (:meth:`_first_look`) has a point to test:
        F' and f clearly differ in doubles at a point within ``FAR_OUT``."""
        return any(self._size(j) <= FAR_OUT
                   for j in self._suspects(list(range(len(self.points)))))

    def _suspects(self, indices: list[int]) -> list[int]:
        """:func:`.first_look.suspects` at the points ``indices`` (positions
        in that list, the clearest difference first); empty when nothing
        can be said (no compiled F', a point or value past a double). Kept:
        the screen asks again at the same points after ``differs_in_doubles``."""
        key = tuple(indices)
        found = self._suspected.get(key)
        if found is None:
            found = self._suspected[key] = self._find_suspects(indices)
        return found

    def _find_suspects(self, indices: list[int]) -> list[int]:
        if self._compiled is None:
            return []
        try:
            values = [(complex(float(self.points[i][0]), float(self.points[i][1])),
                       self.points[i][1] == "0") for i in indices]
            params = [float(v) for v in self._compiled.param_values]
        except (OverflowError, ValueError):
            return []
        return suspects(self._compiled.derivative, self._compiled.integrand,
                        self._compiled.args, values, params, self.real_only)

    def first_look_rejection(self, owed: Callable[[int], bool]) -> dict[str, Any] | None:
        """The first look's rejection (:meth:`_first_look`) on points whose
        usability is decided only when one is tried, by ``owed(index)``;
        those found owed become this comparer's usable points. ``None`` when
        no tried point rejects: nothing is decided then."""
        return self._first_look(LEVELS[0], LEVELS[1], owed)

    def _first_look(self, low: int, high: int,
                    owed: Callable[[int], bool] | None = None) -> dict[str, Any] | None:
        """The same test on the points where F' and f differ most in
        doubles (:mod:`.first_look`), before any point is evaluated at
        ``low`` digits: a wrong answer is then rejected on one or two points
        instead of all of them. ``None``: the full pass decides."""
        if self._compiled is None:
            return None
        if owed is None and self.usable is not None:
            indices = [i for i in range(len(self.points)) if i in self.usable]
        else:
            indices = list(range(len(self.points)))
        if owed is not None:
            self.usable = set()  # filled with the points found owed, as they are tried
        tried = 0
        for j in self._suspects(indices):
            k = indices[j]
            if self._size(k) > FAR_OUT:
                continue
            if tried == CAPS.first_look_tries:
                break
            if owed is not None:
                if not owed(k):
                    continue
                self.usable.add(k)
            tried += 1
            record = self._rejects_at(k, low, high)
            if record is not None:
                return {**record, "first_look": tried}
        return None

    def _rejects_at(self, k: int, low: int, high: int, at_low: Any = None,
                    n_usable: int = 1) -> dict[str, Any] | None:
        """The rejection record when point ``k`` shows a stable, informative
        difference at ``low`` and ``high`` digits (``at_low``: its residual at
        ``low`` when already known); else ``None``. Far-out points take the
        full path (cancellation check)."""
        if self._size(k) > FAR_OUT:
            return None
        values: dict[int, tuple[Any, Any]] = {}
        if at_low is None:
            at_low = self._compiled.residuals(low, self.points, self.deadline, {k},
                                              self.real_only, values).get(k)
            if at_low is None:
                return None
            self._values.setdefault(low, {}).update(values)
            values = {}
        if _tiny(at_low, low):
            return None
        again = self._compiled.residuals(high, self.points, self.deadline, {k},
                                         self.real_only, values).get(k)
        if again is None or _classify(at_low, again, low, high) != "nonzero":
            return None
        self._values.setdefault(high, {}).update(values)
        if not self._informative(k, low, high):
            return None
        # Near the origin a stable, informative difference is no cancellation
        # (FAR_OUT): only a branch can still explain it (gather.py).
        return {**self._record("nonzero", (low, high), [at_low, again], n_usable,
                               self._label(k)), "near_point": True}

    def _cancellation_far_out(self, dps: int) -> bool:
        """Whether the worst point is far out and its difference only
        cancellation: then it is dropped (True) and the rest decide. Also for
        a residual that shrank too little with more digits to call.

        ``1 - sqrt(1 + e^x)`` at x = -340 is 10^-148, and 0 at 30 or 60
        digits: a correct answer then differs there at every level the
        screen uses. Far out (|z| > FAR_OUT), the worst point is evaluated
        once more with the digits a cancellation there can eat
        (:meth:`_cancelled_digits`); a difference that was cancellation
        vanishes, a real one stays.
        """
        residuals = self._at(dps)
        keys = [k for k in residuals if k not in self._dropped]
        if not keys:
            return False
        worst = max(keys, key=lambda k: residuals[k])
        size = self._size(worst)
        if size <= FAR_OUT or self._compiled is None:
            return False
        digits = min(CAPS.far_digits, dps + self._cancelled_digits(worst, size))
        again = self._compiled.residuals(digits, self.points, self.deadline, {worst},
                                         self.real_only).get(worst)
        if (again is not None and not _tiny(again, dps) and digits < CAPS.far_digits
                and again < residuals[worst] * mp.mpf(10) ** (-STABLE_ORDERS)):
            # Still shrinking: the cancellation ate more than that estimate.
            # Round-off falls one order per added digit, so the digits still
            # owed are read off the residual; a real difference does not move.
            owed = int(mp.log10(again)) + dps - GUARD_DIGITS + 1
            digits = min(CAPS.far_digits, digits + max(owed, 0) + GUARD_DIGITS)
            again = self._compiled.residuals(digits, self.points, self.deadline, {worst},
                                             self.real_only).get(worst)
        # Tiny at the screen's own standard: the extra digits only have to
        # make up for what the cancellation ate. No value there: the
        # difference stands (dropping it would drop evidence).
        if again is None or not _tiny(again, dps):
            return False
        self._dropped.add(worst)
        return True

    def _cancelled_digits(self, index: int, size: Any) -> int:
        """Digits a cancellation at the far-out point ``index`` can eat:
        e^{-2g} next to 1, g the largest |Re| of an exponential's argument
        there (|Im| for a circular function's). 1 - coth(z)^2 is 4e^{-2z}:
        at z = 166 that is 10^-144, and at fewer digits F' comes out as a
        finite wrong value, the same at 60 digits as at 134, which no
        comparison of levels can tell from a real difference. g is at least
        |z| (e^z in a power or a product of two, no exponential written)."""
        growth = mp.mpf(size)
        try:
            arguments = self._growth_arguments
            if arguments:
                re_, im_ = self.points[index]
                with mp.workdps(15):
                    point = mp.mpc(mp.mpf(re_), mp.mpf(im_))
                    params = [mp.mpf(v) for v in self._compiled.param_values]
                    for value, circular in zip(arguments[0](point, *params), arguments[1],
                                               strict=True):
                        value = mp.mpmathify(value)
                        growth = max(growth, abs(mp.im(value) if circular else mp.re(value)))
        except Exception:  # noqa: BLE001 - an argument with no value there: |z| it is
            pass
        return int(min(2 * growth / mp.log(10), CAPS.far_digits)) + GUARD_DIGITS

    @functools.cached_property
    def _growth_arguments(self) -> tuple[Callable[..., Any], list[bool]] | None:
        """The arguments of F' and f's exponentials (circular: True), compiled."""
        compiled = self._compiled
        found: dict[sp.Expr, bool] = {}
        for expr in (compiled.derivative, compiled.integrand):
            for node in distinct_nodes(expr):
                if isinstance(node, (sp.exp, *HYPERBOLIC)):
                    found.setdefault(node.args[0], False)
                elif isinstance(node, CIRCULAR):
                    found.setdefault(node.args[0], True)
                elif node.is_Pow and not node.exp.is_Number:
                    found.setdefault(node.exp * sp.log(node.base), False)
        arguments = [a for a in found if a.free_symbols]
        if not arguments:
            return None
        return compile_expr(compiled.args, tuple(arguments)), [found[a] for a in arguments]

    def invisible_terms(self, derivative: sp.Expr, symbol: sp.Symbol, params: list[sp.Symbol],
                        max_terms: int = CAPS.sized_terms) -> list[str]:
        """Additive terms of F' that are below round-off at EVERY sample point.

        A numeric-only accept cannot see a term that vanishes at all sample
        points: ``10^{-200} x``, ``e^{-500}``, a narrow bump
        ``e^{-10^4 (x - 0.3)^2}`` between the points. Such a term is what an
        exploit adds (the rest of F' must match f for it to pass at all);
        terms of a true antiderivative are not negligible everywhere at once.
        All terms are compiled into one function: a 50-term expanded
        polynomial with e^{-300} added is one evaluation per point, not 51.
        """
        top = LEVELS[-1]
        expanded = sp.expand(derivative, deep=False, power_base=False, power_exp=False,
                             log=False, multinomial=False)
        terms = [t for t in sp.Add.make_args(expanded) if t.has(symbol) or not t.is_zero]
        if len(terms) < 2 or len(terms) > max_terms:
            return []
        scales = self._scales(top)
        args = [symbol, *params]
        try:
            fn = compile_expr(args, terms)
        except Exception:  # noqa: BLE001 - unlambdifiable: cannot judge
            return []
        seen = [0] * len(terms)
        visible = [False] * len(terms)
        with mp.workdps(top):
            values = [mp.mpf(v) for v in self._compiled.param_values]
            for index, scale in scales.items():
                self.deadline.check()
                re_, im_ = self.points[index]
                point = mp.mpf(re_) if im_ == "0" else mp.mpc(re_, im_)
                sizes = within(CAPS.point_seconds, self.deadline, _abs_values, fn, point, values)
                if sizes is None:
                    continue
                floor = scale * mp.mpf(10) ** (-(top - GUARD_DIGITS))
                for k, size in enumerate(sizes):
                    if size is None or not mp.isfinite(size):
                        continue
                    seen[k] += 1
                    visible[k] = visible[k] or size > floor
        return [show(term, 200) for k, term in enumerate(terms)
                if seen[k] >= MIN_USABLE_POINTS and not visible[k]]

    def _scales(self, dps: int) -> dict[int, Any]:
        """max(|F'|, |f|, 1) at each usable point, at ``dps`` digits."""
        out = {}
        with mp.workdps(dps):
            params = [mp.mpf(v) for v in self._compiled.param_values]
            for index in self._at(dps):
                re_, im_ = self.points[index]
                point = mp.mpf(re_) if im_ == "0" else mp.mpc(re_, im_)
                values = within(CAPS.point_seconds, self.deadline, self._compiled.at, point, params)
                if values is not None:
                    out[index] = max(abs(values[0]), abs(values[1]), mp.mpf(1))
        return out

    def confirm_zero(self) -> dict[str, Any]:
        """Strict test for a numeric-only accept: the top two precision
        levels must classify as zero, so a hidden term would have to be
        below about 1e-110 to slip through."""
        low, high = LEVELS[-2] + self.extra_digits, LEVELS[-1] + self.extra_digits
        decision, worst, n_usable, point = self._decide(low, high)
        if n_usable < MIN_USABLE_POINTS:
            return self._record("inconclusive", (low, high), worst, n_usable, point)
        if decision == "zero" and self.unresolved:
            record = self._record("inconclusive", (low, high), worst, n_usable, point)
            record["note"] = "a constant below what these digits resolve: only a proof accepts"
            return record
        return self._record(decision, (low, high), worst, n_usable, point)
