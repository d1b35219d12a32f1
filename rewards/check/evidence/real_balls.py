"""The domain rule's question at a real point, on FLINT's real balls: is an
expression (in real analysis, as :class:`.domain.RealEvaluator` reads it)
defined there, undefined, or too large to hold?

The domain rule asks it of the answer and the integrand at every point of
the real sample (:class:`.domain._PointValues`). ``RealEvaluator`` answers
with a 20-digit mpmath walk of the tree, 0.1 to 0.2 ms an expression a point,
again with 80 and more digits where a value came out undefined (a rounding
can push an argument past the edge of its domain): a sixteenth of a worker's
time. Here a tree is compiled once into closures over python-flint's ``arb``
balls at the same working precision, a few microseconds a point.

A ball holds the exact value, so what it settles is settled for the exact
value, not only at 20 digits:

* a function's real domain (``real_domain`` of
  :class:`~rewards.check.function_facts.Facts`, the table's own predicate,
  made of comparisons) holds for the exact argument when arb's comparisons
  say it holds on the whole ball, and fails when it fails at the ball's two
  ends and its middle, for a ball narrower than :data:`MIN_BITS` relative
  (the domains are intervals and their complements: a ball that narrow holds
  no whole interval of either); a function real wherever it is finite (tan,
  coth) needs no predicate: a finite value on the ball excludes its poles;
* a non-integer power of a base that is positive on the whole ball is
  defined, of one negative on the whole ball undefined;
* an argument over the size limit on the whole ball is too large (the
  ``grows_fast`` functions, as ``RealEvaluator`` reads them).

Anything it cannot settle (a ball that straddles the edge of a domain, a
pole or zero of a power inside the ball, a periodic function of an argument
past :data:`PERIODIC_BOUND`, a symbol without a value, a node not mapped
here: special, step and two-argument functions, ``Piecewise``, constants
other than pi and e, an expression with ``i``) is :data:`UNKNOWN`, and
``RealEvaluator`` decides as before. Without python-flint everything is ``UNKNOWN``.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import mpmath as mp
import sympy as sp

from ..function_facts import FACTS
from ..limits import CAPS
from .balls import arb_mpf, exact_arb

try:
    from flint import arb, ctx
except ImportError:  # RealEvaluator is complete without it
    arb = ctx = None

# The least relative accuracy (bits) of an argument whose domain test is
# read off its ends (see the module docstring).
MIN_BITS = 40


class _Undefined(Exception):
    """No real value at this point, for the exact argument."""


class _TooLarge(Exception):
    """A value at this point is over the size limit, for the exact argument."""


class _Unknown(Exception):
    """The ball cannot tell: RealEvaluator decides."""


class _NotMapped(Exception):
    """A node this module does not compile."""


# What a point's question can come back as (besides a value, an arb).
UNDEFINED = object()
TOO_LARGE = object()
UNKNOWN = object()

# SymPy function -> its arb method, or (method, True) for one read at 1/u:
# arb has no acot and the like, and mpmath defines them so (acot(u) is
# atan(1/u), where u != 0: a ball holding 0 is UNKNOWN).
_METHODS: dict[type, tuple[str, bool]] = {
    sp.sin: ("sin", False), sp.cos: ("cos", False), sp.tan: ("tan", False),
    sp.cot: ("cot", False), sp.sec: ("sec", False), sp.csc: ("csc", False),
    sp.sinh: ("sinh", False), sp.cosh: ("cosh", False), sp.tanh: ("tanh", False),
    sp.coth: ("coth", False), sp.sech: ("sech", False), sp.csch: ("csch", False),
    sp.asin: ("asin", False), sp.acos: ("acos", False), sp.atan: ("atan", False),
    sp.acot: ("atan", True), sp.asec: ("acos", True), sp.acsc: ("asin", True),
    sp.asinh: ("asinh", False), sp.acosh: ("acosh", False), sp.atanh: ("atanh", False),
    sp.acoth: ("atanh", True), sp.asech: ("acosh", True), sp.acsch: ("asinh", True),
    sp.exp: ("exp", False), sp.log: ("log", False),
}

# A periodic function of a larger argument is left to mpmath: arb reduces
# it with as many digits of pi as the argument has bits, in C, where no
# time limit reaches (sin(x^(10^6)) at x = 1000).
_PERIODIC = {sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc}
PERIODIC_BOUND = 2 ** 64

Closure = Callable[[dict[str, Any]], Any]


@functools.lru_cache(maxsize=512)
def compile_real(expr: sp.Expr) -> Closure | None:
    """``expr`` as a function of ``{symbol name: arb}`` to its arb value in
    real analysis, raising the module's exceptions; ``None`` when a node is
    not mapped here (or python-flint is absent). Cached: a check asks it of
    the same answer and integrand for each sample, and a group shares f."""
    if arb is None or expr.has(sp.I):
        return None
    try:
        return _Compiler(expr).node(expr)
    except _NotMapped:
        return None


def point(values: dict[str, Any]) -> dict[str, Any] | None:
    """``{symbol name: mpmath number}`` as exact balls, the argument of
    :func:`value_at`, at mpmath's working precision; ``None`` for a value
    that is not finite."""
    ctx.prec = mp.mp.prec
    try:
        return {name: exact_arb(mp.mpf(v)) for name, v in values.items()}
    except ValueError:
        return None


def value_at(fn: Closure, env: dict[str, Any]) -> Any:
    """``fn`` (from :func:`compile_real`) at ``env`` (from :func:`point`):
    an arb, or UNDEFINED, TOO_LARGE, UNKNOWN."""
    try:
        return fn(env)
    except _Undefined:
        return UNDEFINED
    except _TooLarge:
        return TOO_LARGE
    except (_Unknown, ZeroDivisionError, ValueError, OverflowError, TypeError, KeyError):
        # KeyError: a symbol without a value (RealEvaluator reads it as undefined).
        return UNKNOWN


def _finite(value: Any) -> Any:
    if not value.is_finite():
        raise _Unknown
    return value


def _ends(value: Any) -> tuple[Any, Any, Any] | None:
    """The ends and middle of a finite ball narrow enough to have its
    domain read off them (:data:`MIN_BITS`), as mpmath numbers; else None."""
    if not value.is_exact() and value.rel_accuracy_bits() < MIN_BITS:
        return None
    return tuple(arb_mpf(v) for v in (value.lower(), value.mid(), value.upper()))


def _settled(test: Callable[[Any], bool], value: Any) -> bool:
    """``test`` of the exact value in the ball: True, False, or _Unknown."""
    ends = _ends(value)
    if ends is None:
        raise _Unknown
    answers = {bool(test(v)) for v in ends}
    if len(answers) != 1:
        raise _Unknown
    return answers.pop()


def _over(value: Any, limit: int) -> bool:
    """Whether the exact value in the ball exceeds ``limit``: a comparison
    arb settles itself (for the whole ball), else _Unknown."""
    if value > limit:
        return True
    if value <= limit:
        return False
    raise _Unknown


class _Compiler:
    """One expression's closures, one per distinct node."""

    def __init__(self, expr: sp.Basic) -> None:
        self._done: dict[sp.Basic, Closure] = {}
        # Nodes met more than once (cot(x) four times in an answer) are
        # evaluated once a point, kept in the point's own dict.
        seen: set[sp.Basic] = set()
        self._repeated: set[sp.Basic] = set()
        stack = [expr]
        while stack:
            node = stack.pop()
            if node in seen:
                self._repeated.add(node)
                continue
            seen.add(node)
            stack.extend(node.args)

    def node(self, expr: sp.Basic) -> Closure:
        fn = self._done.get(expr)
        if fn is None:
            fn = self._compile(expr)
            if expr in self._repeated and expr.args:
                fn = _kept(fn)
            self._done[expr] = fn
        return fn

    def _compile(self, expr: sp.Basic) -> Closure:
        if expr.is_Symbol:
            name = expr.name
            return lambda env: env[name]
        if expr.is_Integer:
            value = arb(int(expr))
            return lambda env: value
        if expr.is_Rational:
            p, q = int(expr.p), int(expr.q)
            return lambda env: arb(p) / q
        if expr.is_Float:
            exact = exact_arb(mp.mpf(expr._mpf_))
            return lambda env: exact
        if expr is sp.pi:
            return lambda env: arb.pi()
        if expr is sp.E:
            return lambda env: arb.const_e()
        # Sums, products, |u| and integer powers of finite balls are finite
        # (arb's exponents do not overflow); division is a power below.
        if isinstance(expr, sp.Add):
            parts = [self.node(a) for a in expr.args]
            return lambda env: _sum(parts, env)
        if isinstance(expr, sp.Mul):
            parts = [self.node(a) for a in expr.args]
            return lambda env: _product(parts, env)
        if isinstance(expr, sp.Pow):
            return self._power(expr)
        if isinstance(expr, sp.Abs):
            inner = self.node(expr.args[0])
            return lambda env: abs(inner(env))
        return self._function(expr)

    def _power(self, expr: sp.Pow) -> Closure:
        base = self.node(expr.base)
        if expr.exp.is_Integer:
            n = int(expr.exp)

            def integer_power(env: dict[str, Any]) -> Any:
                b = base(env)
                if n < 0 and b.contains(0):
                    if b.is_zero():
                        raise _Undefined
                    raise _Unknown
                return b ** n
            return integer_power
        if expr.exp is sp.S.Half or expr.exp == -sp.S.Half:
            reciprocal = expr.exp.is_negative

            def square_root(env: dict[str, Any]) -> Any:
                b = base(env)
                if b > 0:
                    return b.rsqrt() if reciprocal else b.sqrt()
                return _not_positive(b, reciprocal, not reciprocal)
            return square_root
        exponent = self.node(expr.exp)
        limit = CAPS.log2_magnitude

        def power(env: dict[str, Any]) -> Any:
            b, e = base(env), exponent(env)
            if b > 0:
                # RealEvaluator: too large when |e| > 1 and |e log2 b| > limit.
                if _over(abs(e), 1) and _over(abs(e * b.log() / arb.const_log2()), limit):
                    raise _TooLarge
                return _finite(b ** e)
            return _not_positive(b, e <= 0, e > 0)
        return power

    def _function(self, expr: sp.Basic) -> Closure:
        func = type(expr)
        facts = FACTS.get(func)
        mapped = _METHODS.get(func)
        if facts is None or facts.mpmath is None or mapped is None or len(expr.args) != 1:
            raise _NotMapped(func.__name__)
        inner = self.node(expr.args[0])
        method, reciprocal = mapped
        grows_fast, periodic = facts.grows_fast, func in _PERIODIC
        # Real wherever finite (tan, coth): a finite value on the ball is
        # the test of its domain, which excludes only the poles.
        domain = None if facts.real_where_finite else facts.real_domain

        def apply(env: dict[str, Any]) -> Any:
            u = inner(env)
            if periodic and not abs(u) < PERIODIC_BOUND:
                raise _Unknown
            # RealEvaluator's order: the size limit, then the domain.
            if grows_fast and _over(abs(u), CAPS.log2_magnitude):
                raise _TooLarge
            # The table's predicates are comparisons, which arb answers for
            # the whole ball: True only when every point is inside.
            if domain is not None and not domain(u) and not _settled(domain, u):
                raise _Undefined
            if reciprocal:
                if u.contains(0):
                    raise _Unknown
                u = 1 / u
            return _finite(getattr(u, method)())
        return apply


def _kept(fn: Closure) -> Closure:
    key = object()

    def kept(env: dict[Any, Any]) -> Any:
        value = env.get(key)
        if value is None:
            value = env[key] = fn(env)
        return value
    return kept


def _not_positive(b: Any, undefined_at_zero: bool, zero_at_zero: bool = False) -> Any:
    """A non-integer power of a base not positive on the whole ball: of a
    negative one undefined, of an exact 0 zero or undefined (by the sign
    of the exponent, when the ball settles it); else _Unknown."""
    if b < 0:
        raise _Undefined
    if b.is_zero():
        if zero_at_zero:
            return arb(0)
        if undefined_at_zero:
            raise _Undefined
    raise _Unknown


def _sum(parts: list[Closure], env: dict[str, Any]) -> Any:
    total = parts[0](env)
    for part in parts[1:]:
        total = total + part(env)
    return total


def _product(parts: list[Closure], env: dict[str, Any]) -> Any:
    total = parts[0](env)
    for part in parts[1:]:
        total = total * part(env)
    return total


__all__ = ["TOO_LARGE", "UNDEFINED", "UNKNOWN", "compile_real", "value_at"]
