"""Expression-level canonicalization between parsing and differentiation.

Each rule that fires is named in the caller's ``rules`` list, so the stage
trace shows exactly what the checker did to the model's answer.
"""
from __future__ import annotations

import sympy as sp

from .errors import ParseFailure
from .parse.names import is_constant_name


def bind_real(expr: sp.Expr, name: str, real_symbol: sp.Symbol) -> sp.Expr:
    """Rebind the integration variable to a real symbol.

    Without ``real=True``, ``diff(log(Abs(x)), x)`` returns unevaluated
    ``re``/``im`` derivatives instead of ``sign(x)/Abs(x)``, which makes every
    ``ln|x|`` answer -- the single most common form -- unverifiable.
    """
    return expr.xreplace({s: real_symbol for s in expr.free_symbols if s.name == name})


def drop_additive_constants(expr: sp.Expr, allowed: set[str], rules: list[str]) -> sp.Expr:
    """Remove ``+ C`` style terms: a constant-name symbol, optionally times a
    number. Anything else with a constant name in it is left for the
    free-symbol check to reject."""

    def is_constant_term(term: sp.Expr) -> bool:
        coeff, rest = term.as_coeff_Mul()
        return (isinstance(rest, sp.Symbol) and rest.name not in allowed
                and is_constant_name(rest.name) and coeff.is_nonzero is not False)

    terms = sp.Add.make_args(expr)
    kept = [t for t in terms if not is_constant_term(t)]
    if len(kept) == len(terms):
        return expr
    rules.append("drop_additive_constant")
    return sp.Add(*kept)


def normalize(expr: sp.Expr, rules: list[str]) -> sp.Expr:
    """Canonicalize an expression, appending the name of each rule that fires."""
    # A model that echoed "\int ... dx" instead of answering leaves an
    # unevaluated Integral. Never .doit() that: it would solve the problem on
    # the model's behalf and score a non-answer as CORRECT.
    if expr.has(sp.Integral):
        raise ParseFailure("echoed_integral", "answer is an unevaluated Integral")
    # Likewise a Derivative or Subs node is not an answer we should evaluate
    # for the model (``Derivative(x**3/3, x)`` is the integrand, not F).
    if expr.has(sp.Derivative) or expr.has(sp.Subs):
        raise ParseFailure("unevaluated_derivative", "answer holds an unevaluated Derivative")

    # Two-argument log, e.g. log(u, 10): rewrite so d/dx sees a plain log.
    if expr.has(sp.log):
        rewritten = expr.replace(
            lambda t: isinstance(t, sp.log) and len(t.args) == 2,
            lambda t: sp.log(t.args[0]) / sp.log(t.args[1]),
        )
        if rewritten != expr:
            rules.append("two_arg_log")
            expr = rewritten

    # log(Abs(u)) -> log(u). These differ by a locally constant i*pi, which
    # vanishes under d/dx. Applied ONLY inside log arguments, so a bare |x|
    # answer is never silently rescued.
    if expr.has(sp.Abs) and expr.has(sp.log):
        rewritten = expr.replace(
            lambda t: isinstance(t, sp.log) and isinstance(t.args[0], sp.Abs),
            lambda t: sp.log(t.args[0].args[0]),
        )
        if rewritten != expr:
            rules.append("log_abs")
            expr = rewritten
    return expr
