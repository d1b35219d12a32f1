"""The reward's configuration: one typed, validated home for every default.

``configs/reward/default.yaml`` spells out these defaults for users to copy
and diff (a test keeps the two equal); :meth:`RewardConfig.from_yaml` reads
such a file, and an unknown key is an error that names the valid ones, never
a silently ignored typo.

>>> RewardConfig().timeout_s
5.0
>>> RewardConfig.from_dict({"timeout": 3})
Traceback (most recent call last):
...
ValueError: unknown reward config key(s) ['timeout']; valid keys: answer_syntax, ...
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from ..check.extract import DEFAULT_POLICY, AnswerPolicy
from ..check.request import CheckRequest

_CHECK = CheckRequest()


@dataclass(frozen=True)
class RewardConfig:
    """Everything :class:`~rewards.reward.AntiderivativeReward` takes.

    Defaults that belong to one check (variable, syntaxes, answer policy,
    time limits) are :class:`~rewards.check.request.CheckRequest`'s, read from
    it here; ``configs/reward/default.yaml`` spells all of them out.

    Args:
        name: the metric key in TRL's logs (the callable's ``__name__``).
        shaping: a preset name (``default``, ``binary``, ``strict_symbolic``,
            ``format_aware``, ``timeout_neutral``), a shaping YAML path, a
            mapping, or a :class:`~rewards.reward.shaping.RewardShaping`.
        integrand_column: the dataset column holding f.
        integrand_kind: ``sympy`` | ``latex``: the syntax of that column.
        symbol: the integration variable of rows whose ``symbol_column`` gives
            none; ``None`` infers it from each integrand (its single free
            symbol; with several, x, then ``default_symbol``).
        default_symbol: the variable of an integrand with no free symbol, and
            the second preference among several.
        symbol_column: a dataset column with the variable per row.
        answer_syntax: ``auto`` | ``latex`` | ``sympy``: how the text inside
            the box or tag is read.
        reasoning, hedge, qualifiers, box_policy, math_fallback: the final-
            answer policy (:class:`~rewards.check.extract.AnswerPolicy`).
        workers: checker processes; ``None``: the cores available to this
            process divided by ``LOCAL_WORLD_SIZE`` (ranks on the node), >= 1.
        timeout_s: the hard deadline of one sample.
        chunk_size: samples per task sent to a worker; a task holds whole
            groups of one integrand where they fit (a GRPO group of 8 meets
            in one worker and its caches).
        memory_limit_mb: ``RLIMIT_AS`` per worker, lowered to this rank's share
            of the node's memory; a check run in-process with this config's
            request may add this much to its process; ``None``: no cap.
        cache_size: verdicts kept across batches (LRU).
        max_tasks_per_worker_pool: recycle the pool after this many samples...
        max_worker_rss_mb: ... or once a worker grows past this RSS.
        proof_budget_s: proof-ladder time once the numeric test passed.
        watchdog_margin_s: a task this far past its deadline gets its pool
            killed (a worker stuck where signals cannot reach).
        idle_timeout_s: idle workers exit after this long.
        trace_path: a JSONL file of rejected and numeric-only samples.
        trace_max_bytes, trace_backups: its rotation.
        null_reward: the reward reported where the shaping gives null (no
            gradient), for stacks that need a number (verl, OpenRLHF, the
            server's ``/get_reward``).
    """

    name: str = "antiderivative_reward"
    shaping: Any = "default"
    integrand_column: str = "integrand"
    integrand_kind: str = _CHECK.integrand_kind
    symbol: str | None = _CHECK.symbol
    default_symbol: str = _CHECK.default_symbol
    symbol_column: str | None = None
    answer_syntax: str = _CHECK.answer_syntax
    reasoning: str = DEFAULT_POLICY.reasoning
    hedge: str = DEFAULT_POLICY.hedge
    qualifiers: str = DEFAULT_POLICY.qualifiers
    box_policy: str = DEFAULT_POLICY.box_policy.value
    math_fallback: bool = DEFAULT_POLICY.math_fallback
    workers: int | None = None
    timeout_s: float = _CHECK.timeout_s
    chunk_size: int = 8
    memory_limit_mb: int | None = _CHECK.memory_limit_mb
    cache_size: int = 20_000
    max_tasks_per_worker_pool: int = 20_000
    max_worker_rss_mb: float = 2048.0
    proof_budget_s: float = _CHECK.proof_budget_s
    watchdog_margin_s: float = 2.0
    idle_timeout_s: float = 600.0
    trace_path: str | None = None
    trace_max_bytes: int = 50_000_000
    trace_backups: int = 3
    null_reward: float = 0.0

    def __post_init__(self) -> None:
        # Fail at construction, not on the first training batch.
        self.check_request()  # syntaxes, variable, policy and time limits
        if self.workers is not None and int(self.workers) < 1:
            raise ValueError(f"workers must be at least 1 (or null for automatic), "
                             f"not {self.workers!r}")
        if not float(self.idle_timeout_s) > 0:
            raise ValueError(f"idle_timeout_s must be positive, not {self.idle_timeout_s!r}")
        for key in ("chunk_size", "trace_backups", "cache_size", "trace_max_bytes",
                    "max_tasks_per_worker_pool", "watchdog_margin_s"):
            if float(getattr(self, key)) < 0:
                raise ValueError(f"{key} must not be negative, not {getattr(self, key)!r}")
        if self.trace_path is not None:
            object.__setattr__(self, "trace_path", str(self.trace_path))
        object.__setattr__(self, "timeout_s", float(self.timeout_s))
        object.__setattr__(self, "null_reward", float(self.null_reward))

    @classmethod
    def keys(cls) -> list[str]:
        """Every valid key, sorted."""
        return sorted(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> RewardConfig:
        """A config from a mapping; an unknown key is a ``ValueError`` naming the valid ones."""
        unknown = sorted(set(raw) - set(cls.keys()))
        if unknown:
            raise ValueError(f"unknown reward config key(s) {unknown}; valid keys: "
                             f"{', '.join(cls.keys())}")
        return cls(**raw)

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> RewardConfig:
        """A reward config file; a relative shaping path in it is taken
        relative to the file."""
        path = Path(path)
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: a reward config is a mapping of keys to values")
        shaping = raw.get("shaping")
        if isinstance(shaping, str) and shaping.endswith((".yaml", ".yml")):
            candidate = Path(shaping)
            if not candidate.is_absolute() and not candidate.exists():
                raw["shaping"] = str(path.parent / candidate)
        return cls.from_dict({**raw, **overrides})

    def replace(self, **changes: Any) -> RewardConfig:
        """A copy with ``changes`` applied (validated, unknown keys refused)."""
        unknown = sorted(set(changes) - set(self.keys()))
        if unknown:
            raise ValueError(f"unknown reward config key(s) {unknown}; valid keys: "
                             f"{', '.join(self.keys())}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every key and its value."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def check_request(self) -> CheckRequest:
        """The one :class:`CheckRequest` every check of this reward gets (in
        its workers, and for :func:`rewards.check_antiderivative` callers who
        want the same verdicts)."""
        return CheckRequest(symbol=self.symbol, default_symbol=self.default_symbol,
                            answer_syntax=self.answer_syntax,
                            integrand_kind=self.integrand_kind,
                            answer_policy=self.answer_policy(), timeout_s=self.timeout_s,
                            proof_budget_s=self.proof_budget_s,
                            memory_limit_mb=self.memory_limit_mb)

    def answer_policy(self) -> AnswerPolicy:
        """Which part of a completion is graded (see :mod:`rewards.check.extract`)."""
        return AnswerPolicy(reasoning=self.reasoning, hedge=self.hedge,
                            box_policy=self.box_policy,
                            math_fallback=bool(self.math_fallback), qualifiers=self.qualifiers)
