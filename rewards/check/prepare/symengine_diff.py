"""F' by SymEngine: the same rules as SymPy's ``diff`` without its assumption
queries, on the part of the language where SymEngine's rules are SymPy's.

Trusted only where each rule was checked against SymPy's on and off the branch
cuts (tests/test_symengine.py): ``acosh`` is left out because SymEngine's
``1/sqrt(u**2 - 1)`` is not acosh's derivative for u < -1, where SymPy's
``1/(sqrt(u - 1)*sqrt(u + 1))`` is. Anything else (Abs, sign, Piecewise,
floor, special functions, floats, two symbols of one name, a term SymEngine
rewrites as it converts it) returns None: the caller differentiates with SymPy.

Terms are converted with SymEngine's own constructors (:func:`_to_symengine`),
not ``symengine.sympify``: that wraps SymPy's ``asech`` and ``acsch`` as
Python functions whose derivative in a real x came out 0, so ``asech(1/x)``
was accepted as an antiderivative of 0.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ..walk import distinct_nodes

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
# f(-u) = -f(u) and f(-u) = f(u), with derivatives that agree as formulas.
_ODD = frozenset({sp.sin, sp.tan, sp.cot, sp.csc, sp.sinh, sp.tanh, sp.coth, sp.csch,
                  sp.asin, sp.atan, sp.acot, sp.acsc, sp.asinh, sp.atanh, sp.acoth, sp.acsch})
_EVEN = frozenset({sp.cos, sp.sec, sp.cosh, sp.sech})
_TRUSTED_ATOMS = (sp.Integer, sp.Rational, sp.Symbol)
_TRUSTED_CONSTANTS = frozenset({sp.pi, sp.E, sp.I})


def _trusted(expr: sp.Expr) -> bool:
    for node in distinct_nodes(expr):
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
        # SymEngine folds (1/u)**r into u**(-r) and sqrt(u)*sqrt(1/u) into 1 as
        # it builds them, wrong for u < 0: a term SymEngine does not build
        # node for node as SymPy holds it is SymPy's.
        built: dict = {}
        converted = _to_symengine(term, built)
        if converted is None:
            return None
        # F' holds the term's own subtrees (the chain rule's inner u, the
        # product rule's other factor): those come back as the SymPy nodes
        # they were made from, not built again (a new node asks SymPy's
        # assumptions again, most of the time converting F' took).
        made_from = {copy: node for node, copy in built.items() if copy is not None}
        derivative = _to_sympy(converted.diff(se.Symbol(x.name)), by_name, made_from)
    except Exception:  # noqa: BLE001 - anything SymEngine refuses is SymPy's
        return None
    if derivative.has(sp.Derivative, sp.Subs) or not derivative.free_symbols <= symbols:
        return None
    return derivative


def _to_symengine(expr: sp.Expr, memo: dict) -> Any:
    """SymEngine's copy of ``expr``, built node by node; None where SymEngine
    builds a node other than SymPy's (a fold, an evaluation). Checking each
    node as it is built replaces converting the whole term back to SymPy and
    comparing (two thirds of the time F' took)."""
    hit = memo.get(expr)
    if hit is not None or expr in memo:
        return hit
    out = _build(expr, memo)
    memo[expr] = out
    return out


def _build(expr: sp.Expr, memo: dict) -> Any:
    if expr.is_Rational:
        return se.Rational(int(expr.p), int(expr.q)) if expr.q != 1 else se.Integer(int(expr.p))
    if expr.is_Symbol:
        return se.Symbol(expr.name)
    if expr in _CONSTANTS:
        return _CONSTANTS[expr]
    children = []
    for arg in expr.args:
        child = _to_symengine(arg, memo)
        if child is None:
            return None
        children.append(child)
    if expr.is_Add or expr.is_Mul:
        built = (se.Add if expr.is_Add else se.Mul)(*children)
        return built if _same_sum_or_product(built, children, expr.is_Add) else None
    if expr.is_Pow:
        built = se.Pow(*children)
        return built if built.is_Pow and tuple(built.args) == tuple(children) else None
    if isinstance(expr, sp.exp):
        built = se.exp(children[0])
        return built if built.is_Pow and tuple(built.args) == (se.E, children[0]) else None
    cls = _FUNCTIONS.get(expr.func)
    if cls is None:
        return None
    built = cls(*children)
    if isinstance(built, cls) and tuple(built.args) == tuple(children):
        return built
    # SymEngine picks its own sign for the argument of an odd or even
    # function: sin(5 - x**2) becomes -sin(x**2 - 5). f(-u) = -f(u) (f(u))
    # there, and the chain rule gives the same F' on either form.
    (arg,) = children
    if expr.func in _EVEN and isinstance(built, cls) and tuple(built.args) == (-arg,):
        return built
    if (expr.func in _ODD and built.is_Mul and len(built.args) == 2
            and set(built.args) == {se.Integer(-1), cls(-arg)}):
        return built
    return None


def _same_sum_or_product(built: Any, children: list[Any], add: bool) -> bool:
    """Whether SymEngine kept a sum (product) of ``children`` as one: the same
    non-numeric terms, their numbers combined into one (SymPy's 2*I*x is
    three factors, SymEngine's two). A product's factors are compared with
    its children's own products opened (associativity): a child an odd
    function's sign made ``-atanh(w)`` is the factors -1 and ``atanh(w)``
    in SymEngine's product."""
    if not add:
        children = [f for c in children for f in (c.args if c.is_Mul else (c,))]
    numbers = [c for c in children if c.is_Number]
    others = [c for c in children if not c.is_Number]
    if not others:
        return built.is_Number
    if not (built.is_Add if add else built.is_Mul):
        return False
    args = list(built.args)
    got = [a for a in args if not a.is_Number]
    if len(got) != len(others) or set(got) != set(others):
        return False
    combine = se.Add if add else se.Mul
    return combine(*[a for a in args if a.is_Number]) == combine(*numbers)


def _to_sympy(expr: Any, by_name: dict[str, sp.Symbol], memo: dict) -> sp.Expr:
    """SymPy's copy of a SymEngine expression, with the caller's symbols (and
    their assumptions) in place of SymEngine's bare names: built once, not
    converted and then rebuilt by ``xreplace``."""
    hit = memo.get(expr)
    if hit is not None:
        return hit
    if expr.is_Symbol:
        out = by_name[expr.name]
    elif expr.is_Add or expr.is_Mul:
        args = [_to_sympy(a, by_name, memo) for a in expr.args]
        out = sp.Add(*args) if expr.is_Add else sp.Mul(*args)
    elif expr.is_Pow:
        base, exp = expr.args
        exp_ = _to_sympy(exp, by_name, memo)
        out = sp.exp(exp_) if base == se.E else sp.Pow(_to_sympy(base, by_name, memo), exp_)
    elif expr.is_Function and type(expr) in _SYMPY_FUNCTIONS:
        out = _SYMPY_FUNCTIONS[type(expr)](*[_to_sympy(a, by_name, memo) for a in expr.args])
    elif not expr.free_symbols:
        out = sp.sympify(expr)  # numbers and constants
    else:
        raise ValueError(f"no SymPy copy of {type(expr).__name__}")
    memo[expr] = out
    return out


if se is not None:
    _CONSTANTS = {sp.pi: se.pi, sp.E: se.E, sp.I: se.I}
    _FUNCTIONS = {f: getattr(se, f.__name__) for f in _TRUSTED_FUNCTIONS if f is not sp.exp}
    _SYMPY_FUNCTIONS = {cls: f for f, cls in _FUNCTIONS.items()}
