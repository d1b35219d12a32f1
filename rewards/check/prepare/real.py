"""The answer and the integrand as functions of a real variable.

The variable is rebound to a real symbol (``ln|x|`` differentiates to
``1/x`` only then) and the parameters to real ones of either sign (they are
generic: ``|a|`` must stay ``|a|``); then the rewrites
of :func:`normalize` run, each named in the stage trace, and a piecewise
answer must cover the domain (:mod:`.piecewise`).
"""
from __future__ import annotations

import functools
import time
from collections.abc import Iterable

import sympy as sp

from ..context import Check
from ..errors import ParseFailure
from ..limits import CAPS
from ..result import Shown, Verdict
from ..walk import swap_leaves
from .piecewise import piecewise_refusal


def bind_real(expr: sp.Expr, names: Iterable[str]) -> sp.Expr:
    """Rebind the symbols of these names to their real symbols
    (:func:`real_parameters`: ``Symbol(name, real=True)``, as the parser builds).

    Without ``real=True``, ``diff(log(Abs(x)), x)`` returns unevaluated
    ``re``/``im`` derivatives instead of ``sign(x)/Abs(x)``, which makes every
    ``ln|x|`` answer -- the single most common form -- unverifiable.

    Each sum, product, power and function is rebuilt over the real symbols
    without evaluating it again: the parser built it over these same real
    symbols and then swapped in plain ones the same way
    (:func:`~rewards.check.parse.sympy_text.builder._to_plain`), so this
    gives back the tree it built. ``xreplace`` evaluated every node again,
    which was 9% of a worker's time, and evaluated the functions of a symbol
    that the parser leaves unevaluated on purpose (``_apply``: their
    evaluation can run for minutes). A tree from elsewhere (a SymPy
    expression passed in, a rewrite of the parsed one) was evaluated over
    plain symbols, which assume less than real ones: it is the same
    function of a real variable, as written.
    """
    symbols = real_parameters(tuple(names))
    real = {s: symbols[s.name] for s in expr.free_symbols if s.name in symbols}
    if not real:
        return expr
    key = frozenset(symbols)
    memo = _REBOUND.get(key)
    if memo is None or len(memo) > CAPS.rebound_nodes:
        if len(_REBOUND) >= CAPS.rebound_name_sets:
            _REBOUND.clear()
        memo = _REBOUND[key] = {}
    return swap_leaves(expr, lambda leaf: real.get(leaf, leaf), memo)


# Nodes rebound before, by the names rebound (cleared when full). A group's
# answers share terms: each is rebuilt once, and its SymPy assumptions,
# kept on the node, are worked out once (a node built again asks them again).
_REBOUND: dict[frozenset, dict[sp.Basic, sp.Basic]] = {}


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



def real_parameters(params: set[str] | tuple[str, ...]) -> dict[str, sp.Symbol]:
    """Parameters are real and of either sign: an answer must hold for every
    admissible value (positive symbols made |a| and sqrt(a^2) into a, so
    e^{ax}/|a| was "proved" for e^{ax}). The numeric evidence samples them
    with every sign pattern (evidence.gather.Evidence.parameter_refusal)."""
    return {p: sp.Symbol(p, real=True) for p in params}


@functools.lru_cache(maxsize=256)
def real_integrand(integrand: sp.Expr, symbol: str, params: tuple[str, ...]) -> sp.Expr:
    """The integrand over real symbols, normalized: the same for every
    answer of a GRPO group, so bound once (rebuilding it re-asks SymPy's
    assumptions on every node)."""
    return normalize(bind_real(integrand, (symbol, *params)), [])


def real_stage(check: Check, answer: sp.Expr, integrand: sp.Expr, params: set[str]
               ) -> tuple[sp.Expr, sp.Expr, sp.Symbol, dict[str, sp.Symbol]]:
    """The ``normalize`` stage: (answer, integrand, real variable, parameter
    symbols), or a WRONG verdict for a piecewise answer that misses part of
    the domain or is wrong on a piece."""
    start = time.perf_counter()
    symbol = check.symbol
    real_symbol = sp.Symbol(symbol, real=True)
    param_symbols = real_parameters(params)
    rules = ["bind_real_symbol"]
    answer = bind_real(answer, (symbol, *param_symbols))
    try:
        answer = normalize(answer, rules)
        integrand = real_integrand(integrand, symbol, tuple(sorted(params)))
        refused = piecewise_refusal(answer, integrand, real_symbol)
    except ParseFailure as exc:
        check.record("normalize", "fail", start, rules_applied=rules, reason=exc.reason)
        raise
    if refused:
        check.record("normalize", "fail", start, rules_applied=rules, **refused)
        check.decide(Verdict.WRONG, **refused)
    check.record("normalize", "ok", start, rules_applied=rules, out=Shown(answer))
    return answer, integrand, real_symbol, param_symbols
