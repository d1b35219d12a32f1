"""GRPOTrainer on CPU for a few steps with the tiny offline model and THIS reward."""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from rewards import AntiderivativeReward
from rewards.reward.trace import read_trace

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _train_extra():
    # Asked when a test runs, not at import: importing trl and torch takes
    # seconds, which collection would make every xdist worker pay even when
    # these slow tests are deselected.
    pytest.importorskip("trl")
    pytest.importorskip("torch")


def _load_script():
    spec = importlib.util.spec_from_file_location("train_grpo_for_reward_test",
                                                  ROOT / "examples" / "train_grpo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_grpo_with_antiderivative_reward_logs_metrics_and_trace(tmp_path):
    train_grpo = _load_script()
    data = tmp_path / "integrals.jsonl"
    with data.open("w") as handle:
        for i, f in enumerate(["x**2", "sin(x)", "exp(2*x)", "1/x", "cos(x)", "x**3"] * 2):
            handle.write(json.dumps({"id": i, "integrand": f}) + "\n")
    model_dir = train_grpo.prepare_tiny_model(tmp_path / "tiny", seed=0)
    trace = tmp_path / "trace.jsonl"
    reward = AntiderivativeReward(workers=2, timeout_s=5, trace_path=trace)
    try:
        args = train_grpo.build_grpo_config(
            tiny=True, overrides={"output_dir": tmp_path / "out", "max_steps": 3,
                                  "log_completions": True})
        dataset = train_grpo.build_dataset(str(data))
        trainer = train_grpo.build_trainer(model=model_dir, train_dataset=dataset, args=args,
                                           reward_funcs=[reward])
        trainer.train()
    finally:
        reward.close()

    assert trainer.state.global_step == 3
    name = "antiderivative_reward"
    logged = [e for e in trainer.state.log_history if f"rewards/{name}/mean" in e]
    assert len(logged) == 3
    shares = ("frac_correct", "frac_wrong", "frac_unparseable", "frac_no_answer",
              "frac_timeout", "frac_checker_error")
    for entry in logged:
        # The outcome shares are disjoint: they sum to one every step.
        assert sum(entry[f"{name}/{key}"] for key in shares) == pytest.approx(1.0)
        assert not math.isnan(entry[f"{name}/cache_hit_rate"])
    # The tiny model was taught to box its answers, so completions went through
    # the worker pool to the checker, not only through extraction.
    reached = [e for e in logged if e[f"{name}/frac_no_answer"] < 1.0]
    assert reached, [e[f"{name}/frac_no_answer"] for e in logged]
    rows = read_trace(trace)
    assert rows and {r["step"] for r in rows} <= {0, 1, 2, 3}
    assert all(r["reward_name"] == name for r in rows)
    checked = [r for r in rows if any(s["stage"] == "candidate_parse" for s in r["stages"])]
    assert checked, "no traced completion reached the parser"

    # TRL's completion log can be rescored as is: the reward logged the
    # integrand and variable next to its verdicts.
    logs = sorted((tmp_path / "out" / "completions").glob("completions_*.parquet"))
    assert logs
    from rewards.offline.scoring import ScoreOptions, run_score

    pd = pytest.importorskip("pandas")
    scored_path = tmp_path / "rescored.parquet"
    run_score(ScoreOptions(input=str(logs[-1]), output=str(scored_path), workers=1,
                           progress=False))
    scored = pd.read_parquet(scored_path)
    assert (scored[f"{name}/integrand"] != "").all()
    settled = scored[scored["verdict"] != "TIMEOUT"]
    assert (settled["verdict"] == settled[f"{name}/verdict"]).all()
