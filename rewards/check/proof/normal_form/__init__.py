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

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from ...errors import strict_mode
from .algebra import _Clock, _Timeout, _Undefined, _Unsupported
from .normalizer import _normal_form_zero
from .rewrites import REWRITES


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
        if strict_mode():
            raise  # the test suite: a bug of ours must show, not read as "not proved"
        return f"interrupted: {type(exc).__name__}", None
    return ("proved", label) if label is not None else ("nonzero_normal_form", None)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


__all__ = ["RUNGS", "ProofAttempt", "prove_zero"]
