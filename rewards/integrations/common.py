"""What the stack adapters share: one reward per process, a number for every sample.

verl and OpenRLHF call a score function per sample from thread pools, and load
it by file path with no place for a constructor; so the reward lives here, one
per process and configuration, built on first use (inside a Ray task, sized
from the CPUs Ray assigned it: :func:`ray_assigned_cpus`). Their reward tensors take
no ``None``: where the shaping says null (CHECKER_ERROR, a row without an
integrand) they get ``RewardConfig.null_reward``, and the case is logged.

>>> s = SampleScore.unscored("prompt_not_in_query", null_reward=0.0)
>>> s.verdict, s.score, s.reward
('CHECKER_ERROR', 0.0, None)
"""
from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from ..check import infer_variable
from ..check.limits import CAPS
from ..check.result import Confidence, Verdict
from ..reward import AntiderivativeReward, Outcome, RewardConfig
from ..reward.shaping import OutcomeClass, classify
from ..reward.values import key_text

logger = logging.getLogger("rewards.integrations")

# A reward YAML (configs/reward/*.yaml) for adapters whose stack passes no
# arguments of ours (OpenRLHF's reward_func); verl can pass reward_config.
CONFIG_ENV = "INTEGRAL_REWARDS_CONFIG"

def for_log(value: Any, limit: int = CAPS.log_value_chars) -> str:
    """``repr(value)``, cut to ``limit`` characters with the full length said.

    >>> for_log("x" * 1000, limit=20)
    "'xxxxxxxxxxxxxxxxxx... (1002 chars)"
    """
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 1]}... ({len(text)} chars)"


_SHARED: dict[tuple[str | None, int | None], AntiderivativeReward] = {}
_SHARED_LOCK = threading.Lock()


def shared_reward(config: str | os.PathLike | None = None, *,
                  workers: int | None = None) -> AntiderivativeReward:
    """This process's reward for a reward YAML (``None``: ``$INTEGRAL_REWARDS_CONFIG``,
    else the defaults). Every caller with the same config shares its pool,
    cache and batches. ``workers`` sizes the pool where the config leaves it
    automatic (``workers: null``); a number in the YAML wins."""
    key = str(config) if config else os.environ.get(CONFIG_ENV) or None
    with _SHARED_LOCK:
        reward = _SHARED.get((key, workers))
        if reward is None:
            reward = (AntiderivativeReward.from_config(key) if key
                      else AntiderivativeReward())
            if workers and reward.config.workers is None:
                # Built, not started: the pool spawns on the first call.
                reward = AntiderivativeReward(reward.config, workers=workers)
            _SHARED[(key, workers)] = reward
        return reward


def ray_assigned_cpus() -> int | None:
    """The CPUs Ray assigned to the task or actor running in this process (at
    least 1 when Ray assigned a fraction); ``None`` outside a Ray worker, or
    where Ray assigned none (an actor created without ``num_cpus`` holds no
    CPU once running).

    Ray schedules tasks by these numbers: a task that starts a pool of every
    core of the node next to other tasks doing the same oversubscribes it.

    >>> ray_assigned_cpus() is None  # not a Ray worker
    True
    """
    ray = sys.modules.get("ray")  # a Ray worker has imported it; never import Ray for this
    if ray is None or not ray.is_initialized():
        return None
    try:
        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU")
    except Exception:  # noqa: BLE001 - the driver (not a worker), or an older Ray
        return None
    return max(1, int(cpus)) if cpus else None


@dataclass(frozen=True)
class SampleScore:
    """One sample as the stacks see it: the same fields every time, no
    ``None`` except ``reward`` (the shaping's own value)."""

    score: float  # the reward; null_reward where the shaping says null
    reward: float | None
    acc: float  # 1.0 for CORRECT (symbolic or numeric-only), else 0.0
    verdict: str
    reason: str
    confidence: str
    extracted_answer: str  # "" when there was none

    @classmethod
    def from_outcome(cls, outcome: Outcome, null_reward: float) -> SampleScore:
        """The score of one outcome, with ``null_reward`` where the shaping gives none."""
        if not outcome.judged or outcome.result is None:
            return cls.unscored("integrand_missing", null_reward)
        result = outcome.result
        reward = outcome.reward
        return cls(score=float(null_reward if reward is None else reward), reward=reward,
                   acc=float(result.verdict is Verdict.CORRECT), verdict=result.verdict.value,
                   reason=result.reason, confidence=result.confidence.value,
                   extracted_answer=outcome.extracted or "")

    @classmethod
    def unscored(cls, reason: str, null_reward: float) -> SampleScore:
        """A sample we could not judge (our side or the stack's, not the model's)."""
        return cls(score=float(null_reward), reward=None, acc=0.0,
                   verdict=Verdict.CHECKER_ERROR.value, reason=reason,
                   confidence=Confidence.NONE.value, extracted_answer="")

    @property
    def outcome_class(self) -> OutcomeClass:
        """The shaping's outcome class of this score."""
        return classify(self.verdict, self.confidence, self.reason)

    def flags(self) -> dict[str, float]:
        """Numeric per-sample metrics (OpenRLHF logs only numbers)."""
        kind = self.outcome_class
        return {"acc": self.acc,
                "no_answer": float(kind is OutcomeClass.NO_ANSWER),
                "timeout": float(kind is OutcomeClass.TIMEOUT),
                "checker_error": float(kind is OutcomeClass.CHECKER_ERROR)}

    def to_dict(self) -> dict[str, Any]:
        """The score as the stacks' extra fields."""
        return asdict(self)


def sample_scores(outcomes: list[Outcome], null_reward: float,
                  integrands: list[Any] | None = None) -> list[SampleScore]:
    """Outcomes as :class:`SampleScore`; every CHECKER_ERROR is logged (a
    bad integrand in the data, or a bug of ours: worth a line each)."""
    scores = [SampleScore.from_outcome(o, null_reward) for o in outcomes]
    for i, s in enumerate(scores):
        if s.verdict == Verdict.CHECKER_ERROR.value:
            log_checker_error(s, integrands[i] if integrands is not None else None)
    return scores


def log_checker_error(score: SampleScore, integrand: Any) -> None:
    """One warning line for a CHECKER_ERROR, values cut short."""
    logger.warning("CHECKER_ERROR (%s) for integrand %s: reported as %s", score.reason,
                   for_log(integrand), score.score)


def iter_integrands(source: str | os.PathLike, *, integrand_column: str = "integrand",
                    variable_column: str | None = "variable", split: str | None = None,
                    config: RewardConfig | None = None) -> Iterator[tuple[str, str]]:
    """``(integrand, variable)`` for every row of a dataset with an integrand
    (any input ``python -m rewards score`` reads: .jsonl, .parquet, .csv, a
    datasets folder, a Hub name); rows without one are skipped. A missing
    variable is the one the reward would infer under ``config`` (the
    integrand's own: t for ``cos(t)``), so a prompt names the variable the
    answer is checked in. What the stacks' datasets are built from (verl's
    parquet, the verifiers taskset).

    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.jsonl"
    >>> _ = path.write_text("\\n".join(json.dumps(r) for r in
    ...     [{"integrand": "x**2"}, {"integrand": ""}, {"integrand": "cos(t)"}]))
    >>> list(iter_integrands(path))
    [('x**2', 'x'), ('cos(t)', 't')]
    """
    from ..offline.io import open_input

    request = (config or RewardConfig()).check_request()
    data = open_input(source, split=split)
    if integrand_column not in data.columns:
        raise ValueError(f"{source}: no column {integrand_column!r}; columns: {data.columns}")
    for batch in data.iter_batches(1024):
        for row in batch:
            integrand = key_text(row.get(integrand_column))
            if integrand is None:
                continue
            variable = key_text(row.get(variable_column)) if variable_column else None
            yield integrand, variable or infer_variable(integrand, request)[0]
