"""Fan-out of checks over a loky reusable executor, with hard deadlines.

Three layers bound the time of a sample:

1. the checker's own time boxes (signal timers on the worker's main thread);
2. a caller-side watchdog per task: a task past ``n * timeout_s + margin``
   means a worker stuck where signals cannot reach (C code, a huge integer
   power), so the pool is killed and replaced;
3. a budget for the whole call, so one call returns within a bound that
   depends only on the deadline and the batch size.

Killing one loky worker fails every future in the pool, healthy ones too.
So after a kill or a crash the innocent samples are resubmitted, never
penalized, and the samples of the task that broke are re-run one per task
("suspects", at most one in flight) until the culprit is identified: a
suspect that overruns alone gets TIMEOUT; one that crashes the pool twice
gets CHECKER_ERROR.
"""
from __future__ import annotations

import gc
import importlib
import logging
import math
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, CancelledError, wait
from dataclasses import dataclass, field
from typing import Any

import loky.reusable_executor
from loky import get_reusable_executor
from loky.process_executor import BrokenProcessPool, ShutdownExecutorError

from ..check.job import Job
from ..check.limits import CAPS
from ..check.request import CheckRequest
from ..check.result import CheckResult, StageRecord, Verdict
from .config import RewardConfig

logger = logging.getLogger(__name__)


# BLAS/OpenMP threads inside a checker worker only fight the other workers.
# SymPy's constructor cache holds 1,000 entries by default: a worker's checks
# rebuild the same subexpressions (rebinding, F' term by term, the proofs),
# and a larger one cut a worker's time on the hard batch by 4-7% (min and
# median of 5 runs) for ~30 MB. A value the user set is kept.
_WORKER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "SYMPY_CACHE_SIZE": os.environ.get("SYMPY_CACHE_SIZE",
                                                  str(CAPS.sympy_cache_entries))}


def available_cpus() -> int:
    """The cores this process may run on (its affinity mask)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# Set by torchrun, accelerate and deepspeed: how many ranks share this node.
# Every rank builds its own reward (TRL calls it on each rank's slice), so
# each may use only its share of the node.
LOCAL_WORLD_SIZE_ENV = "LOCAL_WORLD_SIZE"
# Below this an RLIMIT_AS cap breaks imports and warm-up, not runaway checks
# (a warm worker maps ~70 MB).
MIN_WORKER_MEMORY_MB = 512


def local_world_size() -> int:
    """Ranks on this node (``LOCAL_WORLD_SIZE``; 1 when unset or invalid)."""
    try:
        return max(1, int(os.environ.get(LOCAL_WORLD_SIZE_ENV, "1")))
    except ValueError:
        return 1


def auto_workers() -> int:
    """``workers=None``: this rank's share of the cores this process may use."""
    return max(1, available_cpus() // local_world_size())


def available_memory_mb() -> float:
    """Memory this process may use: the machine's, or its cgroup's limit if lower."""
    import psutil

    total = psutil.virtual_memory().total / 2**20
    try:
        with open("/sys/fs/cgroup/memory.max") as handle:
            limit = handle.read().strip()
        if limit.isdigit():
            total = min(total, int(limit) / 2**20)
    except OSError:
        pass
    return total


def worker_memory_limit_mb(configured: int | None, workers: int) -> int | None:
    """Per-worker ``RLIMIT_AS``: ``configured``, lowered so that the workers
    of every rank on the node together stay within its memory (8 ranks on a
    node must not each give 32 workers 3 GB); ``None`` (no cap) stays ``None``."""
    if not configured:
        return configured
    share = available_memory_mb() / local_world_size() / max(1, workers)
    return int(min(int(configured), max(MIN_WORKER_MEMORY_MB, share)))


# -- workers die with the process that started them -------------------------
# A host killed by SIGTERM (torchrun, Ray, SLURM) or SIGKILL runs no cleanup,
# and a loky worker would sit idle until its 600 s timeout; loky's resource
# tracker reads a pipe the workers hold open, so it lingers as long as they do.
# Each worker therefore watches its parent and exits when it is gone.
#
# Linux tells a child when its parent goes (PR_SET_PDEATHSIG), but "parent"
# means the *thread* that forked it: loky forks from whichever thread submits
# (the reward's batcher thread, which ends after every batch) or from its
# manager thread, and a plain SIGKILL death signal killed the workers after
# every call. So the signal only wakes a handler that exits if the parent
# *process* changed (os.getppid() names the process, not the thread); when
# one thread of the host exits, the kernel hands the child to another and
# the signal is sent again at that one's exit. Elsewhere a daemon thread
# polls os.getppid().
_PR_SET_PDEATHSIG = 1
_PARENT_GONE_SIGNAL = getattr(signal, "SIGUSR1", None)
_PARENT_POLL_S = 0.5
_PARENT_GONE_EXIT_CODE = 3


def _exit_if_orphaned(parent_pid: int) -> None:
    if os.getppid() != parent_pid:
        # _exit: no atexit hooks or queue flushes, which may wait on the
        # parent that is gone.
        os._exit(_PARENT_GONE_EXIT_CODE)


def _set_parent_death_signal(sig: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int | None) -> None:
    """Exit this worker when ``parent_pid`` (the process that started it) is gone."""
    parent_pid = parent_pid or os.getppid()
    if _PARENT_GONE_SIGNAL is not None:
        # The handler first: the death signal's default action would end
        # the worker at the exit of the thread that forked it.
        signal.signal(_PARENT_GONE_SIGNAL, lambda *_: _exit_if_orphaned(parent_pid))
        if _set_parent_death_signal(_PARENT_GONE_SIGNAL):
            _exit_if_orphaned(parent_pid)  # it may have died before the signal was set
            return
        signal.signal(_PARENT_GONE_SIGNAL, signal.SIG_DFL)

    def poll() -> None:
        while True:
            _exit_if_orphaned(parent_pid)
            time.sleep(_PARENT_POLL_S)

    threading.Thread(target=poll, name="rewards-parent-watch", daemon=True).start()


def _allow_children() -> None:
    """Let a daemonic process (TRL's async GRPO rollout worker, a spawned
    ``daemon=True`` child) start the checker workers.

    multiprocessing refuses children to daemonic processes because their
    parent terminates them at its exit with no clean-up, which would orphan
    the grandchildren. Ours do not outlive this process: each worker exits
    when its parent process is gone (:func:`_watch_parent`), so the refusal
    guards nothing here, and the workers keep what an in-process check would
    lose: the signal deadline of a main thread, the memory cap of a process
    of its own, and the watchdog's kill. The flag is this process's own
    record; the process that started it still treats it as daemonic.
    """
    process = multiprocessing.current_process()
    if process.daemon:
        logger.info("%s is daemonic: starting the checker workers anyway (they exit with it)",
                    process.name)
        process.daemon = False


def _deterministic_assumptions() -> None:
    """SymPy's assumption queries visit the facts they may deduce from in a
    random order, from an unseeded generator (to expose inconsistent handlers
    in its own test suite): a twentieth of a check's time here, and a verdict
    that could depend on the draw. A worker visits them sorted instead: the
    same order in every process and run."""
    # By module path: ``from sympy.core import assumptions`` is a function of
    # that name, and setting ``shuffle`` on it changed nothing.
    importlib.import_module("sympy.core.assumptions").shuffle = list.sort


def _cached_free_symbols() -> None:
    """``Basic.free_symbols`` kept per expression in a worker.

    SymPy walks the whole tree for it on every call, and it is asked of the
    same nodes over and over (construction, ``has``, substitution, our own
    stages): 5% of a worker's time. An expression is immutable and equal
    expressions have equal free symbols, so the set is kept by expression (a
    copy is returned: some callers, SymPy's ``Integral`` among them, change
    the set they get). Classes with their own ``free_symbols`` (Symbol,
    Derivative, Integral, ...) keep it. Up to ``CAPS.free_symbol_sets``
    expressions, cleared when full."""
    from sympy.core.basic import Basic

    computed = getattr(Basic.__dict__.get("free_symbols"), "fget", None)
    if computed is None or getattr(computed, "_kept", False):
        return  # not the property this was written for, or patched already
    kept: dict[Basic, frozenset] = {}

    def free_symbols(self: Basic) -> set:
        hit = kept.get(self)
        if hit is None:
            if len(kept) >= CAPS.free_symbol_sets:
                kept.clear()
            hit = kept[self] = frozenset(computed(self))
        return set(hit)

    free_symbols._kept = True  # type: ignore[attr-defined]
    free_symbols.__doc__ = computed.__doc__
    Basic.free_symbols = property(free_symbols)  # type: ignore[method-assign]


def _quiet_collector() -> None:
    """Fewer, smaller cyclic-garbage passes in a worker.

    A check builds and drops tens of thousands of SymPy objects, nearly all
    freed by reference counting (expression trees hold no cycles); at
    Python's default thresholds the collector still ran ~150 young passes and
    two full ones over the hard batch's 448 checks, each full pass walking
    every object of SymPy's modules and caches (~150,000): 3% of the checks'
    time. Young passes now wait for ``CAPS.young_collection_allocations``
    allocations; the objects alive after warm-up (modules, tables, warm
    caches: they live as long as the worker) are frozen out of every pass
    (:func:`_warmup`). Garbage without cycles is freed as before, when its
    last reference goes."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(CAPS.young_collection_allocations, middle, old)


def _init_worker(memory_limit_mb: int | None, parent_pid: int | None = None) -> None:
    # Ctrl-C belongs to the trainer: a worker must not die half-way through
    # a chunk on the terminal's SIGINT; the parent kills the pool instead.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(parent_pid)
    _deterministic_assumptions()
    _cached_free_symbols()
    _quiet_collector()
    if memory_limit_mb:
        import resource

        limit = int(memory_limit_mb) * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        # Runaway allocation (expand of a huge power) becomes MemoryError,
        # which the checker turns into a verdict, instead of the OOM killer
        # taking the whole machine's training run down.
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return float("nan")


def _warmup(freeze: bool = True) -> int:
    # Import everything a check needs and warm its caches (check.warm_up).
    from ..check.pipeline import warm_up

    warm_up()
    if freeze:
        # What is alive now lives as long as the worker: out of every
        # collection from here on (_quiet_collector).
        gc.collect()
        gc.freeze()
    return os.getpid()


# Per worker process: verdicts by derivative, reused across tasks and batches.
_MEMO = None


def _check_chunk(jobs: list[Job], request: CheckRequest,
                 check_fn: Callable[..., CheckResult] | None = None) -> tuple[list[dict], dict]:
    """Runs in a worker: each job judged whole (its answer as extracted, so the
    policy is not applied twice; its extraction record first), each result in
    the wire form (:meth:`CheckResult.to_dict`) the parent keeps."""
    global _MEMO
    if check_fn is None:
        from ..check import JudgementMemo, check_antiderivative

        if _MEMO is None:
            _MEMO = JudgementMemo()
        check_fn = check_antiderivative
    out = []
    for job in jobs:
        result = check_fn(job.answer, job.integrand, request.replace(symbol=job.symbol),
                          input_kind="extracted", alternatives=job.alternatives, memo=_MEMO,
                          extraction=job.extraction)
        out.append(result.to_dict())
    return out, {"pid": os.getpid(), "rss_mb": _rss_mb()}


def _as_jobs(jobs: list) -> list[Job]:
    # A plain (answer, integrand, symbol) tuple is a job too.
    return [job if isinstance(job, Job) else Job(*job) for job in jobs]


def _size(job: Job) -> int:
    # What a check's cost grows with, known before it runs: the length of
    # what it parses (answer, alternatives, integrand as text).
    return (len(job.answer) + sum(len(a) for a in job.alternatives)
            + len(job.integrand if isinstance(job.integrand, str) else str(job.integrand)))


def _unusable(executor) -> bool:
    """Shut down (another thread, another reward object re-creating loky's
    per-thread executor) or broken (a worker died between calls). loky keeps
    these in ``_flags``; ``_broken``/``_shutdown_thread`` are the stdlib's
    names and never exist on a loky executor."""
    flags = getattr(executor, "_flags", None)
    return flags is not None and (getattr(flags, "broken", None) is not None
                                  or bool(getattr(flags, "shutdown", False)))


def failure_result(verdict: Verdict, stage: str, reason: str, **data: Any) -> CheckResult:
    """A result for a sample the worker never reported on."""
    return CheckResult(verdict, stage, [StageRecord(stage, status="fail", data={"reason": reason,
                                                                                 **data})],
                       {"reason": reason, **data})


def _whole(job: Job, result: CheckResult) -> dict:
    """A failure the pool reported for ``job`` (no worker did), in the wire
    form and opening with the job's extraction, like a worker's result."""
    if job.extraction is not None:
        result.stages.insert(0, job.extraction)
    return result.to_dict()


# -- the host's side: no pool outlives its process or crosses a fork ---------
_LIVE_POOLS: weakref.WeakSet = weakref.WeakSet()
_exit_hook_pid: int | None = None


def _kill_workers_at_exit() -> None:
    for pool in list(_LIVE_POOLS):
        pool._abandon()


def _ensure_exit_hook() -> None:
    # A multiprocessing child skips atexit: its only exit path runs these
    # finalizers and then joins every child process, so a pool still open
    # there (a reward used without close()) blocked it until the workers'
    # idle timeout. The registry starts empty in each child, hence per pid.
    global _exit_hook_pid
    if _exit_hook_pid != os.getpid():
        _exit_hook_pid = os.getpid()
        multiprocessing.util.Finalize(None, _kill_workers_at_exit, exitpriority=100)


def _forget_inherited_pools() -> None:
    # In a forked child the executor belongs to the parent: its workers and
    # queues are the parent's, so submitting there sent the child's checks
    # to the parent's workers (the child timed out) and killing it killed
    # them. Drop the reference; the child starts its own on first use.
    for pool in list(_LIVE_POOLS):
        pool._executor = None
        pool._samples_since_start = 0
    # loky caches an executor per thread, and the forking thread's cache
    # came along with the fork.
    storage = getattr(loky.reusable_executor, "_executor_storage", None)
    if storage is not None:
        storage.executor = storage.executor_kwargs = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_pools)


@dataclass
class _Task:
    indices: list[int]
    suspect: bool
    budget_s: float
    # None while queued behind busy workers: the watchdog clock starts when
    # a worker is free to take it (loky runs tasks first in, first out).
    started: float | None = None


@dataclass
class PoolStats:
    """Counts of the pool's incidents (see :meth:`AntiderivativeReward.runtime_stats`).

    Attributes:
        kills: pools killed by the watchdog (a task ran past its deadline where no signal
            reached it).
        crashes: pools broken by a worker that died (loky then fails every future in the
            pool).
        resubmitted: samples sent again after a kill or a crash took down their task.
        watchdog_timeouts: samples answered TIMEOUT by the watchdog (alone in their task,
            past its deadline).
        tasks: tasks submitted to the executor (a task is a chunk of samples).
        worker_rss_mb: each live worker's resident memory (MB) at its last task, by pid;
            above ``max_worker_rss_mb`` the pool is recycled.
    """
    kills: int = 0
    crashes: int = 0
    resubmitted: int = 0
    watchdog_timeouts: int = 0
    tasks: int = 0
    worker_rss_mb: dict[int, float] = field(default_factory=dict)


class CheckPool:
    """Runs checks in worker processes; see the module docstring."""

    def __init__(self, config: RewardConfig, *,
                 check_fn: Callable[..., CheckResult] | None = None) -> None:
        # check_fn: a module-level function with check_antiderivative's
        # signature, run in the workers instead of it (fault-injection tests,
        # custom checkers). It must be importable by the workers.
        self.check_fn = check_fn
        self.config = config
        # Workers are capped once, by _init_worker: no per-check cap on top.
        # A rejected answer's expressions are printed only for a trace file,
        # the one reader of them.
        self.request = config.check_request().replace(
            memory_limit_mb=None, trace_rejected=config.trace_path is not None)
        self.workers = config.workers or auto_workers()
        self.timeout_s = config.timeout_s
        self.chunk_size = max(1, int(config.chunk_size))
        self.memory_limit_mb = worker_memory_limit_mb(config.memory_limit_mb, self.workers)
        self.margin_s = config.watchdog_margin_s
        self.idle_timeout_s = config.idle_timeout_s
        # Recycling limits, read on every call.
        self.max_worker_rss_mb = config.max_worker_rss_mb
        self.max_tasks_per_pool = config.max_tasks_per_worker_pool
        self.stats = PoolStats()
        self._executor = None
        self._last_used = 0.0
        self._samples_since_start = 0
        self._cancelled = threading.Event()
        _LIVE_POOLS.add(self)

    # -- executor lifecycle ------------------------------------------------
    def _get_executor(self):
        stale = time.monotonic() - self._last_used > self.idle_timeout_s * 0.8
        if self._executor is None or stale or _unusable(self._executor):
            _allow_children()
            self._executor = get_reusable_executor(
                max_workers=self.workers, timeout=self.idle_timeout_s,
                initializer=_init_worker, initargs=(self.memory_limit_mb, os.getpid()),
                env=_WORKER_ENV, reuse="auto")
            _ensure_exit_hook()
            self._warm(self._executor)
        self._last_used = time.monotonic()
        return self._executor

    def _warm(self, executor) -> None:
        # Workers spawn and import SymPy lazily; without this the first tasks
        # after a (re)start would spend their deadline on imports.
        futures = [executor.submit(_warmup) for _ in range(self.workers)]
        wait(futures, timeout=max(60.0, 10 * self.timeout_s))

    def kill(self) -> None:
        """Kill the workers now (stuck or broken pool); the next call starts
        a fresh executor."""
        executor, self._executor = self._executor, None
        if executor is not None:
            try:
                executor.shutdown(wait=True, kill_workers=True)
            except Exception:  # noqa: BLE001 - already broken; nothing to save
                pass
        self._samples_since_start = 0

    def close(self) -> None:
        """Stop the workers (the next :meth:`run` starts fresh ones)."""
        self.kill()

    def _abandon(self) -> None:
        """Kill the workers without loky's hand-shake or any join: at exit no
        one waits for a result, and a wedged manager thread must not hold
        the process (multiprocessing reaps the dead workers after this)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        for process in list(getattr(executor, "_processes", {}).values()):
            try:
                process.kill()
            except (OSError, ValueError, AttributeError):
                pass
        try:
            executor.shutdown(wait=False, kill_workers=True)
        except Exception:  # noqa: BLE001 - exiting; nothing to save
            pass

    def cancel(self) -> None:
        """Stop the call in progress (from another thread): its unfinished
        samples get TIMEOUT and its workers are killed. For a caller that is
        gone; a call that starts later is not affected."""
        self._cancelled.set()
        self.kill()

    def call_budget(self, n_jobs: int) -> float:
        """The most one :meth:`run` of ``n_jobs`` checks may take: every
        sample to its deadline, a kill and a retry, in waves over the workers."""
        waves = math.ceil(n_jobs / self.workers) + 2
        return self.margin_s * 4 + 3 * waves * (self.timeout_s + self.margin_s)

    def _maybe_recycle(self) -> None:
        # A long run leaks through SymPy's caches; a fresh pool every N
        # samples, or when a worker grew too big, keeps RSS flat.
        big = [rss for rss in self.stats.worker_rss_mb.values() if rss > self.max_worker_rss_mb]
        if self._samples_since_start > self.max_tasks_per_pool or big:
            self.kill()
            self.stats.worker_rss_mb.clear()

    # -- the run loop ------------------------------------------------------
    def run(self, jobs: list[Job],
            more: Callable[[], list[Job]] | None = None) -> list[CheckResult]:
        """Check every job (and those ``more`` adds: :meth:`run_wire`); always
        one result per job. A plain ``(answer, integrand, symbol)`` tuple is a
        job too."""
        return [CheckResult.from_dict(raw) for raw in self.run_wire(jobs, more)]

    def run_wire(self, jobs: list[Job],
                 more: Callable[[], list[Job]] | None = None) -> list[dict]:
        """:meth:`run`, each result in the wire form the workers return
        (:meth:`CheckResult.to_dict`), which the reward caches as is.

        ``more``, when given, is called once, as soon as the first tasks are
        with the workers: the jobs it returns join the call (their results
        follow ``jobs``'). The caller prepares them while the workers start
        on ``jobs``."""
        jobs = _as_jobs(jobs)
        if not jobs and more is not None:
            jobs, more = _as_jobs(more()), None
        results: list[CheckResult | dict | None] = [None] * len(jobs)
        if not jobs:
            return []
        self._cancelled.clear()
        self._maybe_recycle()
        # Start (and warm) the workers before the call's clock starts: a cold
        # start must not eat the budget that bounds the checks themselves.
        self._get_executor()
        started = time.monotonic()
        call_budget = self.call_budget(len(jobs))

        # The first jobs alone have no end of the call to balance (the end
        # is in what ``more`` adds): whole chunks, no single-job tail.
        pending: deque[list[int]] = deque(self._chunks(jobs, tail=more is None))
        suspects: deque[int] = deque()
        strikes: dict[int, int] = {}
        inflight: dict[Any, _Task] = {}

        try:
            while pending or suspects or inflight or more is not None:
                if time.monotonic() - started > call_budget or self._cancelled.is_set():
                    break
                executor = self._get_executor()
                self._fill(executor, jobs, pending, suspects, inflight)
                if more is not None and (inflight or not pending):
                    later, more = _as_jobs(more()), None
                    base = len(jobs)
                    jobs.extend(later)
                    results.extend([None] * len(later))
                    pending.extend([[base + i for i in task] for task in self._chunks(later)])
                    call_budget = self.call_budget(len(jobs))
                    self._fill(executor, jobs, pending, suspects, inflight)
                if not inflight:  # the executor broke on submit; a fresh one next loop
                    continue
                now = time.monotonic()
                self._promote(inflight)
                next_due = min(t.started + t.budget_s for t in inflight.values()
                               if t.started is not None)
                wake = max(0.0, min(next_due, started + call_budget) - now)
                done, _ = wait(list(inflight), timeout=wake, return_when=FIRST_COMPLETED)
                if self._cancelled.is_set():
                    break  # the killed pool's futures are not crashes to investigate
                broken: list[_Task] = []
                for future in done:
                    task = inflight.pop(future)
                    try:
                        out, info = future.result()
                    except (BrokenProcessPool, ShutdownExecutorError, CancelledError):
                        broken.append(task)
                        continue
                    except Exception as exc:  # noqa: BLE001 - e.g. a result that won't unpickle
                        for i in task.indices:
                            results[i] = failure_result(Verdict.CHECKER_ERROR, "pool",
                                                        "task_error",
                                                        error=f"{type(exc).__name__}: {exc}")
                        continue
                    self.stats.worker_rss_mb[info["pid"]] = info["rss_mb"]
                    for i, raw in zip(task.indices, out, strict=False):
                        results[i] = raw
                self._promote(inflight)
                if broken:
                    self._on_crash(broken, inflight, pending, suspects, strikes, results)
                    continue
                now = time.monotonic()
                overdue = [t for t in inflight.values()
                           if t.started is not None and now > t.started + t.budget_s]
                if overdue:
                    self._on_overdue(overdue, inflight, pending, suspects, results)
        except BaseException:
            # KeyboardInterrupt or worse: never leave workers computing for a
            # caller that is gone.
            self.kill()
            raise

        if more is not None:  # the call ended before it was asked for: those jobs too
            later = _as_jobs(more())
            jobs.extend(later)
            results.extend([None] * len(later))
        if inflight or pending or suspects or any(value is None for value in results):
            self.kill()
            reason = "cancelled" if self._cancelled.is_set() else "call_budget"
            for i, value in enumerate(results):
                if value is None:
                    results[i] = failure_result(Verdict.TIMEOUT, "watchdog", reason,
                                                budget_s=round(call_budget, 1))
        return [raw if isinstance(raw, dict) else _whole(job, raw)  # type: ignore[arg-type]
                for job, raw in zip(jobs, results, strict=True)]

    def _chunk_for(self, n: int) -> int:
        # Small batches: one sample per task so every worker gets work.
        return max(1, min(self.chunk_size, math.ceil(n / (self.workers * 2))))

    def _chunks(self, jobs: list[Job], tail: bool = True) -> list[list[int]]:
        """Job indices per task: chunks, then one job per task for the last
        two per worker, so a call does not end with one worker finishing a
        whole chunk while the others idle (concurrent callers make many
        small calls, each with its own end).

        A chunk holds whole groups of one integrand where they fit: a GRPO
        group's answers then meet in one worker, whose caches (the parsed
        and compiled integrand, term derivatives, verdicts by derivative)
        serve the whole group instead of half of it in each of two workers.

        Groups go out longest first (:func:`_size`, the text a group's
        checks read): the longest-processing-time-first rule, with length as
        the estimate. A call ends when its last task does, and a 200 ms
        check left for the end kept one worker busy alone (the hard batch's
        heaviest check sat in the group that sorted last, by integrand).
        Without ``tail``, no single-job tasks at the end.
        """
        n = len(jobs)
        chunk = self._chunk_for(n)
        singles = min(n, 2 * self.workers) if chunk > 1 and tail else 0
        groups: dict[tuple, list[int]] = {}
        for i, job in enumerate(jobs):
            groups.setdefault((job.integrand, job.symbol), []).append(i)
        groups = dict(sorted(groups.items(),
                             key=lambda kv: -sum(_size(jobs[i]) for i in kv[1])))
        order = [i for members in groups.values() for i in members]
        head, tail = order[:n - singles], order[n - singles:]
        in_head = set(head)
        tasks: list[list[int]] = []
        current: list[int] = []
        for members in groups.values():
            rest = [i for i in members if i in in_head]
            while rest:
                if len(current) + len(rest) <= chunk:
                    current, rest = current + rest, []
                elif current:
                    tasks.append(current)
                    current = []
                else:
                    tasks.append(rest[:chunk])
                    rest = rest[chunk:]
        if current:
            tasks.append(current)
        return tasks + [[i] for i in tail]

    def _fill(self, executor, jobs, pending, suspects, inflight) -> None:
        # Two tasks per worker: the second waits in loky's queue, so a worker
        # never idles for a round trip to this process between tasks (with
        # checks of a few ms, that round trip halved the throughput).
        while len(inflight) < 2 * self.workers and (pending or suspects):
            suspect_running = any(t.suspect for t in inflight.values())
            if suspects and not suspect_running:
                indices, suspect = [suspects.popleft()], True
            elif pending:
                indices, suspect = pending.popleft(), False
            else:
                break
            try:
                future = executor.submit(_check_chunk, [jobs[i] for i in indices],
                                         self.request, self.check_fn)
            except (RuntimeError, BrokenProcessPool, ShutdownExecutorError):
                # Shut down behind our back (another thread, a crash): start
                # over with a fresh executor on the next loop.
                (suspects.appendleft(indices[0]) if suspect else pending.appendleft(indices))
                self.kill()
                return
            self.stats.tasks += 1
            self._samples_since_start += len(indices)
            inflight[future] = _Task(indices, suspect, len(indices) * self.timeout_s + self.margin_s)
            self._promote(inflight)

    def _promote(self, inflight: dict[Any, _Task]) -> None:
        running = sum(1 for t in inflight.values() if t.started is not None)
        now = time.monotonic()
        for task in inflight.values():  # dicts keep submission order
            if running >= self.workers:
                break
            if task.started is None:
                task.started = now
                running += 1

    def _on_crash(self, broken, inflight, pending, suspects, strikes, results) -> None:
        self.stats.crashes += 1
        affected = broken + list(inflight.values())
        inflight.clear()
        self.kill()
        suspect_tasks = [t for t in affected if t.suspect]
        for task in affected:
            if task.suspect:
                continue
            if suspect_tasks:
                # A suspect was running: blame it, re-run the others as is.
                pending.appendleft(task.indices)
                self.stats.resubmitted += len(task.indices)
            else:
                suspects.extend(task.indices)
        for task in suspect_tasks:
            (index,) = task.indices
            strikes[index] = strikes.get(index, 0) + 1
            if strikes[index] >= 2:
                results[index] = failure_result(Verdict.CHECKER_ERROR, "worker_crash",
                                                "worker_crash", strikes=strikes[index])
            else:
                suspects.appendleft(index)

    def _on_overdue(self, overdue, inflight, pending, suspects, results) -> None:
        self.stats.kills += 1
        late = {id(t) for t in overdue}
        others = [t for t in inflight.values() if id(t) not in late]
        inflight.clear()
        self.kill()
        for task in overdue:
            if len(task.indices) == 1:
                self.stats.watchdog_timeouts += 1
                results[task.indices[0]] = failure_result(
                    Verdict.TIMEOUT, "watchdog", "timeout", deadline_s=self.timeout_s,
                    note="worker killed: past its deadline where signals could not reach")
            else:
                suspects.extend(task.indices)
        for task in others:
            self.stats.resubmitted += len(task.indices)
            if task.suspect:
                suspects.appendleft(task.indices[0])
            else:
                pending.appendleft(task.indices)
