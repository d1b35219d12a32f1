"""Reward functions for RL fine-tuning on indefinite integrals.

>>> from rewards import check_antiderivative
>>> check_antiderivative(r"\\ln|x| + C", "1/x").verdict
<Verdict.CORRECT: 'CORRECT'>
"""
from __future__ import annotations

from .checker import check_antiderivative
from .verdict import CheckResult, Confidence, StageRecord, Verdict

__all__ = [
    "AntiderivativeReward",
    "CheckResult",
    "Confidence",
    "RewardShaping",
    "StageRecord",
    "Verdict",
    "check_antiderivative",
]


def __getattr__(name: str):
    # The reward callable pulls in loky and YAML; importing the checker alone
    # (workers, offline tools) should not pay for that.
    if name == "AntiderivativeReward":
        from .reward import AntiderivativeReward

        return AntiderivativeReward
    if name == "RewardShaping":
        from .shaping import RewardShaping

        return RewardShaping
    raise AttributeError(f"module 'rewards' has no attribute {name!r}")
