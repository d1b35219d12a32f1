"""Integration constants: which terms of an answer may go before
differentiating (``+ C``, ``\\ln|Cx|``), and the stage that rejects any other
symbol the integrand does not have (a free parameter is a place to smuggle
anything in)."""
from __future__ import annotations

import time

import sympy as sp

from ..context import Check
from ..parse.names import is_constant_name
from ..result import Verdict


def drop_additive_constants(expr: sp.Expr, allowed: set[str], rules: list[str]) -> sp.Expr:
    r"""Remove ``+ C`` style terms: a constant-name symbol, optionally times a
    number. Anything else with a constant name in it is left for the
    free-symbol check to reject, except two forms that are additive
    constants too:

    * a constant factor inside a logarithm that is itself an additive term:
      ``\ln|Cx|`` = ``\ln|x| + \ln|C|``, ``2\ln(K(x+1))``, ``\ln|x/C|``
      (rule ``log_constant_factor``). Only factors made of integration
      constant names (``is_constant_name``, not the integrand's parameters),
      only directly in the log's argument (or its ``|.|``), and only when the
      log term is additive: ``x\ln|Cx|`` keeps its C and is WRONG;
    * constants inside the pieces of an additive Piecewise (a ``cases``
      answer may give each piece its own ``C_k``).
    """
    def constant_factor(f: sp.Expr) -> bool:
        names = {s.name for s in f.free_symbols}
        return bool(names) and all(is_constant_name(n) and n not in allowed for n in names)

    def is_constant_term(term: sp.Expr) -> bool:
        coeff, rest = term.as_coeff_Mul()
        return (isinstance(rest, sp.Symbol) and rest.name not in allowed
                and is_constant_name(rest.name) and coeff.is_nonzero is not False)

    def strip_log(term: sp.Expr) -> sp.Expr:
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(rest, sp.log) or len(rest.args) != 1:
            return term
        arg = rest.args[0]
        inner = arg.args[0] if isinstance(arg, sp.Abs) else arg
        factors = sp.Mul.make_args(inner)
        kept = [f for f in factors if not constant_factor(f)]
        if len(kept) == len(factors):
            return term
        new = sp.Mul(*kept)
        if "log_constant_factor" not in rules:
            rules.append("log_constant_factor")
        return coeff * sp.log(sp.Abs(new) if isinstance(arg, sp.Abs) else new)

    def strip_pieces(term: sp.Expr) -> sp.Expr:
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(rest, sp.Piecewise):
            return term
        pieces = [(drop_additive_constants(e, allowed, rules), c) for e, c in rest.args]
        return coeff * sp.Piecewise(*pieces)

    terms = sp.Add.make_args(expr)
    kept = [strip_pieces(strip_log(t)) for t in terms if not is_constant_term(t)]
    if len(kept) != len(terms) and "drop_additive_constant" not in rules:
        rules.append("drop_additive_constant")
    if len(kept) == len(terms) and all(a is b for a, b in zip(kept, terms, strict=True)):
        return expr
    return sp.Add(*kept)



def constants_stage(check: Check, answer: sp.Expr, integrand: sp.Expr) -> tuple[sp.Expr, set[str]]:
    """Drop additive constants, then refuse every symbol that is neither the
    variable nor a parameter of the integrand; returns the answer and the
    parameter names. Checked BEFORE differentiating: ``x**2/2 + y`` has the
    right derivative, yet y is not the variable and not a constant."""
    start = time.perf_counter()
    symbol = check.symbol
    params = {s.name for s in integrand.free_symbols if s.name != symbol}
    rules: list[str] = []
    # The variable is never a constant, even when named c or C.
    answer = drop_additive_constants(answer, params | {symbol}, rules)
    extra = sorted(s.name for s in answer.free_symbols
                   if s.name != symbol and s.name not in params)
    if extra:
        kind = ("misplaced_constant" if all(is_constant_name(n) for n in extra)
                else "extra_symbols")
        check.record("residual_symbols", "fail", start, symbols=extra, kind=kind,
                     when="before_diff")
        check.decide(Verdict.WRONG, "residual_symbols", symbols=extra)
    if answer.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        check.record("constants", "fail", start, reason="non_finite")
        check.decide(Verdict.WRONG, "non_finite")
    check.record("constants", "ok", start, rules_applied=rules, parameters=sorted(params))
    return answer, params
