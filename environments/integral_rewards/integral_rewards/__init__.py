"""verifiers taskset ``integral-rewards`` (see :mod:`.taskset`).

verifiers resolves a taskset id by importing this top-level module and taking
the one ``vf.Taskset`` subclass exported in ``__all__``.
"""
from integral_rewards.taskset import (
    IntegralConfig,
    IntegralData,
    IntegralTask,
    IntegralTaskConfig,
    IntegralTaskset,
)

__all__ = ["IntegralConfig", "IntegralData", "IntegralTask", "IntegralTaskConfig",
           "IntegralTaskset"]
