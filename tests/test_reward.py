"""The GRPO reward callable: TRL's calling contract, caching, shaping, traces."""
from __future__ import annotations

import pickle
import threading
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from rewards import AntiderivativeReward, RewardShaping
from rewards.reward import completion_text
from rewards.reward.shaping import available_presets
from rewards.reward.trace import read_trace

ROOT = Path(__file__).resolve().parent.parent

RIGHT = r"We get $\boxed{\frac{x^{3}}{3} + C}$."
WRONG = r"So \boxed{x^3}"
NO_BOX = "I give up."
BAD = r"\boxed{\frac{x^{3}}{3}"  # unbalanced


@pytest.fixture(scope="module")
def reward():
    with AntiderivativeReward(workers=2, timeout_s=10) as r:
        yield r


def call(reward, completions, integrands, **kwargs):
    return reward(prompts=["Integrate"] * len(completions), completions=completions,
                  completion_ids=[[1, 2]] * len(completions), integrand=integrands, **kwargs)


def test_string_completions(reward):
    out = call(reward, [RIGHT, WRONG, NO_BOX, BAD], ["x**2"] * 4)
    shaping = RewardShaping.preset("default")
    # An unbalanced box is an attempted answer: unparseable, not "no answer".
    assert out == [shaping.correct_symbolic, shaping.wrong, shaping.no_answer,
                   shaping.unparseable]


def test_conversational_completions(reward):
    completions = [[{"role": "assistant", "content": RIGHT}],
                   [{"role": "assistant", "content": [{"type": "text", "text": WRONG}]}]]
    assert call(reward, completions, ["x**2", "x**2"]) == [1.0, 0.0]


def test_completion_text_forms():
    assert completion_text("a") == "a"
    assert completion_text([{"role": "assistant", "content": "b"}]) == "b"
    assert completion_text([{"role": "user", "content": "q"},
                            {"role": "assistant", "content": "c"}]) == "c"
    assert completion_text(None) is None


def test_rows_without_integrand_are_not_judged(reward):
    out = call(reward, [RIGHT, RIGHT, RIGHT], ["x**2", None, ""])
    assert out == [1.0, None, None]


def test_column_names_are_configurable():
    with AntiderivativeReward(workers=1, integrand_column="problem",
                              symbol_column="var") as r:
        out = r(prompts=["p", "p"], completions=[r"\boxed{t^3/3}", r"\boxed{\sin X}"],
                problem=["t**2", "cos(X)"], var=["t", "X"])
        assert out == [1.0, 1.0]
        with pytest.raises(KeyError, match="integrand"):
            r(prompts=["p"], completions=[RIGHT], integrand=["x**2"])


def test_metrics_and_extra_columns_logged_under_name(reward):
    metrics, extra = {}, {}
    call(reward, [RIGHT, WRONG, NO_BOX, RIGHT], ["x**2"] * 4,
         trainer_state=SimpleNamespace(global_step=7),
         log_metric=metrics.__setitem__, log_extra=extra.__setitem__)
    name = reward.__name__
    assert name == "antiderivative_reward"
    assert metrics[f"{name}/frac_correct"] == 0.5
    assert metrics[f"{name}/frac_wrong"] == 0.25
    assert metrics[f"{name}/frac_no_answer"] == 0.25
    for key in ("numeric_only_share", "cache_hit_rate", "check_ms_p50", "check_ms_p99",
                "timeouts", "frac_timeout", "frac_checker_error"):
        assert f"{name}/{key}" in metrics
    assert extra[f"{name}/verdict"] == ["CORRECT", "WRONG", "UNPARSEABLE", "CORRECT"]
    assert extra[f"{name}/extracted_answer"][1] == "x^3"
    assert extra[f"{name}/extracted_answer"][2] is None


def test_dedup_and_cache():
    with AntiderivativeReward(workers=1) as r:
        call(r, [RIGHT, RIGHT, r"\boxed{x^3/3+C}", WRONG], ["x**2"] * 4)
        assert r._pool.stats.tasks >= 1
        first = r.last_metrics["cache_hit_rate"]
        assert first == pytest.approx(1 / 4)  # the repeated RIGHT is a dedup hit
        tasks = r._pool.stats.tasks
        call(r, [RIGHT, WRONG], ["x**2"] * 2)
        assert r.last_metrics["cache_hit_rate"] == 1.0
        assert r._pool.stats.tasks == tasks  # nothing went to the workers


def test_pickles_and_works_from_a_thread(reward):
    clone = pickle.loads(pickle.dumps(reward))
    try:
        assert clone.__name__ == reward.__name__
        results = []
        thread = threading.Thread(target=lambda: results.append(
            call(clone, [RIGHT, WRONG], ["x**2", "x**2"])))
        thread.start()
        thread.join(120)
        assert results == [[1.0, 0.0]]
    finally:
        clone.close()


@pytest.mark.parametrize("preset", ["default", "binary", "strict_symbolic", "format_aware",
                                    "timeout_neutral"])
def test_presets_load_and_order_outcomes(preset):
    shaping = RewardShaping.preset(preset)
    table = shaping.outcome_table()
    assert table["correct_symbolic"] == 1.0
    assert table["checker_error"] is None
    for key in ("correct_numeric_only", "wrong", "unparseable", "no_answer"):
        assert table[key] <= table["correct_symbolic"]
    assert table["correct_numeric_only"] >= table["wrong"]


def test_preset_semantics():
    assert RewardShaping.preset("strict_symbolic").reward("CORRECT", "numeric_only") == 0.0
    fa = RewardShaping.preset("format_aware")
    assert fa.reward("UNPARSEABLE", reason="no_answer") < fa.reward("WRONG")
    assert RewardShaping.preset("timeout_neutral").reward("TIMEOUT") is None
    assert set(available_presets()) >= {"default", "binary", "strict_symbolic", "format_aware",
                                        "timeout_neutral"}
    with pytest.raises(ValueError):
        RewardShaping.from_dict({"rewards": {"correct": 1.0}})


def test_from_config_full_and_preset_files(tmp_path):
    r = AntiderivativeReward.from_config(ROOT / "configs" / "reward" / "default.yaml",
                                         workers=1)
    assert r.shaping.name == "default" and r.__name__ == "antiderivative_reward"
    r.close()
    bare = tmp_path / "my_shaping.yaml"
    bare.write_text("rewards:\n  correct_symbolic: 1.0\n  correct_numeric_only: 1.0\n"
                    "  wrong: 0.0\n  unparseable: 0.0\n  no_answer: 0.0\n  timeout: 0.0\n"
                    "  checker_error: null\n")
    r = AntiderivativeReward.from_config(bare, workers=1)
    assert r.shaping.name == "my_shaping" and r.shaping.correct_numeric_only == 1.0
    r.close()
    custom = tmp_path / "reward.yaml"
    custom.write_text("name: my_reward\nshaping:\n  correct_symbolic: 2.0\n"
                      "integrand_column: f\ntimeout_s: 3\n")
    r = AntiderivativeReward.from_config(custom, workers=1)
    assert r.__name__ == "my_reward" and r.shaping.correct_symbolic == 2.0
    assert r.config.integrand_column == "f"
    r.close()


def test_trace_written_for_rejections_only(tmp_path):
    path = tmp_path / "trace.jsonl"
    with AntiderivativeReward(workers=1, trace_path=path) as r:
        call(r, [RIGHT, WRONG, NO_BOX], ["x**2"] * 3,
             trainer_state=SimpleNamespace(global_step=3))
    rows = read_trace(path)
    assert [row["verdict"] for row in rows] == ["WRONG", "UNPARSEABLE"]
    wrong = rows[0]
    assert wrong["step"] == 3 and wrong["batch_index"] == 1 and wrong["row"] == 1
    assert wrong["extracted_answer"] == "x^3" and wrong["shaping"] == "default"
    assert wrong["prompt_excerpt"] == "Integrate"
    stages = [s["stage"] for s in wrong["stages"]]
    assert stages[0] == "candidate_extract" and stages[-1] == wrong["verdict_stage"]
    assert all("ms" in s for s in wrong["stages"])


def test_trace_rotates(tmp_path):
    path = tmp_path / "trace.jsonl"
    with AntiderivativeReward(workers=1, trace_path=path, trace_max_bytes=3000,
                              trace_backups=2, cache_size=0) as r:
        for _ in range(6):
            call(r, [WRONG, NO_BOX], ["x**2"] * 2)
        files = r._trace.files()
    assert len(files) == 3
    assert all(f.stat().st_size <= 3000 for f in files)


def test_close_leaves_no_child_process():
    # Other reward objects of this module keep their own pools (each is
    # created by its reward's batch thread): only this one's must go.
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    r = AntiderivativeReward(workers=2)
    call(r, [RIGHT, WRONG], ["x**2"] * 2)
    assert {p.pid for p in psutil.Process().children(recursive=True)} - before
    r.close()
    alive = [p for p in psutil.Process().children(recursive=True) if p.is_running()
             and p.status() != psutil.STATUS_ZOMBIE and p.pid not in before]
    # loky keeps a resource tracker process per session; workers must be gone.
    assert all("resource_tracker" in " ".join(p.cmdline()) for p in alive), alive
