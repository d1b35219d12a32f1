"""F' and f at a point in FLINT's ball arithmetic, where the ball is tight.

The screen's values come from functions compiled for mpmath
(:func:`.lambdify.compile_expr`): 0.3 to 1 ms a point at 30 digits, most of a
wrong answer's screen. The same compiled code, run with python-flint's
``acb`` balls in place of mpmath's numbers, takes a tenth of that, at the
same working precision (arb's contract: a fixed precision per operation,
no loop that raises it until a result is correctly rounded, which is what
made SymEngine's MPC numbers unsafe here; docs/benchmarks.md).

A ball also says how much of its value is known. A value is used only when
its ball is finite and has lost at most ``lost_bits`` of the working
precision (the round-off the caller allows anyway: the same digits lost to
the same cancellation in mpmath's value, where nothing measured them); its
midpoint is then the value mpmath would compute, to within that round-off.
Anything else (a pole, more digits lost, a branch cut the ball straddles, a
function not mapped below, any exception) returns ``None`` and the caller
evaluates with mpmath as before. On the branch cuts themselves arb and
mpmath take the same side (tests/test_balls.py pins each mapped function on
both sides of every cut).

Without python-flint (the ``[fast]`` extra; no wheels for Linux aarch64)
everything is evaluated with mpmath.
"""
from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any

import mpmath as mp

try:
    from flint import acb, arb, ctx
except ImportError:  # the mpmath evaluation is complete without it
    acb = arb = ctx = None


def _ball(value: Any) -> Any:
    return value if type(value) is acb else acb(value)


def _number(value: Any) -> Any:
    """``mpf(...)`` as the mpmath printer writes it: an int, or a Float's
    ``(sign, man, exp, bc)``; a decimal string is rounded like mpmath's."""
    if isinstance(value, tuple):
        sign, man, exp, _ = value
        return acb(arb((-man if sign else man, exp)))
    return acb(value)


def _unary(name: str) -> Callable[[Any], Any]:
    method = getattr(acb, name)

    def apply(value: Any) -> Any:
        return method(_ball(value))
    apply.__name__ = name
    return apply


# The names the mpmath printer writes for elementary functions, each with the
# acb method of the same principal branch. Nothing else is mapped: a function
# compiled with another name (sign, fabs, re, a special function) is
# evaluated by mpmath.
_FUNCTIONS = ("sqrt", "exp", "log", "sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh",
              "tanh", "sech", "csch", "coth", "asin", "acos", "atan", "asinh", "acosh", "atanh")

_NAMESPACE: dict[str, Any] = {}
if acb is not None:
    _NAMESPACE.update({name: _unary(name) for name in _FUNCTIONS})
    _NAMESPACE["mpf"] = _number
    _NAMESPACE["__builtins__"] = {}
# Constants, filled at the working precision before each evaluation.
_CONSTANTS = ("pi", "e")


def ball_function(compiled: Callable[..., Any]) -> Callable[..., Any] | None:
    """``compiled`` (a function :func:`.lambdify.compile_expr` made for
    mpmath) with its code run on balls, or ``None`` when it cannot be: no
    python-flint, or a name in its code that is not mapped here."""
    if acb is None:
        return None
    code = getattr(compiled, "__code__", None)
    if code is None or code.co_freevars:
        return None
    if not set(code.co_names) <= set(_NAMESPACE) | set(_CONSTANTS):
        return None
    return types.FunctionType(code, _NAMESPACE, compiled.__name__)


def evaluate(functions: Sequence[Callable[..., Any]], point: Any,
             params: Sequence[Any], *, lost_bits: int) -> list[Any] | None:
    """Each of ``functions`` (from :func:`ball_function`) at ``point`` with
    ``params`` (mpmath numbers), at mpmath's working precision, as balls;
    ``None`` unless every value is a finite ball that lost at most
    ``lost_bits`` of that precision (:func:`to_mpmath` reads one)."""
    prec = mp.mp.prec
    try:
        ctx.prec = prec
        _NAMESPACE["pi"] = acb.pi()
        _NAMESPACE["e"] = acb(1).exp()
        args = [_exact(point), *(_exact(p) for p in params)]
        out = []
        for fn in functions:
            value = _ball(fn(*args))
            if not value.is_finite() or value.rel_accuracy_bits() < prec - lost_bits:
                return None
            out.append(value)
        return out
    except Exception:  # noqa: BLE001 - a domain error, an unmapped call form: mpmath decides
        return None


def to_mpmath(value: Any) -> Any:
    """The midpoint of a ball: an mpf when its imaginary part is exactly 0
    (as mpmath returns a real result for a real one), else an mpc."""
    real = arb_mpf(value.real.mid())
    if value.imag.is_exact() and value.imag.is_zero():
        return real
    return mp.mpc(real, arb_mpf(value.imag.mid()))


def _exact(value: Any) -> Any:
    """An mpmath number as the acb of the same binary value."""
    if isinstance(value, mp.mpc):
        return acb(exact_arb(value.real), exact_arb(value.imag))
    return acb(exact_arb(mp.mpf(value)))


def exact_arb(value: Any) -> Any:
    """An mpf as the arb of the same binary value (exact, radius 0)."""
    sign, man, exp, _ = value._mpf_
    if not man:
        if value != 0:
            raise ValueError("not finite")
        return arb(0)
    return arb((-int(man) if sign else int(man), int(exp)))


def arb_mpf(value: Any) -> Any:
    """An exact arb (a midpoint, an end) as the mpf of the same binary value."""
    man, exp = value.man_exp()
    return mp.mpf((int(man), int(exp)))


__all__ = ["arb_mpf", "ball_function", "evaluate", "exact_arb", "to_mpmath"]
