"""One batch of table rows through the reward: rows in, scored rows out.

Each output row keeps every input column and adds :data:`RESULT_COLUMNS`
plus ``source_row`` (the row's position in the input, the key ``--resume``
uses). An input column that clashes with one of ours is kept as
``input_<name>`` (reasoning-gym dumps have their own ``extracted_answer``).
The checking itself is :meth:`AntiderivativeReward.score` (dedup, cache,
worker processes, deadlines), so an offline verdict is exactly what the
trainer would have seen under the same configuration.

>>> resolve_columns(["id", "response", "integrand"]).completion
'response'
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..check.result import Confidence, Verdict
from ..reward.outcome import logged_columns
from ..reward.trace import should_trace, trace_record
from ..reward.values import is_missing
from .io import ROW_ERROR_KEY

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
# The reason of a row whose completion is null (a dump with a failed or
# skipped generation): missing data, not a model that answered nothing, so
# no verdict and reward null, counted apart in the summary. An empty string
# is an answer: UNPARSEABLE like in training.
COMPLETION_MISSING = "completion_missing"
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


def logged_column(available: Iterable[str], key: str, reward_name: str) -> str | None:
    """The column of TRL's completion log holding what the reward logged
    under ``key`` (``integrand``, ``variable``): ``<reward_name>/<key>``, else
    the only column ending in ``/<key>`` (a reward trained under another name).

    >>> logged_column(["prompt", "completion", "mine/integrand"], "integrand", "antiderivative_reward")
    'mine/integrand'
    """
    names = list(available)
    exact = logged_columns(reward_name)[key]
    if exact in names:
        return exact
    suffixed = [n for n in names if n.endswith(f"/{key}")]
    return suffixed[0] if len(suffixed) == 1 else None


def resolve_columns(available: Iterable[str], completion: str | None = None,
                    integrand: str = "integrand", symbol: str | None = None,
                    group: str | None = None, *, reward_name: str | None = None) -> Columns:
    """Check the requested columns against the input's, filling defaults.

    The completion column defaults to ``completion``, then ``response``
    (reasoning-gym and many eval dumps); the group column to ``prompt`` when
    the input has one (a GRPO group is the completions of one prompt). With
    ``reward_name`` (the integrand column was not named explicitly) an input
    without ``integrand`` is read as TRL's completion log: the integrand and
    variable the reward logged through ``log_extra``. A column named but
    absent is a setup error, reported with the columns that do exist.
    """
    names = list(available)
    present = set(names)
    if reward_name is not None and integrand not in present:
        logged = logged_column(names, "integrand", reward_name)
        if logged is not None:
            integrand = logged
            prefix = logged.rsplit("/", 1)[0]
            symbol = symbol or logged_column([n for n in names if n.startswith(prefix + "/")],
                                             "variable", prefix)
    if group is None and "prompt" in present:
        group = "prompt"
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
    """Score rows (as :func:`rewards.offline.scoring.pending_rows` yields them) with an AntiderivativeReward.

    Never raises on row content: a missing integrand, an unreadable row or an
    unparseable integrand is a ``CHECKER_ERROR`` verdict with a reason, like
    every other outcome.
    """
    shaping = reward.shaping
    unread = {i for i, r in enumerate(rows) if ROW_ERROR_KEY in r}
    absent = {i for i, r in enumerate(rows)
              if i not in unread and is_missing(r.get(columns.completion))}
    readable = [i for i in range(len(rows)) if i not in unread and i not in absent]
    outcomes = reward.score(
        [rows[i].get(columns.completion) for i in readable],
        [rows[i].get(columns.integrand) for i in readable],
        [rows[i].get(columns.symbol) if columns.symbol else None for i in readable])
    by_row = dict(zip(readable, outcomes, strict=True))

    batch = ScoredBatch(rows=[])
    for i, row in enumerate(rows):
        outcome = by_row.get(i)
        if i in absent:
            batch.rows.append(_merge(row, {
                ROW_KEY: row[_POSITION], "reward": None, "verdict": None, "confidence": None,
                "verdict_stage": None, "reason": COMPLETION_MISSING, "extracted_answer": None,
                "check_ms": 0.0}))
            continue
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
        if with_traces and should_trace(result):
            prompt = row.get(columns.prompt) if columns.prompt else None
            batch.traces.append(trace_record(
                outcome, step=None, batch_index=batch_index, row=row[_POSITION], prompt=prompt,
                shaping=shaping.name, reward_name=reward.__name__))
    return batch


