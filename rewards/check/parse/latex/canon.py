r"""LaTeX answer -> the one dialect latex2sympy2_extended reads correctly.

``canonicalize_latex(text, rules)`` applies plain string rewrites, each a
named rule: every rule that changes the text appends its name to ``rules``
(once), so the checker's stage trace shows what was done to the answer. All
regexes are linear (no nested quantifiers) and runs of whitespace are
collapsed first, so ``\s?`` never backtracks far. The library quirks each rule
works around are listed in :mod:`rewards.check.parse.latex`.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ...errors import ParseFailure
from ...function_facts import LATEX_LETTERS, ORDER_CALLS
from ...limits import ANSWER
from ..equation import equation_rhs
from ..names import GREEK_VARIANTS, SUPERSCRIPT_RUN, superscript_text
from .functions import FN_PREFIX, delimit_arguments, order_stand_in, rename_functions
from .scan import bracket_matches, collapse_ws, command_before, letters_start, script_end, splice

# --------------------------------------------------------------------------
# Canonicalization rules: each takes the text and returns the new text.
# --------------------------------------------------------------------------

_UNICODE = str.maketrans({
    "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u00b7": r" \cdot ", "\u22c5": r" \cdot ",
    "\u00d7": r" \times ", "\u2217": "*", "\u00f7": "/", "\u03c0": r" \pi ",
    "\u221a": r"\sqrt ", "\u221b": r"\sqrt[3]", "\u221c": r"\sqrt[4]",
    "\u222b": r"\int ", "\u221e": r"\infty ", "\u2223": "|", "\u2044": "/",
    "\u212f": "e", "\u00a0": " ", "\u2009": " ",
    "\u200a": " ", "\u202f": " ", "\u2002": " ", "\u2003": " ", "\u200b": "",
})


def _rule_python_power(t: str) -> str:
    # Models mix Python's ** into LaTeX answers (``\frac{2}{3}\cos(8x)**3``);
    # LaTeX has no ** at all, so it can only mean a power.
    return t.replace("**", "^")


def _rule_unicode(t: str) -> str:
    # x\u00b9\u2070 is x^{10}, x\u207b\u00b9 is x^{-1}: a run of superscripts at a time.
    t = SUPERSCRIPT_RUN.sub(lambda m: "^{" + superscript_text(m.group(0)) + "}", t)
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
        j = bracket_matches(t).get(m.end() - 1)
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
    return collapse_ws(_SPACING.sub(" ", t))


# \lfloor u \rfloor and \lceil u \rceil: the functions floor and ceiling.
_FLOOR_OPEN = re.compile(r"(?:\\left ?)?\\l(floor|ceil)(?![A-Za-z])")
_FLOOR_CLOSE = re.compile(r"(?:\\right ?)?\\r(?:floor|ceil)(?![A-Za-z])")


def _rule_floor_brackets(t: str) -> str:
    if "floor" not in t and "ceil" not in t:
        return t
    return _FLOOR_CLOSE.sub(r"\\right)", _FLOOR_OPEN.sub(r"\\operatorname{\1}\\left(", t))


# Variant Greek letters are the same letter: \varphi is the variable phi.
_GREEK_VARIANT = re.compile(r"\\var(" + "|".join(GREEK_VARIANTS) + r")(?![A-Za-z])")


def _rule_greek_variant(t: str) -> str:
    return _GREEK_VARIANT.sub(r"\\\1", t)


# sympy.latex prints some functions as a letter (the registry's latex_letter:
# fresnels as S\left(x\right), LambertW as W\left(x\right)). Only with
# \left( -- a model's C(x+1) stays a product.
_SYMPY_LETTER_FUNCS = re.compile(
    r"(?<![A-Za-z\\_^])([" + "".join(LATEX_LETTERS) + r"]) ?(?=\\left ?\()")


def _rule_sympy_letter_functions(t: str) -> str:
    return _SYMPY_LETTER_FUNCS.sub(
        lambda m: r"\log_{\text{" + FN_PREFIX + LATEX_LETTERS[m.group(1)] + "}}", t)


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


_SQRT_SHORT = re.compile(r"\\sqrt ?(\[\d\]) ?([0-9A-Za-z]|\\pi(?![A-Za-z]))|"
                         r"\\sqrt ?([0-9A-Za-z]|\\pi(?![A-Za-z]))")
_SQRT_PAREN = re.compile(r"\\sqrt ?(\[\d\])? ?\(")


def _rule_sqrt_shorthand(t: str) -> str:
    # \sqrt x, \sqrt[3]x (from \u221b), \sqrt(x+1): the argument in braces.
    t = _SQRT_SHORT.sub(lambda m: r"\sqrt" + (m.group(1) or "") + "{"
                        + (m.group(2) or m.group(3)) + "}", t)
    if not _SQRT_PAREN.search(t):
        return t
    match = bracket_matches(t)
    edits: list[tuple[int, int, str]] = []
    last = 0
    for m in _SQRT_PAREN.finditer(t):
        open_ = m.end() - 1
        close = match.get(open_)
        if close is None or open_ < last:
            continue
        edits.append((m.start(), close + 1,
                      r"\sqrt" + (m.group(1) or "") + "{" + t[open_ + 1:close] + "}"))
        last = close + 1
    return splice(t, edits)


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
        if command_before(t, start + 1) is not None:
            return t
    head = t[:start].rstrip()
    if head.endswith(("+", "-")):
        # x^2 + dx: a term d x (a parameter named d), not a differential.
        return t
    head = _MUL_TAIL.sub("", head).rstrip()
    return head or t


_DIFFERENTIAL = (r"(?:\\(?:mathrm|text|operatorname|mathit|rm) ?\{ ?d ?\}|\{ ?\\rm ?d ?\}|"
                 r"(?<![A-Za-z\\])d)")
_NUMERATOR_DIFF = re.compile(r"\\[dtc]?frac ?\{(?P<num>(?:[^{}]|\{[^{}]*\})*?)"
                             r"(?:\\[,;:! ]| )*" + _DIFFERENTIAL + r" ?(?P<var>[A-Za-z]) ?\}")


def differential_in_numerator(text: str, symbol: str) -> str:
    r"""An integrand written as ``\frac{dx}{x(x^5+1)}`` or ``\frac{x\,dx}{1+x^2}``:
    the differential in the numerator is dropped (``\frac{1}{...}``,
    ``\frac{x}{...}``), once, and only when the text has no differential of
    its own at the end (then a ``d`` in a numerator is a parameter).

    >>> differential_in_numerator(r"\frac{dx}{x(x^5+1)},", "x")
    '\\frac{1}{x(x^5+1)},'
    >>> differential_in_numerator(r"\frac{dx}{2} \, dx", "x")
    '\\frac{dx}{2} \\, dx'
    """
    found = [m for m in _NUMERATOR_DIFF.finditer(text) if m.group("var") == symbol]
    if len(found) != 1:
        return text
    head = _rule_trailing_punctuation(_rule_spacing(text))
    if _rule_strip_dx(head) != head:
        return text
    m = found[0]
    numerator = m.group("num").strip() or "1"
    return text[:m.start()] + r"\frac{" + numerator + "}" + text[m.end():]


_CONST_TAIL = re.compile(
    r"[+-] ?(?:(?:C|c|K)(?:_ ?\{ ?\d{1,3} ?\}|_ ?\d)?"
    r"|\\(?:text|mathrm|mathit|textrm|mathcal|mathbf|operatorname|mathnormal) ?\{ ?"
    r"(?:C|c|K|const\.?|constant|Const|Constant)(?:_ ?\{? ?\d{1,3} ?\}?)? ?\}"
    r"|const\.?|constant) ?$")


def _constant_tail(t: str, symbol: str | None) -> re.Match[str] | None:
    """The trailing ``+ C`` of ``t``, unless ``C`` is the variable (then
    ``x^3/3 + c`` in the variable ``c`` ends with a term, not a constant)."""
    m = _CONST_TAIL.search(t)
    if not m or not t[:m.start()].strip():
        return None
    if symbol is not None and re.sub(r"\\[A-Za-z]+|[^A-Za-z]", "", m.group(0)) == symbol:
        return None
    return m


def _rule_trailing_constant(t: str, symbol: str | None = None) -> str:
    m = _constant_tail(t, symbol)
    return t if m is None else t[:m.start()].rstrip()


# What may stand before a trailing "+ C" for it to be a term of its own:
# the end of an operand, not an operator (x^-C, x**-C raise C).
_OPERAND_END = re.compile(r"[\w)}\]|!.']\s*$")
_COMMAND_END = re.compile(r"\\[A-Za-z]+\s*$")     # \cdot + C: keep the text as it is


def without_integration_constant(text: str, symbol: str | None = None) -> str:
    r"""``text`` without a trailing integration constant (``+ C``, ``- C_1``,
    ``+ \text{const}``), for deduplicating answers before they are checked:
    ``F`` and ``F + C`` have one derivative, so one verdict. Either syntax,
    raw or canonical; the text unchanged when the tail is not a term of its
    own, or is the variable.

    >>> without_integration_constant(r"\frac{x^2}{2} + C")
    '\\frac{x^2}{2}'
    >>> without_integration_constant("x**-C")
    'x**-C'
    """
    stripped = text.rstrip()
    m = _constant_tail(" ".join(stripped[-80:].split()), symbol)
    if m is None:
        return text
    # The match is on the tail with its spaces collapsed: find its sign in
    # the original text by counting back the same non-space characters.
    tail = m.group(0).replace(" ", "")
    count, cut = 0, len(stripped)
    while count < len(tail) and cut > 0:
        cut -= 1
        if not stripped[cut].isspace():
            count += 1
    head = stripped[:cut]
    if not head.strip() or not _OPERAND_END.search(head) or _COMMAND_END.search(head):
        return text
    return head.rstrip()


_SCRIPT_SIGN = re.compile(r"([\^_]) ?([+-]) ?(\d+)")
_SCRIPT_ONE = re.compile(r"([\^_]) ?\{ ?([0-9A-DF-Za-df-z]) ?\}(?![0-9A-Za-z])")
_SCRIPT_E = re.compile(r"\^ ?e(?![A-Za-z])")


def _rule_script_braces(t: str) -> str:
    # x^-1, \sin^-1 x: TeX would raise only the sign; everyone means ^{-1}.
    # x^{2} -> x^2: the same thing, and the parser is twice as fast on it.
    # x^e stays (or becomes) x^{e}: the grammar reads a bare e after ^ as
    # an error (its Euler-e token is not a script atom).
    t = _SCRIPT_ONE.sub(r"\1\2", _SCRIPT_SIGN.sub(r"\1{\2\3}", t))
    return _SCRIPT_E.sub("^{e}", t) if "^" in t else t


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
        if command_before(t, j - 1):           # a superscript: whose?
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


# polylog(3, x), \operatorname{polylog}(3, x): a call of a function with an
# order (function_facts.ORDER_CALLS), order first, as the stand-in of Li_3(x).
_ORDER_NAMES = "|".join(sorted(ORDER_CALLS, key=len, reverse=True))
_ORDER_CALL = re.compile(
    rf"(?:\\(?:operatorname|text|mathrm) ?\{{ ?({_ORDER_NAMES}) ?\}}|\\?({_ORDER_NAMES})) ?\( ?(\d{{1,3}}) ?,")


def _rule_order_call(t: str) -> str:
    return _ORDER_CALL.sub(
        lambda m: r"\log_{\text{" + FN_PREFIX
        + order_stand_in(ORDER_CALLS[m.group(1) or m.group(2)], m.group(3)) + "}}(", t)


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
    match = bracket_matches(t)
    edits: list[tuple[int, int, str]] = []
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
            edits.append((i, i, r"\cdot "))
            continue
        if not t[j].isalnum():
            continue
        k = letters_start(t, j)
        if k > 0 and t[k - 1] == "\\" and t[k:j + 1] not in _GREEK_LIKE:
            continue                          # \Gamma(x), \max(a, b), ...
        if t[j].isalpha() and k > 0 and t[k - 1] == "_":
            continue
        edits.append((i, i, r"\cdot "))
    return splice(t, edits)


_EXP_CARET = re.compile(r"e ?\^")




def _rule_exp_power(t: str, depth: int = 0) -> str:
    r"""``e^{u}`` -> ``\exp{u}``, nested ones too (``e^{|e^{u}|}``).

    The parser builds ``e^{u}`` with an *evaluated* ``exp``, which pulls
    logarithms out of the exponent by their first argument only:
    ``e^{x + \log_{3} 2}`` became ``2 e^x`` and ``e^{\operatorname{erf}(x)}``
    became ``x``. ``\exp`` is built unevaluated.
    """
    if "e" not in t or "^" not in t or depth > ANSWER.exp_nesting:
        return t
    match: dict[int, int] | None = None
    edits: list[tuple[int, int, str]] = []
    pos = 0
    for m in _EXP_CARET.finditer(t):
        if m.start() < pos:
            continue
        if command_before(t, m.start() + 1) is not None:
            continue                          # inside a command name
        if match is None:
            match = bracket_matches(t)
        end = script_end(t, m.end(), match)
        if end is None:
            continue
        script = t[m.end():end].strip()
        if script.startswith("{"):
            script = _rule_exp_power(script[1:-1], depth + 1)
        edits.append((m.start(), end, r"\exp{" + script + "}"))
        pos = end
    return splice(t, edits)


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
    match = bracket_matches(t)
    lo, hi = 0, len(t) - 1
    while lo < hi and t[lo] in "({" and match.get(lo) == hi:
        lo, hi = lo + 1, hi - 1
        while lo < hi and t[lo] == " ":
            lo += 1
        while hi > lo and t[hi] == " ":
            hi -= 1
    return t[lo:hi + 1]


# (Plain dots are punctuation: trailing ones are dropped, others do not parse.)
_ELLIPSIS = re.compile(r"\\(?:[lc]?dots[bcmio]?|[vd]dots|dotsi)(?![A-Za-z])|\u2026|\u22ef")

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
    ("greek_variant", _rule_greek_variant),
    ("floor_brackets", _rule_floor_brackets),
    ("sympy_letter_function", _rule_sympy_letter_functions),
    ("left_right", _rule_left_right),
    ("abs_bars", _rule_abs_bars),
    ("frac_variant", _rule_frac_variant),
    ("frac_shorthand", _rule_frac_shorthand),
    ("sqrt_shorthand", _rule_sqrt_shorthand),
    ("script_braces", _rule_script_braces),
    ("digit_space", _rule_digit_space),
]
_TAIL: list[tuple[str, _Rule]] = [
    ("trailing_punctuation", _rule_trailing_punctuation),
    ("strip_dx", _rule_strip_dx),
    ("trailing_constant", _rule_trailing_constant),   # given the variable, below
]
_AFTER: list[tuple[str, _Rule]] = [
    ("euler_e", _rule_euler_e),
    ("roman_letter", _rule_roman_letter),
    ("order_call", _rule_order_call),
]
_FINAL: list[tuple[str, _Rule]] = [
    ("exp_power", _rule_exp_power),
    ("function_arguments", delimit_arguments),
    ("implicit_product", _rule_implicit_product),
    ("slash_fraction", _rule_slash_fraction),
    ("mixed_fraction_guard", _rule_mixed_fraction_guard),
    ("outer_parens", _rule_outer_parens),
]


def canonicalize_latex(text: str, rules: list[str], symbol: str | None = None) -> str:
    r"""Rewrite a LaTeX answer into the dialect :func:`.grammar.parse_latex` reads.

    Appends the name of every rule that changed the text to ``rules``.
    ``symbol`` (the integration variable) lets the equation rule refuse
    ``F(t) = ...`` for another variable (see :func:`.equation.equation_rhs`).

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
    if len(text) > ANSWER.latex_input_chars:
        raise ParseFailure("too_long", f"{len(text)} characters")
    if _ELLIPSIS.search(text):
        # \sqrt{x \sqrt{x \cdots}} is an infinite expression, not a formula
        # (and \cdots used to read as \cdot s: a stray symbol s).
        raise ParseFailure("ellipsis", "an expression with an ellipsis is not a finite formula")
    fired: list[str] = []

    def run(name: str, rule: _Rule, t: str) -> str:
        new = rule(t)
        if new != t and name not in fired:
            fired.append(name)
        return new

    tail = [(name, functools.partial(rule, symbol=symbol) if rule is _rule_trailing_constant
             else rule) for name, rule in _TAIL]

    def run_tail(t: str) -> str:
        for _ in range(4):
            before = t
            for name, rule in tail:
                t = run(name, rule, t)
            if t == before:
                break
        return t

    t = collapse_ws(text)
    for name, rule in _PIPELINE:
        t = run(name, rule, t)
    t = run_tail(t)
    t = run("lhs_equation", lambda u: equation_rhs(u, symbol), t)
    t = run_tail(t)
    for name, rule in _AFTER:
        t = run(name, rule, t)
    names: set[str] = set()
    t = rename_functions(t, names)
    for name in ("operatorname", "bare_function_name", "function_alias", "natural_log",
                 "special_function"):
        if name in names:
            fired.append(name)
    for name, rule in _FINAL:
        # A bare argument ends after the factor that holds the variable.
        t = run(name, functools.partial(rule, symbol=symbol) if rule is delimit_arguments
                else rule, t)
    rules.extend(fired)
    return collapse_ws(t)
