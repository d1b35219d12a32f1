"""rewards.reward.pool.CheckPool: the call budget, recycling, idle re-warming.

Real worker processes, one worker each; faults come from
:mod:`rewards.testing.faults` run in the workers. Assertions are about
results, worker pids and the pool's state, never about durations.
"""
from __future__ import annotations

import sys
import time

import psutil
import pytest

from rewards import RewardConfig
from rewards.check.result import Verdict
from rewards.reward.pool import CheckPool, Job
from rewards.testing.faults import HANG, LEAK, faulty_check
from tests.support import running

pytestmark = pytest.mark.slow  # spawns and respawns worker processes


def good(k: int) -> Job:
    return Job(r"\frac{x^{2}}{2} + " + str(k), "x", "x")


def worker_pids(pool: CheckPool) -> set[int]:
    # Workers report their pid with every finished task.
    return set(pool.stats.worker_rss_mb)


def live_workers() -> set[int]:
    """Our running child processes, less loky's resource tracker (one per
    session, meant to outlive every pool)."""
    out = set()
    for p in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(p.cmdline()) and running(p.pid):
                out.add(p.pid)
        except psutil.NoSuchProcess:
            pass
    return out


def test_call_budget_ends_the_call_and_kills_the_pool():
    # Each hanging job is killed by the watchdog after timeout_s + margin_s,
    # and every kill means a fresh pool (spawn, import SymPy, warm up: far
    # longer than this call's whole budget of 4 * 0.01 + 3 * 5 * 0.02 s). So
    # the call cannot finish all three: the rest come back TIMEOUT
    # "call_budget", and the pool is killed rather than left computing.
    pool = CheckPool(RewardConfig(workers=1, timeout_s=0.01, watchdog_margin_s=0.01),
                     check_fn=faulty_check)
    try:
        jobs = [Job(HANG, "x", "x")] * 3
        before = live_workers()
        results = pool.run(jobs)
        assert len(results) == len(jobs)
        assert all(r.verdict is Verdict.TIMEOUT for r in results)
        # The first may have been reached (the watchdog's "timeout") if the
        # pool was already warm; the last never is.
        assert results[-1].reason == "call_budget"
        assert results[-1].stage == "watchdog"
        assert results[-1].detail["budget_s"] == 0.3  # rounded 0.34
        # Killed: no executor, and no worker this call started (a hanging one
        # among them) is still running.
        assert pool._executor is None
        assert live_workers() - before == set()
    finally:
        pool.close()


def test_pool_recycles_after_max_tasks_per_pool():
    pool = CheckPool(RewardConfig(workers=1, timeout_s=10, max_tasks_per_worker_pool=2))
    try:
        results = pool.run([good(0), good(1)])
        assert [r.verdict for r in results] == [Verdict.CORRECT] * 2
        first, executor = worker_pids(pool), pool._executor
        # 2 samples so far: not past the threshold, the same worker goes on.
        assert pool.run([good(2)])[0].verdict is Verdict.CORRECT
        assert worker_pids(pool) == first and pool._executor is executor
        # 3 samples: past it, so this call starts on a fresh pool.
        assert pool.run([good(3)])[0].verdict is Verdict.CORRECT
        assert worker_pids(pool).isdisjoint(first)
        assert pool._executor is not executor
        assert not any(running(pid) for pid in first)
    finally:
        pool.close()


def test_pool_recycles_a_worker_past_max_worker_rss():
    pool = CheckPool(RewardConfig(workers=1, timeout_s=10), check_fn=faulty_check)
    try:
        assert pool.run([good(0)])[0].verdict is Verdict.CORRECT
        (first,) = worker_pids(pool)
        base = pool.stats.worker_rss_mb[first]
        pool.max_worker_rss_mb = base + 150
        # The same worker keeps 300 MiB alive: its reported RSS passes the cap.
        assert pool.run([Job(f"{LEAK}300", "x", "x")])[0].verdict is Verdict.CORRECT
        assert worker_pids(pool) == {first}
        assert pool.stats.worker_rss_mb[first] > pool.max_worker_rss_mb
        # So the next call starts on a fresh worker, back under the cap.
        assert pool.run([good(1)])[0].verdict is Verdict.CORRECT
        assert first not in worker_pids(pool)
        assert max(pool.stats.worker_rss_mb.values()) < pool.max_worker_rss_mb
        assert not running(first)
    finally:
        pool.close()


def _warmed_during(pool: CheckPool, jobs: list[Job]) -> list:
    # Observe (a profiler hook, no patching) whether the pool re-acquired and
    # warmed its executor during this call.
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is CheckPool._warm.__code__:
            calls.append(frame.f_locals["executor"])

    sys.setprofile(profile)
    try:
        results = pool.run(jobs)
    finally:
        sys.setprofile(None)
    assert [r.verdict for r in results] == [Verdict.CORRECT] * len(jobs)
    return calls  # the executors warmed


def test_idle_pool_is_rewarmed_on_the_next_call():
    # loky ends workers idle for idle_timeout_s; the pool treats an executor
    # unused for 0.8 of that as stale and, on the next call, re-acquires it
    # and warms its workers again, so no check pays for a cold worker.
    pool = CheckPool(RewardConfig(workers=1, timeout_s=10, idle_timeout_s=3.0))
    try:
        assert len(_warmed_during(pool, [good(0)])) == 1  # the first call warms
        # Used again at once (well within 2.4 s): nothing to re-warm.
        assert _warmed_during(pool, [good(1)]) == []
        time.sleep(2.5)  # idle past 0.8 * idle_timeout_s
        assert _warmed_during(pool, [good(2)]) == [pool._executor]
    finally:
        pool.close()


def test_workers_visit_assumption_facts_in_sorted_order(monkeypatch):
    # SymPy visits the facts an assumption query may deduce from in a random
    # order; a worker sorts them (the same order in every process). The
    # patch must reach the module: `sympy.core.assumptions` as an attribute
    # is a function of that name, where setting `shuffle` did nothing.
    import importlib

    from rewards.reward import pool

    module = importlib.import_module("sympy.core.assumptions")
    monkeypatch.setattr(module, "shuffle", module.shuffle)  # restored afterwards
    pool._deterministic_assumptions()
    assert module.shuffle is list.sort


def test_workers_keep_free_symbols_per_expression_and_hand_out_copies(monkeypatch):
    import sympy as sp
    from sympy.core.basic import Basic

    from rewards.reward import pool

    original = Basic.__dict__["free_symbols"]
    monkeypatch.setattr(Basic, "free_symbols", original)  # restored afterwards
    x, y, a = sp.symbols("x y a")
    exprs = [x**2 * sp.sin(a * x) + y, sp.log(sp.Abs(x - a)) / (x + 1), sp.Integer(3),
             sp.Piecewise((x, x > a), (y, True)), sp.Integral(x * y, x) + a,
             sp.exp(sp.Derivative(sp.Function("g")(x), x))]
    expected = [original.fget(e) if isinstance(e, Basic) and type(e).free_symbols is original
                else e.free_symbols for e in exprs]
    pool._cached_free_symbols()
    pool._cached_free_symbols()  # once only
    assert Basic.__dict__["free_symbols"] is not original
    for expr, want in zip(exprs, expected, strict=True):
        got = expr.free_symbols
        assert got == want
        got.add(sp.Symbol("junk"))  # a caller changing its copy
        assert expr.free_symbols == want
    # A definite Integral removes x from the set its integrand hands it:
    # right each time, and the integrand's own set keeps x.
    definite = sp.Integral(x * y, (x, 0, 1))
    assert definite.free_symbols == {y} == definite.free_symbols
    assert (x * y).free_symbols == {x, y}


def _sympy_cache_size() -> int:
    import sympy.core.cache

    return sympy.core.cache.SYMPY_CACHE_SIZE


@pytest.mark.slow
def test_workers_run_with_a_larger_sympy_cache():
    import os

    from rewards.check.limits import CAPS

    # SymPy's default is 1,000; a size the user set is kept.
    expected = int(os.environ.get("SYMPY_CACHE_SIZE", CAPS.sympy_cache_entries))
    pool = CheckPool(RewardConfig(workers=1))
    try:
        assert pool._get_executor().submit(_sympy_cache_size).result() == expected
    finally:
        pool.close()


def _collector_state() -> tuple[int, int]:
    import gc

    return gc.get_threshold()[0], gc.get_freeze_count()


@pytest.mark.slow
def test_workers_collect_rarely_and_freeze_what_warm_up_left():
    from rewards.check.limits import CAPS

    pool = CheckPool(RewardConfig(workers=1))
    try:
        young, frozen = pool._get_executor().submit(_collector_state).result()
    finally:
        pool.close()
    assert young == CAPS.young_collection_allocations
    # SymPy's modules and the warm caches: far more than a bare interpreter.
    assert frozen > 20_000


def test_jobs_from_more_join_the_call_after_the_first_tasks_are_out():
    # The reward extracts the rest of a batch while the workers start on its
    # first groups: `more` is asked once, with tasks already submitted, and
    # its jobs' results follow the first ones, in order.
    pool = CheckPool(RewardConfig(workers=1, timeout_s=10))
    first = [good(k) for k in range(3)]
    later = [Job(r"\frac{x^{3}}{3}", "x**2", "x"), Job(r"x^{3}", "x**2", "x"), good(9)]
    asked: list[int] = []

    def more() -> list[Job]:
        asked.append(pool.stats.tasks)
        return later

    try:
        results = pool.run(first, more=more)
    finally:
        pool.close()
    assert asked and asked[0] >= 1 and len(asked) == 1
    assert [r.verdict for r in results] == [Verdict.CORRECT] * 3 + [
        Verdict.CORRECT, Verdict.WRONG, Verdict.CORRECT]


def test_jobs_from_more_are_answered_when_the_call_ends_before_them():
    # A call whose budget ran out before it asked for the rest still asks,
    # and answers those jobs TIMEOUT with the others.
    pool = CheckPool(RewardConfig(workers=1, timeout_s=0.01, watchdog_margin_s=0.01),
                     check_fn=faulty_check)
    try:
        results = pool.run([Job(HANG, "x", "x")] * 3, more=lambda: [good(1), good(2)])
    finally:
        pool.close()
    assert len(results) == 5
    assert all(r.verdict is Verdict.TIMEOUT for r in results)
