"""`--backend ray` on a local two-CPU Ray: the same output as the local backend."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from rewards.offline.batch import RESULT_COLUMNS  # noqa: E402
from rewards.offline.scoring import ScoreOptions, run_score  # noqa: E402

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
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
             logging_level="WARNING")
    yield
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
    assert ray.is_initialized()
