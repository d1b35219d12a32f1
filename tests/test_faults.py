"""Faults in the worker pool: every completion still gets a value.

Each test drives the real reward (``faulty_reward(workers=2, timeout_s=2,
watchdog_margin_s=1)``: the reward with ``faulty_check`` in its workers) through one
fault, and checks three things:

* every completion gets a value (a verdict and a reward, or ``None`` only for
  CHECKER_ERROR) and the call returns;
* innocent samples in the same batch keep their right verdicts;
* afterwards no worker, orphan or zombie process is left.

The faults: a worker hung where signals cannot reach (sleeping with SIGALRM
blocked; stuck in a C loop), a worker that dies (always; once), a worker over
its memory cap, a worker that leaks RSS (recycled), a worker SIGKILLed from
outside mid-batch, the executor shut down from another thread mid-call, and
the caller interrupted by KeyboardInterrupt mid-call. Behaviour only: the one
clock is a generous hang guard.
"""
from __future__ import annotations

import _thread
import os
import signal
import threading
import time

import psutil
import pytest

from rewards import AntiderivativeReward
from rewards.testing.faults import (
    CRASH,
    CRASH_ONCE,
    HANG,
    LEAK,
    OOM,
    SLOW,
    STUCK_IN_C,
    faulty_reward,
)
from tests.support import HANG_GUARD_S, eventually

pytestmark = pytest.mark.slow



def box(s: str) -> str:
    return r"So \boxed{" + s + "}"


def slow(seconds: float, answer: str) -> str:
    return box(f"{SLOW}{seconds}:{answer}")


# Innocent samples, all distinct (the reward dedups identical jobs), with the
# verdict each must keep whatever happens around it.
def innocents(n: int, offset: int = 0) -> tuple[list[str], list[str]]:
    completions, verdicts = [], []
    for k in range(offset, offset + n):
        if k % 3 == 2:
            completions.append(box(f"x^{{3}} + {k}"))
            verdicts.append("WRONG")
        else:
            completions.append(box(r"\frac{x^{2}}{2} + " + str(k)))
            verdicts.append("CORRECT")
    return completions, verdicts


# --- process hygiene ------------------------------------------------------------
def _is_tracker(p: psutil.Process) -> bool:
    try:
        return "resource_tracker" in " ".join(p.cmdline())
    except psutil.Error:
        return False


# Child processes that existed before a test (another module's reward, for
# instance) are not this test's to judge.
_BASELINE: set[int] = set()


def _children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in _BASELINE]


def _workers() -> list[psutil.Process]:
    out = []
    for p in _children():
        try:
            if not _is_tracker(p) and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def _zombies() -> list[psutil.Process]:
    out = []
    for p in _children():
        try:
            if p.status() == psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


class WorkerLog:
    """Remembers every worker process seen, to prove none outlives the test
    (an orphan is re-parented away from us, so children() would miss it)."""

    def __init__(self) -> None:
        self.seen: dict[int, float] = {}

    def snapshot(self) -> list[psutil.Process]:
        workers = _workers()
        for p in workers:
            try:
                self.seen[p.pid] = p.create_time()
            except psutil.NoSuchProcess:
                pass
        return workers

    def survivors(self) -> list[int]:
        alive = []
        for pid, created in self.seen.items():
            try:
                p = psutil.Process(pid)
                if p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                pass
        return alive


def _shut_down_leftover_executor() -> None:
    # loky keeps one reusable executor per thread; one left by an earlier
    # test module would be reused by this test's reward (same arguments)
    # and its workers would not be this test's to judge.
    try:
        import loky.reusable_executor as reusable

        executor = getattr(reusable._executor_storage, "executor", None)
        if executor is not None:
            executor.shutdown(wait=True, kill_workers=True)
    except Exception:  # noqa: BLE001 - best effort; loky internals may change
        pass


@pytest.fixture
def log():
    _shut_down_leftover_executor()
    _BASELINE.clear()
    _BASELINE.update(p.pid for p in psutil.Process().children(recursive=True))
    return WorkerLog()


def _managed_reward(log, timeout_s: float):
    r = faulty_reward(workers=2, timeout_s=timeout_s, watchdog_margin_s=1, cache_size=0)
    try:
        yield r
    finally:
        log.snapshot()
        r.close()
        # Killed workers are reaped by loky; give it a moment (hang guard).
        assert eventually(lambda: not _workers()), [p.pid for p in _workers()]
        assert eventually(lambda: not _zombies()), [p.pid for p in _zombies()]
        assert eventually(lambda: not log.survivors()), log.survivors()


@pytest.fixture
def reward(log):
    yield from _managed_reward(log, timeout_s=2)


@pytest.fixture
def roomy_reward(log):
    # For a test of something other than deadlines whose sample does real
    # work first (touching 300 MB): on two cores shared with other test
    # workers that alone can take the 2 s of ``reward``.
    yield from _managed_reward(log, timeout_s=10)


def score(reward, completions, integrand="x"):
    started = time.monotonic()
    outcomes = reward.score(completions, [integrand] * len(completions))
    assert time.monotonic() - started < HANG_GUARD_S
    assert len(outcomes) == len(completions)
    for o in outcomes:
        assert o.judged and o.result is not None
        assert o.reward is not None or o.verdict == "CHECKER_ERROR"
    return outcomes


def verdicts(outcomes):
    return [o.verdict for o in outcomes]


# --- workers that hang, crash or grow -----------------------------------------
@pytest.mark.parametrize("fault", [HANG, STUCK_IN_C], ids=["sigalrm_blocked", "stuck_in_c"])
def test_worker_stuck_where_signals_cannot_reach(reward, log, fault):
    good, expected = innocents(3)
    outcomes = score(reward, good[:2] + [box(fault)] + good[2:])
    log.snapshot()
    assert outcomes[2].verdict == "TIMEOUT"
    assert outcomes[2].result.stage == "watchdog"
    assert verdicts(outcomes[:2] + outcomes[3:]) == expected
    assert reward.runtime_stats()["kills"] >= 1
    # The pool was replaced, and the replacement works.
    more, expected_more = innocents(3, offset=10)
    assert verdicts(score(reward, more)) == expected_more


def test_worker_that_always_crashes_gets_checker_error(reward, log):
    good, expected = innocents(3)
    outcomes = score(reward, good[:2] + [box(CRASH)] + good[2:])
    log.snapshot()
    assert outcomes[2].verdict == "CHECKER_ERROR"
    assert outcomes[2].reward is None  # no gradient from our failure
    assert outcomes[2].result.reason == "worker_crash"
    assert verdicts(outcomes[:2] + outcomes[3:]) == expected


def test_worker_that_crashes_once_is_retried(reward, log, tmp_path):
    marker = tmp_path / "crashed-once"
    good, expected = innocents(3)
    outcomes = score(reward, good[:1] + [box(f"{CRASH_ONCE}{marker}")] + good[1:])
    log.snapshot()
    assert marker.exists()  # it did crash the first time
    assert outcomes[1].verdict == "CORRECT"
    assert verdicts(outcomes[:1] + outcomes[2:]) == expected
    assert reward.runtime_stats()["crashes"] >= 1


def test_worker_over_its_memory_cap(log):
    # RLIMIT_AS makes the runaway allocation a MemoryError inside the worker,
    # not an OOM kill of the machine; the worker survives it.
    with faulty_reward(workers=2, timeout_s=2, watchdog_margin_s=1, memory_limit_mb=1024,
                       cache_size=0) as reward:
        good, expected = innocents(3)
        outcomes = score(reward, good[:2] + [box(OOM)] + good[2:])
        log.snapshot()
        assert outcomes[2].verdict == "CORRECT"
        assert verdicts(outcomes[:2] + outcomes[3:]) == expected
    assert eventually(lambda: not _workers())


def test_worker_that_leaks_is_recycled(roomy_reward, log):
    reward = roomy_reward
    good, expected = innocents(2)
    score(reward, good)
    before = {p.pid for p in log.snapshot()}
    base = max(reward.runtime_stats()["worker_rss_mb"].values())
    # The recycle bound, lowered under this warm worker's size plus 150 MB
    # (a fault test's seam: the config sets it before the pool exists).
    reward._pool.max_worker_rss_mb = base + 150
    outcomes = score(reward, [box(f"{LEAK}300")])
    assert verdicts(outcomes) == ["CORRECT"]
    assert max(reward.runtime_stats()["worker_rss_mb"].values()) > base + 150
    more, expected_more = innocents(4, offset=20)
    assert verdicts(score(reward, more)) == expected_more  # recycled before this batch
    after = {p.pid for p in log.snapshot()}
    assert before.isdisjoint(after)
    assert max(reward.runtime_stats()["worker_rss_mb"].values()) < base + 150


# --- faults from outside --------------------------------------------------------
def _run_in_thread(fn):
    box_ = {}

    def target():
        try:
            box_["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            box_["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, box_


def _slow_batch(n: int, seconds: float = 1.0) -> tuple[list[str], list[str]]:
    completions = [slow(seconds, r"\frac{x^{2}}{2} + " + str(k)) for k in range(n)]
    return completions, ["CORRECT"] * n


def test_sigkill_of_a_worker_mid_batch(reward, log):
    score(reward, innocents(2)[0])  # warm: workers exist before the batch
    tasks = reward.runtime_stats()["tasks"]
    completions, expected = _slow_batch(6)   # 3 s on 2 workers: killed mid-batch
    thread, result = _run_in_thread(lambda: score(reward, completions))
    assert eventually(lambda: reward.runtime_stats()["tasks"] > tasks and len(log.snapshot()) == 2)
    time.sleep(0.5)  # let tasks be in flight on both workers
    victim = log.snapshot()[0]
    os.kill(victim.pid, signal.SIGKILL)
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive()
    assert "error" not in result, result.get("error")
    assert verdicts(result["value"]) == expected
    assert reward.runtime_stats()["crashes"] >= 1
    assert not victim.is_running() or victim.status() == psutil.STATUS_ZOMBIE


def test_executor_shut_down_from_another_thread(reward, log):
    score(reward, innocents(2)[0])
    tasks = reward.runtime_stats()["tasks"]
    completions, expected = _slow_batch(6)
    thread, result = _run_in_thread(lambda: score(reward, completions))
    assert eventually(lambda: reward.runtime_stats()["tasks"] > tasks)
    time.sleep(0.5)
    log.snapshot()
    executor = reward._pool._executor
    assert executor is not None
    executor.shutdown(wait=False, kill_workers=True)
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive()
    assert "error" not in result, result.get("error")
    assert verdicts(result["value"]) == expected
    log.snapshot()


def test_keyboard_interrupt_mid_call(reward, log, terminal_sigint):
    score(reward, innocents(2)[0])
    completions, _ = _slow_batch(12, seconds=1.5)
    finished = []
    timer = threading.Timer(1.0, _thread.interrupt_main)
    with pytest.raises(KeyboardInterrupt):
        try:
            timer.start()
            log.snapshot()
            score(reward, completions)
            finished.append(True)
            timer.join()
            time.sleep(5)  # never reached in practice: the interrupt lands mid-call
        finally:
            timer.cancel()
    assert not finished, "the call completed before the interrupt arrived"
    # The caller is gone: no worker may keep computing for it.
    assert eventually(lambda: not _workers()), [p.pid for p in _workers()]
    # ... and the next call starts a fresh pool and gets right verdicts.
    more, expected = innocents(4, offset=30)
    assert verdicts(score(reward, more)) == expected


def test_every_fault_in_one_batch(reward, log, tmp_path):
    good, expected = innocents(4)
    faults = [box(HANG), box(CRASH), box(f"{CRASH_ONCE}{tmp_path / 'once'}"), box(OOM),
              slow(0.5, r"\frac{x^{2}}{2} + 99")]
    completions = good[:2] + faults[:2] + good[2:3] + faults[2:] + good[3:]
    outcomes = score(reward, completions)
    log.snapshot()
    by_text = dict(zip(completions, outcomes, strict=True))
    assert [by_text[c].verdict for c in good] == expected
    assert by_text[faults[0]].verdict == "TIMEOUT"
    assert by_text[faults[1]].verdict == "CHECKER_ERROR"
    assert [by_text[c].verdict for c in faults[2:]] == ["CORRECT"] * 3


def test_submit_failing_with_nothing_in_flight(reward, log, monkeypatch):
    # The executor can be shut down between _get_executor() and submit()
    # (another thread, another reward object re-creating loky's global
    # executor). Deterministic stand-in: the first submit of a call fails.
    score(reward, innocents(1)[0])
    executor = reward._pool._executor
    calls = []
    real_submit = type(executor).submit

    def flaky_submit(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("cannot schedule new futures after shutdown")
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(type(executor), "submit", flaky_submit)
    good, expected = innocents(2, offset=40)
    assert verdicts(score(reward, good)) == expected


def test_worker_killed_between_calls(reward, log):
    # E.g. the kernel's OOM killer picking an idle worker between two steps.
    score(reward, innocents(2)[0])
    victim = log.snapshot()[0]
    os.kill(victim.pid, signal.SIGKILL)
    assert eventually(lambda: not victim.is_running()
                       or victim.status() == psutil.STATUS_ZOMBIE)
    good, expected = innocents(3, offset=50)
    assert verdicts(score(reward, good)) == expected


def test_two_reward_objects_in_one_process(reward, log):
    # loky has one reusable executor per process: a second reward object
    # with other pool settings re-creates it, shutting the first one's down.
    other = AntiderivativeReward(workers=2, timeout_s=3, memory_limit_mb=2048, cache_size=0)
    try:
        first, expected_first = innocents(2, offset=60)
        second, expected_second = innocents(2, offset=70)
        assert verdicts(score(reward, first[:1])) == expected_first[:1]
        assert verdicts(score(other, second)) == expected_second
        log.snapshot()
        assert verdicts(score(reward, first[1:])) == expected_first[1:]
    finally:
        other.close()
