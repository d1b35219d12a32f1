r"""LaTeX answer -> SymPy expression, for untrusted model output.

Two steps, kept apart so the checker's stage trace can show both:

``canonicalize_latex(text, rules)`` (:mod:`.latex_canon`)
    Named string rewrites that turn the many ways a model writes an
    antiderivative into one dialect ``latex2sympy2_extended`` reads
    correctly.

``parse_latex(canonical, symbol="x")``
    Guards (length, nesting depth, huge exponents, echoed integrals), then
    the parser with symbol lowercasing off and no equation solving, then a
    safety walk over the *unevaluated* tree (numeric exponents, sizes of
    constants, factorial arguments) before anything is evaluated, then a
    rebuild that maps stand-ins to real SymPy functions and evaluates.
    Every failure is a :class:`ParseFailure` with a stable ``reason``.

Quirks of latex2sympy2_extended 1.11 that this module works around
(see ``tests/test_latex_forms.py`` for each one pinned down):

* ``\log x`` is read as base 10 -> ``\log`` without a subscript becomes
  ``\ln`` (in calculus the unadorned log is natural).
* ``\operatorname{NAME}`` only parses for a fixed list of names (arcsinh,
  floor, ...): ``\operatorname{atan}{\left(x \right)}``, exactly what
  ``sympy.latex`` prints, is a syntax error; ``\text{erf}(x+1)`` reads as
  ``erf*(x+1)``; ``\sech x`` reads as ``sec(h*x)``. Known names are
  rewritten to the parser's own commands (``\arctan``), the others (sech,
  erf, Ei, Li, ...) to a stand-in ``\log_{\text{FN<name>}}`` -- a function
  token whose argument the grammar delimits like any other -- which the
  rebuild turns into the SymPy function.
* An unparenthesised argument swallows ``\cdot``, ``*`` and ``/``:
  ``\sin x \cdot \cos x`` is ``sin(x*cos(x))``, ``\ln|x| \cdot x`` is
  ``ln(x*|x|)``; ``\ln{\left(x \right)}^{2}`` (SymPy's ``log(x)**2``) is
  ``log(x**2)``. Every application is rewritten as ``(\head{ARG})``,
  which is also 3-10x faster to parse than ``\head(ARG)``.
* ``e^{u}`` is built with an evaluated ``exp`` that pulls logs out of the
  exponent by their first argument only (``e^{x + \log_3 2}`` -> ``2 e^x``):
  we write ``\exp{u}``, which stays unevaluated.
* A letter before a simple parenthesis is a function call: ``x(x)`` is
  ``Function('x')(x)`` and ``x^2(x)`` is ``x(x)**2``; inside an exponent
  even ``\pi (x)`` is. We insert ``\cdot``.
* ``2\frac{1}{3}`` is a mixed number (7/3) whatever the configuration
  says: we insert ``\cdot``. ``1/2 x^2`` is ``1/(2*x**2)``: numeric
  ``a/b`` becomes ``\frac{a}{b}``.
* Digits separated by spaces are summed (``12 345`` -> 357, ``1 000`` -> 0):
  we join them (TeX ignores spaces in math mode), or insert ``\cdot`` after
  a one-character superscript (``x^2 3``).
* Without the library's normalizer, ``\mathrm{X}`` is a Symbol named
  ``math{X}``, ``\text{e}`` a Symbol ``e`` (bare ``e`` is Euler's number),
  ``I`` the imaginary unit (we make it a Symbol, like ``i``), and
  ``\sqrt x``, ``\frac12``, ``\sin^-1``, ``$``, ``\displaystyle``, ``~`` and
  ``\left(`` are syntax errors.
* The parser is slow on nesting (``{`` nested 20 deep at the top level:
  ~50 s; ``x^{x^{...}}`` 12 deep: ~0.5 s) and builds ``{x}`` as a set, so
  we strip redundant outer brackets and bound nesting before parsing.
"""
from __future__ import annotations

import math
import re

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ParseFailure
from ..timebox import StepTimeout
from .latex_canon import canonicalize_latex
from .latex_functions import FN_PREFIX
from .latex_scan import CMD_AT
from .names import BY_CANONICAL_NAME, FUNCTIONS, MAX_EXPONENT, MAX_FACTORIAL_ARG

__all__ = ["canonicalize_latex", "parse_latex", "warm_up", "MAX_CHARS", "MAX_DEPTH"]

MAX_CHARS = 2000            # canonical text longer than this: "too_long"
MAX_DEPTH = 20              # bracket nesting: "too_deep" (parser time grows steeply)
MAX_SCRIPT_DEPTH = 4        # x^{x^{x^{x^{...}}}}: "too_deep"
MAX_SCRIPT_GROUPS = 40      # braced ^{...} / _{...} groups: "too_deep"
MAX_BARS = 40               # '|' characters: "too_deep"
MAX_CONST_BITS = 12_000     # all exact constants together (bits): "number_too_large"
#                             (str() of an int over 4300 digits raises ValueError)
MAX_ROOT_BASE_BITS = 200    # constant base of a non-integer power (sqrt of a huge
#                             integer makes SymPy hunt for perfect powers: seconds)

_INTEGRAL = re.compile(r"\\(?:iiint|iint|int|oint|intop|smallint)(?![A-Za-z])|\u222b")
_TEXT_EXPONENT = re.compile(r"\^ ?\{? ?[+-]? ?(\d+)")


_SIGN_CHAIN = re.compile(r"[+-](?: ?[+-]){2,}")


def _check_structure(text: str, max_depth: int) -> None:
    """Linear pre-parser scan for shapes the ANTLR parser is slow on.

    The grammar's prediction cost grows steeply with nesting (measured:
    ``{`` nested 20 deep at the top level takes ~50 s) and with nested
    superscripts (``x^{x^{...}}`` 12 deep: ~0.5 s each), so we bound bracket
    depth, superscript nesting, the number of braced scripts and of ``|``,
    and reject TeX's "double superscript" (``x^2^3``, ``x^{2}^{3}``).
    """
    if _SIGN_CHAIN.search(text):
        raise ParseFailure("latex_error", "three or more signs in a row")
    n = len(text)
    stack: list[str] = []           # per open bracket: "^" / "_" for a script group, else ""
    script_depth = script_groups = bars = 0
    i = 0
    while i < n:
        c = text[i]
        if c == "\\":
            m = CMD_AT.match(text, i)
            i = m.end() if m else i + 2
            continue
        if c in "({[":
            stack.append("")
            if len(stack) > max_depth:
                raise ParseFailure("too_deep", f"brackets nested deeper than {max_depth}")
        elif c in ")}]":
            kind = stack.pop() if stack else ""
            if kind:
                script_depth -= 1
                _no_double_script(text, i + 1, kind)
        elif c == "|":
            bars += 1
            if bars > MAX_BARS:
                raise ParseFailure("too_deep", f"more than {MAX_BARS} '|' bars")
        elif c in "^_":
            j = i + 1 + (1 if i + 1 < n and text[i + 1] == " " else 0)
            if j < n and text[j] == "{":
                script_depth += 1
                script_groups += 1
                if script_depth > MAX_SCRIPT_DEPTH:
                    raise ParseFailure("too_deep", f"superscripts nested deeper than "
                                                   f"{MAX_SCRIPT_DEPTH}")
                if script_groups > MAX_SCRIPT_GROUPS:
                    raise ParseFailure("too_deep", f"more than {MAX_SCRIPT_GROUPS} braced "
                                                   f"superscripts/subscripts")
                stack.append(c)
                if len(stack) > max_depth:
                    raise ParseFailure("too_deep", f"brackets nested deeper than {max_depth}")
                i = j + 1
                continue
            if j < n and text[j] == "\\":
                m = CMD_AT.match(text, j)
                end = m.end() if m else j + 2
            else:
                end = j + 1
            _no_double_script(text, end, c)
            i = end
            continue
        i += 1


def _no_double_script(text: str, after: int, kind: str) -> None:
    """TeX rejects x^a^b (x_1^2 is fine); the parser nests such chains deeply."""
    j = after + (1 if after < len(text) and text[after] == " " else 0)
    if j < len(text) and text[j] == kind:
        raise ParseFailure("latex_error", "double superscript or subscript")


def _check_text_exponents(text: str) -> None:
    for m in _TEXT_EXPONENT.finditer(text):
        digits = m.group(1)
        if len(digits) > 4 or int(digits) > MAX_EXPONENT:
            raise ParseFailure("exponent_too_large", f"exponent {digits[:12]} in the text")


_CONVERSION = None


def _conversion_config():
    global _CONVERSION
    if _CONVERSION is None:
        from latex2sympy2_extended.latex2sympy2 import ConversionConfig
        _CONVERSION = ConversionConfig(
            interpret_as_mixed_fractions=False,
            interpret_simple_eq_as_assignment=False,   # no "k = 1 -> 1"
            interpret_contains_as_eq=False,
            lowercase_symbols=False,
        )
    return _CONVERSION


def _call_parser(text: str):
    from latex2sympy2_extended import latex2sympy
    # normalization_config=None: the library's own normalizer would strip
    # quotes, turn "and"/"or" into commas, etc.; canonicalize_latex does the
    # (smaller, documented) job instead.
    return latex2sympy(text, normalization_config=None, conversion_config=_conversion_config())


_NOT_ANSWERS = (sp.Limit, sp.Sum, sp.Product, sp.Order)
_BIG_ARG_FUNCS = (sp.factorial, sp.factorial2, sp.subfactorial, sp.gamma, sp.binomial,
                  sp.RisingFactorial, sp.FallingFactorial, sp.loggamma)


def _number_bits(e: sp.Basic) -> float:
    if e.is_Integer:
        return float(abs(int(e.p)).bit_length() + 1)
    if e.is_Rational:
        return float(abs(int(e.p)).bit_length() + int(e.q).bit_length())
    if e.is_Float:
        # A float's size is its magnitude (exp + bc is about log2|e|); its
        # precision is fixed and does not grow when it is evaluated.
        _sign, _man, exp, bc = e._mpf_ if len(e._mpf_) == 4 else (0, 0, 0, 0)
        return float(abs(exp + bc) + 2)
    return 2.0


def _const_abs(e: sp.Expr, bits: float, what: str) -> float:
    """|value| of a constant subtree whose size is already bounded."""
    if e.is_Number:
        if e.is_finite is False or e is sp.nan:
            raise ParseFailure(what, f"{e} is not a finite number")
        if e.is_Rational:
            return float(min(abs(e), sp.Integer(10) ** 9))
        return abs(float(e))
    if bits > 64:
        raise ParseFailure(what, "constant too large to be an exponent or argument")
    try:
        value = complex(sp.N(e, 15))
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ParseFailure(what, f"cannot bound {e}: {exc}") from None
    mag = abs(value)
    if not math.isfinite(mag):
        raise ParseFailure(what, f"{e} is not finite")
    return mag


def _inspect(e: sp.Basic, total: list[float]) -> float | None:
    """Walk the unevaluated tree; return a size bound (bits) if constant.

    Raises on things that are not answers or that would explode when
    evaluated. Nothing here evaluates a subtree that was not bounded first.
    ``total[0]`` accumulates the sizes of all maximal constant subtrees:
    evaluation may multiply them together (``10^{999} \\cdot 10^{999} ...``).
    """
    if isinstance(e, sp.Integral):
        raise ParseFailure("echoed_integral", "answer contains an unevaluated integral")
    if isinstance(e, _NOT_ANSWERS):
        raise ParseFailure("not_an_expression", f"{type(e).__name__} is not an antiderivative")
    if not isinstance(e, sp.Expr) or isinstance(e, sp.MatrixExpr):
        raise ParseFailure("not_an_expression", f"{type(e).__name__} inside the expression")
    if e.is_Atom:
        if e.is_Number:
            bits = _number_bits(e)
            if bits > MAX_CONST_BITS:
                raise ParseFailure("number_too_large", "a number is too large")
            return bits
        if isinstance(e, sp.Symbol):
            return None
        return 2.0                      # pi, E, oo, I, ...
    child = [_inspect(a, total) for a in e.args]
    constant = all(c is not None for c in child)
    bits: float | None = None
    if isinstance(e, (sp.Pow, sp.exp)):
        if isinstance(e, sp.Pow):
            base_bits, exp_node, exp_bits = child[0], e.args[1], child[1]
        else:
            base_bits, exp_node, exp_bits = 2.0, e.args[0], child[0]
        power = None
        if exp_bits is not None:
            power = _const_abs(exp_node, exp_bits, "exponent_too_large")
            if power > MAX_EXPONENT:
                raise ParseFailure("exponent_too_large", f"exponent {power:.4g}")
            if (base_bits is not None and base_bits > MAX_ROOT_BASE_BITS
                    and not exp_node.is_Integer):
                raise ParseFailure("number_too_large", "non-integer power of a huge constant")
        if constant:
            bits = (base_bits or 2.0) * max(1.0, power or 1.0) + 2.0
    elif isinstance(e, _BIG_ARG_FUNCS):
        biggest = 1.0
        for arg, b in zip(e.args, child, strict=True):
            if b is not None:
                n = _const_abs(arg, b, "number_too_large")
                if n > MAX_FACTORIAL_ARG:
                    raise ParseFailure("number_too_large",
                                       f"{type(e).__name__} of {n:.4g}")
                biggest = max(biggest, n)
        if constant:
            bits = sum(child) + biggest * max(1.0, math.log2(biggest)) + 2.0
    elif constant:
        bits = sum(child) + len(child)
    if bits is not None and bits > MAX_CONST_BITS:
        raise ParseFailure("number_too_large", "a constant is too large")
    if not constant:
        total[0] += sum(b for b in child if b is not None)
        if total[0] > MAX_CONST_BITS:
            raise ParseFailure("number_too_large", "the constants are too large together")
    return bits


def _undef_name(f: AppliedUndef) -> str:
    name = f.func.__name__
    m = re.fullmatch(r"\\?(?:text|mathrm|operatorname|mathit|textrm)?\{?([A-Za-z]+)\}?", name)
    return m.group(1) if m else name


def _rebuild(e: sp.Basic, symbol: str) -> sp.Basic:
    """Map stand-ins and names to SymPy objects and evaluate, bottom-up."""
    if e.is_Atom:
        if isinstance(e, sp.Symbol):
            if e.name == "e" and symbol != "e":
                return sp.E
            return e
        if e is sp.I:
            return sp.Symbol("I")      # like i: a letter, not the imaginary unit
        return e
    if isinstance(e, sp.UnevaluatedExpr):
        return _rebuild(e.args[0], symbol)
    if (isinstance(e, sp.log) and len(e.args) == 2 and isinstance(e.args[1], sp.Symbol)
            and e.args[1].name.startswith(FN_PREFIX)):
        fname = e.args[1].name[len(FN_PREFIX):]
        arg = _rebuild(e.args[0], symbol)
        if fname.startswith("polylog") and fname[7:].isdigit():
            return sp.polylog(int(fname[7:]), arg)
        func = BY_CANONICAL_NAME.get(fname)
        if func is None:
            raise ParseFailure("latex_error", f"unknown function {fname}")
        return func(arg)
    args = [_rebuild(a, symbol) for a in e.args]
    if isinstance(e, AppliedUndef):
        name = _undef_name(e)
        if name == "polylog" and len(args) == 2:
            return sp.polylog(*args)
        func = FUNCTIONS.get(name)
        if func is not None and len(args) == 1:
            return _apply(func, args)
        return sp.Function(name)(*args)
    if isinstance(e, sp.Function):
        return _apply(e.func, args)
    return e.func(*args)


def _apply(func, args: list[sp.Basic]) -> sp.Basic:
    # As the SymPy-text parser does: a function of the variable stays as
    # written (exp(2 log x) is not x**2 yet), so the domain rule can read the
    # answer as the model wrote it; rebinding the variable evaluates it.
    if func is sp.log and len(args) == 2 and args[1] is sp.E:
        args = args[:1]  # the grammar's \ln is log base e
    return func(*args, evaluate=not any(a.free_symbols for a in args))


def parse_latex(canonical: str, symbol: str = "x", *, max_chars: int = MAX_CHARS,
                max_depth: int = MAX_DEPTH) -> sp.Expr:
    r"""Parse canonical LaTeX (from :func:`canonicalize_latex`) to a SymPy Expr.

    Raises :class:`ParseFailure` with reason ``empty``, ``too_long``,
    ``too_deep``, ``echoed_integral``, ``exponent_too_large``,
    ``number_too_large``, ``not_an_expression`` or ``latex_error``.

    >>> parse_latex(canonicalize_latex(r"\frac{x^3}{3} + \ln|x| + C", []))
    x**3/3 + log(Abs(x))
    """
    if not isinstance(canonical, str):
        raise ParseFailure("latex_error", f"expected text, got {type(canonical).__name__}")
    text = canonical.strip()
    if not text:
        raise ParseFailure("empty", "nothing to parse")
    if len(text) > max_chars:
        raise ParseFailure("too_long", f"{len(text)} characters (limit {max_chars})")
    _check_structure(text, max_depth)
    if _INTEGRAL.search(text):
        raise ParseFailure("echoed_integral", "the answer still contains an integral sign")
    _check_text_exponents(text)
    try:
        raw = _call_parser(text)
    except StepTimeout:
        raise
    except RecursionError:
        raise ParseFailure("latex_error", "parser recursion limit") from None
    except Exception as exc:  # noqa: BLE001 - the library raises bare Exception
        message = str(exc).split("\n")[0][:200] or type(exc).__name__
        raise ParseFailure("latex_error", message) from None
    if raw is None:
        raise ParseFailure("latex_error", "parser returned nothing")
    if not isinstance(raw, sp.Expr) or isinstance(raw, sp.MatrixExpr):
        raise ParseFailure("not_an_expression", f"parsed to a {type(raw).__name__}")
    try:
        _inspect(raw, [0.0])
        expr = _rebuild(raw, symbol)
    except (ParseFailure, StepTimeout):
        raise
    except RecursionError:
        raise ParseFailure("too_deep", "expression too deeply nested") from None
    except Exception as exc:  # noqa: BLE001 - SymPy evaluation of odd trees
        raise ParseFailure("latex_error", f"{type(exc).__name__}: {str(exc)[:200]}") from None
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixExpr):
        raise ParseFailure("not_an_expression", f"evaluated to a {type(expr).__name__}")
    if expr.has(sp.Integral):
        raise ParseFailure("echoed_integral", "answer contains an unevaluated integral")
    return expr


_WARM_UP_FORMS = (
    r"\frac{x^{2}}{2} + C", r"-\cos x + C", r"\ln|x+1| + C", r"x e^{x} - e^{x}",
    r"\frac{1}{2}\sin^2 x", r"\tan^{-1}(x/2)/2", r"\frac{(x+1)^{5}}{5}", r"x^{3/2}",
    r"\frac{\sqrt{\pi} \operatorname{erf}{\left(x \right)}}{2}", r"\log{\left(x \right)}^{2}",
    r"\sqrt{x^{2} + 1}", r"e^{-2x}(x+1)",
)


def warm_up() -> None:
    """Fill the parser's prediction cache with typical answers.

    The first parse in a process takes ~200 ms and each new shape of answer
    some tens of ms, later ones ~5 ms: call this from a worker initializer.
    """
    for text in _WARM_UP_FORMS:
        try:
            parse_latex(canonicalize_latex(text, []))
        except ParseFailure:
            pass
