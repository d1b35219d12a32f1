"""Ray, on a local two-CPU cluster: `--backend ray` gives the same output as the
local backend; OpenRLHF's file mode inside Ray tasks sizes its pool from the
CPUs Ray assigned the task."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewards.offline.batch import RESULT_COLUMNS
from rewards.offline.scoring import ScoreOptions, run_score

PROBLEMS = [("x**2", r"\frac{x^{3}}{3}", r"x^{3}"), ("sin(x)", r"-\cos x", r"\cos x"),
            ("exp(3*x)", r"\frac{e^{3x}}{3}", r"e^{3x}"), ("1/x", r"\ln|x|", r"\ln x^{2}"),
            ("cos(x)**2", r"\frac{x}{2} + \frac{\sin(2x)}{4}", r"\sin^{2} x")]


def make_rows() -> list[dict]:
    rows = []
    for i in range(50):
        integrand, right, wrong = PROBLEMS[i % len(PROBLEMS)]
        text = [f"\\boxed{{{right}}}", f"\\boxed{{{wrong}}}", "no idea",
                f"<answer>{right}</answer>", f"\\boxed{{{right} + C}}"][i // 10]
        rows.append({"id": i, "group": i % len(PROBLEMS), "integrand": integrand,
                     "completion": text})
    rows[7]["integrand"] = None  # a bad row travels through Ray as a verdict too
    return rows


@pytest.fixture(scope="module")
def local_ray():
    """The ``ray`` module with a local session up. Imported here, not at the
    top: collection would make every xdist worker import Ray (about a second)
    even when these slow tests are deselected."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
             logging_level="WARNING")
    yield ray
    ray.shutdown()


def _read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.mark.slow
def test_ray_backend_matches_local_backend(local_ray, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in make_rows()))
    common = dict(input=str(src), group_column="group", workers=2, batch_size=8,
                  progress=False)
    ray_summary = run_score(ScoreOptions(output=str(tmp_path / "ray.jsonl"), backend="ray",
                                         **common))
    local_summary = run_score(ScoreOptions(output=str(tmp_path / "local.jsonl"), **common))

    ray_rows, local_rows = _read(tmp_path / "ray.jsonl"), _read(tmp_path / "local.jsonl")
    assert len(ray_rows) == len(local_rows) == 50
    assert [r["source_row"] for r in ray_rows] == list(range(50))  # input order kept
    stable = [c for c in RESULT_COLUMNS if c != "check_ms"]
    assert [{c: r[c] for c in stable} for r in ray_rows] == \
        [{c: r[c] for c in stable} for r in local_rows]
    assert ray_rows[7]["verdict"] == "CHECKER_ERROR"
    assert ray_summary.verdicts == local_summary.verdicts
    assert ray_summary.verdicts["CORRECT"] == 29
    # The caller's Ray session is still up: the backend only shuts down a
    # session it started itself.
    assert local_ray.is_initialized()


def _openrlhf_0_8_task(ray, num_cpus: int, runtime_env: dict):
    """OpenRLHF 0.8.11's file mode: RemoteRewardModel loads the file as module
    ``reward_func`` and runs ``ray.remote(reward_module.reward_func)`` per
    micro-batch. The wrapper around that call reports, from inside the task,
    the process, its shared rewards and their worker processes."""
    import importlib.util

    from rewards.integrations import openrlhf

    spec = importlib.util.spec_from_file_location("reward_func", openrlhf.__file__)
    reward_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reward_module)
    reward_func = reward_module.reward_func

    def observed(queries, prompts, labels):
        import os

        import psutil

        from rewards.integrations import common

        out = reward_func(queries, prompts, labels)
        loky = [p.pid for p in psutil.Process().children(recursive=True)
                if "LokyProcess" in " ".join(p.cmdline())]
        return {"rewards": out["rewards"].tolist(), "pid": os.getpid(),
                "assigned": common.ray_assigned_cpus(),
                "rewards_held": [id(r) for r in common._SHARED.values()],
                "workers": [r.runtime_stats()["workers"] for r in common._SHARED.values()],
                "worker_pids": sorted(loky)}

    return ray.remote(observed).options(num_cpus=num_cpus, runtime_env=runtime_env)


@pytest.mark.slow
@pytest.mark.parametrize("num_cpus", [2, 1])
def test_openrlhf_file_mode_in_a_ray_task_sizes_its_pool_from_ray(local_ray, num_cpus):
    """Inside a Ray task with N assigned CPUs the reward starts N workers (not
    one per core of the node: 2 here, so N=1 tells the two apart), one pool per
    task process, reused by the next tasks that process runs."""
    from rewards import prompts

    prompt = prompts.USER_TEMPLATE.format(integrand="x**2", symbol="x")
    batch = ([prompt + r"\boxed{x^3/3}", prompt + r"\boxed{x^3}"], [prompt, prompt],
             ["x**2", "x**2"])
    # Its own runtime env: Ray gives these tasks worker processes of their own.
    task = _openrlhf_0_8_task(local_ray, num_cpus, {"env_vars": {"PROBE_CPUS": str(num_cpus)}})
    reports = [local_ray.get(task.remote(*batch), timeout=300) for _ in range(4)]
    assert all(r["rewards"] == [1.0, 0.0] for r in reports)
    assert all(r["assigned"] == num_cpus for r in reports)
    for r in reports:
        assert r["workers"] == [num_cpus]  # one reward per process, sized by Ray
        assert len(r["worker_pids"]) == num_cpus
    by_pid = {}
    for r in reports:
        by_pid.setdefault(r["pid"], []).append((r["rewards_held"], r["worker_pids"]))
    assert len(by_pid) < len(reports)  # Ray reused a task process ...
    for seen in by_pid.values():  # ... which kept its reward and its workers
        assert all(s == seen[0] for s in seen)
