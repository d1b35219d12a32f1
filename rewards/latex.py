r"""LaTeX answer -> SymPy expression, for untrusted model output.

Two steps, kept apart so the checker's stage trace can show both:

``canonicalize_latex(text, rules)``
    Plain string rewrites that turn the many ways a model writes an
    antiderivative into one dialect ``latex2sympy2_extended`` reads
    correctly. Every rewrite that changes the text appends its name to
    ``rules`` (once). All regexes are linear: no nested quantifiers, and
    runs of whitespace are collapsed first so ``\s?`` never backtracks far.

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
from collections.abc import Callable

import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import ParseFailure
from .timebox import StepTimeout

__all__ = ["canonicalize_latex", "parse_latex", "warm_up", "MAX_CHARS", "MAX_DEPTH",
           "MAX_EXPONENT"]

MAX_CHARS = 2000            # canonical text longer than this: "too_long"
MAX_INPUT_CHARS = 10_000    # canonicalize refuses raw text longer than this
MAX_DEPTH = 20              # bracket nesting: "too_deep" (parser time grows steeply)
MAX_SCRIPT_DEPTH = 4        # x^{x^{x^{x^{...}}}}: "too_deep"
MAX_SCRIPT_GROUPS = 40      # braced ^{...} / _{...} groups: "too_deep"
MAX_BARS = 40               # '|' characters: "too_deep"
MAX_EXPONENT = 1000         # |numeric exponent|: "exponent_too_large"
MAX_CONST_BITS = 12_000     # all exact constants together (bits): "number_too_large"
#                             (str() of an int over 4300 digits raises ValueError)
MAX_ROOT_BASE_BITS = 200    # constant base of a non-integer power (sqrt of a huge
#                             integer makes SymPy hunt for perfect powers: seconds)
MAX_FACTORIAL_ARG = 1000    # n!, Gamma(n), binomial(n, k) with constant n

# Stand-in for a function the grammar does not know: \log_{\text{FN<name>}}.
_FN_PREFIX = "FN"

# --------------------------------------------------------------------------
# Function-name tables
# --------------------------------------------------------------------------

# Commands the grammar reads as functions with a delimited argument.
_NATIVE = frozenset({
    "sin", "cos", "tan", "csc", "sec", "cot", "sinh", "cosh", "tanh",
    "arcsin", "arccos", "arctan", "arccsc", "arcsec", "arccot",
    "arcsinh", "arccosh", "arctanh", "exp", "ln", "log",
})
# Other spellings of those.
_ALIASES = {
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "acsc": "arccsc",
    "asec": "arcsec", "acot": "arccot", "arctg": "arctan", "tg": "tan",
    "ctg": "cot", "cotg": "cot", "cosec": "csc",
    "asinh": "arcsinh", "arsinh": "arcsinh", "argsinh": "arcsinh",
    "acosh": "arccosh", "arcosh": "arccosh", "argcosh": "arccosh",
    "atanh": "arctanh", "artanh": "arctanh", "argtanh": "arctanh",
}
# Functions the grammar does not know: name as written -> canonical name.
_SPECIAL_NAMES = {
    "sech": "sech", "csch": "csch", "cosech": "csch", "coth": "coth",
    "asech": "asech", "arsech": "asech", "arcsech": "asech",
    "acsch": "acsch", "arcsch": "acsch", "arccsch": "acsch", "arcosech": "acsch",
    "acoth": "acoth", "arcoth": "acoth", "arccoth": "acoth",
    "erf": "erf", "erfc": "erfc", "erfi": "erfi",
    "Ei": "Ei", "li": "li", "Li": "Li", "Si": "Si", "Ci": "Ci", "Shi": "Shi", "Chi": "Chi",
    "sgn": "sign", "sign": "sign", "LambertW": "LambertW",
    "fresnels": "fresnels", "fresnelc": "fresnelc",
}
# Canonical special name -> SymPy function (one argument).
_SPECIAL_FUNCS: dict[str, Callable[..., sp.Expr]] = {
    "sech": sp.sech, "csch": sp.csch, "coth": sp.coth,
    "asech": sp.asech, "acsch": sp.acsch, "acoth": sp.acoth,
    "erf": sp.erf, "erfc": sp.erfc, "erfi": sp.erfi,
    "Ei": sp.Ei, "li": sp.li, "Li": sp.Li, "Si": sp.Si, "Ci": sp.Ci,
    "Shi": sp.Shi, "Chi": sp.Chi, "sign": sp.sign, "LambertW": sp.LambertW,
    "fresnels": sp.fresnels, "fresnelc": sp.fresnelc,
}
# f^{-1} for special names means the inverse function.
_SPECIAL_INVERSE = {"sech": "asech", "csch": "acsch", "coth": "acoth"}
# Fallback for applied undefined functions that reach the rebuild anyway.
_UNDEF_FUNCS: dict[str, Callable[..., sp.Expr]] = {
    **_SPECIAL_FUNCS,
    "asin": sp.asin, "acos": sp.acos, "atan": sp.atan, "acot": sp.acot,
    "asec": sp.asec, "acsc": sp.acsc, "arcsin": sp.asin, "arccos": sp.acos,
    "arctan": sp.atan, "arccot": sp.acot, "arcsec": sp.asec, "arccsc": sp.acsc,
    "asinh": sp.asinh, "acosh": sp.acosh, "atanh": sp.atanh,
    "arsinh": sp.asinh, "arcosh": sp.acosh, "artanh": sp.atanh,
    "arcsinh": sp.asinh, "arccosh": sp.acosh, "arctanh": sp.atanh,
    "arsech": sp.asech, "arcsch": sp.acsch, "arcoth": sp.acoth,
    "arcsech": sp.asech, "arccsch": sp.acsch, "arccoth": sp.acoth,
    "cosech": sp.csch, "sgn": sp.sign,
}
# Bare words (no backslash) we read as functions: only unambiguous ones.
_BARE_OK = frozenset(
    n for n in (*_NATIVE, *_ALIASES, *_SPECIAL_NAMES) if len(n) >= 3
) | {"ln"}
# Heads whose argument we delimit ourselves (after renaming, all functions
# are one of these; stand-ins are \log_{...}).
_HEADS = _NATIVE | {"arsinh", "arcosh", "artanh"}
# Commands that end an unparenthesised function argument.
_ARG_STOP_CMDS = frozenset({
    "cdot", "times", "div", "pm", "mp", "quad", "qquad", "le", "leq", "ge", "geq",
    "ne", "neq", "approx", "to", "in", "int", "sum", "prod", "lim", "right",
    "rbrace", "rangle", "end", "text", "mathrm", "operatorname",
})

# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

_WS = re.compile(r"\s+")


def _collapse_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _bracket_matches(s: str) -> dict[int, int]:
    r"""Positions of matching (), [], {} (both directions), one linear pass.

    Escaped ``\{``/``\}`` are not brackets. Unmatched brackets are absent.
    """
    pairs = {")": "(", "]": "[", "}": "{"}
    stacks: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    match: dict[int, int] = {}
    for i, c in enumerate(s):
        if c in stacks:
            if i and s[i - 1] == "\\":
                continue
            stacks[c].append(i)
        elif c in pairs:
            if i and s[i - 1] == "\\":
                continue
            st = stacks[pairs[c]]
            if st:
                j = st.pop()
                match[j] = i
                match[i] = j
    return match


_CMD_AT = re.compile(r"\\([A-Za-z]+)")


def _script_end(s: str, i: int, match: dict[int, int]) -> int | None:
    """End index of a TeX script argument starting at ``i`` (after ^ or _)."""
    n = len(s)
    if i < n and s[i] == " ":
        i += 1
    if i >= n:
        return None
    c = s[i]
    if c == "{":
        j = match.get(i)
        return None if j is None else j + 1
    if c == "\\":
        m = _CMD_AT.match(s, i)
        return m.end() if m else i + 2
    if c in "+-" and i + 1 < n and s[i + 1].isdigit():
        return i + 2
    return i + 1


# --------------------------------------------------------------------------
# Canonicalization rules: each takes the text and returns the new text.
# --------------------------------------------------------------------------

_UNICODE = str.maketrans({
    "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u00b7": r" \cdot ", "\u22c5": r" \cdot ",
    "\u00d7": r" \times ", "\u2217": "*", "\u00f7": "/", "\u03c0": r" \pi ",
    "\u221a": r"\sqrt ", "\u222b": r"\int ", "\u221e": r"\infty ", "\u00b2": "^{2}",
    "\u00b3": "^{3}", "\u00b9": "^{1}", "\u212f": "e", "\u00a0": " ", "\u2009": " ",
    "\u200a": " ", "\u202f": " ", "\u2002": " ", "\u2003": " ", "\u200b": "",
})


def _rule_python_power(t: str) -> str:
    # Models mix Python's ** into LaTeX answers (``\frac{2}{3}\cos(8x)**3``);
    # LaTeX has no ** at all, so it can only mean a power.
    return t.replace("**", "^")


def _rule_unicode(t: str) -> str:
    return t.translate(_UNICODE)


_MATH_DELIMS = re.compile(r"\\\$|\$|\\[()\[\]]")


def _rule_math_delimiters(t: str) -> str:
    return _MATH_DELIMS.sub(" ", t)


_STYLE = re.compile(r"\\(?:displaystyle|textstyle|scriptstyle|scriptscriptstyle|limits|nolimits)"
                    r"(?![A-Za-z])")


def _rule_displaystyle(t: str) -> str:
    return _STYLE.sub(" ", t)


_BOXED_HEAD = re.compile(r"^\\(?:boxed|fbox)\s?\{")


def _rule_boxed(t: str) -> str:
    # Only a box around the whole answer (extraction normally removed it).
    for _ in range(3):
        m = _BOXED_HEAD.match(t)
        if not m:
            break
        j = _bracket_matches(t).get(m.end() - 1)
        if j is None or t[j + 1:].strip():
            break
        t = t[m.end():j].strip()
    return t


_SPACING = re.compile(
    r"\\\\|\\[,;:!> ]|~|\\q?quad(?![A-Za-z])"
    r"|\\(?:enspace|thinspace|medspace|thickspace|negthinspace|negmedspace|negthickspace)"
    r"(?![A-Za-z])|\\hspace\*?\{[^{}]*\}"
)


def _rule_spacing(t: str) -> str:
    return _collapse_ws(_SPACING.sub(" ", t))


# sympy.latex prints fresnels/fresnelc/LambertW as S\left(x\right), C\left(x\right),
# W\left(x\right). Only with \left( -- a model's C(x+1) stays a product.
_SYMPY_LETTER_FUNCS = re.compile(r"(?<![A-Za-z\\_^])([SCW]) ?(?=\\left ?\()")
_LETTER_FUNC_NAMES = {"S": "fresnels", "C": "fresnelc", "W": "LambertW"}


def _rule_sympy_letter_functions(t: str) -> str:
    return _SYMPY_LETTER_FUNCS.sub(
        lambda m: r"\log_{\text{" + _FN_PREFIX + _LETTER_FUNC_NAMES[m.group(1)] + "}}", t)


_LEFT_RIGHT_DOT = re.compile(r"\\(?:left|right|middle) ?\.")
_LEFT_RIGHT = re.compile(r"\\(?:left|right|middle|[bB]igg?[lrm]?)(?![A-Za-z])")


def _rule_left_right(t: str) -> str:
    return _LEFT_RIGHT.sub("", _LEFT_RIGHT_DOT.sub(" ", t))


_ABS_BARS = re.compile(r"\\(?:[lr]?vert|mid)(?![A-Za-z])")


def _rule_abs_bars(t: str) -> str:
    return _ABS_BARS.sub("|", t)


_FRAC_VARIANT = re.compile(r"\\[dtc]frac(?![A-Za-z])")


def _rule_frac_variant(t: str) -> str:
    return _FRAC_VARIANT.sub(r"\\frac", t)


_FRAC_TWO = re.compile(r"\\frac ?([0-9A-Za-z]) ?([0-9A-Za-z])")
_FRAC_FIRST = re.compile(r"\\frac ?([0-9A-Za-z]) ?\{")
_FRAC_SECOND = re.compile(r"\\frac ?(\{[^{}]*\}) ?([0-9A-Za-z])")


def _rule_frac_shorthand(t: str) -> str:
    t = _FRAC_TWO.sub(r"\\frac{\1}{\2}", t)
    t = _FRAC_FIRST.sub(r"\\frac{\1}{", t)
    return _FRAC_SECOND.sub(r"\\frac\1{\2}", t)


_SQRT_SHORT = re.compile(r"\\sqrt ?([0-9A-Za-z]|\\pi(?![A-Za-z]))")
_SQRT_PAREN = re.compile(r"\\sqrt ?\(")


def _rule_sqrt_shorthand(t: str) -> str:
    t = _SQRT_SHORT.sub(r"\\sqrt{\1}", t)
    if not _SQRT_PAREN.search(t):
        return t
    match = _bracket_matches(t)
    out, last = [], 0
    for m in _SQRT_PAREN.finditer(t):
        open_ = m.end() - 1
        close = match.get(open_)
        if close is None or open_ < last:
            continue
        out.append(t[last:m.start()] + r"\sqrt{" + t[open_ + 1:close] + "}")
        last = close + 1
    out.append(t[last:])
    return "".join(out)


_TRAILING_TEXT = re.compile(
    r"(?:, ?|\\q?quad ?| )*(?:\\(?:text|mbox|textrm|mathrm|textnormal) ?\{ ?\(?"
    r"|(?<![A-Za-z\\]))(?:where|for|with|here|if|assuming|valid|when|such)(?![A-Za-z])")


_TRAILING_CONDITION = re.compile(
    r"(?:, ?| )\(? ?[A-Za-z](?:_ ?\{? ?\d{1,3} ?\}?)? ?"
    r"(?:\\in|\\neq|\\ne|\\geq|\\leq|\\ge|\\le|\\gt|\\lt|>|<)(?![A-Za-z])[^=()]*\)? ?$")


def _rule_trailing_text(t: str) -> str:
    m = _TRAILING_TEXT.search(t)
    if m and m.start() > 0:
        t = t[:m.start()].strip()
    # ", C \in \mathbb{R}", "(x > 0)": a condition after the answer. Only the
    # last 80 characters are searched, so hostile text stays linear.
    offset = max(0, len(t) - 80)
    m = _TRAILING_CONDITION.search(t, offset)
    if m and t[:m.start()].strip():
        t = t[:m.start()].strip()
    return t


def _rule_lhs_equation(t: str) -> str:
    r"""Keep the right-hand side of the last top-level ``=``.

    ``F(x) = ...``, ``y = ...`` and ``\int f dx = ...`` all become the RHS;
    an empty RHS keeps the left. A top-level comma or semicolon means a
    list (``x = 1, y = 2``): left alone, so it parses as a set and fails.
    """
    depth, last_eq = 0, -1
    for i, c in enumerate(t):
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif depth == 0:
            if c in ",;":
                return t
            if c == "=":
                prev = t[i - 1] if i else ""
                if prev in "<>!":
                    return t
                last_eq = i
    if last_eq < 0:
        return t
    rhs = t[last_eq + 1:].strip()
    if rhs:
        return rhs
    lhs = t[:last_eq].rstrip(" =:")
    return lhs.strip()


def _rule_trailing_punctuation(t: str) -> str:
    end = len(t)
    while end and t[end - 1] in ".,;: ":
        end -= 1
    return t[:end]


_DIFF_TAIL = re.compile(
    r"(\\(?:mathrm|text|operatorname|mathit|rm|mathop|textrm) ?\{ ?d ?\}|\{ ?\\rm ?d ?\}|d)"
    r" ?([A-Za-z])$")
_MUL_TAIL = re.compile(r"(?:\\cdot|\\times|\*) ?$")


def _rule_strip_dx(t: str) -> str:
    m = _DIFF_TAIL.search(t)
    if not m:
        return t
    start = m.start()
    if m.group(1) == "d":
        # "d" must not be the tail of a command such as \mod or \dd.
        j = start
        while j and t[j - 1].isalpha():
            j -= 1
        if j and t[j - 1] == "\\":
            return t
    head = t[:start].rstrip()
    head = _MUL_TAIL.sub("", head).rstrip()
    return head or t


_CONST_TAIL = re.compile(
    r"[+-] ?(?:(?:C|c|K)(?:_ ?\{ ?\d{1,3} ?\}|_ ?\d)?"
    r"|\\(?:text|mathrm|mathit|textrm|mathcal|mathbf|operatorname|mathnormal) ?\{ ?"
    r"(?:C|c|K|const\.?|constant|Const|Constant)(?:_ ?\{? ?\d{1,3} ?\}?)? ?\}"
    r"|const\.?|constant) ?$")


def _rule_trailing_constant(t: str) -> str:
    m = _CONST_TAIL.search(t)
    if not m or not t[:m.start()].strip():
        return t
    return t[:m.start()].rstrip()


_SCRIPT_SIGN = re.compile(r"([\^_]) ?([+-]) ?(\d+)")
_SCRIPT_ONE = re.compile(r"([\^_]) ?\{ ?([0-9A-Za-z]) ?\}(?![0-9A-Za-z])")


def _rule_script_braces(t: str) -> str:
    # x^-1, \sin^-1 x: TeX would raise only the sign; everyone means ^{-1}.
    # x^{2} -> x^2: the same thing, and the parser is twice as fast on it.
    return _SCRIPT_ONE.sub(r"\1\2", _SCRIPT_SIGN.sub(r"\1{\2\3}", t))


_DIGIT_SPACE = re.compile(r"(\d) (?=\d)")


def _rule_digit_space(t: str) -> str:
    def repl(m: re.Match[str]) -> str:
        j = m.start(1)
        while j and t[j - 1].isdigit():
            j -= 1
        if not j or t[j - 1] not in "^_":
            return m.group(1)                  # 1 000 -> 1000 (as TeX renders)
        if t[j - 1] == "_":
            return m.group(0)                  # \log_3 2: base, then argument
        k = j - 1                              # a superscript: whose?
        while k and t[k - 1].isalpha():
            k -= 1
        if k and t[k - 1] == "\\" and k < j - 1:
            return m.group(0)                  # \sin^2 3x: power of a function
        return m.group(1) + r" \cdot "         # x^2 3 -> x^2 \cdot 3
    return _DIGIT_SPACE.sub(repl, t)


_EULER_E = re.compile(
    r"\\(?:mathrm|textrm|operatorname|mathit|mathnormal|rm|textup|textnormal) ?\{ ?e ?\}"
    r"|\{ ?\\rm ?e ?\}|\\mathrm ?e(?![A-Za-z])|\\exponentialE(?![A-Za-z])")
_ROMAN_LETTER = re.compile(
    r"\\(?:mathrm|textrm|operatorname|mathit|mathnormal|rm|textup|textnormal|mathsf|textit)"
    r" ?\{ ?([A-Za-z]) ?\}|\{ ?\\rm ?([A-Za-z]) ?\}")


def _rule_euler_e(t: str) -> str:
    # Upright e: the parser reads \text{e} as Symbol("e"), which parse_latex
    # maps to E unless e is the integration variable. (A bare e is E already.)
    return _EULER_E.sub(r"\\text{e}", t)


def _rule_roman_letter(t: str) -> str:
    # \mathrm{x} is x (the parser would make a Symbol named "math{x}").
    return _ROMAN_LETTER.sub(lambda m: m.group(1) or m.group(2), t)


_POLYLOG_CALL = re.compile(
    r"(?:\\(?:operatorname|text|mathrm) ?\{ ?polylog ?\}|\\?polylog) ?\( ?(\d{1,3}) ?,")


def _rule_polylog_call(t: str) -> str:
    return _POLYLOG_CALL.sub(
        lambda m: r"\log_{\text{" + _FN_PREFIX + "polylog" + m.group(1) + "}}(", t)


_FUNC_NAME = re.compile(
    r"(?P<wrap>\\(?:operatorname\*?|mathrm|text|textrm|textup|textnormal|mathit|rm|mathop)"
    r" ?\{ ?(?P<wname>[A-Za-z]+) ?\})"
    r"|\\(?P<cmd>[A-Za-z]+)"
    r"|(?P<bare>[A-Za-z]+)")
_LI_ORDER = re.compile(r" ?_ ?(?:\{ ?(\d{1,3}) ?\}|(\d))")
_INV_POWER = re.compile(r" ?\^ ?(?:\{ ?-1 ?\}|-1)")
_LOG_SUB = re.compile(r" ?_")


def _rule_function_names(t: str, fired: set[str]) -> str:
    """Rename every function spelling to one the grammar reads correctly."""
    out: list[str] = []
    pos = 0
    for m in _FUNC_NAME.finditer(t):
        if m.start() < pos:
            continue
        kind = "wrap" if m.group("wrap") else "cmd" if m.group("cmd") else "bare"
        name = m.group("wname") or m.group("cmd") or m.group("bare")
        if kind == "bare" and name not in _BARE_OK:
            continue
        end = m.end()
        repl = None
        if name in _NATIVE or name in _ALIASES:
            target = _ALIASES.get(name, name)
            if target == "log" and _LOG_SUB.match(t, end):
                repl = r"\log"                  # explicit base: \log_2, \log_{10}
            elif target == "log":
                repl = r"\ln"
                fired.add("natural_log")
            else:
                repl = "\\" + target
            if target != name:
                fired.add("function_alias")
        elif name in _SPECIAL_NAMES:
            canon = _SPECIAL_NAMES[name]
            order = _LI_ORDER.match(t, end) if canon == "Li" else None
            inv = _INV_POWER.match(t, end) if canon in _SPECIAL_INVERSE else None
            if order:
                canon = "polylog" + (order.group(1) or order.group(2))
                end = order.end()
            elif inv:
                canon = _SPECIAL_INVERSE[canon]
                end = inv.end()
            repl = r"\log_{\text{" + _FN_PREFIX + canon + "}}"
            fired.add("special_function")
        if repl is None:
            continue
        if kind == "wrap":
            fired.add("operatorname")
        elif kind == "bare":
            fired.add("bare_function_name")
        out.append(t[pos:m.start()])
        out.append(repl + (" " if t[end:end + 1].isalnum() else ""))
        pos = end
    out.append(t[pos:])
    return _collapse_ws("".join(out))


def _scan_bare_argument(s: str, k: int, match: dict[int, int], next_bar: list[int],
                        apps: dict[int, tuple[int, int, str] | None]) -> int | None:
    r"""End of an unparenthesised function argument starting at ``k``.

    Consumes factors (letters, digits, groups, scripts, commands such as
    \frac or \sqrt) and stops at a top-level operator, closing bracket,
    ``\cdot``/``\times``, another function, or ``e^``. A function as the
    first factor (``\sin \cos x``) is taken whole, from ``apps``. Returns
    ``None`` when the argument should be left to the grammar.
    """
    n = len(s)
    i, consumed = k, 0
    while i < n:
        c = s[i]
        if c == " ":
            i += 1
        elif c in "{([":
            j = match.get(i)
            if j is None:
                return None
            i, consumed = j + 1, consumed + 1
        elif c == "\\":
            m = _CMD_AT.match(s, i)
            if not m:
                break
            name = m.group(1)
            if name in _HEADS:
                if consumed:
                    break
                app = apps.get(i)
                if app is None:
                    return None
                i, consumed = app[1], 1
                continue
            if name in _ARG_STOP_CMDS:
                break
            i, consumed = m.end(), consumed + 1
        elif c in "^_":
            j = _script_end(s, i + 1, match)
            if j is None:
                return None
            i, consumed = j, consumed + 1
        elif c == "|":
            if consumed:
                break
            j = next_bar[i + 1] if i + 1 < n else -1
            if j < 0:
                return None
            i, consumed = j + 1, 1
        elif c.isalnum() or c == ".":
            if c == "e" and consumed:
                rest = s[i + 1:i + 3].lstrip()
                if rest.startswith("^"):
                    break
            i, consumed = i + 1, consumed + 1
        elif c in "+-" and consumed == 0:
            i += 1
        elif c in "!'" and consumed:
            i += 1
        else:
            break
    if not consumed:
        return None
    while i > k and s[i - 1] == " ":
        i -= 1
    return i


def _rule_function_arguments(t: str) -> str:
    r"""Delimit every function application as ``(\head{ARG})``.

    The grammar lets an unparenthesised argument run on through ``\cdot``,
    ``*`` and ``/``, reads ``\ln{(x)}^{2}`` as ``ln(x**2)``, and is several
    times slower on ``\sin(x)`` than on ``(\sin{x})``. So:

    * ``\sin x \cdot \cos x`` -> ``(\sin{x}) \cdot (\cos{x})``
    * ``\ln{(x )}^{2}`` (SymPy's (log x)**2) -> ``(\ln{(x )})^{2}``
    * ``\sin(x+1)^2`` -> ``(\sin{x+1})^2``
    * ``\sin \cos x`` -> ``(\sin{(\cos{x})})``
    """
    if "\\" not in t:
        return t
    match = _bracket_matches(t)
    n = len(t)
    next_bar = [-1] * (n + 1)
    for i in range(n - 1, -1, -1):
        next_bar[i] = i if t[i] == "|" else next_bar[i + 1]
    heads = [m for m in _CMD_AT.finditer(t) if m.group(1) in _HEADS]
    # head start -> (argument start, application end, kind); right to left so
    # an inner application is known before the one whose argument it is.
    apps: dict[int, tuple[int, int, str] | None] = {}
    for m in reversed(heads):
        j = m.end()
        for _ in range(2):
            k = j + 1 if j < n and t[j] == " " else j
            if k < n and t[k] in "_^":
                end = _script_end(t, k + 1, match)
                if end is None:
                    break
                j = end
            else:
                break
        k = j + 1 if j < n and t[j] == " " else j
        app: tuple[int, int, str] | None = None
        if k < n and t[k] in "({":
            close = match.get(k)
            if close is not None:
                app = (k, close + 1, t[k])
        elif k < n:
            end = _scan_bare_argument(t, k, match, next_bar, apps)
            if end is not None and end > k:
                app = (k, end, "bare")
        apps[m.start()] = app
    # (position, order, replaced length, text): at one position, closings
    # (innermost first), then replacements, then openings (outermost first).
    edits: list[tuple[int, tuple[int, int], int, str]] = []
    for head_start, app in apps.items():
        if app is None:
            continue
        arg_start, app_end, kind = app
        edits.append((head_start, (2, head_start), 0, "("))
        if kind == "(":
            edits.append((arg_start, (1, 0), 1, "{"))
            edits.append((app_end - 1, (1, 0), 1, "}"))
            edits.append((app_end, (0, -head_start), 0, ")"))
        elif kind == "{":
            edits.append((app_end, (0, -head_start), 0, ")"))
        else:
            edits.append((arg_start, (2, head_start), 0, "{"))
            edits.append((app_end, (0, -head_start), 0, "})"))
    if not edits:
        return t
    edits.sort(key=lambda e: (e[0], e[1]))
    out, pos = [], 0
    for start, _order, length, text in edits:
        if start < pos:            # overlapping edit: give up, keep the text
            return t
        out.append(t[pos:start])
        out.append(text)
        pos = start + length
    out.append(t[pos:])
    return "".join(out)


_GREEK_LIKE = frozenset({
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "varpi", "rho", "varrho",
    "sigma", "varsigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega",
    "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega", "infty",
})


def _rule_implicit_product(t: str) -> str:
    r"""``x(x)``, ``x^2(x)``, ``\pi(x)`` -> explicit ``\cdot``.

    The grammar reads a letter (or Greek command) followed by a simple
    parenthesised list as a function call: ``x^2(x)`` is ``x(x)**2`` and,
    inside an exponent, ``\pi (x+1)`` is ``\pi(x+1)``. An answer has no
    named functions of its own, so a parenthesis after a letter or digit is
    a product.
    """
    if "(" not in t:
        return t
    match = _bracket_matches(t)
    out, pos = [], 0
    for i, c in enumerate(t):
        if c != "(" or not i:
            continue
        j = i - 1 if t[i - 1] != " " else i - 2
        if j < 0:
            continue
        if t[j] == "}":
            # x^{2x}(x): a braced superscript, then a parenthesis
            o = match.get(j)
            if o is None or o == 0 or t[o - 1 if t[o - 1] != " " else o - 2] != "^":
                continue
            out.append(t[pos:i])
            out.append(r"\cdot ")
            pos = i
            continue
        if not t[j].isalnum():
            continue
        k = j
        while k > 0 and t[k - 1].isalpha():
            k -= 1
        if k > 0 and t[k - 1] == "\\" and t[k:j + 1] not in _GREEK_LIKE:
            continue                          # \Gamma(x), \max(a, b), ...
        if t[j].isalpha() and k > 0 and t[k - 1] == "_":
            continue
        out.append(t[pos:i])
        out.append(r"\cdot ")
        pos = i
    if not out:
        return t
    out.append(t[pos:])
    return "".join(out)


_EXP_CARET = re.compile(r"e ?\^")


def _rule_exp_power(t: str) -> str:
    r"""``e^{u}`` -> ``\exp{u}``.

    The parser builds ``e^{u}`` with an *evaluated* ``exp``, which pulls
    logarithms out of the exponent by their first argument only:
    ``e^{x + \log_{3} 2}`` became ``2 e^x`` and ``e^{\operatorname{erf}(x)}``
    became ``x``. ``\exp`` is built unevaluated.
    """
    if "e" not in t or "^" not in t:
        return t
    match: dict[int, int] | None = None
    out, pos = [], 0
    for m in _EXP_CARET.finditer(t):
        if m.start() < pos:
            continue
        k = m.start()
        while k > 0 and t[k - 1].isalpha():
            k -= 1
        if k > 0 and t[k - 1] == "\\":
            continue                          # inside a command name
        if match is None:
            match = _bracket_matches(t)
        end = _script_end(t, m.end(), match)
        if end is None:
            continue
        script = t[m.end():end].strip()
        if script.startswith("{"):
            script = script[1:-1]
        out.append(t[pos:m.start()])
        out.append(r"\exp{" + script + "}")
        pos = end
    if not out:
        return t
    out.append(t[pos:])
    return "".join(out)


_SLASH_FRACTION = re.compile(r"(?<![\^_\w.}\)\]])(\d+) ?/ ?(\d+)(?![\d.^_])")


def _rule_slash_fraction(t: str) -> str:
    return _SLASH_FRACTION.sub(r"\\frac{\1}{\2}", t)


_MIXED = re.compile(r"(?<![\^_\d])(\d+) ?(?=\\frac(?![A-Za-z]))")


def _rule_mixed_fraction_guard(t: str) -> str:
    return _MIXED.sub(r"\1 \\cdot ", t)


def _rule_outer_parens(t: str) -> str:
    # A parenthesis or brace around the whole answer is a grouping, not a
    # tuple, interval or set; the parser is ~10x slower when it has to decide
    # that (and {x} alone would be a set).
    t = t.strip()
    match = _bracket_matches(t)
    lo, hi = 0, len(t) - 1
    while lo < hi and t[lo] in "({" and match.get(lo) == hi:
        lo, hi = lo + 1, hi - 1
        while lo < hi and t[lo] == " ":
            lo += 1
        while hi > lo and t[hi] == " ":
            hi -= 1
    return t[lo:hi + 1]


# Order matters: spacing before anything that looks at neighbours, \left
# before brackets are matched, the tail rules before and after the
# equation split, renaming before argument delimiting.
_Rule = Callable[[str], str]
_PIPELINE: list[tuple[str, _Rule]] = [
    ("unicode", _rule_unicode),
    ("python_power", _rule_python_power),
    ("math_delimiters", _rule_math_delimiters),
    ("displaystyle", _rule_displaystyle),
    ("spacing", _rule_spacing),
    ("boxed", _rule_boxed),
    ("sympy_letter_function", _rule_sympy_letter_functions),
    ("left_right", _rule_left_right),
    ("abs_bars", _rule_abs_bars),
    ("frac_variant", _rule_frac_variant),
    ("frac_shorthand", _rule_frac_shorthand),
    ("sqrt_shorthand", _rule_sqrt_shorthand),
    ("script_braces", _rule_script_braces),
    ("digit_space", _rule_digit_space),
    ("trailing_text", _rule_trailing_text),
]
_TAIL: list[tuple[str, _Rule]] = [
    ("trailing_punctuation", _rule_trailing_punctuation),
    ("strip_dx", _rule_strip_dx),
    ("trailing_constant", _rule_trailing_constant),
]
_AFTER: list[tuple[str, _Rule]] = [
    ("euler_e", _rule_euler_e),
    ("roman_letter", _rule_roman_letter),
    ("polylog_call", _rule_polylog_call),
]
_FINAL: list[tuple[str, _Rule]] = [
    ("exp_power", _rule_exp_power),
    ("function_arguments", _rule_function_arguments),
    ("implicit_product", _rule_implicit_product),
    ("slash_fraction", _rule_slash_fraction),
    ("mixed_fraction_guard", _rule_mixed_fraction_guard),
    ("outer_parens", _rule_outer_parens),
]


def canonicalize_latex(text: str, rules: list[str]) -> str:
    r"""Rewrite a LaTeX answer into the dialect :func:`parse_latex` reads.

    Appends the name of every rule that changed the text to ``rules``.

    >>> rules = []
    >>> canonicalize_latex(r"F(x) = \dfrac{x^{2}}{2} + C", rules)
    '\\frac{x^2}{2}'
    >>> rules
    ['frac_variant', 'script_braces', 'trailing_constant', 'lhs_equation']
    >>> canonicalize_latex(r"\log\left|x\right| \, dx", [])
    '\\ln{|x|}'
    """
    if not isinstance(text, str):
        raise ParseFailure("latex_error", f"expected text, got {type(text).__name__}")
    if len(text) > MAX_INPUT_CHARS:
        raise ParseFailure("too_long", f"{len(text)} characters")
    fired: list[str] = []

    def run(name: str, rule: _Rule, t: str) -> str:
        new = rule(t)
        if new != t and name not in fired:
            fired.append(name)
        return new

    def run_tail(t: str) -> str:
        for _ in range(4):
            before = t
            for name, rule in _TAIL:
                t = run(name, rule, t)
            if t == before:
                break
        return t

    t = _collapse_ws(text)
    for name, rule in _PIPELINE:
        t = run(name, rule, t)
    t = run_tail(t)
    t = run("lhs_equation", _rule_lhs_equation, t)
    t = run_tail(t)
    for name, rule in _AFTER:
        t = run(name, rule, t)
    names: set[str] = set()
    t = _rule_function_names(t, names)
    for name in ("operatorname", "bare_function_name", "function_alias", "natural_log",
                 "special_function"):
        if name in names:
            fired.append(name)
    for name, rule in _FINAL:
        t = run(name, rule, t)
    rules.extend(fired)
    return _collapse_ws(t)


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------

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
            m = _CMD_AT.match(text, i)
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
                m = _CMD_AT.match(text, j)
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
            and e.args[1].name.startswith(_FN_PREFIX)):
        fname = e.args[1].name[len(_FN_PREFIX):]
        arg = _rebuild(e.args[0], symbol)
        if fname.startswith("polylog") and fname[7:].isdigit():
            return sp.polylog(int(fname[7:]), arg)
        func = _SPECIAL_FUNCS.get(fname)
        if func is None:
            raise ParseFailure("latex_error", f"unknown function {fname}")
        return func(arg)
    args = [_rebuild(a, symbol) for a in e.args]
    if isinstance(e, AppliedUndef):
        name = _undef_name(e)
        if name == "polylog" and len(args) == 2:
            return sp.polylog(*args)
        func = _UNDEF_FUNCS.get(name)
        if func is not None and len(args) == 1:
            return func(*args)
        return sp.Function(name)(*args)
    return e.func(*args)


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
