"""Expression-level canonicalization between parsing and differentiation.

Each rule that fires is named in the caller's ``rules`` list, so the stage
trace shows exactly what the checker did to the model's answer.
"""
from __future__ import annotations

import sympy as sp

from ..errors import ParseFailure
from ..parse.names import is_constant_name


def bind_real(expr: sp.Expr, name: str, real_symbol: sp.Symbol) -> sp.Expr:
    """Rebind the integration variable to a real symbol.

    Without ``real=True``, ``diff(log(Abs(x)), x)`` returns unevaluated
    ``re``/``im`` derivatives instead of ``sign(x)/Abs(x)``, which makes every
    ``ln|x|`` answer -- the single most common form -- unverifiable.
    """
    return expr.xreplace({s: real_symbol for s in expr.free_symbols if s.name == name})


def drop_additive_constants(expr: sp.Expr, allowed: set[str], rules: list[str]) -> sp.Expr:
    r"""Remove ``+ C`` style terms: a constant-name symbol, optionally times a
    number. Anything else with a constant name in it is left for the
    free-symbol check to reject, except two forms that are additive
    constants too:

    * a constant factor inside a logarithm that is itself an additive term:
      ``\ln|Cx|`` = ``\ln|x| + \ln|C|``, ``2\ln(K(x+1))``, ``\ln|x/C|``
      (rule ``log_constant_factor``). Only factors made of integration
      constant names (``is_constant_name``, not the integrand's parameters),
      only directly in the log's argument (or its ``|.|``), and only when the
      log term is additive: ``x\ln|Cx|`` keeps its C and is WRONG;
    * constants inside the pieces of an additive Piecewise (a ``cases``
      answer may give each piece its own ``C_k``).
    """
    def constant_factor(f: sp.Expr) -> bool:
        names = {s.name for s in f.free_symbols}
        return bool(names) and all(is_constant_name(n) and n not in allowed for n in names)

    def is_constant_term(term: sp.Expr) -> bool:
        coeff, rest = term.as_coeff_Mul()
        return (isinstance(rest, sp.Symbol) and rest.name not in allowed
                and is_constant_name(rest.name) and coeff.is_nonzero is not False)

    def strip_log(term: sp.Expr) -> sp.Expr:
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(rest, sp.log) or len(rest.args) != 1:
            return term
        arg = rest.args[0]
        inner = arg.args[0] if isinstance(arg, sp.Abs) else arg
        factors = sp.Mul.make_args(inner)
        kept = [f for f in factors if not constant_factor(f)]
        if len(kept) == len(factors):
            return term
        new = sp.Mul(*kept)
        if "log_constant_factor" not in rules:
            rules.append("log_constant_factor")
        return coeff * sp.log(sp.Abs(new) if isinstance(arg, sp.Abs) else new)

    def strip_pieces(term: sp.Expr) -> sp.Expr:
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(rest, sp.Piecewise):
            return term
        pieces = [(drop_additive_constants(e, allowed, rules), c) for e, c in rest.args]
        return coeff * sp.Piecewise(*pieces)

    terms = sp.Add.make_args(expr)
    kept = [strip_pieces(strip_log(t)) for t in terms if not is_constant_term(t)]
    if len(kept) != len(terms) and "drop_additive_constant" not in rules:
        rules.append("drop_additive_constant")
    if len(kept) == len(terms) and all(a is b for a, b in zip(kept, terms, strict=True)):
        return expr
    return sp.Add(*kept)


def normalize(expr: sp.Expr, rules: list[str]) -> sp.Expr:
    """Canonicalize an expression, appending the name of each rule that fires."""
    # A model that echoed "\int ... dx" instead of answering leaves an
    # unevaluated Integral. Never .doit() that: it would solve the problem on
    # the model's behalf and score a non-answer as CORRECT.
    if expr.has(sp.Integral):
        raise ParseFailure("echoed_integral", "answer is an unevaluated Integral")
    # Likewise a Derivative or Subs node is not an answer we should evaluate
    # for the model (``Derivative(x**3/3, x)`` is the integrand, not F).
    if expr.has(sp.Derivative) or expr.has(sp.Subs):
        raise ParseFailure("unevaluated_derivative", "answer holds an unevaluated Derivative")

    # Two-argument log, e.g. log(u, 10): rewrite so d/dx sees a plain log.
    if expr.has(sp.log):
        rewritten = expr.replace(
            lambda t: isinstance(t, sp.log) and len(t.args) == 2,
            lambda t: sp.log(t.args[0]) / sp.log(t.args[1]),
        )
        if rewritten != expr:
            rules.append("two_arg_log")
            expr = rewritten

    # log(Abs(u)) -> log(u). These differ by a locally constant i*pi, which
    # vanishes under d/dx. Applied ONLY inside log arguments, so a bare |x|
    # answer is never silently rescued.
    if expr.has(sp.Abs) and expr.has(sp.log):
        rewritten = expr.replace(
            lambda t: isinstance(t, sp.log) and isinstance(t.args[0], sp.Abs),
            lambda t: sp.log(t.args[0].args[0]),
        )
        if rewritten != expr:
            rules.append("log_abs")
            expr = rewritten
    return expr


# --- piecewise answers: the pieces must cover the integrand's domain --------

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
        gaps.extend(str(part) for part in uncovered
                    if any(_is_real(_value(probe, x, p)) for p in _gap_points(part)))
    if gaps:
        return {"reason": "piecewise_gap", "uncovered": gaps}
    for point in points:
        f = _value(probe, x, point)
        d = _value(derivative, x, point)
        if _is_real(f) and d is not None and abs(d - f) > 1e-8 * max(1.0, abs(f)):
            return {"reason": "piecewise_piece", "point": str(point),
                    "derivative": f"{d.real:.6g}", "integrand": f"{f.real:.6g}"}
    return None
