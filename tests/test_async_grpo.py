"""The reward inside TRL's async GRPO rollout worker, started as TRL starts it.

``AsyncRolloutWorker.start()`` spawns ``_child_main`` as a daemonic process;
the child builds TRL's ``_AsyncRolloutLoop`` (tokenizer, dataset, reward
functions) and calls the reward from ``_score_group`` through
``asyncio.to_thread``. vLLM (the generation server) is not installed here, so
the loop in tests/async_grpo_loop.py replaces only generation: it scores fixed completions with
TRL's own ``_score_group`` and pushes the samples as TRL's score loop does.
"""
from __future__ import annotations

import queue
import time

import psutil
import pytest

from rewards import AntiderivativeReward
from tests.support import HANG_GUARD_S, eventually

pytestmark = pytest.mark.slow


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture
def tokenizer_dir(tmp_path_factory):
    from examples.tiny_model import build_tiny_model
    out = tmp_path_factory.mktemp("tiny")
    build_tiny_model(out, seed=0)
    return str(out)


def test_reward_scores_in_trls_daemonic_rollout_worker(tokenizer_dir, monkeypatch):
    pytest.importorskip("trl.experimental.async_grpo.async_rollout_worker")
    from accelerate.state import PartialState
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl.experimental.async_grpo import async_rollout_worker as arw

    from tests.async_grpo_loop import COMPLETIONS, FixedCompletionsLoop

    PartialState()  # the trainer's Accelerator has made it; TRL's logger needs it

    # AsyncRolloutWorker insists on vLLM at construction; the child never
    # talks to it here (generation is replaced above).
    monkeypatch.setattr(arw, "is_vllm_available", lambda: True)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    # TRL parses tool calls of known chat templates only; no tools run here.
    tokenizer.response_schema = {}
    reward = AntiderivativeReward(workers=1, timeout_s=20, symbol_column="variable")
    worker = arw.AsyncRolloutWorker(
        model_name="tiny", dataset=Dataset.from_dict({"prompt": ["p"]}), reward_funcs=[reward],
        processing_class=tokenizer, eos_token_ids=[0],
        num_generations=len(COMPLETIONS), child_ready_timeout=int(HANG_GUARD_S))
    worker._loop_cls = FixedCompletionsLoop
    worker.start()
    try:
        assert worker._process.daemon  # as TRL starts it
        samples = []
        deadline = time.monotonic() + HANG_GUARD_S
        while len(samples) < len(COMPLETIONS) and time.monotonic() < deadline:
            # A reward that raised in the child fails TRL's loop: say so now
            # (with the child's traceback) instead of waiting out the guard.
            worker.check_health(stale_after_s=HANG_GUARD_S)
            try:
                samples.append(worker.rollout_buffer.get(timeout=0.2))
            except queue.Empty:
                pass
        assert len(samples) == len(COMPLETIONS)
        checker_workers = psutil.Process(worker._process.pid).children(recursive=True)
        # The reward's metrics reach the queue the trainer drains into its logs.
        deadline, metrics = time.monotonic() + HANG_GUARD_S, {}
        while "antiderivative_reward/frac_correct" not in metrics \
                and time.monotonic() < deadline:
            try:
                metrics.update(worker.metrics_queue.get(timeout=1.0))
            except queue.Empty:
                pass
    finally:
        child = worker._process
        if child is not None and (worker._failed_event.is_set() or not child.is_alive()):
            # TRL's stop() sets an mp.Event the dead child was waiting on, and
            # multiprocessing then waits for that waiter forever.
            child.kill()
            child.join(5)
        else:
            worker.stop()
    # The checker workers the daemonic child started end with it.
    assert checker_workers
    assert eventually(lambda: not any(_alive(p) for p in checker_workers))
    rewards = [s.metrics["rewards/antiderivative_reward"] for s in samples]
    assert rewards == [1.0, 0.0, -0.2, 1.0]
    assert metrics["antiderivative_reward/frac_correct"] == 0.5
