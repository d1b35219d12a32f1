"""F', symbolically: exact across branch cuts, needing no analyticity, and
additive integration constants vanish here for free."""
from __future__ import annotations

import functools
import time

import sympy as sp
from sympy.core.function import AppliedUndef

from ..context import Check
from ..evidence.continuity import STEP_NODES, drop_steps
from ..result import Shown, Verdict
from .symengine_diff import symengine_derivative


def derivative_stage(check: Check, answer: sp.Expr, x: sp.Symbol,
                     allowed: set[sp.Symbol]) -> sp.Expr:
    """The ``differentiate`` stage (terms a step of F leaves dropped: see
    :func:`~rewards.check.evidence.continuity.drop_steps`), then what differentiation could not do
    (``differentiable``: ``Derivative(floor(x), x)`` or an undefined ``F(x)``
    leave nothing to compare or evaluate) and symbols it left behind
    (``residual_symbols``); returns F'."""
    start = time.perf_counter()
    if answer.has(sp.frac):
        # frac(u) = u - floor(u): its derivative is u' off the steps.
        answer = answer.replace(sp.frac, lambda u: u - sp.floor(u))
    fallbacks = [0]
    derivative, steps = _differentiate(answer, x, fallbacks)
    stepped = False
    if steps:
        derivative, stepped = drop_steps(derivative)
    # The terms a step leaves (DiracDelta, floor') are zero off the steps;
    # whether F jumps there is the continuity check's, before any accept.
    check.record("differentiate", "ok", start, out=Shown(derivative),
                 **({"steps_dropped": True} if stepped else {}),
                 **({"symengine_fallbacks": fallbacks[0]} if fallbacks[0] else {}))
    undefined = sorted({str(f.func) for f in derivative.atoms(AppliedUndef)})
    if derivative.has(sp.Derivative) or undefined:
        reason = "undefined_function" if undefined else "not_differentiable"
        check.record("differentiable", "fail", reason=reason, functions=undefined)
        check.decide(Verdict.WRONG, reason)
    extra = sorted(s.name for s in derivative.free_symbols if s not in allowed)
    if extra:
        check.record("residual_symbols", "fail", symbols=extra, when="after_diff")
        check.decide(Verdict.WRONG, "residual_symbols", symbols=extra)
    check.deadline.check()
    return derivative


def differentiate(answer: sp.Expr, x: sp.Symbol, fallbacks: list[int] | None = None) -> sp.Expr:
    """``sp.diff(answer, x)``, term by term, each term's derivative kept.

    A GRPO group's answers share their terms: F with and without ``+ C``,
    a sign or a factor 2 off (``2F`` distributes over F's terms), one term
    added or wrong. Differentiation is a quarter of a check, and SymPy's
    product and chain rules spend most of it on assumption queries;
    re-differentiating a term already seen in this process repeats them for
    the same result. Linearity makes the split exact: the derivative of a
    sum is the sum of its terms', a numeric factor stays outside.

    Each term is differentiated by SymEngine where it can be trusted
    (:func:`~.symengine_diff.symengine_derivative`), else by SymPy; the terms
    SymPy had to take are counted into ``fallbacks[0]`` when given.
    """
    return _differentiate(answer, x, fallbacks)[0]


def _differentiate(answer: sp.Expr, x: sp.Symbol, fallbacks: list[int] | None
                   ) -> tuple[sp.Expr, bool]:
    """(F', whether a term's derivative holds a node a step leaves)."""
    terms = []
    steps = False
    for term in sp.Add.make_args(answer):
        coefficient, rest = term.as_coeff_Mul()
        if not rest.has(x):
            continue
        derivative, by_symengine, stepped = _term_derivative(rest, x)
        if fallbacks is not None and not by_symengine:
            fallbacks[0] += 1
        steps = steps or stepped
        terms.append(coefficient * derivative)
    return sp.Add(*terms), steps


# Terms, not whole answers: an answer seen twice is the memo's business. Also
# whether the term's derivative holds a node a step leaves (drop_steps walks
# F' only then: the sum of the terms' derivatives holds none of theirs).
@functools.lru_cache(maxsize=4096)
def _term_derivative(term: sp.Expr, x: sp.Symbol) -> tuple[sp.Expr, bool, bool]:
    derivative = symengine_derivative(term, x)
    by_symengine = derivative is not None
    if not by_symengine:
        derivative = sp.diff(term, x)
    return derivative, by_symengine, bool(derivative.atoms(*STEP_NODES))
