r"""LaTeX answer -> SymPy expression, for untrusted model output.

Two steps, kept apart so the checker's stage trace can show both:

``canonicalize_latex(text, rules)`` (:mod:`.canon`)
    Named string rewrites that turn the many ways a model writes an
    antiderivative into one dialect ``latex2sympy2_extended`` reads
    correctly.

``parse_latex(canonical, symbol="x")``
    Guards (length, term count, nesting depth, echoed integrals), then
    either the plain-expression path (:mod:`.to_python`: the text written
    as Python and built by the safe SymPy-syntax parser, for the large
    majority of answers) or the grammar, with symbol lowercasing off and no
    equation solving, on :func:`grammar_friendly` text, a long sum in
    chunks of terms; then a safety walk over the *unevaluated* tree
    (exponents by what they cost, sizes of constants, factorial arguments)
    before anything is evaluated, then a rebuild that maps stand-ins to
    real SymPy functions and evaluates, decimals read exactly.
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

import re

import sympy as sp
from sympy.core.function import AppliedUndef

from ...errors import MATH_ERRORS, ParseFailure, describe
from ...function_facts import ORDER_CALLS
from ...limits import ANSWER, LATEX_FAST_PATH
from ..names import (
    BY_CANONICAL_NAME,
    FUNCTIONS,
)
from ..sympy_text import parse_sympy_text
from .canon import canonicalize_latex
from .functions import FN_PREFIX, HEADS, check_order, read_order_stand_in
from .guards import (
    _INTEGRAL,
    _check_structure,
    _Guard,
    _inspect_terms,
)
from .scan import CMD_AT, bracket_matches, command_at, command_before, script_end, splice
from .sums import _chunks, _top_terms
from .to_python import to_python

__all__ = ["canonicalize_latex", "parse_latex", "warm_up"]

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


_DECIMAL = re.compile(r"\d*\.\d+|\d+\.")


def exact_decimals(expr: sp.Expr, text: str) -> sp.Expr:
    r"""Decimal literals as the exact numbers they name.

    The grammar makes ``2.2`` a binary Float; the SymPy-text parser reads it
    as 11/5. So that a decimal means the same number in the integrand and
    in the answer, whatever their syntax (``\ln|x + 2.2|`` for
    ``1/(x + 2.2)``), every Float of the parse that equals a decimal literal
    of the text becomes that literal's exact value. A Float the grammar
    computed (``e^{0.5}`` inside an exponent) matches no literal and stays.

    >>> exact_decimals(sp.Float("2.2") * sp.Symbol("x"), "2.2x")
    11*x/5
    """
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    literals: list[tuple[sp.Float, sp.Rational]] = []
    for m in _DECIMAL.finditer(text):
        digits = m.group(0).replace(".", "").lstrip("0")
        if len(digits) > ANSWER.decimal_digits:
            raise ParseFailure("number_too_large", "decimal literal with too many digits")
        literals.append((sp.Float(m.group(0)), sp.Rational(m.group(0))))
    mapping = {}
    for f in floats:
        for value, exact in literals:
            if f == value:
                mapping[f] = exact
                break
    return expr.xreplace(mapping) if mapping else expr


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
        ordered = read_order_stand_in(fname)
        if ordered is not None:
            func, order = ordered
            check_order(func, sp.Integer(order))
            return func(order, arg)
        func = BY_CANONICAL_NAME.get(fname)
        if func is None:
            raise ParseFailure("latex_error", f"unknown function {fname}")
        return func(arg)
    args = [_rebuild(a, symbol) for a in e.args]
    if isinstance(e, AppliedUndef):
        name = _undef_name(e)
        ordered_call = ORDER_CALLS.get(name)
        if ordered_call is not None and len(args) == 2:
            check_order(ordered_call, args[0])
            return ordered_call(*args)
        func = FUNCTIONS.get(name)
        if func is not None and len(args) == 1:
            return _apply(func, args)
        return sp.Function(name)(*args)
    if isinstance(e, sp.Function):
        return _apply(e.func, args)
    return e.func(*args)


def _finite_sums_written_out(e: sp.Basic, rules: list[str] | None) -> sp.Basic:
    r"""``\sum_{k=0}^{44} \binom{44}{k} (-1)^k x^{k+1}/(k+1)`` (a polynomial written
    as a sum with integer bounds) as its terms, unevaluated, so the size guards
    see every one of them before anything is computed; a sum with other bounds,
    or more than :data:`ANSWER.terms` terms, stays a ``Sum`` (not an answer)."""
    if not e.has(sp.Sum):
        return e

    def written_out(node: sp.Sum) -> sp.Basic:
        if len(node.limits) != 1:
            return node
        k, lo, hi = node.limits[0]
        if not (lo.is_Integer and hi.is_Integer) or not 0 <= hi - lo < ANSWER.terms:
            return node
        with sp.evaluate(False):
            terms = [node.function.xreplace({k: sp.Integer(i)})
                     for i in range(int(lo), int(hi) + 1)]
            out = sp.Add(*terms) if terms else sp.Integer(0)
        if rules is not None and "finite_sum_written_out" not in rules:
            rules.append("finite_sum_written_out")
        return out

    return e.replace(lambda n: isinstance(n, sp.Sum), written_out)


def _apply(func, args: list[sp.Basic]) -> sp.Basic:
    # As the SymPy-text parser does: a function of the variable stays as
    # written (exp(2 log x) is not x**2 yet), so the domain rule can read the
    # answer as the model wrote it; rebinding the variable evaluates it.
    if func is sp.log and len(args) == 2 and args[1] is sp.E:
        args = args[:1]  # the grammar's \ln is log base e
    return func(*args, evaluate=not any(a.free_symbols for a in args))


def parse_latex(canonical: str, symbol: str = "x", *, max_chars: int = ANSWER.latex_chars,
                max_depth: int = ANSWER.latex_depth, max_exponent: int = ANSWER.exponent,
                answer: bool = True, rules: list[str] | None = None) -> sp.Expr:
    r"""Parse canonical LaTeX (from :func:`canonicalize_latex`) to a SymPy Expr.

    Raises :class:`ParseFailure` with reason ``empty``, ``too_long``,
    ``too_deep``, ``echoed_integral``, ``exponent_too_large``,
    ``number_too_large``, ``not_an_expression`` or ``latex_error``.

    The cost is bounded by the text (``max_chars``, at most ``ANSWER.terms``
    top-level terms, ``ANSWER.latex_chunk_chars`` per call of the grammar), not by how
    long a sum is: a sum of more than ``ANSWER.latex_chunk_terms`` terms is parsed in
    chunks of that many terms (the grammar builds a sum as a left-nested
    tree, whose depth would otherwise grow with the number of terms).
    ``answer=False`` (integrands) keeps every term; for answers, an additive
    constant too large to evaluate is dropped (rule ``huge_constant_dropped``
    appended to ``rules``).

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
    _check_structure(text, max_depth, whole=True)
    if _INTEGRAL.search(text):
        raise ParseFailure("echoed_integral", "the answer still contains an integral sign")
    chunks = _chunks(text)
    for chunk in chunks:
        # The same limits whichever path reads the text, so what is
        # accepted does not depend on it.
        if len(chunk) > ANSWER.latex_chunk_chars:
            raise ParseFailure("too_long", f"{len(chunk)} characters in one term group "
                                           f"(limit {ANSWER.latex_chunk_chars})")
        _check_structure(chunk, max_depth)
    fast = _plain_expression(text, symbol, max_exponent, answer, rules)
    if fast is not None:
        return fast
    raw_terms: list[sp.Basic] = []
    for chunk in chunks:
        raw = _parse_chunk(chunk)
        raw_terms.extend(_top_terms(raw) if len(chunks) > 1 or isinstance(raw, sp.Add)
                         else [raw])
    if len(chunks) > 1 and rules is not None:
        rules.append("long_sum_chunks")
    guard = _Guard(symbol, max_exponent)
    try:
        raw_terms = [_finite_sums_written_out(t, rules) for t in raw_terms]
        kept = _inspect_terms(raw_terms, guard, answer, rules)
        expr = exact_decimals(sp.Add(*[_rebuild(t, symbol) for t in kept]), text)
    except RecursionError:
        raise ParseFailure("too_deep", "expression too deeply nested") from None
    except MATH_ERRORS as exc:
        # SymPy refusing the math it was handed (Heaviside(I), log(0, 0)).
        # Anything else raised here is a bug of ours: CHECKER_ERROR upstream.
        raise ParseFailure("latex_error", describe(exc)) from None
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixExpr):
        raise ParseFailure("not_an_expression", f"evaluated to a {type(expr).__name__}")
    if expr.has(sp.Integral):
        raise ParseFailure("echoed_integral", "answer contains an unevaluated integral")
    return expr


_POWER_BASE = re.compile(r"([A-DF-Za-df-z]) ?\^")     # not e (e^{u} is \exp{u} already)
_BARE_BEFORE = frozenset("({[+-=,*/")
_PRODUCT_BEFORE = frozenset("0123456789)")
# Commands that are a value (a factor) on their own.
_VALUE_COMMANDS = frozenset({"pi", "alpha", "beta", "gamma", "delta", "theta", "lambda", "mu",
                             "phi", "varphi", "psi", "omega", "sigma", "tau", "rho", "eta",
                             "zeta", "xi", "nu", "kappa", "chi", "epsilon", "varepsilon"})
# Commands that start a factor.
_FACTOR_COMMANDS = _VALUE_COMMANDS | {"sqrt", "frac", "text"}
# \frac{d}{dx} f: the grammar's derivative operator needs the juxtaposition.
_DERIVATIVE = re.compile(r"\\frac ?\{ ?(?:d|\\partial|\\mathrm)")
# Groups whose content is text, not math.
_TEXT_GROUPS = re.compile(r"\\(?:text|mathrm|textrm|operatorname|mathbb|mathbf|mathit|mathcal|"
                          r"textit|mbox)\s*\{")


def grammar_friendly(text: str) -> str:
    r"""The same expression in a form the grammar predicts several times faster.

    Profiling the parse stage on ``sympy.latex`` output (``python -m
    benchmarks latex-parse``) puts 92% of its time in the grammar's
    prediction, driven by two ambiguities of the grammar:

    * a letter with a superscript, which the prediction tries as every kind
      of atom (subscripted symbol, function name, ...): 8 terms ``x^{12}``
      cost 73 ms of parsing, ``(x)^{12}`` 11 ms; ``x^{\frac32}`` 150 vs 17 ms.
      A lone letter is wrapped where the grouping cannot change what it
      applies to: at the start, after an opening bracket, an operator,
      ``\cdot``/``\times``, or (with an explicit ``\cdot``) after a digit or
      ``)``; not after a command (``\sin x^2`` is sin(x^2)), a letter, a
      ``}`` (``\log_{2}x^2``) or a script;
    * implicit multiplication, which it resolves with full-context lookahead:
      ``8 \sqrt{6 - 3 \sqrt{3}}`` costs twice ``8 \cdot \sqrt{6 - 3 \cdot
      \sqrt{3}}``. An explicit ``\cdot`` is written where a space separates
      two factors: before a digit, a letter, ``(``, ``\sqrt``, ``\frac``,
      ``\pi``..., after a digit, a letter, ``)``, a ``}`` or ``\pi``, but
      never after a script (``\log_{2} x``, ``\sin^{2} x``), next to ``|``,
      between two numbers, inside ``\text{...}``, and not at all when a
      function's argument was left undelimited (``\sin x y`` stays as
      written).

    This runs on the text handed to the grammar only; the canonical text
    shown in traces is unchanged. ``tests/test_latex_forms.py`` checks that
    every form parses to the same expression with and without it.

    >>> grammar_friendly(r"\frac{2 x^{3}}{3} + x^2 - \sin x^2")
    '\\frac{2 \\cdot (x)^{3}}{3} + (x)^2 - \\sin x^2'
    >>> grammar_friendly(r"\frac{(\ln{(x)})}{8 \sqrt{6 - 3 \sqrt{3}}}")
    '\\frac{(\\ln{(x)})}{8 \\cdot \\sqrt{6 - 3 \\cdot \\sqrt{3}}}'
    """
    if "^" in text:
        text = _paren_power_bases(text)
    if " " in text and not _DERIVATIVE.search(text):
        text = _explicit_products(text)
    return text


def _paren_power_bases(text: str) -> str:
    edits: list[tuple[int, int, str]] = []
    for m in _POWER_BASE.finditer(text):
        k = m.start()
        j = k - 1
        while j >= 0 and text[j] == " ":
            j -= 1
        before = text[j] if j >= 0 else ""
        if before.isalpha():
            # the end of a command (\cdot, \times: a product) or of a run of letters
            if command_before(text, j + 1) not in ("cdot", "times"):
                continue
            prefix = ""
        elif before == "" or before in _BARE_BEFORE:
            prefix = ""
        elif before in _PRODUCT_BEFORE:
            prefix = r"\cdot "
        else:
            continue
        edits.append((k, m.end(), f"{prefix}({m.group(1)})^"))
    return splice(text, edits)


def _explicit_products(text: str) -> str:
    n = len(text)
    match = bracket_matches(text)
    scripts: set[int] = set()           # index of the last character of each script
    for i, c in enumerate(text):
        if c in "^_":
            end = script_end(text, i + 1, match)
            if end is not None:
                scripts.add(end - 1)
    protected = bytearray(n)            # inside \text{...} and the like
    named: set[int] = set()             # the "}" of \text{name}: name(...) is a call
    for m in _TEXT_GROUPS.finditer(text):
        close = match.get(m.end() - 1)
        if close is not None:
            protected[m.end():close] = b"\x01" * (close - m.end())
            if len(text[m.end():close].strip()) > 1:
                named.add(close)
    commands: dict[int, str] = {}       # index of a command's last letter -> its name
    for m in CMD_AT.finditer(text):
        commands[m.end() - 1] = m.group(1)
        if m.group(1) in HEADS:
            j = m.end()
            while j < n and text[j] in "^_ ":
                end = script_end(text, j + 1, match) if text[j] != " " else j + 1
                if end is None:
                    return text
                j = end
            if j >= n or text[j] != "{":
                return text             # an undelimited argument: leave it to the grammar
    edits: list[tuple[int, int, str]] = []
    for i in range(1, n - 1):
        if text[i] != " " or protected[i]:
            continue
        left, right = i - 1, i + 1
        lc, rc = text[left], text[right]
        if left in scripts or left in named or lc == "|" or rc == "|":
            continue
        if lc.isalpha() and left in commands:
            if commands[left] not in _VALUE_COMMANDS:
                continue
        elif not (lc.isalnum() or lc in ")}"):
            continue
        if rc == "\\":
            if command_at(text, right)[0] not in _FACTOR_COMMANDS:
                continue
        elif not (rc.isalnum() or rc == "("):
            continue
        if lc.isdigit() and rc.isdigit():
            continue
        edits.append((i, i + 1, r" \cdot "))
    return splice(text, edits)


def _plain_expression(text: str, symbol: str, max_exponent: int, answer: bool,
                      rules: list[str] | None) -> sp.Expr | None:
    """The cheaper path (:mod:`.to_python`): a plain expression, written in
    Python syntax and built by the safe SymPy-syntax parser; None (the
    grammar decides) when the text is not one or that parser refuses it."""
    python = to_python(text, symbol)
    if python is None:
        return None
    notes: list[str] = []
    try:
        expr = parse_sympy_text(python, symbol, limits=LATEX_FAST_PATH,
                                max_exponent=max_exponent, answer=answer, notes=notes)
    except ParseFailure:
        return None
    if rules is not None:
        rules.extend(["plain_expression", *notes])
    return expr


def _parse_chunk(text: str) -> sp.Expr:
    """One call of the grammar, every failure a ParseFailure."""
    friendly = grammar_friendly(text)
    try:
        raw = _call_parser(friendly)
    except RecursionError:
        raise ParseFailure("latex_error", "parser recursion limit") from None
    except Exception as exc:  # noqa: BLE001 - the library raises bare Exception
        message = str(exc).split("\n")[0][:200] or type(exc).__name__
        raise ParseFailure("latex_error", message) from None
    if raw is None:
        raise ParseFailure("latex_error", "parser returned nothing")
    if not isinstance(raw, sp.Expr) or isinstance(raw, sp.MatrixExpr):
        raise ParseFailure("not_an_expression", f"parsed to a {type(raw).__name__}")
    return raw


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
