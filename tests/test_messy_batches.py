"""Batches as real trainers send them, through every batch entry point: a
variable column with None, NaN, pandas NA and "" beside named variables,
completions of mixed types (text, chat messages, tool turns, None),
integrands that are missing, duplicate rows, empty batches.

The property (hypothesis): each entry point returns one value per row, in
order, never raises, and gives each row exactly what it gives that row
alone. One rule decides what "no value" is (:mod:`rewards.reward.missing`).
"""
from __future__ import annotations

import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
pd = pytest.importorskip("pandas")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rewards import AntiderivativeReward  # noqa: E402
from rewards.integrations import verl  # noqa: E402
from rewards.offline.batch import _POSITION, Columns, score_batch  # noqa: E402
from rewards.offline.io import clean_row  # noqa: E402

pytestmark = pytest.mark.slow  # a worker pool

TOOL_TURNS = [
    {"role": "assistant", "content": "",
     "tool_calls": [{"type": "function", "function": {"name": "python", "arguments": "{}"}}]},
    {"role": "tool", "content": "0.5*x**2"},
    {"role": "assistant", "content": r"So \boxed{\frac{x^2}{2} + C}."},
]
COMPLETIONS = [r"\boxed{x^2/2}", r"\boxed{x^2}", "I cannot integrate this.", None, "",
               [{"role": "assistant", "content": r"\boxed{\frac{t^2}{2} + C}"}], TOOL_TURNS]
INTEGRANDS = ["x", "t", None, math.nan, "", "  "]
VARIABLES = ["x", "t", None, math.nan, pd.NA, "", " "]
ROWS = [(c, f, v) for c in range(len(COMPLETIONS)) for f in range(len(INTEGRANDS))
        for v in range(len(VARIABLES))]
batches = st.lists(st.sampled_from(ROWS), max_size=8)
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _values(rows):
    return ([COMPLETIONS[c] for c, _, _ in rows], [INTEGRANDS[f] for _, f, _ in rows],
            [VARIABLES[v] for _, _, v in rows])


@pytest.fixture(scope="module")
def reward():
    with AntiderivativeReward(workers=1, symbol_column="variable") as r:
        yield r


def _trl(reward, rows):
    completions, integrands, variables = _values(rows)
    return reward(prompts=["p"] * len(rows), completions=completions, integrand=integrands,
                  variable=variables)


def _verl(_reward, rows):
    completions, integrands, variables = _values(rows)
    infos = [None if v is None else {"variable": v} for v in variables]
    # solution_strs are text in verl; a message list would be a caller's bug there.
    texts = [c if isinstance(c, str) or c is None else str(c) for c in completions]
    return [r["score"] for r in verl.compute_score_batch(["integrals"] * len(rows), texts,
                                                          integrands, infos)]


def _offline(reward, rows):
    completions, integrands, variables = _values(rows)
    # As the scorer's reader hands rows over: cleaned, tagged with their position.
    table = [{**clean_row({"completion": c, "integrand": f, "variable": v}), _POSITION: i}
             for i, (c, f, v) in enumerate(zip(completions, integrands, variables,
                                               strict=True))]
    columns = Columns(completion="completion", integrand="integrand", symbol="variable")
    return [r["reward"] for r in score_batch(reward, table, columns).rows]


ENTRY_POINTS = {"trl": _trl, "verl_batch": _verl, "offline": _offline}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_each_row_gets_what_it_gets_alone(reward, entry):
    call = ENTRY_POINTS[entry]
    alone: dict = {}

    @SETTINGS
    @given(batches)
    def check(rows):
        got = call(reward, rows)
        assert len(got) == len(rows)
        for row, value in zip(rows, got, strict=True):
            if row not in alone:
                alone[row] = call(reward, [row])[0]
            assert repr(value) == repr(alone[row]), (entry, row, value, alone[row])

    check()


@pytest.mark.parametrize("integrand", ["x", "4*x**3"])
def test_a_named_and_an_inferred_variable_in_one_batch(reward, integrand):
    # The batch of issue 28: one row names its variable, one leaves it to the
    # checker. "4*x**3" is no other test's integrand, so its checks are fresh
    # (a cache hit would skip the ordering that raised).
    right, wrong = (r"\boxed{x^2/2}", r"\boxed{x^2}") if integrand == "x" else \
        (r"\boxed{x^4}", r"\boxed{x^3}")
    scores = verl.compute_score_batch(
        data_sources=["integrals"] * 2, solution_strs=[right, wrong],
        ground_truths=[integrand, integrand], extra_infos=[{"variable": "x"}, None])
    assert [s["score"] for s in scores] == [1.0, 0.0]
    assert reward(completions=[right, wrong], integrand=[integrand] * 2,
                  variable=[None, "x"]) == [1.0, 0.0]


@pytest.mark.parametrize("variable", [None, math.nan, pd.NA, "", "  "])
def test_no_variable_is_inferred_from_the_integrand(reward, variable):
    assert reward(completions=[r"\boxed{t^2/2}"], integrand=["t"], variable=[variable]) == [1.0]


@pytest.mark.parametrize("integrand", [None, math.nan, pd.NA, "", "  "])
def test_a_row_without_an_integrand_is_not_judged(reward, integrand):
    assert reward(completions=[r"\boxed{x^2/2}"], integrand=[integrand], variable=["x"]) == [None]
