"""The normal form's arithmetic: exponents split into rational multiples of
monomials, and rational functions in generator symbols, integer polynomials
over a factored denominator, tested for zero modulo a random prime."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import reduce
from typing import Any

import sympy as sp
from sympy.polys.domains import QQ

from ...function_facts import CIRCULAR, HYPERBOLIC
from ...limits import CAPS
from .polys import FlintRing, Poly, SympyRing, ring

_I_PI = sp.I * sp.pi




class _Timeout(Exception):
    pass


class _Unsupported(Exception):
    pass


class _Undefined(Exception):
    """Identically zero denominator: never count that residual as zero."""


class _Replan(Exception):
    """The conversion needs a wider plan (set before raising): redo it."""


def _power_terms(p: Poly, n: int) -> int:
    """At most how many terms ``p**n`` has: the monomials of degree n in
    ``len(p)`` terms (fewer where they coincide)."""
    t = len(p)
    return t if t <= 1 or n <= 1 else math.comb(n + t - 1, t - 1)


# Operations at least this large (estimated terms) look at the clock first:
# between them, a proof could run past its budget by seconds.
_LARGE = 10_000


def _bound(terms: int, clock: _Clock) -> None:
    """Refuse an operation whose result may have more than
    ``CAPS.polynomial_terms`` terms (a product: the product of the lengths),
    and let the clock stop a proof before any large one. flint computes in
    C, where neither the step timer nor the clock can stop it, and aborts
    the process when memory runs out: ``(x + e^x + sin x + ln x + sqrt x +
    atan x)^60`` did. Below the bound one operation takes at most ~0.2 s."""
    if terms > CAPS.polynomial_terms:
        raise _Unsupported("huge_polynomial")
    if terms >= _LARGE:
        clock.check()


class _Clock:
    def __init__(self, end: float) -> None:
        self.end = end
        self.ticks = 0

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise _Timeout()

    def tick(self) -> None:
        self.ticks += 1
        if self.ticks % 16 == 0:
            self.check()


# --------------------------------------------------------------------------
# Exponents: shared by the survey and the conversion.
# --------------------------------------------------------------------------

def _exact(c: sp.Number) -> sp.Rational:
    # A Float is an exact binary fraction: keeping it exact means 1e-20 stays
    # 1e-20 and cannot be rounded into a proof.
    return c if c.is_Rational else sp.Rational(c)


def _rational(c: QQ) -> sp.Rational:
    return sp.Rational(int(c.numerator), int(c.denominator))


def _prime_factors(n: int) -> dict[int, int]:
    return {n: 1} if n > CAPS.factored_int else sp.factorint(n)


def _split_constant_logs(expr: sp.Expr) -> sp.Expr:
    """log(12*E) -> 2 log 2 + log 3 + 1 (positive constants only), so 4**x,
    2**x and (2*E)**x become powers of shared generators."""
    def split(c: sp.Rational) -> sp.Expr:
        terms = [sign * mult * sp.log(sp.Integer(prime), evaluate=False)
                 for part, sign in ((c.p, 1), (c.q, -1)) if part != 1
                 for prime, mult in _prime_factors(part).items()]
        return sp.Add(*terms)

    def positive_constant_log(e: sp.Expr) -> bool:
        return isinstance(e, sp.log) and not e.args[0].free_symbols and bool(e.args[0].is_positive)

    # expand_log (not forced) splits log(a*b) only for positive a and b.
    expr = expr.replace(positive_constant_log, lambda e: sp.expand_log(e))
    return expr.replace(
        lambda e: isinstance(e, sp.log) and e.args[0].is_Rational and e.args[0] > 0,
        lambda e: split(e.args[0]))


def _decompose(arg: sp.Expr) -> list[tuple[sp.Rational, sp.Expr]]:
    """exp(arg) = prod exp(c*m): the (rational c, monomial m) pairs.  Valid
    for any arg, since exp(a+b) = exp(a) exp(b) on all of C."""
    if arg.has(sp.log):
        arg = _split_constant_logs(arg)
    if any(p.exp.is_Integer and abs(p.exp) > CAPS.sum_power and p.base.is_Add
           for p in arg.atoms(sp.Pow)):
        # expand() would write out all its terms first ((1/2 + x/2000)^{2000}:
        # 2,001 of them, seconds); the algebra refuses such a power anyway.
        raise _Unsupported("huge_power")
    out = []
    for term in sp.Add.make_args(sp.expand(arg)):
        coeff, mono = term.as_coeff_Mul()
        if coeff != 0:
            out.append((_exact(coeff), mono))
    return out


def _exp_arguments(e: sp.Expr) -> list[sp.Expr]:
    if isinstance(e, sp.exp):
        return [e.args[0]]
    if isinstance(e, CIRCULAR):
        return [sp.I * e.args[0]]
    if isinstance(e, HYPERBOLIC):
        return [e.args[0]]
    if e is sp.E:
        return [sp.S.One]
    if e.is_Pow and not e.exp.is_Number:
        return [e.exp * sp.log(e.base)]
    return []


def _rational_gcd(values: list[sp.Rational]) -> sp.Rational:
    num = reduce(math.gcd, (abs(int(v.p)) for v in values))
    den = reduce(math.lcm, (int(v.q) for v in values))
    return sp.Rational(num, den)


def _real_valued(e: sp.Expr) -> bool:
    """Conservative: True only if e is real wherever it is defined, for real
    x and positive parameters."""
    if e.is_Number:
        return bool(e.is_real)
    if e in (sp.pi, sp.E):
        return True
    if e.is_Symbol:
        return bool(e.is_real)
    if e.is_Add or e.is_Mul:
        return all(_real_valued(a) for a in e.args)
    if e.is_Pow:
        if e.exp.is_Integer:
            return _real_valued(e.base)
        return bool(e.base.is_positive) and _real_valued(e.exp)
    if isinstance(e, (sp.exp, *CIRCULAR, *HYPERBOLIC, sp.atan, sp.acot, sp.asinh)):
        return _real_valued(e.args[0])
    if isinstance(e, sp.log):
        return bool(e.args[0].is_positive)
    return False


# --------------------------------------------------------------------------
# Rational functions: integer polynomials over a factored denominator.
# --------------------------------------------------------------------------

# Integer coefficients (:mod:`.polys`): a rational's denominator is a
# constant factor of the factored denominator instead. Products and sums of
# Python ints were a third of the time of a proof in SymPy's pure-Python
# rationals.

# A factored denominator: {key: (factor, multiplicity)}, keyed by the ring's
# key of the factor.
_Den = dict[Any, tuple[Poly, int]]


@dataclass(frozen=True)
class _Frac:
    """num / prod(f**m for f, m in den), every polynomial with integer
    coefficients (a constant factor of den holds a rational's denominator).
    Keeping the denominator factored makes the common denominator of a sum
    a max over factors: no gcds."""

    num: Poly
    den: tuple[tuple[Any, Poly, int], ...] = ()


def _den_tuple(den: _Den) -> tuple[tuple[Any, Poly, int], ...]:
    return tuple((k, f, m) for k, (f, m) in den.items() if m)


class _Algebra:
    def __init__(self, capacity: int, clock: _Clock) -> None:
        self.ring = ring(capacity)
        self.key = self.ring.key
        self._is_one = self.ring.is_one
        self.used = 0
        self.clock = clock
        self.powers: dict[tuple[Any, int], Poly] = {}
        self.relations: dict[int, _Relation] = {}

    def new_slot(self) -> int:
        if self.used == self.ring.nvars:
            raise _Replan()
        self.used += 1
        return self.used - 1

    def const(self, c: sp.Rational | int) -> _Frac:
        c = sp.Rational(c)
        if c.q == 1:
            return _Frac(self.ring.const(int(c.p)))
        q = self.ring.const(int(c.q))
        return _Frac(self.ring.const(int(c.p)), ((self.key(q), q, 1),))

    def gen(self, slot: int) -> _Frac:
        return _Frac(self.ring.gens[slot])

    def power_of(self, key: Any, base: Poly, n: int) -> Poly:
        hit = self.powers.get((key, n))
        if hit is None:
            _bound(_power_terms(base, n), self.clock)
            hit = base ** n
            self.powers[(key, n)] = hit
        return hit

    def _times(self, a: Poly | None, b: Poly) -> Poly:
        """a*b, where ``None`` and the constant 1 cost nothing: most
        factors of a product and of a sum's common denominator are 1."""
        if a is None or self._is_one(a):
            return b
        if self._is_one(b):
            return a
        _bound(len(a) * len(b), self.clock)
        return a * b

    def expand_den(self, a: _Frac) -> Poly:
        out = None
        for k, f, m in a.den:
            out = self._times(out, self.power_of(k, f, m))
        return self.ring.one if out is None else out

    def mul(self, parts: list[_Frac]) -> _Frac:
        num = None
        den: _Den = {}
        for part in parts:
            num = self._times(num, part.num)
            for k, f, m in part.den:
                den[k] = (f, den.get(k, (f, 0))[1] + m)
        return _Frac(self.ring.one if num is None else num, _den_tuple(den))

    def add(self, parts: list[_Frac]) -> _Frac:
        common: _Den = {}
        for part in parts:
            for k, f, m in part.den:
                common[k] = (f, max(common.get(k, (f, 0))[1], m))
        total = self.ring.zero
        for part in parts:
            self.clock.tick()
            have = {k: m for k, _, m in part.den}
            scaled = part.num
            for k, (f, m) in common.items():
                if m > have.get(k, 0):
                    scaled = self._times(scaled, self.power_of(k, f, m - have.get(k, 0)))
            total += scaled
        return _Frac(total, _den_tuple(common))

    def pow(self, base: _Frac, n: int) -> _Frac:
        limit = CAPS.term_power if len(base.num) <= 1 and not base.den else CAPS.sum_power
        if abs(n) > limit:
            raise _Unsupported("huge_power")
        if n < 0:
            base, n = self.inv(base), -n
        _bound(_power_terms(base.num, n), self.clock)
        return _Frac(base.num ** n, tuple((k, f, m * n) for k, f, m in base.den))

    def inv(self, a: _Frac) -> _Frac:
        if not a.num:
            raise _Undefined()
        den: _Den = {}
        content = self._den_factors(a.num, den)
        num = self.expand_den(a)
        if content < 0:
            content, num = -content, -num
        if content != 1:
            c = self.ring.const(content)
            den[self.key(c)] = (c, 1)
        return _Frac(num, _den_tuple(den))

    def _den_factors(self, poly: Poly, den: _Den) -> int:
        """Record poly as denominator factors (a monomial split into its
        generators, else its primitive part); returns the integer left."""
        if len(poly) == 1:
            (monom, coeff), = self.ring.terms(poly)
            for slot, e in enumerate(monom):
                if e:
                    g = self.ring.gens[slot]
                    den[self.key(g)] = (g, e)
            return coeff
        content, prim = self.ring.primitive(poly)
        if self.ring.lc(prim) < 0:
            content, prim = -content, -prim
        den[self.key(prim)] = (prim, 1)
        return content

    def simplify(self, poly: Poly) -> Poly:
        """Reduce by the relations R**q = polynomial (W**4 = -1, R**2 = 1-2x),
        exact replacements, so equal radicands get equal keys (tan(x)**2 + 1
        and sec(x)**2 differ until W**2 -> -1)."""
        exact = {s: r for s, r in self.relations.items() if r.den == 1}
        return _reduce(poly, exact, list(reversed(exact)), self.clock, self.ring) if exact else poly

    def canonical(self, a: _Frac) -> tuple[QQ, Poly, Poly]:
        """a = c * p/q, c > 0 rational, p and q primitive, LC(q) > 0 and
        reduced by the exact relations.  No gcd (multivariate gcds dominate
        the run time): equality is decided by cross-multiplication."""
        num = self.simplify(a.num)
        if not num:
            return QQ(1), self.ring.zero, self.ring.one
        num, den = self._lift_roots(num, self.simplify(self.expand_den(a)))
        cp, p = self.ring.primitive(num)
        cq, q = self.ring.primitive(den)
        if self.ring.lc(q) < 0:
            cq, q = -cq, -q
        c = QQ(int(cp), int(cq))
        if c < 0:
            c, p = -c, -p
        return c, p, q

    def _lift_roots(self, num: Poly, den: Poly) -> tuple[Poly, Poly]:
        """A root of a constant (i, W with W**q = -1) in a monomial
        denominator moved to the numerator: (G**4 - 1)/(2 i G**2) and
        -i (G**4 - 1)/(2 G**2) are one radicand (sin 2x written two ways),
        but fingerprints evaluate i as a free symbol, so they must be
        written alike to share a slot. Both sides are multiplied by the
        same non-zero power of the root."""
        if len(den) != 1:
            return num, den
        (monom, _), = self.ring.terms(den)
        lift = self.ring.one
        for slot, e in enumerate(monom):
            rel = self.relations.get(slot)
            if e and rel is not None and rel.den == 1 and self.ring.is_ground(rel.num):
                lift *= self.ring.gens[slot] ** (-e % rel.degree)
        if lift == 1:
            return num, den
        return self.simplify(num * lift), self.simplify(den * lift)

    def same(self, a: tuple[Poly, Poly], b: tuple[Poly, Poly]) -> bool:
        _bound(max(len(a[0]) * len(b[1]), len(b[0]) * len(a[1])), self.clock)
        return not self.simplify(a[0] * b[1] - b[0] * a[1])

    def fingerprint(self, p: Poly, q: Poly) -> int | None:
        """p/q at a fixed pseudo-random point mod a prime: equal rational
        functions collide, so it buckets candidates for :meth:`same`."""
        den = _eval_mod(q, self.ring)
        return None if den == 0 else _eval_mod(p, self.ring) * pow(den, -1, _PRIME) % _PRIME


_PRIME = 2**61 - 1
_POINT: list[int] = []


def _eval_mod(poly: Poly, ring_: SympyRing | FlintRing) -> int:
    while len(_POINT) < ring_.nvars:
        _POINT.append(pow(7, 1000 + 7919 * len(_POINT), _PRIME))
    total = 0
    for monom, coeff in ring_.terms(poly):
        value = int(coeff) % _PRIME
        for i, e in enumerate(monom):
            if e:
                value = value * pow(_POINT[i], e, _PRIME) % _PRIME
        total += value
    return total % _PRIME


@dataclass
class _Relation:
    """slot**degree == num/den (num, den use older slots only)."""

    degree: int
    num: Poly
    den: Poly


def _reduce(poly: Poly, relations: dict[int, _Relation], order: list[int],
            clock: _Clock, ring_: SympyRing | FlintRing) -> Poly:
    """Pseudo-remainder of poly modulo ``R**q * den - num`` for each relation
    in order.  Multiplying by powers of den (non-zero wherever the radicand
    is defined) keeps "vanishes on the relations' variety" equivalent."""
    for slot in order:
        if not poly:
            return poly
        clock.check()
        rel = relations[slot]
        if ring_.degree(poly, slot) < rel.degree:
            # Nothing to replace: asked of the ring, not found term by term.
            continue
        buckets: dict[int, dict] = {}
        for monom, coeff in ring_.terms(poly):
            e = monom[slot]
            reduced = monom[:slot] + (e % rel.degree,) + monom[slot + 1:]
            bucket = buckets.setdefault(e // rel.degree, {})
            bucket[reduced] = bucket.get(reduced, 0) + coeff
        if len(buckets) == 1 and 0 in buckets:
            continue
        top = max(buckets)
        out = ring_.zero
        for j, terms in buckets.items():
            part = ring_.from_dict({m: c for m, c in terms.items() if c})
            _bound(len(part) * _power_terms(rel.num, j) * _power_terms(rel.den, top - j), clock)
            out += part * rel.num ** j * rel.den ** (top - j)
        poly = out
    return poly
