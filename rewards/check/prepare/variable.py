"""The integration variable: the one given, or the integrand's own.

Datasets of verl and OpenRLHF carry only the ground truth, so a row often
names no variable. Integrating ``sin(t)`` in x then rejects every right
answer (``-cos(t)`` holds a stray t): a silent zero. So a missing variable
is inferred from the integrand: its single free symbol; with several
(``a*t``, ``sin(x*y)``), ``x`` if it is one of them, then the configured
``default_symbol``, then the letters books use for a variable (t, u, v, ...;
a, b, c, k, n are a table's parameters), then the first name alphabetically;
with none (``1``), ``default_symbol``. The choice and how it was made are kept in the verdict's
detail (``variable``, ``variable_from``: ``integrand`` | ``ambiguous`` |
``default``), so a caller can warn about ambiguous rows.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ..context import Check
from ..errors import ParseFailure
from ..parse import parse_integrand
from ..parse.names import valid_variable_name
from ..request import CheckRequest
from ..result import Verdict

# Names that are a variable more often than a parameter, in that order.
_VARIABLE_LETTERS = ("t", "u", "v", "y", "z", "s", "r", "w", "theta", "phi")


def choose_variable(names: set[str], default: str) -> tuple[str, str]:
    """(variable, how it was chosen) among the integrand's free symbols.

    >>> choose_variable({"t"}, "x"), choose_variable({"a", "x"}, "x")
    (('t', 'integrand'), ('x', 'ambiguous'))
    >>> choose_variable({"a", "t"}, "x"), choose_variable(set(), "x")
    (('t', 'ambiguous'), ('x', 'default'))
    >>> choose_variable({"b", "a"}, "u")
    ('a', 'ambiguous')
    """
    if len(names) == 1:
        return next(iter(names)), "integrand"
    if not names:
        return default, "default"
    for preferred in ("x", default, *_VARIABLE_LETTERS):
        if preferred in names:
            return preferred, "ambiguous"
    return sorted(names)[0], "ambiguous"


def infer_variable(integrand: Any, request: CheckRequest) -> tuple[str, str, list[str]]:
    """(variable, how it was chosen, the integrand's free symbols): the
    request's variable, else the integrand's (see :func:`choose_variable`).
    Also for callers that need the variable before checking (a prompt that
    names it). An integrand that does not parse gives ``default_symbol``."""
    if request.symbol is not None:
        return request.symbol, "given", []
    names: set[str] = set()
    try:
        expr = integrand if isinstance(integrand, sp.Expr) else parse_integrand(
            integrand, request.integrand_kind, request.default_symbol)
        names = {s.name for s in expr.free_symbols}
    except (ParseFailure, TypeError, AttributeError):
        pass  # the integrand_parse stage reports it (the parse is cached)
    symbol, source = choose_variable(names, request.default_symbol)
    return symbol, source, sorted(names)


def variable_stage(check: Check, integrand: Any) -> None:
    """Sets ``check.symbol``: the request's variable, or one inferred from
    the integrand (a ``symbol`` stage records which and why). A variable
    that is no valid name is data from the dataset: our error, not the
    model's."""
    symbol, source, names = infer_variable(integrand, check.request)
    if source != "given":
        check.record("symbol", symbol=symbol, source=source, candidates=names[:8])
    if not valid_variable_name(symbol):
        check.record("symbol", "fail", symbol=repr(symbol)[:60])
        check.decide(Verdict.CHECKER_ERROR, "invalid_symbol", symbol=repr(symbol)[:60])
    check.symbol, check.symbol_source = symbol, source
