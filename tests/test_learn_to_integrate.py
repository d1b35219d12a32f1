"""examples/learn_to_integrate.py: the curriculum, the independent judge, and a
``--quick`` run end to end (slow: it trains)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRIPT = REPO_ROOT / "examples" / "learn_to_integrate.py"

pytest.importorskip("sympy")
pytest.importorskip("mpmath")


@pytest.fixture(scope="module")
def lti():
    import importlib.util

    pytest.importorskip("trl")
    spec = importlib.util.spec_from_file_location("learn_to_integrate", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def curriculum(lti):
    return lti.build_curriculum(seed=0)


def test_held_out_problems_are_new_instances(lti, curriculum):
    train, held = curriculum
    train_integrands = {p.integrand for p in train}
    assert not train_integrands & {p.integrand for p in held}
    # every family is held out in part, and a held-out summand never appears in training
    assert {p.family for p in held} == {p.family for p in train}
    held_single = {p.integrand for p in held if p.family != "sum"}
    for p in train:
        if p.family == "sum":
            assert not any(p.integrand.startswith(h + " + ") or p.integrand.endswith(" + " + h)
                           for h in held_single)
    assert lti.build_curriculum(seed=0) == curriculum  # deterministic
    chosen = lti.eval_set(held, 40)
    assert len(chosen) == 40 and len({p.integrand for p in chosen}) == 40
    assert {p.family for p in chosen} == {p.family for p in held}


def test_sft_targets_mix_equivalent_forms(lti, curriculum):
    train, _ = curriculum
    log = next(p for p in train if p.family == "log")
    targets = lti.sft_targets(log)
    assert any("\\ln|" in t for t in targets) and any("\\ln(" in t for t in targets)
    assert any(t.endswith("+ C}") for t in targets) and any(not t.endswith("C}") for t in targets)
    assert all(t.startswith("\\boxed{") for t in targets)
    x_exp = next(p for p in train if p.family == "x_exp" and p.params[0] > 1)
    assert len(x_exp.forms) >= 3  # factored and expanded


def test_judge_accepts_every_form_of_a_sample(lti, curriculum):
    train, held = curriculum
    judge = lti.Judge()
    by_family = {}
    for p in train + held:
        by_family.setdefault(p.family, []).append(p)
    for problems in by_family.values():
        for p in problems[:4]:
            for form in (*p.forms, p.reference):
                assert judge(f"so \\boxed{{{form}}}", p.integrand), (p.integrand, form)
                assert judge(f"\\boxed{{{form} + C}}", p.integrand), (p.integrand, form)


@pytest.mark.parametrize("answer, integrand, expected", [
    (r"\boxed{\frac{x^{3}}{3} + C}", "x**2", True),
    (r"\boxed{\ln(x - 2)}", "1/(x - 2)", True),  # ln u: right where u > 0
    (r"\boxed{\log|x - 2|}", "1/(x - 2)", True),  # \log is ln in calculus
    (r"\boxed{-\frac{1}{3}\cos 3x}", "sin(3*x)", True),
    (r"\boxed{\sin^{2} x}", "2*sin(x)*cos(x)", True),
    (r"\boxed{\frac12 x^2}", "x", True),
    (r"\boxed{x^{3}}", "x**2", False),
    (r"\boxed{Cx}", "1", False),  # a constant times x is no constant of integration
    (r"\boxed{x - K}", "1", True),
    (r"\boxed{\frac{2x^{6}}{6} + C6}", "2*x**5", True),  # 6C is a constant too
    (r"\boxed{3\ln|x - 1| n7}", "3/(x - 1)", False),  # ln(7n|x - 1|) is no function of x
    (r"\boxed{-\frac{4cos(3x)}{3}}", "4*sin(3*x)", True),  # a bare name is the function
    (r"\boxed{\cosh x - sinh 2x}", "sinh(x) - 2*cosh(2*x)", True),
    (r"\boxed{\frac{x^{2}}{2} + 10^{-30}x}", "x", False),  # 50 digits see it
    (r"\boxed{-\frac{1}{3}\cos 3x}", "-sin(3*x)", False),
    (r"\boxed{\frac{e^{2x}}{2}", "exp(2*x)", False),  # unclosed box
    (r"\boxed{f(x)}", "x", False),
    (r"\boxed{9^{9^{9}} x}", "1", False),  # refused, never computed
    ("the answer is x^2/2", "x", False),
])
def test_judge_verdicts(lti, answer, integrand, expected):
    assert lti.Judge()(answer, integrand) is expected


def test_latex_reader_refuses_what_it_does_not_know(lti):
    for text in (r"\int x dx", r"x \pm 1", r"\frac{1}{", "x $ 2", r"\unknown{x}"):
        with pytest.raises(ValueError):
            lti.latex_to_sympy_text(text)


# Slow for its import: a GRPOConfig is transformers' TrainingArguments, ~6 s
# to import (torch, peft, accelerate), the largest single cost of the inner loop.
@pytest.mark.slow
def test_grpo_config_parses(lti, tmp_path):
    args = lti.build_grpo_config(lti.GRPO_CONFIG, overrides={"output_dir": tmp_path / "o"})
    assert args.use_cpu and not args.bf16 and args.beta == 0.0
    assert args.generation_batch_size % args.num_generations == 0
    assert args.max_steps > 0 and args.logging_steps == 1  # a metrics line per step


@pytest.mark.slow
def test_evaluation_leaves_the_training_random_stream_alone(lti, curriculum, tmp_path):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = lti.build_tiny_model(tmp_path / "m", seed=0, answer_format_steps=0)
    model, tokenizer = AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    _, held = curriculum
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    result = lti.evaluate(model, tokenizer, held[:3], lti.Judge(), samples=2, max_new_tokens=8)
    assert torch.equal(torch.rand(3), expected)
    assert 0 <= result["heldout_accuracy"] <= 1 and result["heldout_sampled_accuracy"] is not None


@pytest.mark.slow
def test_quick_run_writes_metrics_summary_and_plot(tmp_path):
    pytest.importorskip("trl")
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    out = tmp_path / "quick"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    # --quick's 40 SFT steps and 32 held-out problems are most of its time;
    # what this test reads (the files and their fields) does not depend on
    # how far SFT got or how many problems were evaluated (9: one a family).
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--sft-steps", "2",
                           "--held-out-size", "9", "--out", str(out)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    (name,) = summary["rewards"]
    assert [r["step"] for r in records] == [0, 1, 2, 3]
    for r in records:
        assert r["reward"] == name and r["seed"] == 0
        assert {"mean_reward", "heldout_accuracy", "zero_variance_share", "seconds"} <= set(r)
    trained = records[1:]
    assert all(r["mean_reward"] is not None and 0 <= r["zero_variance_share"] <= 1
               for r in trained)
    assert records[0]["heldout_accuracy"] == summary["before"]["heldout_accuracy"]
    assert records[-1]["heldout_accuracy"] is not None  # evaluated after the last step
    after = summary["rewards"][name]["heldout_accuracy_after"]
    assert after["mean"] == records[-1]["heldout_accuracy"] and after["n"] == 1
    assert summary["wall_seconds"] > 0 and "--quick" in summary["command"]
    assert (out / "training.png").stat().st_size > 1000
    assert f"| {name} |" in (out / "table.md").read_text()
