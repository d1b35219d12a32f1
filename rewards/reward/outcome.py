"""One scored completion, reading completions the way TRL passes them, and the
columns the reward adds to TRL's completion log."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..check.result import CheckResult
from .values import is_missing


@dataclass
class Outcome:
    """Everything known about one completion after scoring.

    ``judged`` is False for rows the reward does not judge (no integrand):
    their ``reward`` is ``None`` and ``result`` is ``None``.
    """

    judged: bool
    reward: float | None
    result: CheckResult | None
    extracted: str | None
    integrand: str | None
    symbol: str | None
    cached: bool = False

    @property
    def verdict(self) -> str | None:
        """The verdict's value, or ``None`` for a row not judged."""
        return None if self.result is None else self.result.verdict.value


# What the reward logs per completion through TRL's log_extra; TRL writes each
# as a column "<reward name>/<key>" of its completion log, which is what makes
# that log rescorable (rewards.offline reads them back).
LOGGED_KEYS = ("verdict", "extracted_answer", "integrand", "variable")


def logged_columns(name: str) -> dict[str, str]:
    """Column names of what the reward ``name`` logs through ``log_extra``.

    >>> logged_columns("antiderivative_reward")["integrand"]
    'antiderivative_reward/integrand'
    """
    return {key: f"{name}/{key}" for key in LOGGED_KEYS}


def completion_text(completion: Any) -> str | None:
    """A completion as TRL passes it: a string, or a list of chat messages
    (conversational datasets) whose last assistant message is the answer.

    >>> completion_text([{"role": "assistant", "content": "so \\\\boxed{x}"}])
    'so \\\\boxed{x}'
    """
    if isinstance(completion, str):
        return completion
    if is_missing(completion):  # None, or a NaN/NA cell: no text at all
        return None
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        messages = [m for m in completion if isinstance(m, dict)]
        assistant = [m for m in messages if m.get("role", "assistant") == "assistant"]
        chosen = (assistant or messages)[-1:] if messages else []
        if not chosen:
            return None
        content = chosen[0].get("content")
        if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return None if content is None else str(content)
    return str(completion)


def prompt_excerpt(prompt: Any, limit: int = 300) -> str:
    """A short, single-line view of a prompt (text or chat messages) for traces."""
    text = completion_text(prompt) if not isinstance(prompt, list) else " | ".join(
        str(m.get("content", ""))[:limit] for m in prompt if isinstance(m, dict))
    text = text or ""
    return text if len(text) <= limit else text[: limit - 3] + "..."
