"""The verifiers taskset ``integral-rewards`` (environments/integral_rewards) on
the real verifiers package: its loader resolves the id, and real ``Trace``s,
with replies committed through verifiers' own message graph, are scored by
``Task.score`` as a rollout scores them.

Skipped without verifiers (the ``verifiers`` extra; Python 3.11+).
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from rewards.integrations import common

# verifiers, imported by _verifiers when a test of this module runs: importing it
# takes seconds, which every collection (each xdist worker, -m "not slow") paid.
vf = loaders = prepare_turn = None
# Every test here needs that import, so they are all slow.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ENV_DIR = ROOT / "environments" / "integral_rewards"
SAMPLE = ROOT / "examples" / "data" / "integrals_sample.jsonl"
TASKSET_ID = "integral-rewards"


@pytest.fixture(scope="module", autouse=True)
def _verifiers():
    global vf, loaders, prepare_turn
    vf = pytest.importorskip("verifiers.v1")
    from verifiers.v1.graph import prepare_turn
    from verifiers.v1.utils import loaders


@pytest.fixture(scope="module")
def env_package():
    """The environment package importable as an installed one is: its folder on
    sys.path (test_installed_package_resolves installs it for real)."""
    sys.path.insert(0, str(ENV_DIR))
    try:
        import integral_rewards

        yield integral_rewards
    finally:
        sys.path.remove(str(ENV_DIR))
        for name in [m for m in sys.modules if m.split(".")[0] == "integral_rewards"]:
            del sys.modules[name]


def reward_yaml(tmp_path: Path, workers: int) -> str:
    path = tmp_path / f"reward-{workers}.yaml"
    path.write_text(f"workers: {workers}\n")
    return str(path)


def taskset(env_package, reward_config: str, limit: int | None = None):
    config = env_package.IntegralConfig(
        id=TASKSET_ID, source=str(SAMPLE), limit=limit,
        task=env_package.IntegralTaskConfig(reward_config=reward_config))
    return loaders.load_taskset(config)


def rollout_trace(task, reply: str):
    """A Trace as a rollout leaves it: the task's prompt and the model's reply
    committed as one turn of verifiers' message graph."""
    trace = vf.Trace(task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key,
                                       hash=task.hash),
                     agent=vf.AgentInfo(config=vf.AgentConfig()))
    prompt = [vf.SystemMessage(content=task.data.system_prompt),
              vf.UserMessage(content=task.data.prompt)]
    prepare_turn(trace, prompt).commit(vf.Response(
        id="response", created=0, model="policy", finish_reason="stop",
        message=vf.AssistantMessage(content=reply)))
    return trace


def test_taskset_id_resolves_to_our_taskset(env_package):
    cls = loaders.taskset_class(TASKSET_ID)
    assert cls is env_package.IntegralTaskset and issubclass(cls, vf.Taskset)
    assert loaders.taskset_config_type(TASKSET_ID) is env_package.IntegralConfig
    tasks = list(loaders.load_taskset(env_package.IntegralConfig(id=TASKSET_ID,
                                                                 source=str(SAMPLE))))
    rows = sum(1 for line in SAMPLE.read_text().splitlines() if line.strip())
    assert len(tasks) == rows and [t.data.idx for t in tasks] == list(range(rows))
    from rewards import prompts

    first = tasks[0].data
    assert (first.integrand, first.variable) == ("x**2", "x")
    assert first.prompt == prompts.USER_TEMPLATE.format(integrand="x**2", symbol="x")
    assert first.system_prompt == prompts.SYSTEM_PROMPT


def test_installed_package_resolves(tmp_path):
    """pip installs environments/integral_rewards; verifiers' loader then finds the
    taskset in a fresh interpreter with nothing else on the path."""
    target = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                          "--no-build-isolation", "--disable-pip-version-check",
                          "--target", str(target), str(ENV_DIR)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    code = ("from verifiers.v1.utils.loaders import taskset_class\n"
            f"cls = taskset_class({TASKSET_ID!r})\n"
            "print(cls.__module__, cls.__name__)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["integral_rewards.taskset", "IntegralTaskset"]


def test_correct_reply_scores_above_wrong_and_malformed(env_package, tmp_path):
    task = next(iter(taskset(env_package, reward_yaml(tmp_path, 1), limit=1)))  # x**2
    replies = {"correct": r"Integrating term by term, \boxed{\frac{x^{3}}{3} + C}",
               "wrong": r"\boxed{x^{3}}",
               "malformed": r"\boxed{\frac{x^{3}}{"}
    traces = {name: rollout_trace(task, reply) for name, reply in replies.items()}

    async def score_all():
        await asyncio.gather(*(task.score(trace) for trace in traces.values()))

    asyncio.run(score_all())
    reward = {name: trace.reward for name, trace in traces.items()}
    assert reward["correct"] > reward["wrong"] and reward["correct"] > reward["malformed"]
    info = {name: trace.info[env_package.taskset.INFO_KEY] for name, trace in traces.items()}
    assert [info[n]["verdict"] for n in replies] == ["CORRECT", "WRONG", "UNPARSEABLE"]
    assert info["correct"]["extracted_answer"] == r"\frac{x^{3}}{3} + C"
    assert info["malformed"]["reason"]
    assert traces["correct"].metrics["acc"] == 1.0
    assert traces["wrong"].metrics["verdict/WRONG"] == 1.0
    assert traces["malformed"].metrics["verdict/UNPARSEABLE"] == 1.0
    assert all(sum(v for k, v in t.metrics.items() if k.startswith("verdict/")) == 1.0
               for t in traces.values())
    # The trace serializes (traces.jsonl) with its outcome.
    again = type(traces["wrong"]).model_validate(traces["wrong"].model_dump())
    assert again.metrics == traces["wrong"].metrics and again.info == traces["wrong"].info


def _loky_workers() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)
            if "LokyProcess" in " ".join(p.cmdline())}


def test_concurrent_rollouts_share_one_pool(env_package, tmp_path):
    """64 rollouts scored at once on one event loop: one reward, one worker set,
    their checks batched together."""
    config = reward_yaml(tmp_path, 2)
    tasks = list(taskset(env_package, config, limit=8))
    replies = [r"\boxed{x}", "no idea", r"\boxed{\sin(x)}", r"\boxed{x^{2}}",
               r"\boxed{e^{x}}", r"\boxed{\log(x)}", r"\boxed{-\cos(x)}", r"\boxed{\tan(x)}"]
    traces = [(task, rollout_trace(task, reply)) for task in tasks for reply in replies]
    assert len(traces) == 64

    async def rollouts():
        await asyncio.gather(*(task.score(trace) for task, trace in traces))

    asyncio.run(rollouts())
    assert all(trace.rewards["antiderivative"] is not None for _, trace in traces)
    ours = [r for (key, _), r in common._SHARED.items() if key == config]
    assert len(ours) == 1
    stats = ours[0].runtime_stats()
    assert stats["workers"] == 2 and stats["calls"] == 64
    assert stats["batches"] < 64 and stats["largest_batch_calls"] > 1
    # The worker processes that ran these checks: one set of 2, alive.
    served = set(stats["worker_rss_mb"])
    assert 1 <= len(served) <= 2 and served <= _loky_workers()
