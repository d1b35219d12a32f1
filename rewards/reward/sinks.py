"""Where the reward's batch metrics go when the trainer passes no ``log_metric``.

TRL's synchronous GRPOTrainer hands every reward function ``log_metric``.
Its async GRPO trainer (``trl.experimental.async_grpo``) calls reward
functions from a spawned rollout-worker process with the dataset columns
only; that worker sends its own metrics to the trainer over a queue that the
trainer drains into the logged metrics at each ``log()`` (window means, as
for the worker's ``rewards/<name>``). The reward puts its metrics on the same
queue: it is found on the worker's main thread, a local of TRL's
``_child_main``, which runs the rollout loop for the process's lifetime.
TRL is never imported for this: a process that has not imported the async
worker has no such queue.
"""
from __future__ import annotations

import queue
import sys
import threading
from typing import Any

TRL_ASYNC_WORKER = "trl.experimental.async_grpo.async_rollout_worker"
_CHILD_MAIN = "_child_main"
_QUEUE_LOCAL = "metrics_queue"
_found: dict[int, Any] = {}


def trl_async_metrics_queue() -> Any | None:
    """The metrics queue of the TRL async rollout worker this process is,
    else ``None``."""
    module = sys.modules.get(TRL_ASYNC_WORKER)
    entry = getattr(module, _CHILD_MAIN, None) if module is not None else None
    if entry is None:
        return None
    main = threading.main_thread()
    if main.ident in _found:
        return _found[main.ident]
    frame = sys._current_frames().get(main.ident)
    while frame is not None and frame.f_code is not entry.__code__:
        frame = frame.f_back
    found = None if frame is None else frame.f_locals.get(_QUEUE_LOCAL)
    if found is not None:  # the worker's loop runs until the process ends: look once
        _found[main.ident] = found
    return found


def send_to_trl_async(metrics: dict[str, float], prefix: str) -> bool:
    """Put ``metrics`` (as ``<prefix>/<key>``) on the async worker's metrics
    queue; whether there was one. Never blocks: a full queue drops them, as
    TRL's own worker does."""
    sink = trl_async_metrics_queue()
    if sink is None:
        return False
    try:
        sink.put_nowait({f"{prefix}/{key}": float(value) for key, value in metrics.items()})
    except queue.Full:
        pass
    return True
