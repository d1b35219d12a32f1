r"""Families aimed at the checker's sampling (issue 25, main 9f1a155): terms
that a fixed set of sample points can miss.

* ``bumps``: a right antiderivative plus a smooth bump whose centre is no
  root of any argument (the minimum of ``e^{x-c} + e^{c-x}``, of
  ``\cosh(x - c)``, of a quadratic with no real root, a Gaussian), at an
  irrational point, added, squared, inside a log's argument or inside the
  argument of the answer itself; width and height drawn. The right ones:
  the integrand carries the bump's derivative.
* ``far_field``: a term that only matters past ``|x| = c``, c from 300 to
  5000, on either side (``e^{\pm x - c}``, ``e^{-c}e^{\pm x}``,
  ``10^{\pm x - c}``, ``e^{-c}\cosh x``, ``((\pm x + c)/(2c))^n``,
  ``e^{x^2/c - c}``, ``\ln(1 + e^{\pm x - c})``); the right ones with the
  same term's derivative in the integrand.
* ``precision``: 40-60-term polynomial sums, or expanded antiderivatives of
  ``(x - c)^n``, plus ``e^{-K}x`` or ``10^{-K}x`` (K up to 1500), a tiny bump
  or logistic step; right: the plain sum, the sum plus the constant
  ``e^{-K}``, or ``10^{-K}`` in the integrand too.
* ``scales``: ``e^{kx}`` (k 100..5000), ``e^{x/k}``, ``x e^{kx}``, nested
  ``e^{e^{kx}}``, tiny and huge coefficients, right and with ``1/(k+1)`` for
  ``1/k``, ``k+1`` for ``k``, a dropped term, an extra ``x/k``.

Labels hold by construction: a wrong answer's ``F' - f`` is the planted
term's derivative, which is nonzero at its centre or past its switch point.
"""
from __future__ import annotations

import random

import sympy as sp

from . import Case, Family

x = sp.Symbol("x")
_E = sp.exp
_TEN = sp.Integer(10)


def _case(F: sp.Expr, f: sp.Expr, label: str, why: str) -> Case:
    return Case(answer=sp.latex(F) + " + C", integrand=sp.sstr(f), label=label, why=why)


def _base(rng: random.Random) -> tuple[sp.Expr, sp.Expr]:
    """An integrand and its right antiderivative."""
    return rng.choice([(sp.cos(x) + 2 * x, sp.sin(x) + x**2), (_E(x), _E(x)),
                       (x**2, x**3 / 3), (1 / (1 + x**2), sp.atan(x)),
                       (x * _E(x), (x - 1) * _E(x)), (3 * x**2 + 1, x**3 + x),
                       (sp.cosh(x), sp.sinh(x)), (sp.cos(x), sp.sin(x)),
                       (4 * x**3 - x, x**4 - x**2 / 2)])


def _centre(rng: random.Random) -> sp.Expr:
    k = rng.choice([sp.sqrt(2), sp.sqrt(3), sp.pi, sp.sqrt(7), sp.sqrt(5), sp.log(7)])
    return rng.randint(3, 90) * k / rng.choice([1, 2, 3, 7])


def _bump(rng: random.Random, c: sp.Expr) -> tuple[sp.Expr, str]:
    # W = 1/width^2 (cosh u - 1 ~ u^2/2); at most 1e12, the largest number the
    # integrand reader takes in an exponent (the right case's integrand has W).
    W = _TEN ** rng.randint(2, 12)
    kind = rng.randrange(4)
    if kind == 0:
        return _E(-W * (_E(x - c) + _E(c - x) - 2)), "minimum of e^{x-c} + e^{c-x}"
    if kind == 1:
        return _E(-W * (sp.cosh(x - c) - 1)), "minimum of cosh(x - c)"
    if kind == 2:
        return _E(W - W * sp.expand((x - c)**2 + 1)), "minimum of a quadratic with no real root"
    return _E(-W * (x - c)**2), "Gaussian"


def _bumps(rng: random.Random) -> list[Case]:
    f0, F0 = _base(rng)
    c = _centre(rng)
    B, kind = _bump(rng, c)
    h = _TEN ** rng.randint(-3, 3)
    where = rng.randrange(4)
    if where == 0:
        wrong, place = F0 + h * B, "added"
    elif where == 1:
        wrong, place = F0.subs(x, x + h * B), "inside the answer's argument"
    elif where == 2:
        wrong, place = F0 + h * B**2, "squared"
    else:
        wrong, place = F0 + sp.log(1 + h * B), "inside a log's argument"
    why = f"bump ({kind}) at {c}, {place}, height {h}"
    return [_case(wrong, f0, "wrong", why),
            _case(F0 + h * B, f0 + sp.diff(h * B, x), "correct", "the integrand has the bump: " + why),
            _case(F0, f0, "correct", "the plain antiderivative")]


def _far_term(rng: random.Random) -> tuple[sp.Expr, str]:
    c = rng.randint(300, 5000)
    s = rng.choice([1, -1])
    kind = rng.randrange(7)
    term = [_E(s * x - c), _E(-c) * _E(s * x), _TEN ** (s * x - c), sp.cosh(x) * _E(-c),
            ((s * x + c) / (2 * c)) ** rng.randint(60, 200), _E(x**2 / c - c),
            sp.log(1 + _E(s * x - c))][kind]
    return term, f"far-field term {term} (switch near |x| = {c})"


def _far_field(rng: random.Random) -> list[Case]:
    f0, F0 = _base(rng)
    term, why = _far_term(rng)
    if rng.random() < 0.3:
        # Inside a sine's argument: sin(x + T) for cos x, or sin(T) added.
        wrong = (sp.sin(x + term) + F0 - sp.sin(x)) if F0.has(sp.sin) else F0 + sp.sin(term)
    else:
        wrong = F0 + term
    return [_case(wrong, f0, "wrong", why),
            _case(F0 + term, f0 + sp.diff(term, x), "correct", "the integrand has it: " + why)]


def _poly(rng: random.Random) -> tuple[sp.Expr, sp.Expr, str]:
    if rng.random() < 0.4:
        c, n = rng.randint(2, 9), rng.randint(40, 60)
        return (sp.expand((x - c)**n), sp.expand((x - c)**(n + 1)) / (n + 1),
                f"expanded antiderivative of (x - {c})^{n}")
    n = rng.randint(40, 60)
    co = [rng.randint(-9, 9) for _ in range(n)]
    return (sp.Add(*[co[k] * x**k for k in range(n)]),
            sp.Add(*[sp.Rational(co[k], k + 1) * x**(k + 1) for k in range(n)]), f"{n}-term sum")


def _precision(rng: random.Random) -> list[Case]:
    f, F, what = _poly(rng)
    K = rng.randint(100, 1500)
    p = rng.randint(1, 30) * sp.sqrt(2) / 7
    tiny = _TEN ** (-rng.randint(3, 40))
    kind = rng.randrange(4)
    extra = [_E(-K) * x, _TEN ** (-K) * x, tiny * _E(-_TEN**8 * (x - p)**2),
             tiny / (1 + _E(-_TEN**6 * (x - p)))][kind]
    # The integrand reader refuses 10^-K next to an expanded (x - c)^n (numbers too large).
    right = rng.randrange(2 if what.startswith("expanded") else 3)
    if right == 0:
        good = _case(F, f, "correct", what)
    elif right == 1:
        good = _case(F + _E(-K), f, "correct", f"{what} plus the constant e^-{K}")
    else:
        # 10^-K written as a power: its 1/100...0 spelling is past the reader's size limits.
        good = Case(answer=sp.latex(F + _TEN ** (-K) * x) + " + C",
                    integrand=f"{sp.sstr(f)} + 10**(-{K})", label="correct",
                    why=f"{what}, 10^-{K} in f too")
    return [_case(F + extra, f, "wrong", f"{what} plus {extra}"), good]


def _scales(rng: random.Random) -> list[Case]:
    k = rng.randint(100, 5000)
    kind = rng.randrange(6)
    if kind == 0:
        f, right, wrong = _E(k * x), _E(k * x) / k, _E(k * x) / (k + 1)
    elif kind == 1:
        f, right, wrong = _E(x / k), k * _E(x / k), (k + 1) * _E(x / k)
    elif kind == 2:
        f, right, wrong = x * _E(k * x), _E(k * x) * (x / k - sp.Rational(1, k**2)), x * _E(k * x) / k
    elif kind == 3:
        f, right = k * _E(k * x) * _E(_E(k * x)), _E(_E(k * x))
        wrong = right * (1 + sp.Rational(1, k**2))
    elif kind == 4:
        a = _TEN ** (-rng.randint(100, 300))
        f, right = a * sp.cos(x) + _E(k * x), a * sp.sin(x) + _E(k * x) / k
        wrong = a * sp.sin(x) * (1 + sp.Rational(1, k)) + _E(k * x) / k
    else:
        a = _TEN ** rng.randint(100, 300)
        f, right = a * x**2 + sp.cos(x), a * x**3 / 3 + sp.sin(x)
        wrong = right + x / k
    why = f"scale k = {k}, form {kind}"
    return [_case(wrong, f, "wrong", why), _case(right, f, "correct", why)]


FAMILIES = (
    Family("bumps", "a bump whose centre is no root of any argument", _bumps),
    Family("far_field", "a term that matters only past |x| = 300..5000", _far_field),
    Family("precision", "a long expanded sum plus a difference below the working precision", _precision),
    Family("scales", "e^{kx}, e^{x/k}, nested, tiny and huge coefficients", _scales),
)
