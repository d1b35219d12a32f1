"""Verdicts -> rewards: the TRL reward callable and what it runs on.

:mod:`.antiderivative` (the callable), :mod:`.config` (every option and its
default), :mod:`.shaping` (verdict -> reward, presets shipped as package data),
:mod:`.pool` (worker processes with hard deadlines), :mod:`.trace` (JSONL of
rejected samples), :mod:`.metrics` (batch metrics, percentiles, GRPO group
statistics).

The names below load on first use: importing a light submodule (metrics,
shaping) must not start loky.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "AntiderivativeReward": "antiderivative",
    "RewardConfig": "config",
    "Outcome": "outcome",
    "completion_text": "outcome",
    "RewardShaping": "shaping",
    "available_presets": "shaping",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rewards.reward' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
