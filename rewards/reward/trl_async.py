"""Where the reward's batch metrics go in TRL's async GRPO trainer.

``trl.experimental.async_grpo`` runs reward functions in a spawned rollout
process (``_child_main`` of ``async_rollout_worker``), each call in a thread
of it (``asyncio.to_thread``), and passes no ``log_metric``/``log_extra``.
That process reports its own metrics to the trainer through one queue (the
rollout loop's ``_metrics_queue``), which the trainer drains into the run's
logged metrics on every ``log()`` (mean over the logging window for a plain
value). So the reward puts its metrics on that queue: they appear in that
run's logs under the same ``<reward name>/...`` keys as with the synchronous
trainer.

TRL exposes no public handle on that queue; it is found on the rollout
loop held by ``_child_main``'s frame. Anywhere else (not in TRL's rollout
process, or a TRL whose names changed) :func:`rollout_metrics_sink` is
``None`` and the reward logs nothing there, as before: scoring never
depends on it.
"""
from __future__ import annotations

import logging
import queue
import sys
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

ROLLOUT_MODULE = "trl.experimental.async_grpo.async_rollout_worker"
_ENTRY = "_child_main"
_cached: Any = None


def _rollout_loop() -> Any:
    for frame in sys._current_frames().values():  # noqa: SLF001 - the only handle TRL leaves
        while frame is not None:
            if (frame.f_code.co_name == _ENTRY
                    and frame.f_globals.get("__name__") == ROLLOUT_MODULE):
                return frame.f_locals.get("rollout_loop")
            frame = frame.f_back
    return None


def rollout_metrics_sink() -> Callable[[dict[str, float]], None] | None:
    """A function that sends a dict of metrics to the trainer, when this is
    TRL's async rollout process; ``None`` elsewhere."""
    global _cached
    if _cached is not None:
        return _cached
    if ROLLOUT_MODULE not in sys.modules:
        return None
    metrics_queue = getattr(_rollout_loop(), "_metrics_queue", None)
    if metrics_queue is None:
        return None

    def send(metrics: dict[str, float]) -> None:
        try:
            # As the rollout loop itself does: never block generation.
            metrics_queue.put_nowait(dict(metrics))
        except queue.Full:
            pass

    _cached = send
    logger.info("TRL async rollout process: reward metrics go to the trainer's metrics queue")
    return send


__all__ = ["ROLLOUT_MODULE", "rollout_metrics_sink"]
