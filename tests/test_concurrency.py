"""Concurrent callers share one pool; pools are sized for the node's ranks.

The batcher is driven with a gate: its first batch is held open until the
other calls are queued, so "checked together" is asserted on what happened
(batches, order, results), never on how long it took.
"""
from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
import yaml

from rewards import AntiderivativeReward, RewardConfig
from rewards.reward import pool as pool_module
from rewards.reward.batcher import Batcher, interleave
from tests.support import HANG_GUARD_S, eventually

ROOT = Path(__file__).resolve().parents[1]


class GatedBatch:
    """A run_batch that records each batch and blocks the first one until
    ``release()``; results name the row, so misrouting shows."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.gate = threading.Event()

    def __call__(self, completions, integrands, symbols):
        self.batches.append(list(completions))
        if len(self.batches) == 1:
            assert self.gate.wait(HANG_GUARD_S)
        return [f"{c}|{f}|{s}" for c, f, s in zip(completions, integrands, symbols, strict=True)]

    def release(self) -> None:
        self.gate.set()


def make_batcher(run_batch, budget_s=60.0, cancelled=None):
    return Batcher(run_batch, expired=lambda c, f, s: ["expired"] * len(c),
                   budget_s=lambda n: budget_s,
                   cancel=(cancelled.set if cancelled is not None else (lambda: None)))


def call_in_thread(batcher, rows, results, key):
    completions = [r[0] for r in rows]
    thread = threading.Thread(target=lambda: results.__setitem__(key, batcher.run(
        completions, [r[1] for r in rows], [r[2] for r in rows])))
    thread.start()
    return thread


def test_interleave_round_robin():
    assert interleave([2, 0, 3]) == [(0, 0), (2, 0), (0, 1), (2, 1), (2, 2)]
    assert interleave([]) == []


def test_concurrent_calls_form_one_batch_and_get_their_own_results():
    gated = GatedBatch()
    batcher = make_batcher(gated)
    results: dict[str, list] = {}
    first = call_in_thread(batcher, [("a0", "f", "x")], results, "a")
    assert eventually(lambda: len(gated.batches) == 1)
    calls = {"b": [("b0", "g", "x"), ("b1", "g", "x"), ("b2", "g", "t")],
             "c": [("c0", "h", None)],
             "d": [("d0", "k", "x"), ("d1", "k", "x")]}
    threads = []
    for n, (key, rows) in enumerate(calls.items(), start=1):
        # One at a time, so the queue order is known.
        threads.append(call_in_thread(batcher, rows, results, key))
        assert eventually(lambda n=n: batcher.queued == n)
    gated.release()
    for thread in [first, *threads]:
        thread.join(HANG_GUARD_S)
    # Two batches: the first call alone, then every call queued meanwhile,
    # their rows interleaved round-robin.
    assert gated.batches == [["a0"], ["b0", "c0", "d0", "b1", "d1", "b2"]]
    assert results["a"] == ["a0|f|x"]
    assert results["b"] == ["b0|g|x", "b1|g|x", "b2|g|t"]
    assert results["c"] == ["c0|h|None"]
    assert results["d"] == ["d0|k|x", "d1|k|x"]
    assert batcher.stats.batches == 2 and batcher.stats.largest_batch_calls == 3


def test_a_call_past_its_own_bound_returns_and_leaves_the_queue():
    gated = GatedBatch()
    cancelled = threading.Event()
    batcher = make_batcher(gated, budget_s=0.3, cancelled=cancelled)
    results: dict[str, list] = {}
    first = call_in_thread(batcher, [("slow", "f", "x")], results, "slow")
    assert eventually(lambda: len(gated.batches) == 1)
    queued = call_in_thread(batcher, [("late", "f", "x")], results, "late")
    # Both callers give up at their own bound while the first batch hangs.
    first.join(HANG_GUARD_S)
    queued.join(HANG_GUARD_S)
    assert results == {"slow": ["expired"], "late": ["expired"]}
    assert batcher.queued == 0  # the queued call was dropped, never run
    assert cancelled.is_set()  # nobody waits for the running batch: cancelled
    gated.release()
    assert eventually(lambda: batcher.stats.batches == 1 and not batcher._running)
    assert gated.batches == [["slow"]]
    assert batcher.stats.expired_calls == 2 and batcher.stats.cancelled_batches == 1


def test_an_error_reaches_every_caller_of_its_batch_and_the_next_batch_runs():
    def run_batch(completions, integrands, symbols):
        if "boom" in completions:
            raise RuntimeError("checker bug")
        return list(completions)

    batcher = make_batcher(run_batch)
    with pytest.raises(RuntimeError, match="checker bug"):
        batcher.run(["ok", "boom"], ["f", "f"], [None, None])
    assert batcher.run(["fine"], ["f"], [None]) == ["fine"]


def test_async_callers_are_batched_and_a_cancelled_one_is_dropped():
    gated = GatedBatch()
    batcher = make_batcher(gated)

    async def main():
        first = asyncio.create_task(batcher.arun(["a"], ["f"], ["x"]))
        while not gated.batches:
            await asyncio.sleep(0.01)
        others = [asyncio.create_task(batcher.arun([f"r{i}"], ["f"], ["x"])) for i in range(4)]
        doomed = asyncio.create_task(batcher.arun(["doomed"], ["f"], ["x"]))
        while batcher.queued < 5:
            await asyncio.sleep(0.01)
        doomed.cancel()
        with pytest.raises(asyncio.CancelledError):
            await doomed
        gated.release()
        return await first, await asyncio.gather(*others)

    first, others = asyncio.run(asyncio.wait_for(main(), HANG_GUARD_S))
    assert first == ["a|f|x"]
    assert others == [[f"r{i}|f|x"] for i in range(4)]
    assert gated.batches[1] == ["r0", "r1", "r2", "r3"]


# -- the real reward --------------------------------------------------------------
RIGHT = r"We get \boxed{\frac{x^{3}}{3} + C}"
CASES = [(RIGHT, "x**2", 1.0), (r"\boxed{x^3}", "x**2", 0.0), ("no idea", "x**2", -0.2),
         (r"\boxed{\sin t}", "cos(t)", 1.0), (r"\boxed{e^{x}}", "exp(x)", 1.0),
         (r"\boxed{\ln x}", "1/x", 1.0), (r"\boxed{x}", "2", 0.0), (RIGHT, None, None)]


@pytest.fixture(scope="module")
def reward():
    with AntiderivativeReward(workers=2, timeout_s=10, cache_size=0) as r:
        yield r


@pytest.mark.slow
def test_threads_calling_the_reward_are_checked_together(reward):
    # Hold the first batch until every other thread's call is queued.
    gate = threading.Event()
    real = reward._batcher._run_batch
    seen: list[int] = []

    def gated(completions, integrands, symbols):
        seen.append(len(completions))
        if len(seen) == 1:
            gate.wait(HANG_GUARD_S)
        return real(completions, integrands, symbols)

    reward._batcher._run_batch = gated
    try:
        results: dict[int, list] = {}

        def one(i):
            completion, integrand, expected = CASES[i]
            symbol = "t" if "t" in (integrand or "") else None
            results[i] = [o.reward for o in reward.score([completion], [integrand], [symbol])]

        threads = [threading.Thread(target=one, args=(0,))]
        threads[0].start()
        assert eventually(lambda: seen)
        for i in range(1, len(CASES)):
            threads.append(threading.Thread(target=one, args=(i,)))
            threads[-1].start()
        assert eventually(lambda: reward._batcher.queued == len(CASES) - 1)
        gate.set()
        for thread in threads:
            thread.join(HANG_GUARD_S)
    finally:
        reward._batcher._run_batch = real
    assert seen == [1, len(CASES) - 1]
    assert results == {i: [expected] for i, (_, _, expected) in enumerate(CASES)}


@pytest.mark.slow
def test_ascore_from_an_event_loop(reward):
    async def main():
        return await asyncio.gather(*(reward.ascore([c], [f]) for c, f, _ in CASES[:3]))

    outcomes = asyncio.run(main())
    assert [o[0].reward for o in outcomes] == [e for _, _, e in CASES[:3]]
    assert [o[0].verdict for o in outcomes] == ["CORRECT", "WRONG", "UNPARSEABLE"]


# -- pool size per rank -------------------------------------------------------------
def test_workers_are_the_ranks_share_of_the_cores(monkeypatch):
    monkeypatch.setattr(pool_module, "available_cpus", lambda: 32)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    assert pool_module.auto_workers() == 4
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "64")
    assert pool_module.auto_workers() == 1  # never fewer than one
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "not a number")
    assert pool_module.auto_workers() == 32
    monkeypatch.delenv("LOCAL_WORLD_SIZE")
    assert pool_module.auto_workers() == 32


def test_memory_cap_is_the_ranks_share_of_the_memory(monkeypatch):
    monkeypatch.setattr(pool_module, "available_memory_mb", lambda: 64 * 1024.0)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    # 64 GiB / 8 ranks / 4 workers = 2 GiB, under the configured 3 GiB.
    assert pool_module.worker_memory_limit_mb(3072, 4) == 2048
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    assert pool_module.worker_memory_limit_mb(3072, 4) == 3072
    assert pool_module.worker_memory_limit_mb(None, 4) is None
    monkeypatch.setattr(pool_module, "available_memory_mb", lambda: 1024.0)
    assert pool_module.worker_memory_limit_mb(3072, 16) == pool_module.MIN_WORKER_MEMORY_MB


@pytest.mark.slow
def test_reward_with_local_world_size_set(monkeypatch):
    cpus = pool_module.available_cpus()
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    with AntiderivativeReward() as r:
        stats = r.runtime_stats()
        assert stats["workers"] == max(1, cpus // 2)
        share = pool_module.available_memory_mb() / 2 / stats["workers"]
        assert stats["memory_limit_mb"] == int(min(3072, max(512, share)))
        assert r.score([RIGHT], ["x**2"])[0].reward == 1.0
    monkeypatch.setenv("LOCAL_WORLD_SIZE", str(4 * cpus))
    with AntiderivativeReward() as r:
        assert r.runtime_stats()["workers"] == 1


def test_default_yaml_spells_out_the_reward_config_defaults():
    shipped = yaml.safe_load((ROOT / "configs" / "reward" / "default.yaml").read_text())
    assert shipped == RewardConfig().to_dict()
