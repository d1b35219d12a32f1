"""Bounds on what building an expression may cost: digits of numbers, sizes
of exponents and radicands, functions of constants (each limit says why)."""
from __future__ import annotations

import functools
import math

import sympy

from ...errors import ParseFailure
from ...function_facts import SLOW_GROWTH_NAMES
from ...limits import ANSWER, Limits

# --- resource limits -------------------------------------------------------


_HALF = sympy.Rational(1, 2)
_THIRD = sympy.Rational(1, 3)
_NEG_ONE = sympy.Integer(-1)


# --- number size helpers ---------------------------------------------------
def _int_digits(n: int) -> float:
    """log10|n| (0 for 0): the size of ``n`` in digits, without str(n).

    math.log10 accepts arbitrarily large ints and is linear in their size.
    """
    n = abs(int(n))
    return math.log10(n) if n else 0.0


def _rat_digits(r: sympy.Rational) -> float:
    return _int_digits(r.p) + _int_digits(r.q)


def _mag(expr: sympy.Expr, memo: dict[sympy.Expr, float] | None = None) -> float:
    """Upper estimate (in digits) of the numeric coefficient SymPy may compute
    when ``expr`` is multiplied, added or raised to a rational power.

    Add/Mul sum their parts (digits of products and of sums of fractions are at
    most additive); a rational power scales its base; everything else (symbols,
    functions) carries no coefficient that SymPy would expand. ``memo``: one
    parse's estimates by node (each sum or product above a node asks again).
    """
    if memo is not None:
        known = memo.get(expr)
        if known is None:
            known = memo[expr] = _mag_of(expr, memo)
        return known
    return _mag_of(expr, None)


def _mag_of(expr: sympy.Expr, memo: dict[sympy.Expr, float] | None) -> float:
    if expr.is_Rational:
        return _rat_digits(expr)
    if expr.is_Add or expr.is_Mul:
        return sum(_mag(a, memo) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Rational:
        return _mag(expr.base, memo) * abs(float(expr.exp))
    return 0.0


def _radicand_digits(expr: sympy.Expr) -> float:
    """Digits of the numbers SymPy would try to factor if ``expr`` were raised
    to a fractional power (coefficients are pulled out of the radical)."""
    if expr.is_Rational:
        return _rat_digits(expr)
    if expr.is_Add or expr.is_Mul:
        return sum(_radicand_digits(a) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Rational:
        return _radicand_digits(expr.base)
    return 0.0


def _is_numeric_radical(expr: sympy.Expr) -> bool:
    return bool(expr.is_Pow and expr.base.is_Rational and expr.exp.is_Rational
                and not expr.exp.is_Integer)


def _radical_digits_in_product(expr: sympy.Expr) -> float:
    """Radicand digits of numeric radicals that a Mul would merge (sqrt(a)*sqrt(b)
    becomes sqrt(a*b), which SymPy then factors again)."""
    if _is_numeric_radical(expr):
        return _rat_digits(expr.base)
    if expr.is_Mul:
        return sum(_radical_digits_in_product(a) for a in expr.args)
    return 0.0


class _Bounds:
    """The exponent limits of one parse: which symbol is the variable and how
    large a power of it may be (answers and integrands differ)."""

    def __init__(self, var: sympy.Symbol | None, max_exponent: int,
                 max_coefficient: int = ANSWER.exponent_coefficient,
                 integrand: bool = False, limits: Limits = ANSWER) -> None:
        self.var = var
        self.max_exponent = max_exponent
        self.max_coefficient = max_coefficient
        self.integrand = integrand
        self.limits = limits

    def key(self) -> tuple:
        """What the tests of :func:`_check_built` depend on."""
        return (self.var, self.max_exponent, self.max_coefficient, self.integrand, self.limits)

    def constant_exponent_limit(self, e: sympy.Expr) -> int:
        """Largest number inside the constant exponent ``e`` of ``exp``.

        ``exp(c*log(a))`` evaluates to ``a**c``, so in general c stays small
        (ANSWER.constant_exponent). An integrand's exponent with no function in
        it (``exp(1370)``, what SymPy's expand makes of a logistic step at
        13.7: ``exp(1370)*exp(-100*x)``) is only a number's size, which
        SymPy never expands: it gets the integrand's coefficient bound."""
        if self.integrand and not e.atoms(sympy.Function):
            return self.max_coefficient
        return ANSWER.constant_exponent

    def power_limit(self, base: sympy.Expr) -> int:
        """Largest |n| for base**n with a symbolic base."""
        if base.has(sympy.I):
            return ANSWER.complex_exponent
        if self.var is not None and base.free_symbols <= {self.var}:
            return self.max_exponent
        return ANSWER.symbolic_exponent


_DEFAULT_BOUNDS = _Bounds(None, ANSWER.exponent)


def _check_exponent_atoms(e: sympy.Expr, bounds: _Bounds = _DEFAULT_BOUNDS) -> None:
    # Numbers in a constant exponent make numbers; in a symbolic one
    # (exp(6048*x)) they only scale the variable.
    limit = bounds.max_coefficient if e.free_symbols else bounds.constant_exponent_limit(e)
    for atom in e.atoms(sympy.Rational):
        if abs(atom) > limit:
            raise ParseFailure(
                "exponent_too_large",
                f"numbers in an exponent must be at most {limit} in magnitude",
            )


def _check_built(expr: sympy.Expr, deep: bool,
                 bounds: _Bounds = _DEFAULT_BOUNDS,
                 checked: set[sympy.Basic] | None = None) -> sympy.Expr:
    """Post-check a freshly built node.

    Arithmetic nodes only combine coefficients near the top (a Mul distributes
    its coefficient into an Add's terms), so two levels suffice there; function
    results can be arbitrary expansions and are walked fully (their size is
    already bounded by the argument guards).

    ``checked``: nodes known to pass under these ``bounds``
    (:func:`passed_nodes`). The test of a node depends on the node and the
    bounds alone, so a node met again (each level above a node looks two
    levels down, and a group's answers share subtrees) is not tested again.
    """
    if deep:
        nodes = sympy.preorder_traversal(expr)
    else:
        nodes = [expr]
        for a in expr.args:
            nodes.append(a)
            nodes.extend(a.args)
    for n in nodes:
        if checked is not None and n in checked:
            continue
        _check_node(n, bounds)
        if checked is not None:
            checked.add(n)  # only once passed: the set outlives a failed parse
    return expr


def _check_node(n: sympy.Basic, bounds: _Bounds) -> None:
    """The tests of one node (see _check_built); raises ParseFailure."""
    if n.is_Rational:
        digits = bounds.limits.number_digits
        if _int_digits(n.p) > digits or _int_digits(n.q) > digits:
            raise ParseFailure("number_too_large",
                               f"numbers are limited to about {digits} digits")
    elif n.is_Pow:
        e = n.exp
        if e.is_Rational:
            limit = (bounds.power_limit(n.base) if n.base.free_symbols
                     else bounds.limits.constant_exponent)
            if abs(e) > limit:
                raise ParseFailure("exponent_too_large",
                                   f"exponent {e} too large here (at most {limit})")
            if _is_numeric_radical(n) and _rat_digits(n.base) > ANSWER.radicand_digits:
                raise ParseFailure("number_too_large", "radicand too large")
    elif isinstance(n, sympy.exp):
        _check_exponent_atoms(n.args[0], bounds)


# The nodes that passed _check_built, per set of bounds, kept across parses: a
# group's answers share their subtrees (SymPy's cache hands back the same
# nodes). Cleared whole past this many nodes.
_PASSED: dict[tuple, set[sympy.Basic]] = {}
_PASSED_KEPT = 20_000


def passed_nodes(bounds: _Bounds) -> set[sympy.Basic]:
    """The nodes known to pass :func:`_check_built` under ``bounds``."""
    key = bounds.key()
    nodes = _PASSED.get(key)
    if nodes is None or len(nodes) > _PASSED_KEPT:
        nodes = _PASSED[key] = set()
    return nodes


_NON_FINITE = (sympy.oo, sympy.S.NegativeInfinity, sympy.zoo, sympy.nan)


def _check_nonfinite_mix(operands: list[sympy.Expr]) -> None:
    """oo/zoo/nan next to a symbolic operand (``x + oo``, ``oo*f(x)``,
    ``(x**50)**oo``) makes SymPy ask for the sign, realness or finiteness of
    the symbolic part, which can expand powers for seconds. The checker would
    call any such answer non-finite anyway, so refuse it here."""
    if len(operands) < 2:
        return
    flags = [_flags(o) for o in operands]
    if any(nonfinite for _, nonfinite in flags) and any(free for free, _ in flags):
        raise ParseFailure("non_finite", "oo, zoo or nan combined with the variable")


@functools.lru_cache(maxsize=16384)
def _flags(expr: sympy.Expr) -> tuple[bool, bool]:
    """(has a free symbol, holds oo/zoo/nan) of ``expr``; for a sum, product,
    power or function, from its arguments' (none of them binds a variable).
    Cached per node: building a tree bottom-up asks each node once per
    operation above it, and a group's answers share their subtrees."""
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function)):
        parts = [_flags(a) for a in expr.args]
        return any(free for free, _ in parts), any(nonfinite for _, nonfinite in parts)
    return bool(expr.free_symbols), expr.has(*_NON_FINITE)


def _bound_numeric_arg(a: sympy.Expr, limit: int, what: str) -> None:
    if a.is_Rational and abs(a) > limit:
        raise ParseFailure("number_too_large", f"{what} argument must be at most {limit}")


def _const_height(expr: sympy.Expr) -> int:
    """How many function applications are stacked inside a constant.

    Numbers, pi, E, I have height 0; Add/Mul and rational powers (radicals)
    do not add a level; every other node with arguments (a function, or a
    power such as 2**sqrt(2)) adds one.
    """
    if not expr.args:
        return 0
    if expr.is_Add or expr.is_Mul or (expr.is_Pow and expr.exp.is_Rational):
        return max(_const_height(a) for a in expr.args)
    return 1 + max(_const_height(a) for a in expr.args)


def _check_constant_args(name: str, args: list[sympy.Expr],
                         bounds: _Bounds = _DEFAULT_BOUNDS) -> None:
    """Refuse functions of constants that would make SymPy evaluate towers or
    astronomically large values (see ANSWER.constant_height). ``exp`` of a
    constant is bounded like a constant exponent (:meth:`_Bounds.constant_exponent_limit`)."""
    if name in _ALGEBRAIC:
        return  # sqrt/cbrt/root are rational powers, guarded in _Builder.pow
    if name in _SLOW_CONSTANTS and not any(a.free_symbols for a in args):
        # Printing or sorting a sum evaluates its constant terms numerically:
        # one elliptic_pi(50, 52) takes ~1 s in mpmath, 70 of them (a 2000
        # character answer) made str() run for minutes. Never in an answer.
        raise ParseFailure("slow_constant", f"{name} of constant arguments is not accepted")
    for a in args:
        if a.free_symbols:
            continue
        if a.has(*_NON_FINITE):
            # sin(oo) would become an AccumBounds, not a number.
            raise ParseFailure("non_finite", f"{name} of an infinite or undefined constant")
        height = 0 if a.is_Rational else _const_height(a)
        if height + 1 > ANSWER.constant_height:
            raise ParseFailure(
                "too_deep",
                f"functions of constants may nest at most {ANSWER.constant_height} deep",
            )
        if name in _SLOW_GROWTH:
            continue
        if name == "exp" and a.is_Rational and bounds.integrand:
            continue            # its size is the exponent's business (exp in the builder)
        if a.is_Rational:
            too_big = abs(a) > ANSWER.constant_arg
        else:
            # Safe to evaluate: height 0 means only numbers, pi, E, I, sums,
            # products and radicals (all bounded by the other checks).
            try:
                too_big = not abs(complex(a.evalf(15))) <= ANSWER.constant_arg
            except (TypeError, ValueError, OverflowError):
                too_big = True
        if too_big:
            raise ParseFailure(
                "number_too_large",
                f"constant arguments of {name} must be at most {ANSWER.constant_arg} in modulus",
            )


_ALGEBRAIC = frozenset({"sqrt", "cbrt", "root"})
_SLOW_CONSTANTS = frozenset({"elliptic_pi"})
# Functions whose constant arguments may be large: the registry's slow_growth.
_SLOW_GROWTH = SLOW_GROWTH_NAMES


