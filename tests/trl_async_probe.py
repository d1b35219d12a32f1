"""TRL's async GRPO rollout loop with vLLM generation replaced by fixed
completions (imported by :mod:`tests.test_trl_async` and, by reference, by the
rollout process TRL spawns). Everything else is TRL's own: ``AsyncRolloutWorker``
starts the daemonic child, ``_child_main`` builds this loop, its ``_score_loop``
and ``_score_group`` call the reward functions and push the samples and
metrics back to the parent."""
from __future__ import annotations

import os

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from trl.experimental.async_grpo import async_rollout_worker as trl_worker  # noqa: E402

# The fixed groups to score: (prompt, completion, integrand) triples per group.
GROUPS_ENV = "INTEGRAL_REWARDS_PROBE_GROUPS"


class FixedCompletionsLoop(trl_worker._AsyncRolloutLoop):
    """Generation yields the given completions instead of asking a vLLM server."""

    def __init__(self, *, groups, **kwargs):
        super().__init__(**kwargs)
        self._fixed_groups = groups

    async def _generate_loop(self, stop_event) -> None:
        for group_id, rows in enumerate(self._fixed_groups):
            prompts = [[{"role": "user", "content": p}] for p, _, _ in rows]
            completions = [[{"role": "assistant", "content": c}] for _, c, _ in rows]
            sequences = [[trl_worker.TrainingSequence(input_ids=[1, 2, 3], completion_mask=[0, 1, 1],
                                                      old_log_probs=[0.0, -0.5, -0.5],
                                                      rollout_id=f"{group_id}-{i}")]
                         for i in range(len(rows))]
            await self._groups_to_score.put(trl_worker.RolloutGroup(
                prompts=prompts, reward_kwargs={"integrand": [f for _, _, f in rows]},
                completions=completions, completions_ids=[[2, 3]] * len(rows),
                completions_sequences=sequences, tool_call_counts=[0] * len(rows),
                tool_failure_counts=[0] * len(rows), model_version=0, group_id=group_id,
                env_rewards=[], rollout_rewards=[]))
        await self._groups_to_score.put(None)  # the score loop returns on None


class FixedCompletionsWorker(trl_worker.AsyncRolloutWorker):
    _loop_cls = FixedCompletionsLoop
