"""verl and OpenRLHF adapters, called exactly as those stacks call them.

The call sites are transcribed from the released wheels (verl 0.9.1 reward
loop ``naive.run_single`` and ``RewardLoopManager.compute_rm_score``, the
legacy ``naive`` / ``batch`` managers; OpenRLHF 0.11.2 ``SingleTurnAgentExecutor``
and ``_process_response_into_experience``, 0.8.11 ``update_samples_with_rewards``),
without installing the stacks: they need GPUs and Ray clusters.
"""
from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import logging
from pathlib import Path

import pytest

from rewards import prompts
from rewards.integrations import common
from rewards.integrations import verl as verl_module

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "data" / "integrals_sample.jsonl"
KEYS = {"score", "acc", "verdict", "reason", "confidence", "extracted_answer"}

# (response, integrand, variable, expected score under the default shaping)
CASES = [
    (r"So the answer is \boxed{\frac{x^{3}}{3} + C}", "x**2", "x", 1.0),
    (r"\boxed{x^3}", "x**2", "x", 0.0),
    ("I am not sure.", "x**2", "x", -0.2),
    (r"<answer>sin(t)</answer>", "cos(t)", "t", 1.0),
    (r"\boxed{x}", "x +* 2", "x", 0.0),  # unreadable integrand: CHECKER_ERROR -> null_reward
]


def load_by_path(path: Path, name: str):
    # What verl's loaders (custom_module_<hash>) and OpenRLHF's ("reward_func") do.
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def torch():
    # A fixture, not a module-level import: importing torch at collection
    # costs every xdist worker seconds, and only slow tests here use it.
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def np():
    return pytest.importorskip("numpy")


@pytest.fixture(scope="module")
def verl_fn():
    return load_by_path(Path(verl_module.__file__), f"custom_module_{hash(verl_module.__file__)}")


# -- verl --------------------------------------------------------------------------
@pytest.mark.slow
def test_verl_reward_loop_calls_per_sample_from_a_thread_pool(verl_fn, caplog, torch, np):
    """verl 0.7+: RewardLoopWorker runs a sync compute_score in the loop's default
    executor, one call per sample, gathered; the manager then stacks each key."""
    compute_score = verl_fn.compute_score
    assert not inspect.iscoroutinefunction(compute_score)

    async def run_single(response, integrand, variable):
        loop = asyncio.get_running_loop()
        extra_info = {"split": "train", "index": 0, "variable": variable}
        extra_info["num_turns"] = None          # injected by verl
        extra_info["rollout_reward_scores"] = {}
        result = await loop.run_in_executor(None, lambda: compute_score(
            data_source="integrals", solution_str=response, ground_truth=integrand,
            extra_info=extra_info))
        assert isinstance(result, dict)
        return {"reward_score": result["score"], "reward_extra_info": dict(result)}

    async def worker():
        return await asyncio.gather(*(run_single(r, f, v) for r, f, v, _ in CASES * 4))

    with caplog.at_level(logging.WARNING, logger="rewards.integrations"):
        outputs = asyncio.run(worker())
    # RewardLoopManager.compute_rm_score
    scores = [o["reward_score"] for o in outputs]
    rm_scores = torch.tensor(scores, dtype=torch.float32)  # a None would raise here
    infos = [o["reward_extra_info"] for o in outputs]
    keys = list(infos[0].keys())
    stacked = {key: np.array([info[key] for info in infos]) for key in keys}
    assert set(keys) == KEYS
    assert not any(v is None for info in infos for v in info.values())
    assert rm_scores.tolist() == pytest.approx([e for _, _, _, e in CASES] * 4)
    assert stacked["verdict"].tolist()[:5] == ["CORRECT", "WRONG", "UNPARSEABLE", "CORRECT",
                                                "CHECKER_ERROR"]
    assert stacked["reason"][2] == "no_answer"
    assert all(isinstance(v, str) for v in stacked["extracted_answer"])
    assert "CHECKER_ERROR" in caplog.text and "x +* 2" in caplog.text


@pytest.mark.slow
def test_verl_async_compute_score_is_awaited_on_the_loop(verl_fn):
    compute_score = verl_fn.compute_score_async
    assert inspect.iscoroutinefunction(compute_score)

    async def worker():
        return await asyncio.gather(*(compute_score(
            data_source="integrals", solution_str=r, ground_truth=f,
            extra_info={"variable": v}, reward_router_address=None)
            for r, f, v, _ in CASES))

    results = asyncio.run(worker())
    assert [r["score"] for r in results] == [e for _, _, _, e in CASES]


@pytest.mark.slow
def test_verl_legacy_naive_manager_sequential_keyword_calls(verl_fn, torch):
    reward_tensor = torch.zeros(len(CASES), 8)
    for i, (response, integrand, variable, _) in enumerate(CASES):
        score = verl_fn.compute_score(data_source="integrals", solution_str=response,
                                      ground_truth=integrand,
                                      extra_info={"variable": variable, "num_turns": 1})
        reward_tensor[i, 7] = score["score"] if isinstance(score, dict) else score
    assert reward_tensor[:, 7].tolist() == pytest.approx([e for _, _, _, e in CASES])


@pytest.mark.slow
def test_verl_batch_manager_plural_keywords(verl_fn, tmp_path, np):
    config = tmp_path / "reward.yaml"
    config.write_text("shaping: binary\nnull_reward: -1.0\nworkers: 1\n")
    reward_kwargs = {"reward_config": str(config)}  # +...custom_reward_function.reward_kwargs
    extras = [{"variable": v, "rollout_reward_scores": {}} for _, _, v, _ in CASES]
    scores = verl_fn.compute_score_batch(
        data_sources=np.array(["integrals"] * len(CASES), dtype=object),
        solution_strs=[r for r, *_ in CASES], ground_truths=[f for _, f, _, _ in CASES],
        extra_infos=extras, **reward_kwargs)
    assert len(scores) == len(CASES)
    assert [s["score"] for s in scores] == [1.0, 0.0, 0.0, 1.0, -1.0]
    assert all(set(s) == KEYS for s in scores)


MIXED = [("integrals", r"\boxed{x^3/3}", "x**2"),
         ("lighteval/MATH", r"The answer is \boxed{42}.", "42"),
         ("my/integrals", r"\boxed{-cos(x)}", "sin(x)")]


@pytest.mark.skipif(importlib.util.find_spec("verl") is not None,
                    reason="verl is importable: tests/test_verl_wheels.py covers routing there")
@pytest.mark.slow
def test_verl_rows_of_other_sources_are_never_graded_as_integrals(verl_fn, caplog):
    """A mixed-dataset run without verl's scorer: the non-integral row is a
    CHECKER_ERROR that says why, never an integral verdict."""
    sources, responses, truths = (list(x) for x in zip(*MIXED, strict=True))
    with caplog.at_level(logging.WARNING, logger="rewards.integrations"):
        batch = verl_fn.compute_score_batch(data_sources=sources, solution_strs=responses,
                                            ground_truths=truths, extra_infos=[{}] * 3)
        single = [verl_fn.compute_score(data_source=s, solution_str=r, ground_truth=t)
                  for s, r, t in MIXED]

        async def loop():
            return await asyncio.gather(*(verl_fn.compute_score_async(
                data_source=s, solution_str=r, ground_truth=t, extra_info={})
                for s, r, t in MIXED))

        awaited = asyncio.run(loop())
    for records in (batch, single, awaited):
        assert [r["verdict"] for r in records] == ["CORRECT", "CHECKER_ERROR", "CHECKER_ERROR"]
        assert [r["reason"] for r in records][1:] == ["data_source_not_judged"] * 2
        assert [r["score"] for r in records] == [1.0, 0.0, 0.0]  # null_reward
        assert all(set(r) == KEYS for r in records)
    assert "lighteval/MATH" in caplog.text and "not importable" in caplog.text


@pytest.mark.slow
def test_verl_integral_sources_setting(verl_fn):
    """integral_sources (a reward_kwargs entry: one name or a list) names the
    data sources judged here."""
    sources, responses, truths = (list(x) for x in zip(*MIXED, strict=True))
    records = verl_fn.compute_score_batch(
        data_sources=sources, solution_strs=responses, ground_truths=truths,
        integral_sources=["integrals", "my/integrals"])
    assert [r["verdict"] for r in records][::2] == ["CORRECT", "CORRECT"]
    one = verl_fn.compute_score(data_source="my/integrals", solution_str=r"\boxed{x^3}",
                                ground_truth="x**2", integral_sources="my/integrals")
    assert one["verdict"] == "WRONG"
    assert verl_module.judged_sources(None) == {verl_module.DATA_SOURCE}


def test_verl_dataset_layout_round_trip(tmp_path, verl_fn):
    pq = pytest.importorskip("pyarrow.parquet")
    written = verl_module.write_dataset(SAMPLE, tmp_path, val_size=4, seed=1)
    train, test = pq.read_table(written["train"]).to_pylist(), \
        pq.read_table(written["test"]).to_pylist()
    total = sum(1 for line in SAMPLE.read_text().splitlines() if line.strip())
    assert len(train) + len(test) == total and len(test) == 4
    row = train[0]
    assert set(row) == {"data_source", "prompt", "ability", "reward_model", "extra_info",
                        "label"}
    assert row["data_source"] == verl_module.DATA_SOURCE
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert row["prompt"][0]["content"] == prompts.SYSTEM_PROMPT
    integrand = row["reward_model"]["ground_truth"]
    assert f"∫ {integrand} d{row['extra_info']['variable']}" in row["prompt"][1]["content"]
    assert {r["extra_info"]["split"] for r in test} == {"test"}
    # The rows feed compute_score as verl would: ground truth and extra_info as stored.
    result = verl_fn.compute_score(row["data_source"], "no answer here",
                                   row["reward_model"]["ground_truth"], row["extra_info"])
    assert result["reason"] == "no_answer"
    # ... and OpenRLHF reads the same file: --data.input_key prompt --data.label_key label.
    from rewards.integrations.openrlhf import reward_func

    prompt = chat(row["prompt"][0]["content"], row["prompt"][1]["content"])
    assert reward_func([prompt + "no answer here"], [prompt], [row["label"]])[
        "extra_logs"]["no_answer"].tolist() == [1.0]


def test_verl_dataset_script(tmp_path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(ROOT / "examples" / "verl" / "prepare_data.py"),
                          str(SAMPLE), "--output-dir", str(tmp_path), "--val-size", "2"],
                         capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "train.parquet").is_file() and (tmp_path / "test.parquet").is_file()


# -- OpenRLHF ------------------------------------------------------------------------
def chat(system: str, user: str) -> str:
    return (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            "<|im_start|>assistant\n")


def openrlhf_sample(response: str, integrand: str, variable: str = "x"):
    prompt = chat(prompts.SYSTEM_PROMPT,
                  prompts.USER_TEMPLATE.format(integrand=integrand, symbol=variable))
    assert r"\boxed{}" in prompt  # the template's own box
    # A label is the integrand, or an object with the variable too.
    label = integrand if variable == "x" else {"integrand": integrand, "variable": variable}
    return prompt + response + "<|im_end|>", prompt, label


@pytest.fixture(scope="module")
def reward_func():
    from rewards.integrations import openrlhf

    return load_by_path(Path(openrlhf.__file__), "reward_func").reward_func


@pytest.mark.slow
def test_openrlhf_per_sample_calls_from_threads(reward_func, torch):
    """0.9.1+: one call per sample, asyncio.to_thread(reward_func, [q], [p], [l]);
    then _process_response_into_experience."""
    samples = [openrlhf_sample(r, f, v) for r, f, v, _ in CASES]

    async def executor():
        return await asyncio.gather(*(asyncio.to_thread(reward_func, [q], [p], [label])
                                      for q, p, label in samples))

    infos = asyncio.run(executor())
    rewards, reasons = [], []
    for info in infos:
        score_value = info.get("scores")
        reward_val = info.get("rewards")
        experience = {"reward": torch.tensor([reward_val]), "score": torch.tensor([score_value])}
        for key, value in (info.get("extra_logs") or {}).items():
            if isinstance(value, torch.Tensor):
                value = value.flatten()[0].item()
            experience[key] = torch.tensor([value])
        rewards.append(experience["reward"].flatten().item())
        reasons.append(experience["no_answer"].item())
    assert rewards == pytest.approx([e for _, _, _, e in CASES])
    # The query holds the template's literal \boxed{}: cut, so "I am not
    # sure." is no_answer (-0.2), not an empty box.
    assert reasons == [0.0, 0.0, 1.0, 0.0, 0.0]


@pytest.mark.slow
def test_openrlhf_batched_call_and_merge(reward_func, torch):
    """0.8.x: one call per micro-batch; results merged with torch.cat."""
    samples = [openrlhf_sample(r, f, v) for r, f, v, _ in CASES]
    queries, prompts_, labels = (list(x) for x in zip(*samples, strict=True))
    infos = [reward_func(queries[:2], prompts_[:2], labels[:2]),
             reward_func(queries[2:], prompts_[2:], labels[2:])]
    rewards = torch.cat([torch.as_tensor(i["rewards"]) for i in infos], dim=0)
    scores = torch.cat([torch.as_tensor(i["scores"]) for i in infos], dim=0)
    merged = {k: torch.cat([i["extra_logs"][k] for i in infos], dim=0)
              for k in infos[0]["extra_logs"]}
    assert rewards.tolist() == pytest.approx([e for _, _, _, e in CASES])
    assert scores.tolist() == [1.0, 0.0, 0.0, 1.0, 0.0]
    assert merged["checker_error"].tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]


def update_samples_with_rewards_0_8(rewards_info, torch):
    """OpenRLHF 0.8.11's merge of the per-micro-batch answers
    (ppo_utils/experience_maker.update_samples_with_rewards), transcribed."""
    rewards = torch.cat([torch.as_tensor(info["rewards"]) for info in rewards_info], dim=0)
    if "extra_logs" in rewards_info[0]:
        {key: torch.cat([logs[key] for logs in [info["extra_logs"] for info in rewards_info]],
                        dim=0) for key in rewards_info[0]["extra_logs"].keys()}
    return rewards


@pytest.mark.slow
def test_openrlhf_0_8_http_mode_needs_extra_logs_omitted(torch):
    """0.8.x torch.cat's the HTTP answers' extra_logs: the JSON lists fail on the
    first step, so the server omits them with --extra-logs omit."""
    from rewards.serve.server import RewardApp
    from rewards.serve.settings import ServeConfig

    samples = [openrlhf_sample(r, f, v) for r, f, v, _ in CASES[:3]]
    body = json.dumps({"query": [q for q, _, _ in samples], "prompts": [p for _, p, _ in samples],
                       "labels": [label for _, _, label in samples]}).encode()
    answers = {}
    for mode in ("lists", "omit"):
        app = RewardApp(common.shared_reward(), ServeConfig(extra_logs=mode))
        status, answer = app.handle("/get_reward", body)
        assert status == 200
        answers[mode] = json.loads(json.dumps(answer))  # what the HTTP client gets
    assert set(answers["lists"]["extra_logs"]) == {"acc", "no_answer", "timeout", "checker_error"}
    with pytest.raises(TypeError, match="Tensor"):
        update_samples_with_rewards_0_8([answers["lists"], answers["lists"]], torch)
    assert "extra_logs" not in answers["omit"]
    merged = update_samples_with_rewards_0_8([answers["omit"], answers["omit"]], torch)
    assert merged.tolist() == pytest.approx([1.0, 0.0, -0.2] * 2)
    with pytest.raises(ValueError, match="extra_logs"):
        ServeConfig(extra_logs="scalars")


@pytest.mark.slow
def test_openrlhf_prompt_cut_from_truncated_or_missing_prompts(caplog):
    from rewards.integrations.openrlhf import response_from_query, score_queries

    query, prompt, label = openrlhf_sample("I give up.", "x**2")
    # Left-truncated prompt (OpenRLHF cuts prompt tokens from the left) and a
    # BOS the tokenizer added: still found by its tail.
    assert response_from_query("<s>" + query[40:], prompt) == "I give up.<|im_end|>"
    reward = common.shared_reward()
    with caplog.at_level(logging.WARNING, logger="rewards.integrations"):
        scores = score_queries(reward, ["an unrelated query \\boxed{}"], [prompt], [label])
    assert scores[0].verdict == "CHECKER_ERROR" and scores[0].reason == "prompt_not_in_query"
    assert scores[0].score == reward.config.null_reward
    assert "prompt_not_in_query" in caplog.text
    # Without prompts (bare responses), the query is graded whole.
    assert score_queries(reward, [r"\boxed{x^3/3}"], None, ["x**2"])[0].acc == 1.0


def test_shared_reward_is_one_per_config(tmp_path, monkeypatch):
    config = tmp_path / "r.yaml"
    config.write_text(json.dumps({"workers": 1}))
    assert common.shared_reward(config) is common.shared_reward(str(config))
    # workers= (the CPUs Ray assigned) sizes an automatic pool; a YAML's own number wins.
    monkeypatch.delenv(common.CONFIG_ENV, raising=False)
    assert common.shared_reward(workers=3).config.workers == 3
    assert common.shared_reward(workers=3) is common.shared_reward(workers=3)
    assert common.shared_reward(config, workers=3).config.workers == 1
    monkeypatch.setenv(common.CONFIG_ENV, str(config))
    assert common.shared_reward() is common.shared_reward(config)
