"""SymPy expressions -> Python functions for numeric evaluation, quickly.

``sympy.lambdify`` with its defaults spends most of its time printing: the
terms of every sum are sorted (assumption queries on each term) and the whole
expression is printed once more, sorted, into the generated docstring. A
check compiles F' and f (and, for the domain rule, more) once each, so that
printing was a tenth of a check. The printer here keeps terms in their order
and writes no docstring: 4x faster, the same function. For mpmath it also
writes every sum, product and power in full parentheses (:class:`_FlatMpmathPrinter`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import mpmath as mp
import sympy as sp
from sympy.core.expr import UnevaluatedExpr
from sympy.core.function import AppliedUndef
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import MpmathPrinter
from sympy.utilities.lambdify import _EvaluatorPrinter

from ..result import PrintedOnce
from ..walk import distinct_nodes


class _FlatMpmathPrinter(PrintedOnce, MpmathPrinter):
    """MpmathPrinter with every sum, product and power in parentheses.

    The stock printer lays out a product the way a person reads it (sign
    first, a numerator over a denominator), asking each factor for its
    precedence and whether it could extract a minus sign: assumption queries
    that were most of the time a check spent compiling F'. Parenthesized, a
    product is its factors in order, over one division by its factors with
    negative exponents, as the stock printer divides (:meth:`_print_Mul`).
    Functions, numbers and the choice of ``sqrt`` for a half power stay the
    stock printer's."""

    def _print_Add(self, expr: sp.Add) -> str:
        return "(" + " + ".join(self._print(a) for a in expr.args) + ")"

    def _print_Mul(self, expr: sp.Mul) -> str:
        if not expr.is_commutative:
            return super()._print_Mul(expr)
        # Factors with a negative exponent go below one division, as the
        # stock printer writes them: a/b is correctly rounded, a*(1/b) is
        # rounded twice, so coth(z)^2 = 1 + 4e^{-2z} far out comes out as
        # 1 + one ulp instead of exactly 1, and 1/(1 - coth(z)^2) a finite
        # wrong value instead of a pole that makes the point unusable.
        num, den = [], []
        for a in expr.args:
            if a.is_Pow and a.exp.is_Rational and a.exp.is_negative:
                den.append(a.base if a.exp is sp.S.NegativeOne else sp.Pow(a.base, -a.exp))
            else:
                num.append(a)
        top = "*".join(f"({self._print(a)})" for a in num) or "1"
        if not den:
            return f"({top})"
        return f"(({top})/(" + "*".join(f"({self._print(a)})" for a in den) + "))"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        base, exp = expr.base, expr.exp
        if not rational and expr.is_commutative:
            if exp == sp.S.Half:
                return f"{self._module_format('mpmath.sqrt')}({self._print(base)})"
            if -exp is sp.S.Half:
                return f"(1/{self._module_format('mpmath.sqrt')}({self._print(base)}))"
            if exp is sp.S.NegativeOne:
                return f"(1/({self._print(base)}))"
        return f"(({self._print(base)})**({self._print(exp)}))"


_SETTINGS = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
             "user_functions": {}, "order": "none"}


# Bits above which a literal is passed in as a value, not printed: Python
# refuses str() of an int past 4300 digits (37^5000 has 7841).
_PRINTABLE_BITS = 13000


def compile_expr(args: Sequence[sp.Symbol], expr: sp.Basic,
                 modules: str | list[str] = "mpmath") -> Callable[..., Any]:
    """``sympy.lambdify(args, expr, modules)``, printed without sorting.

    A literal too long to print becomes a hidden argument, filled in at each
    call at the precision then in effect.

    >>> import mpmath
    >>> x = sp.Symbol("x")
    >>> compile_expr([x], sp.sin(x) + 1)(mpmath.mpf(0))
    mpf('1.0')
    >>> huge = compile_expr([x], x / sp.Integer(37) ** 5000)(mpmath.mpf(37) ** 5000)
    >>> abs(huge - 1) < 1e-12
    True
    """
    # Vectorized machine numbers print numbers as floats, not mpf constants.
    # The flat layout only where every operation is mpmath's: beside math's
    # functions (float results), 1/sqrt(...) would be a float division.
    printer = {"numpy": NumPyPrinter, "mpmath": _FlatMpmathPrinter}.get(
        modules if isinstance(modules, str) else "", MpmathPrinter)
    survey = _Survey(expr)
    if not survey.big:
        return _lambdify(list(args), expr, modules, printer, survey)
    hidden = {r: sp.Dummy() for r in survey.big}
    inner = _lambdify([*args, *hidden.values()], _replace(expr, hidden), modules, printer, None)
    ratios = [Fraction(int(r.p), int(r.q)) for r in hidden]
    machine = modules == "numpy"

    def call(*values: Any) -> Any:
        return inner(*values, *(_as_number(q, machine) for q in ratios))

    return call


class _Survey:
    """One walk over what is compiled: its symbols, its literals too long to
    print (sorted), and whether it holds a node only ``sympy.lambdify``
    handles (Subs, an undefined or implemented function, an unevaluated
    wrapper)."""

    def __init__(self, expr: Any) -> None:
        big: set[sp.Rational] = set()
        self.symbols: set[sp.Basic] = set()
        self.plain = True
        items = list(expr) if isinstance(expr, (list, tuple)) else [expr]
        if not all(isinstance(item, sp.Basic) for item in items):
            self.plain = False
            items = [item for item in items if isinstance(item, sp.Basic)]
        for item in items:
            for node in distinct_nodes(item):
                if node.is_Symbol:
                    self.symbols.add(node)
                elif node.is_Rational:
                    if max(abs(node.p), node.q).bit_length() > _PRINTABLE_BITS:
                        big.add(node)
                elif isinstance(node, _LAMBDIFY_ONLY):
                    self.plain = False
        self.big = sorted(big, key=sp.default_sort_key)


class _PlainEvaluatorPrinter(_EvaluatorPrinter):
    def _handle_Subs(self, expr: Any, out: list) -> Any:
        return expr


def _unchanged(expr: Any) -> Any:
    return expr


def _printed_name(symbol: sp.Symbol) -> str:
    # str() of a plain Symbol is its name; going through the printer for it
    # was a hundredth of a check (a Dummy prints differently: str() then).
    return symbol.name if type(symbol) is sp.Symbol else str(symbol)


_LAMBDIFY_ONLY = (sp.Subs, sp.Derivative, sp.Integral, UnevaluatedExpr, AppliedUndef)
_NAMESPACES: dict[Any, dict[str, Any]] = {}


def _lambdify(args: list[sp.Symbol], expr: Any, modules: str | list[str], printer: type,
              survey: _Survey | None) -> Callable[..., Any]:
    """``sympy.lambdify(args, expr, modules, printer=printer(...))``: the same
    source, printed by the same printer, executed in the namespace
    ``lambdify`` builds for ``modules``, built once. ``lambdify`` itself
    walks the expression four more times (symbols, Subs, unevaluated
    wrappers, implemented functions) and copies the module's namespace on
    every call: half of its time on a check's F'. Anything that needs one
    of those steps (a symbol not an argument, a node in ``_LAMBDIFY_ONLY``,
    an import the printer asks for) goes to ``lambdify``."""
    module_key = modules if isinstance(modules, str) else tuple(modules)
    fresh = printer(dict(_SETTINGS))
    if (survey is None or not survey.plain or not isinstance(expr, sp.Basic)
            or not survey.symbols <= set(args)
            or not all(a.is_Symbol and _EvaluatorPrinter._is_safe_ident(_printed_name(a))
                       for a in args)):
        return sp.lambdify(args, expr, modules, printer=fresh, docstring_limit=0)
    namespace = _NAMESPACES.get(module_key)
    if namespace is None:
        namespace = _NAMESPACES[module_key] = dict(
            sp.lambdify([], sp.Integer(0), modules, docstring_limit=0).__globals__)
    # Both walks look for nodes the survey found none of (Subs, re() of an
    # unevaluated expression): skipped.
    fresh._handle_UnevaluatedExpr = _unchanged
    source = _PlainEvaluatorPrinter(fresh, False).doprint("_lambdifygenerated", args, expr)
    imports = getattr(fresh, "module_imports", None) or {}
    if any(k not in namespace for keys in imports.values() for k in keys):
        return sp.lambdify(args, expr, modules, printer=printer(dict(_SETTINGS)),
                           docstring_limit=0)
    scope: dict[str, Any] = {}
    exec(compile(source, "<compile_expr>", "exec"), namespace, scope)  # noqa: S102 - our printer's code
    return scope["_lambdifygenerated"]


# The module sets a check compiles for: the screen's (mpmath), the breakpoint
# grid's (numpy) and its scan's (math, then mpmath).
_MODULE_SETS: tuple[str | list[str], ...] = ("mpmath", "numpy", ["math", "mpmath"])


def warm_up() -> None:
    """Build the namespace :func:`compile_expr` runs code in, for each module
    set a check uses: the first in a process is ``lambdify``'s own (0.23 s
    for numpy's), and a worker's first breakpoint search paid it in the
    middle of a batch. Call this from a worker initializer."""
    x = sp.Symbol("x")
    for modules in _MODULE_SETS:
        compile_expr([x], x + 1, modules)


def _replace(expr: Any, hidden: dict[sp.Rational, sp.Dummy]) -> Any:
    if isinstance(expr, (list, tuple)):
        return type(expr)(_replace(e, hidden) for e in expr)
    return expr.xreplace(hidden)


def _as_number(q: Fraction, machine: bool) -> Any:
    value = mp.mpf(q.numerator) / q.denominator
    if not machine:
        return value
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")
