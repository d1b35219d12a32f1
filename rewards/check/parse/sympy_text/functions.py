"""The functions an answer may call, with their arities and guarded
constructors (one-argument spellings come from :mod:`..names`)."""
from __future__ import annotations

import ast

import sympy

from ...errors import ParseFailure
from ...limits import ANSWER
from ..names import FUNCTIONS as _NAMED_FUNCTIONS
from .guards import _HALF, _NEG_ONE, _THIRD, _bound_numeric_arg


# --- function table --------------------------------------------------------
def _apply(func, args):
    """Apply a SymPy function; unevaluated when an argument contains a symbol.

    Evaluating a function of a symbolic argument makes SymPy query
    assumptions (is_real, is_zero, ...) through the whole argument, and for a
    complex argument that splits powers into real and imaginary parts term by
    term: Abs(exp(y**300)), elliptic_k(sech(y**50)) or log(sinh((x+I)**50))
    ran for seconds to minutes (measured with plain symbols; see _to_plain). Leaving these unevaluated loses nothing: the
    checker rebinds the variable as a real symbol with ``xreplace``, which
    rebuilds -- and so evaluates -- every node that contains it. Functions of
    constants are evaluated here, after the constant guards.
    """
    return func(*args, evaluate=not any(a.free_symbols for a in args))


def _plain(func, *arities):
    return frozenset(arities), lambda b, args: _apply(func, args)


def _log(b, args):
    if len(args) == 1:
        return _apply(sympy.log, args)
    if not any(a.free_symbols for a in args):
        return sympy.log(*args)  # constant log(8, 2) evaluates to 3
    # log(a, base) = log(a)/log(base); a 2-argument log object must not exist.
    return b.mul([_apply(sympy.log, args[:1]), b.pow(_apply(sympy.log, args[1:]), _NEG_ONE)])


def _log_base(base):
    return lambda b, args: _log(b, [args[0], sympy.Integer(base)])


def _bounded(func, limit, what):
    """Functions whose first argument SymPy expands on when it is a number:
    factorial/gamma compute exactly, uppergamma/lowergamma/polylog/zeta
    expand into O(n) terms with big coefficients."""
    def build(b, args):
        _bound_numeric_arg(args[0], limit, what)
        return _apply(func, args)
    return build


def _polylog(b, args):
    s, z = args
    _bound_numeric_arg(s, ANSWER.special_order, "polylog")
    # polylog's eval calls z.equals(1), i.e. simplify(z - 1): arbitrary work
    # for an adversarial constant z. Only a rational z is evaluated.
    return sympy.polylog(s, z, evaluate=bool(z.is_Rational and not s.free_symbols))


def _exact_number(b, args):
    """``S(5)/3``, ``Integer(5)``, ``Rational(5, 3)``: SymPy's own spellings
    of exact numbers (its ``python`` printer and hand-written integrands use
    them). Numbers only: ``S(x)`` is no call of ours (never sympify)."""
    if not all(a.is_Rational for a in args):
        raise ParseFailure("not_callable", "S, Integer and Rational take integer literals")
    return args[0] if len(args) == 1 else b.mul([args[0], b.pow(args[1], _NEG_ONE)])



_FUNCTIONS: dict[str, tuple[frozenset, object]] = {
    "exp": (frozenset({1}), lambda b, a: b.exp(a[0])),
    "log": (frozenset({1, 2}), _log),
    "ln": (frozenset({1}), _log),
    "log10": (frozenset({1}), _log_base(10)),
    "log2": (frozenset({1}), _log_base(2)),
    "sqrt": (frozenset({1}), lambda b, a: b.pow(a[0], _HALF)),
    "cbrt": (frozenset({1}), lambda b, a: b.pow(a[0], _THIRD)),
    "root": (frozenset({2}), lambda b, a: b.pow(a[0], b.pow(a[1], _NEG_ONE))),
    "Abs": _plain(sympy.Abs, 1),
    "abs": _plain(sympy.Abs, 1),
    "Heaviside": _plain(sympy.Heaviside, 1, 2),
    "atan2": _plain(sympy.atan2, 2),
    "gamma": (frozenset({1}), _bounded(sympy.gamma, ANSWER.factorial_arg, "gamma")),
    "factorial": (frozenset({1}), _bounded(sympy.factorial, ANSWER.factorial_arg, "factorial")),
    "uppergamma": (frozenset({2}), _bounded(sympy.uppergamma, ANSWER.special_order, "uppergamma")),
    "lowergamma": (frozenset({2}), _bounded(sympy.lowergamma, ANSWER.special_order, "lowergamma")),
    "polylog": (frozenset({2}), _polylog),
    # 2-argument (Hurwitz) zeta is left out: zeta(50, 1000) sums 999 huge
    # rationals (seconds) and never appears in elementary antiderivatives.
    "zeta": (frozenset({1}), _bounded(sympy.zeta, ANSWER.special_order, "zeta")),
    "LambertW": _plain(sympy.LambertW, 1, 2),
    "elliptic_k": _plain(sympy.elliptic_k, 1),
    "elliptic_f": _plain(sympy.elliptic_f, 2),
    "elliptic_e": _plain(sympy.elliptic_e, 1, 2),
    "elliptic_pi": _plain(sympy.elliptic_pi, 2, 3),
    # Steps and pieces (continuous answers are written with them too).
    "frac": _plain(sympy.frac, 1),
    "Max": _plain(sympy.Max, *range(1, ANSWER.minmax_args + 1)),
    "Min": _plain(sympy.Min, *range(1, ANSWER.minmax_args + 1)),
    "max": _plain(sympy.Max, *range(2, ANSWER.minmax_args + 1)),
    "min": _plain(sympy.Min, *range(2, ANSWER.minmax_args + 1)),
    # The exponential integral E_n(x), and E1 for E_1.
    "expint": (frozenset({2}), _bounded(sympy.expint, ANSWER.special_order, "expint")),
    "E1": (frozenset({1}), lambda b, a: _apply(sympy.expint, [sympy.Integer(1), a[0]])),
    "S": (frozenset({1}), _exact_number),
    "Integer": (frozenset({1}), _exact_number),
    "Rational": (frozenset({2}), _exact_number),
}
# Every one-argument spelling both parsers share (sign and sgn among them).
for _name, _func in _NAMED_FUNCTIONS.items():
    _FUNCTIONS.setdefault(_name, _plain(_func, 1))
del _name, _func

FUNCTION_NAMES = frozenset(_FUNCTIONS)
_INTEGRAL_NAMES = frozenset({"Integral", "integrate"})

# Relations only inside Piecewise conditions (at most ANSWER.pieces pieces).
_RELATIONS: dict[type, type] = {
    ast.Lt: sympy.StrictLessThan, ast.LtE: sympy.LessThan, ast.Gt: sympy.StrictGreaterThan,
    ast.GtE: sympy.GreaterThan, ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne,
}


def _is_piecewise(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Piecewise")

