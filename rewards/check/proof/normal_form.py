"""Decisive, fast proof that a derivative residual ``F' - f`` is zero.

The residual is mapped to a *normal form* in which elementary identities
become polynomial identities, then its numerator is tested for zero:

* every ``exp``, trig and hyperbolic function, ``E`` and ``b**e`` with a
  non-rational exponent becomes a product of integer powers of generators
  ``G_m = exp(g*m)``, one per "monomial" ``m`` of the exponent (``x``,
  ``I*x``, ``x**2``, ``a*x``, ``1``...), ``g`` the gcd of the rational
  coefficients met for ``m`` (so exp(x/2), exp(x), exp(3x/2) are G, G**2,
  G**3);
* roots of unity ``exp(I*pi*k/12)`` (``I``, ``exp(I*pi/4)``, ``(-1)**(1/3)``)
  become their values in ``Q(i, sqrt 2, sqrt 3)`` with ``i**2 = -1``; finer
  ones get a generator ``W`` with ``W**q = (-1)**p`` and ``I = W**(q/2)``;
* a radical ``u**(p/q)`` becomes ``R**p`` with the relation ``R**q = u``,
  after its positive rational content is split off (sqrt(8x+4) =
  2 sqrt(2) sqrt(2x+1); integers are split over primes);
* ``log(u)`` becomes ``log(c)`` (over primes) plus one symbol per distinct
  normalised argument; any other call (inverse trig, special functions,
  Piecewise...) becomes one opaque symbol per distinct normalised call.

WHAT A PROOF MEANS.  Each replacement is an identity valid, with SymPy's
principal branches, at every point where both sides are defined:
``exp(a+b) = exp(a) exp(b)``, ``u**(p/q) = (u**(1/q))**p``, ``(c*u)**r =
c**r * u**r`` and ``log(c*u) = log(c) + log(u)`` for rational ``c > 0``,
``log(exp(m)*u) = m + log(u)`` for real ``m``, ``|u|**2 = u**2`` and
``sign(u) = u/|u|`` for real ``u``.  The second rung adds rewrites of the
same kind (inverse trig/hyperbolic to logs, splitting radicands whose
split holds for all real x, denesting sqrt(a + b*sqrt(c))).  Nothing else
is assumed: the symbols are otherwise independent.  The numerator ``N`` of the resulting
rational function is pseudo-reduced by the relations (outermost first).  If
that gives 0, ``N`` lies in the ideal of the relations and vanishes at every
point satisfying them, whichever branch each radical takes.  Evaluation at a
real ``x`` where every subexpression is finite is a ring homomorphism on
the local ring there, hence

    proved=True  =>  residual(x) == 0 at EVERY real x where it is defined

(positive parameters: for every positive value).  That is stronger than
"zero on an open set": no rung uses an identity that holds only up to a
locally constant branch offset, so there is no offset to get wrong.
Removable singularities are allowed by construction.  A residual defined
nowhere (``1/(sin^2+cos^2-1)``) would be vacuously zero, so every
denominator, log argument and radicand met must be non-zero in the normal
form, else the proof is refused.  ``proved=False`` says nothing.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce

import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.rings import PolyElement, PolyRing, ring

# Integer powers of a sum are expanded in full: (1+x)**10**6 would never
# return.  Powers of one term (x**N, exp(N*x)) are sparse and cheap.
MAX_SUM_POWER = 200
MAX_TERM_POWER = 5000
# Integers at most this large are split into primes for log(c) and
# c**(p/q); larger ones stay whole (sound, merely less complete).
MAX_FACTOR_INT = 10**12
# Restarts of the conversion (more generator slots, wider exp units,
# radical degrees) before giving up.
MAX_REPLANS = 8

_CIRCULAR = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)
_HYPERBOLIC = (sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch)
_INVERSE = (sp.asin, sp.acos, sp.atan, sp.acot, sp.asec, sp.acsc,
            sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech, sp.acsch)
_I_PI = sp.I * sp.pi


@dataclass(frozen=True)
class ProofAttempt:
    """Outcome of :func:`prove_zero`.

    ``tried`` holds ``(rung, ms, result)`` per rung run, in order.  result is
    ``proved``, ``nonzero_normal_form`` (this rung could not prove it; NOT
    evidence of a wrong answer), ``undefined`` (a denominator or log
    argument is identically zero), ``timeout``, ``unsupported: ...`` or
    ``error: ...``.
    """

    proved: bool
    rung: str | None
    tried: list[tuple[str, float, str]] = field(default_factory=list)


class _Timeout(Exception):
    pass


class _Unsupported(Exception):
    pass


class _Undefined(Exception):
    """Identically zero denominator: never count that residual as zero."""


class _Replan(Exception):
    """The conversion needs a wider plan (set before raising): redo it."""


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
    return {n: 1} if n > MAX_FACTOR_INT else sp.factorint(n)


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
    out = []
    for term in sp.Add.make_args(sp.expand(arg)):
        coeff, mono = term.as_coeff_Mul()
        if coeff != 0:
            out.append((_exact(coeff), mono))
    return out


def _exp_arguments(e: sp.Expr) -> list[sp.Expr]:
    if isinstance(e, sp.exp):
        return [e.args[0]]
    if isinstance(e, _CIRCULAR):
        return [sp.I * e.args[0]]
    if isinstance(e, _HYPERBOLIC):
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
    if isinstance(e, (sp.exp, *_CIRCULAR, *_HYPERBOLIC, sp.atan, sp.acot, sp.asinh)):
        return _real_valued(e.args[0])
    if isinstance(e, sp.log):
        return bool(e.args[0].is_positive)
    return False


# --------------------------------------------------------------------------
# Rational functions over QQ with a factored denominator.
# --------------------------------------------------------------------------

_RINGS: dict[int, tuple[PolyRing, list[sp.Symbol]]] = {}


def _ring(capacity: int) -> tuple[PolyRing, list[sp.Symbol]]:
    # Fixed slot names, so the ring (costly to build) is reused across calls.
    if capacity not in _RINGS:
        symbols = [sp.Symbol(f"_nf{i}") for i in range(capacity)]
        _RINGS[capacity] = (ring(symbols, QQ)[0], symbols)
    return _RINGS[capacity]


def _k(poly: PolyElement) -> frozenset:
    """Hash key of a polynomial.  PolyElement's own cached hash can go stale
    (an equal element may hash differently), so dict keys use this."""
    return frozenset(poly.items())


# A factored denominator: {key: (factor, multiplicity)}.
_Den = dict[frozenset, tuple[PolyElement, int]]


@dataclass(frozen=True)
class _Frac:
    """num / prod(f**m for f, m in den).  Keeping the denominator factored
    makes the common denominator of a sum a max over factors: no gcds."""

    num: PolyElement
    den: tuple[tuple[frozenset, PolyElement, int], ...] = ()


def _den_tuple(den: _Den) -> tuple[tuple[frozenset, PolyElement, int], ...]:
    return tuple((k, f, m) for k, (f, m) in den.items() if m)


class _Algebra:
    def __init__(self, capacity: int, clock: _Clock) -> None:
        self.ring, self.names = _ring(capacity)
        self.used = 0
        self.clock = clock
        self.powers: dict[tuple[frozenset, int], PolyElement] = {}
        self.relations: dict[int, _Relation] = {}

    def new_slot(self) -> int:
        if self.used == len(self.names):
            raise _Replan()
        self.used += 1
        return self.used - 1

    def const(self, c: sp.Rational | int) -> _Frac:
        c = sp.Rational(c)
        return _Frac(self.ring(QQ(int(c.p), int(c.q))))

    def gen(self, slot: int) -> _Frac:
        return _Frac(self.ring.gens[slot])

    def power_of(self, key: frozenset, base: PolyElement, n: int) -> PolyElement:
        hit = self.powers.get((key, n))
        if hit is None:
            hit = base ** n
            self.powers[(key, n)] = hit
        return hit

    def expand_den(self, a: _Frac) -> PolyElement:
        out = self.ring.one
        for k, f, m in a.den:
            out *= self.power_of(k, f, m)
        return out

    def mul(self, parts: list[_Frac]) -> _Frac:
        num = self.ring.one
        den: _Den = {}
        for part in parts:
            num *= part.num
            for k, f, m in part.den:
                den[k] = (f, den.get(k, (f, 0))[1] + m)
        return _Frac(num, _den_tuple(den))

    def add(self, parts: list[_Frac]) -> _Frac:
        common: _Den = {}
        for part in parts:
            for k, f, m in part.den:
                common[k] = (f, max(common.get(k, (f, 0))[1], m))
        total = self.ring.zero
        for part in parts:
            self.clock.tick()
            have = {k: m for k, _, m in part.den}
            factor = self.ring.one
            for k, (f, m) in common.items():
                if m > have.get(k, 0):
                    factor *= self.power_of(k, f, m - have.get(k, 0))
            total += part.num * factor
        return _Frac(total, _den_tuple(common))

    def pow(self, base: _Frac, n: int) -> _Frac:
        limit = MAX_TERM_POWER if len(base.num) <= 1 and not base.den else MAX_SUM_POWER
        if abs(n) > limit:
            raise _Unsupported("huge_power")
        if n < 0:
            base, n = self.inv(base), -n
        return _Frac(base.num ** n, tuple((k, f, m * n) for k, f, m in base.den))

    def inv(self, a: _Frac) -> _Frac:
        if not a.num:
            raise _Undefined()
        den: _Den = {}
        content = self._den_factors(a.num, den)
        return _Frac(self.expand_den(a) * self.ring(1 / content), _den_tuple(den))

    def _den_factors(self, poly: PolyElement, den: _Den) -> QQ:
        """Record poly as denominator factors (a monomial split into its
        generators, else its primitive part); returns the scalar left."""
        if len(poly) == 1:
            (monom, coeff), = poly.terms()
            for slot, e in enumerate(monom):
                if e:
                    g = self.ring.gens[slot]
                    den[_k(g)] = (g, e)
            return coeff
        content, prim = poly.primitive()
        if prim.LC < 0:
            content, prim = -content, -prim
        den[_k(prim)] = (prim, 1)
        return content

    def simplify(self, poly: PolyElement) -> PolyElement:
        """Reduce by the relations R**q = polynomial (W**4 = -1, R**2 = 1-2x),
        exact replacements, so equal radicands get equal keys (tan(x)**2 + 1
        and sec(x)**2 differ until W**2 -> -1)."""
        exact = {s: r for s, r in self.relations.items() if r.den == 1}
        return _reduce(poly, exact, list(reversed(exact)), self.clock) if exact else poly

    def canonical(self, a: _Frac) -> tuple[QQ, PolyElement, PolyElement]:
        """a = c * p/q, c > 0 rational, p and q primitive, LC(q) > 0 and
        reduced by the exact relations.  No gcd (multivariate gcds dominate
        the run time): equality is decided by cross-multiplication."""
        num = self.simplify(a.num)
        if not num:
            return QQ(1), self.ring.zero, self.ring.one
        cp, p = num.primitive()
        cq, q = self.simplify(self.expand_den(a)).primitive()
        if q.LC < 0:
            cq, q = -cq, -q
        c = cp / cq
        if c < 0:
            c, p = -c, -p
        return c, p, q

    def same(self, a: tuple[PolyElement, PolyElement], b: tuple[PolyElement, PolyElement]) -> bool:
        return not self.simplify(a[0] * b[1] - b[0] * a[1])

    def fingerprint(self, p: PolyElement, q: PolyElement) -> int | None:
        """p/q at a fixed pseudo-random point mod a prime: equal rational
        functions collide, so it buckets candidates for :meth:`same`."""
        den = _eval_mod(q)
        return None if den == 0 else _eval_mod(p) * pow(den, -1, _PRIME) % _PRIME


_PRIME = 2**61 - 1
_POINT: list[int] = []


def _eval_mod(poly: PolyElement) -> int:
    while len(_POINT) < poly.ring.ngens:
        _POINT.append(pow(7, 1000 + 7919 * len(_POINT), _PRIME))
    total = 0
    for monom, coeff in poly.terms():
        value = int(coeff.numerator) * pow(int(coeff.denominator), -1, _PRIME)
        for i, e in enumerate(monom):
            if e:
                value = value * pow(_POINT[i], e, _PRIME) % _PRIME
        total += value
    return total % _PRIME


# --------------------------------------------------------------------------
# The conversion.
# --------------------------------------------------------------------------

@dataclass
class _Plan:
    """What a conversion run needs to know in advance; widened on _Replan."""

    exp_units: dict[sp.Expr, sp.Rational]
    capacity: int
    radical_degree: dict[tuple, int] = field(default_factory=dict)


@dataclass
class _Relation:
    """slot**degree == num/den (num, den use older slots only)."""

    degree: int
    num: PolyElement
    den: PolyElement


def _survey(expr: sp.Expr, clock: _Clock) -> _Plan:
    """Pass 1: exp units, and a slot count that is usually enough."""
    coeffs: dict[sp.Expr, list[sp.Rational]] = {_I_PI: [sp.Rational(1, 2)]}
    atoms: set[sp.Expr] = set()
    for node in sp.preorder_traversal(expr):
        clock.tick()
        if node.is_Symbol or node.is_Function or (node.is_Pow and not node.exp.is_Integer):
            atoms.add(node)
        for arg in _exp_arguments(node):
            for coeff, mono in _decompose(arg):
                if not isinstance(mono, sp.log):
                    coeffs.setdefault(mono, []).append(coeff)
    units = {mono: _rational_gcd(values) for mono, values in coeffs.items()}
    # Slots: one per atom or exp monomial, plus a few for primes and i.
    return _Plan(units, capacity=8 * (1 + (len(units) + len(atoms) + 6) // 8))


class _Normalizer:
    def __init__(self, plan: _Plan, clock: _Clock) -> None:
        self.plan = plan
        self.clock = clock
        self.alg = _Algebra(plan.capacity, clock)
        self.memo: dict[sp.Expr, _Frac] = {}
        self.slots: dict[object, int] = {}
        self.interned: dict[tuple, list[tuple[list, int]]] = {}
        self.exp_monos: dict[int, sp.Expr] = {}
        self.relations = self.alg.relations
        # Must not vanish identically: denominators, log arguments, radicands.
        self.nonzero: list[PolyElement] = []
        self.kinds: set[str] = set()

    # -- atoms -------------------------------------------------------------
    def _slot(self, key: object) -> int:
        slot = self.slots.get(key)
        if slot is None:
            slot = self.alg.new_slot()
            self.slots[key] = slot
        return slot

    def _intern(self, kind: object, args: list[tuple[QQ, PolyElement, PolyElement]]
                ) -> tuple[int, tuple]:
        """One slot per distinct (kind, normalised arguments).  Returns the
        slot and the bucket (a stable name for the plan's hints)."""
        bucket = (kind, tuple((c, self.alg.fingerprint(p, q)) for c, p, q in args))
        candidates = self.interned.setdefault(bucket, [])
        for known, slot in candidates:
            if all(c1 == c2 and self.alg.same((p1, q1), (p2, q2))
                   for (c1, p1, q1), (c2, p2, q2) in zip(known, args, strict=True)):
                return slot, bucket
        slot = self.alg.new_slot()
        candidates.append((args, slot))
        return slot, bucket

    def _relate(self, slot: int, degree: int, value: _Frac) -> None:
        den = self.alg.expand_den(value)
        self.relations[slot] = _Relation(degree, value.num, den)

    # -- dispatch ----------------------------------------------------------
    def convert(self, e: sp.Expr) -> _Frac:
        hit = self.memo.get(e)
        if hit is None:
            self.clock.tick()
            hit = self._convert(e)
            self.memo[e] = hit
        return hit

    def _convert(self, e: sp.Expr) -> _Frac:
        if e.is_Number:
            if not e.is_finite:
                raise _Unsupported("non_finite")
            return self.alg.const(_exact(e))
        if e is sp.I:
            return self.imag()
        if e is sp.E:
            return self._exp(sp.S.One)
        if e.is_Symbol or e.is_Atom:
            # x, parameters, pi and other constants: free symbols.
            return self.alg.gen(self._slot(("atom", e)))
        if e.is_Add:
            return self.alg.add([self.convert(a) for a in e.args])
        if e.is_Mul:
            return self.alg.mul([self.convert(a) for a in e.args])
        if e.is_Pow:
            return self._pow(e.base, e.exp)
        if isinstance(e, sp.exp):
            return self._exp(e.args[0])
        if isinstance(e, _CIRCULAR + _HYPERBOLIC):
            return self._trig(e)
        if isinstance(e, sp.log):
            return self._log(e.args[0])
        if isinstance(e, (sp.Abs, sp.sign)) and _real_valued(e.args[0]):
            return self._abs_sign(e)
        return self._function(e)

    def _pow(self, base: sp.Expr, ex: sp.Expr) -> _Frac:
        if ex.is_Float:
            ex = _exact(ex)
        if ex.is_Integer:
            b = self.convert(base)
            if ex < 0:
                self.nonzero.append(b.num)
            return self.alg.pow(b, int(ex))
        if ex.is_Rational:
            return self._radical(self.convert(base), ex)
        # The principal power is defined as exp(e*log(b)).
        return self._exp(ex * sp.log(base))

    # -- exponentials --------------------------------------------------------
    def imag(self) -> _Frac:
        if self._cyclotomic_is_surd():
            slot = self.slots.get("i")
            if slot is None:
                slot = self._slot("i")
                self._relate(slot, 2, self.alg.const(-1))
            return self.alg.gen(slot)
        # I = exp(I*pi/2): one root-of-unity generator then serves I,
        # exp(I*pi/5), (-1)**(1/5)... and sees exp(I*pi/10)**5 == I.
        return self._exp_generator(_I_PI, sp.Rational(1, 2))

    def _cyclotomic_is_surd(self) -> bool:
        """exp(I*pi*k/12) has a value in Q(i, sqrt(2), sqrt(3)), where it
        meets the sqrt(2) that SymPy writes for sin(pi/4) (exp(I*pi/4) as a
        free root of unity would not know that its real part is sqrt(2)/2)."""
        return 12 % self.plan.exp_units[_I_PI].q == 0

    def _root_of_unity(self, coeff: sp.Rational) -> _Frac:
        angle = sp.pi * coeff
        real, imag = sp.cos(angle), sp.sin(angle)
        if real.has(sp.cos, sp.sin) or imag.has(sp.cos, sp.sin):
            raise _Unsupported("root_of_unity")
        return self.alg.add([self.convert(real),
                             self.alg.mul([self.imag(), self.convert(imag)])])

    def _exp(self, arg: sp.Expr) -> _Frac:
        self.kinds.add("exp")
        parts = []
        for coeff, mono in _decompose(arg):
            if isinstance(mono, sp.log):
                # exp(c*log(u)) is u**c by definition of the principal power.
                parts.append(self._pow(mono.args[0], coeff))
            else:
                parts.append(self._exp_generator(mono, coeff))
        return self.alg.mul(parts)

    def _exp_generator(self, mono: sp.Expr, coeff: sp.Rational) -> _Frac:
        units = self.plan.exp_units
        unit = units.get(mono)
        if unit is None or not (coeff / unit).is_Integer:
            # Met during conversion only, e.g. (-1)**(1/3) from a radicand.
            units[mono] = _rational_gcd([coeff] + ([unit] if unit is not None else []))
            raise _Replan()
        if mono == _I_PI and self._cyclotomic_is_surd():
            return self._root_of_unity(coeff)
        slot = self.slots.get(("exp", mono))
        if slot is None:
            slot = self._slot(("exp", mono))
            self.exp_monos[slot] = mono
            if mono == _I_PI:
                # exp(I*pi*p/q)**q = (-1)**p: roots of unity are algebraic.
                self._relate(slot, int(unit.q), self.alg.const(sp.Integer(-1) ** unit.p))
        return self.alg.pow(self.alg.gen(slot), int(coeff / unit))

    def _trig(self, e: sp.Expr) -> _Frac:
        (arg,) = e.args
        circular = isinstance(e, _CIRCULAR)
        alg = self.alg
        z = self._exp(sp.I * arg if circular else arg)
        zi = alg.inv(z)
        half = alg.const(sp.Rational(1, 2))
        cos = alg.mul([half, alg.add([z, zi])])
        sin = alg.mul([half, alg.add([z, alg.mul([alg.const(-1), zi])])])
        if circular:
            sin = alg.mul([sin, alg.inv(self.imag())])
        name = type(e).__name__.rstrip("h")
        if name in ("tan", "sec"):
            self.nonzero.append(cos.num)
        if name in ("cot", "csc"):
            self.nonzero.append(sin.num)
        table: dict[str, Callable[[], _Frac]] = {
            "sin": lambda: sin, "cos": lambda: cos,
            "tan": lambda: alg.mul([sin, alg.inv(cos)]),
            "cot": lambda: alg.mul([cos, alg.inv(sin)]),
            "sec": lambda: alg.inv(cos), "csc": lambda: alg.inv(sin),
        }
        return table[name]()

    # -- logarithms ----------------------------------------------------------
    def _log(self, arg: sp.Expr) -> _Frac:
        content, p, q = self.alg.canonical(self.convert(arg))
        if not p:
            raise _Undefined()
        self.nonzero.append(p)
        parts = [self._log_constant(content)]
        p, q, real_exp = self._split_real_exps(p, q)
        parts.extend(real_exp)
        if p == q or p == -q:
            if p == -q:  # log(-1) = I*pi
                parts.append(self.alg.mul([self.imag(), self.convert(sp.pi)]))
            return self.alg.add(parts)
        self.kinds.add("log")
        slot, _ = self._intern("log", [(QQ(1), p, q)])
        parts.append(self.alg.gen(slot))
        return self.alg.add(parts)

    def _log_constant(self, c: QQ) -> _Frac:
        """log(c), c > 0 rational, over primes: log(6) = log(2) + log(3)."""
        terms = [self.alg.mul([self.alg.const(sp.Integer(sign * mult)),
                               self.alg.gen(self._slot(("log", prime)))])
                 for part, sign in ((int(c.numerator), 1), (int(c.denominator), -1))
                 if part != 1 for prime, mult in _prime_factors(part).items()]
        return self.alg.add(terms) if terms else self.alg.const(sp.S.Zero)

    def _split_real_exps(self, p: PolyElement, q: PolyElement
                         ) -> tuple[PolyElement, PolyElement, list[_Frac]]:
        """log(exp(m)**k * u) = k*m + log(u) when m is real: exp(m) > 0
        does not move the argument of u."""
        parts = []
        for slot, mono in self.exp_monos.items():
            if not _real_valued(mono):
                continue
            k = min(m[slot] for m in p.itermonoms()) - min(m[slot] for m in q.itermonoms())
            if k == 0:
                continue
            g = self.alg.ring.gens[slot]
            if k > 0:
                p = p.exquo(g ** k)
            else:
                q = q.exquo(g ** -k)
            parts.append(self.convert(k * self.plan.exp_units[mono] * mono))
        return p, q, parts

    # -- radicals ------------------------------------------------------------
    def _radical(self, base: _Frac, ex: sp.Rational) -> _Frac:
        content, p, q = self.alg.canonical(base)
        if not p:
            if ex < 0:
                raise _Undefined()
            return self.alg.const(sp.S.Zero)
        if ex < 0:
            self.nonzero.append(p)
        out = self._constant_radical(content, ex)
        if p == q:
            return out
        if p == -q:
            # (-1)**r = exp(I*pi*r) for the principal branch.
            return self.alg.mul([out, self._exp(sp.I * sp.pi * ex)])
        value = _Frac(p, ((_k(q), q, 1),) if q != 1 else ())
        slot, bucket = self._intern("rad", [(QQ(1), p, q)])
        return self.alg.mul([out, self._radical_symbol(slot, bucket, value, ex)])

    def _constant_radical(self, c: QQ, ex: sp.Rational) -> _Frac:
        """c**ex for rational c > 0 as prime radicals: sqrt(6) = sqrt(2)
        sqrt(3) because every factor is positive."""
        parts = []
        for part, sign in ((int(c.numerator), 1), (int(c.denominator), -1)):
            if part == 1:
                continue
            for prime, mult in _prime_factors(part).items():
                power = sign * mult * ex
                if power.is_Integer:
                    parts.append(self.alg.pow(self.alg.const(sp.Integer(prime)), int(power)))
                else:
                    value = self.alg.const(sp.Integer(prime))
                    slot = self._slot(("prime", prime))
                    parts.append(self._radical_symbol(slot, ("prime", prime), value, power))
        return self.alg.mul(parts)

    def _radical_symbol(self, slot: int, name: tuple, value: _Frac, ex: sp.Rational) -> _Frac:
        """value**ex as R**k with R = value**(1/q): (u**(1/q))**p = u**(p/q)
        for the principal branch, so all powers of one radicand share R."""
        self.kinds.add("radical")
        known = self.relations.get(slot)
        degree = known.degree if known else self.plan.radical_degree.get(name, int(ex.q))
        if not (degree * ex).is_Integer:
            # u**(1/2) met first, u**(1/3) now: redo with R = u**(1/6).
            self.plan.radical_degree[name] = math.lcm(degree, int(ex.q))
            raise _Replan()
        if known is None:
            self._relate(slot, degree, value)
        return self.alg.pow(self.alg.gen(slot), int(degree * ex))

    # -- other functions -----------------------------------------------------
    def _abs_sign(self, e: sp.Expr) -> _Frac:
        # For real u: |u|**2 = u**2 and sign(u) = u/|u| (u != 0).
        u = self.convert(e.args[0])
        content, p, q = self.alg.canonical(u)
        key_value = _Frac(p, ((_k(q), q, 1),) if q != 1 else ())
        slot, _ = self._intern("abs", [(QQ(1), p, q)])
        if slot not in self.relations:
            self._relate(slot, 2, self.alg.pow(key_value, 2))
        self.kinds.add("abs")
        a = self.alg.gen(slot)
        if isinstance(e, sp.Abs):
            return self.alg.mul([self.alg.const(_rational(content)), a])
        self.nonzero.append(p)
        return self.alg.mul([key_value, self.alg.inv(a)])

    def _function(self, e: sp.Expr) -> _Frac:
        """Any other call: an independent symbol per distinct call, arguments
        normalised (atan(2x+2) and atan(2(x+1)) coincide)."""
        self.kinds.add("opaque")
        try:
            args = [self.alg.canonical(self.convert(a)) for a in e.args]
        except (_Unsupported, _Undefined, TypeError, AttributeError, ValueError):
            return self.alg.gen(self._slot(("raw", e)))
        return self.alg.gen(self._intern(e.func, args)[0])


# --------------------------------------------------------------------------
# Reduction modulo the relations, and the zero test.
# --------------------------------------------------------------------------

def _reduction_order(relations: dict[int, _Relation]) -> list[int]:
    """Outermost first.  A relation's value is converted before its slot is
    created, so the slots it uses are older: reverse creation order works."""
    return list(reversed(relations))


def _reduce(poly: PolyElement, relations: dict[int, _Relation], order: list[int],
            clock: _Clock) -> PolyElement:
    """Pseudo-remainder of poly modulo ``R**q * den - num`` for each relation
    in order.  Multiplying by powers of den (non-zero wherever the radicand
    is defined) keeps "vanishes on the relations' variety" equivalent."""
    ring_ = poly.ring
    for slot in order:
        if not poly:
            return poly
        clock.check()
        rel = relations[slot]
        buckets: dict[int, dict] = {}
        for monom, coeff in poly.terms():
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
            out += part * rel.num ** j * rel.den ** (top - j)
        poly = out
    return poly


def _normalize(residual: sp.Expr, clock: _Clock) -> tuple[_Normalizer, _Frac]:
    plan = _survey(residual, clock)
    for _ in range(MAX_REPLANS):
        norm = _Normalizer(plan, clock)
        try:
            return norm, norm.convert(residual)
        except _Replan:
            if norm.alg.used == plan.capacity:
                plan.capacity *= 2
    raise _Unsupported("replans")


def _normal_form_zero(residual: sp.Expr, clock: _Clock) -> tuple[bool, set[str]]:
    norm, form = _normalize(residual, clock)
    order = _reduction_order(norm.relations)
    # Refuse a residual that is undefined everywhere: "zero wherever it is
    # defined" would be vacuous.
    keys = {_k(p): p for p in (*norm.nonzero, *(f for _, f, _ in form.den),
                               *(r.den for r in norm.relations.values()))}
    for key in keys.values():
        if not _reduce(key, norm.relations, order, clock):
            raise _Undefined()
    return not _reduce(form.num, norm.relations, order, clock), norm.kinds


# --------------------------------------------------------------------------
# Rewrites used by the later rungs (each an identity for real x).
# --------------------------------------------------------------------------

_INVERSE_AS_LOG: dict[type, Callable[[sp.Expr], sp.Expr]] = {
    sp.atan: lambda u: sp.I / 2 * (sp.log(1 - sp.I * u) - sp.log(1 + sp.I * u)),
    sp.acot: lambda u: sp.I / 2 * (sp.log(1 - sp.I / u) - sp.log(1 + sp.I / u)),
    sp.asinh: lambda u: sp.log(u + sp.sqrt(u ** 2 + 1)),
    sp.acosh: lambda u: sp.log(u + sp.sqrt(u + 1) * sp.sqrt(u - 1)),
    sp.atanh: lambda u: (sp.log(1 + u) - sp.log(1 - u)) / 2,
    sp.acoth: lambda u: (sp.log(1 + 1 / u) - sp.log(1 - 1 / u)) / 2,
    sp.asin: lambda u: -sp.I * sp.log(sp.I * u + sp.sqrt(1 - u ** 2)),
    sp.acos: lambda u: sp.pi / 2 + sp.I * sp.log(sp.I * u + sp.sqrt(1 - u ** 2)),
    sp.acsc: lambda u: -sp.I * sp.log(sp.I / u + sp.sqrt(1 - 1 / u ** 2)),
    sp.asec: lambda u: sp.pi / 2 + sp.I * sp.log(sp.I / u + sp.sqrt(1 - 1 / u ** 2)),
}


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
        num, den = sp.fraction(sp.cancel(u))
        c_num, fl_num = sp.factor_list(sp.Poly(num, x, domain=QQ))
        c_den, fl_den = sp.factor_list(sp.Poly(den, x, domain=QQ))
    except Exception:  # noqa: BLE001 - not a rational function over QQ: leave it
        return None
    const = sp.Rational(c_num) / sp.Rational(c_den)
    factors = []
    for poly, e in [(f, m) for f, m in fl_num] + [(f, -m) for f, m in fl_den]:
        f = poly.as_expr()
        if sp.expand(-f) in preferred and f not in preferred:
            f, const = sp.expand(-f), const * (-1) ** e
        factors.append((f, e))
    odd = [(f, e) for f, e in factors if e % 2]
    even = [(sp.Abs(f), e) for f, e in factors if e % 2 == 0]
    if const < 0:
        odd.append((sp.S.NegativeOne, 1))
    head = [(abs(const), 1)]
    if _split_is_exact(odd, x):
        return head + odd + even
    if even:
        # The odd part as one radicand: only positive factors are pulled out.
        return head + [(sp.Mul(*[f ** e for f, e in odd]), 1)] + even
    return None


def _split_is_exact(odd: list[tuple[sp.Expr, int]], x: sp.Symbol) -> bool:
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


# --------------------------------------------------------------------------
# Rungs and the entry point.
# --------------------------------------------------------------------------

def _kind_name(kinds: set[str]) -> str:
    has_exp, has_alg = "exp" in kinds, bool(kinds & {"radical", "abs"})
    if has_exp and has_alg:
        return "exp_algebraic"
    if has_exp:
        return "exp_normal_form"
    if has_alg:
        return "algebraic"
    return "log_rational" if kinds & {"log", "opaque"} else "rational"


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


# Rewrites for the second rung, each an identity at every real x.
REWRITES: tuple[tuple[str, Callable[[sp.Expr, sp.Symbol], sp.Expr]], ...] = (
    ("inverse_to_log", lambda e, x: _inverse_to_log(e)),
    ("split_radicals", _split_radicals),
    ("denest", _denest_constants),
)


def _rung_normal_form(residual: sp.Expr, x: sp.Symbol, clock: _Clock) -> str | None:
    proved, kinds = _normal_form_zero(residual, clock)
    return _kind_name(kinds) if proved else None


def _rung_rewritten(residual: sp.Expr, x: sp.Symbol, clock: _Clock) -> str | None:
    """The normal form after every rewrite that changes something."""
    applied = []
    for name, rewrite in REWRITES:
        clock.check()
        rewritten = rewrite(residual, x)
        if rewritten != residual:
            applied.append(name)
            residual = rewritten
    if not applied:
        raise _Skip()
    proved, _ = _normal_form_zero(residual, clock)
    return "+".join(applied) if proved else None


class _Skip(Exception):
    pass


# (name, rung): a rung returns the name of what proved it, or None.
RUNGS: tuple[tuple[str, Callable[[sp.Expr, sp.Symbol, _Clock], str | None]], ...] = (
    ("normal_form", _rung_normal_form),
    ("rewritten", _rung_rewritten),
)

# Failures of SymPy on odd input: reported, and the next rung still runs.
# The check's deadline (StepTimeout) propagates; anything else ends the
# attempt at once, without raising.
_SYMPY_FAILURES = (ArithmeticError, AttributeError, IndexError, KeyError, LookupError,
                   NotImplementedError, RecursionError, TypeError, ValueError,
                   sp.polys.polyerrors.BasePolynomialError, sp.SympifyError)


def prove_zero(residual: sp.Expr, x: sp.Symbol, deadline_s: float) -> ProofAttempt:
    """Try to prove ``residual`` identically zero as a function of real ``x``.

    ``deadline_s`` is a budget in seconds from now, checked cooperatively
    between steps; the caller's signal timer is the hard bound.  Never
    raises on odd input: failures are reported in ``tried``.
    """
    clock = _Clock(time.monotonic() + max(0.0, deadline_s))
    try:
        expr = sp.sympify(residual)
        if expr == 0:
            return ProofAttempt(True, "structural", [("structural", 0.0, "proved")])
        if not isinstance(expr, sp.Expr):
            return ProofAttempt(False, None, [("input", 0.0, "unsupported: not an Expr")])
    except Exception as exc:  # noqa: BLE001 - odd input must not raise
        return ProofAttempt(False, None, [("input", 0.0, f"error: {type(exc).__name__}")])
    tried: list[tuple[str, float, str]] = []
    for name, rung in RUNGS:
        started = time.perf_counter()
        outcome, label = _run_rung(rung, expr, x, clock)
        if outcome == "skipped":
            continue
        tried.append((label or name, _ms(started), outcome))
        if outcome == "proved":
            return ProofAttempt(True, label or name, tried)
        if outcome in ("timeout", "undefined") or outcome.startswith("interrupted"):
            break
    return ProofAttempt(False, None, tried)


def _run_rung(rung: Callable[[sp.Expr, sp.Symbol, _Clock], str | None], expr: sp.Expr,
              x: sp.Symbol, clock: _Clock) -> tuple[str, str | None]:
    try:
        clock.check()
        label = rung(expr, x, clock)
    except _Skip:
        return "skipped", None
    except _Timeout:
        return "timeout", None
    except _Undefined:
        return "undefined", None
    except _Unsupported as exc:
        return f"unsupported: {exc}", None
    except _SYMPY_FAILURES as exc:
        return f"error: {type(exc).__name__}", None
    except Exception as exc:  # noqa: BLE001 - anything else odd: stop, never raise
        return f"interrupted: {type(exc).__name__}", None
    return ("proved", label) if label is not None else ("nonzero_normal_form", None)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


__all__ = ["RUNGS", "ProofAttempt", "prove_zero"]
