"""The functions an answer may call: spellings and arities from the registry
(:mod:`rewards.check.function_facts`), and the guarded constructors."""
from __future__ import annotations

import ast

import sympy

from ...errors import ParseFailure
from ...function_facts import ORDERS, SPELLINGS, TEXT_CALLS
from ...limits import ANSWER
from .guards import _HALF, _NEG_ONE, _THIRD, _bound_numeric_arg


# --- function table --------------------------------------------------------
def _apply(func, args):
    """Apply a SymPy function; unevaluated when an argument contains a symbol.

    Evaluating a function of a symbolic argument makes SymPy query
    assumptions (is_real, is_zero, ...) through the whole argument, and for a
    complex argument that splits powers into real and imaginary parts term by
    term: Abs(exp(y**300)), elliptic_k(sech(y**50)) or log(sinh((x+I)**50))
    ran for seconds to minutes (measured with plain symbols; see _to_plain).
    Leaving these unevaluated loses nothing: ``sin(-x)`` is the function
    ``-sin(x)`` is, its derivative and its values at points are the same, and
    the checker's rebinding to a real variable keeps the node as built
    (:func:`rewards.check.prepare.real.bind_real`). Functions of constants are
    evaluated here, after the constant guards.
    """
    return func(*args, evaluate=not any(a.free_symbols for a in args))


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
    _bound_numeric_arg(s, ORDERS[sympy.polylog].bound, "polylog")
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



# Calls whose construction is guarded or rewritten (by name); every other
# call of the registry is ``cls(*args)``, unevaluated on symbols.
_GUARDED: dict[str, object] = {
    "exp": lambda b, a: b.exp(a[0]),
    "log": _log,
    "ln": _log,
    "log10": _log_base(10),
    "log2": _log_base(2),
    "sqrt": lambda b, a: b.pow(a[0], _HALF),
    "cbrt": lambda b, a: b.pow(a[0], _THIRD),
    "root": lambda b, a: b.pow(a[0], b.pow(a[1], _NEG_ONE)),
    "gamma": _bounded(sympy.gamma, ANSWER.factorial_arg, "gamma"),
    "factorial": _bounded(sympy.factorial, ANSWER.factorial_arg, "factorial"),
    "polylog": _polylog,
    "E1": lambda b, a: _apply(sympy.expint, [sympy.Integer(1), a[0]]),
}
# Every other call of a function with an order (uppergamma(n, x), zeta(n),
# expint(n, x)): its order bounded as the registry says.
_GUARDED.update({name: _bounded(cls, ORDERS[cls].bound, name) for name, (cls, _) in TEXT_CALLS.items()
                 if cls in ORDERS and name not in _GUARDED})


def _arities(declared) -> frozenset:
    if declared[-1] is ...:
        return frozenset(range(declared[0], ANSWER.minmax_args + 1))
    return frozenset(declared)


def _entry(name, cls, arities):
    build = _GUARDED.get(name)
    return _arities(arities), build or (lambda b, args: _apply(cls, args))


# SymPy's own spellings of exact numbers: not functions, no registry entry.
_FUNCTIONS: dict[str, tuple[frozenset, object]] = {
    "S": (frozenset({1}), _exact_number),
    "Integer": (frozenset({1}), _exact_number),
    "Rational": (frozenset({2}), _exact_number),
}
_FUNCTIONS.update({name: _entry(name, cls, arities)
                   for name, (cls, arities) in TEXT_CALLS.items()})
# Every one-argument spelling both parsers share (sign and sgn among them).
for _name, _func in SPELLINGS.items():
    _FUNCTIONS.setdefault(_name, _entry(_name, _func, (1,)))
del _name, _func

FUNCTION_NAMES = frozenset(_FUNCTIONS)
_INTEGRAL_NAMES = frozenset({"Integral", "integrate"})

# Relations only inside Piecewise conditions (at most ``Limits.pieces`` pieces).
_RELATIONS: dict[type, type] = {
    ast.Lt: sympy.StrictLessThan, ast.LtE: sympy.LessThan, ast.Gt: sympy.StrictGreaterThan,
    ast.GtE: sympy.GreaterThan, ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne,
}


def _is_piecewise(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Piecewise")

