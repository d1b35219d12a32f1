"""Known-correct Rubi pairs (optional: needs ../shared/data, skipped when absent).

A fixed sample of antiderivatives, rendered with ``sympy.latex`` as a model
would write them, must be CORRECT; simple mutations of them must never be.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import sympy as sp

from rewards import AntiderivativeReward

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "rubi_pairs.jsonl"
# Non-elementary functions whose LaTeX (E(a|m), {}_2F_1, ...) is not the
# subject of this test; the benchmark covers them.
SPECIAL = ("elliptic", "hyper", "appell", "polylog", "fresnel", "erf", "Ei", "Si", "Ci",
           "gamma", "li(", "Shi", "Chi", "zeta", "LambertW")
pytestmark = [pytest.mark.data, pytest.mark.slow,
              pytest.mark.skipif(not DATA.exists(), reason="../shared/data not present")]

x = sp.Symbol("x")


def _sample(n: int = 30, seed: int = 2026):
    rows = [json.loads(line) for line in DATA.open()]
    rows = [r for r in rows if not any(s in r["antiderivative"] for s in SPECIAL)
            and len(r["antiderivative"]) < 160]
    return random.Random(seed).sample(rows, n)


def _mutations(F: sp.Expr) -> list[sp.Expr]:
    terms = sp.Add.make_args(sp.expand(F))
    out = [2 * F, F + x, -F, F.subs(x, x + 1), sp.diff(F, x),
           F + sp.Rational(1, 10**13) * x]
    if len(terms) > 1:
        out.append(F - terms[0])
    return out


@pytest.fixture(scope="module")
def reward():
    with AntiderivativeReward(workers=2, timeout_s=10, chunk_size=1) as r:
        yield r


def test_rendered_rubi_pairs_are_correct(reward):
    rows = _sample()
    answers = [r"\boxed{" + sp.latex(sp.sympify(r["antiderivative"], locals={"x": x})) + " + C}"
               for r in rows]
    outcomes = reward.score(answers, [r["integrand"] for r in rows])
    failed = [(r["id"], o.verdict, o.result.reason) for r, o in zip(rows, outcomes, strict=False)
              if o.verdict != "CORRECT"]
    assert not failed


def test_mutated_rubi_pairs_are_never_correct(reward):
    answers, integrands = [], []
    for row in _sample(15, seed=7):
        F = sp.sympify(row["antiderivative"], locals={"x": x})
        for mutant in _mutations(F):
            answers.append(r"\boxed{" + sp.latex(mutant) + "}")
            integrands.append(row["integrand"])
    outcomes = reward.score(answers, integrands)
    accepted = [(a, f) for a, f, o in zip(answers, integrands, outcomes, strict=False)
                if o.verdict == "CORRECT"]
    assert not accepted
