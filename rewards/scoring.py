"""Offline scoring: a dataset of completions in, the same rows plus verdicts out.

``python -m rewards score`` is a thin wrapper around :func:`run_score`. The
checking itself is :meth:`AntiderivativeReward.score` (dedup, cache, worker
processes, deadlines), so an offline verdict is exactly what the trainer
would have seen under the same configuration. Batches are scored by a
*backend*: :class:`LocalBackend` here, :class:`rewards.ray_backend.RayBackend`
on a Ray cluster; both yield :class:`ScoredBatch` objects in input order, and
everything else (resume, output, progress, summary) is shared.

Each output row keeps every input column and adds :data:`RESULT_COLUMNS`
plus ``source_row`` (the row's position in the input, the key ``--resume``
uses). An input column that clashes with one of ours is kept as
``input_<name>`` (reasoning-gym dumps have their own ``extracted_answer``).

>>> from rewards.scoring import resolve_columns
>>> resolve_columns(["id", "response", "integrand"]).completion
'response'
"""
from __future__ import annotations

import json
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .io import ROW_ERROR_KEY, InputError, InputSource, is_missing, open_input, open_output
from .verdict import Confidence, Verdict

RESULT_COLUMNS = ("reward", "verdict", "confidence", "verdict_stage", "reason",
                  "extracted_answer", "check_ms")
ROW_KEY = "source_row"
# Where a row carries its input position on the way through a backend; an
# input column that happens to be called "source_row" stays distinct.
_POSITION = "__source_row__"
# Columns added to rows that could not be read at all (broken JSONL lines).
ROW_ERROR_COLUMN = "row_error"
_OWN_COLUMNS = frozenset((*RESULT_COLUMNS, ROW_KEY, ROW_ERROR_COLUMN))
COMPLETION_FALLBACKS = ("completion", "response")
# Key of the whole-check time among the per-stage timings of the summary.
TOTAL_STAGE = "(whole check)"


class ScoringError(ValueError):
    """A problem with the run's setup (flags, columns, paths): exit code 2."""


# -- columns -----------------------------------------------------------------
@dataclass(frozen=True)
class Columns:
    """Which input columns hold what. ``symbol``/``group``/``prompt`` are
    optional; the prompt only feeds trace excerpts."""

    completion: str = "completion"
    integrand: str = "integrand"
    symbol: str | None = None
    group: str | None = None
    prompt: str | None = "prompt"


def resolve_columns(available: Iterable[str], completion: str | None = None,
                    integrand: str = "integrand", symbol: str | None = None,
                    group: str | None = None) -> Columns:
    """Check the requested columns against the input's, filling defaults.

    The completion column defaults to ``completion``, then ``response``
    (reasoning-gym and many eval dumps). A column named but absent is a setup
    error, reported with the columns that do exist.
    """
    names = list(available)
    present = set(names)
    if completion is None:
        completion = next((c for c in COMPLETION_FALLBACKS if c in present), None)
        if completion is None:
            raise ScoringError(f"no completion column: none of {list(COMPLETION_FALLBACKS)} "
                               f"in {names}; pass --completion-column")
    for flag, column in (("--completion-column", completion),
                         ("--integrand-column", integrand), ("--symbol-column", symbol),
                         ("--group-column", group)):
        if column is not None and column not in present:
            raise ScoringError(f"{flag} {column!r} is not an input column; columns: {names}")
    return Columns(completion, integrand, symbol, group,
                   "prompt" if "prompt" in present else None)


# -- one batch ----------------------------------------------------------------
@dataclass
class ScoredBatch:
    """Output rows of one batch plus what the summary needs and the output
    does not carry (per-stage timings of fresh checks, trace records)."""

    rows: list[dict[str, Any]]
    stage_ms: list[dict[str, float]] = field(default_factory=list)
    traces: list[dict[str, Any]] = field(default_factory=list)
    cached: int = 0


def _symbol(value: Any) -> str | None:
    # NaN is truthy: without this a blank CSV cell would become symbol "nan".
    if is_missing(value):
        return None
    text = str(value).strip()
    return text or None


def _merge(row: dict[str, Any], added: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in (ROW_ERROR_KEY, _POSITION):
            continue
        out[f"input_{key}" if key in _OWN_COLUMNS else key] = value
    out.update(added)
    return out


def score_batch(reward: Any, rows: list[dict[str, Any]], columns: Columns, *,
                with_traces: bool = False, batch_index: int = 0) -> ScoredBatch:
    """Score rows (as :func:`pending_rows` yields them) with an AntiderivativeReward.

    Never raises on row content: a missing integrand, an unreadable row or an
    unparseable integrand is a ``CHECKER_ERROR`` verdict with a reason, like
    every other outcome.
    """
    from .reward import trace_record

    shaping = reward.shaping
    readable = [i for i, r in enumerate(rows) if ROW_ERROR_KEY not in r]
    outcomes = reward.score(
        [None if is_missing(v := rows[i].get(columns.completion)) else v for i in readable],
        [rows[i].get(columns.integrand) for i in readable],
        [_symbol(rows[i].get(columns.symbol)) if columns.symbol else None for i in readable])
    by_row = dict(zip(readable, outcomes, strict=True))

    batch = ScoredBatch(rows=[])
    for i, row in enumerate(rows):
        outcome = by_row.get(i)
        if outcome is None or not outcome.judged:
            # Not a model mistake: reward as the shaping says for our own
            # failures (None, no gradient, in every shipped preset).
            reason = "invalid_row" if outcome is None else "integrand_missing"
            added = {
                ROW_KEY: row[_POSITION],
                "reward": shaping.reward(Verdict.CHECKER_ERROR, Confidence.NONE, reason),
                "verdict": Verdict.CHECKER_ERROR.value, "confidence": Confidence.NONE.value,
                "verdict_stage": "row" if outcome is None else "integrand_parse",
                "reason": reason, "extracted_answer": None, "check_ms": 0.0,
            }
            if outcome is None:
                added[ROW_ERROR_COLUMN] = row[ROW_ERROR_KEY]
            batch.rows.append(_merge(row, added))
            continue
        result = outcome.result
        batch.rows.append(_merge(row, {
            ROW_KEY: row[_POSITION], "reward": outcome.reward, "verdict": result.verdict.value,
            "confidence": result.confidence.value, "verdict_stage": result.stage,
            "reason": result.reason, "extracted_answer": outcome.extracted,
            "check_ms": round(result.total_ms, 3),
        }))
        if outcome.cached:
            batch.cached += 1
        else:
            timings = {s.stage: s.ms for s in result.stages}
            timings[TOTAL_STAGE] = result.total_ms
            batch.stage_ms.append(timings)
        if with_traces and not (result.verdict is Verdict.CORRECT
                                and result.confidence is not Confidence.NUMERIC_ONLY):
            prompt = row.get(columns.prompt) if columns.prompt else None
            batch.traces.append(trace_record(
                outcome, step=None, batch_index=batch_index, row=row[_POSITION], prompt=prompt,
                shaping=shaping.name, reward_name=reward.__name__))
    return batch


# -- summary -------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile; 0.0 for no values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.5
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo))


# The checker's pipeline order (rewards.checker), for the timing table.
_PIPELINE = ("candidate_extract", "candidate_ingest", "candidate_parse", "integrand_parse",
             "constants", "normalize", "differentiate", "residual_symbols", "structural",
             "numeric_screen", "symbolic_confirm", "numeric_confirm", "numeric_accept")


def _stage_order(name: str) -> tuple[int, str]:
    if name == TOTAL_STAGE:
        return (len(_PIPELINE) + 1, name)
    return (_PIPELINE.index(name) if name in _PIPELINE else len(_PIPELINE), name)


@dataclass
class ScoreSummary:
    """Running totals over the rows scored in this run (not resumed ones)."""

    rows: int = 0
    skipped: int = 0
    cached: int = 0
    wall_s: float = 0.0
    interrupted: bool = False
    group_column: str | None = None
    verdicts: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    rewards: list[float] = field(default_factory=list)
    no_gradient: int = 0
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    groups: dict[str, list[float | None]] = field(default_factory=dict)

    def add(self, batch: ScoredBatch) -> None:
        self.cached += batch.cached
        for row in batch.rows:
            self.rows += 1
            self.verdicts[row["verdict"]] += 1
            if row["verdict"] != Verdict.CORRECT.value:
                self.failures[f"{row['verdict']}/{row['reason']}"] += 1
            reward = row["reward"]
            if reward is None:
                self.no_gradient += 1
            else:
                self.rewards.append(float(reward))
            if self.group_column:
                key = json.dumps(row.get(self.group_column), sort_keys=True, default=str)
                self.groups.setdefault(key, []).append(reward)
        for stages in batch.stage_ms:
            for name, ms in stages.items():
                self.stage_ms.setdefault(name, []).append(ms)

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.wall_s if self.wall_s > 0 else 0.0

    def zero_variance_groups(self) -> tuple[int, float]:
        from .ablation import group_has_signal

        n = len(self.groups)
        flat = sum(1 for rewards in self.groups.values() if not group_has_signal(rewards))
        return n, (flat / n if n else 0.0)

    def to_dict(self) -> dict[str, Any]:
        n_groups, flat = self.zero_variance_groups()
        return {
            "rows": self.rows, "skipped": self.skipped, "wall_s": round(self.wall_s, 3),
            "rows_per_s": round(self.rows_per_s, 3), "interrupted": self.interrupted,
            "cached": self.cached, "verdicts": dict(self.verdicts),
            "reward_mean": statistics.fmean(self.rewards) if self.rewards else None,
            "reward_std": statistics.pstdev(self.rewards) if self.rewards else None,
            "no_gradient": self.no_gradient,
            "stage_ms": {k: {"n": len(v), "p50": percentile(v, 50), "p99": percentile(v, 99)}
                         for k, v in self.stage_ms.items()},
            "failures": dict(self.failures.most_common()),
            "groups": n_groups, "zero_variance_group_frac": flat if n_groups else None,
        }

    def render(self, top: int = 10) -> str:
        lines = [f"scored {self.rows} rows in {self.wall_s:.1f} s "
                 f"({self.rows_per_s:.2f} rows/s); {self.skipped} skipped (already in output); "
                 f"{self.cached} dedup/cache hits"]
        if self.interrupted:
            lines.append("INTERRUPTED: the output holds every finished batch; "
                         "rerun with --resume to continue")
        lines += ["", f"{'verdict':<16}{'count':>8}{'%':>8}"]
        for verdict in Verdict:
            count = self.verdicts.get(verdict.value, 0)
            share = 100 * count / self.rows if self.rows else 0.0
            lines.append(f"{verdict.value:<16}{count:>8}{share:>8.1f}")
        if self.rewards:
            std = statistics.pstdev(self.rewards)
            lines.append(f"\nreward mean {statistics.fmean(self.rewards):.4f}  std {std:.4f}  "
                         f"(n={len(self.rewards)}, no-gradient {self.no_gradient})")
        if self.group_column:
            n_groups, flat = self.zero_variance_groups()
            lines.append(f"groups by {self.group_column!r}: {n_groups}; "
                         f"zero reward variance (no GRPO signal): {100 * flat:.1f}%")
        if self.stage_ms:
            width = max(24, *(len(k) + 2 for k in self.stage_ms))
            lines += ["", f"{'stage (ms, fresh checks)':<{width}}{'n':>7}{'p50':>10}{'p99':>10}"]
            names = sorted(self.stage_ms, key=_stage_order)
            for name in names:
                values = self.stage_ms[name]
                lines.append(f"{name:<{width}}{len(values):>7}{percentile(values, 50):>10.1f}"
                             f"{percentile(values, 99):>10.1f}")
        if self.failures:
            lines += ["", "top failure reasons"]
            for key, count in self.failures.most_common(top):
                lines.append(f"  {key:<48}{count:>7}")
        return "\n".join(lines)


# -- backends ------------------------------------------------------------------
class LocalBackend:
    """Scores batches in this process's reward (its own worker pool)."""

    def __init__(self, reward: Any) -> None:
        self.reward = reward

    def map(self, batches: Iterable[list[dict[str, Any]]], columns: Columns, *,
            with_traces: bool = False) -> Iterator[ScoredBatch]:
        for index, rows in enumerate(batches, start=1):
            yield score_batch(self.reward, rows, columns, with_traces=with_traces,
                              batch_index=index)

    def close(self) -> None:
        self.reward.close()


# -- the run -------------------------------------------------------------------
@dataclass
class ScoreOptions:
    """Everything ``python -m rewards score`` takes. ``None`` means "as the
    reward config says" for the reward's own settings."""

    input: str
    output: str
    completion_column: str | None = None
    integrand_column: str | None = None
    symbol_column: str | None = None
    group_column: str | None = None
    config: str | None = None
    workers: int | None = None
    timeout_s: float | None = None
    answer_fallback: bool | None = None
    answer_syntax: str | None = None
    batch_size: int = 256
    resume: bool = False
    overwrite: bool = False
    limit: int | None = None
    split: str | None = None
    backend: str = "local"
    ray_address: str | None = None
    trace_path: str | None = None
    summary_json: str | None = None
    progress: bool = True


def build_reward(options: ScoreOptions) -> Any:
    """The reward from ``--config`` (a full reward YAML, a shaping YAML or a
    preset name) with the command-line settings on top."""
    from .reward import AntiderivativeReward

    overrides: dict[str, Any] = {}
    for key, value in (("integrand_column", options.integrand_column),
                       ("symbol_column", options.symbol_column),
                       ("workers", options.workers), ("timeout_s", options.timeout_s),
                       ("math_fallback", options.answer_fallback),
                       ("answer_syntax", options.answer_syntax)):
        if value is not None:
            overrides[key] = value
    config = options.config
    if config is None:
        return AntiderivativeReward(**overrides)
    if Path(config).is_file():
        return AntiderivativeReward.from_config(config, **overrides)
    if config.endswith((".yaml", ".yml")):
        raise ScoringError(f"--config {config}: file not found")
    return AntiderivativeReward(shaping=config, **overrides)  # a preset name


def pending_rows(source: InputSource, done: set[Any], batch_size: int,
             limit: int | None) -> Iterator[list[dict[str, Any]]]:
    """Input rows tagged with ``source_row``, minus those already done,
    re-batched so resumed runs still send full batches."""
    batch: list[dict[str, Any]] = []
    position = 0
    for rows in source.iter_batches(batch_size):
        for row in rows:
            if limit is not None and position >= limit:
                break
            if position not in done:
                row[_POSITION] = position
                batch.append(row)
                if len(batch) >= batch_size:
                    yield batch
                    batch = []
            position += 1
        if limit is not None and position >= limit:
            break
    if batch:
        yield batch


class _Progress:
    """tqdm on stderr when available (rate and ETA), else a line per batch."""

    def __init__(self, total: int | None, enabled: bool) -> None:
        self._bar = None
        self._done = 0
        self._total = total
        self._started = time.monotonic()
        self._enabled = enabled
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self._bar = tqdm(total=total, unit="row", file=sys.stderr, dynamic_ncols=True,
                         smoothing=0.05, desc="scoring")

    def update(self, n: int, postfix: str = "") -> None:
        self._done += n
        if self._bar is not None:
            self._bar.update(n)
            if postfix:
                self._bar.set_postfix_str(postfix, refresh=False)
        elif self._enabled:
            elapsed = time.monotonic() - self._started
            rate = self._done / elapsed if elapsed > 0 else 0.0
            eta = ((self._total - self._done) / rate) if rate and self._total else float("nan")
            print(f"scored {self._done}/{self._total or '?'} rows, {rate:.1f} rows/s, "
                  f"ETA {eta:.0f} s {postfix}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def make_backend(options: ScoreOptions, reward: Any) -> Any:
    if options.backend == "local":
        return LocalBackend(reward)
    if options.backend == "ray":
        from .ray_backend import RayBackend

        return RayBackend(reward, actors=options.workers, address=options.ray_address)
    raise ScoringError(f"unknown backend {options.backend!r}: use local or ray")


def meta_path(output: str | Path) -> Path:
    """The sidecar next to an output (``scored.jsonl.meta.json``): which
    input, columns and reward settings produced it; ``ablate`` reads the
    group column from it."""
    return Path(str(output) + ".meta.json")


def _write_meta(output: Path, options: ScoreOptions, columns: Columns, reward: Any) -> None:
    settings = {k: v for k, v in reward.config.items() if k != "check_fn"}
    meta = {"input": options.input, "output": str(output), "columns": asdict(columns),
            "config": options.config, "shaping": reward.shaping.to_dict(),
            "reward_config": settings, "backend": options.backend}
    meta_path(output).write_text(json.dumps(meta, indent=2, default=str), encoding="utf-8")


def run_score(options: ScoreOptions, *, stream: Any = None) -> ScoreSummary:
    """Score ``options.input`` into ``options.output``; returns the summary
    (also printed to ``stream``, stdout by default). Ctrl-C stops after
    closing the output (valid, partial) and sets ``summary.interrupted``.
    """
    stream = sys.stdout if stream is None else stream
    output = Path(options.output)
    if output.exists() and not (options.resume or options.overwrite):
        raise ScoringError(f"{output} exists: pass --resume to continue it or --overwrite "
                           f"to replace it")
    try:
        source = open_input(options.input, split=options.split)
    except InputError as exc:
        raise ScoringError(str(exc)) from exc
    reward = build_reward(options)
    columns = resolve_columns(source.columns, options.completion_column,
                              reward.config["integrand_column"],
                              reward.config["symbol_column"], options.group_column)
    trace_path = options.trace_path or reward.config.get("trace_path")
    tracer = None
    if trace_path:
        from .trace import TraceWriter

        tracer = TraceWriter(trace_path, reward.config["trace_max_bytes"],
                             reward.config["trace_backups"])

    summary = ScoreSummary(group_column=columns.group)
    try:
        writer = open_output(output, resume=options.resume, key=ROW_KEY)
    except InputError as exc:
        reward.close()
        raise ScoringError(str(exc)) from exc
    _write_meta(output, options, columns, reward)
    total = source.num_rows
    if options.limit is not None:
        total = min(total, options.limit) if total is not None else options.limit
    done = writer.done_keys
    summary.skipped = sum(1 for k in done if isinstance(k, int) and (total is None or k < total))
    progress = _Progress(None if total is None else max(0, total - summary.skipped),
                         options.progress)
    backend = None
    started = time.monotonic()
    try:
        backend = make_backend(options, reward)
        batches = pending_rows(source, done, options.batch_size, options.limit)
        for scored in backend.map(batches, columns, with_traces=tracer is not None):
            writer.write(scored.rows)
            if tracer is not None:
                tracer.write(scored.traces)
            summary.add(scored)
            correct = summary.verdicts.get(Verdict.CORRECT.value, 0)
            progress.update(len(scored.rows),
                            f"correct {100 * correct / max(1, summary.rows):.1f}%")
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        summary.wall_s = time.monotonic() - started
        progress.close()
        writer.close()
        if backend is not None:
            backend.close()
        reward.close()
    print(summary.render(), file=stream, flush=True)
    if options.summary_json:
        Path(options.summary_json).write_text(json.dumps(summary.to_dict(), indent=2))
    return summary
