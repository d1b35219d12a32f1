"""The GRPO reward callable: TRL's calling contract, caching, shaping, traces."""
from __future__ import annotations

import pickle
import threading
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from rewards import AntiderivativeReward, RewardShaping
from rewards.check.result import CheckResult, Confidence, Verdict
from rewards.reward import completion_text
from rewards.reward.metrics import batch_metrics
from rewards.reward.outcome import Outcome
from rewards.reward.shaping import available_presets
from rewards.reward.trace import read_trace
from tests.support import running

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


@pytest.mark.slow
def test_string_completions(reward):
    out = call(reward, [RIGHT, WRONG, NO_BOX, BAD], ["x**2"] * 4)
    shaping = RewardShaping.preset("default")
    # An unbalanced box is an attempted answer: unparseable, not "no answer".
    assert out == [shaping.correct_symbolic, shaping.wrong, shaping.no_answer,
                   shaping.unparseable]


@pytest.mark.slow
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


@pytest.mark.slow
def test_rows_without_integrand_are_not_judged(reward):
    out = call(reward, [RIGHT, RIGHT, RIGHT], ["x**2", None, ""])
    assert out == [1.0, None, None]


@pytest.mark.slow
def test_column_names_are_configurable():
    with AntiderivativeReward(workers=1, integrand_column="problem",
                              symbol_column="var") as r:
        out = r(prompts=["p", "p"], completions=[r"\boxed{t^3/3}", r"\boxed{\sin X}"],
                problem=["t**2", "cos(X)"], var=["t", "X"])
        assert out == [1.0, 1.0]
        with pytest.raises(KeyError, match="integrand"):
            r(prompts=["p"], completions=[RIGHT], integrand=["x**2"])


@pytest.mark.slow
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


@pytest.mark.slow
def test_dedup_and_cache():
    with AntiderivativeReward(workers=1) as r:
        call(r, [RIGHT, RIGHT, r"\boxed{x^3/3+C}", WRONG], ["x**2"] * 4)
        assert r.runtime_stats()["tasks"] >= 1
        first = r.last_metrics["cache_hit_rate"]
        assert first == pytest.approx(1 / 4)  # the repeated RIGHT is a dedup hit
        tasks = r.runtime_stats()["tasks"]
        call(r, [RIGHT, WRONG], ["x**2"] * 2)
        assert r.last_metrics["cache_hit_rate"] == 1.0
        assert r.runtime_stats()["tasks"] == tasks  # nothing went to the workers


@pytest.mark.slow
def test_an_answer_and_the_same_answer_plus_c_are_checked_once():
    extra = {}
    with AntiderivativeReward(workers=1) as r:
        out = call(r, [r"\boxed{x^3/3}", r"\boxed{x^3/3 + C}", r"\boxed{x^3/3 - C_1}",
                       r"\boxed{x^3/3 + x}"], ["x**2"] * 4, log_extra=extra.__setitem__)
        assert out == [1.0, 1.0, 1.0, 0.0]
        assert r.last_metrics["cache_hit_rate"] == pytest.approx(2 / 4)
    # ... and each row still shows the answer as written.
    assert extra[f"{r.__name__}/extracted_answer"] == ["x^3/3", "x^3/3 + C", "x^3/3 - C_1",
                                                      "x^3/3 + x"]


@pytest.mark.slow
def test_a_batch_past_its_first_groups_is_extracted_while_they_run():
    # One worker, one job per task: the first 2 rows (to the end of their
    # group) go out before the rest is extracted. Answers of the rest that
    # repeat one already sent are not sent again, every row is answered in
    # its place, and the rows without an integrand stay unjudged.
    extra = {}
    rows = [(RIGHT, "x**2"), (WRONG, "x**2"), (r"\boxed{x^3/3}", "x**2"),
            (r"\boxed{\sin(x)}", "cos(x)"), (r"\boxed{-\cos(x)}", "cos(x)"),
            (RIGHT, "x**2"), (r"\boxed{\sin(x) + C}", "cos(x)"), (NO_BOX, "x**2"),
            (RIGHT, None), (r"\boxed{e^x}", "exp(x)"), (WRONG, "x**2"), (r"\boxed{x}", "1")]
    with AntiderivativeReward(workers=1, chunk_size=1) as r:
        assert r._head_rows([(c, f, None) for c, f in rows]) == 3  # 2, to the group's end
        out = call(r, [c for c, _ in rows], [f for _, f in rows], log_extra=extra.__setitem__)
        # The distinct answers, 3 in the first rows and 4 new ones after.
        assert r.runtime_stats()["tasks"] == 7
        cached = r.last_metrics["cache_hit_rate"]
    assert out == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, -0.2, None, 1.0, 0.0, 1.0]
    assert cached == pytest.approx(3 / 10)  # rows 5, 6 and 10 of the 10 with an answer
    assert extra[f"{r.__name__}/extracted_answer"][:3] == [r"\frac{x^{3}}{3} + C", "x^3",
                                                          "x^3/3"]


@pytest.mark.slow
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


@pytest.mark.slow
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
    # The trace shows what was compared: the answer as parsed and F'.
    outs = {s["stage"]: s["out"] for s in wrong["stages"] if "out" in s}
    assert "x**3" in outs["candidate_parse"] and "x**2" in outs["differentiate"]


@pytest.mark.slow
def test_without_a_trace_file_rejections_print_nothing(tmp_path):
    # Nothing reads a rejected answer's printed expressions but the trace
    # writer: without one, the workers skip printing them (same verdicts).
    with AntiderivativeReward(workers=1) as r:
        outcomes = r.score([RIGHT, WRONG], ["x**2"] * 2)
    assert [o.verdict for o in outcomes] == ["CORRECT", "WRONG"]
    wrong = outcomes[1].result
    assert {s.stage for s in wrong.stages} >= {"candidate_parse", "differentiate"}
    assert not [s.stage for s in wrong.stages
                if "out" in s.data and s.stage != "integrand_parse"]


@pytest.mark.slow
def test_trace_rotates(tmp_path):
    path = tmp_path / "trace.jsonl"
    with AntiderivativeReward(workers=1, trace_path=path, trace_max_bytes=3000,
                              trace_backups=2, cache_size=0) as r:
        for _ in range(6):
            call(r, [WRONG, NO_BOX], ["x**2"] * 2)
        files = r._trace.files()
    assert len(files) == 3
    assert all(f.stat().st_size <= 3000 for f in files)


@pytest.mark.slow  # starts two worker processes
def test_close_leaves_no_child_process():
    # Other reward objects of this module keep their own pools (each is
    # created by its reward's batch thread): only this one's must go.
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    r = AntiderivativeReward(workers=2)
    try:
        call(r, [RIGHT, WRONG, NO_BOX, r"\boxed{x^3/3}"], ["x**2"] * 4)
        # Our child processes now: the checker workers, plus loky's resource
        # tracker (one per session, meant to outlive the pool: left out).
        workers = {p.pid for p in psutil.Process().children(recursive=True)
                   if "resource_tracker" not in " ".join(p.cmdline())} - before
        # The workers that ran this call's checks reported their pids.
        reported = set(r.runtime_stats()["worker_rss_mb"])
        assert reported and reported <= workers
        assert all(running(pid) for pid in workers)
    finally:
        r.close()
    assert [pid for pid in workers if running(pid)] == []


# -- per-row symbols, answer syntax, box policy, LaTeX integrands --------------
@pytest.mark.slow  # one worker process
def test_invalid_row_symbols_are_checker_errors_and_missing_ones_fall_back():
    # A per-row variable that is not a plain identifier (or names a
    # function) is the dataset's fault: CHECKER_ERROR, reward None, not a
    # verdict on the model. A missing one means the config's symbol.
    answer, integrand = r"\boxed{t^3/3}", "t**2"
    symbols = ["x y", "__import__", "sin", "", None, "t"]
    with AntiderivativeReward(workers=1, symbol="t", symbol_column="var") as r:
        outcomes = r.score([answer] * 6, [integrand] * 6, symbols)
        rewards = r(prompts=["p"] * 6, completions=[answer] * 6, integrand=[integrand] * 6,
                    var=symbols)
    assert [(o.verdict, o.result.reason) for o in outcomes[:3]] == [
        ("CHECKER_ERROR", "invalid_symbol")] * 3
    assert [o.verdict for o in outcomes[3:]] == ["CORRECT"] * 3
    assert [o.symbol for o in outcomes[3:]] == ["t"] * 3
    assert rewards == [None, None, None, 1.0, 1.0, 1.0]


ANSWERS = [(r"\boxed{x**3/3}", "x**2"), (r"\boxed{\frac{x^3}{3}}", "x**2"),
           # In LaTeX a bare E is a symbol; in SymPy syntax it is Euler's number.
           (r"\boxed{E**x}", "exp(x)")]


@pytest.mark.slow  # one worker process per setting
@pytest.mark.parametrize(("syntax", "verdicts"), [
    ("latex", ["CORRECT", "CORRECT", "WRONG"]),
    ("sympy", ["CORRECT", "UNPARSEABLE", "CORRECT"]),
    ("auto", ["CORRECT", "CORRECT", "CORRECT"]),
])
def test_answer_syntax(syntax, verdicts):
    with AntiderivativeReward(workers=1, answer_syntax=syntax) as r:
        outcomes = r.score([a for a, _ in ANSWERS], [f for _, f in ANSWERS])
    assert [o.verdict for o in outcomes] == verdicts


RIGHT_FIRST = r"First \boxed{\frac{x^3}{3}}, then again \boxed{x^2}."
WRONG_FIRST = r"First \boxed{x^2}, then again \boxed{\frac{x^3}{3}}."


@pytest.mark.slow  # one worker process
def test_box_policy_first_takes_the_first_box():
    # With hedges not rejected (hedge="pick"), box_policy alone decides which
    # of two different boxes is graded. (The default policy, which treats
    # two different final boxes as a hedge, is tested in test_extract_policy.py.)
    with AntiderivativeReward(workers=1, box_policy="first", hedge="pick") as r:
        right, wrong = r.score([RIGHT_FIRST, WRONG_FIRST], ["x**2"] * 2)
    assert (right.verdict, right.extracted) == ("CORRECT", r"\frac{x^3}{3}")
    assert (wrong.verdict, wrong.extracted) == ("WRONG", "x^2")


@pytest.mark.slow  # one worker process (for the single box)
@pytest.mark.parametrize("hedge", ["reject", "pick"])
def test_box_policy_only_if_single_refuses_two_boxes(hedge):
    # Two boxes are refused at extraction, whatever the hedge mode.
    with AntiderivativeReward(workers=1, box_policy="only_if_single", hedge=hedge) as r:
        outcomes = r.score([RIGHT_FIRST, WRONG_FIRST, r"\boxed{\frac{x^3}{3}}"],
                           ["x**2"] * 3)
    assert [(o.verdict, o.result.reason, o.extracted) for o in outcomes[:2]] == [
        ("UNPARSEABLE", "ambiguous", None)] * 2
    assert outcomes[2].verdict == "CORRECT"  # a single box is graded as usual


@pytest.mark.slow  # one worker process
def test_latex_integrands_end_to_end():
    cases = [(r"\boxed{\ln|x| + C}", r"\frac{1}{x}", "CORRECT"),
             (r"\boxed{x}", r"\frac{1}{x}", "WRONG"),
             (r"\boxed{x e^{x} - e^{x}}", r"x e^{x}", "CORRECT"),
             (r"\boxed{x e^{x}}", r"x e^{x}", "WRONG")]
    with AntiderivativeReward(workers=1, integrand_kind="latex") as r:
        outcomes = r.score([c for c, _, _ in cases], [f for _, f, _ in cases])
    assert [o.verdict for o in outcomes] == [v for _, _, v in cases]


# -- the scoring contract and the batch metrics ---------------------------------
def test_score_refuses_columns_of_different_lengths():
    # A shorter column is a caller's bug, not rows to skip or pad.
    with AntiderivativeReward(workers=1) as r:
        with pytest.raises(ValueError, match="3 completions but 2 integrands"):
            r.score([RIGHT, WRONG, NO_BOX], ["x**2", "x**2"])
        with pytest.raises(ValueError, match="1 symbols"):
            r.score([RIGHT, WRONG], ["x**2", "x**2"], ["x"])


def _outcome(verdict: Verdict, reason: str, confidence: Confidence = Confidence.NONE):
    result = CheckResult(verdict, "test", [], {"reason": reason}, confidence)
    return Outcome(True, 0.0, result, "answer", "x", "x")


def test_batch_metric_shares_sum_to_one_and_no_answer_is_not_unparseable():
    # No answer and unreadable answers come from real extraction (decided in
    # the caller, no worker needed); the other verdicts are built directly.
    with AntiderivativeReward(workers=1) as r:
        extracted = r.score([NO_BOX, BAD, r"\boxed{\frac{x}{"], ["x**2"] * 3)
    assert [(o.verdict, o.result.reason == "no_answer") for o in extracted] == [
        ("UNPARSEABLE", True), ("UNPARSEABLE", False), ("UNPARSEABLE", False)]
    outcomes = extracted + [
        _outcome(Verdict.CORRECT, "structural", Confidence.SYMBOLIC),
        _outcome(Verdict.CORRECT, "numeric", Confidence.NUMERIC_ONLY),
        _outcome(Verdict.WRONG, "numeric_mismatch"),
        _outcome(Verdict.TIMEOUT, "timeout"),
        _outcome(Verdict.CHECKER_ERROR, "exception"),
        Outcome(False, None, None, None, None, "x"),  # no integrand: not judged
    ]
    metrics = batch_metrics(outcomes)
    shares = {key: metrics[key] for key in (
        "frac_correct", "frac_wrong", "frac_unparseable", "frac_no_answer", "frac_timeout",
        "frac_checker_error")}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares == pytest.approx({
        "frac_correct": 2 / 8, "frac_wrong": 1 / 8, "frac_unparseable": 2 / 8,
        "frac_no_answer": 1 / 8, "frac_timeout": 1 / 8, "frac_checker_error": 1 / 8})
    assert metrics["numeric_only_share"] == pytest.approx(1 / 8)
    assert metrics["unjudged"] == 1.0
