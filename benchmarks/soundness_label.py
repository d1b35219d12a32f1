r"""An independent labeller for the soundness cases: none of the checker's code.

Each case carries, beside the completion a policy wrote, the same answer
written by the case's author in SymPy syntax (``answer_sympy``). This module
reads that text with SymPy's own parser (the cases are trusted data written
for this benchmark, never model output), differentiates it with
``sympy.diff`` and compares ``F'`` with the integrand ``f`` in mpmath up a
precision ladder (50, 110, 330, 1000, 3000 digits): a difference counts when
F', f and their difference are the same at two consecutive precisions and the
difference is above what rounding leaves at the lower one, however small next
to f (``e^{-300}`` next to a 44-fold zero of f); agreement is a difference
below 10^{-P/2} of the values at P >= 330 digits (so a difference above
1e-165 of the values is seen wherever they can be computed), and values that
do not settle (a sine of ``e^{1800}``) are never evidence either way:

* on every parameter set (several, with negative and non-integer values;
  a set where f is real at too few points is not admissible and is skipped),
* at about 40 real points spread over both signs out to ``|x| = 2500``, plus
  points next to every planted feature (a localized term's centre, a
  breakpoint) and every jump candidate found in the answer, at offsets from
  0.3 down to 1e-12,
* only where f is real and finite; ``F'`` is compared as a complex number, so
  an answer real on a part of the line only (``\ln x`` for ``1/x``) is read
  as a CAS reads it, and ``\tfrac23 x^{3/2}`` for ``\sqrt{|x|}`` is wrong for
  x < 0.

It also checks continuity: jump candidates are the crossings of the levels
where a piece of F can jump (zeros of the arguments of ``sign``,
``Heaviside``, ``Abs``, of ``Max``/``Min`` differences, of piecewise
conditions and of denominators; integer crossings of ``floor``, ``ceiling``
and ``frac``; the poles of ``tan``/``sec``/``cot``/``csc`` and the zero of an
``acot`` argument; where a logarithm's argument, complex or real, crosses
the negative real axis), found by a scan of ``[-12, 12]`` and of ``+-1``
around each planted feature, then bisection, plus every planted feature. Where f
has one-sided limits at a candidate from both sides (the candidate lies
inside an interval of f's real domain, even if f itself jumps there), F's
change across 1e-30 either side of the point, less the integral of f over it
(a slope of 1e20 is no jump), must vanish; at a pole or a boundary
of f's domain F may jump (a different constant on each interval).

A case is ``wrong`` when F' differs from f at a point (settled at two consecutive
precisions) or F jumps inside an interval of f's domain; ``correct`` when
neither happens and enough points were informative; else ``undetermined``.

>>> label_case({"id": "t1", "integrand": "cos(x)", "variable": "x",
...             "answer_sympy": "sin(x) + tanh(300*(x - 17/10))", "features": ["17/10"]}).label
'wrong'
>>> label_case({"id": "t2", "integrand": "1/x", "variable": "x",
...             "answer_sympy": "log(Abs(x)) + 3*sign(x)"}).label
'correct'
>>> label_case({"id": "t3", "integrand": "1", "variable": "x",
...             "answer_sympy": "x + Abs(x)/x"}).label
'wrong'
"""
from __future__ import annotations

import random
import signal
import types
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

DPS = 50
HIGH_DPS = 110
# The precisions F' and f are compared at after the first (see _compare).
LADDER = (110, 330, 1000, 3000)
# A jump: |F(c+h) - F(c-h)| above this (relative to max(1, |F|)), h = 1e-30.
JUMP = 1e-12
# Spread of the sample on each side of 0 (jittered per case).
MAGNITUDES = (0.013, 0.04, 0.09, 0.2, 0.37, 0.6, 0.95, 1.4, 2.2, 3.3, 5.0, 8.0, 13.0, 21.0,
              40.0, 75.0, 150.0, 300.0, 700.0, 1400.0, 2500.0)
# Offsets next to a feature or a jump candidate.
OFFSETS = (0.3, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-9, 1e-12)
# Parameter values: several signs and non-integers. One value per set.
PARAM_VALUES = ((1.7, 0.6, 2.3), (-1.3, 2.2, -0.7), (0.45, -1.9, 1.35), (-2.6, -0.35, -3.1),
                (3.2, 1.15, 0.8), (-0.55, 2.75, -1.45))
SCAN = (-12.0, 12.0, 2401)          # the jump-candidate scan of the whole window
SCAN_NEAR = (1.0, 201)              # and around each planted feature
MAX_DENSE_CANDIDATES = 8            # found candidates that also get dense F' points
MAX_CANDIDATES = 60                 # per level (tan(tan(x)) has poles without end)
MIN_POINTS = 8                      # an admissible parameter set has this many points
# Jump candidates are located to 1e-60 at 90 digits; the one-sided limits
# are taken 1e-20 and 1e-35 away, F's jump 1e-30 away.
ROOT_DPS, ROOT_DIGITS = 90, 60
EVAL_LIMIT_S = 3.0                  # one evaluation (a nested special function far out)


@dataclass
class Label:
    """The labeller's verdict on one case, with its evidence."""

    label: str                       # correct | wrong | undetermined
    why: str
    points: int = 0                  # informative points compared
    mismatches: list[str] = field(default_factory=list)
    jumps: list[str] = field(default_factory=list)
    param_sets: int = 0


class _EvalTimeout(BaseException):
    """A BaseException: mpmath's retry loops catch Exception."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """A per-evaluation wall-clock limit (main thread only; elsewhere none)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):  # noqa: ARG001 - signal handler signature
        raise _EvalTimeout

    previous = signal.signal(signal.SIGALRM, handler)
    # Fires again every 0.2 s in case a library swallowed the first one.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.2)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------
# Reading the case
# ---------------------------------------------------------------------------

def _symbols(case: dict[str, Any]):
    import sympy as sp

    var = sp.Symbol(case.get("variable") or "x", real=True)
    params = [sp.Symbol(p, real=True) for p in case.get("params") or []]
    return var, params


def _parse(text: str, var, params):
    import sympy as sp
    from sympy.parsing.sympy_parser import parse_expr

    local = {var.name: var, **{p.name: p for p in params}, "E1": lambda z: sp.expint(1, z)}
    return parse_expr(text, local_dict=local)


def _derivative(F, var):
    """d/dx F with the distribution terms of steps dropped (they are zero off
    the step, and the step itself is judged by the continuity check)."""
    import sympy as sp

    D = sp.diff(F, var)
    D = D.replace(lambda e: isinstance(e, sp.DiracDelta), lambda e: sp.S.Zero)

    def step_derivative(e):
        inner = e.expr if isinstance(e, sp.Derivative) else None
        if isinstance(inner, (sp.floor, sp.ceiling)):
            return sp.S.Zero
        if isinstance(inner, sp.frac):
            return sp.diff(inner.args[0], var)
        return e

    return D.replace(lambda e: isinstance(e, sp.Derivative), step_derivative)


# A function of an argument above 2**MAX_ARG_BITS is not evaluated: mpmath
# would reduce it modulo pi or ln 2 at that many bits (Chi(Chi(Chi(2500))):
# 10^1082-bit arguments), a computation no signal interrupts.
MAX_ARG_BITS = 4096
_UNGUARDED = frozenset({"mpf", "mpc", "mpmathify", "max", "min", "floor", "ceil", "sign",
                        "fabs", "re", "im", "conj", "isfinite", "isinf", "isnan"})
# Cheap at any size (they saturate or grow like a logarithm), so never refused:
# arctan(e^{200 x}) at x = 2500 is pi/2, not "too large".
_CHEAP_AT_ANY_SIZE = ("atan", "acot", "tanh", "coth", "erf", "log", "ln", "lambertw", "si",
                      "sqrt", "asinh", "acosh", "atanh", "asin", "acos")


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    import mpmath as mp

    def call(*args, **kwargs):
        for a in args:
            if isinstance(a, (mp.mpf, mp.mpc)) and a != 0 and mp.isfinite(a) \
                    and mp.mag(a) > MAX_ARG_BITS:
                raise OverflowError("argument too large to evaluate")
        return fn(*args, **kwargs)

    return call


def _compile(expr, args) -> Callable[..., Any]:
    """An mpmath function of ``args``, its transcendental functions guarded
    against astronomically large arguments."""
    import mpmath as mp
    import sympy as sp

    # Common subexpressions once (F' of fresnelc(erf(Chi(Ei(x)))) holds Ei(x)
    # three times): the same operations on the same values, so the same
    # numbers, at a third less time (the sample of stored labels in
    # tests/test_soundness_bench.py: 48 -> 32 s). Not through a Piecewise,
    # whose branches lambdify evaluates only when taken (hoisted, a branch's
    # subexpression would be evaluated where it is undefined), nor through
    # what binds a symbol (the Subs in F' of floor(x/2)): cse takes the bound
    # symbol out of its scope.
    unsafe = (sp.Piecewise, sp.Subs, sp.Derivative, sp.Integral, sp.Sum, sp.Product, sp.Lambda)
    fn = sp.lambdify(args, expr, modules=["mpmath"], cse=not expr.has(*unsafe))
    cheap = [getattr(mp, name) for name in _CHEAP_AT_ANY_SIZE]
    namespace = fn.__globals__
    for name, value in list(namespace.items()):
        # Functions and methods only: mpmath's constants (pi, e) are callable too.
        if isinstance(value, (types.FunctionType, types.MethodType)) \
                and name not in _UNGUARDED and not any(value == g for g in cheap) \
                and getattr(value, "__module__", "").startswith("mpmath"):
            namespace[name] = _guarded(value)
    return fn


def _value(fn, *args, dps: int = DPS):
    """An mpmath value, or None where it is undefined, infinite or too slow."""
    import mpmath as mp

    try:
        with mp.workdps(dps), _time_limit(EVAL_LIMIT_S):
            v = mp.mpmathify(fn(*args))
            if not mp.isfinite(v):
                return None
            return +v
    except (_EvalTimeout, ZeroDivisionError, ValueError, OverflowError, TypeError,
            ArithmeticError, RecursionError, MemoryError, NameError, AttributeError):
        return None


def _is_real(v, dps: int = DPS) -> bool:
    import mpmath as mp

    return abs(mp.im(v)) <= mp.mpf(10) ** (-(dps - 20)) * max(1, abs(v))


def _is_real_answer(v, dps: int = DPS) -> bool:
    """Realness of F: as :func:`_is_real`, and an imaginary part above 1e-6 is
    never rounding (E_1(-2500) = -Ei(2500) - i pi is not real, however large
    its real part)."""
    import mpmath as mp

    return _is_real(v, dps) and abs(mp.im(v)) <= mp.mpf(10) ** -6


# ---------------------------------------------------------------------------
# Jump candidates
# ---------------------------------------------------------------------------

def _levels(expr, var) -> list[tuple[Any, str]]:
    """(u, kind) for every place a piece of ``expr`` may jump: u(x) crossing
    0 (kind "zero"), an integer ("integer"), pi/2 + k pi ("tan"), k pi
    ("cot"), or, u complex, the negative real axis (a logarithm's cut,
    "cut")."""
    import sympy as sp

    out: list[tuple[Any, str]] = []
    for e in sp.preorder_traversal(expr):
        if not getattr(e, "args", None) or not e.has(var):
            continue
        if isinstance(e, (sp.sign, sp.Heaviside, sp.Abs)):
            out.append((e.args[0], "zero"))
        elif isinstance(e, (sp.floor, sp.ceiling, sp.frac)):
            out.append((e.args[0], "integer"))
        elif isinstance(e, (sp.Max, sp.Min)):
            a = list(e.args)
            out += [(a[i] - a[j], "zero") for i in range(len(a)) for j in range(i + 1, len(a))]
        elif isinstance(e, sp.Piecewise):
            for _piece, cond in e.args:
                for rel in sp.preorder_traversal(cond):
                    if isinstance(rel, sp.core.relational.Relational) and rel.has(var):
                        out.append((rel.lhs - rel.rhs, "zero"))
        elif isinstance(e, sp.Pow) and e.exp.is_number and e.exp.is_negative:
            out.append((e.base, "zero"))
        elif isinstance(e, (sp.tan, sp.sec)):
            out.append((e.args[0], "tan"))
        elif isinstance(e, (sp.cot, sp.csc)):
            out.append((e.args[0], "cot"))
        elif isinstance(e, sp.acot):
            out.append((e.args[0], "zero"))
        elif isinstance(e, sp.log):
            # Also complex arguments: (x - 2i)/(x + 2i) crosses the cut at 0.
            out.append((e.args[0], "cut"))
    unique: dict[str, tuple[Any, str]] = {}
    for u, kind in out:
        if u.has(var):
            unique.setdefault(f"{kind}:{sp.srepr(u)}", (u, kind))
    return list(unique.values())


def _level_index(v, kind: str):
    """Which level band u = v lies in (v real, an mpmath number; complex for
    "cut"); a crossing is a change of band. Computed at the working precision, not in floats:
    a float cannot tell 5 - 1e-30 from 5."""
    import mpmath as mp

    if kind == "cut":
        # 0 right of the cut, +-1 above and below it, 2 on it (u real and
        # negative all along is no crossing).
        if mp.re(v) > 0:
            return 0
        if abs(mp.im(v)) <= mp.mpf(10) ** -(mp.mp.dps - 5) * abs(v):
            return 2
        return 1 if mp.im(v) > 0 else -1
    if kind == "zero":
        return 0 if v == 0 else (1 if v > 0 else -1)
    if kind == "integer":
        return int(mp.floor(v))
    if kind == "tan":
        return int(mp.floor(v / mp.pi + mp.mpf(1) / 2))
    return int(mp.floor(v / mp.pi))


def _crossings(u_fn, pvals, kind: str, grid: list[float]) -> list[Any]:
    import mpmath as mp

    found = []
    prev = None
    for xv in grid:
        v = _value(u_fn, mp.mpf(xv), *pvals, dps=20)
        band = None
        if v is not None and (kind == "cut" or _is_real(v, 20)):
            with mp.workdps(20):
                band = _level_index(v if kind == "cut" else mp.re(v), kind)
        if band is not None and prev is not None and band != prev[1]:
            found.append((prev[0], xv, prev[1]))
        prev = (xv, band) if band is not None else None
    found.sort(key=lambda t: min(abs(t[0]), abs(t[1])))
    found = found[:MAX_CANDIDATES]
    roots = []
    for lo, hi, band_lo in found:
        with mp.workdps(ROOT_DPS):
            a, b = mp.mpf(lo), mp.mpf(hi)
            for _ in range(300):
                mid = (a + b) / 2
                v = _value(u_fn, mid, *pvals, dps=ROOT_DPS)
                if v is None or not (kind == "cut" or _is_real(v, ROOT_DPS)):
                    break
                if _level_index(v if kind == "cut" else mp.re(v), kind) == band_lo:
                    a = mid
                else:
                    b = mid
                if b - a < mp.mpf(10) ** -ROOT_DIGITS:
                    break
            roots.append((a + b) / 2)
    return roots


# ---------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------

def _settled(a, b) -> bool:
    """Whether two evaluations of one value at two precisions agree (the
    lower one was not rounding noise)."""
    import mpmath as mp

    scale = max(abs(a), abs(b))
    return scale == 0 or abs(a - b) <= mp.mpf(10) ** -15 * scale


def _compare(dv, fv, D_fn, f_fn, xv, pvals) -> str:
    """"agree", "differ" or "unclear" for F'(x) = dv against f(x) = fv.

    F' and f are evaluated up the precision ladder (50, 110, 330, 1000,
    3000 digits). A difference is real when F' and f are settled (the same to
    15 digits at two consecutive precisions) and their difference is the same
    too: rounding noise falls by the precision gained, a real difference does
    not, however small next to f (e^{-300} on a 45-term polynomial near its
    44-fold zero, a unit step on top of e^{60}). Values that are not settled
    (sin(e^{1500}) at 50 digits) are never a difference. Agreement is
    |F' - f| <= 10^{-P/2} max(|F'|, |f|) at P >= 330 digits (not floored at 1,
    so a difference next to a high-order zero of f still counts), or, at the
    top of the ladder, 10^{-1500} max(1, |F'|, |f|): a difference above
    10^{-165} of the values is seen wherever the values can be computed.
    """
    import mpmath as mp

    if dv is None:
        return "unclear"          # not evaluated (too large, or a branch point)
    prev = (DPS, dv, fv)
    for dps in LADDER:
        fv2 = _value(f_fn, xv, *pvals, dps=dps)
        dv2 = _value(D_fn, xv, *pvals, dps=dps)
        if fv2 is None or dv2 is None:
            # Too slow or too large at this precision: the 110-digit agreement
            # is the last word (a difference below 10^{-55} is then not seen).
            p_dps, p_d, p_f = prev
            if p_dps >= 110 and abs(p_d - p_f) <= mp.mpf(10) ** -55 * max(abs(p_d), abs(p_f)):
                return "agree"
            return "unclear"
        p_dps, p_d, p_f = prev
        delta, p_delta = abs(dv2 - fv2), abs(p_d - p_f)
        scale = max(abs(dv2), abs(fv2))
        # Above what rounding can leave at the lower precision, next to terms
        # of size max(1, |F'|, |f|): an exact 0 from a cancellation (t^3 as
        # 2t - 2t + ... for t below the precision) is not a settled value.
        resolvable = delta > mp.mpf(10) ** -(p_dps - 10) * max(1, scale)
        if _settled(p_d, dv2) and _settled(p_f, fv2) and resolvable \
                and abs(delta - p_delta) <= mp.mpf(10) ** -6 * delta:
            return "differ"
        if dps >= 330 and delta <= mp.mpf(10) ** -(dps // 2) * scale:
            return "agree"
        prev = (dps, dv2, fv2)
    # At the top of the ladder: agreement next to terms of size max(1, ...).
    p_dps, p_d, p_f = prev
    if abs(p_d - p_f) <= mp.mpf(10) ** -(p_dps // 2) * max(1, abs(p_d), abs(p_f)):
        return "agree"
    return "unclear"


def _one_sided_limits_exist(f_fn, c, pvals) -> bool:
    """Whether f has finite real one-sided limits at c from both sides (c is
    inside an interval of f's real domain, possibly at a jump of f)."""
    import mpmath as mp

    with mp.workdps(90):
        for side in (-1, 1):
            near = [_value(f_fn, c + side * mp.mpf(10) ** -k, *pvals, dps=90) for k in (20, 35)]
            if any(v is None or not _is_real(v, 90) for v in near):
                return False
            if abs(near[0] - near[1]) > mp.mpf(10) ** -8 * max(1, abs(near[1])):
                return False
            if abs(near[1]) > mp.mpf(10) ** 25:
                return False
    return True


def _jump_at(F_fn, f_fn, c, pvals, need_real: bool = True) -> Any | None:
    """|F(c+h) - F(c-h) - (the integral of f from c-h to c+h)| (h = 1e-30, the
    integral by the midpoint rule on each side) when it is a jump, else None: a continuous F
    of slope f(c) = 1e20 still moves by 2e-10 across the point. With
    ``need_real``, a candidate where F is not real on either side is not
    judged (F is not taken to be real there)."""
    import mpmath as mp

    with mp.workdps(90):
        h = mp.mpf(10) ** -30
        left = _value(F_fn, c - h, *pvals, dps=90)
        right = _value(F_fn, c + h, *pvals, dps=90)
        if left is None or right is None:
            return mp.inf
        if need_real and not (_is_real_answer(left, 90) and _is_real_answer(right, 90)):
            return None
        area = 0
        for mid in (c - h / 2, c + h / 2):
            fv = _value(f_fn, mid, *pvals, dps=90)
            area += h * mp.re(fv) if fv is not None else 0
        gap = abs(right - left - area)
        if gap > JUMP * max(1, abs(left), abs(right)):
            return gap
    return None


def _param_sets(case: dict[str, Any], params) -> list[dict[str, float]]:
    if case.get("param_sets"):
        return [dict(s) for s in case["param_sets"]]
    if not params:
        return [{}]
    return [{p.name: row[i % len(row)] for i, p in enumerate(params)} for row in PARAM_VALUES]


def _spread(rng: random.Random) -> list[float]:
    out = []
    for m in MAGNITUDES:
        for sign in (-1, 1):
            jitter = rng.uniform(0.88, 1.0) if m == MAGNITUDES[-1] else rng.uniform(0.85, 1.15)
            out.append(sign * m * jitter)
    return out


@dataclass
class _Point:
    x: Any
    F_real: bool | None          # None: F not evaluated at x (no evidence either way)
    status: str                  # agree | differ | unclear (F' against f)
    detail: str


def _points_for(F_fn, D_fn, f_fn, xs, pvals, pset) -> list[_Point | None]:
    """Each x: None where f is not real and finite (outside f's real domain),
    else F's realness there and the comparison of F' with f."""
    import mpmath as mp

    out: list[_Point | None] = []
    for xv in xs:
        fv = _value(f_fn, xv, *pvals)
        if fv is None or not _is_real(fv):
            out.append(None)
            continue
        Fv = _value(F_fn, xv, *pvals)
        if Fv is None:
            out.append(_Point(xv, None, "unclear", ""))
            continue
        dv = _value(D_fn, xv, *pvals)
        status = _compare(dv, fv, D_fn, f_fn, xv, pvals)
        real = _is_real_answer(Fv)
        out.append(_Point(xv, real, status,
                          f"x={mp.nstr(xv, 12)}{_pset_text(pset)}: F'={_short(dv)} "
                          f"f={_short(fv)}"))
    return out


def _components(points: list[_Point | None], xs, breaks) -> list[list[_Point]]:
    """Split the sorted points into components of f's real domain: a new one
    after a point outside the domain or across a break (a pole or boundary of
    f found among the candidates)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    breaks = sorted(breaks)
    comps: list[list[_Point]] = [[]]
    prev_x = None
    for i in order:
        p = points[i]
        if p is None:
            if comps[-1]:
                comps.append([])
            prev_x = None
            continue
        if prev_x is not None and any(prev_x < b < p.x for b in breaks) and comps[-1]:
            comps.append([])
        comps[-1].append(p)
        prev_x = p.x
    return [c for c in comps if c]


def label_case(case: dict[str, Any]) -> Label:
    """Label one case; an error inside the labeller is ``undetermined`` with
    its message, never a label."""
    try:
        return _label_case(case)
    except Exception as exc:  # noqa: BLE001 - reported, never a label
        return Label("undetermined", f"labeller error: {type(exc).__name__}: {exc}"[:200])


def _label_case(case: dict[str, Any]) -> Label:
    """Label one case from its ``answer_sympy``, ``integrand``, ``variable``,
    ``params``, ``features`` and optional ``param_sets``.

    The domain rule (the issue's definition, docs/domain.md): f's real domain
    splits into components at f's poles and where f stops being real. On a
    component where F is real at every sample point, F' must equal f and F
    must not jump; a component where F is nowhere real is not one where F is
    taken to be real and is not compared; F real on part of a component only
    is wrong (``2/3 x^{3/2}`` for ``sqrt|x|``). An answer real on no
    component at all is read up to an imaginary constant: F' is compared
    everywhere (as complex numbers) and F must not jump.
    """
    import mpmath as mp
    import sympy as sp

    var, params = _symbols(case)
    try:
        F = _parse(case["answer_sympy"], var, params)
        f = _parse(case["integrand"], var, params)
    except Exception as exc:  # noqa: BLE001 - an authoring error, reported as such
        return Label("undetermined", f"unreadable: {type(exc).__name__}: {exc}"[:200])
    F = F.xreplace({s: 0 for s in F.free_symbols if s.name == "C"})
    extra = F.free_symbols - {var, *params}
    if extra:
        return Label("wrong", f"free symbols {sorted(map(str, extra))} besides the variable")
    D = _derivative(F, var)
    args = [var, *params]
    F_fn, D_fn, f_fn = _compile(F, args), _compile(D, args), _compile(f, args)
    rng = random.Random(zlib.crc32(str(case.get("id", "")).encode()))
    features = [_parse(str(t), var, params) for t in case.get("features") or []]
    levels = [(_compile(u, args), kind) for u, kind in _levels(F, var) + _levels(f, var)]

    per_set = []
    for pset in _param_sets(case, params):
        pvals = [mp.mpf(pset[p.name]) for p in params]
        subs = {p: sp.Float(pset[p.name], 30) for p in params}
        feats = []
        for t in features:
            try:
                feats.append(mp.mpf(sp.N(t.xreplace(subs), 60)))
            except (TypeError, ValueError):
                continue
        # Jump candidates: the scan of the window and around each feature.
        grid = list(_linspace(*SCAN))
        for c in feats:
            grid += [float(c) + t for t in _linspace(-SCAN_NEAR[0], SCAN_NEAR[0], SCAN_NEAR[1])]
        grid.sort()
        candidates = []
        for u_fn, kind in levels:
            candidates += _crossings(u_fn, pvals, kind, grid)
        candidates.sort(key=abs)
        # Points: the spread, and densely next to features and candidates.
        # A feature's own point is taken 1e-13 (relative) beside it: a bump's
        # top is still there, and a breakpoint's value is not evidence.
        xs = [mp.mpf(v) for v in _spread(rng)]
        xs += [c + mp.mpf(10) ** -13 * max(1, abs(c)) for c in feats]
        for c in feats + candidates[:MAX_DENSE_CANDIDATES]:
            for off in OFFSETS:
                xs += [c - mp.mpf(off), c + mp.mpf(off)]
        points = _points_for(F_fn, D_fn, f_fn, xs, pvals, pset)
        if sum(p is not None for p in points) < MIN_POINTS:
            continue          # not an admissible parameter set (f real too rarely)
        inside = [c for c in feats + candidates if _one_sided_limits_exist(f_fn, c, pvals)]
        breaks = [c for c in feats + candidates if c not in inside]
        per_set.append((pset, pvals, _components(points, xs, breaks), inside))
    if not per_set:
        return Label("undetermined", "no admissible parameter set (f real at too few points)")

    # The imaginary-constant reading only when F is real on no component.
    def realness(comp: list[_Point]) -> list[bool]:
        return [p.F_real for p in comp if p.F_real is not None]

    real_somewhere = any(realness(comp) and all(realness(comp))
                         for _ps, _pv, comps, _in in per_set for comp in comps)
    mismatches: list[str] = []
    jumps: list[str] = []
    partial: list[str] = []
    points_total = unclear = 0
    for pset, pvals, comps, inside in per_set:
        for comp in comps:
            real = realness(comp)
            if real_somewhere and not any(real):
                continue                    # F is not taken to be real here
            if real_somewhere and not all(real):
                bad = next(p for p in comp if p.F_real is False)
                partial.append(bad.detail.split(":")[0] + ": F not real on part of a "
                               "component of f's domain")
                continue
            for p in comp:
                if p.F_real is None:
                    unclear += 1
                    continue
                points_total += 1
                if p.status == "differ":
                    mismatches.append(p.detail)
                elif p.status == "unclear":
                    unclear += 1
        for c in inside:
            gap = _jump_at(F_fn, f_fn, c, pvals, need_real=real_somewhere)
            if gap is not None:
                jumps.append(f"x={mp.nstr(c, 12)}{_pset_text(pset)}: jump {_short(gap)}")
    sets_used = len(per_set)
    if mismatches or jumps or partial:
        why = "; ".join(mismatches[:2] + jumps[:2] + partial[:1])
        return Label("wrong", why[:300], points_total, mismatches[:10], jumps[:10] + partial[:3],
                     sets_used)
    if points_total < MIN_POINTS or unclear > points_total // 4:
        return Label("undetermined", f"{unclear} unclear points of {points_total}",
                     points_total, param_sets=sets_used)
    return Label("correct", f"F' = f at {points_total} points, no jump inside f's domain",
                 points_total, param_sets=sets_used)


def _linspace(lo: float, hi: float, n: int) -> Iterator[float]:
    step = (hi - lo) / (n - 1)
    # A small irrational shift keeps grid points off exact breakpoints.
    return (lo + i * step + 1.234567e-7 for i in range(n))


def _pset_text(pset: dict[str, float]) -> str:
    return "".join(f", {k}={v}" for k, v in pset.items())


def _short(v) -> str:
    """A few digits; a magnitude only for a value too large to print cheaply
    (printing e^{e^{e^{x}}} in decimal would take minutes)."""
    import mpmath as mp

    if v is None:
        return "undefined"
    if v == 0:
        return "0"
    try:
        mag = int(mp.mag(v))
    except (ValueError, OverflowError, TypeError):
        return str(v)[:20]
    if abs(mag) > 3000:
        return "~2^(" + ("-" if mag < 0 else "") + f"{abs(mag).bit_length()}-bit number)"
    return mp.nstr(v, 6)


__all__ = ["Label", "label_case"]
