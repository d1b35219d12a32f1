"""Piecewise answers: the pieces must cover the integrand's real domain,
and each piece must be right on its own interval."""
from __future__ import annotations

import sympy as sp

from ..errors import ParseFailure
from ..result import safe_text

# Points tried inside an uncovered interval: relative positions inside a
# bounded one, offsets from the end of a half-line.
_INSIDE = (sp.Rational(1, 7), sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(2, 3),
           sp.Rational(6, 7))
_OFFSETS = (sp.Rational(1, 3), sp.Rational(2), sp.Rational(17, 2), sp.Integer(100))
_PARAMETER_VALUE = sp.Rational(13, 10)


def _gap_points(interval: sp.Interval) -> list[sp.Expr]:
    lo, hi = interval.start, interval.end
    if lo.is_finite and hi.is_finite:
        return [lo + (hi - lo) * t for t in _INSIDE]
    if lo.is_finite:
        return [lo + d for d in _OFFSETS]
    if hi.is_finite:
        return [hi - d for d in _OFFSETS]
    return [sp.Rational(-7, 3), sp.Rational(-1, 2), sp.Rational(3, 5), sp.Rational(5, 2)]


def _value(expr: sp.Expr, x: sp.Symbol, point: sp.Expr) -> complex | None:
    """``expr`` at ``point`` to 30 digits; None where it is not a finite number."""
    try:
        value = complex(sp.N(expr.xreplace({x: point}), 30))
    except (TypeError, ValueError, ArithmeticError):
        return None
    if value != value or abs(value) == float("inf"):
        return None
    return value


def _is_real(value: complex | None) -> bool:
    """A finite, non-zero real number (0 says nothing: x/sqrt(x^2 - 1) is
    0/i at x = 0)."""
    return (value is not None and value != 0
            and abs(value.imag) <= 1e-12 * abs(value.real))


def _intervals(region: sp.Set) -> list[sp.Interval]:
    parts = region.args if isinstance(region, sp.Union) else (region,)
    out = []
    for part in parts:
        if part is sp.S.EmptySet or isinstance(part, sp.FiniteSet):
            continue
        if not isinstance(part, sp.Interval):
            raise ParseFailure("cases_condition",
                               f"cannot tell where the conditions hold ({type(part).__name__})")
        out.append(part)
    return out


def piecewise_refusal(candidate: sp.Expr, integrand: sp.Expr,
                      x: sp.Symbol) -> dict[str, object] | None:
    r"""Why a piecewise answer is WRONG, or None (then the usual checks decide).

    A ``cases`` answer (a Piecewise) says what F is on each condition's set,
    and nothing where no condition holds; a sample of points can miss a
    piece altogether. So, before the general comparison:

    * **coverage** (``piecewise_gap``): the conditions together must cover
      the integrand's real domain. The uncovered set may be finitely many
      points (``\ln x`` for ``x > 0``, ``\ln(-x)`` for ``x < 0``, for 1/x) or
      intervals where the integrand is not real (``\sqrt{x^2-1}`` for
      ``|x| > 1``, for x/\sqrt{x^2-1}); an interval where the integrand is
      real at one of a few points inside it is a gap.
    * **every piece** (``piecewise_piece``): F' is compared with the
      integrand at points inside the interval where each piece applies
      (after the pieces before it, as Piecewise reads them), however far
      out or narrow the interval; a clear difference (relative 1e-8 at 30
      digits) at a point where both are real is WRONG. Agreement proves
      nothing here: acceptance still goes through the numeric and symbolic
      stages.

    ``x`` is the real variable; the integrand's parameters are given the
    value 13/10. Raises :class:`ParseFailure` (``cases_condition``) when the
    set of a condition cannot be computed.
    """
    pieces = candidate.atoms(sp.Piecewise)
    if not pieces:
        return None
    params = {s: _PARAMETER_VALUE for s in integrand.free_symbols if s != x}
    probe = integrand.xreplace(params)
    derivative = sp.diff(candidate, x).xreplace(params)
    gaps: list[str] = []
    points: list[sp.Expr] = []
    for piecewise in pieces:
        try:
            before: sp.Set = sp.S.EmptySet
            for _expr, cond in piecewise.args:
                region = sp.S.Reals if cond is sp.true else cond.as_set()
                points.extend(p for part in _intervals(sp.Complement(region, before))
                              for p in _gap_points(part))
                before = sp.Union(before, region)
            uncovered = _intervals(sp.Complement(sp.S.Reals, before))
        except (NotImplementedError, TypeError, ValueError, AttributeError) as exc:
            raise ParseFailure("cases_condition",
                               f"cannot tell where the conditions hold: {exc}"[:200]) from None
        gaps.extend(safe_text(part) for part in uncovered
                    if any(_is_real(_value(probe, x, p)) for p in _gap_points(part)))
    if gaps:
        return {"reason": "piecewise_gap", "uncovered": gaps}
    for point in points:
        f = _value(probe, x, point)
        d = _value(derivative, x, point)
        if _is_real(f) and d is not None and abs(d - f) > 1e-8 * max(1.0, abs(f)):
            return {"reason": "piecewise_piece", "point": safe_text(point),
                    "derivative": f"{d.real:.6g}", "integrand": f"{f.real:.6g}"}
    return None
