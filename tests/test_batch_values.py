"""Every entry point takes what real batches carry (issue 28).

A variable column with some rows empty, None, NaN or pandas NA beside named
ones; completions that are text, chat messages (with tool turns) or None;
integrands of mixed types; duplicate rows; empty batches. One rule for the
missing values (:mod:`rewards.reward.values`), and for every entry point: one
value per row, in order, no exception, and each row the verdict it gets alone.

One reward (one worker pool) serves every entry point of the module: verl's
and OpenRLHF's process-wide reward is set to it, and the server wraps it.
"""
from __future__ import annotations

import asyncio
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewards import AntiderivativeReward
from rewards.integrations import common, openrlhf, verl
from rewards.offline.batch import _POSITION, Columns, score_batch
from rewards.reward.values import is_missing, key_text
from rewards.serve.server import RewardServer
from rewards.serve.settings import ServeConfig
from tests.test_serve import request

pytestmark = pytest.mark.slow

# Few distinct answers and integrands: every check is cheap and, after the
# first examples, a cache hit, so the property runs many batches in seconds.
INTEGRANDS = ["x", "cos(t)", "x*y", "2", " x ", "sin(", None, "", "  ", float("nan"),
              np.nan, pd.NA, 3]
VARIABLES = ["x", "t", "y", " x ", None, "", "  ", float("nan"), np.float64("nan"), pd.NA]
TOOL_TURNS = [{"role": "user", "content": "integrate x"},
              {"role": "assistant", "content": None,
               "tool_calls": [{"id": "c", "type": "function",
                               "function": {"name": "sympy", "arguments": "{}"}}]},
              {"role": "tool", "content": "x**2/2", "tool_call_id": "c"},
              {"role": "assistant", "content": r"so \boxed{x^2/2}"}]
COMPLETIONS = [r"\boxed{x^2/2}", r"\boxed{x^2}", r"\boxed{\sin(t)}", r"\boxed{x y^2/2}", "",
               "no idea", r"\boxed{2x}", None,
               [{"role": "assistant", "content": r"\boxed{x^2/2 + C}"}],
               [{"role": "assistant", "content": [{"type": "text", "text": r"\boxed{x^2}"}]}],
               TOOL_TURNS]

rows = st.lists(st.tuples(st.sampled_from(COMPLETIONS), st.sampled_from(INTEGRANDS),
                          st.sampled_from(VARIABLES)), max_size=7)
# The server speaks JSON: text or null (its own 400 rule covers other types).
JSON_INTEGRANDS = [v for v in INTEGRANDS if isinstance(v, str) or v is None]
JSON_VARIABLES = [v for v in VARIABLES if isinstance(v, str) or v is None]
json_rows = st.lists(st.tuples(st.sampled_from(COMPLETIONS), st.sampled_from(JSON_INTEGRANDS),
                               st.sampled_from(JSON_VARIABLES)), max_size=7)
PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def reward():
    shared = AntiderivativeReward(workers=1, timeout_s=20, symbol_column="variable")
    saved = dict(common._SHARED)
    common._SHARED[(None, None)] = shared
    try:
        yield shared
    finally:
        common._SHARED.clear()
        common._SHARED.update(saved)
        shared.close()


@pytest.fixture(scope="module")
def server(reward):
    srv = RewardServer(reward, ServeConfig(port=0)).start()
    try:
        yield srv
    finally:
        srv.drain()


def columns(batch):
    return ([c for c, _, _ in batch], [f for _, f, _ in batch], [v for _, _, v in batch])


# -- the entry points, each a function of a batch of (completion, integrand, variable) --------
def trl(reward, batch):
    completions, integrands, variables = columns(batch)
    return reward(prompts=["p"] * len(batch), completions=completions, integrand=integrands,
                  variable=variables)


def score(reward, batch):
    return [(o.reward, o.verdict, o.symbol if o.judged else None)
            for o in reward.score(*columns(batch))]


def offline(reward, batch):
    table = [{_POSITION: i, "completion": c, "integrand": f, "variable": v}
             for i, (c, f, v) in enumerate(batch)]
    out = score_batch(reward, table, Columns("completion", "integrand", "variable", None, None))
    return [(r["reward"], r["verdict"], r["reason"]) for r in out.rows]


def verl_batch(reward, batch):
    completions, integrands, variables = columns(batch)
    infos = [None if v is None else {"variable": v} for v in variables]
    return [(r["score"], r["verdict"], r["reason"]) for r in verl.compute_score_batch(
        ["integrals"] * len(batch), completions, integrands, infos)]


def verl_single(reward, batch):
    return [(r["score"], r["verdict"], r["reason"]) for r in
            (verl.compute_score("integrals", c, f, {"variable": v}) for c, f, v in batch)]


def verl_async(reward, batch):
    async def run():
        return await asyncio.gather(*(verl.compute_score_async("integrals", c, f, {"variable": v})
                                      for c, f, v in batch))
    return [(r["score"], r["verdict"], r["reason"]) for r in asyncio.run(run())]


def _text(completion):
    from rewards.reward.outcome import completion_text
    return completion_text(completion) or ""


def openrlhf_batch(reward, batch):
    prompt = "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n"
    queries = [prompt + _text(c) for c, _, _ in batch]
    labels = [{"integrand": f, "variable": v} for _, f, v in batch]
    out = openrlhf.reward_func(queries, [prompt] * len(batch), labels)
    return [float(x) for x in out["rewards"]]


ENTRY_POINTS = [trl, score, offline, verl_batch, verl_single, verl_async, openrlhf_batch]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def assert_row_by_row(entry, reward, batch):
    got = entry(reward, batch)
    assert len(got) == len(batch)
    alone = [entry(reward, [row])[0] for row in batch]
    assert _same(list(got), alone), (batch, got, alone)
    return got


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: e.__name__)
@PROPERTY
@given(batch=rows, repeat=st.integers(0, 3))
def test_each_row_gets_its_own_verdict_in_any_batch(reward, entry, batch, repeat):
    # Duplicates: the batch again, in part, after itself.
    assert_row_by_row(entry, reward, batch + batch[:repeat])


@PROPERTY
@given(batch=json_rows)
def test_server_routes_take_mixed_batches(server, batch):
    completions, integrands, variables = columns(batch)
    status, body = request(server.address, "POST", "/score",
                           {"completions": completions, "integrands": integrands,
                            "variables": variables})
    assert status == 200, body
    alone = [request(server.address, "POST", "/score",
                     {"completions": [c], "integrands": [f], "variables": [v]})[1]["results"][0]
             for c, f, v in batch]
    assert body["results"] == alone


# -- the issue's batch, through every named entry point ----------------------------------------
MIXED = [(r"\boxed{x^2/2}", "x", "x"), (r"\boxed{x^2}", "x", None)]


def test_the_issues_mixed_batch(reward, server):
    completions, integrands, variables = columns(MIXED)
    records = verl.compute_score_batch(data_sources=["integrals"] * 2, solution_strs=completions,
                                       ground_truths=integrands,
                                       extra_infos=[{"variable": "x"}, None])
    assert [r["score"] for r in records] == [1.0, 0.0]
    assert trl(reward, MIXED) == [1.0, 0.0]
    assert [r for r, _, _ in offline(reward, MIXED)] == [1.0, 0.0]
    status, body = request(server.address, "POST", "/score",
                           {"completions": completions, "integrands": integrands,
                            "variables": variables})
    assert status == 200 and [r["reward"] for r in body["results"]] == [1.0, 0.0]


def test_empty_batches(reward, server):
    assert trl(reward, []) == [] and score(reward, []) == [] and offline(reward, []) == []
    assert verl.compute_score_batch([], [], [], []) == []
    assert request(server.address, "POST", "/score",
                   {"completions": [], "integrands": []})[1]["results"] == []


def test_verifiers_rows_with_mixed_variable_cells(tmp_path):
    # The taskset's tasks come from iter_integrands: a blank, null or NaN
    # variable cell is the integrand's own variable, as the reward infers it.
    path = tmp_path / "rows.jsonl"
    cells = [("x**2", "x"), ("cos(t)", None), ("cos(t)", ""), ("cos(t)", float("nan")),
             ("", "x"), ("exp(u)", " u ")]
    path.write_text("\n".join(json.dumps({"integrand": f, "variable": v}) for f, v in cells))
    assert list(common.iter_integrands(path)) == [
        ("x**2", "x"), ("cos(t)", "t"), ("cos(t)", "t"), ("cos(t)", "t"), ("exp(u)", "u")]


# -- the rule itself (no pool) -------------------------------------------------------------------
@pytest.mark.parametrize(("value", "missing", "key"), [
    (None, True, None), (float("nan"), True, None), (np.nan, True, None),
    (np.float32("nan"), True, None), (pd.NA, True, None), (pd.NaT, True, None),
    ("", False, None), ("  ", False, None), ("x", False, "x"), (" t\n", False, "t"),
    (0, False, "0"), (2.5, False, "2.5"), ([], False, "[]"), ({}, False, "{}"),
    (np.array([1.0, np.nan]), False, "[ 1. nan]"),
])
def test_one_missing_value_rule(value, missing, key):
    assert is_missing(value) is missing
    assert key_text(value) == key


def test_offline_uses_the_same_rule():
    from rewards.offline import io
    assert io.is_missing is is_missing
    assert io.clean_row({"a": pd.NA, "b": "", "c": float("nan"), "d": [1]}) == {
        "a": None, "b": "", "c": None, "d": [1]}


