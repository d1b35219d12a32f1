"""The conversion of a residual to its normal form (generators, roots of
unity, radicals with their relations, logs, opaque calls) and the
reduction of its numerator by the relations."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp
from sympy.polys.domains import QQ

from ...function_facts import CIRCULAR, HYPERBOLIC
from ...limits import CAPS
from ...walk import distinct_nodes
from .algebra import (
    _I_PI,
    _Algebra,
    _Clock,
    _decompose,
    _exact,
    _exp_arguments,
    _Frac,
    _prime_factors,
    _rational,
    _rational_gcd,
    _real_valued,
    _reduce,
    _Relation,
    _Replan,
    _Undefined,
    _Unsupported,
)
from .polys import Poly

# --------------------------------------------------------------------------
# The conversion.
# --------------------------------------------------------------------------

@dataclass
class _Plan:
    """What a conversion run needs to know in advance; widened on _Replan."""

    exp_units: dict[sp.Expr, sp.Rational]
    capacity: int
    radical_degree: dict[tuple, int] = field(default_factory=dict)


def _survey(expr: sp.Expr, clock: _Clock) -> _Plan:
    """Pass 1: exp units, and a slot count that is usually enough."""
    coeffs: dict[sp.Expr, list[sp.Rational]] = {_I_PI: [sp.Rational(1, 2)]}
    atoms: set[sp.Expr] = set()
    # A repeated subtree adds no exponent coefficient and no atom.
    for node in distinct_nodes(expr):
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
        self.nonzero: list[Poly] = []
        self.kinds: set[str] = set()

    # -- atoms -------------------------------------------------------------
    def _slot(self, key: object) -> int:
        slot = self.slots.get(key)
        if slot is None:
            slot = self.alg.new_slot()
            self.slots[key] = slot
        return slot

    def _intern(self, kind: object, args: list[tuple[QQ, Poly, Poly]]
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
        if isinstance(e, CIRCULAR + HYPERBOLIC):
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
        circular = isinstance(e, CIRCULAR)
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

    def _split_real_exps(self, p: Poly, q: Poly) -> tuple[Poly, Poly, list[_Frac]]:
        """log(exp(m)**k * u) = k*m + log(u) when m is real: exp(m) > 0
        does not move the argument of u."""
        parts = []
        for slot, mono in self.exp_monos.items():
            if not _real_valued(mono):
                continue
            ring = self.alg.ring
            k = (min(m[slot] for m in ring.monoms(p))
                 - min(m[slot] for m in ring.monoms(q)))
            if k == 0:
                continue
            g = ring.gens[slot]
            if k > 0:
                p = ring.exquo(p, g ** k)
            else:
                q = ring.exquo(q, g ** -k)
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
        value = _Frac(p, ((self.alg.key(q), q, 1),) if q != 1 else ())
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
        key_value = _Frac(p, ((self.alg.key(q), q, 1),) if q != 1 else ())
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


def _normalize(residual: sp.Expr, clock: _Clock) -> tuple[_Normalizer, _Frac]:
    plan = _survey(residual, clock)
    for _ in range(CAPS.replans):
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
    ring = norm.alg.ring
    keys = {ring.key(p): p for p in (*norm.nonzero, *(f for _, f, _ in form.den),
                                     *(r.den for r in norm.relations.values()))}
    for key in keys.values():
        if not _reduce(key, norm.relations, order, clock, ring):
            raise _Undefined()
    return not _reduce(form.num, norm.relations, order, clock, ring), norm.kinds


