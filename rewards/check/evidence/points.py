"""Where the numeric evidence is taken: sample points no policy can learn.

Fixed public points can be gamed: a polynomial that vanishes at them, or an
answer whose derivative is wrong only between two of them, passes every
check. So the points of one check are drawn from a generator seeded by a
hash of (answer, integrand): the same pair always gets the same points (the
verdict is reproducible and cacheable), but no point set is written in code,
and changing the answer by a hair changes all of them.

* Complex points (:func:`complex_points`), for analytic expressions: stratified
  over both half-planes and over scales from 0.1 to several hundred, so an
  answer right only for ``Re z > 0``, or only near the origin, is caught.
* Real points (:func:`real_points`), for non-analytic expressions (``|u|``,
  ``sign``, ``floor``, ``Heaviside``, ``Min``/``Max``, ``Piecewise``) and for the
  domain rule: spread over the whole line, plus the *breakpoints* of the
  expressions (:func:`breakpoints`: real roots of the arguments of those
  functions, of logarithms, radicals, denominators, inverse trig and
  hyperbolic functions, and Piecewise condition boundaries) with points
  inside every interval between consecutive breakpoints, however narrow,
  and beyond the outermost ones.

Points are decimal strings (one exact number, read at any precision), real
points as ``(re, "0")`` pairs like complex ones.
"""
from __future__ import annotations

import functools
import hashlib
import math
import random
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from ..function_facts import CIRCULAR, KINK, POLE, breakpoint_arguments
from ..limits import CAPS
from ..timebox import Deadline
from .lambdify import compile_expr

Point = tuple[str, str]
# Breakpoints are looked for (and used) within this distance of the origin:
# far enough to cover the scales the spread points reach.
SPAN = 1000
# Numeric root scan: a grid dense near the origin (where answers' kinks and
# domain boundaries usually are) and logarithmically spaced out to SPAN.
_GRID = sorted({0.0, *(k / 20 for k in range(-400, 401)),
                *(s * 10 ** (e / 16) for s in (-1, 1) for e in range(-48, 49))})
_GRID_ARRAY = np.array(_GRID)
_BISECTIONS = 52
# A vectorized value smaller than this may have another sign point by point
# (numpy's and math's rounding differ in the last digits): those points are
# evaluated as the scan always did, one by one.
_VECTOR_CLEAR = 1e-9


def _written_degree(expr: sp.Expr, x: sp.Symbol) -> int:
    """An upper bound on the degree of ``expr`` in ``x`` read off its tree
    (no expansion: ``(1/2 + x/2000)^{2000}`` is 2000 at once, where
    ``sp.Poly`` would first build its 2,001 terms)."""
    if not expr.has(x):
        return 0
    if expr == x:
        return 1
    if isinstance(expr, sp.Pow):
        exponent = expr.args[1]
        if exponent.is_Integer and exponent > 0:
            return int(exponent) * _written_degree(expr.args[0], x)
        return _HUGE_DEGREE
    if isinstance(expr, sp.Mul):
        return sum(_written_degree(a, x) for a in expr.args)
    if isinstance(expr, sp.Add):
        return max(_written_degree(a, x) for a in expr.args)
    return _HUGE_DEGREE


_HUGE_DEGREE = 10**9


def small_polynomial(expr: sp.Expr, x: sp.Symbol, max_degree: int) -> sp.Poly | None:
    """``expr`` as a polynomial in ``x`` when it is one of degree at most
    ``max_degree`` (judged before expanding anything); else ``None``."""
    if _written_degree(expr, x) > max_degree or not expr.is_polynomial(x):
        return None
    try:
        return sp.Poly(expr, x)
    except sp.PolynomialError:
        return None


def structure_digest(*exprs: sp.Basic) -> bytes:
    """SHA-256 of the expressions' exact structure: the same in every
    process (no ``hash()``, which is randomized per process), and far
    cheaper than hashing their ``srepr``."""
    digest = hashlib.sha256()
    for e in exprs:
        digest.update(_structure_bytes(e))
        digest.update(b"\x1f")
    return digest.digest()


def seed_for(*exprs: sp.Basic) -> int:
    """A seed from the expressions' exact structure (:func:`structure_digest`)."""
    return int.from_bytes(structure_digest(*exprs)[:8], "big")


_STREAMS: dict[sp.Basic, bytes] = {}


def _structure_bytes(expr: sp.Basic) -> bytes:
    """What ``srepr`` prints (class names, atoms, args in SymPy's canonical
    order), without the printer: srepr of every derivative was 4% of a hard
    check. Kept per expression: the memo key and the seed both digest F',
    and a group's checks share their integrand. An expression holding a
    Float is never kept: Floats equal across precisions compare equal, and
    a lookup would hand one the other's digits."""
    if not isinstance(expr, sp.Basic):
        return repr(expr).encode() + b","
    hit = _STREAMS.get(expr)
    if hit is not None:
        return hit
    parts: list[bytes] = []
    has_float = False
    stack = [expr]
    while stack:
        node = stack.pop()
        args = node.args if isinstance(node, sp.Basic) else ()
        if args:
            parts.append(f"{type(node).__name__}({len(args)}".encode())
            stack.extend(reversed(args))
        elif isinstance(node, sp.Basic):
            has_float = has_float or isinstance(node, sp.Float)
            parts.append(_leaf_text(node))
        else:
            parts.append(repr(node).encode())
        parts.append(b",")
    stream = b"".join(parts)
    if not has_float:
        if len(_STREAMS) >= CAPS.seed_streams:
            _STREAMS.clear()
        _STREAMS[expr] = stream
    return stream


def _leaf_text(node: sp.Basic) -> bytes:
    # The same few symbols and small numbers make up most leaves: srepr
    # (the printer) once each. Floats equal across precisions hash alike, so
    # they are printed every time, never looked up.
    if isinstance(node, sp.Float):
        return sp.srepr(node).encode()
    if isinstance(node, sp.Rational) and max(node.p.bit_length(), node.q.bit_length()) > 1000:
        # srepr writes the digits, and str() of an int past 4300 digits
        # raises: a big number is digested by its exact bytes instead.
        return b"Rational(" + _int_bytes(node.p) + b"/" + _int_bytes(node.q) + b")"
    text = _LEAVES.get(node)
    if text is None:
        if len(_LEAVES) >= CAPS.seed_leaves:
            _LEAVES.clear()
        text = _LEAVES[node] = sp.srepr(node).encode()
    return text


def _int_bytes(n: int) -> bytes:
    return int(n).to_bytes(n.bit_length() // 8 + 1, "big", signed=True)


_LEAVES: dict[sp.Basic, bytes] = {}


def _decimal(value: float, digits: int = 8) -> str:
    return f"{value:.{digits}g}"


def _spread(rng: random.Random, sign: int) -> float:
    """A magnitude across scales: near the origin, moderate, and far out."""
    tier = rng.random()
    if tier < 0.45:
        magnitude = rng.uniform(0.05, 3.0)
    elif tier < 0.8:
        magnitude = rng.uniform(3.0, 30.0)
    else:
        magnitude = 10 ** rng.uniform(1.5, 2.7)  # ~30 to ~500
    return sign * magnitude


def complex_points(rng: random.Random, n: int = 8, scale: float = 1.0) -> list[Point]:
    """``n`` generic complex points, half with a negative real part and the
    imaginary parts of both signs (a wrong answer that agrees with the
    integrand on one half-plane must not see only that half-plane); all of
    them times ``scale`` (see :func:`natural_scale`)."""
    points = []
    for i in range(n):
        re_sign = 1 if i % 2 == 0 else -1
        im_sign = 1 if (i // 2) % 2 == 0 else -1
        re = _spread(rng, re_sign) * scale
        im = im_sign * rng.uniform(0.05, 1.5) * scale
        points.append((_decimal(re), _decimal(im, 6)))
    rng.shuffle(points)
    return points


# Below this natural scale the generic points sit where e^{k x} is too large
# to say anything (k = 2016: e^{e^{2016 x}} at x = 0.5), and a check adds
# points at the scale itself.
SMALL_SCALE = 0.05


def natural_scale(exprs: Sequence[sp.Expr], x: sp.Symbol) -> float | None:
    """The smallest length over which a function argument of ``exprs``
    changes by one: ``|c_k|^{-1/k}`` over the terms ``c_k x^k`` of every
    polynomial argument with numeric coefficients (1/2016 for e^{2016 x}),
    when it is below :data:`SMALL_SCALE`; else ``None``. Points at that
    scale are where an integrand like e^{e^{2016 x} + 6048 x} has values
    that are representable and informative."""
    best = min((length for length in (_expression_length(e, x) for e in exprs)
                if length is not None), default=None)
    return best if best is not None and best < SMALL_SCALE else None


@functools.lru_cache(maxsize=8192)
def _expression_length(expr: sp.Basic, x: sp.Symbol) -> float | None:
    """The smallest :func:`_argument_length` over the function and power
    arguments in ``expr``. Cached per node: F' repeats its inner functions,
    and a group's answers share f and their terms' derivatives."""
    best = None
    if isinstance(expr, (sp.Function, sp.Pow)):
        for arg in expr.args:
            if isinstance(arg, sp.Expr) and _has_symbol(arg, x):
                best = _shorter(best, _argument_length(arg, x))
    for arg in expr.args:
        best = _shorter(best, _expression_length(arg, x))
    return best


def _shorter(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


@functools.lru_cache(maxsize=8192)
def _has_symbol(expr: sp.Basic, x: sp.Symbol) -> bool:
    # ``expr.has(x)``, cached per node (see _expression_length).
    return expr == x or any(_has_symbol(a, x) for a in expr.args)


@functools.lru_cache(maxsize=4096)
def _argument_length(arg: sp.Expr, x: sp.Symbol) -> float | None:
    """``min |c_k|^{-1/k}`` over the terms of ``arg`` as a polynomial in
    ``x`` with numeric coefficients, or None. Cached: a GRPO group's answers
    and their derivatives share most arguments with the integrand, and
    building the polynomial is most of :func:`natural_scale`'s time."""
    # |u| changes as fast as u: e^{2016 |x|} has the scale of e^{2016 x}.
    plain = arg.replace(sp.Abs, lambda u: u) if arg.has(sp.Abs) else arg
    terms = _monomial_terms(plain, x)
    if terms is None:
        poly = small_polynomial(plain, x, CAPS.exact_root_degree)
        if poly is None:
            return None
        terms = [(k, c) for (k,), c in poly.terms()]
    best = None
    for k, c in terms:
        if k < 1 or not c.is_number:
            continue
        try:
            size = abs(complex(c))
        except (TypeError, ValueError, OverflowError):
            continue
        if size > 0:
            length = size ** (-1.0 / k)
            best = length if best is None else min(best, length)
    return best


def _monomial_terms(arg: sp.Expr, x: sp.Symbol) -> list[tuple[int, sp.Expr]] | None:
    """``arg``'s (degree, coefficient) pairs as ``sp.Poly(arg, x).terms()``
    has them, read off a sum of terms ``c x^k`` without building the
    polynomial (most arguments are ``a x + b``); ``None`` for any other
    shape, or a degree :func:`small_polynomial` would refuse."""
    by_degree: dict[int, list[sp.Expr]] = {}
    for term in sp.Add.make_args(arg):
        c, m = term.as_independent(x, as_Add=False)
        if m is sp.S.One:
            k = 0
        elif m == x:
            k = 1
        elif m.is_Pow and m.base == x and m.exp.is_Integer and m.exp > 0:
            k = int(m.exp)
        else:
            return None
        if k > CAPS.exact_root_degree:
            return None
        by_degree.setdefault(k, []).append(c)
    terms = [(k, sp.Add(*cs)) for k, cs in by_degree.items()]
    return [(k, c) for k, c in sorted(terms, reverse=True) if c != 0]


def scaled_real_points(rng: random.Random, scale: float, n: int = 8) -> list[Point]:
    """``n`` real points spread like the generic ones, times ``scale`` (the
    real-line counterpart of ``complex_points(..., scale=scale)``)."""
    return [(_decimal(_spread(rng, 1 if i % 2 == 0 else -1) * scale), "0") for i in range(n)]


# Sign patterns of the parameters tried beyond the all-positive one: every
# pattern up to this many parameters, else as many random ones.
_ALL_SIGN_PATTERNS_UP_TO = 3
_RANDOM_SIGN_PATTERNS = 7


def parameter_values(rng: random.Random, n: int) -> list[str]:
    """Values for the integrand's own parameters (``a`` in ``a*x``): real,
    positive, spread and distinct (the first set a check samples)."""
    return [_decimal(rng.uniform(0.4, 3.6), 6) for _ in range(n)]


def parameter_sign_sets(rng: random.Random, values: list[str]) -> list[list[str]]:
    """``values`` with other sign patterns: the parameters are generic, so an
    answer must hold for a < 0 too (``e^{ax}/|a|`` holds only for a > 0).
    Every pattern of up to three parameters, else seven drawn at random."""
    n = len(values)
    if n == 0:
        return []
    if n <= _ALL_SIGN_PATTERNS_UP_TO:
        patterns = range(1, 2 ** n)
    else:
        patterns = sorted({rng.randrange(1, 2 ** n) for _ in range(_RANDOM_SIGN_PATTERNS)})
    return [[f"-{v}" if pattern >> i & 1 else v for i, v in enumerate(values)]
            for pattern in patterns]


# --- breakpoints -----------------------------------------------------------------

# A root: an isolating interval, and whether the sign changes across it.
Root = tuple[Fraction, Fraction, bool]


def _exact_roots(poly: sp.Poly) -> list[Root] | None:
    """Isolating intervals of the real roots of a rational polynomial."""
    if poly.degree() < 1:
        return []
    if poly.degree() > CAPS.exact_root_degree or not poly.domain.is_Exact:
        return None
    if not (poly.domain.is_ZZ or poly.domain.is_QQ):
        return None
    intervals = poly.intervals(eps=sp.Rational(1, 10**12))
    return [(Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q)), multiplicity % 2 == 1)
            for (a, b), multiplicity in intervals]


def _numeric_roots(g: sp.Expr, x: sp.Symbol, deadline: Deadline) -> list[Root]:
    """Sign changes of ``g`` on a fixed grid, refined by bisection: every real
    root of odd multiplicity that the grid separates from its neighbours.

    Machine floats: a breakpoint only has to fall in the right gap between
    sample points, and the scan evaluates ``g`` a thousand times."""
    try:
        fn = compile_expr([x], g, ["math", "mpmath"])
    except Exception:  # noqa: BLE001 - a node lambdify cannot print: no breakpoints from it
        return []

    def sign_at(t: float) -> int:
        try:
            value = fn(t)
            if isinstance(value, complex) or getattr(value, "imag", 0):
                return 0  # outside the real domain: no sign there
            value = float(value)
        except Exception:  # noqa: BLE001 - a domain or overflow error: no sign there
            return 0
        if value != value or value in (math.inf, -math.inf):
            return 0
        return (value > 0) - (value < 0)

    vector = _grid_signs(g, x)
    roots: list[Root] = []
    previous_t, previous_s = None, 0
    touching: tuple[float, int] | None = None  # an exact zero, and the sign before it
    for k, t in enumerate(_GRID):
        if k % 64 == 0:
            deadline.check()
        s = vector[k] if vector is not None and vector[k] is not None else sign_at(t)
        if touching is not None and s:
            zero, before = touching
            roots.append((Fraction(zero), Fraction(zero), s != before))
            touching = None
        if s == 0 and previous_s != 0:
            # An exact zero (or the edge of the domain) on the grid.
            touching = (t, previous_s)
        elif s and previous_s and s != previous_s:
            lo, hi = previous_t, t
            for _ in range(_BISECTIONS):
                mid = (lo + hi) / 2
                if mid in (lo, hi):
                    break
                m = sign_at(mid)
                if m == 0:
                    lo = hi = mid
                    break
                lo, hi = (mid, hi) if m == previous_s else (lo, mid)
            roots.append((Fraction(lo), Fraction(hi), True))
        previous_t, previous_s = t, s
    if touching is not None:
        roots.append((Fraction(touching[0]), Fraction(touching[0]), True))
    return roots


def _grid_signs(g: sp.Expr, x: sp.Symbol) -> list[int | None] | None:
    """The sign of ``g`` at each grid point from one vectorized evaluation
    in real doubles, ``None`` at a point the scalar scan must decide (not
    finite, not clearly away from 0); ``None`` for all when numpy cannot
    evaluate ``g`` or its values are complex. The scan evaluated g at a
    thousand points one call each: most of a breakpoint search."""
    try:
        fn = compile_expr([x], g, "numpy")
        with np.errstate(all="ignore"):
            values = np.asarray(fn(_GRID_ARRAY))
    except Exception:  # noqa: BLE001 - numpy has no such function: the scalar scan
        return None
    if values.shape != _GRID_ARRAY.shape or values.dtype.kind not in "fi":
        return None
    values = values.astype(float)
    clear = np.isfinite(values) & (np.abs(values) > _VECTOR_CLEAR)
    signs = np.where(clear, np.sign(values), 0).astype(int)
    return [int(sign) if ok else None for sign, ok in zip(signs, clear, strict=True)]


def _roots_of(g: sp.Expr, x: sp.Symbol, deadline: Deadline) -> list[Root]:
    g = sp.sympify(g)
    if not g.has(x):
        return []
    found: list[Root] = []
    numerator, denominator = sp.fraction(sp.together(g)) if g.is_rational_function(x) else (g, 1)
    for part in (numerator, denominator):
        if not sp.sympify(part).has(x):
            continue
        exact = None
        if _written_degree(part, x) <= CAPS.exact_root_degree and part.is_polynomial(x):
            try:
                exact = _exact_roots(sp.Poly(part, x))
            except (sp.PolynomialError, sp.polys.polyerrors.PolificationFailed):
                exact = None
        found.extend(exact if exact is not None else _numeric_roots(part, x, deadline))
    return found


def breakpoints(exprs: Sequence[sp.Expr], x: sp.Symbol, deadline: Deadline,
                substitutions: dict[sp.Symbol, sp.Expr] | None = None, *,
                domain_only: bool = False,
                arguments: Iterable[tuple[sp.Expr, str]] | None = None) -> Breakpoints:
    """Disjoint, sorted isolating intervals of the real breakpoints of ``exprs``
    within :data:`SPAN` of the origin (at most :attr:`~rewards.check.limits.Caps.breakpoints`, the
    ones nearest the origin; ``truncated`` says when there were more).

    With ``domain_only``, only the breakpoints that end a piece of the real
    domain: poles, and boundaries where the sign really changes (the zero of
    ``|x|`` under a square root is not one). ``arguments`` (``(g, kind)`` pairs)
    replaces the breakpoint arguments of ``exprs`` when given."""
    substitutions = substitutions or {}
    seen: set[tuple[sp.Expr, str]] = set()
    intervals: list[tuple[Fraction, Fraction]] = []
    if arguments is None:
        arguments = (pair for expr in exprs for pair in breakpoint_arguments(expr))
    for g, kind in arguments:
        if domain_only and kind == KINK:
            continue
        g = g.xreplace(substitutions) if substitutions else g
        if (g, kind) in seen or not g.has(x):
            continue
        seen.add((g, kind))
        deadline.check()
        intervals.extend((lo, hi) for lo, hi, odd in _roots_near_origin(g, x, deadline)
                         if not domain_only or kind == POLE or odd)
    return _merge(intervals)


# The roots near the origin of each breakpoint argument, kept across checks:
# a GRPO group's answers and its integrand share their arguments (the hard
# batch searched 139, 60 distinct), and the search is a function of the
# argument alone. A search the deadline cuts short raises and keeps nothing.
_ROOTS: OrderedDict[tuple[sp.Expr, sp.Symbol], list[Root]] = OrderedDict()
_ROOTS_KEPT = 1024
_ROOTS_LOCK = threading.Lock()


def _roots_near_origin(g: sp.Expr, x: sp.Symbol, deadline: Deadline) -> list[Root]:
    key = (g, x)
    with _ROOTS_LOCK:
        roots = _ROOTS.get(key)
        if roots is not None:
            _ROOTS.move_to_end(key)
            return roots
    roots = [r for r in _roots_of(g, x, deadline) if -SPAN <= r[0] and r[1] <= SPAN]
    if _periodic(g, x):
        # A few periods around the origin stand for all of them.
        roots = sorted(roots, key=lambda r: abs(r[0] + r[1]))[:CAPS.periodic_roots]
    with _ROOTS_LOCK:
        _ROOTS[key] = roots
        if len(_ROOTS) > _ROOTS_KEPT:
            _ROOTS.popitem(last=False)
    return roots


def _periodic(g: sp.Expr, x: sp.Symbol) -> bool:
    """Whether ``g`` is a function of trig functions of one linear argument
    (tan x, cos(2x + 1) - 1/2): its breakpoints repeat with a period."""
    arguments = set()
    for node in sp.preorder_traversal(g):
        if isinstance(node, CIRCULAR) and node.has(x):
            arguments.add(node.args[0])
    if not arguments or any(small_polynomial(a, x, 1) is None for a in arguments):
        return False
    slopes = {sp.Poly(a, x).coeff_monomial(x) for a in arguments}
    if len(slopes) != 1:
        return False
    bare = g.xreplace({node: sp.Dummy() for node in sp.preorder_traversal(g)
                       if isinstance(node, CIRCULAR) and node.has(x)})
    return not bare.has(x)


class Breakpoints(list):
    """Sorted isolating intervals ``(lo, hi)``; ``truncated`` when more were
    found than a check probes (evidence between the others is missing)."""

    truncated: bool = False


def _merge(intervals: list[tuple[Fraction, Fraction]]) -> Breakpoints:
    """Overlapping intervals (the same root found twice) become one; keep the
    ones nearest the origin."""
    merged: list[list[Fraction]] = []
    for lo, hi in sorted(intervals):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    out = Breakpoints()
    if len(merged) > CAPS.breakpoints:
        merged = sorted(merged, key=lambda iv: abs(iv[0] + iv[1]))[:CAPS.breakpoints]
        merged.sort()
        out.truncated = True
    out.extend((lo, hi) for lo, hi in merged)
    return out


def _fraction_decimal(value: Fraction, digits: int = 24) -> str:
    # Enough digits to stay strictly inside any gap the root isolation left,
    # whatever precision the host process happens to have set.
    with mp.workdps(digits + 10):
        return mp.nstr(mp.mpf(value.numerator) / value.denominator, digits,
                       min_fixed=-mp.inf, max_fixed=mp.inf)


def real_points(rng: random.Random, intervals: Sequence[tuple[Fraction, Fraction]],
                n_spread: int = 10, per_gap: int = 2) -> list[Point]:
    """Spread points on the whole line plus, around the breakpoints, points
    inside every gap between consecutive ones and beyond the outermost."""
    values: list[str] = []
    for i in range(n_spread):
        values.append(_decimal(_spread(rng, 1 if i % 2 == 0 else -1)))
    for (_, hi), (lo, _) in zip(intervals, intervals[1:], strict=False):
        for _ in range(per_gap):
            t = Fraction(rng.uniform(0.15, 0.85))
            values.append(_fraction_decimal(hi + (lo - hi) * t))
    if intervals:
        first, last = intervals[0][0], intervals[-1][1]
        for distance in (rng.uniform(0.001, 0.5), rng.uniform(0.5, 50.0)):
            values.append(_fraction_decimal(first - Fraction(distance)))
            values.append(_fraction_decimal(last + Fraction(distance)))
    unique = list(dict.fromkeys(values))
    return [(v, "0") for v in unique]


# --- where a localized term is largest ---------------------------------------------

# Offsets tried around each feature, as powers of ten relative to max(1, |x0|):
# a step or bump of width w shows at an offset below w, and every w from 1e-15
# up has one within a factor 1e4 below it. Never at x0 itself, where F' may
# differ from f at that one point (a piece boundary), which the definition
# allows.
_FEATURE_OFFSETS = (3, 7, 11, 15)


def _feature_arguments(expr: sp.Basic, x: sp.Symbol) -> tuple[list[sp.Expr], bool]:
    """The expressions whose real zeros, and whose critical points, are where
    a term of ``expr`` may peak: every function's argument (a step
    ``tanh(k(x - x0))``, a bump ``e^{-k(x - x0)^2}``, ``\\arctan``, erf,
    logistic) and every power's base (``1/((x - x0)^2 + e)``); then the
    derivative of every argument that is not linear. A bump need not have a
    root anywhere: ``e^{-10^8(e^{x - 37} + e^{37 - x} - 2)}`` peaks at the
    minimum of its exponent, and ``1/(1 + 10^6(\\cosh(x - 37) - 1))`` at the
    minimum of its base, each a zero of a derivative. Also whether more
    non-linear arguments than :attr:`~rewards.check.limits.Caps.critical_arguments` were left out
    (the critical points of some go unseen)."""
    arguments: list[sp.Expr] = []
    nonlinear: dict[sp.Expr, None] = {}
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Function, sp.Pow)):
            for arg in node.args:
                # Expressions only: a Piecewise's arguments are (piece, condition) pairs.
                if isinstance(arg, sp.Expr) and arg.has(x):
                    arguments.append(arg)
                    if small_polynomial(arg, x, 1) is None:
                        nonlinear.setdefault(arg)
    largest = sorted(nonlinear, key=sp.count_ops, reverse=True)[:CAPS.critical_arguments]
    arguments.extend(sp.diff(arg, x) for arg in largest)
    return arguments, len(nonlinear) > CAPS.critical_arguments


def feature_points(exprs: Sequence[sp.Expr], x: sp.Symbol, deadline: Deadline,
                   rng: random.Random,
                   substitutions: dict[sp.Symbol, sp.Expr] | None = None) -> Features:
    """Real points where a term of ``exprs`` may be large while it is below
    round-off at every generic point: next to the zeros (exact for
    polynomials, at any distance) of the arguments and bases in them and the
    critical points of the non-linear ones, at offsets of every scale from
    1e-3 to 1e-15 with random mantissas and signs (no fixed set a policy
    could learn to avoid)."""
    substitutions = substitutions or {}
    roots: dict[Fraction, None] = {}
    periodic: dict[Fraction, None] = {}
    seen: set[sp.Expr] = set()
    left_out = False
    for expr in exprs:
        arguments, truncated = _feature_arguments(expr, x)
        left_out = left_out or truncated
        for g in arguments:
            g = g.xreplace(substitutions) if substitutions else g
            if g in seen or not g.has(x):
                continue
            seen.add(g)
            deadline.check()
            found = [(lo + hi) / 2 for lo, hi, _ in _roots_of(g, x, deadline)]
            if len(found) > CAPS.periodic_roots or _periodic(g, x):
                # A few periods around the origin stand for all of them: a
                # term can only peak at one root of a periodic argument if
                # it peaks at all of them. An oscillating one (x sin x) is
                # read the same way: a term that peaks at one of its roots
                # only has an argument of its own that vanishes there.
                for r in sorted(found, key=abs)[:CAPS.periodic_roots]:
                    periodic.setdefault(r)
            else:
                for r in found:
                    roots.setdefault(r)
    values: list[str] = []
    out = Features()
    out.truncated = len(roots) > CAPS.features or left_out
    chosen = sorted(roots, key=abs)[:CAPS.features]
    chosen += sorted(set(periodic) - set(chosen), key=abs)[:CAPS.features]
    for r in chosen:
        scale = max(Fraction(1), abs(r))
        for exponent in _FEATURE_OFFSETS:
            offset = scale * Fraction(rng.uniform(1, 9)) / 10 ** exponent
            values.append(_fraction_decimal(r + rng.choice((-1, 1)) * offset, 40))
    out.extend((v, "0") for v in dict.fromkeys(values))
    return out


class Features(list):
    """Real points next to the features of ``exprs`` (:func:`feature_points`);
    ``truncated`` when there were more than a check probes."""

    truncated: bool = False


# --- where a term switches on, far out -------------------------------------------

# Switch points are looked for up to this distance from the origin.
FAR_SPAN = 10**6
# Switches nearer the origin than this lie among the generic points.
_NEAR = 20
# Distances past a switch point, in units of the length over which the
# term grows e-fold there: from just past it to where it is e^{60} larger.
_SWITCH_OFFSETS = ((0.05, 1.0), (1.0, 8.0), (8.0, 60.0))


def _growth_exponent(factor: sp.Expr, x: sp.Symbol) -> list[sp.Expr]:
    """The exponents ``g`` for which ``factor`` grows like ``e^{g}``: ``g``
    for ``e^{g}``, ``g \\ln b`` for ``b^{g}`` with a constant base, ``±g`` for
    cosh, sinh and their reciprocals; empty for anything else."""
    if isinstance(factor, sp.exp):
        return [factor.args[0]]
    if isinstance(factor, sp.Pow):
        base, exponent = factor.args
        if exponent.has(x) and not base.has(x) and base.is_positive:
            return [exponent * sp.log(base)]
        if not exponent.has(x) and exponent.is_number and exponent.is_real:
            # (e^{x - 1000})^3 or 1/cosh(x - 800)^2: the base's exponents, scaled.
            return [g * exponent for g in _growth_exponent(base, x)]
        return []
    if isinstance(factor, (sp.cosh, sp.sinh, sp.sech, sp.csch)):
        return [factor.args[0], -factor.args[0]]
    return []


def log_size(constant: sp.Expr) -> float | None:
    """ln |constant| (``-1000`` for e^{-1000}, ``-690.8`` for 10^{-300})."""
    try:
        with mp.workdps(15):
            value = abs(mp.mpmathify(sp.N(constant, 15)))
            return float(mp.log(value)) if value else None
    except Exception:  # noqa: BLE001 - a constant mpmath cannot size: no level from it
        return None


# A power b(x)^n with |n| at least this is a switch: below round-off where
# |b| < 1 (next to 1), dominant where |b| > 1.
_GROWING_POWER = 20


def _size_exponents(expr: sp.Expr, x: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]]:
    """``(g, L)`` for every product in ``expr`` that grows exponentially or
    as a high power: the real roots of ``g`` are where ``L(x)``, its
    ``ln|term|`` up to slowly varying factors, crosses 0. For exponential
    factors ``L`` is the sum of their exponents plus ln of the constant
    factor (``e^{-1000} e^{x}``: ``x - 1000``, below round-off next to 1
    until x = 1000, then dominant), and ``g = L``; for a power ``c b(x)^n``,
    ``L = n ln b + ln|c|`` and ``g = b ∓ |c|^{-1/n}`` (``((x + 1000)/2000)^{2000}``
    switches on at x = 1000)."""
    out: dict[tuple[sp.Expr, sp.Expr], None] = {}
    for node in sp.preorder_traversal(expr):
        if not isinstance(node, sp.Expr) or not node.has(x):
            continue
        factors = node.args if isinstance(node, sp.Mul) else (node,)
        exponents: list[sp.Expr] = [sp.Integer(0)]
        constant = sp.Integer(0)
        grows = False
        powers = []
        for factor in factors:
            if not factor.has(x):
                size = log_size(factor)
                if size is not None:
                    constant += sp.Float(size, 15)
                continue
            growth = _growth_exponent(factor, x)
            if growth:
                grows = True
                exponents = [e + g for e in exponents for g in growth][:4]
            elif (isinstance(factor, sp.Pow) and factor.args[1].is_number
                  and factor.args[1].is_real and abs(factor.args[1]) >= _GROWING_POWER
                  and small_polynomial(factor.args[0], x, CAPS.switch_base_degree) is not None):
                powers.append(factor)
        if grows:
            for e in exponents:
                size = sp.expand(e + constant)
                out.setdefault((size, size))
        elif len(powers) == 1:
            base, n = powers[0].args
            level = sp.Float(math.exp(max(-700.0, min(700.0, -float(constant) / float(n)))), 15)
            size = n * sp.log(base) + constant
            for target in (level, -level):
                out.setdefault((sp.expand(base - target), size))
    return list(out)


def _real_roots(g: sp.Expr, x: sp.Symbol) -> list[float]:
    """Real roots of a polynomial ``g`` (any distance, up to :data:`FAR_SPAN`);
    none for anything else: an exponent that is not a polynomial is either
    bounded (e^{\\sin x} switches nothing on) or grows through exponential
    subterms of its own (e^{e^{x - 1000}}), which have their switches."""
    if _written_degree(g, x) <= CAPS.exact_root_degree and g.is_polynomial(x):
        try:
            poly = sp.Poly(g, x)
            if poly.degree() < 1 or not all(c.is_number for c in poly.all_coeffs()):
                return []
            coefficients = [complex(c) for c in poly.all_coeffs()]
        except (sp.PolynomialError, TypeError, ValueError, OverflowError):
            return []
        if any(abs(c.imag) > 1e-12 * max(1.0, abs(c.real)) for c in coefficients):
            return []
        import numpy as np  # noqa: PLC0415 - only checks with far switches pay its import
        roots = np.roots([c.real for c in coefficients])
        return [float(r.real) for r in roots
                if abs(r.imag) <= 1e-9 * max(1.0, abs(r)) and abs(r.real) <= FAR_SPAN]
    return []


class Switches(list):
    """Real points past the switch points of ``exprs`` (:func:`far_points`);
    ``truncated`` when there were more switches than a check probes."""

    truncated: bool = False


def far_points(exprs: Sequence[sp.Expr], x: sp.Symbol, deadline: Deadline,
               rng: random.Random,
               substitutions: dict[sp.Symbol, sp.Expr] | None = None) -> Switches:
    """Real points on both sides of every far *switch point* of ``exprs``:
    where a term ``c e^{g(x)}`` crosses size 1 (``ln|c| + g(x) = 0``), past
    the generic points' reach (|x| > 20). ``\\sin(x + e^{-1000} e^x)`` differs
    from ``\\sin x`` only beyond x = 1000, where no generic point goes; the
    points sit at distances of 0.05 to 60 times the term's e-folding length
    there on both sides, and beyond the outermost switch on each side of the
    origin at 1.2 to 4 times its distance."""
    substitutions = substitutions or {}
    switches: dict[float, float] = {}
    for expr in exprs:
        expr = expr.xreplace(substitutions) if substitutions else expr
        for equation, size in _size_exponents(expr, x):
            deadline.check()
            slope = sp.diff(size, x)
            for r in _real_roots(equation, x):
                if abs(r) <= _NEAR:
                    continue
                try:
                    rate = abs(float(slope.subs(x, r)))
                except (TypeError, ValueError, OverflowError):
                    rate = 1.0
                switches.setdefault(r, 1.0 / rate if rate > 0 else 1.0)
    out = Switches()
    chosen = sorted(switches, key=abs, reverse=True)
    if len(chosen) > CAPS.switches:
        out.truncated = True
        chosen = chosen[:CAPS.switches]
    values: list[str] = []
    for r in chosen:
        length = switches[r]
        for lo, hi in _SWITCH_OFFSETS:
            for side in (-1, 1):
                values.append(_decimal(r + side * rng.uniform(lo, hi) * length, 17))
    for outermost in (max(chosen, default=0.0), min(chosen, default=0.0)):
        if abs(outermost) > _NEAR:
            for lo, hi in ((1.2, 2.0), (2.0, 4.0)):
                values.append(_decimal(outermost * rng.uniform(lo, hi), 17))
    out.extend((v, "0") for v in dict.fromkeys(values))
    return out
