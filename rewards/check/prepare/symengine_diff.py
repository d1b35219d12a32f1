"""F' by SymEngine: the same rules as SymPy's ``diff`` without its assumption
queries, on the part of the language where SymEngine's rules are SymPy's.

Trusted only where each rule was checked against SymPy's on and off the branch
cuts (tests/test_symengine.py): ``acosh`` is left out because SymEngine's
``1/sqrt(u**2 - 1)`` is not acosh's derivative for u < -1, where SymPy's
``1/(sqrt(u - 1)*sqrt(u + 1))`` is. Anything else (Abs, sign, Piecewise,
floor, special functions, floats, two symbols of one name, a term SymEngine
rewrites as it converts it) returns None: the caller differentiates with SymPy.
"""
from __future__ import annotations

import sympy as sp

try:
    import symengine as se
except ImportError:  # pragma: no cover - exercised by the fallback test
    se = None

# Function classes whose SymEngine derivative equals SymPy's everywhere.
_TRUSTED_FUNCTIONS = frozenset({
    sp.exp, sp.log,
    sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc,
    sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch,
    sp.asin, sp.acos, sp.atan, sp.acot, sp.asec, sp.acsc,
    sp.asinh, sp.atanh, sp.acoth, sp.asech, sp.acsch,
})
_TRUSTED_ATOMS = (sp.Integer, sp.Rational, sp.Symbol)
_TRUSTED_CONSTANTS = frozenset({sp.pi, sp.E, sp.I})


def _trusted(expr: sp.Expr) -> bool:
    for node in sp.preorder_traversal(expr):
        if node.is_Add or node.is_Mul or node.is_Pow:
            continue
        if isinstance(node, sp.Function):
            if node.func not in _TRUSTED_FUNCTIONS:
                return False
            continue
        if node in _TRUSTED_CONSTANTS:
            continue
        if isinstance(node, sp.Dummy) or not isinstance(node, _TRUSTED_ATOMS):
            return False
    return True


def symengine_derivative(term: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """d term / dx computed by SymEngine and returned as SymPy, or None when
    SymEngine is absent or ``term`` is outside what it is trusted with."""
    if se is None or not _trusted(term):
        return None
    symbols = term.free_symbols | {x}
    by_name = {s.name: s for s in symbols}
    if len(by_name) != len(symbols):
        return None  # two symbols share a name: converting back would merge them
    try:
        converted = se.sympify(term)
        # SymEngine folds (1/u)**r into u**(-r) and sqrt(u)*sqrt(1/u) into 1 as
        # it builds them, wrong for u < 0: a term that does not come back from
        # SymEngine as it went in is SymPy's.
        if _restore(sp.sympify(converted), by_name) != term:
            return None
        derivative = _restore(sp.sympify(converted.diff(se.Symbol(x.name))), by_name)
    except Exception:  # noqa: BLE001 - anything SymEngine refuses is SymPy's
        return None
    if derivative.has(sp.Derivative, sp.Subs) or not derivative.free_symbols <= symbols:
        return None
    return derivative


def _restore(expr: sp.Expr, by_name: dict[str, sp.Symbol]) -> sp.Expr:
    # SymEngine's symbols carry no assumptions: put the originals back.
    return expr.xreplace({s: by_name[s.name] for s in expr.free_symbols if s.name in by_name})
