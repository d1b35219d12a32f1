r"""Answer or integrand text, in LaTeX or SymPy syntax, to a SymPy expression.

The two parsers (:mod:`.latex`, :mod:`.sympy_text`) share one table of
function names and limits (:mod:`.names`) and one equation rule
(:mod:`.equation`); this module picks the parser, records what it did as a
stage, and reads the LaTeX parts the grammar cannot (``cases`` environments
lifted out by :mod:`.latex.cases`, special-function calls by
:mod:`.latex.special`, the imaginary unit).

Reading rules decided here (each pinned in ``tests/test_answer_forms.py``):

* **Letters written together.** Text without backslashes or braces is read
  as SymPy syntax first, where ``xe^x`` would be one symbol ``xe``. When
  that reading succeeds but holds a name of two or more letters, each of
  them the variable, ``e`` or a one-letter name of the integrand (and the
  name is neither an integration-constant name nor one the integrand uses),
  the text is read again as LaTeX, where letters written together are a
  product: ``xe^x - e^x + C`` is x e^x - e^x. If the integrand uses any
  multi-letter name of the answer, nothing is re-read (``ab*x`` stays ab).
  The re-reading happens only after the safe parser accepted the text (a
  refusal for content stays final) and it is what the text means in LaTeX,
  so it can only turn a stray symbol, which is WRONG, into what was written.
* **Piecewise answers** (``cases``, ``dcases``, SymPy ``Piecewise``) become a
  SymPy Piecewise whose conditions compare the variable only. The pieces
  must cover the integrand's real domain: an uncovered interval where the
  integrand is real makes the answer WRONG (``piecewise_gap``, decided in
  :func:`rewards.check.prepare.piecewise.piecewise_refusal`, which also checks every
  piece on its own interval); finitely many uncovered points, or intervals
  where the integrand is not real, are fine. A condition that cannot be
  read is UNPARSEABLE (``cases_condition``), never dropped.
* **Large exponents and huge constants.** Limits bound what evaluation
  costs (:mod:`.names`): ``x^{2024}``, ``(1-x)^{2015}`` are read; a huge
  additive constant of an answer (``+ 10^{10^{10}}``) is dropped (rule
  ``huge_constant_dropped``), since it vanishes under d/dx; integrands get
  roomier limits than answers.
* **Decimals are exact** on both sides and in both syntaxes: ``2.2`` is
  11/5 in the integrand and in the answer, so ``\ln|x + 2.2|`` is right for
  ``1/(x + 2.2)`` and ``\ln|x + 2.21|`` is not.
* **Long sums** are bounded by their length (characters, 600 top-level
  terms), not by the depth of the tree a grammar builds for them.
"""
from __future__ import annotations

import functools
import time
from typing import Any

import sympy as sp

from ..errors import ParseFailure
from ..limits import INTEGRAND
from ..result import Shown, StageRecord, ms_since
from .latex.canon import differential_in_numerator
from .latex.cases import build_piecewise, lift_cases
from .latex.grammar import canonicalize_latex, parse_latex
from .latex.special import build_call, lift_special_calls
from .names import is_constant_name
from .sympy_text import parse_sympy_text

# Refusals of the safe SymPy-syntax parser that are final in auto mode: the
# text IS Python syntax, refused for what it contains. Anything else (a
# syntax error, non-ASCII, x(x+1) read as a call) may still be LaTeX.
_FINAL_SYMPY_REASONS = frozenset({
    "forbidden_name", "forbidden_syntax", "forbidden_attribute", "forbidden_string",
    "forbidden_keyword_arg", "bad_constant", "number_too_large", "exponent_too_large",
    "too_deep", "too_many_nodes", "too_long", "non_finite", "slow_constant", "math_error",
    "resource_error", "echoed_integral", "bad_condition",
})


def looks_like_sympy_syntax(text: str) -> bool:
    """Whether ``text`` reads as SymPy syntax first (no backslash, no brace)."""
    # Answers inside <answer> tags are usually Python syntax (x**2/2);
    # backslashes and braces only occur in LaTeX.
    return "\\" not in text and "{" not in text


def juxtaposed_letters(expr: sp.Expr, symbol: str, context: frozenset[str]) -> list[str]:
    """Names in a SymPy-syntax reading that are letters written together.

    ``xe^x - e^x + C`` has no backslash or brace, so it is read as SymPy
    syntax first, where ``xe`` is one (stray) symbol. A name is letters
    written together when it has two or more letters, each of them the
    variable (one letter), ``e`` or a one-letter name of the integrand, and
    it is not itself an integration-constant name or a name the integrand
    uses. Returns those names, or ``[]`` when some multi-letter name of the
    answer is one the integrand uses (then every name keeps its reading).

    >>> x, xe, ax = sp.symbols("x xe ax")
    >>> juxtaposed_letters(xe * sp.exp(x), "x", frozenset()), juxtaposed_letters(ax, "x", frozenset({"a"}))
    (['xe'], ['ax'])
    >>> juxtaposed_letters(xe, "x", frozenset({"xe"})), juxtaposed_letters(sp.Symbol("yx"), "x", frozenset())
    ([], [])
    """
    letters = {"e"} | {n for n in context if len(n) == 1}
    if len(symbol) == 1:
        letters.add(symbol)
    names = [s.name for s in expr.free_symbols if len(s.name) > 1 and s.name != symbol]
    if any(n in context for n in names):
        return []
    return sorted(n for n in names if n.isalpha() and not is_constant_name(n)
                  and all(ch in letters for ch in n))


def parse_answer(text: str, syntax: str, symbol: str, stages: list[StageRecord],
                 role: str = "candidate", context: frozenset[str] = frozenset()) -> sp.Expr:
    """Parse ``text`` as ``syntax`` (auto | latex | sympy), appending a
    ``<role>_parse`` stage; raises :class:`ParseFailure` with the first
    parser's reason when no reading works.

    ``context`` holds the names the integrand uses. In ``auto`` mode a
    SymPy-syntax reading with letters written together
    (:func:`juxtaposed_letters`: ``xe^x``) is read again as LaTeX, where
    letters written together are a product (rule ``juxtaposed_letters``);
    if that reading fails, the SymPy one stands."""
    start = time.perf_counter()
    rules: list[str] = []
    data: dict[str, Any] = {"in": text}
    order = [syntax] if syntax != "auto" else (
        ["sympy", "latex"] if looks_like_sympy_syntax(text) else ["latex"])
    failure: ParseFailure | None = None
    for parser in order:
        try:
            if parser == "sympy":
                notes: list[str] = []
                expr = parse_sympy_text(text, symbol, notes=notes)
                rules.extend(notes)
                joined = juxtaposed_letters(expr, symbol, context) if syntax == "auto" else []
                if joined:
                    try:
                        latex_rules: list[str] = []
                        expr, data["canonical"] = parse_latex_text(text, symbol, latex_rules)
                    except ParseFailure as exc:
                        data["juxtaposed_latex_failed"] = exc.reason
                    else:
                        parser = "latex"
                        rules[:] = ["juxtaposed_letters", *latex_rules]
                        data["juxtaposed"] = joined
            else:
                expr, data["canonical"] = parse_latex_text(text, symbol, rules)
        except ParseFailure as exc:
            # The last reading tried says most: a SymPy-syntax miss (a syntax
            # error, non-ASCII) only means "try it as LaTeX".
            failure = exc
            data.setdefault("attempts", []).append({"parser": parser, "reason": exc.reason,
                                                    "message": exc.message[:300]})
            if parser == "sympy" and exc.reason in _FINAL_SYMPY_REASONS:
                # The text is Python syntax the safe parser refused on purpose
                # (code, huge numbers, oo/nan): a looser reading as LaTeX must
                # not paper over that (x**2/2 if __import__(...) else 0 would
                # lose its "if" clause and pass).
                break
            continue
        data.update(parser=parser, rules_applied=rules, out=Shown(expr),
                    free_symbols=sorted(s.name for s in expr.free_symbols))
        stages.append(StageRecord(f"{role}_parse", ms=ms_since(start), data=data))
        return expr
    assert failure is not None
    data.update(reason=failure.reason, rules_applied=rules)
    stages.append(StageRecord(f"{role}_parse", status="fail", ms=ms_since(start), data=data))
    raise failure


def _imaginary_unit(expr: sp.Expr, symbol: str, rules: list[str]) -> sp.Expr:
    # LaTeX has no separate imaginary-unit token: sympy.latex prints I as
    # "i", and so do models writing complex-form antiderivatives. A free i
    # (or I) is the unit unless it is the integration variable.
    unit = [s for s in expr.free_symbols if s.name in ("i", "I") and s.name != symbol]
    if not unit:
        return expr
    rules.append("imaginary_i")
    return expr.xreplace({s: sp.I for s in unit})


def parse_latex_text(text: str, symbol: str, rules: list[str], depth: int = 0,
                     answer: bool = True) -> tuple[sp.Expr, str]:
    """Canonicalize and parse LaTeX, with ``cases`` environments and
    special-function calls (elliptic, hypergeometric, incomplete gamma)
    lifted out and their parts parsed recursively.

    ``answer=False`` reads a dataset's integrand: roomier exponent limit,
    every term kept."""
    if not answer and depth == 0:
        text = differential_in_numerator(text, symbol)
    lifted, cases = lift_cases(text)
    lifted, calls = lift_special_calls(lifted)
    canonical = canonicalize_latex(lifted, rules, symbol)
    limits = {} if answer else {"max_exponent": INTEGRAND.exponent}
    expr = _imaginary_unit(parse_latex(canonical, symbol, answer=answer and depth == 0,
                                       rules=rules, **limits), symbol, rules)
    if calls or cases:
        if depth >= 3:
            raise ParseFailure("too_deep", "special function calls nested too deep")

        def parse_argument(argument: str) -> sp.Expr:
            return parse_latex_text(argument, symbol, [], depth + 1, answer)[0]

        mapping = {}
        if calls:
            rules.append("special_function_call")
            mapping.update({sp.Symbol(c.placeholder): build_call(c, parse_argument)
                            for c in calls})
        if cases:
            rules.append("cases_piecewise")
            mapping.update({sp.Symbol(c.placeholder): build_piecewise(c, parse_argument, symbol)
                            for c in cases})
        expr = expr.xreplace(mapping)
    return expr, canonical


@functools.lru_cache(maxsize=2048)
def parse_integrand(text: str, kind: str, symbol: str) -> sp.Expr:
    """An integrand from a dataset (cached: GRPO sends each one 8+ times)."""
    if kind == "latex":
        return parse_latex_text(text, symbol, [], answer=False)[0]
    # From a dataset, not from the policy: the same safe parser, roomier limits.
    return parse_sympy_text(text, symbol, limits=INTEGRAND, answer=False)
