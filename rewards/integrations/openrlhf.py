"""OpenRLHF: ``reward_func`` for its file mode, and its request/response shapes.

OpenRLHF (``--reward.remote_url /path/to/this/file.py``; ``--remote_rm_url``
before 0.10.2) loads this file by path and calls
``reward_func(queries, prompts, labels)``. Since 0.9.1 each vLLM engine actor
loads it (``SingleTurnAgentExecutor``) and calls it per sample from a thread
(lists of one). Before, the ``RemoteRewardModel`` actor wraps it in
``ray.remote`` and runs one Ray task per micro-batch (1 CPU each, several at
once on a node). Inside Ray the pool is sized from the CPUs Ray assigned the
task or actor (:func:`~rewards.integrations.common.ray_assigned_cpus`; an
explicit ``workers`` in the reward YAML wins), one pool per process, reused by
every later call in it. ``queries[i]`` is the chat-templated
prompt plus the response, special tokens kept; ``prompts[i]`` the templated
prompt; ``labels[i]`` the dataset's ``--data.label_key`` column: here the
integrand (SymPy syntax), or ``{"integrand": ..., "variable": ...}`` when the
variable is not ``x``. Our prompt template itself contains ``\\boxed{}``,
so the prompt is cut from the query before grading: a response without an
answer is then ``no_answer``, not an empty box. A query that does not contain
its prompt cannot be split: CHECKER_ERROR ``prompt_not_in_query`` (logged).

It returns ``rewards`` (the reward; ``null_reward`` where the shaping says
null), ``scores`` (1.0 when CORRECT, else 0.0: OpenRLHF's dynamic filtering
keeps groups whose scores are neither all 0 nor all 1) and ``extra_logs``
(``acc``, ``no_answer``, ``timeout``, ``checker_error`` per sample), as 1-D
tensors of ``len(queries)`` when torch is importable (both OpenRLHF
generations accept that), else lists. The reward configuration comes from
``$INTEGRAL_REWARDS_CONFIG`` (a reward YAML), else the defaults.

Imports are absolute: OpenRLHF executes this file as a top-level module.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rewards.integrations.common import (
    SampleScore,
    log_checker_error,
    ray_assigned_cpus,
    sample_scores,
    shared_reward,
)
from rewards.reward import AntiderivativeReward
from rewards.reward.values import key_text

# A prompt left-truncated to fit max_len (OpenRLHF cuts prompt tokens from the
# left) or re-decoded with a BOS token still ends with its last characters.
PROMPT_ANCHOR_CHARS = 200
EXTRA_LOG_KEYS = ("acc", "no_answer", "timeout", "checker_error")
INTEGRAND_KEY, VARIABLE_KEY = "integrand", "variable"


def response_from_query(query: str, prompt: str | None) -> str | None:
    """The response part of an OpenRLHF query; ``None`` when the prompt
    cannot be found in it. An empty prompt means the query is the response.

    >>> response_from_query("<s>[user] Integrate x.[assistant] I give up.", "[user] Integrate x.[assistant]")
    ' I give up.'
    >>> response_from_query("[user] x.[assistant] done", "[user] Integrate x.[assistant]") is None
    True
    """
    if not prompt:
        return query
    start = query.find(prompt)
    if start >= 0:
        return query[start + len(prompt):]
    anchor = prompt[-PROMPT_ANCHOR_CHARS:]
    start = query.find(anchor)
    if start >= 0:
        return query[start + len(anchor):]
    return None


def split_label(label: Any) -> tuple[Any, str | None]:
    """(integrand, variable) of a label: the integrand itself, or a mapping
    with ``integrand`` and optionally ``variable``.

    >>> split_label("x**2"), split_label({"integrand": "cos(t)", "variable": "t"})
    (('x**2', None), ('cos(t)', 't'))
    """
    if isinstance(label, dict):
        return label.get(INTEGRAND_KEY), key_text(label.get(VARIABLE_KEY))
    return label, None


def score_queries(reward: AntiderivativeReward, queries: Sequence[Any],
                  prompts: Sequence[Any] | None, labels: Sequence[Any]) -> list[SampleScore]:
    """One :class:`SampleScore` per query (lengths are the caller's to check)."""
    prompts = list(prompts) if prompts is not None else [None] * len(queries)
    responses = [response_from_query(str(q), None if p is None else str(p))
                 for q, p in zip(queries, prompts, strict=True)]
    known = [i for i, r in enumerate(responses) if r is not None]
    integrands, variables = [], []
    for i in known:
        integrand, variable = split_label(labels[i])
        integrands.append(integrand)
        variables.append(variable)
    outcomes = (reward.score([responses[i] for i in known], integrands, variables)
                if known else [])
    scored = dict(zip(known, sample_scores(outcomes, reward.config.null_reward, integrands),
                      strict=True))
    out = []
    for i in range(len(responses)):
        if i not in scored:
            scored[i] = SampleScore.unscored("prompt_not_in_query", reward.config.null_reward)
            log_checker_error(scored[i], labels[i])
        out.append(scored[i])
    return out


def response_body(scores: list[SampleScore], *, extra_logs: bool = True) -> dict[str, Any]:
    """``{"rewards", "scores", "extra_logs"}`` as lists (the HTTP shape).

    ``extra_logs=False`` leaves ``extra_logs`` out: OpenRLHF 0.8.x merges an
    HTTP answer's ``extra_logs`` with ``torch.cat``, which raises on JSON lists
    (``update_samples_with_rewards``), and skips the merge when the key is absent.
    """
    body: dict[str, Any] = {"rewards": [s.score for s in scores],
                            "scores": [s.acc for s in scores]}
    if extra_logs:
        flags = [s.flags() for s in scores]
        body["extra_logs"] = {key: [f[key] for f in flags] for key in EXTRA_LOG_KEYS}
    return body


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's file-mode entry point (see the module docstring)."""
    if not (len(queries) == len(prompts) == len(labels)):
        raise ValueError(f"reward_func: {len(queries)} queries, {len(prompts)} prompts, "
                         f"{len(labels)} labels")
    # Before 0.9.1 this runs as a Ray task (ray.remote(reward_func), 1 CPU by
    # default), many at once on a node: each task's process holds one pool,
    # reused by the tasks it runs next, as large as the CPUs Ray gave the task.
    reward = shared_reward(workers=ray_assigned_cpus())
    body = response_body(score_queries(reward, queries, prompts, labels))
    try:
        import torch
    except ImportError:
        return body
    return {"rewards": torch.tensor(body["rewards"], dtype=torch.float32),
            "scores": torch.tensor(body["scores"], dtype=torch.float32),
            "extra_logs": {k: torch.tensor(v, dtype=torch.float32)
                           for k, v in body["extra_logs"].items()}}
