"""NeMo Gym resources server ``integrals``: is the rollout's final answer an
antiderivative of the task's integrand? Glue only: the verdict is
integral-rewards' (:func:`rewards.integrations.common.shared_reward`, the
same reward, pool, cache and shaping as the GRPO reward and the HTTP server).

A task row carries ``integrand`` (SymPy syntax) and optionally ``variable``
next to ``responses_create_params``; ``/verify`` grades the text of the
rollout's final assistant message (the ``output_text`` parts of the message
items after its last tool call or tool output; reasoning items are the
model's thinking and are not graded, as text inside ``<think>`` is not) and
returns the reward with the verdict, reason, confidence and extracted answer.
The check runs in the reward's worker processes and ``verify`` awaits it
(:meth:`rewards.AntiderivativeReward.ascore`), so the event loop keeps
serving while SymPy works; concurrent verifies are checked as one batch, each
within its own deadline.

Started as NeMo Gym starts every resources server (``ng_run`` runs
``python app.py`` in this folder with the merged config in the environment)::

    ng_run "+config_paths=[resources_servers/integrals/configs/integrals.yaml]"
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseRunRequest,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.openai_utils import NeMoGymResponse
from pydantic import Field

from rewards.integrations.common import SampleScore, sample_scores, shared_reward


class IntegralsResourcesServerConfig(BaseResourcesServerConfig):
    # A reward YAML (configs/reward/*.yaml in integral-rewards): shaping,
    # timeout_s, answer policy. None: the reward's defaults, or the file
    # named by $INTEGRAL_REWARDS_CONFIG.
    reward_config: str | None = None
    # Checker worker processes; None sizes the pool from the cores (the YAML wins).
    workers: int | None = None


class IntegralsRunRequest(BaseRunRequest):
    integrand: str = Field(description="The integrand f, in SymPy syntax (x**2*exp(x)).")
    variable: str | None = Field(default=None, description="The variable of integration; "
                                 "None: inferred from the integrand (x first).")


class IntegralsVerifyRequest(IntegralsRunRequest, BaseVerifyRequest):
    pass


class IntegralsVerifyResponse(IntegralsVerifyRequest, BaseVerifyResponse):
    verdict: str       # CORRECT | WRONG | UNPARSEABLE | TIMEOUT | CHECKER_ERROR
    reason: str        # the deciding stage's slug (structural, no_answer, hedged...)
    confidence: str    # symbolic | numeric_only | none
    extracted_answer: str
    acc: float         # 1.0 for CORRECT (symbolic or numeric-only)


def final_answer_text(response: NeMoGymResponse) -> str:
    """The text of the rollout's final assistant turn: the ``output_text`` of
    its assistant messages after the last other item (a tool call, a tool's
    output, a user turn). Reasoning items are skipped; a refusal is no answer."""
    texts: list[str] = []
    for item in response.output:
        kind, role = getattr(item, "type", None), getattr(item, "role", None)
        if kind == "reasoning":
            continue
        if kind != "message" or role != "assistant":
            texts = []
            continue
        content = item.content
        if isinstance(content, str):  # an easy input message echoed as output
            texts.append(content)
            continue
        texts.extend(part.text for part in content if getattr(part, "type", None) == "output_text")
    return "\n".join(texts)


class IntegralsResourcesServer(SimpleResourcesServer):
    config: IntegralsResourcesServerConfig

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        # One reward per process: its worker pool starts on the first verify.
        self._reward = shared_reward(self.config.reward_config, workers=self.config.workers)

    async def verify(self, body: IntegralsVerifyRequest) -> IntegralsVerifyResponse:
        text = final_answer_text(body.response)
        [outcome] = await self._reward.ascore([text], [body.integrand], [body.variable])
        [score] = sample_scores([outcome], self._reward.config.null_reward, [body.integrand])
        return IntegralsVerifyResponse(**body.model_dump(), **self._fields(score))

    @staticmethod
    def _fields(score: SampleScore) -> dict[str, Any]:
        return {"reward": score.score, "verdict": score.verdict, "reason": score.reason,
                "confidence": score.confidence, "extracted_answer": score.extracted_answer,
                "acc": score.acc}

    def compute_metrics(self, tasks: list[list[dict[str, Any]]]) -> dict[str, Any]:
        """Share of each verdict over every rollout, beside NeMo Gym's reward statistics."""
        verdicts = Counter(r.get("verdict") for task in tasks for r in task)
        total = sum(verdicts.values())
        return {f"verdict/{v}": n / total for v, n in sorted(verdicts.items()) if v}


if __name__ == "__main__":
    IntegralsResourcesServer.run_webserver()
