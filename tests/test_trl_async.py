"""The reward inside TRL's async GRPO rollout process, started as TRL starts
it (``AsyncRolloutWorker.start``: a *daemonic* spawned child whose reward
calls run in threads, ``asyncio.to_thread``), and its verdict metrics in the
trainer's metrics queue (TRL's async loop passes no ``log_metric``)."""
from __future__ import annotations

import queue
import time
import warnings

import pytest

pytest.importorskip("trl.experimental.async_grpo")
pytest.importorskip("aiohttp")

from rewards import AntiderivativeReward  # noqa: E402
from tests import trl_async_probe  # noqa: E402
from tests.support import HANG_GUARD_S  # noqa: E402

pytestmark = pytest.mark.slow  # spawns TRL's rollout process and a pool in it

GROUP = [("Integrate x.", r"The answer is \boxed{\frac{x^2}{2} + C}", "x"),
         ("Integrate x.", r"The answer is \boxed{x^2}", "x"),
         ("Integrate cos(t).", r"\boxed{\sin t}", "cos(t)"),
         ("Integrate cos(t).", "I do not know.", "cos(t)")]


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny"), answer_format_steps=0)


def test_the_reward_scores_in_trls_daemonic_rollout_process(tokenizer_dir, monkeypatch):
    from accelerate.state import PartialState
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl.experimental.async_grpo import async_rollout_worker as trl_worker

    # AsyncRolloutWorker asks for vLLM up front; generation is replaced here.
    monkeypatch.setattr(trl_worker, "is_vllm_available", lambda: True)
    PartialState()  # the trainer's Accelerator has made one before it starts the worker
    reward = AntiderivativeReward(workers=1, integrand_column="integrand")
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    # TRL parses tool calls with a response schema it knows only for the
    # chat templates of real models; these completions have no tool calls.
    tokenizer.response_schema = {}
    worker = trl_async_probe.FixedCompletionsWorker(
        model_name="tiny", dataset=Dataset.from_list([{"prompt": "p", "integrand": "x"}]),
        reward_funcs=[reward], processing_class=tokenizer,
        eos_token_ids=[tokenizer.eos_token_id or 0], groups=[GROUP], num_generations=len(GROUP))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the legacy-schema notice
        worker.start()
    name = reward.__name__
    samples: list = []
    metrics: dict[str, list] = {}
    deadline = time.monotonic() + HANG_GUARD_S
    try:
        while (len(samples) < len(GROUP) or f"{name}/frac_correct" not in metrics) \
                and time.monotonic() < deadline:
            # A reward that raised in the child fails TRL's loop: say so now
            # instead of waiting out the hang guard.
            worker.check_health(stale_after_s=HANG_GUARD_S)
            try:
                samples.append(worker.rollout_buffer.get(timeout=0.2))
            except queue.Empty:
                pass
            try:
                for key, value in worker.metrics_queue.get_nowait().items():
                    metrics.setdefault(key, []).append(value)
            except queue.Empty:
                pass
    finally:
        child = worker._process  # noqa: SLF001
        if child is not None and (worker._failed_event.is_set() or not child.is_alive()):  # noqa: SLF001
            # TRL's stop() signals an mp.Event the dead child was waiting
            # on, and multiprocessing then waits for it forever.
            child.kill()
            child.join(5)
        else:
            worker.stop()
    by_completion = {s.completion[0]["content"]: s.metrics[f"rewards/{name}"] for s in samples}
    assert [by_completion[c] for _, c, _ in GROUP] == [1.0, 0.0, 1.0, -0.2]
    # The verdict metrics reached the trainer's queue, as log_metric would have.
    assert metrics[f"{name}/frac_correct"] == [0.5]
    assert metrics[f"{name}/frac_wrong"] == [0.25]
    assert f"{name}/check_ms_p99" in metrics
