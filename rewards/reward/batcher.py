"""Concurrent calls share one worker pool: a queue in front of the per-batch scoring.

verl's reward loop calls a score function once per sample from a thread pool,
the reward server answers requests on many threads, async trainers call from
an event loop. Behind a plain lock, N one-sample calls would be N pool round
trips with the workers mostly idle. Here every call is queued; one runner
thread takes everything queued, interleaves the calls' samples into one
batch, scores it with the reward's per-batch code (extraction, dedup, cache,
pool) and hands each call its own results, in its order. While a batch runs,
new calls queue up and form the next one.

Each call keeps its own bound: it returns within ``budget_s(len(call))`` of
being submitted (the pool's budget for a call of that size alone), whatever
else is queued; past it the call gets ``expired(...)`` results and its rows
leave the queue. A batch that no caller waits for any more (deadline passed,
interrupted, coroutine cancelled) is cancelled, so workers never compute for
nobody.

>>> batcher = Batcher(lambda c, i, s: [f"{x}:{f}" for x, f in zip(c, i)],
...                   expired=lambda c, i, s: ["late"] * len(c),
...                   budget_s=lambda n: 60.0, cancel=lambda: None)
>>> batcher.run(["a", "b"], ["f", "g"], [None, None])
['a:f', 'b:g']
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import Any

# (completions, integrands, symbols) -> one value per row, in order.
BatchFn = Callable[[list, list, list], list]
# The main thread waits in slices so that an interrupt (Ctrl-C, or
# _thread.interrupt_main, which wakes no blocked lock) lands promptly; other
# threads cannot receive one and wait in one piece.
_MAIN_THREAD_SLICE_S = 0.1
# Callers served by a batch usually come straight back with their next
# sample (a thread pool working through a batch one sample per call). The
# runner waits this long for as many calls as it just served before starting
# a smaller batch: each batch ends with workers idling on its last chunks, so
# fewer, larger batches keep them busy.
_LINGER_S = 0.002


@dataclass(eq=False)
class _Call:
    completions: list
    integrands: list
    symbols: list
    deadline: float
    future: Future = field(default_factory=Future)
    gone: bool = False  # the caller stopped waiting

    def __post_init__(self) -> None:
        # Running from the start: cancelling an asyncio wrapper of it must
        # not cancel it under the runner (set_result would then raise).
        self.future.set_running_or_notify_cancel()


def interleave(sizes: Sequence[int]) -> list[tuple[int, int]]:
    """(call, row) pairs, round-robin over the calls: if a batch runs out of
    budget, the samples left unchecked are spread over the calls instead of
    all being the last caller's.

    >>> interleave([3, 1, 2])
    [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2)]
    """
    order: list[tuple[int, int]] = []
    live = [i for i, n in enumerate(sizes) if n > 0]
    row = 0
    while live:
        order.extend((i, row) for i in live)
        row += 1
        live = [i for i in live if sizes[i] > row]
    return order


@dataclass
class BatcherStats:
    """Counts of the batcher's work (see :meth:`AntiderivativeReward.runtime_stats`).

    Attributes:
        batches: batches checked; each merges the calls that were waiting when it started.
        calls: calls served by those batches.
        expired_calls: calls answered TIMEOUT at their own bound while their batch still ran.
        cancelled_batches: batches cancelled because every call waiting on them had expired.
        largest_batch_calls: the most calls one batch merged (concurrent TRL processes or
            threads).
    """
    batches: int = 0
    calls: int = 0
    expired_calls: int = 0
    cancelled_batches: int = 0
    largest_batch_calls: int = 0


class Batcher:
    """See the module docstring.

    Args:
        run_batch: scores one batch (the reward's per-batch code).
        expired: the results of a call past its bound (TIMEOUT verdicts).
        budget_s: a call's bound from its number of rows.
        cancel: stops the batch in progress (the pool's cancel).
    """

    def __init__(self, run_batch: BatchFn, *, expired: BatchFn,
                 budget_s: Callable[[int], float], cancel: Callable[[], None]) -> None:
        self._run_batch = run_batch
        self._expired = expired
        self._budget_s = budget_s
        self._cancel = cancel
        self._cond = threading.Condition()
        self._queue: deque[_Call] = deque()
        self._running: list[_Call] = []
        self._runner: threading.Thread | None = None
        self.stats = BatcherStats()

    @property
    def queued(self) -> int:
        """Calls waiting for the next batch."""
        with self._cond:
            return len(self._queue)

    # -- entry points -----------------------------------------------------
    def run(self, completions: list, integrands: list, symbols: list) -> list:
        """Score one call's rows (blocking); see the module docstring."""
        call = self._submit(completions, integrands, symbols)
        main = threading.current_thread() is threading.main_thread()
        try:
            while not call.future.done():
                remaining = call.deadline - time.monotonic()
                if remaining <= 0:
                    break
                wait([call.future], timeout=min(remaining, _MAIN_THREAD_SLICE_S)
                     if main else remaining)
        except BaseException:
            self._abandon(call)
            raise
        return self._outcome(call)

    async def arun(self, completions: list, integrands: list, symbols: list) -> list:
        """:meth:`run` for event-loop callers: awaits instead of blocking."""
        call = self._submit(completions, integrands, symbols)
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(call.future)),
                                   timeout=max(0.0, call.deadline - time.monotonic()))
        except asyncio.TimeoutError:
            pass
        except BaseException:  # the awaiting task was cancelled
            self._abandon(call)
            raise
        return self._outcome(call)

    # -- internals --------------------------------------------------------
    def _submit(self, completions: list, integrands: list, symbols: list) -> _Call:
        call = _Call(list(completions), list(integrands), list(symbols),
                     time.monotonic() + self._budget_s(len(completions)))
        with self._cond:
            self._queue.append(call)
            self._cond.notify_all()  # a lingering runner
            # is_alive: after a fork the parent's runner does not exist here.
            if self._runner is None or not self._runner.is_alive():
                self._runner = threading.Thread(target=self._loop, name="rewards-batcher",
                                                daemon=True)
                self._runner.start()
        return call

    def _outcome(self, call: _Call) -> list:
        if not call.future.done():
            self._abandon(call)
        if call.future.done():  # it may have finished while being abandoned
            return call.future.result()  # re-raises the batch's own error
        with self._cond:
            self.stats.expired_calls += 1
        return self._expired(call.completions, call.integrands, call.symbols)

    def _abandon(self, call: _Call) -> None:
        with self._cond:
            call.gone = True
            if call in self._queue:
                self._queue.remove(call)
                return
            orphaned = bool(self._running) and all(c.gone for c in self._running) \
                and call in self._running
            if orphaned:
                self.stats.cancelled_batches += 1
        if orphaned:
            self._cancel()

    def _loop(self) -> None:
        served = 0
        while True:
            with self._cond:
                if len(self._queue) < served:
                    self._cond.wait_for(lambda n=served: len(self._queue) >= n, _LINGER_S)
                calls = [c for c in self._queue if not c.gone]
                self._queue.clear()
                if not calls:
                    self._runner = None
                    return
                self._running = calls
                self.stats.batches += 1
                self.stats.calls += len(calls)
                self.stats.largest_batch_calls = max(self.stats.largest_batch_calls,
                                                     len(calls))
            try:
                self._serve(calls)
            finally:
                with self._cond:
                    self._running = []
            served = len(calls)

    def _serve(self, calls: list[_Call]) -> None:
        order = interleave([len(c.completions) for c in calls])
        try:
            results = self._run_batch([calls[i].completions[j] for i, j in order],
                                      [calls[i].integrands[j] for i, j in order],
                                      [calls[i].symbols[j] for i, j in order])
        except BaseException as exc:  # noqa: BLE001 - handed to every caller of the batch
            for call in calls:
                call.future.set_exception(exc)
            return
        per_call: list[list[Any]] = [[None] * len(c.completions) for c in calls]
        for (i, j), value in zip(order, results, strict=True):
            per_call[i][j] = value
        for call, values in zip(calls, per_call, strict=True):
            call.future.set_result(values)
