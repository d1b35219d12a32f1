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

from ..check.extract import AnswerPolicy
from ..check.proof.ladder import LADDER_BUDGET_S

ANSWER_SYNTAXES = ("auto", "latex", "sympy")
INTEGRAND_KINDS = ("sympy", "latex")


@dataclass(frozen=True)
class RewardConfig:
    """Everything :class:`~rewards.reward.AntiderivativeReward` takes.

    The comments in ``configs/reward/default.yaml`` say what each key does.
    """

    name: str = "antiderivative_reward"
    # A preset name, a shaping YAML path, a mapping, or a RewardShaping.
    shaping: Any = "default"
    integrand_column: str = "integrand"
    integrand_kind: str = "sympy"
    symbol: str = "x"
    symbol_column: str | None = None
    answer_syntax: str = "auto"
    # The final-answer policy (rewards.check.extract.AnswerPolicy).
    reasoning: str = "grade_after"
    hedge: str = "reject"
    qualifiers: str = "reject"
    box_policy: str = "last"
    math_fallback: bool = False
    workers: int | None = None
    timeout_s: float = 5.0
    chunk_size: int = 4
    memory_limit_mb: int | None = 3072
    cache_size: int = 20_000
    max_tasks_per_worker_pool: int = 20_000
    max_worker_rss_mb: float = 2048.0
    proof_budget_s: float = LADDER_BUDGET_S
    watchdog_margin_s: float = 2.0
    idle_timeout_s: float = 600.0
    trace_path: str | None = None
    trace_max_bytes: int = 50_000_000
    trace_backups: int = 3
    # The reward reported where the shaping gives null (no gradient) to the
    # stacks that cannot skip a sample: verl, OpenRLHF, the server's /get_reward.
    null_reward: float = 0.0

    def __post_init__(self) -> None:
        # Fail at construction, not on the first training batch.
        if self.answer_syntax not in ANSWER_SYNTAXES:
            raise ValueError(f"answer_syntax must be one of {ANSWER_SYNTAXES}, "
                             f"not {self.answer_syntax!r}")
        if self.integrand_kind not in INTEGRAND_KINDS:
            raise ValueError(f"integrand_kind must be one of {INTEGRAND_KINDS}, "
                             f"not {self.integrand_kind!r}")
        self.answer_policy()  # box_policy, reasoning, hedge, qualifiers
        if self.workers is not None and int(self.workers) < 1:
            raise ValueError(f"workers must be at least 1 (or null for automatic), "
                             f"not {self.workers!r}")
        for key in ("timeout_s", "proof_budget_s", "idle_timeout_s"):
            if not float(getattr(self, key)) > 0:
                raise ValueError(f"{key} must be positive, not {getattr(self, key)!r}")
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
        return sorted(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> RewardConfig:
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
        unknown = sorted(set(changes) - set(self.keys()))
        if unknown:
            raise ValueError(f"unknown reward config key(s) {unknown}; valid keys: "
                             f"{', '.join(self.keys())}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def answer_policy(self) -> AnswerPolicy:
        """Which part of a completion is graded (see :mod:`rewards.check.extract`)."""
        return AnswerPolicy(reasoning=self.reasoning, hedge=self.hedge,
                            box_policy=self.box_policy,
                            math_fallback=bool(self.math_fallback), qualifiers=self.qualifiers)
