"""Safe parser for answers written in SymPy / Python expression syntax.

Threat model: the text is produced by a policy that is being optimised against
this reward, so it is adversarial. It must never execute code (no ``eval``,
``exec``, ``compile``, ``sympify`` or ``parse_expr``: SymPy's own parsers call
``eval``), never reach an attribute, builtin or module, and never make SymPy do
unbounded work while the expression is being built (``9**9**9``,
``factorial(10**10)``, ``exp(10**6*log(10))`` and friends all auto-evaluate).
We therefore only *parse* the text with :func:`ast.parse` (which builds a tree
and runs nothing), check the whole tree against an allowlist before any SymPy
object exists, and then build the expression node by node through guarded
constructors. Every rejection is a :class:`~rewards.check.errors.ParseFailure` whose
``reason`` is one of the stable slugs listed in :data:`REASONS`.

Example:

>>> import sympy
>>> from rewards.check.parse.sympy_text import parse_sympy_text
>>> x = sympy.Symbol("x")
>>> parse_sympy_text("-2*x*asin(x) - 2*sqrt(1 - x**2) + C")
C - 2*x*asin(x) - 2*sqrt(1 - x**2)
>>> parse_sympy_text("0.5*x^2") == x**2 / 2
True
>>> parse_sympy_text("__import__('os').system('ls')")
Traceback (most recent call last):
...
rewards.check.errors.ParseFailure: names containing '__' are not allowed

Decisions worth knowing (see also the module constants below):

* ``^`` is rewritten to ``**`` *textually* before parsing, so it gets power
  precedence (``x^2+1`` is ``x**2 + 1``, not Python's ``x ^ (2+1)``).
* Float literals become exact Rationals built from the literal's own decimal
  text (``0.1`` -> ``1/10``): a checker comparing exactly must not be fooled
  by binary rounding, and SymPy Floats would make exact cancellation fail.
* Complex literals ``2j`` become ``2*I`` (``I`` itself is allowed anyway).
* The result contains plain ``sympy.Symbol(name)`` symbols (no assumptions),
  but it was *evaluated as if every symbol were real*, which is how the
  checker reads it (``sqrt(x**2)`` comes back as ``Abs(x)``); see _to_plain.
* Functions (and powers with a symbolic exponent) of symbolic arguments are
  returned unevaluated: ``sin(-x)`` stays ``sin(-x)``. Rebinding the variable
  (``xreplace``, as the checker does) or ``.doit()`` evaluates them; see
  _apply for why.
* ``oo``/``zoo``/``nan`` alone parse to SymPy's objects; combined with the
  variable (``x + oo``) or inside a function they are ``non_finite``.
* The integration variable wins over every other meaning of its name
  (``symbol="e"`` makes ``e`` the variable while ``E`` stays Euler's number).
* Short unknown identifiers (``y``, ``a``, ``k2``, ``C_3``) become plain
  symbols so the checker can report them as stray symbols; long unknown names
  are ``unknown_name``; Python builtins and SymPy constructors are
  ``forbidden_name`` even when short.
* ``F(x) = rhs`` / ``y = rhs``: only the right-hand side is parsed.
* This module bounds the work done *while parsing*. What the checker does
  afterwards (``simplify``, exact substitution) still needs its own time limit.
"""
from __future__ import annotations

import ast
import builtins
import math
import re

import sympy

from ..errors import ParseFailure
from ..timebox import StepTimeout
from .equation import equation_rhs
from .names import FUNCTIONS as _NAMED_FUNCTIONS
from .names import (
    MAX_CONSTANT_EXPONENT,
    MAX_EXPONENT,
    MAX_EXPONENT_COEFFICIENT,
    MAX_FACTORIAL_ARG,
    MAX_SYMBOLIC_EXPONENT,
    SUPERSCRIPT_RUN,
    is_constant_name,
    superscript_text,
    valid_variable_name,
)

__all__ = [
    "FUNCTION_NAMES",
    "REASONS",
    "parse_sympy_text",
]

# --- resource limits -------------------------------------------------------
# Integer literals longer than this are refused outright: nobody writes a
# 100-digit constant in an antiderivative, and huge literals only feed attacks.
MAX_LITERAL_DIGITS = 100
# Bound on every number SymPy is allowed to produce while we build (~10**1000).
MAX_NUMBER_DIGITS = 1000
# Exponents (names.py): a power of a base that is a function of the variable
# alone (built as a real symbol, never expanded by SymPy on its own) may have
# |n| up to MAX_EXPONENT (answers) or MAX_INTEGRAND_EXPONENT (integrands); the
# numbers inside a symbolic exponent (exp(6048*x)) up to
# MAX_EXPONENT_COEFFICIENT. A *constant*
# exponent and every number inside it stays at most MAX_CONSTANT_EXPONENT:
# exp(c*log(a)) auto-evaluates to a**c, so both c and a must stay small for
# the result to stay cheap.
# Rational exponents on a base that contains another symbol
# (MAX_SYMBOLIC_EXPONENT, names.py). SymPy's assumption queries split a
# complex base into real and imaginary parts and expand (a + I*b)**n, which
# costs ~n**3 (0.3 s at n=100, 2 s at n=200, per query). Other symbols are
# built real too, but they come back plain (complex) to the checker.
# ... and on a symbolic base that contains I, e.g. (x + I)**n: its real and
# imaginary parts are dense polynomials, and a realness query on a function of
# it (cosh(2**((x+I)**20))) built a 600k-entry dense array (6 s). Real
# antiderivatives never raise a complex base to a high power.
MAX_COMPLEX_EXPONENT = 10
# Numeric radicals (2**(1/3), sqrt(p/q)) make SymPy trial-factor the radicand,
# and products of radicals are merged into one radicand; >100 digits costs
# seconds (measured: sqrt of a 1000-digit rational takes ~1.4 s).
MAX_RADICAND_DIGITS = 100
# uppergamma/lowergamma/polylog/zeta with integer order expand into O(n) terms
# with big coefficients (uppergamma(1000, x) takes seconds), so keep n small.
MAX_ORDER = 20
# Functions of constants: SymPy decides signs of constant arguments with evalf,
# and towers of constants defeat it (sinh(sinh(sinh(sinh(sinh(2))))) hangs,
# nested log of a negative number grows exponentially, erfi(10**999) makes any
# later sign query hang). So a function (or a power with a non-rational
# exponent) may be applied to a constant only if that constant contains no
# function itself, and the constant's modulus must be at most MAX_CONSTANT_ARG
# unless the function grows slowly (log, atan, Abs, ...).
MAX_CONSTANT_HEIGHT = 1
MAX_CONSTANT_ARG = 1000

REASONS = frozenset({
    "not_text",            # text is not a str
    "empty",               # nothing but whitespace
    "too_long",            # len(text) > max_chars
    "bad_character",       # NUL / control characters
    "non_ascii",           # non-ASCII after the small Unicode mapping
    "forbidden_name",      # dunder, leading underscore, builtin, SymPy constructor
    "forbidden_syntax",    # any node/operator/character outside the allowlist
    "forbidden_attribute",  # x.attr
    "forbidden_string",    # string/bytes literal, f-string
    "forbidden_keyword_arg",  # f(x, k=1)
    "bad_constant",        # True / False / None / ...
    "syntax_error",        # not a Python expression (incl. implicit multiplication)
    "too_deep",            # nesting deeper than max_depth, or function of a function of a constant
    "too_many_nodes",      # more than max_nodes expression nodes
    "unknown_name",        # identifier that is neither allowlisted nor short
    "not_callable",        # calling something that is not an allowlisted function
    "function_as_value",   # ``sin`` used without a call
    "bad_arity",           # wrong number of arguments for a function
    "number_too_large",    # literal / intermediate number out of bounds
    "exponent_too_large",  # exponent (or number inside an exponent) out of bounds
    "math_error",          # SymPy itself raised while building (e.g. Heaviside(I))
    "non_finite",          # oo/zoo/nan inside a function or next to a symbol
    "resource_error",      # MemoryError while building
    "slow_constant",       # constant whose numeric evaluation takes seconds
    "not_an_expression",   # result is not a sympy.Expr
    "echoed_integral",     # Integral(...) / integrate(...): the question, not an answer
    "bad_condition",       # a Piecewise condition that is not a comparison of the variable
})

# --- names -----------------------------------------------------------------
# Integration constants (C, c, K, C1, C_1, c_2, K12, const, constant) are
# whatever the checker's normalizer calls a constant name, so the two never
# disagree; they become plain Symbols with that name.

_CONSTANTS = {
    "pi": sympy.pi,
    "E": sympy.E,
    "e": sympy.E,
    "I": sympy.I,
    "oo": sympy.oo,
    "zoo": sympy.zoo,
    "nan": sympy.nan,
}

# Any other identifier of this shape becomes a plain Symbol (``y``, ``a1``,
# ``k_2``) so that stray symbols reach the checker as WRONG, not UNPARSEABLE.
_SHORT_SYMBOL_RE = re.compile(r"[A-Za-z](?:_?[A-Za-z0-9]{1,3})?\Z")

# Names that are refused even though they might match the short-symbol shape:
# nothing is ever looked up, but an answer naming these is an attack attempt
# and gets a clear reason in the traces.
_DENIED_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_")) | frozenset({
    "eval", "exec", "compile", "open", "input", "globals", "locals", "vars",
    "getattr", "setattr", "delattr", "dir", "type", "object", "breakpoint",
    "exit", "quit", "help", "print", "id", "hash", "memoryview", "super",
    "os", "sys", "subprocess", "shutil", "importlib", "builtins", "socket",
    "sympy", "sp", "np", "numpy", "math", "cmath", "mpmath", "torch",
    "Symbol", "Symbols", "symbols", "Dummy", "Wild", "var", "sympify",
    "parse_expr", "lambdify", "Lambda", "Function", "srepr", "evalf",
    "Integer", "Rational", "Float", "Add", "Mul", "Pow", "Eq", "Ne", "Rel",
    "integrate", "Integral", "diff", "Derivative", "simplify", "solve",
    "self", "cls", "lambda", "import",
})


# A numeric literal immediately followed by an identifier character is implicit
# multiplication (``2x``, ``3sin(x)``). Python rejects it too, but only after
# printing a SyntaxWarning for cases like ``1if``, so we refuse it up front.
# The pattern matches a whole literal greedily; the caller looks at the next
# character (a lookahead here would let the regex backtrack into ``1e5``).
_NUMBER_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9_.])"
    r"(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)"
)
_LONG_DIGIT_RUN_RE = re.compile(rf"\d{{{MAX_LITERAL_DIGITS + 1},}}")
_FLOAT_LITERAL_RE = re.compile(r"(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\Z")

# Characters models commonly emit instead of ASCII operators. Padding pi with
# spaces keeps ``2π`` / ``xπ`` from silently turning into a name like ``xpi``.
_UNICODE_MAP = str.maketrans({
    "\u03c0": " pi ",   # π
    "\u2212": "-",      # minus sign
    "\u2013": "-",      # en dash
    "\u00d7": "*",      # multiplication sign
    "\u00b7": "*",      # middle dot
    "\u22c5": "*",      # dot operator
    "\u00a0": " ",      # no-break space
    "\u00f7": "/",      # division sign
})
# Unicode roots and superscripts: \u221a(x+1) and \u221ax are sqrt(...), \u221b cbrt;
# x\u00b2 is x**(2), x\u207b\u00b9 is x**(-1) (a run of superscripts at a time).
_ROOTS = {"\u221a": "sqrt", "\u221b": "cbrt"}
_ROOT_ARG = re.compile(r"([\u221a\u221b])\s*(\(|[A-Za-z_]\w*|\d+(?:\.\d+)?)")


def _unicode_math(text: str) -> str:
    text = SUPERSCRIPT_RUN.sub(lambda m: "**(" + superscript_text(m.group(0)) + ")", text)

    def root(m: re.Match[str]) -> str:
        name = _ROOTS[m.group(1)]
        return f"{name}(" if m.group(2) == "(" else f"{name}({m.group(2)})"

    return _ROOT_ARG.sub(root, text)

# Exceptions that belong to the caller (signal-driven time limits), never
# converted into a ParseFailure.
_PASS_THROUGH = (StepTimeout, TimeoutError)

_HALF = sympy.Rational(1, 2)
_THIRD = sympy.Rational(1, 3)
_NEG_ONE = sympy.Integer(-1)

# Operator families: chains inside one family are flattened (``a+b-c+d`` is a
# single n-ary Add) so a long sum does not count as deep nesting.
_FAMILY = {ast.Add: "add", ast.Sub: "add", ast.Mult: "mul", ast.Div: "mul", ast.Pow: "pow"}


# --- number size helpers ---------------------------------------------------
def _int_digits(n: int) -> float:
    """log10|n| (0 for 0): the size of ``n`` in digits, without str(n).

    math.log10 accepts arbitrarily large ints and is linear in their size.
    """
    n = abs(int(n))
    return math.log10(n) if n else 0.0


def _rat_digits(r: sympy.Rational) -> float:
    return _int_digits(r.p) + _int_digits(r.q)


def _mag(expr: sympy.Expr) -> float:
    """Upper estimate (in digits) of the numeric coefficient SymPy may compute
    when ``expr`` is multiplied, added or raised to a rational power.

    Add/Mul sum their parts (digits of products and of sums of fractions are at
    most additive); a rational power scales its base; everything else (symbols,
    functions) carries no coefficient that SymPy would expand.
    """
    if expr.is_Rational:
        return _rat_digits(expr)
    if expr.is_Add or expr.is_Mul:
        return sum(_mag(a) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Rational:
        return _mag(expr.base) * abs(float(expr.exp))
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

    def __init__(self, var: sympy.Symbol | None, max_exponent: int) -> None:
        self.var = var
        self.max_exponent = max_exponent

    def power_limit(self, base: sympy.Expr) -> int:
        """Largest |n| for base**n with a symbolic base."""
        if base.has(sympy.I):
            return MAX_COMPLEX_EXPONENT
        if self.var is not None and base.free_symbols <= {self.var}:
            return self.max_exponent
        return MAX_SYMBOLIC_EXPONENT


_DEFAULT_BOUNDS = _Bounds(None, MAX_EXPONENT)


def _check_exponent_atoms(e: sympy.Expr, bounds: _Bounds = _DEFAULT_BOUNDS) -> None:
    # Numbers in a constant exponent make numbers; in a symbolic one
    # (exp(6048*x)) they only scale the variable.
    limit = MAX_EXPONENT_COEFFICIENT if e.free_symbols else MAX_CONSTANT_EXPONENT
    for atom in e.atoms(sympy.Rational):
        if abs(atom) > limit:
            raise ParseFailure(
                "exponent_too_large",
                f"numbers in an exponent must be at most {limit} in magnitude",
            )


def _check_built(expr: sympy.Expr, deep: bool,
                 bounds: _Bounds = _DEFAULT_BOUNDS) -> sympy.Expr:
    """Post-check a freshly built node.

    Arithmetic nodes only combine coefficients near the top (a Mul distributes
    its coefficient into an Add's terms), so two levels suffice there; function
    results can be arbitrary expansions and are walked fully (their size is
    already bounded by the argument guards).
    """
    if deep:
        nodes = sympy.preorder_traversal(expr)
    else:
        nodes = [expr]
        for a in expr.args:
            nodes.append(a)
            nodes.extend(a.args)
    for n in nodes:
        if n.is_Rational:
            if _int_digits(n.p) > MAX_NUMBER_DIGITS or _int_digits(n.q) > MAX_NUMBER_DIGITS:
                raise ParseFailure("number_too_large",
                                   f"numbers are limited to about {MAX_NUMBER_DIGITS} digits")
        elif n.is_Pow:
            e = n.exp
            if e.is_Rational:
                limit = (bounds.power_limit(n.base) if n.base.free_symbols
                         else MAX_CONSTANT_EXPONENT)
                if abs(e) > limit:
                    raise ParseFailure("exponent_too_large",
                                       f"exponent {e} too large here (at most {limit})")
                if _is_numeric_radical(n) and _rat_digits(n.base) > MAX_RADICAND_DIGITS:
                    raise ParseFailure("number_too_large", "radicand too large")
        elif isinstance(n, sympy.exp):
            _check_exponent_atoms(n.args[0], bounds)
    return expr


_NON_FINITE = (sympy.oo, sympy.S.NegativeInfinity, sympy.zoo, sympy.nan)


def _check_nonfinite_mix(operands: list[sympy.Expr]) -> None:
    """oo/zoo/nan next to a symbolic operand (``x + oo``, ``oo*f(x)``,
    ``(x**50)**oo``) makes SymPy ask for the sign, realness or finiteness of
    the symbolic part, which can expand powers for seconds. The checker would
    call any such answer non-finite anyway, so refuse it here."""
    if len(operands) < 2 or not any(o.free_symbols for o in operands):
        return
    if any(o.has(*_NON_FINITE) for o in operands):
        raise ParseFailure("non_finite", "oo, zoo or nan combined with the variable")


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


def _check_constant_args(name: str, args: list[sympy.Expr]) -> None:
    """Refuse functions of constants that would make SymPy evaluate towers or
    astronomically large values (see MAX_CONSTANT_HEIGHT)."""
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
        if height + 1 > MAX_CONSTANT_HEIGHT:
            raise ParseFailure(
                "too_deep",
                f"functions of constants may nest at most {MAX_CONSTANT_HEIGHT} deep",
            )
        if name in _SLOW_GROWTH:
            continue
        if a.is_Rational:
            too_big = abs(a) > MAX_CONSTANT_ARG
        else:
            # Safe to evaluate: height 0 means only numbers, pi, E, I, sums,
            # products and radicals (all bounded by the other checks).
            try:
                too_big = not abs(complex(a.evalf(15))) <= MAX_CONSTANT_ARG
            except (TypeError, ValueError, OverflowError):
                too_big = True
        if too_big:
            raise ParseFailure(
                "number_too_large",
                f"constant arguments of {name} must be at most {MAX_CONSTANT_ARG} in modulus",
            )


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
    _bound_numeric_arg(s, MAX_ORDER, "polylog")
    # polylog's eval calls z.equals(1), i.e. simplify(z - 1): arbitrary work
    # for an adversarial constant z. Only a rational z is evaluated.
    return sympy.polylog(s, z, evaluate=bool(z.is_Rational and not s.free_symbols))


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
    "gamma": (frozenset({1}), _bounded(sympy.gamma, MAX_FACTORIAL_ARG, "gamma")),
    "factorial": (frozenset({1}), _bounded(sympy.factorial, MAX_FACTORIAL_ARG, "factorial")),
    "uppergamma": (frozenset({2}), _bounded(sympy.uppergamma, MAX_ORDER, "uppergamma")),
    "lowergamma": (frozenset({2}), _bounded(sympy.lowergamma, MAX_ORDER, "lowergamma")),
    "polylog": (frozenset({2}), _polylog),
    # 2-argument (Hurwitz) zeta is left out: zeta(50, 1000) sums 999 huge
    # rationals (seconds) and never appears in elementary antiderivatives.
    "zeta": (frozenset({1}), _bounded(sympy.zeta, MAX_ORDER, "zeta")),
    "LambertW": _plain(sympy.LambertW, 1, 2),
    "elliptic_k": _plain(sympy.elliptic_k, 1),
    "elliptic_f": _plain(sympy.elliptic_f, 2),
    "elliptic_e": _plain(sympy.elliptic_e, 1, 2),
    "elliptic_pi": _plain(sympy.elliptic_pi, 2, 3),
}
# Every one-argument spelling both parsers share (sign and sgn among them).
for _name, _func in _NAMED_FUNCTIONS.items():
    _FUNCTIONS.setdefault(_name, _plain(_func, 1))
del _name, _func

FUNCTION_NAMES = frozenset(_FUNCTIONS)
_ALGEBRAIC = frozenset({"sqrt", "cbrt", "root"})
_SLOW_CONSTANTS = frozenset({"elliptic_pi"})
# Functions whose constant arguments may be large (they grow at most like log,
# or are bounded): log(10**50) is harmless, sinh(10**50) is not.
_SLOW_GROWTH = frozenset({
    "log", "ln", "log10", "log2", "Abs", "abs", "sign", "Heaviside",
    "atan", "arctan", "acot", "arccot", "atan2", "asinh", "arcsinh", "arsinh",
    "LambertW",
})


_INTEGRAL_NAMES = frozenset({"Integral", "integrate"})

# Piecewise((expr, cond), ...): at most this many pieces; relations (below)
# only inside its conditions.
MAX_PIECES = 12
_RELATIONS: dict[type, type] = {
    ast.Lt: sympy.StrictLessThan, ast.LtE: sympy.LessThan, ast.Gt: sympy.StrictGreaterThan,
    ast.GtE: sympy.GreaterThan, ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne,
}


def _is_piecewise(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Piecewise")


# --- text pre-checks ------------------------------------------------------
def _max_bracket_depth(text: str) -> int:
    """Linear scan, run before ast.parse: CPython's parser recurses per bracket."""
    depth = best = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            if depth > best:
                best = depth
        elif ch in ")]}":
            depth -= 1
    return best


def _has_implicit_multiplication(text: str) -> bool:
    for m in _NUMBER_TOKEN_RE.finditer(text):
        nxt = text[m.end():m.end() + 1]
        if nxt and (nxt.isalpha() or nxt == "_"):
            return True
    return False


def _fail_syntax(node: ast.AST, what: str | None = None) -> ParseFailure:
    return ParseFailure("forbidden_syntax", f"{what or type(node).__name__} is not allowed")


# --- the builder -----------------------------------------------------------
class _Builder:
    def __init__(self, text: str, symbol: str, max_depth: int, max_nodes: int,
                 max_exponent: int = MAX_EXPONENT, answer: bool = True,
                 notes: list[str] | None = None) -> None:
        self.text = text
        self.symbol = symbol
        # Real while building (see _to_plain): SymPy's assumption queries on
        # a complex symbol expand (re(x) + I*im(x))**n and can take seconds.
        self.var = sympy.Symbol(symbol, real=True)
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.bounds = _Bounds(self.var, max_exponent)
        self.answer = answer
        self.notes = notes

    # -- pass 1: validate the whole tree before building anything ----------
    def validate(self, root: ast.expr) -> None:
        """Iterative walk (no Python recursion) over the AST: node types, names,
        arities, nesting depth and node count. Nothing is built yet, so hostile
        structure is refused before SymPy sees any of it."""
        stack: list[tuple[ast.expr, int, bool]] = [(root, 1, False)]
        count = 0
        bars = False
        while stack:
            node, depth, condition = stack.pop()
            count += 1
            if count > self.max_nodes:
                raise ParseFailure("too_many_nodes",
                                   f"more than {self.max_nodes} expression nodes")
            if depth > self.max_depth:
                raise ParseFailure("too_deep", f"nesting deeper than {self.max_depth}")
            if condition:
                stack.extend(self._condition_children(node, depth))
            elif _is_piecewise(node):
                stack.extend(self._piecewise_children(node, depth))
            elif isinstance(node, ast.Constant):
                self._check_constant(node)
            elif isinstance(node, ast.Name):
                self._check_value_name(node.id)
            elif isinstance(node, ast.UnaryOp):
                if not isinstance(node.op, (ast.UAdd, ast.USub)):
                    raise _fail_syntax(node, type(node.op).__name__)
                stack.append((node.operand, depth + 1, False))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                # |x| is LaTeX's absolute value, not Python's "or": once the
                # whole tree passed every other check, a syntax error (so the
                # auto mode reads the text as LaTeX), never a content refusal.
                bars = True
                stack.append((node.left, depth + 1, False))
                stack.append((node.right, depth + 1, False))
            elif isinstance(node, ast.BinOp):
                family = _FAMILY.get(type(node.op))
                if family is None:
                    raise _fail_syntax(node, f"operator {type(node.op).__name__}")
                left = node.left
                same = (family != "pow" and isinstance(left, ast.BinOp)
                        and _FAMILY.get(type(left.op)) == family)
                stack.append((left, depth if same else depth + 1, False))
                stack.append((node.right, depth + 1, False))
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute):
                    raise ParseFailure("forbidden_attribute", "attribute access is not allowed")
                if not isinstance(func, ast.Name):
                    raise ParseFailure("not_callable", "only named functions can be called")
                self._check_call(func.id)
                if node.keywords:
                    raise ParseFailure("forbidden_keyword_arg", "keyword arguments are not allowed")
                arities = _FUNCTIONS[func.id][0]
                if len(node.args) not in arities:
                    raise ParseFailure("bad_arity", f"{func.id} takes "
                                       f"{'/'.join(map(str, sorted(arities)))} argument(s)")
                for arg in node.args:
                    stack.append((arg, depth + 1, False))
            elif isinstance(node, ast.Attribute):
                raise ParseFailure("forbidden_attribute", "attribute access is not allowed")
            elif isinstance(node, (ast.JoinedStr, ast.FormattedValue)):
                raise ParseFailure("forbidden_string", "f-strings are not allowed")
            else:
                raise _fail_syntax(node)
        if bars:
            raise ParseFailure("syntax_error", "'|' bars are LaTeX's absolute value, not Python")

    @staticmethod
    def _piecewise_children(node: ast.Call,
                            depth: int) -> list[tuple[ast.expr, int, bool]]:
        """``Piecewise((expr, cond), ...)``: pairs only, at most MAX_PIECES."""
        if node.keywords:
            raise ParseFailure("forbidden_keyword_arg", "keyword arguments are not allowed")
        if not 1 <= len(node.args) <= MAX_PIECES:
            raise ParseFailure("bad_arity", f"Piecewise takes 1 to {MAX_PIECES} pieces")
        out = []
        for pair in node.args:
            if not isinstance(pair, ast.Tuple) or len(pair.elts) != 2:
                raise ParseFailure("bad_arity", "Piecewise takes (expression, condition) pairs")
            out.append((pair.elts[0], depth + 1, False))
            out.append((pair.elts[1], depth + 1, True))
        return out

    @staticmethod
    def _condition_children(node: ast.expr,
                            depth: int) -> list[tuple[ast.expr, int, bool]]:
        """A Piecewise condition: comparisons (chains too), ``True``, and
        ``&``/``|``/``And(...)``/``Or(...)`` of conditions. Relations are
        allowed nowhere else."""
        if isinstance(node, ast.Constant) and node.value is True:
            return []
        if isinstance(node, ast.Compare):
            if not all(type(op) in _RELATIONS for op in node.ops):
                raise ParseFailure("bad_condition", "only <, <=, >, >=, ==, != compare")
            return [(n, depth + 1, False) for n in (node.left, *node.comparators)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            return [(node.left, depth + 1, True), (node.right, depth + 1, True)]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("And", "Or") and node.args and not node.keywords):
            return [(a, depth + 1, True) for a in node.args]
        raise ParseFailure("bad_condition",
                           "a Piecewise condition must compare the variable (x >= 0, "
                           "0 < x < 1, ... & ..., True)")

    def _check_constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, (str, bytes)):
            raise ParseFailure("forbidden_string", "string literals are not allowed")
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            raise ParseFailure("bad_constant", f"{value!r} is not a number")
        if isinstance(value, int) and abs(value) >= 10 ** MAX_LITERAL_DIGITS:
            raise ParseFailure("number_too_large",
                               f"integer literals are limited to {MAX_LITERAL_DIGITS} digits")

    def _check_value_name(self, name: str) -> None:
        if name == self.symbol or name in _CONSTANTS or is_constant_name(name):
            return
        if name.startswith("_"):
            raise ParseFailure("forbidden_name", f"name {name!r} is not allowed")
        if name in _FUNCTIONS:
            raise ParseFailure("function_as_value", f"{name} must be called with arguments")
        if name in _DENIED_NAMES:
            raise ParseFailure("forbidden_name", f"name {name!r} is not allowed")
        if not _SHORT_SYMBOL_RE.match(name):
            raise ParseFailure("unknown_name", f"unknown name {name!r}")

    def _check_call(self, name: str) -> None:
        if name in _INTEGRAL_NAMES:
            # An answer that still asks for the integral is not an answer; it
            # is never evaluated (that would solve the problem for the model).
            raise ParseFailure("echoed_integral", f"the answer still holds {name}(...)")
        if name.startswith("_") or (name in _DENIED_NAMES and name not in _FUNCTIONS
                                    and name != self.symbol):
            raise ParseFailure("forbidden_name", f"name {name!r} is not allowed")
        if name == self.symbol or name not in _FUNCTIONS:
            raise ParseFailure("not_callable", f"{name!r} is not a known function")

    # -- pass 2: build ------------------------------------------------------
    def build_root(self, node: ast.expr) -> sympy.Expr:
        """The whole answer: like :meth:`build`, but an additive constant of
        the top-level sum too large to evaluate (``x**2/2 + 10**10**10``) is
        dropped unbuilt when the answer is an answer (it vanishes under d/dx)
        and other terms hold the variable."""
        if not (self.answer and isinstance(node, ast.BinOp)
                and _FAMILY.get(type(node.op)) == "add"):
            return self.build(node)
        items = []
        while isinstance(node, ast.BinOp) and _FAMILY.get(type(node.op)) == "add":
            items.append((node.op, node.right))
            node = node.left
        items.append((ast.Add(), node))
        terms: list[sympy.Expr] = []
        failure: ParseFailure | None = None
        for op, operand in reversed(items):
            try:
                value = self.build(operand)
            except ParseFailure as exc:
                if (exc.reason not in ("number_too_large", "exponent_too_large")
                        or not self._droppable(operand)):
                    raise
                failure = failure or exc
                continue
            terms.append(self.mul([_NEG_ONE, value]) if isinstance(op, ast.Sub) else value)
        if failure is not None:
            if not any(self.var in t.free_symbols for t in terms):
                raise failure
            if self.notes is not None:
                self.notes.append("huge_constant_dropped")
        return self.add(terms)

    def _droppable(self, node: ast.expr) -> bool:
        """A constant term that is too large because of what evaluating it
        makes (a power, exp of small literals), not because a literal in it
        is itself too large to read (``1e999999999``: refused)."""
        if not self._constant_node(node):
            return False
        powered = False
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) or (isinstance(sub, ast.BinOp)
                                             and isinstance(sub.op, ast.Pow)):
                powered = True
            elif isinstance(sub, ast.Constant):
                try:
                    self.number(sub)
                except ParseFailure:
                    return False
        return powered

    def _constant_node(self, node: ast.expr) -> bool:
        """No name in the subtree but pi, E, e, I (and no call of a name
        that is the variable)."""
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Name) or sub.id == self.symbol:
                if isinstance(sub, ast.Name):
                    return False
                continue
            # validate() refused function names used as values, so a
            # function name here is the callee of a call.
            if sub.id not in _CONSTANTS and sub.id not in _FUNCTIONS:
                return False
        return True

    def condition(self, node: ast.expr) -> sympy.Basic:
        """A validated Piecewise condition, over the variable only."""
        if isinstance(node, ast.Constant):
            return sympy.true
        if isinstance(node, ast.BinOp):
            parts = [self.condition(node.left), self.condition(node.right)]
            return sympy.And(*parts) if isinstance(node.op, ast.BitAnd) else sympy.Or(*parts)
        if isinstance(node, ast.Call):
            parts = [self.condition(a) for a in node.args]
            return sympy.And(*parts) if node.func.id == "And" else sympy.Or(*parts)
        assert isinstance(node, ast.Compare)
        sides = [self.build(n) for n in (node.left, *node.comparators)]
        for side in sides:
            if side.free_symbols - {self.var}:
                raise ParseFailure("bad_condition", "a Piecewise condition may only hold the "
                                   "variable")
            if side.has(sympy.I):
                raise ParseFailure("bad_condition", "a Piecewise condition compares reals")
        relations = [_RELATIONS[type(op)](a, b)
                     for op, a, b in zip(node.ops, sides[:-1], sides[1:], strict=True)]
        return sympy.And(*relations)

    def build(self, node: ast.expr) -> sympy.Expr:
        if _is_piecewise(node):
            assert isinstance(node, ast.Call)
            pairs = [(self.build(pair.elts[0]), self.condition(pair.elts[1]))
                     for pair in node.args]  # type: ignore[attr-defined]
            return _check_built(sympy.Piecewise(*pairs), deep=True, bounds=self.bounds)
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand)
            return self.mul([_NEG_ONE, operand]) if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            family = _FAMILY[type(node.op)]
            if family == "pow":
                return self.pow(self.build(node.left), self.build(node.right))
            # Unroll the left spine of a same-family chain without recursion.
            items = []
            while isinstance(node, ast.BinOp) and _FAMILY.get(type(node.op)) == family:
                items.append((node.op, node.right))
                node = node.left
            first = self.build(node)
            if family == "add":
                terms = [first]
                for op, right in reversed(items):
                    value = self.build(right)
                    terms.append(self.mul([_NEG_ONE, value]) if isinstance(op, ast.Sub) else value)
                return self.add(terms)
            factors = [first]
            for op, right in reversed(items):
                value = self.build(right)
                factors.append(self.pow(value, _NEG_ONE) if isinstance(op, ast.Div) else value)
            return self.mul(factors)
        if isinstance(node, ast.Call):
            args = [self.build(a) for a in node.args]
            name = node.func.id
            _check_constant_args(name, args)
            return _check_built(_FUNCTIONS[name][1](self, args), deep=True, bounds=self.bounds)
        raise _fail_syntax(node)  # unreachable after validate(); kept as a backstop

    def name(self, name: str) -> sympy.Expr:
        if name == self.symbol:
            return self.var
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        return sympy.Symbol(name, real=True)

    def number(self, node: ast.Constant) -> sympy.Expr:
        value = node.value
        if isinstance(value, int):
            return sympy.Integer(value)
        segment = ast.get_source_segment(self.text, node) or repr(value)
        if isinstance(value, complex):
            # ``2.5j`` -> 5/2*I; the real part of a complex literal is always 0.
            return self.mul([self._decimal(segment.rstrip("jJ")), sympy.I])
        return self._decimal(segment)

    @staticmethod
    def _decimal(literal: str) -> sympy.Rational:
        """Exact value of a decimal literal, with its exponent bounded *before*
        any power of ten is computed (``1e999999999`` must not hang)."""
        m = _FLOAT_LITERAL_RE.match(literal.replace("_", ""))
        if m is None:
            raise ParseFailure("syntax_error", f"unsupported number literal {literal[:40]!r}")
        int_part, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "0"
        if len(exp.lstrip("+-")) > 5:
            raise ParseFailure("number_too_large", "float exponent too large")
        mantissa = int_part + frac
        if not mantissa or len(mantissa.lstrip("0")) > MAX_LITERAL_DIGITS:
            raise ParseFailure("number_too_large",
                               f"float literals are limited to {MAX_LITERAL_DIGITS} digits")
        shift = int(exp) - len(frac)
        if abs(shift) > MAX_NUMBER_DIGITS + MAX_LITERAL_DIGITS:
            raise ParseFailure("number_too_large", "float exponent too large")
        n = int(mantissa)
        value = sympy.Rational(n * 10 ** shift) if shift >= 0 else sympy.Rational(n, 10 ** -shift)
        return _check_built(value, deep=False)

    def add(self, terms: list[sympy.Expr]) -> sympy.Expr:
        _check_nonfinite_mix(terms)
        if sum(_mag(t) for t in terms) > 2 * MAX_NUMBER_DIGITS:
            raise ParseFailure("number_too_large", "sum would produce too large numbers")
        return _check_built(sympy.Add(*terms), deep=False, bounds=self.bounds)

    def mul(self, factors: list[sympy.Expr]) -> sympy.Expr:
        _check_nonfinite_mix(factors)
        if sum(_mag(f) for f in factors) > 2 * MAX_NUMBER_DIGITS:
            raise ParseFailure("number_too_large", "product would produce too large numbers")
        if sum(_radical_digits_in_product(f) for f in factors) > MAX_RADICAND_DIGITS:
            raise ParseFailure("number_too_large", "product of radicals too large")
        return _check_built(sympy.Mul(*factors), deep=False, bounds=self.bounds)

    def pow(self, base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
        # All checks happen BEFORE sympy.Pow, which evaluates eagerly.
        _check_nonfinite_mix([base, exponent])
        if not exponent.is_Rational:
            _check_exponent_atoms(exponent, self.bounds)
        if exponent.is_Rational:
            size = abs(float(exponent))
            if base.free_symbols:
                limit = self.bounds.power_limit(base)
                if size > limit:
                    raise ParseFailure("exponent_too_large", "power of a symbolic expression "
                                       f"too large (at most {limit} here)")
            elif size > MAX_CONSTANT_EXPONENT:
                raise ParseFailure("exponent_too_large",
                                   f"exponent of a constant above {MAX_CONSTANT_EXPONENT}")
            # A power of a sum in the variable is never expanded by SymPy;
            # a power of a number or a product computes its coefficient.
            if _mag(base) * size > MAX_NUMBER_DIGITS and not (base.is_Add
                                                              and base.free_symbols):
                raise ParseFailure("number_too_large",
                                   f"power would exceed about 10**{MAX_NUMBER_DIGITS}")
            if not exponent.is_Integer and _radicand_digits(base) > MAX_RADICAND_DIGITS:
                raise ParseFailure("number_too_large", "radicand too large")
        elif exponent.free_symbols:
            # A symbolic exponent makes Pow ask whether it is an integer, even,
            # real... of the exponent (and of the base), which can expand powers
            # for seconds, like function arguments do (see _apply). Built
            # unevaluated; E**u is spelled exp(u) so it prints and compares
            # like SymPy's own exp.
            if base is sympy.E:
                return _check_built(_apply(sympy.exp, [exponent]), deep=False,
                                    bounds=self.bounds)
            return _check_built(sympy.Pow(base, exponent, evaluate=False), deep=False,
                                bounds=self.bounds)
        elif not base.free_symbols:
            # 2**sqrt(2), pi**pi, E**c: a constant tower like a function call.
            _check_constant_args("pow", [base, exponent])
        return _check_built(sympy.Pow(base, exponent), deep=False, bounds=self.bounds)

    def exp(self, arg: sympy.Expr) -> sympy.Expr:
        # exp(c*log(a)) evaluates to a**c, so the argument is an exponent.
        _check_exponent_atoms(arg, self.bounds)
        return _apply(sympy.exp, [arg])


def _to_plain(expr: sympy.Expr) -> sympy.Expr:
    """Swap the real symbols used while building for plain ``Symbol(name)``.

    Everything is built with real symbols because SymPy's evaluation asks
    assumption questions (is this zero, finite, positive?) that, for a complex
    symbol, split powers into real and imaginary parts and expand them:
    ``-x**100/acot(E))**(-sech(x**100))*log2(...)`` took 14 s with a plain x
    and 0.02 s with a real one. The checker treats the variable as real and
    rebinds it anyway, so nothing is lost; callers still receive the plain
    symbols the rest of the package uses.

    The nodes are rebuilt with explicit ``evaluate=False`` (they are already
    evaluated): not ``xreplace`` (which would evaluate again, for the plain
    symbols, at full cost) and not the global ``evaluate(False)`` switch,
    whose results would land in SymPy's shared cache under the keys of
    ordinary evaluated calls.
    """
    memo: dict[sympy.Basic, sympy.Basic] = {}

    def rebuild(e: sympy.Basic) -> sympy.Basic:
        done = memo.get(e)
        if done is not None:
            return done
        if e.is_Symbol:
            out = sympy.Symbol(e.name)
        elif not e.args:
            out = e
        else:
            args = tuple(rebuild(a) for a in e.args)
            if all(new is old for new, old in zip(args, e.args, strict=True)):
                out = e
            elif isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function)):
                out = e.func(*args, evaluate=False)
            else:  # no other node types are built here; keep it correct anyway
                out = e.func(*args)
        memo[e] = out
        return out

    return rebuild(expr)


# --- public API ------------------------------------------------------------
def parse_sympy_text(text: str, symbol: str = "x", *, max_chars: int = 5000,
                     max_depth: int = 60, max_nodes: int = 5000,
                     max_exponent: int = MAX_EXPONENT, answer: bool = True,
                     notes: list[str] | None = None) -> sympy.Expr:
    """Parse a SymPy/Python-syntax math string into a SymPy expression, safely.

    ``symbol`` is the integration variable's name (``"x"``, ``"t"``, ``"X"``);
    it becomes ``sympy.Symbol(symbol)``. ``max_depth`` bounds both bracket
    nesting and expression-tree nesting (a flat ``a+b+c+...`` counts as one
    level); ``max_nodes`` bounds the number of AST expression nodes;
    ``max_exponent`` bounds powers of the variable (names.MAX_EXPONENT for
    answers, MAX_INTEGRAND_EXPONENT for integrands). With ``answer=True`` an
    additive constant of the top-level sum too large to evaluate is dropped
    (``"huge_constant_dropped"`` is appended to ``notes``): it vanishes under
    d/dx. ``Piecewise((expr, cond), ...)`` is read with comparisons of the
    variable as conditions; relations are refused anywhere else.

    Raises :class:`~rewards.check.errors.ParseFailure` (and nothing else) for any
    rejected text; raises ``ValueError`` only for invalid *arguments* of this
    function (a bad ``symbol`` or limit is a programming error, not model text).
    A caller's time limit (``StepTimeout``/``TimeoutError`` raised by a signal
    handler while SymPy works) propagates unchanged.

    >>> parse_sympy_text("t**3/3 + C", symbol="t")
    C + t**3/3
    >>> parse_sympy_text("F(x) = arctan(x)^2")
    atan(x)**2
    """
    if not valid_variable_name(symbol) or symbol in _FUNCTIONS:
        raise ValueError(f"invalid integration variable name {symbol!r}")
    for limit in (max_chars, max_depth, max_nodes):
        if not isinstance(limit, int) or limit < 1:
            raise ValueError("limits must be positive integers")

    if not isinstance(text, str):
        raise ParseFailure("not_text", f"expected str, got {type(text).__name__}")
    if len(text) > max_chars:  # before anything else touches the text
        raise ParseFailure("too_long", f"{len(text)} characters > {max_chars}")
    for ch in text:
        if (ch < " " and ch not in "\t\n\r") or ch == "\x7f":
            raise ParseFailure("bad_character", f"control character {ch!r}")
    text = _unicode_math(text.translate(_UNICODE_MAP))
    if not text.isascii():
        raise ParseFailure("non_ascii", "only ASCII math is accepted (plus π, −, ×, ·, ÷, "
                                        "√, ∛ and superscripts)")
    if "__" in text:
        raise ParseFailure("forbidden_name", "names containing '__' are not allowed")
    if "#" in text or "\\" in text:
        # Comments could hide part of the answer; backslashes only serve line
        # continuations and string escapes (whose warnings CPython prints).
        raise ParseFailure("forbidden_syntax", "'#' and '\\' are not allowed")

    text = equation_rhs(text, symbol)
    text = text.replace("^", "**").strip()
    if not text:
        raise ParseFailure("empty", "no expression")
    if _max_bracket_depth(text) > max_depth:
        raise ParseFailure("too_deep", f"brackets nested deeper than {max_depth}")
    if _LONG_DIGIT_RUN_RE.search(text):
        raise ParseFailure("number_too_large",
                           f"number literals are limited to {MAX_LITERAL_DIGITS} digits")
    if _has_implicit_multiplication(text):
        raise ParseFailure("syntax_error", "implicit multiplication (write 2*x, not 2x)")

    try:
        tree = ast.parse(text, mode="eval")
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure("too_deep", "expression too complex to parse") from exc
    except (SyntaxError, ValueError, Warning) as exc:
        # Warning: only when the host turned warnings into errors.
        raise ParseFailure("syntax_error", f"not a Python expression: {exc}"[:200]) from exc

    builder = _Builder(text, symbol, max_depth, max_nodes, max_exponent, answer, notes)
    builder.validate(tree.body)
    try:
        expr = _to_plain(builder.build_root(tree.body))
    except ParseFailure:
        raise
    except RecursionError as exc:
        raise ParseFailure("too_deep", "expression too deep to build") from exc
    except MemoryError as exc:
        raise ParseFailure("resource_error", "out of memory while building") from exc
    except _PASS_THROUGH:
        raise  # a caller's time limit firing inside SymPy is not a property of the text
    except Exception as exc:  # noqa: BLE001 - SymPy may raise anything; callers need ParseFailure
        raise ParseFailure("math_error", _describe(exc)) from exc
    if not isinstance(expr, sympy.Expr):
        raise ParseFailure("not_an_expression", f"result is {type(expr).__name__}")
    return expr


def _describe(exc: Exception) -> str:
    try:
        detail = str(exc)
    except Exception:  # noqa: BLE001 - e.g. int->str digit limit inside the message
        detail = ""
    return f"{type(exc).__name__}: {detail}"[:200]
