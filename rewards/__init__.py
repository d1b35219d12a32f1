"""Reward functions for RL fine-tuning on indefinite integrals.

The package reads as the data flow: :mod:`rewards.check` (completion ->
verdict, pure, worker-side), :mod:`rewards.reward` (verdicts -> rewards: the
TRL callable, its config, shaping, worker pool, traces, metrics),
:mod:`rewards.offline` (datasets in and out, batch scoring, ablation) and
:mod:`rewards.cli`.

>>> from rewards import check_antiderivative
>>> check_antiderivative(r"\\ln|x| + C", "1/x").verdict
<Verdict.CORRECT: 'CORRECT'>
"""
from __future__ import annotations

from .check import (
    CheckRequest,
    CheckResult,
    Confidence,
    StageRecord,
    Verdict,
    check_antiderivative,
    infer_variable,
)

__all__ = [
    "AntiderivativeReward",
    "CheckRequest",
    "CheckResult",
    "Confidence",
    "RewardConfig",
    "RewardShaping",
    "StageRecord",
    "Verdict",
    "check_antiderivative",
    "infer_variable",
]


def __getattr__(name: str):
    # The reward callable pulls in loky and YAML; importing the checker alone
    # (workers, offline tools) should not pay for that.
    if name in ("AntiderivativeReward", "RewardConfig", "RewardShaping"):
        from . import reward

        return getattr(reward, name)
    raise AttributeError(f"module 'rewards' has no attribute {name!r}")
