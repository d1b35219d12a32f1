"""The lm-evaluation-harness task in configs/lm_eval: prompts, verdicts, a real run.

The scoring hook is tested without lm-eval; the task itself runs through
``lm_eval.simple_evaluate`` with a scripted model (known answers, known
scores) and with the tiny random Qwen2 from examples/tiny_model.py (plumbing of
a real HF generation). Data is a small jsonl written here; no network.
"""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from rewards import check_antiderivative, prompts

REPO = Path(__file__).resolve().parents[1]
TASK_DIR = REPO / "configs" / "lm_eval"
TASK_YAML = TASK_DIR / "integrals_antiderivative.yaml"

DOCS = [
    {"integrand": "x**2", "variable": "x"},
    {"integrand": "sin(x)", "variable": "x"},
    {"integrand": "cos(t)", "variable": "t"},
    {"integrand_sympy": "exp(2*X)", "variable": "X"},
]
# What the scripted model answers to each integrand (None: no answer).
ANSWERS = {"x**2": r"We get \boxed{\frac{x^{3}}{3} + C}", "sin(x)": r"\boxed{\cos x}",
           "cos(t)": "<answer>sin(t)</answer>", "exp(2*X)": "I give up."}


@pytest.fixture(scope="module")
def task_utils():
    spec = importlib.util.spec_from_file_location("lm_eval_task_utils", TASK_DIR / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prompt_names_integrand_variable_and_box(task_utils):
    text = task_utils.doc_to_text({"integrand": "cos(t)", "variable": "t"})
    assert "cos(t) dt" in text and "\\boxed{}" in text
    assert "exp(2*X) dX" in task_utils.doc_to_text(DOCS[3])
    assert task_utils.doc_to_target({"reference_answer_sympy": "x**3/3"}) == "x**3/3"


def test_process_results_gives_the_checkers_verdicts(task_utils):
    metrics = [task_utils.process_results(doc, [ANSWERS[doc.get("integrand") or
                                                        doc["integrand_sympy"]]])
               for doc in DOCS]
    assert metrics == [
        {"acc": 1.0, "acc_symbolic": 1.0, "answered": 1.0},
        {"acc": 0.0, "acc_symbolic": 0.0, "answered": 1.0},
        {"acc": 1.0, "acc_symbolic": 1.0, "answered": 1.0},
        {"acc": 0.0, "acc_symbolic": 0.0, "answered": 0.0},
    ]
    # The same verdict as the checker on the whole response.
    direct = check_antiderivative(ANSWERS["cos(t)"], "cos(t)", symbol="t",
                                  input_kind="response")
    assert direct.correct
    # Empty generations and rows without an integrand are scores, not crashes.
    assert task_utils.process_results({"integrand": "x"}, [])["answered"] == 0.0
    assert task_utils.process_results({"integrand": "x"}, [])["acc"] == 0.0
    assert task_utils.process_results({}, [r"\boxed{x}"])["acc"] == 0.0


# A complete final answer, right or wrong, is answered; a generation cut off
# at the length limit (a box or tag left open) is not, nor is one with none.
ANSWERED = [
    (r"so \boxed{x^3/3}", 1.0),
    (r"so \boxed{x^3}", 1.0),
    (r"either \boxed{x^3/3} or \boxed{-x^3/3}", 1.0),   # hedged: an answer, WRONG
    (r"\boxed{\text{cannot be done}}", 1.0),           # unparseable, but complete
    (r"so \boxed{\frac{x^{3}}{3", 0.0),                 # truncated mid-box
    (r"\boxed{x^3/3} hence \boxed{x^3/3 + \frac{", 0.0),
    ("<answer>x^3/3", 0.0),
    (r"<think>so \boxed{x^3/3}", 0.0),                  # reasoning never closed
    (r"\boxed{}", 0.0),
    ("It is x^3/3.", 0.0),
]


@pytest.mark.parametrize(("response", "answered"), ANSWERED)
def test_answered_means_a_complete_final_answer(task_utils, response, answered):
    assert task_utils.process_results({"integrand": "x**2"}, [response])["answered"] == answered


def _write_task(tmp_path: Path) -> str:
    data = tmp_path / "problems.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    (tmp_path / "task.yaml").write_text(
        f"include: {TASK_YAML}\n"
        "task: integrals_antiderivative_test\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data}\n")
    return "integrals_antiderivative_test"


@pytest.fixture(scope="module")
def lm_eval():
    return pytest.importorskip("lm_eval")


@pytest.fixture(scope="module")
def eval_task(lm_eval, tmp_path_factory):
    """(task name, TaskManager) for the module; the manager indexes only this
    task, not lm-eval's hundreds of built-in ones (seconds each time)."""
    from lm_eval.tasks import TaskManager

    folder = tmp_path_factory.mktemp("lm_eval_task")
    return _write_task(folder), TaskManager(include_path=str(folder), include_defaults=False)


def scripted_model():
    """An lm-eval LM that answers from ANSWERS and keeps the contexts it got;
    its chat template is the message list as JSON, so roles can be read back."""
    from lm_eval.api.model import LM

    class Scripted(LM):
        def __init__(self):
            super().__init__()
            self.contexts = []

        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

        @property
        def tokenizer_name(self) -> str:
            return "scripted"

        def apply_chat_template(self, chat_history, add_generation_prompt=True) -> str:
            return json.dumps(chat_history, ensure_ascii=False)

        def generate_until(self, requests):
            out = []
            for request in requests:
                context, _ = request.args
                self.contexts.append(context)
                key = next((k for k in ANSWERS if f"∫ {k} d" in context), None)
                out.append(ANSWERS.get(key, "I give up."))
            return out

    return Scripted()


def test_documents_load_from_any_working_directory(task_utils, tmp_path, monkeypatch):
    pytest.importorskip("datasets")
    monkeypatch.chdir(tmp_path)
    docs = task_utils.load_integrals(
        data_files={"test": "../../examples/data/integrals_sample.jsonl"}, version=1.0)["test"]
    assert len(docs) > 0 and docs[0]["integrand"]
    assert set(docs[task_utils.SYSTEM_PROMPT_FIELD]) == {prompts.SYSTEM_PROMPT}
    data = tmp_path / "mine.jsonl"
    data.write_text(json.dumps(DOCS[0]) + "\n")
    assert len(task_utils.load_integrals(data_files={"test": [str(data)]})["test"]) == 1


@pytest.mark.slow
def test_task_scores_a_scripted_model(lm_eval, eval_task):
    task, manager = eval_task
    model = scripted_model()
    results = lm_eval.simple_evaluate(model=model, tasks=[task], task_manager=manager,
                                      log_samples=True)
    # Without a chat template the system prompt is a paragraph before the question.
    assert all(c.startswith(prompts.SYSTEM_PROMPT + "\n\nFind the indefinite integral")
               for c in model.contexts)
    metrics = results["results"][task]
    assert metrics["acc,none"] == pytest.approx(0.5)
    assert metrics["acc_symbolic,none"] == pytest.approx(0.5)
    assert metrics["answered,none"] == pytest.approx(0.75)
    assert len(results["samples"][task]) == 4


@pytest.mark.slow
def test_chat_template_gets_the_training_system_prompt(lm_eval, eval_task):
    task, manager = eval_task
    model = scripted_model()
    lm_eval.simple_evaluate(model=model, tasks=[task], task_manager=manager,
                            apply_chat_template=True, limit=2)
    for context in model.contexts:
        messages = json.loads(context)
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[0]["content"] == prompts.SYSTEM_PROMPT
        assert messages[1]["content"].startswith("Find the indefinite integral")


@pytest.mark.slow
def test_shipped_task_runs_from_another_working_directory(lm_eval, tmp_path, monkeypatch):
    from lm_eval.tasks import TaskManager

    monkeypatch.chdir(tmp_path)
    manager = TaskManager(include_path=str(TASK_DIR), include_defaults=False)
    model = scripted_model()
    results = lm_eval.simple_evaluate(model=model, tasks=["integrals_antiderivative"],
                                      task_manager=manager, limit=3)
    assert len(model.contexts) == 3
    assert 0.0 <= results["results"]["integrals_antiderivative"]["acc,none"] <= 1.0


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    """The 2-layer Qwen2 of examples/tiny_model.py (1024 positions), unfitted:
    random weights write gibberish, which is all a plumbing test needs (its
    generation config stops it after 32 new tokens)."""
    pytest.importorskip("transformers")
    from examples.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0,
                            answer_format_steps=0)


@pytest.mark.slow
def test_task_runs_a_tiny_local_hf_model(lm_eval, eval_task, tiny_model_dir):
    """A base-model run (no chat template) with the task's own generation length."""
    task, manager = eval_task
    results = lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(tiny_model_dir), "device": "cpu",
                                "dtype": "float32"},
        tasks=[task], task_manager=manager, limit=2, batch_size=1, log_samples=True)
    metrics = results["results"][task]
    for name in ("acc", "acc_symbolic", "answered"):
        assert 0.0 <= metrics[f"{name},none"] <= 1.0
    samples = results["samples"][task]
    assert len(samples) == 2
    for sample in samples:
        # Random weights write gibberish: whatever it wrote was checked.
        assert isinstance(sample["resps"][0][0], str)
        assert sample["acc"] in (0.0, 1.0)
        prompt = sample["arguments"][0][0]
        assert prompt.startswith(prompts.SYSTEM_PROMPT + "\n\nFind the indefinite integral")


@pytest.mark.slow
def test_lm_eval_cli_runs_the_shipped_task_on_a_tiny_model(lm_eval, tiny_model_dir, tmp_path):
    """``lm_eval`` as the docs run it (its own CLI, ``--model hf``, a chat
    template), with the task's own generation length, on a model with a
    1024-token context (lm-eval's hf model refuses a length that leaves no
    room for the prompt: 2048 did)."""
    import subprocess
    import sys

    from transformers import AutoConfig

    positions = AutoConfig.from_pretrained(tiny_model_dir).max_position_embeddings
    assert positions == 1024
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf",
         "--model_args", f"pretrained={tiny_model_dir},dtype=float32", "--device", "cpu",
         "--batch_size", "2", "--include_path", str(TASK_DIR),
         "--tasks", "integrals_antiderivative", "--apply_chat_template",
         "--limit", "2", "--log_samples", "--output_path", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
             "TOKENIZERS_PARALLELISM": "false"})
    assert run.returncode == 0, run.stderr[-3000:]
    [results_file] = out.rglob("results_*.json")
    report = json.loads(results_file.read_text())
    metrics = report["results"]["integrals_antiderivative"]
    assert {"acc,none", "acc_symbolic,none", "answered,none"} <= set(metrics)
    max_gen_toks = report["configs"]["integrals_antiderivative"]["generation_kwargs"][
        "max_gen_toks"]
    [samples_file] = out.rglob("samples_integrals_antiderivative_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert len(samples) == 2
    tokenizer = __import__("transformers").AutoTokenizer.from_pretrained(tiny_model_dir)
    for sample in samples:
        prompt = sample["arguments"]["gen_args_0"]["arg_0"]
        assert prompt.startswith("<|im_start|>system\n" + prompts.SYSTEM_PROMPT
                                 + "<|im_end|>\n<|im_start|>user\nFind the")
        # The whole prompt fitted beside the generation budget (not left-truncated).
        assert len(tokenizer(prompt)["input_ids"]) + max_gen_toks <= positions
        assert sample["answered"] in (0.0, 1.0)


def test_shipped_task_yaml_is_well_formed():
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    config = yaml.load(TASK_YAML.read_text(), Loader=Loader)  # noqa: S506 - test loader
    assert config["custom_dataset"] == "utils.load_integrals"
    assert config["process_results"] == "utils.process_results"
    assert config["description"] == "system_prompt"
    assert (TASK_DIR / config["dataset_kwargs"]["data_files"]["test"]).is_file()
    assert {m["metric"] for m in config["metric_list"]} == {"acc", "acc_symbolic", "answered"}
