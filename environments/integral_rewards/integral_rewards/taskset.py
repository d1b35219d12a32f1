"""The ``integral-rewards`` taskset: find an antiderivative, graded by integral-rewards.

Each task is one integrand from a dataset (any input ``python -m rewards
score`` reads: a .jsonl, .parquet or .csv file, a datasets folder, a Hub
dataset name; ``--env.taskset.source``), asked with the project's training
prompt (:mod:`rewards.prompts`). Its reward is integral-rewards'
:class:`~rewards.AntiderivativeReward` on the rollout's final reply, nothing
of its own: one reward per process and reward config, shared by every
rollout, awaited with ``ascore`` so the check runs off the event loop (in the
reward's worker processes), and concurrent rollouts' checks are batched over
one worker pool.

A trace keeps the outcome: the reward (``antiderivative``: the shaped reward,
``null_reward`` where the shaping gives none), numeric metrics (``acc``,
``no_answer``, ``timeout``, ``checker_error`` and one ``verdict/<VERDICT>``
that is 1.0; verifiers' metrics are numbers) and, in
``trace.info["integral_rewards"]``, the verdict, reason, confidence and
extracted answer as text.

    pip install -e environments/integral_rewards
    vf-eval integral-rewards --env.taskset.source chenpanli/integrals \\
        --env.agent.harness.id null --env.agent.runtime.type subprocess ...

(the last two flags run the agent here, as a subprocess, instead of in
vf-eval's default hosted runtime; that needs ``uv``).

Example (no model: a reply committed by hand)::

    import asyncio, verifiers.v1 as vf
    from verifiers.v1.graph import prepare_turn
    from verifiers.v1.utils.loaders import taskset_class
    from integral_rewards.taskset import IntegralConfig

    taskset = taskset_class("integral-rewards")(IntegralConfig(source="integrals.jsonl"))
    task = next(iter(taskset))
    trace = vf.Trace(task=vf.TraceTask(type="IntegralTask", data=task.data),
                     agent=vf.AgentInfo(config=vf.AgentConfig()))
    prepare_turn(trace, [vf.UserMessage(content=task.data.prompt)]).commit(vf.Response(
        id="r", created=0, model="m", finish_reason="stop",
        message=vf.AssistantMessage(content=r"\\boxed{x^3/3}")))
    asyncio.run(task.score(trace))
    trace.reward, trace.info["integral_rewards"]["verdict"]
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import verifiers.v1 as vf

from rewards import prompts
from rewards.check.result import Verdict
from rewards.integrations.common import iter_integrands, sample_scores, shared_reward

INFO_KEY = "integral_rewards"


class IntegralData(vf.TaskData):
    """One integrand (SymPy syntax) and its variable."""

    integrand: str
    variable: str = "x"


class IntegralTaskConfig(vf.TaskConfig):
    """Run-time knobs, under ``--env.taskset.task.*``."""

    reward_config: str | None = None
    """A reward YAML (integral-rewards' configs/reward/*.yaml); unset:
    ``$INTEGRAL_REWARDS_CONFIG``, else the defaults."""


class IntegralTask(vf.Task[IntegralData, vf.State, IntegralTaskConfig]):
    @vf.reward(weight=1.0)
    async def antiderivative(self, trace: vf.Trace) -> float:
        """integral-rewards' reward for the final reply; outcome into the trace."""
        reward = shared_reward(self.config.reward_config)
        integrands = [self.data.integrand]
        outcomes = await reward.ascore([trace.last_reply], integrands, [self.data.variable])
        score = sample_scores(outcomes, reward.config.null_reward, integrands)[0]
        trace.record_metrics(score.flags())
        trace.record_metrics({f"verdict/{v.value}": float(v.value == score.verdict)
                              for v in Verdict})
        trace.info[INFO_KEY] = {"verdict": score.verdict, "reason": score.reason,
                                "confidence": score.confidence,
                                "extracted_answer": score.extracted_answer}
        return score.score


class IntegralConfig(vf.TasksetConfig):
    """Which integrands load, under ``--env.taskset.*``."""

    source: str = "chenpanli/integrals"
    """A .jsonl, .parquet or .csv file, a datasets folder, or a Hub dataset name."""
    split: str | None = None
    """The split of a Hub dataset or datasets folder (default: train, else its only split)."""
    integrand_column: str = "integrand"
    variable_column: str | None = "variable"
    """Per-row integration variable, if the data has one (else x)."""
    limit: int | None = None
    """Load at most this many tasks."""
    task: IntegralTaskConfig = IntegralTaskConfig()


class IntegralTaskset(vf.Taskset[IntegralTask, IntegralConfig]):
    def load(self) -> Iterator[IntegralTask]:
        config = self.config
        rows = iter_integrands(config.source, integrand_column=config.integrand_column,
                               variable_column=config.variable_column, split=config.split)
        for index, (integrand, variable) in enumerate(islice(rows, config.limit)):
            data = IntegralData(
                id=str(index), integrand=integrand, variable=variable,
                system_prompt=prompts.SYSTEM_PROMPT,
                prompt=prompts.USER_TEMPLATE.format(integrand=integrand, symbol=variable))
            yield IntegralTask(data, config.task)
