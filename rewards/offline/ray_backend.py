"""Scoring on a Ray cluster: same rows in, same :class:`ScoredBatch` out.

One actor per CPU holds its own :class:`AntiderivativeReward` (one checker
worker process each, so deadlines stay hard and the verdict cache stays warm
across batches); the driver reads the input, streams batches to the least
busy actor, and gets results back **in input order**, a bounded number in
flight, so memory stays flat and the output file is written exactly as the
local backend writes it (resume and Ctrl-C behave the same).

Where the cluster is:

* nothing set: ``ray.init()`` joins a cluster started on this machine with
  ``ray start --head``, else starts a local one;
* ``RAY_ADDRESS=ray://head:10001`` (or ``--ray-address``): that cluster;
* ``ray job submit --runtime-env-json ... -- python -m rewards score ...``:
  the job's cluster. Nodes need this package and its dependencies, either
  installed or shipped with the job's ``runtime_env`` (see docs/scoring.md).

Ray is an optional extra (``pip install 'integral-rewards[ray]'``); it is
imported only when this backend is used.

Example::

    backend = RayBackend(reward, actors=8)
    for scored in backend.map(batches, columns):
        writer.write(scored.rows)
    backend.close()
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from ..extras import require
from .batch import Columns, ScoredBatch, score_batch


class _Scorer:
    """The actor: a copy of the driver's reward (its pickled configuration,
    the same contract that ships a reward to TRL's workers)."""

    def __init__(self, state: dict[str, Any]) -> None:
        from ..reward import AntiderivativeReward

        self.reward = AntiderivativeReward.__new__(AntiderivativeReward)
        self.reward.__setstate__(state)

    def score(self, rows: list[dict[str, Any]], columns: Columns, with_traces: bool,
              batch_index: int) -> ScoredBatch:
        return score_batch(self.reward, rows, columns, with_traces=with_traces,
                           batch_index=batch_index)

    def close(self) -> bool:
        """Stop the actors (and the Ray session this backend started)."""
        self.reward.close()
        return True


class RayBackend:
    """Scores batches on Ray actors; see the module docstring.

    ``actors``: how many (default: the cluster's CPU count). ``address``:
    a Ray address; ``None`` lets Ray use ``RAY_ADDRESS`` or start locally.
    If Ray is already initialised (a notebook, a test), that session is used
    and left running on :meth:`close`.
    """

    def __init__(self, reward: Any, *, actors: int | None = None, address: str | None = None,
                 in_flight_per_actor: int = 2) -> None:
        ray = require("ray", "ray", "--backend ray")
        self._ray = ray
        self._owns_session = not ray.is_initialized()
        if self._owns_session:
            ray.init(address=address or None, include_dashboard=False,
                     ignore_reinit_error=True, logging_level="WARNING")
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.n_actors = max(1, int(actors or cpus))
        self.in_flight = max(1, int(in_flight_per_actor)) * self.n_actors
        # A dead actor (OOM kill, node loss) is restarted and its batch retried.
        remote = ray.remote(num_cpus=1, max_restarts=2, max_task_retries=2)(_Scorer)
        state = reward.__getstate__()
        # One checker process per actor: Ray already spreads actors over the
        # cluster's CPUs. Traces are written by the driver, not by actors.
        state["config"] = state["config"].replace(workers=1, trace_path=None)
        self.actors = [remote.remote(state) for _ in range(self.n_actors)]

    def map(self, batches: Iterable[list[dict[str, Any]]], columns: Columns, *,
            with_traces: bool = False) -> Iterator[ScoredBatch]:
        """Score ``batches`` on the Ray actors, results in input order."""
        ray = self._ray
        pending: deque[tuple[Any, int]] = deque()  # (result ref, actor), input order
        source = iter(enumerate(batches, start=1))
        exhausted = False
        while True:
            while not exhausted and len(pending) < self.in_flight:
                try:
                    index, rows = next(source)
                except StopIteration:
                    exhausted = True
                    break
                actor = self._least_busy(pending)
                ref = self.actors[actor].score.remote(rows, columns, with_traces, index)
                pending.append((ref, actor))
            if not pending:
                return
            ref, _ = pending.popleft()
            yield ray.get(ref)

    def _least_busy(self, pending: deque[tuple[Any, int]]) -> int:
        # Count only unfinished work: results wait in input order, so a fast
        # actor's finished batch may sit behind a slow one's.
        load = [0] * self.n_actors
        refs = [ref for ref, _ in pending]
        if refs:
            ready, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0)
            done = set(ready)
            for ref, actor in pending:
                if ref not in done:
                    load[actor] += 1
        return min(range(self.n_actors), key=load.__getitem__)

    def close(self) -> None:
        ray = self._ray
        actors, self.actors = self.actors, []
        try:
            ray.get([a.close.remote() for a in actors], timeout=30)
        except Exception:  # noqa: BLE001 - already dead or interrupted; kill below
            pass
        for actor in actors:
            ray.kill(actor)
        if self._owns_session:
            ray.shutdown()
