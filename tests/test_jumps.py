r"""Continuity for every form that can jump (issue 25, item 2), on every
accept path, and the real reading of branches off the real domain (item 4).

Complex logarithms whose argument crosses the cut on the real line are
proved F' = f symbolically and used to be accepted without a continuity
check; arctan of a pole next to a tall peak of f hid its jump of pi below what
f could add at a fixed distance; arcsin of roots real only on (0, 1) were
rejected by the complex screen with too few real points to decide. The
verdict table is tests/cases/branches.py."""
from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from rewards import Verdict
from rewards.check.evidence import continuity
from rewards.check.evidence.domain import RealEvaluator
from rewards.check.timebox import Deadline
from tests.cases import branches
from tests.support import case_id, check_case


@pytest.mark.parametrize("case", branches.CASES, ids=case_id)
def test_jumps_and_branches(case):
    result = check_case(case, timeout_s=20)
    if case.verdict is Verdict.CORRECT and "arcsin" in case.answer:
        # Evidence from the real line only: never a proof.
        assert result.confidence.value == "numeric_only"


X = sp.Symbol("x")
R2 = sp.sqrt(2)
AROUND_R2 = (Fraction(1.4142135623730), Fraction(1.4142135623731))


@pytest.mark.parametrize(("answer", "integrand", "jumps"), [
    # f blows up at the point (a new constant may start there), however
    # slowly: no jump is reported even where the candidate is not exact
    (X * sp.log((X - R2) ** 2) + sp.sign(X - R2), sp.log((X - R2) ** 2) + 2, False),
    (-1 / (X - R2) + sp.sign(X - R2), 1 / (X - R2) ** 2, False),
    (2 * sp.sign(X - R2) * sp.sqrt(sp.Abs(X - R2)) + sp.sign(X - R2),
     1 / sp.sqrt(sp.Abs(X - R2)), False),
    # a finite peak of 1e12: the jump of pi is a jump, the arctan is continuous
    (-sp.atan(1 / (10**12 * (X - R2))), 10**12 / (1 + 10**24 * (X - R2) ** 2), True),
    (sp.atan(10**12 * (X - R2)), 10**12 / (1 + 10**24 * (X - R2) ** 2), False),
])
def test_jump_next_to_poles_and_peaks(answer, integrand, jumps):
    candidate = continuity._Candidate(*AROUND_R2, continuity._expr_value(X, X - R2))
    found = continuity._jump_at(candidate, X, RealEvaluator(answer),
                                RealEvaluator(integrand, real_values=True), "x", {},
                                Deadline(10))
    assert (found is not None) == jumps


@pytest.mark.parametrize(("expr", "jumps"), [
    (X**2 / 2 + sp.log(X), False),
    (sp.Abs(X - 1), True),  # a kink
    (sp.sign(X) * X, True),
    (sp.floor(X) + X, True),
    (sp.Piecewise((X, X > 1), (X**2, True)), True),
    (sp.atan(1 / (X - 3)), True),  # a bounded function of a pole
    (sp.atan(X - 3), False),
    (sp.tanh(sp.log(X)), True),  # log's argument: a pole
    (sp.tanh(sp.sqrt(X)), False),  # a radicand's boundary only
    (sp.exp(X) * sp.atan(sp.tan(X / 2) / sp.sqrt(3)), True),
    (sp.sin(X) ** 2 + sp.cos(1 / X), True),  # cos is bounded: 1/x's pole counts
    (sp.sin(X) ** 2 + sp.cos(X + 1), False),
])
def test_jump_arguments_test_per_node_is_the_walks(expr, jumps):
    # The per-node cached test behind can_jump and the memo key says what
    # jump_arguments' walk finds, twice (the second from the cache).
    assert bool(continuity.jump_arguments(expr)) is jumps
    assert continuity.has_jump_arguments(expr) is jumps
    assert continuity.has_jump_arguments(expr) is jumps
