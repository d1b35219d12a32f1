r"""``\begin{cases} F_1 & c_1 \\ F_2 & c_2 \end{cases}`` -> ``Piecewise((F_1, c_1), (F_2, c_2))``.

A piecewise answer (``cases``, ``dcases``, ``cases*``) is lifted out of the
text before the rest is canonicalized, like the special-function calls of
:mod:`.special`: each piece and each side of each condition is parsed
on its own by the same LaTeX parser, and the environment is replaced by a
placeholder symbol that the caller substitutes with the Piecewise.

Rows are separated by ``\\`` (or ``\cr``), a piece from its condition by
``&`` (or, without ``&``, by ``\text{if}``, ``\text{for}``, ``\text{when}``,
``\text{otherwise}``). A condition is

* ``\text{otherwise}``, ``\text{else}``, ``\text{elsewhere}`` or nothing:
  always true (SymPy's ``True``: the pieces before it take precedence);
* comparisons of the variable, chained or not: ``x < 0``, ``0 \le x < 1``,
  ``|x| > 1``, ``x \neq 0`` (``<, >, \le, \ge, \leq, \geq, \leqslant,
  \geqslant, \lt, \gt, \ne, \neq, =`` and their Unicode forms);
* ``x \in (a, b)``, ``[a, b)``, ... intervals (``\infty`` allowed);
* any of those joined by ``,``, ``\text{and}``, ``\land``, ``\wedge``
  (and) or ``\text{or}``, ``\lor``, ``\vee`` (or);

optionally after ``\text{if}``/``\text{for}``/``\text{when}``. The sides of a
comparison may hold only the variable, numbers and constants, combined with
``+ - \cdot /``, integer powers up to 4 and ``|.|``, so the set where each
condition holds can be computed exactly. Anything else is
``cases_condition`` (UNPARSEABLE): a condition the checker cannot read is
not silently dropped.

Whether the pieces cover the integrand's domain is the checker's question,
not the parser's: see :func:`rewards.check.prepare.piecewise.piecewise_refusal`.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from ...errors import ParseFailure
from ...limits import ANSWER
from .scan import CASES_ENV, splice, split_top

PLACEHOLDER = r"\Omega_{{{}}}"
_FIRST_PLACEHOLDER = 9500

_TEXT_WORD = re.compile(
    r"\\(?:text|mathrm|textrm|textit|mathit|mbox|operatorname)\s*\{\s*([^{}]*?)\s*\}")
_SPACES = re.compile(r"\\[,;:! ]|\\q?quad(?![A-Za-z])|~|\\\\(?=\s*$)")
_LEAD_WORDS = re.compile(r"^(?:if|for|when|whenever|for all|on)\b\s*", re.I)
_ALWAYS = frozenset({"otherwise", "else", "elsewhere", "otherwise.", "else.", "sonst",
                     "all other x", "in all other cases"})
_SPLIT_WORDS = re.compile(r"\\(?:text|mathrm|textrm|mbox)\s*\{\s*(?:if|for|when|otherwise|else)\b")
_RELATION = re.compile(
    r"\\(?:leqslant|geqslant|leq|geq|le|ge|lt|gt|neq|ne|not\s*=)(?![A-Za-z])|<=|>=|!=|[<>=]")
_RELATION_NAMES = {
    "\\leqslant": "le", "\\leq": "le", "\\le": "le", "<=": "le",
    "\\geqslant": "ge", "\\geq": "ge", "\\ge": "ge", ">=": "ge",
    "\\lt": "lt", "<": "lt", "\\gt": "gt", ">": "gt",
    "\\neq": "ne", "\\ne": "ne", "!=": "ne", "=": "eq",
}
_BUILD = {"lt": sp.StrictLessThan, "le": sp.LessThan, "gt": sp.StrictGreaterThan,
          "ge": sp.GreaterThan, "ne": sp.Ne, "eq": sp.Eq}
_UNICODE = str.maketrans({"\u2264": r" \le ", "\u2265": r" \ge ", "\u2260": r" \ne ",
                          "\u2212": "-", "\u2208": r" \in ", "\u221e": r"\infty "})
_AND = re.compile(r"\\(?:land|wedge)(?![A-Za-z])|\band\b|,")
_OR = re.compile(r"\\(?:lor|vee)(?![A-Za-z])|\bor\b")
_IN = re.compile(r"\\in(?![A-Za-z])")
_INTERVAL = re.compile(r"^\s*(?:\\left\s*)?([(\[\]])(.*),(.*?)(?:\\right\s*)?([)\]\[])\s*$", re.S)
_REALS = re.compile(r"^\s*\\(?:mathbb\s*\{\s*R\s*\}|R|Bbb\s*\{?\s*R\s*\}?|mathbf\s*\{\s*R\s*\})\s*$")


@dataclass
class CasesCall:
    """One ``cases`` environment lifted out of the text: its placeholder and rows."""
    rows: list[tuple[str, str]]     # (piece LaTeX, condition LaTeX)
    placeholder: str                # symbol name the main parse produces


def _matching_end(text: str, start: int) -> tuple[int, int]:
    """(start of the matching \\end{cases}, index after it)."""
    depth = 1
    for m in CASES_ENV.finditer(text, start):
        depth += 1 if m.group(1) == "begin" else -1
        if depth == 0:
            return m.start(), m.end()
    raise ParseFailure("latex_error", "\\begin{cases} without its \\end{cases}")


_ROW_SEP = re.compile(r"\\\\|\\cr(?![A-Za-z])")
_CELL_SEP = re.compile(r"&")


def _rows(body: str) -> list[tuple[str, str]]:
    rows = []
    for row in split_top(body, _ROW_SEP):
        if not row.strip():
            continue
        cells = split_top(row, _CELL_SEP)
        if len(cells) == 1:
            m = _SPLIT_WORDS.search(row)
            cells = [row[:m.start()], row[m.start():]] if m else [row, ""]
        piece, condition = cells[0], "".join(cells[1:])
        rows.append((piece.strip().rstrip(",;.").strip(), condition.strip()))
    if not rows:
        raise ParseFailure("latex_error", "an empty cases environment")
    if len(rows) > ANSWER.pieces:
        raise ParseFailure("too_many_nodes", f"more than {ANSWER.pieces} cases")
    return rows


def lift_cases(text: str) -> tuple[str, list[CasesCall]]:
    r"""Replace each outermost cases environment by a placeholder symbol.

    >>> text, calls = lift_cases(r"\begin{cases} x & x > 0 \\ -x & \text{otherwise} \end{cases} + C")
    >>> text
    '\\Omega_{9500}  + C'
    >>> calls[0].rows
    [('x', 'x > 0'), ('-x', '\\text{otherwise}')]
    """
    if "cases" not in text:
        return text, []
    calls: list[CasesCall] = []
    edits: list[tuple[int, int, str]] = []
    pos = 0
    for m in CASES_ENV.finditer(text):
        if m.start() < pos:
            continue
        if m.group(1) == "end":
            raise ParseFailure("latex_error", "\\end{cases} without its \\begin{cases}")
        if len(calls) >= ANSWER.case_environments:
            raise ParseFailure("too_many_nodes", "too many cases environments")
        end_start, end = _matching_end(text, m.end())
        placeholder = PLACEHOLDER.format(_FIRST_PLACEHOLDER + len(calls))
        calls.append(CasesCall(_rows(text[m.end():end_start]), placeholder.replace("\\", "")))
        edits.append((m.start(), end, placeholder + " "))
        pos = end
    return splice(text, edits), calls


# --- conditions ---------------------------------------------------------------

def _clean(condition: str) -> str:
    condition = condition.translate(_UNICODE)
    condition = _TEXT_WORD.sub(lambda m: f" {m.group(1)} ", condition)
    condition = _SPACES.sub(" ", condition)
    condition = condition.replace("$", " ")
    condition = " ".join(condition.split()).strip().rstrip(".,;").strip()
    for _ in range(2):
        condition = _LEAD_WORDS.sub("", condition).strip()
    return condition


def _check_side(expr: sp.Expr, symbol: str) -> None:
    """Sides the set of a comparison can be computed from, exactly."""
    extra = {s.name for s in expr.free_symbols} - {symbol}
    if extra:
        raise ParseFailure("cases_condition", f"a condition names {', '.join(sorted(extra))}: "
                                              "conditions may only compare the variable")
    for node in sp.preorder_traversal(expr):
        if node.is_Atom:
            if node.is_Number and not node.is_finite:
                raise ParseFailure("cases_condition", "a condition holds an infinity")
            continue
        if isinstance(node, (sp.Add, sp.Mul, sp.Abs)):
            continue
        if isinstance(node, sp.Pow) and (not node.base.free_symbols or (
                node.exp.is_Integer and abs(node.exp) <= ANSWER.condition_power)):
            continue
        if not node.free_symbols:
            continue                # a constant such as sqrt(2), pi/2, log(3)
        raise ParseFailure("cases_condition", f"conditions compare polynomials of the variable "
                                              f"and |.| of them, not {type(node).__name__}")


def _interval(lhs: str, rhs: str, parse: Callable[[str], sp.Expr], symbol: str) -> sp.Basic:
    if _REALS.match(rhs):
        return sp.true
    m = _INTERVAL.match(rhs)
    if m is None:
        raise ParseFailure("cases_condition", "only intervals (a, b), [a, b], ... follow \\in")
    left, lo_text, hi_text, right = m.groups()
    variable = parse(lhs)
    _check_side(variable, symbol)
    bounds = []
    for bound in (lo_text, hi_text):
        bound = bound.strip()
        if bound in (r"\infty", r"+\infty", r"-\infty", r"+ \infty", r"- \infty"):
            bounds.append(None)
            continue
        value = parse(bound)
        if value.free_symbols:
            raise ParseFailure("cases_condition", "interval ends must be constants")
        bounds.append(value)
    parts = []
    if bounds[0] is not None:
        parts.append((sp.GreaterThan if left == "[" else sp.StrictGreaterThan)(variable,
                                                                                bounds[0]))
    if bounds[1] is not None:
        parts.append((sp.LessThan if right == "]" else sp.StrictLessThan)(variable, bounds[1]))
    return sp.And(*parts)


def _comparison(text: str, parse: Callable[[str], sp.Expr], symbol: str) -> sp.Basic:
    inside = split_top(text, _IN)
    if len(inside) == 2:
        return _interval(inside[0], inside[1], parse, symbol)
    sides: list[str] = []
    ops: list[str] = []
    last = 0
    for m in _RELATION.finditer(text):
        sides.append(text[last:m.start()])
        ops.append(_RELATION_NAMES.get(re.sub(r"\s+", "", m.group(0)).replace("\\not=", "\\ne"),
                                       "ne"))
        last = m.end()
    sides.append(text[last:])
    if not ops or any(not s.strip() for s in sides):
        raise ParseFailure("cases_condition", f"not a comparison: {text[:60]!r}")
    exprs = [parse(s) for s in sides]
    for e in exprs:
        _check_side(e, symbol)
    return sp.And(*[_BUILD[op](a, b) for op, a, b in zip(ops, exprs[:-1], exprs[1:], strict=True)])


def parse_condition(condition: str, parse: Callable[[str], sp.Expr], symbol: str) -> sp.Basic:
    """A cases condition as a SymPy Boolean (``sympy.true`` for otherwise)."""
    text = _clean(condition)
    if not text or text.lower() in _ALWAYS:
        return sp.true
    disjuncts = []
    for alternative in split_top(text, _OR):
        conjuncts = [_comparison(part, parse, symbol)
                     for part in split_top(alternative, _AND) if part.strip()]
        if not conjuncts:
            raise ParseFailure("cases_condition", "an empty condition")
        disjuncts.append(sp.And(*conjuncts))
    return sp.Or(*disjuncts)


def build_piecewise(call: CasesCall, parse: Callable[[str], sp.Expr], symbol: str) -> sp.Expr:
    """The Piecewise for a lifted cases environment; pieces and condition
    sides parsed by ``parse`` (the LaTeX parser, recursively)."""
    pairs = []
    for piece, condition in call.rows:
        if not piece:
            raise ParseFailure("latex_error", "a case without an expression")
        pairs.append((parse(piece), parse_condition(condition, parse, symbol)))
    try:
        return sp.Piecewise(*pairs)
    except (TypeError, ValueError) as exc:
        raise ParseFailure("cases_condition", f"unusable conditions: {exc}"[:200]) from None
