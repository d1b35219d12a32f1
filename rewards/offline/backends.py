"""Where batches are scored: in this process's reward pool, or on Ray.

A backend maps an iterable of row batches to :class:`~.batch.ScoredBatch`
objects **in input order**; everything else (resume, output, progress,
summary) is shared by :mod:`.scoring`.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .batch import Columns, ScoredBatch, ScoringError, score_batch

BACKENDS = ("local", "ray")


class LocalBackend:
    """Scores batches in this process's reward (its own worker pool)."""

    def __init__(self, reward: Any) -> None:
        self.reward = reward

    def map(self, batches: Iterable[list[dict[str, Any]]], columns: Columns, *,
            with_traces: bool = False) -> Iterator[ScoredBatch]:
        """Score ``batches`` in order, in this process's reward."""
        for index, rows in enumerate(batches, start=1):
            yield score_batch(self.reward, rows, columns, with_traces=with_traces,
                              batch_index=index)

    def close(self) -> None:
        """Stop the reward's workers."""
        self.reward.close()


def make_backend(name: str, reward: Any, *, workers: int | None = None,
                 address: str | None = None) -> Any:
    """``local`` or ``ray`` (Ray is imported only for ``ray``)."""
    if name == "local":
        return LocalBackend(reward)
    if name == "ray":
        from .ray_backend import RayBackend

        return RayBackend(reward, actors=workers, address=address)
    raise ScoringError(f"unknown backend {name!r}: use one of {', '.join(BACKENDS)}")
