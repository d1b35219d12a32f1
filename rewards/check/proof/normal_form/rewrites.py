"""Rewrites for the second rung, each an identity at every real x: inverse
trig and hyperbolic functions as logs, radicands split where the split
holds for all real x, denested constant square roots."""
from __future__ import annotations

import functools
from collections.abc import Callable
from functools import reduce

import sympy as sp
from sympy.polys.domains import QQ

from ...function_facts import FACTS
from .algebra import _real_valued

# --------------------------------------------------------------------------
# Rewrites used by the later rungs (each an identity for real x).
# --------------------------------------------------------------------------

# Inverse trig and hyperbolic functions as logs (function_facts: Facts.log_form).
_INVERSE_AS_LOG: dict[type, Callable[[sp.Expr], sp.Expr]] = {
    cls: facts.log_form for cls, facts in FACTS.items() if facts.log_form is not None}


def _inverse_to_log(expr: sp.Expr) -> sp.Expr:
    """Inverse trig/hyperbolic -> logs and radicals, for real-valued
    arguments only: each formula equals SymPy's principal value at every
    real u, on both sides of +-1 (checked in the tests)."""
    return expr.replace(
        lambda e: type(e) in _INVERSE_AS_LOG and _real_valued(e.args[0]),
        lambda e: _INVERSE_AS_LOG[type(e)](e.args[0]))


def _split_radicals(expr: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """sqrt(1 - x**2) -> sqrt(1 - x) sqrt(1 + x) where that holds for EVERY
    real x (see :func:`_split_radicand`); radicands that are rational
    functions of x with rational coefficients only."""
    pows = [p for p in expr.atoms(sp.Pow)
            if p.exp.is_Rational and not p.exp.is_Integer and p.base.free_symbols == {x}]
    preferred = {sp.expand(p.base) for p in pows}
    mapping = {}
    for p in pows:
        factors = _split_radicand(p.base, x, preferred)
        if factors is not None:
            mapping[p] = sp.Mul(*[f ** (e * p.exp) for f, e in factors])
    return expr.xreplace(mapping)


def _split_radicand(u: sp.Expr, x: sp.Symbol, preferred: set[sp.Expr]
                    ) -> list[tuple[sp.Expr, int]] | None:
    """u = c * prod f_i**e_i with u**r = c**r * prod (f_i**r)**e_i valid for
    all real x, or None.

    For real factors, Log(prod f_i**e_i) = sum e_i Log f_i + 2*pi*I*k where
    sum e_i arg f_i = pi * m(x), m(x) the sum of e_i over the factors negative
    at x.  The split is exact iff m(x) is 0 or 1 at every real x: checked at
    one point between consecutive real roots (exact rational arithmetic).
    Even powers are |f|**e (real f), non-negative, so they never count.
    """
    try:
        factored = _factored(u, x)
    except Exception:  # noqa: BLE001 - not a rational function over QQ: leave it
        return None
    const, factors = factored[0], []
    for f, e in factored[1]:
        if _negated(f) in preferred and f not in preferred:
            f, const = _negated(f), const * (-1) ** e
        factors.append((f, e))
    odd = [(f, e) for f, e in factors if e % 2]
    even = [(sp.Abs(f), e) for f, e in factors if e % 2 == 0]
    if const < 0:
        odd.append((sp.S.NegativeOne, 1))
    head = [(abs(const), 1)]
    if _split_is_exact(tuple(odd), x):
        return head + odd + even
    if even:
        # The odd part as one radicand: only positive factors are pulled out.
        return head + [(sp.Mul(*[f ** e for f, e in odd]), 1)] + even
    return None


# Cached: a group's derivatives and its integrand share their radicands (the
# hard batch's 73 splits had 8 distinct ones), and factoring them over QQ was
# most of a split. An exception (not over QQ, a time-out) is not cached.
@functools.lru_cache(maxsize=1024)
def _factored(u: sp.Expr, x: sp.Symbol) -> tuple[sp.Rational, tuple[tuple[sp.Expr, int], ...]]:
    """u as (c, ((f_i, e_i), ...)) over QQ: e_i < 0 for the denominator's."""
    num, den = sp.fraction(sp.cancel(u))
    c_num, fl_num = sp.factor_list(sp.Poly(num, x, domain=QQ))
    c_den, fl_den = sp.factor_list(sp.Poly(den, x, domain=QQ))
    factors = [(f.as_expr(), m) for f, m in fl_num] + [(f.as_expr(), -m) for f, m in fl_den]
    return sp.Rational(c_num) / sp.Rational(c_den), tuple(factors)


@functools.lru_cache(maxsize=1024)
def _negated(f: sp.Expr) -> sp.Expr:
    return sp.expand(-f)


@functools.lru_cache(maxsize=1024)
def _split_is_exact(odd: tuple[tuple[sp.Expr, int], ...], x: sp.Symbol) -> bool:
    polys = [(sp.Poly(f, x, domain=QQ), e) for f, e in odd]
    product = reduce(lambda a, b: a * b, (p for p, _ in polys), sp.Poly(1, x, domain=QQ))
    points = _gap_points(product)
    if points is None:
        return False
    for t in points:
        negative = sum(e for p, e in polys if p.eval(t) < 0)
        if negative not in (0, 1):
            return False
    return True


def _gap_points(poly: sp.Poly) -> list[sp.Rational] | None:
    """A rational point in each open interval between consecutive real roots
    (and beyond the outermost ones); None if one could not be placed."""
    if poly.degree() < 1:
        return [sp.S.Zero]
    intervals = [(sp.Rational(a), sp.Rational(b)) for (a, b), _ in poly.intervals()]
    if not intervals:
        return [sp.S.Zero]
    points = [intervals[0][0] - 1, intervals[-1][1] + 1]
    for (_, right), (left, _) in zip(intervals, intervals[1:], strict=False):
        t = (right + left) / 2
        if poly.eval(t) == 0:
            return None
        points.append(t)
    return points




def _denest_constants(expr: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """sqrt(a + b*sqrt(c)) -> sqrt((a+d)/2) + sign(b) sqrt((a-d)/2) when
    d = sqrt(a**2 - b**2 c) is rational and a >= d >= 0: squaring gives
    a + b sqrt(c) back and the result is >= 0, so it IS the principal root
    (exact, no numerics).  Rubi writes sqrt(3 - sqrt(5)) where the
    integrand's roots give sqrt(10)/2 - sqrt(2)/2."""
    mapping = {}
    for p in expr.atoms(sp.Pow):
        if p.exp.is_Rational and p.exp.q == 2 and not p.base.free_symbols:
            root = _denest_sqrt(p.base)
            if root is not None:
                mapping[p] = root ** (2 * p.exp)
    return expr.xreplace(mapping) if mapping else expr


def _denest_sqrt(u: sp.Expr) -> sp.Expr | None:
    a, rest = u.as_coeff_Add()
    b, surd = rest.as_coeff_Mul()
    if not (a.is_Rational and b.is_Rational and surd.is_Pow and surd.exp == sp.S.Half
            and surd.base.is_Integer and surd.base > 0):
        return None
    c = surd.base
    d = sp.sqrt(a ** 2 - b ** 2 * c)
    if not d.is_Rational or a < d:
        return None
    return sp.sqrt((a + d) / 2) + sp.sign(b) * sp.sqrt((a - d) / 2)


def _quadratic_surd(u: sp.Expr) -> tuple[sp.Rational, sp.Rational, sp.Integer] | None:
    """(a, b, c) with u = a + b sqrt(c), c > 1 an integer; else None."""
    a, rest = u.as_coeff_Add()
    b, surd = rest.as_coeff_Mul()
    if (a.is_Rational and b.is_Rational and b != 0 and surd.is_Pow
            and surd.exp == sp.S.Half and surd.base.is_Integer and surd.base > 1):
        return a, b, surd.base
    return None


def _positive_surd(a: sp.Rational, b: sp.Rational, c: sp.Integer) -> bool:
    """a + b sqrt(c) > 0, decided exactly."""
    if a >= 0 and b >= 0:
        return a > 0 or b > 0
    if a <= 0 and b <= 0:
        return False
    return a ** 2 > b ** 2 * c if a > 0 else b ** 2 * c > a ** 2


def _pair_constant_roots(expr: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """sqrt(v) -> sqrt(u v) / sqrt(u) where u, v > 0 lie in one Q(sqrt c)
    and sqrt(u v) is rational or denests (:func:`_denest_sqrt`): exact, as
    sqrt(u) sqrt(v) = sqrt(u v) for positive u and v. The normal form
    takes sqrt(u) and sqrt(v) for independent symbols, but partial
    fractions over the roots of x^4 + x^2 - 1 give Rubi's
    sqrt(2/5 + sqrt(5)/5) sqrt(1/2 + sqrt(5)/2) = 1/2 + 3 sqrt(5)/10."""
    surds = {}
    for p in expr.atoms(sp.Pow):
        if p.exp.is_Rational and p.exp.q == 2 and not p.base.free_symbols:
            parts = _quadratic_surd(p.base)
            if parts is not None and _positive_surd(*parts):
                surds[p.base] = parts[2]
    bases: list[sp.Expr] = []
    values: dict[sp.Expr, sp.Expr] = {}
    for v in sorted(surds, key=sp.default_sort_key):
        for u in bases:
            if surds[u] != surds[v]:
                continue
            product = sp.expand(u * v)
            root = sp.sqrt(product) if product.is_Rational else _denest_sqrt(product)
            if root is not None:
                values[v] = root * sp.sqrt(u) / u
                break
        else:
            bases.append(v)
    if not values:
        return expr
    return expr.xreplace({p: values[p.base] ** (2 * p.exp) for p in expr.atoms(sp.Pow)
                          if p.base in values and p.exp.is_Rational and p.exp.q == 2})


# Rewrites for the second rung, each an identity at every real x.
REWRITES: tuple[tuple[str, Callable[[sp.Expr, sp.Symbol], sp.Expr]], ...] = (
    ("inverse_to_log", lambda e, x: _inverse_to_log(e)),
    ("split_radicals", _split_radicals),
    ("denest", _denest_constants),
    ("pair_roots", _pair_constant_roots),
)

