"""Offline scoring: a dataset of completions in, the same rows plus verdicts out.

``python -m rewards score`` is a thin wrapper around :func:`run_score`:
read the input in batches (:mod:`.io`), skip rows already in the output
(``--resume``), score each batch on a backend (:mod:`.backends`, rows through
:func:`.batch.score_batch`), write it, and keep a running
:class:`ScoreSummary` that also covers rows a resumed run found done.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..check.limits import CAPS
from ..check.pipeline import STAGES
from ..check.result import Verdict
from ..reward.metrics import group_has_signal, percentile
from .backends import make_backend
from .batch import (
    _POSITION,
    COMPLETION_MISSING,
    ROW_ERROR_COLUMN,
    ROW_KEY,
    TOTAL_STAGE,
    Columns,
    ScoredBatch,
    ScoringError,
    resolve_columns,
)
from .io import InputError, InputSource, open_input, open_output


# -- summary -------------------------------------------------------------------
def _stage_order(name: str) -> tuple[int, str]:
    if name == TOTAL_STAGE:
        return (len(STAGES) + 1, name)
    return (STAGES.index(name) if name in STAGES else len(STAGES), name)


@dataclass
class ScoreSummary:
    """Totals of a ``score`` run.

    ``rows``, ``wall_s``, ``cached`` and ``stage_ms`` cover the rows scored in
    this run; verdicts, failures, rewards and groups cover every row of the
    output, including the ``skipped`` ones an earlier run had scored (a
    resumed run reports on the whole file, not on its last part).
    """

    rows: int = 0
    skipped: int = 0
    invalid_rows: int = 0
    missing_completions: int = 0  # null completions: no verdict, in no count below
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
        """Count one scored batch."""
        self.cached += batch.cached
        for row in batch.rows:
            self.rows += 1
            self._count(row)
        for stages in batch.stage_ms:
            for name, ms in stages.items():
                self.stage_ms.setdefault(name, []).append(ms)

    def add_earlier(self, row: dict[str, Any]) -> None:
        """A row an earlier run wrote (``--resume``): counted, not timed."""
        self.skipped += 1
        self._count(row)

    def _count(self, row: dict[str, Any]) -> None:
        if row.get(ROW_ERROR_COLUMN):
            self.invalid_rows += 1
        if row.get("verdict") is None and row.get("reason") == COMPLETION_MISSING:
            self.missing_completions += 1
        elif "verdict" in row:
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

    @property
    def rows_per_s(self) -> float:
        """Rows scored per second of wall time."""
        return self.rows / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def total_rows(self) -> int:
        """Rows of the output: scored now plus scored by an earlier run."""
        return self.rows + self.skipped

    def zero_variance_groups(self) -> tuple[int, float]:
        """Groups whose rewards are all equal."""
        n = len(self.groups)
        flat = sum(1 for rewards in self.groups.values() if not group_has_signal(rewards))
        return n, (flat / n if n else 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-able values."""
        n_groups, flat = self.zero_variance_groups()
        return {
            "rows": self.rows, "skipped": self.skipped, "total_rows": self.total_rows,
            "invalid_rows": self.invalid_rows,
            "missing_completions": self.missing_completions, "wall_s": round(self.wall_s, 3),
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
        """The summary as the lines ``score`` prints."""
        lines = [f"scored {self.rows} rows in {self.wall_s:.1f} s "
                 f"({self.rows_per_s:.2f} rows/s); {self.cached} dedup/cache hits"]
        if self.skipped:
            lines.append(f"{self.skipped} rows were already in the output (earlier run); the "
                         f"totals below cover all {self.total_rows}")
        if self.invalid_rows:
            lines.append(f"{self.invalid_rows} input rows could not be read (CHECKER_ERROR "
                         f"invalid_row, reward None)")
        if self.missing_completions:
            lines.append(f"{self.missing_completions} rows have a null completion (missing "
                         f"data: no verdict, reward null, left out of every count below)")
        if self.interrupted:
            lines.append("INTERRUPTED: the output holds every finished batch; "
                         "rerun with --resume to continue")
        lines += ["", f"{'verdict':<16}{'count':>8}{'%':>8}"]
        judged = sum(self.verdicts.values())
        for verdict in Verdict:
            count = self.verdicts.get(verdict.value, 0)
            share = 100 * count / judged if judged else 0.0
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
    from ..reward import AntiderivativeReward

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


def meta_path(output: str | Path) -> Path:
    """The sidecar next to an output (``scored.jsonl.meta.json``): which
    input, columns and reward settings produced it; ``ablate`` reads the
    group column from it."""
    return Path(str(output) + ".meta.json")


def _meta(options: ScoreOptions, output: Path, columns: Columns, reward: Any) -> dict[str, Any]:
    meta = {"input": options.input, "split": options.split, "output": str(output),
            "columns": asdict(columns), "config": options.config,
            "shaping": reward.shaping.to_dict(), "reward_config": reward.config.to_dict(),
            "backend": options.backend}
    return json.loads(json.dumps(meta, default=str))  # as it reads back from the file


def _write_meta(output: Path, meta: dict[str, Any]) -> None:
    meta_path(output).write_text(json.dumps(meta, indent=2), encoding="utf-8")


# Reward config keys that change how a run goes, not what any row's verdict
# or reward is: a resumed run may change them. Every other key (a new one
# too, until it is listed here) must match the run being continued. The
# shaping is compared by its values (reward_config's ``shaping`` is how it
# was named: a preset, a path); null_reward is only for the stacks that
# cannot take None (verl, OpenRLHF, the server), never written offline.
_RUN_ONLY_KEYS = frozenset({
    "name", "shaping", "workers", "chunk_size", "memory_limit_mb", "cache_size",
    "max_tasks_per_worker_pool", "max_worker_rss_mb", "watchdog_margin_s",
    "idle_timeout_s", "trace_path", "trace_max_bytes", "trace_backups", "null_reward"})
# Columns that decide a row's reward (the group and prompt only feed the
# summary and the traces).
_DECIDING_COLUMNS = ("completion", "integrand", "symbol")
_ABSENT = "(absent)"


def _deciding_settings(meta: dict[str, Any]) -> dict[str, Any]:
    """What decides the rows' rewards, flat: the input, its split, the
    columns read, the shaping's values and the reward's checking settings."""
    columns = meta.get("columns") or {}
    shaping = {k: v for k, v in (meta.get("shaping") or {}).items() if k != "name"}
    config = meta.get("reward_config") or {}
    out: dict[str, Any] = {"input": meta.get("input"), "split": meta.get("split"),
                           "shaping": shaping}
    out.update({f"{name}_column": columns.get(name, _ABSENT) for name in _DECIDING_COLUMNS})
    out.update({k: v for k, v in config.items() if k not in _RUN_ONLY_KEYS})
    return out


def _same_input(old: Any, new: Any) -> bool:
    if old == new:
        return True
    try:  # the same file named from another directory
        return old is not None and new is not None and Path(old).resolve() == Path(new).resolve()
    except (OSError, TypeError, ValueError):
        return False


def _shown(key: str, value: Any, meta: dict[str, Any]) -> str:
    if key == "shaping":
        return str((meta.get("shaping") or {}).get("name", "custom"))
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_resumable(output: Path, meta: dict[str, Any]) -> None:
    """Refuse to continue ``output`` under settings that decide rewards
    differently from the run that started it: the rows would mix two runs
    (another shaping, another completion column...). Raises
    :class:`ScoringError` naming the differing keys; the output is untouched."""
    path = meta_path(output)
    if not path.exists():
        if output.exists():
            raise ScoringError(f"--resume: {path.name} is missing, so the settings {output} "
                               f"was scored with are unknown; pass --overwrite to start over")
        return
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(earlier, dict):
            raise ValueError("not a mapping")
    except ValueError as exc:
        raise ScoringError(f"--resume: {path} is unreadable ({exc}); pass --overwrite to "
                           f"start over") from exc
    old, new = _deciding_settings(earlier), _deciding_settings(meta)
    differing = []
    for key in sorted(set(old) | set(new), key=list({**old, **new}).index):
        before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if before == after or (key == "input" and _same_input(before, after)):
            continue
        differing.append(f"{key} ({_shown(key, before, earlier)} -> {_shown(key, after, meta)})")
    if differing:
        raise ScoringError(f"--resume: {output} was scored with other settings: "
                           f"{', '.join(differing)}; rerun with the same settings, or "
                           f"--overwrite to start over")


def _warn_invalid_rows(scored: ScoredBatch, seen: int) -> None:
    """Name unreadable input rows on stderr: they are kept in the output as
    CHECKER_ERROR, but a silent pass would hide a broken input file."""
    for row in scored.rows:
        problem = row.get(ROW_ERROR_COLUMN)
        if not problem:
            continue
        seen += 1
        if seen <= CAPS.row_warnings:
            print(f"score: warning: unreadable input row kept as CHECKER_ERROR invalid_row: "
                  f"{problem}", file=sys.stderr)
        elif seen == CAPS.row_warnings + 1:
            print("score: warning: more unreadable input rows; the summary counts them",
                  file=sys.stderr)


def _score_nothing(options: ScoreOptions, output: Path, stream: Any) -> ScoreSummary:
    """An empty input: an empty output and a summary, not a column error."""
    print(f"score: {options.input} has 0 rows; nothing to score", file=sys.stderr)
    writer = open_output(output, resume=False, key=ROW_KEY)
    writer.close()
    summary = ScoreSummary()
    print(summary.render(), file=stream, flush=True)
    if options.summary_json:
        Path(options.summary_json).write_text(json.dumps(summary.to_dict(), indent=2))
    return summary


_RECORDED_COLUMNS = {"completion": "completion_column", "integrand": "integrand_column",
                     "symbol": "symbol_column", "group": "group_column"}


def with_recorded_columns(options: ScoreOptions, output: Path) -> ScoreOptions:
    """``--resume`` without the column flags: the columns the earlier run
    recorded in its ``.meta.json``; a flag given again wins (and a different
    one is then refused by :func:`check_resumable`, as any changed setting)."""
    try:
        recorded = json.loads(meta_path(output).read_text(encoding="utf-8")).get("columns")
    except (OSError, ValueError, AttributeError):
        return options  # check_resumable says what is wrong with the sidecar
    if not isinstance(recorded, dict):
        return options
    filled = {field: recorded[key] for key, field in _RECORDED_COLUMNS.items()
              if getattr(options, field) is None and recorded.get(key) is not None}
    return replace(options, **filled) if filled else options


def run_score(options: ScoreOptions, *, stream: Any = None) -> ScoreSummary:
    """Score ``options.input`` into ``options.output``; returns the summary
    (also printed to ``stream``, stdout by default). Ctrl-C stops after
    closing the output (valid, partial) and sets ``summary.interrupted``.
    """
    stream = sys.stdout if stream is None else stream
    output = Path(options.output)
    if options.resume:
        options = with_recorded_columns(options, output)
    if output.exists() and not (options.resume or options.overwrite):
        raise ScoringError(f"{output} exists: pass --resume to continue it or --overwrite "
                           f"to replace it")
    try:
        source = open_input(options.input, split=options.split)
    except InputError as exc:
        raise ScoringError(str(exc)) from exc
    if source.num_rows == 0:
        return _score_nothing(options, output, stream)
    reward = build_reward(options)
    columns = resolve_columns(source.columns, options.completion_column,
                              reward.config.integrand_column,
                              reward.config.symbol_column, options.group_column,
                              reward_name=None if options.integrand_column else reward.__name__)
    meta = _meta(options, output, columns, reward)
    if options.resume:
        try:  # before anything is written, or a torn last line cut
            check_resumable(output, meta)
        except ScoringError:
            reward.close()
            raise
    trace_path = options.trace_path or reward.config.trace_path
    tracer = None
    if trace_path:
        from ..reward.trace import TraceWriter

        tracer = TraceWriter(trace_path, reward.config.trace_max_bytes,
                             reward.config.trace_backups)

    summary = ScoreSummary(group_column=columns.group)
    try:
        writer = open_output(output, resume=options.resume, key=ROW_KEY)
    except InputError as exc:
        reward.close()
        raise ScoringError(str(exc)) from exc
    _write_meta(output, meta)
    total = source.num_rows
    if options.limit is not None:
        total = min(total, options.limit) if total is not None else options.limit
    done = writer.done_keys
    for row in writer.existing_rows():
        key = row.get(ROW_KEY)
        if isinstance(key, int) and (total is None or key < total):
            summary.add_earlier(row)
    progress = _Progress(None if total is None else max(0, total - summary.skipped),
                         options.progress)
    backend = None
    started = time.monotonic()
    try:
        backend = make_backend(options.backend, reward, workers=options.workers,
                               address=options.ray_address)
        batches = pending_rows(source, done, options.batch_size, options.limit)
        for scored in backend.map(batches, columns, with_traces=tracer is not None):
            _warn_invalid_rows(scored, summary.invalid_rows)
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

