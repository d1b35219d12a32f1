"""TRL's async rollout loop with fixed completions in place of vLLM's, for
tests/test_async_grpo.py.

A module of its own, imported only by that test and kept out of collection
(tests/conftest.py ``collect_ignore``): importing TRL's async GRPO package
takes about 7 s (torch, transformers, the trainer), which every pytest-xdist
worker would pay at collection, also in ``-m "not slow"`` runs that deselect
the test. The class lives at module level because the spawned rollout child
unpickles it by name.
"""
from __future__ import annotations

import asyncio

from trl.experimental.async_grpo import async_rollout_worker as arw

COMPLETIONS = [[{"role": "assistant", "content": r"so \boxed{x^3/3 + C}"}],
               [{"role": "assistant", "content": r"\boxed{x^3}"}],
               [{"role": "assistant", "content": "I give up"}],
               [{"role": "assistant", "content": r"\boxed{\sin(t)}"}]]
INTEGRANDS = ["x**2", "x**2", "x**2", "cos(t)"]
VARIABLES = ["x", None, "", "t"]


class FixedCompletionsLoop(arw._AsyncRolloutLoop):
    """TRL's rollout loop with fixed completions in place of vLLM's."""

    def run(self) -> None:
        n = len(COMPLETIONS)
        group = arw.RolloutGroup(
            prompts=[[{"role": "user", "content": "integrate"}]] * n,
            reward_kwargs={"integrand": INTEGRANDS, "variable": VARIABLES},
            completions=COMPLETIONS, completions_ids=[[1, 2]] * n,
            completions_sequences=[[arw.TrainingSequence([1, 2], [0, 1], [0.0, -1.0], (0, i))]
                                   for i in range(n)],
            tool_call_counts=[0] * n, tool_failure_counts=[0] * n, model_version=0, group_id=0,
            env_rewards=[None] * n, rollout_rewards=[None] * n)
        for sample in asyncio.run(self._score_group(group)):
            self.rollout_buffer.put(sample)
