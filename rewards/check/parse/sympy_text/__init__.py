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

import sympy

from ...errors import MATH_ERRORS, ParseFailure, describe
from ...limits import ANSWER, Limits
from ..equation import equation_rhs
from ..names import (
    valid_variable_name,
)
from .builder import _Builder, _to_plain
from .functions import _FUNCTIONS
from .text import (
    _UNICODE_MAP,
    _has_implicit_multiplication,
    _long_digit_run,
    _max_bracket_depth,
    _plain_greek,
    _unicode_math,
)

__all__ = [
    "FUNCTION_NAMES",
    "REASONS",
    "parse_sympy_text",
]

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




# --- public API ------------------------------------------------------------
def parse_sympy_text(text: str, symbol: str = "x", *, limits: Limits = ANSWER,
                     max_chars: int | None = None, max_depth: int | None = None,
                     max_nodes: int | None = None, max_exponent: int | None = None,
                     answer: bool = True, notes: list[str] | None = None) -> sympy.Expr:
    """Parse a SymPy/Python-syntax math string into a SymPy expression, safely.

    ``symbol`` is the integration variable's name (``"x"``, ``"t"``, ``"X"``);
    it becomes ``sympy.Symbol(symbol)``. ``limits`` is the size profile
    (:mod:`rewards.check.limits`: ``ANSWER``, ``INTEGRAND`` or
    ``LATEX_FAST_PATH``); ``max_chars``, ``max_depth`` (bracket nesting and
    expression-tree nesting: a flat ``a+b+c+...`` counts as one level),
    ``max_nodes`` (AST expression nodes) and ``max_exponent`` (powers of the
    variable) override its ``sympy_chars``, ``sympy_depth``, ``sympy_nodes``
    and ``exponent`` when given. With ``answer=True`` an
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
    max_chars = limits.sympy_chars if max_chars is None else max_chars
    max_depth = limits.sympy_depth if max_depth is None else max_depth
    max_nodes = limits.sympy_nodes if max_nodes is None else max_nodes
    max_exponent = limits.exponent if max_exponent is None else max_exponent
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
    text = _plain_greek(_unicode_math(text.translate(_UNICODE_MAP)))
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
    if _long_digit_run(limits.literal_digits).search(text):
        raise ParseFailure("number_too_large",
                           f"number literals are limited to {limits.literal_digits} digits")
    if _has_implicit_multiplication(text):
        raise ParseFailure("syntax_error", "implicit multiplication (write 2*x, not 2x)")

    try:
        tree = ast.parse(text, mode="eval")
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure("too_deep", "expression too complex to parse") from exc
    except (SyntaxError, ValueError, Warning) as exc:
        # Warning: only when the host turned warnings into errors.
        raise ParseFailure("syntax_error", f"not a Python expression: {exc}"[:200]) from exc

    builder = _Builder(text, symbol, max_depth, max_nodes, max_exponent, answer, notes, limits)
    builder.validate(tree.body)
    try:
        expr = _to_plain(builder.build_root(tree.body))
    except ParseFailure:
        raise
    except RecursionError as exc:
        raise ParseFailure("too_deep", "expression too deep to build") from exc
    except MemoryError as exc:
        raise ParseFailure("resource_error", "out of memory while building") from exc
    except TimeoutError:
        raise  # a caller's own time limit firing inside SymPy is not a property of the text
    except MATH_ERRORS as exc:
        # SymPy refusing the math (Heaviside(I)); anything else is a bug of
        # ours and becomes CHECKER_ERROR upstream, never the model's fault.
        raise ParseFailure("math_error", describe(exc)) from exc
    if not isinstance(expr, sympy.Expr):
        raise ParseFailure("not_an_expression", f"result is {type(expr).__name__}")
    return expr
