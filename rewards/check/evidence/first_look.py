"""A first look in double precision: which point to test a rejection on.

Most wrong answers differ from the integrand everywhere (``2F``, ``-F``,
``F + x``). The screen's 30-digit pass evaluates F' and f at every point
through mpmath (0.3 to 1 ms a point) before its worst point is evaluated
again at 60 digits to confirm the difference. SymEngine's ``Lambdify``
evaluates both at all the points in complex doubles in well under a
millisecond: the point where they differ most is then evaluated at 30 and
60 digits first, and a stable difference there rejects, exactly as the same
point would after the full pass (:meth:`.numeric.NumericComparer.screen`).

The same doubles tell the checker what to try first. Where F' and f agree
to ten digits at every complex point the screen would use, or, without a
branch, to six digits at those near the origin (:func:`agree`), the screen
would find no difference that a proof could contradict, and the normal-form
proof runs before it: a proved answer then pays for no multi-precision
evaluation at all, and an unproved one goes on to the screen as before.

Doubles only choose the point and the order; nothing is decided on them. A double value
that overflowed, lost its digits to cancellation or took another branch
chooses a point whose 30/60-digit test then fails to reject, and the full
pass runs as it always did. Without SymEngine (the ``[fast]`` extra) there
is no first look.
"""
from __future__ import annotations

import cmath
import functools
from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..limits import CAPS
from ..walk import distinct_nodes

try:
    import symengine as se
except ImportError:  # the screen is complete without it
    se = None

# A relative difference below this in doubles may be round-off (or a
# correct answer's cancellation): such a point is not worth testing first.
DOUBLE_RTOL = 1e-6
# Agreement to this relative difference at every point: what a right answer
# shows in doubles. A branch taken differently off the real axis (the reason
# the screen turns to the real line) differs by a sign or 2*pi*i, far above it.
AGREE_RTOL = 1e-10
# Values below this may have lost their digits to underflow: no agreement.
_TINY = 1e-280
# Where single-valued expressions are compared in doubles (see agree), and
# how many points there are needed.
NEAR = 3.0
MIN_NEAR = 2


def _symbols_if_convertible(expr: sp.Expr) -> set[sp.Symbol] | None:
    """The symbol nodes of ``expr``, or ``None`` when SymEngine must not
    hold it: a Dummy, or an integer power of a number SymEngine would
    evaluate exactly as it builds it (in C, where no deadline reaches:
    3**(10**8) would stall the worker). One walk for both."""
    symbols = set()
    for node in distinct_nodes(expr):
        if node.is_Symbol:
            if isinstance(node, sp.Dummy):
                return None
            symbols.add(node)
        elif node.is_Pow and node.base.is_number and node.exp.is_number:
            if not node.exp.is_Rational or abs(node.exp) > CAPS.first_look_exponent:
                return None
    return symbols


@functools.lru_cache(maxsize=512)
def _double_function(expr: sp.Expr, args: tuple[sp.Symbol, ...]) -> Any:
    """SymEngine's complex-double function of ``expr``, or None."""
    if se is None:
        return None
    symbols = _symbols_if_convertible(expr)
    # Every symbol an argument; else the free ones (a bound one needs none).
    if symbols is None or not (symbols <= set(args) or expr.free_symbols <= set(args)):
        return None
    if len({a.name for a in args}) != len(args):
        return None  # SymEngine's symbols are names: two of one name would merge
    try:
        return se.Lambdify([se.Symbol(a.name) for a in args], [_symengine_form(expr)],
                           real=False)
    except Exception:  # noqa: BLE001 - anything SymEngine cannot hold gets no first look
        return None


def _symengine_form(expr: sp.Expr) -> Any:
    """``se.sympify(expr)``, a sum term by term and a term's number apart:
    a group's answers share the derivatives of their terms (2F, -F, F + x),
    and the conversion of each is kept (SymEngine's sum and product of the
    parts are the same canonical objects as the whole's)."""
    if not expr.is_Add:
        return _symengine_term(expr)
    return se.Add(*[_symengine_term(term) for term in expr.args])


def _symengine_term(term: sp.Expr) -> Any:
    coefficient, rest = term.as_coeff_Mul()
    if coefficient is sp.S.One:
        return _symengine_part(rest)
    return se.Mul(_symengine_part(coefficient), _symengine_part(rest))


@functools.lru_cache(maxsize=4096)
def _symengine_part(expr: sp.Expr) -> Any:
    return se.sympify(expr)


def _values(derivative: sp.Expr, integrand: sp.Expr, args: Sequence[sp.Symbol],
            points: Sequence[complex], param_values: Sequence[float]) -> Any:
    """F' and f at ``points`` in complex doubles, as two flat arrays, or None."""
    args = tuple(args)
    d_fn, f_fn = _double_function(derivative, args), _double_function(integrand, args)
    if d_fn is None or f_fn is None or not points:
        return None
    rows = [[value, *param_values] for value in points]
    try:
        return d_fn(rows).ravel(), f_fn(rows).ravel()
    except Exception:  # noqa: BLE001 - no double value somewhere: no first look
        return None


def agree(derivative: sp.Expr, integrand: sp.Expr, args: Sequence[sp.Symbol],
          points: Sequence[complex], param_values: Sequence[float], *,
          single_valued: bool = False) -> bool:
    """Whether F' and f agree in doubles at ``points``: both finite and away
    from zero at every point, within :data:`AGREE_RTOL` of each other.
    ``False`` whenever something cannot be said (no SymEngine, an overflow,
    a zero, a value SymEngine cannot compute).

    ``single_valued`` (neither side may branch, :func:`~rewards.check.function_facts.may_branch`):
    then no branch off the real axis can make a proved F' = f differ at a
    complex point, so what comes first changes no verdict, only its cost.
    Then the points within :data:`NEAR` of the origin decide (at least
    :data:`MIN_NEAR` of them), with round-off up to :data:`DOUBLE_RTOL`:
    farther out, doubles lose an exponential's digits to cancellation
    (csch(z)^6 coth(z)^4 at Re z = 12 is 1e-52, its derivative's terms 1e-10)."""
    if single_valued:
        points = [p for p in points if abs(p) <= NEAR]
        if len(points) < MIN_NEAR:
            return False
    values = _values(derivative, integrand, args, points, param_values)
    if values is None:
        return False
    rtol = DOUBLE_RTOL if single_valued else AGREE_RTOL
    for d, f in zip(*values, strict=True):
        d, f = complex(d), complex(f)
        if not (cmath.isfinite(d) and cmath.isfinite(f)):
            return False
        scale = max(abs(d), abs(f))
        if scale < _TINY or abs(d - f) > rtol * scale:
            return False
    return True


def suspects(derivative: sp.Expr, integrand: sp.Expr, args: Sequence[sp.Symbol],
             points: Sequence[tuple[complex, bool]], param_values: Sequence[float],
             real_only: bool) -> list[int]:
    """Indices of ``points`` where F' and f clearly differ in doubles, the
    largest relative difference first (empty when nothing can be said).

    ``points`` are (value, on the real line); on the real line a point where
    f is not real is skipped when ``real_only``, as the screen skips it.
    """
    values = _values(derivative, integrand, args, [value for value, _ in points], param_values)
    if values is None:
        return []
    d_values, f_values = values
    ranked = []
    for index, ((_, real), d, f) in enumerate(zip(points, d_values, f_values, strict=True)):
        d, f = complex(d), complex(f)
        if not (cmath.isfinite(d) and cmath.isfinite(f)):
            continue
        if real_only and real and abs(f.imag) > abs(f) * 1e-8:
            continue
        residual = abs(d - f) / max(abs(d), abs(f), 1.0)
        if residual > DOUBLE_RTOL:
            ranked.append((residual, index))
    ranked.sort(reverse=True)
    return [index for _, index in ranked]
