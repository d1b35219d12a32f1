"""The GRPO reward callable: completions in, one float (or None) each out.

Data flows one way: completion -> extract (here, cheap) -> dedup + cache ->
parse/check (in worker processes) -> verdict -> reward -> trace + metrics.

>>> from rewards import AntiderivativeReward
>>> with AntiderivativeReward(workers=1) as reward:
...     reward(prompts=["p", "p"], completions=[r"\\boxed{x^3/3 + C}", "no idea"],
...            integrand=["x**2", "x**2"])
[1.0, -0.2]
"""
from __future__ import annotations

import atexit
import math
import threading
import time
import weakref
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .extract import BoxPolicy, ExtractionStatus, extract_answer
from .pool import CheckPool, Job
from .shaping import CONFIG_DIR, RewardShaping
from .trace import TraceWriter
from .verdict import NO_ANSWER_REASONS, CheckResult, Confidence, StageRecord, Verdict

_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # Interpreter exit must not leave checker workers behind.
    for reward in list(_LIVE):
        reward.close()


@dataclass
class Outcome:
    """Everything known about one completion after scoring."""

    judged: bool
    reward: float | None
    result: CheckResult | None
    extracted: str | None
    integrand: str | None
    symbol: str
    cached: bool = False

    @property
    def verdict(self) -> str | None:
        return None if self.result is None else self.result.verdict.value


def completion_text(completion: Any) -> str | None:
    """A completion as TRL passes it: a string, or a list of chat messages
    (conversational datasets) whose last assistant message is the answer."""
    if completion is None or isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        messages = [m for m in completion if isinstance(m, dict)]
        assistant = [m for m in messages if m.get("role", "assistant") == "assistant"]
        chosen = (assistant or messages)[-1:] if messages else []
        if not chosen:
            return None
        content = chosen[0].get("content")
        if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return None if content is None else str(content)
    return str(completion)


def _prompt_excerpt(prompt: Any, limit: int = 300) -> str:
    text = completion_text(prompt) if not isinstance(prompt, list) else " | ".join(
        str(m.get("content", ""))[:limit] for m in prompt if isinstance(m, dict))
    text = text or ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class AntiderivativeReward:
    """Reward for "is the boxed answer an antiderivative of the integrand?".

    Use it in ``GRPOTrainer(reward_funcs=[AntiderivativeReward()])``: TRL calls
    it with ``prompts``, ``completions`` and every dataset column as keyword
    arguments; ``integrand_column`` names the column holding f (SymPy syntax
    by default), ``symbol_column`` an optional per-row integration variable.
    Rows whose integrand is missing get ``None`` (not judged: multi-task
    datasets). The object pickles (configuration only; workers restart in the
    new process) and can be called from any thread.
    """

    def __init__(self, shaping: str | Path | dict | RewardShaping | None = "default",
                 integrand_column: str = "integrand", symbol: str = "x",
                 symbol_column: str | None = None, workers: int | None = None,
                 timeout_s: float = 5.0, trace_path: str | Path | None = None, *,
                 name: str = "antiderivative_reward", integrand_kind: str = "sympy",
                 answer_syntax: str = "auto", box_policy: str = "last",
                 math_fallback: bool = False, chunk_size: int = 4,
                 memory_limit_mb: int | None = 3072, cache_size: int = 20_000,
                 max_tasks_per_worker_pool: int = 20_000, trace_max_bytes: int = 50_000_000,
                 trace_backups: int = 3, watchdog_margin_s: float = 2.0,
                 idle_timeout_s: float = 600.0, max_worker_rss_mb: float = 2048.0,
                 proof_budget_s: float = 2.0, check_fn: Any = None) -> None:
        self.shaping = RewardShaping.load(shaping)
        BoxPolicy(box_policy)  # fail fast on a typo, not on the first batch
        if answer_syntax not in ("auto", "latex", "sympy"):
            raise ValueError(f"answer_syntax must be auto, latex or sympy, not {answer_syntax!r}")
        self.config = {
            "integrand_column": integrand_column, "symbol": symbol,
            "symbol_column": symbol_column, "workers": workers, "timeout_s": float(timeout_s),
            "trace_path": None if trace_path is None else str(trace_path), "name": name,
            "integrand_kind": integrand_kind, "answer_syntax": answer_syntax,
            "box_policy": box_policy, "math_fallback": bool(math_fallback),
            "chunk_size": chunk_size, "memory_limit_mb": memory_limit_mb,
            "cache_size": cache_size, "max_tasks_per_worker_pool": max_tasks_per_worker_pool,
            "trace_max_bytes": trace_max_bytes, "trace_backups": trace_backups,
            "watchdog_margin_s": watchdog_margin_s, "idle_timeout_s": idle_timeout_s,
            "max_worker_rss_mb": max_worker_rss_mb, "proof_budget_s": proof_budget_s,
            "check_fn": check_fn,
        }
        # TRL names the metric after __name__ (an instance has none by default).
        self.__name__ = name
        self._setup_runtime()

    # -- construction -------------------------------------------------------
    @classmethod
    def from_config(cls, path: str | Path, **overrides: Any) -> AntiderivativeReward:
        """Build from YAML: a full reward config (``configs/reward/*.yaml``)
        or a bare shaping preset file (``configs/shaping/*.yaml``)."""
        path = Path(path)
        raw = yaml.safe_load(path.read_text()) or {}
        if "rewards" in raw and "shaping" not in raw:
            return cls(shaping=RewardShaping.from_yaml(path), **overrides)
        raw = dict(raw)
        shaping = raw.pop("shaping", "default")
        if isinstance(shaping, str) and shaping.endswith((".yaml", ".yml")):
            candidate = Path(shaping)
            if not candidate.is_absolute() and not candidate.exists():
                for base in (path.parent, CONFIG_DIR.parent):
                    if (base / candidate).exists():
                        shaping = str(base / candidate)
                        break
        raw.update(overrides)
        return cls(shaping=shaping, **raw)

    def _setup_runtime(self) -> None:
        cfg = self.config
        self._lock = threading.Lock()
        self._cache: OrderedDict[Job, dict] = OrderedDict()
        self._pool = CheckPool(
            workers=cfg["workers"], timeout_s=cfg["timeout_s"],
            check_options={"input_kind": cfg["answer_syntax"],
                           "integrand_kind": cfg["integrand_kind"],
                           "proof_budget_s": cfg.get("proof_budget_s", 2.0)},
            chunk_size=cfg["chunk_size"], memory_limit_mb=cfg["memory_limit_mb"],
            margin_s=cfg["watchdog_margin_s"], idle_timeout_s=cfg["idle_timeout_s"],
            max_tasks_per_pool=cfg["max_tasks_per_worker_pool"],
            max_worker_rss_mb=cfg.get("max_worker_rss_mb", 2048.0), check_fn=cfg["check_fn"])
        self._trace = (TraceWriter(cfg["trace_path"], cfg["trace_max_bytes"],
                                   cfg["trace_backups"]) if cfg["trace_path"] else None)
        self._batch_index = 0
        self.last_metrics: dict[str, float] = {}
        _LIVE.add(self)

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config, "shaping": self.shaping, "__name__": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self.shaping = state["shaping"]
        self.__name__ = state["__name__"]
        self._setup_runtime()

    def __repr__(self) -> str:
        return (f"AntiderivativeReward(name={self.__name__!r}, shaping={self.shaping.name!r}, "
                f"integrand_column={self.config['integrand_column']!r}, "
                f"timeout_s={self.config['timeout_s']})")

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
        column = self.config["integrand_column"]
        if column not in kwargs:
            available = sorted(k for k in kwargs if k not in ("trainer_state", "log_extra",
                                                                "log_metric"))
            raise KeyError(f"{self.__name__}: integrand column {column!r} is not among the "
                           f"dataset columns {available}; set integrand_column")
        integrands = list(kwargs[column])
        symbol_column = self.config["symbol_column"]
        symbols = list(kwargs[symbol_column]) if symbol_column and symbol_column in kwargs \
            else [None] * len(completions)
        outcomes = self.score(completions, integrands, symbols)

        state = kwargs.get("trainer_state")
        step = getattr(state, "global_step", None)
        self._write_trace(outcomes, prompts, step)
        metrics = self.batch_metrics(outcomes)
        self.last_metrics = metrics
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for key, value in metrics.items():
                log_metric(f"{self.__name__}/{key}", value)
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra(f"{self.__name__}/verdict", [o.verdict for o in outcomes])
            log_extra(f"{self.__name__}/extracted_answer", [o.extracted for o in outcomes])
        return [o.reward for o in outcomes]

    # -- scoring core (also used by offline scoring) -------------------------
    def score(self, completions: list[Any], integrands: list[Any],
              symbols: list[str | None] | None = None) -> list[Outcome]:
        """Check a batch; one :class:`Outcome` per completion, in order."""
        symbols = symbols or [None] * len(completions)
        with self._lock:  # one batch at a time per object: the pool is not re-entrant
            return self._score_locked(completions, integrands, symbols)

    def _score_locked(self, completions, integrands, symbols) -> list[Outcome]:
        cfg = self.config
        outcomes: list[Outcome | None] = [None] * len(completions)
        extract_stages: dict[int, StageRecord] = {}
        jobs: dict[int, Job] = {}
        for i, completion in enumerate(completions):
            integrand = integrands[i] if i < len(integrands) else None
            symbol = symbols[i] if i < len(symbols) and symbols[i] else cfg["symbol"]
            symbol = str(symbol)
            if integrand is None or (isinstance(integrand, float) and math.isnan(integrand)) \
                    or (isinstance(integrand, str) and not integrand.strip()):
                outcomes[i] = Outcome(False, None, None, None, None, symbol)
                continue
            integrand = str(integrand)
            started = time.perf_counter()
            extraction = extract_answer(completion_text(completion), policy=cfg["box_policy"],
                                        math_fallback=cfg["math_fallback"])
            ok = extraction.status is ExtractionStatus.OK
            data = {"n_matches": extraction.n_matches, "chosen_index": extraction.chosen_index,
                    "source": extraction.source, "chosen": extraction.value}
            if not ok:
                data.update(reason=extraction.status.value, message=extraction.detail)
            record = StageRecord("candidate_extract", "ok" if ok else "fail",
                                 (time.perf_counter() - started) * 1000, data)
            extract_stages[i] = record
            if not ok:
                result = CheckResult(Verdict.UNPARSEABLE, "candidate_extract", [record],
                                     {"reason": extraction.status.value,
                                      "message": extraction.detail,
                                      "total_ms": round(record.ms, 3)})
                outcomes[i] = self._outcome(result, None, integrand, symbol)
                continue
            jobs[i] = (extraction.value, integrand, symbol)

        # Dedup within the batch and across batches: GRPO groups repeat answers.
        unique: dict[Job, list[int]] = {}
        for i, job in jobs.items():
            unique.setdefault(job, []).append(i)
        hits: dict[Job, dict] = {}
        for job in unique:
            if job in self._cache:
                self._cache.move_to_end(job)
                hits[job] = self._cache[job]
        misses = [job for job in unique if job not in hits]
        fresh = dict(zip(misses, (r.to_dict() for r in self._pool.run(misses)), strict=False))
        for job, raw in fresh.items():
            # Deadline outcomes depend on load, not on the answer: don't cache.
            if raw["verdict"] not in (Verdict.TIMEOUT.value, Verdict.CHECKER_ERROR.value):
                self._cache[job] = raw
        while len(self._cache) > max(0, int(cfg["cache_size"])):
            self._cache.popitem(last=False)

        seen_fresh: set[Job] = set()
        for job, indices in unique.items():
            raw = fresh.get(job) or hits[job]
            for i in indices:
                result = CheckResult.from_dict(raw)
                result.stages.insert(0, extract_stages[i])
                # Only the first occurrence of a freshly checked answer paid
                # for the check; the rest are dedup/cache hits.
                cached = job in hits or job in seen_fresh
                seen_fresh.add(job)
                outcomes[i] = self._outcome(result, job[0], job[1], job[2], cached)
        return outcomes  # type: ignore[return-value]

    def _outcome(self, result: CheckResult, extracted: str | None, integrand: str,
                 symbol: str, cached: bool = False) -> Outcome:
        reward = self.shaping.reward(result.verdict, result.confidence, result.reason)
        return Outcome(True, reward, result, extracted, integrand, symbol, cached)

    # -- metrics and traces --------------------------------------------------
    @staticmethod
    def batch_metrics(outcomes: list[Outcome]) -> dict[str, float]:
        """Per-batch metrics; the same keys every batch (TRL averages each key
        over a logging step and gathers keys across ranks)."""
        judged = [o for o in outcomes if o.judged]
        n = max(1, len(judged))
        counts = Counter(o.verdict for o in judged)
        metrics = {f"frac_{v.value.lower()}": counts.get(v.value, 0) / n for v in Verdict}
        metrics["frac_no_answer"] = sum(
            1 for o in judged if o.result.verdict is Verdict.UNPARSEABLE
            and o.result.reason in NO_ANSWER_REASONS) / n
        numeric_only = sum(1 for o in judged if o.result.confidence is Confidence.NUMERIC_ONLY)
        metrics["numeric_only_share"] = numeric_only / n
        checked = [o for o in judged if o.extracted is not None]
        metrics["cache_hit_rate"] = (sum(o.cached for o in checked) / len(checked)
                                     if checked else 0.0)
        times = sorted(o.result.total_ms for o in checked if not o.cached)
        metrics["check_ms_p50"] = _percentile(times, 50)
        metrics["check_ms_p99"] = _percentile(times, 99)
        metrics["timeouts"] = float(counts.get(Verdict.TIMEOUT.value, 0))
        metrics["unjudged"] = float(len(outcomes) - len(judged))
        return metrics

    def _write_trace(self, outcomes: list[Outcome], prompts: list | None,
                     step: int | None) -> None:
        if self._trace is None:
            return
        self._batch_index += 1
        records = []
        for i, o in enumerate(outcomes):
            if not o.judged:
                continue
            if o.result.verdict is Verdict.CORRECT and \
                    o.result.confidence is not Confidence.NUMERIC_ONLY:
                continue
            prompt = prompts[i] if prompts is not None and i < len(prompts) else None
            records.append(trace_record(o, step=step, batch_index=self._batch_index, row=i,
                                        prompt=prompt, shaping=self.shaping.name,
                                        reward_name=self.__name__))
        self._trace.write(records)


def trace_record(o: Outcome, *, step: int | None, batch_index: int, row: int, prompt: Any,
                 shaping: str, reward_name: str) -> dict[str, Any]:
    return {
        "time": time.time(), "reward_name": reward_name, "step": step,
        "batch_index": batch_index, "row": row,
        "prompt_excerpt": None if prompt is None else _prompt_excerpt(prompt),
        "integrand": o.integrand, "symbol": o.symbol, "extracted_answer": o.extracted,
        "verdict": o.result.verdict.value, "confidence": o.result.confidence.value,
        "reason": o.result.reason, "reward": o.reward, "shaping": shaping,
        "cached": o.cached, "verdict_stage": o.result.stage,
        "stages": [s.to_dict() for s in o.result.stages],
    }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    k = (len(values) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return float(values[lo] + (values[hi] - values[lo]) * (k - lo))
