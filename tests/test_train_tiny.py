"""End-to-end GRPO smoke test: tiny offline model, local jsonl, stand-in reward.

Runs examples/train_grpo.py's build_* functions for a couple of CPU steps and
checks what TRL hands to a reward function and what it logs. No network.
"""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRIPT = REPO_ROOT / "examples" / "train_grpo.py"

INTEGRANDS = [
    "x**2", "sin(x)", "exp(2*x)", "cos(3*x)", "1/x", "x*exp(x)", "sqrt(x)", "log(x)",
    "x**3 + 2*x", "tan(x)", "1/(1 + x**2)", "x*sin(x)", "sinh(x)", "exp(-x)", "3*x**5", "cos(x)**2",
]


def _load_script():
    spec = importlib.util.spec_from_file_location("train_grpo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def train_grpo():
    # Here, not at module level: importing TRL and torch at collection would
    # cost every xdist worker seconds, also where these tests are deselected.
    pytest.importorskip("trl")
    pytest.importorskip("torch")
    return _load_script()


@pytest.fixture()
def dataset_file(tmp_path: Path) -> Path:
    path = tmp_path / "integrals.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i, integrand in enumerate(INTEGRANDS):
            fh.write(json.dumps({"id": i, "integrand": integrand, "variable": "x"}) + "\n")
    return path


def test_build_dataset_keeps_integrand_and_builds_chat_prompt(train_grpo, dataset_file):
    ds = train_grpo.build_dataset(str(dataset_file), symbol_column="variable")
    assert len(ds) == 16
    assert {"prompt", "integrand", "variable", "id"} <= set(ds.column_names)
    prompt = ds[0]["prompt"]
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert ds[0]["integrand"] in prompt[-1]["content"]
    assert "\\boxed{}" in prompt[-1]["content"]


def test_build_dataset_rejects_missing_column(train_grpo, dataset_file):
    with pytest.raises(ValueError, match="not in dataset"):
        train_grpo.build_dataset(str(dataset_file), integrand_column="f")


# Slow for its import: a GRPOConfig is transformers' TrainingArguments, ~6 s
# to import (torch, peft, accelerate), the largest single cost of the inner loop.
@pytest.mark.slow
def test_grpo_configs_parse(train_grpo, tmp_path):
    tiny = train_grpo.build_grpo_config(tiny=True, overrides={"output_dir": tmp_path / "o", "max_steps": 2})
    assert tiny.max_steps == 2 and tiny.use_cpu and not tiny.bf16 and tiny.num_generations == 4
    # default.yaml must parse into a valid GRPOConfig (use_cpu so bf16 is accepted without a GPU)
    default = train_grpo.build_grpo_config(overrides={"output_dir": tmp_path / "d", "use_cpu": True})
    assert default.num_generations == 8 and default.learning_rate == 1e-6
    assert default.generation_batch_size % default.num_generations == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("max_prompt_lenght: 3\n")
    with pytest.raises(ValueError, match="max_prompt_lenght"):
        train_grpo.build_grpo_config(bad)


@pytest.mark.slow
def test_tiny_grpo_training_calls_reward_with_expected_kwargs(train_grpo, dataset_file, tmp_path):
    model_dir = train_grpo.prepare_tiny_model(tmp_path / "tiny-model", seed=0)
    calls: list[dict] = []

    def stand_in_reward(completions, prompts, integrand, trainer_state, log_metric, log_extra, **kwargs):
        calls.append(
            dict(
                completions=completions,
                prompts=prompts,
                integrand=integrand,
                trainer_state=trainer_state,
                log_metric=log_metric,
                log_extra=log_extra,
                **kwargs,
            )
        )
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        log_metric("stand_in/mean_length", sum(len(t) for t in texts) / len(texts))
        log_extra("stand_in_tag", ["ok"] * len(texts))
        # a varying reward, with one unscorable completion per call (None -> NaN in TRL)
        return [None if i == 0 else float(len(t) % 5) for i, t in enumerate(texts)]

    args = train_grpo.build_grpo_config(
        tiny=True, overrides={"output_dir": tmp_path / "out", "max_steps": 2, "log_completions": True}
    )
    dataset = train_grpo.build_dataset(str(dataset_file), symbol_column="variable")
    trainer = train_grpo.build_trainer(
        model=model_dir, train_dataset=dataset, args=args, reward_funcs=[stand_in_reward]
    )
    trainer.train()

    assert trainer.state.global_step == 2
    assert len(calls) == 2
    call = calls[0]
    n = args.per_device_train_batch_size
    assert len(call["completions"]) == len(call["prompts"]) == len(call["integrand"]) == n
    # conversational format: prompts are message lists, completions one assistant message each
    assert call["prompts"][0][-1]["role"] == "user"
    assert call["completions"][0][0]["role"] == "assistant"
    assert isinstance(call["completions"][0][0]["content"], str)
    # the group shares one prompt, and each integrand matches its prompt
    assert all(i in INTEGRANDS for i in call["integrand"])
    for prompt, integrand in zip(call["prompts"], call["integrand"], strict=True):
        assert integrand in prompt[-1]["content"]
    # other dataset columns come through too; the prompt column itself does not
    assert call["variable"] == ["x"] * n and len(call["id"]) == n
    assert "prompt" not in call and "completion_ids" in call
    assert call["trainer_state"] is trainer.state

    logged = [entry for entry in trainer.state.log_history if "rewards/stand_in_reward/mean" in entry]
    assert len(logged) == 2
    for entry in logged:
        assert "rewards/stand_in_reward/std" in entry and "reward" in entry
        assert not math.isnan(entry["rewards/stand_in_reward/mean"])
        assert "stand_in/mean_length" in entry  # log_metric: logged under its own name, no prefix

    # log_extra columns land in the completions table (log_completions=True)
    import pandas as pd

    tables = sorted((tmp_path / "out" / "completions").glob("completions_*.parquet"))
    assert tables, "log_completions should write parquet tables"
    table = pd.read_parquet(tables[-1])
    assert {"prompt", "completion", "stand_in_reward", "stand_in_tag", "advantage"} <= set(table.columns)


def test_an_unreachable_dataset_fails_before_any_model_is_built(train_grpo, tmp_path,
                                                                monkeypatch):
    # Offline, a Hub name cannot load; that must be said before the tiny
    # model is built (or a real one loaded), not after.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    # Both libraries read those variables once, at import: when an earlier test
    # in this worker imported them, the variables alone leave them online and
    # the load waits out network timeouts (20 s) instead of failing at once.
    import datasets.config
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    built = []
    monkeypatch.setattr(train_grpo, "prepare_tiny_model", lambda *a, **k: built.append(a))
    with pytest.raises(SystemExit, match="could not load"):
        train_grpo.main(["--tiny", "--dataset", "no-such-owner/no-such-dataset",
                         "--output-dir", str(tmp_path / "out")])
    assert built == []
