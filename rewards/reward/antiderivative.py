"""The GRPO reward callable: completions in, one float (or None) each out.

Data flows one way: completion -> concurrent calls merged into one batch
(:mod:`.batcher`) -> the job (:func:`~rewards.check.job.build_job`, here, in
this process: cheap, and it lets identical answers be checked once) -> dedup
+ cache -> parse and check (in worker processes, :mod:`.pool`; results come
back and are cached in one wire form) -> verdict -> reward (:mod:`.shaping`)
-> trace (:mod:`.trace`) + metrics (:mod:`.metrics`).

>>> from rewards import AntiderivativeReward
>>> with AntiderivativeReward(workers=1) as reward:
...     reward(prompts=["p", "p"], completions=[r"\\boxed{x^3/3 + C}", "no idea"],
...            integrand=["x**2", "x**2"])
[1.0, -0.2]
"""
from __future__ import annotations

import atexit
import itertools
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..check.job import Job, build_job, cache_entry, job_result
from ..check.limits import CAPS
from ..check.request import CheckRequest
from ..check.result import CheckResult, Verdict
from .batcher import Batcher
from .config import RewardConfig
from .metrics import batch_metrics
from .outcome import Outcome, completion_text, logged_columns
from .pool import CheckPool, failure_result
from .shaping import RewardShaping
from .sinks import send_to_trl_async
from .trace import TraceWriter, should_trace, trace_record
from .values import key_text

logger = logging.getLogger(__name__)
_LIVE: weakref.WeakSet = weakref.WeakSet()
# Keyword arguments TRL adds to the dataset columns.
_TRL_KWARGS = ("trainer_state", "log_extra", "log_metric")


@atexit.register
def _close_all() -> None:
    # Interpreter exit must not leave checker workers behind.
    for reward in list(_LIVE):
        reward.close()


class AntiderivativeReward:
    """Reward for "is the final answer an antiderivative of the integrand?".

    Use it in ``GRPOTrainer(reward_funcs=[AntiderivativeReward()])``: TRL calls
    it with ``prompts``, ``completions`` and every dataset column as keyword
    arguments; ``integrand_column`` names the column holding f (SymPy syntax
    by default), ``symbol_column`` an optional per-row integration variable.
    Rows whose integrand is missing get ``None`` (not judged: multi-task
    datasets). The object pickles (configuration only; workers restart in the
    new process) and can be called from any thread: concurrent calls are
    checked together (:mod:`.batcher`); event loops await :meth:`ascore`.

    Args:
        config: a :class:`~rewards.reward.config.RewardConfig`; defaults apply
            where it is ``None``.
        **options: any :class:`RewardConfig` field (``shaping``,
            ``integrand_column``, ``timeout_s``, ``workers``, ...), overriding
            ``config``. An unknown name is a ``ValueError`` listing the valid ones.
    """

    def __init__(self, config: RewardConfig | None = None, /, **options: Any) -> None:
        config = config or RewardConfig()
        self.config = config.replace(**options) if options else config
        self.shaping = RewardShaping.load(self.config.shaping)
        # TRL names the metric after __name__ (an instance has none by default).
        self.__name__ = self.config.name
        self._check_fn: Callable[..., CheckResult] | None = None
        self._setup_runtime()

    # -- construction -------------------------------------------------------
    @classmethod
    def from_config(cls, path: str | Path, **overrides: Any) -> AntiderivativeReward:
        """Build from YAML: a full reward config (``configs/reward/*.yaml``)
        or a bare shaping file (a mapping with a ``rewards`` key)."""
        path = Path(path)
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if isinstance(raw, dict) and "rewards" in raw and "shaping" not in raw:
            return cls(shaping=RewardShaping.from_yaml(path), **overrides)
        return cls(RewardConfig.from_yaml(path, **overrides))

    def _setup_runtime(self) -> None:
        cfg = self.config
        self._lock = threading.Lock()
        # Job -> its result in the wire form, less the extraction (check.job.cache_entry).
        self._cache: OrderedDict[Job, dict] = OrderedDict()
        self._pool = CheckPool(cfg, check_fn=self._check_fn)
        self._batcher = Batcher(self._score_batch, expired=self._expired,
                                budget_s=self._pool.call_budget, cancel=self._pool.cancel)
        # The one request every check gets: its answer policy is applied
        # here, once, by build_job; the workers only parse and judge.
        self._request = self._pool.request
        self._requests: dict[str | None, CheckRequest] = {}
        self._trace = (TraceWriter(cfg.trace_path, cfg.trace_max_bytes, cfg.trace_backups)
                       if cfg.trace_path else None)
        self._batch_index = itertools.count(1)
        self._warned: set[str] = set()
        self.last_metrics: dict[str, float] = {}
        _LIVE.add(self)

    def _use_check_fn(self, check_fn: Callable[..., CheckResult]) -> AntiderivativeReward:
        """Run ``check_fn`` in the workers instead of the checker: a seam for
        fault-injection tests (:mod:`rewards.testing.faults`), not a public
        option. It must be importable by the workers and is not pickled."""
        self.close()
        self._check_fn = check_fn
        self._setup_runtime()
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config, "shaping": self.shaping}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self.shaping = state["shaping"]
        self.__name__ = self.config.name
        self._check_fn = None
        self._setup_runtime()

    def __repr__(self) -> str:
        return (f"AntiderivativeReward(name={self.__name__!r}, shaping={self.shaping.name!r}, "
                f"integrand_column={self.config.integrand_column!r}, "
                f"timeout_s={self.config.timeout_s})")

    def runtime_stats(self) -> dict[str, Any]:
        """What the reward's machinery did so far (for /health, benchmarks
        and tests).

        Returns:
            A dict: ``workers`` and ``memory_limit_mb`` (per worker) of the
            pool; ``tasks`` sent to it, ``kills`` (watchdog), ``crashes``,
            ``resubmitted`` samples (innocents re-run after a kill or crash),
            ``watchdog_timeouts``; ``worker_rss_mb`` (pid -> MB, as last
            reported by each worker); ``batches`` of concurrent calls,
            ``calls``, ``largest_batch_calls``, ``expired_calls``,
            ``queued_calls``; ``cache_entries``.
        """
        pool, batcher = self._pool.stats, self._batcher.stats
        return {"workers": self._pool.workers, "memory_limit_mb": self._pool.memory_limit_mb,
                "tasks": pool.tasks, "kills": pool.kills, "crashes": pool.crashes,
                "resubmitted": pool.resubmitted, "watchdog_timeouts": pool.watchdog_timeouts,
                "worker_rss_mb": dict(pool.worker_rss_mb),
                "batches": batcher.batches, "calls": batcher.calls,
                "largest_batch_calls": batcher.largest_batch_calls,
                "expired_calls": batcher.expired_calls, "queued_calls": self._batcher.queued,
                "cache_entries": len(self._cache)}

    def close(self) -> None:
        """Stop the worker processes (they restart on the next call)."""
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.close()

    def __enter__(self) -> AntiderivativeReward:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- TRL entry point ----------------------------------------------------
    def __call__(self, prompts: list | None = None, completions: list | None = None,
                 completion_ids: list | None = None, **kwargs: Any) -> list[float | None]:
        completions = list(completions or [])
        column = self.config.integrand_column
        if column not in kwargs:
            available = sorted(k for k in kwargs if k not in _TRL_KWARGS)
            raise KeyError(f"{self.__name__}: integrand column {column!r} is not among the "
                           f"dataset columns {available}; set integrand_column")
        integrands = list(kwargs[column])
        symbol_column = self.config.symbol_column
        symbols = list(kwargs[symbol_column]) if symbol_column and symbol_column in kwargs \
            else None
        outcomes = self.score(completions, integrands, symbols)

        state = kwargs.get("trainer_state")
        step = getattr(state, "global_step", None)
        self._write_trace(outcomes, prompts, step)
        metrics = batch_metrics(outcomes)
        self.last_metrics = metrics
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for key, value in metrics.items():
                log_metric(f"{self.__name__}/{key}", value)
        else:  # TRL's async GRPO worker passes none: its own metrics queue, if this is one
            send_to_trl_async(metrics, self.__name__)
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            # The integrand and variable make TRL's completion log rescorable
            # on its own (python -m rewards score completions_*.parquet).
            columns = logged_columns(self.__name__)
            log_extra(columns["verdict"], [o.verdict for o in outcomes])
            log_extra(columns["extracted_answer"], [o.extracted for o in outcomes])
            log_extra(columns["integrand"],
                      [key_text(f) for f in integrands])
            log_extra(columns["variable"], [o.symbol for o in outcomes])
        return [o.reward for o in outcomes]

    # -- scoring core (also used by offline scoring) -------------------------
    def score(self, completions: list[Any], integrands: list[Any],
              symbols: list[str | None] | None = None) -> list[Outcome]:
        """Check a batch; one :class:`Outcome` per completion, in order.

        ``integrands`` (and ``symbols``, when given) must be as long as
        ``completions``: a shorter column is a caller's bug, not rows to skip.
        Calls from several threads are checked together, each within its own
        bound (:mod:`.batcher`).
        """
        rows = self._rows(completions, integrands, symbols)
        return self._batcher.run(*rows) if rows[0] else []

    async def ascore(self, completions: list[Any], integrands: list[Any],
                     symbols: list[str | None] | None = None) -> list[Outcome]:
        """:meth:`score` for event-loop callers (async trainers, servers):
        awaits the shared batch instead of blocking the loop."""
        rows = self._rows(completions, integrands, symbols)
        return await self._batcher.arun(*rows) if rows[0] else []

    def _rows(self, completions, integrands, symbols) -> tuple[list, list, list]:
        completions, integrands = list(completions), list(integrands)
        n = len(completions)
        if len(integrands) != n or (symbols is not None and len(symbols) != n):
            raise ValueError(f"{self.__name__}: {n} completions but {len(integrands)} "
                             f"integrands" + ("" if symbols is None
                                              else f" and {len(symbols)} symbols"))
        return completions, integrands, list(symbols) if symbols is not None else [None] * n

    def _symbol(self, symbol: Any) -> str | None:
        """A row's variable: its own, else the configured one, else ``None``
        (the checker infers it from the integrand)."""
        return key_text(symbol) or self.config.symbol

    def _request_for(self, symbol: str | None) -> CheckRequest:
        # One request per variable, built (and validated) once, not per row.
        request = self._requests.get(symbol)
        if request is None:
            if len(self._requests) >= CAPS.requests_by_variable:
                self._requests.clear()
            request = self._requests[symbol] = self._request.replace(symbol=symbol)
        return request

    def _expired(self, completions, integrands, symbols) -> list[Outcome]:
        # A call past its own bound (the batch it waited on ran long): TIMEOUT,
        # as the pool gives a sample its call's budget did not reach.
        budget = round(self._pool.call_budget(len(completions)), 1)
        outcomes = []
        for integrand, symbol in zip(integrands, symbols, strict=True):
            symbol, integrand = self._symbol(symbol), key_text(integrand)
            if integrand is None:
                outcomes.append(Outcome(False, None, None, None, None, symbol))
                continue
            result = failure_result(Verdict.TIMEOUT, "watchdog", "call_budget", budget_s=budget)
            outcomes.append(self._outcome(result, None, str(integrand), symbol))
        return outcomes

    def _score_batch(self, completions, integrands, symbols) -> list[Outcome]:
        with self._lock:  # one batch at a time per object: the pool is not re-entrant
            cfg = self.config
            outcomes: list[Outcome | None] = [None] * len(completions)
            jobs: dict[int, Job] = {}
            # Dedup within the batch and across batches: GRPO groups repeat
            # answers (F and F + C are one job).
            unique: dict[Job, list[int]] = {}
            hits: dict[Job, dict] = {}
            rows = list(zip(completions, integrands, symbols, strict=True))

            def misses(start: int, stop: int) -> list[Job]:
                # The jobs of rows [start, stop) that neither an earlier row
                # nor the cache answers. Jobs of one integrand side by side: a
                # chunk then shares its parsed integrand, and a worker's memo
                # sees F and F + C together. A row without a variable (None:
                # inferred by the checker) sorts before named ones.
                new: list[Job] = []
                for i in range(start, stop):
                    completion, integrand, symbol = rows[i]
                    symbol, integrand = self._symbol(symbol), key_text(integrand)
                    if integrand is None:
                        outcomes[i] = Outcome(False, None, None, None, None, symbol)
                        continue
                    job = build_job(completion_text(completion), integrand,
                                    self._request_for(symbol))
                    if isinstance(job, CheckResult):
                        outcomes[i] = self._outcome(job, None, integrand, symbol)
                        continue
                    jobs[i] = job
                    if job in unique:
                        unique[job].append(i)
                        continue
                    unique[job] = [i]
                    if job in self._cache:
                        self._cache.move_to_end(job)
                        hits[job] = self._cache[job]
                    else:
                        new.append(job)
                return sorted(new, key=lambda job: (job.integrand, job.symbol is not None,
                                                    job.symbol or ""))

            # The first groups go to the workers before the rest of the batch
            # is extracted: the workers start on them while this process reads
            # the other responses (extraction was the whole time the workers
            # waited at the start of a call).
            head = self._head_rows(rows)
            first = misses(0, head)
            checked = list(first)  # the jobs sent, in the order of their results

            def rest() -> list[Job]:
                later = misses(head, len(rows))
                checked.extend(later)
                return later

            results = self._pool.run_wire(first, more=rest if head < len(rows) else None)
            fresh = dict(zip(checked, results, strict=True))
            if cfg.cache_size > 0:
                for job, raw in fresh.items():
                    # Deadline outcomes depend on load, not on the answer: don't cache.
                    if raw["verdict"] not in (Verdict.TIMEOUT.value, Verdict.CHECKER_ERROR.value):
                        key, entry = cache_entry(job, raw)
                        self._cache[key] = entry
            while len(self._cache) > max(0, int(cfg.cache_size)):
                self._cache.popitem(last=False)

            seen_fresh: set[Job] = set()
            for job, indices in unique.items():
                raw = fresh.get(job) or hits[job]
                for i in indices:
                    result = job_result(jobs[i], raw)
                    # Only the first occurrence of a freshly checked answer paid
                    # for the check; the rest are dedup/cache hits.
                    cached = job in hits or job in seen_fresh
                    seen_fresh.add(job)
                    outcomes[i] = self._outcome(result, jobs[i].extracted, job.integrand,
                                                job.symbol, cached)
                    self._warn_if_ambiguous(result, job.integrand)
            return outcomes  # type: ignore[return-value]

    def _head_rows(self, rows: list) -> int:
        """How many rows to extract before the pool starts: enough for two
        full tasks per worker (what the pool keeps queued), up to the end of
        the group there (the rows of one integrand, one after the other in a
        GRPO batch), so that a group's answers stay in one task. All of a
        small batch."""
        want = 2 * self._pool.workers * self._pool.chunk_size
        if len(rows) <= 2 * want:
            return len(rows)
        def group(i: int) -> tuple:
            return key_text(rows[i][1]), key_text(rows[i][2])

        end = want
        while end < len(rows) and group(end) == group(end - 1):
            end += 1
        return end

    def _warn_if_ambiguous(self, result: CheckResult, integrand: str) -> None:
        # A row with several free symbols and no variable: the checker chose
        # one (x, then default_symbol); say so once per integrand, since a
        # wrong choice scores every right answer as WRONG.
        if result.detail.get("variable_from") != "ambiguous" or integrand in self._warned:
            return
        if len(self._warned) < CAPS.warned_integrands:
            self._warned.add(integrand)
        logger.warning("%s: integrand %s has several free symbols and no variable was given; "
                       "checked in %r (set symbol_column or symbol)", self.__name__,
                       integrand if len(integrand) <= 200 else integrand[:200] + "...",
                       result.detail.get("variable"))

    def _outcome(self, result: CheckResult, extracted: str | None, integrand: str,
                 symbol: str | None, cached: bool = False) -> Outcome:
        reward = self.shaping.reward(result.verdict, result.confidence, result.reason)
        # The variable the checker used (inferred when the row gave none).
        symbol = result.detail.get("variable", symbol)
        return Outcome(True, reward, result, extracted, integrand, symbol, cached)

    # -- traces --------------------------------------------------------------
    def _write_trace(self, outcomes: list[Outcome], prompts: list | None,
                     step: int | None) -> None:
        if self._trace is None:
            return
        batch_index = next(self._batch_index)
        records = []
        for i, o in enumerate(outcomes):
            if not o.judged or not should_trace(o.result):
                continue
            prompt = prompts[i] if prompts is not None and i < len(prompts) else None
            records.append(trace_record(o, step=step, batch_index=batch_index, row=i,
                                        prompt=prompt, shaping=self.shaping.name,
                                        reward_name=self.__name__))
        self._trace.write(records)
