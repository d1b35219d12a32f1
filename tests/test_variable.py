r"""No variable given: the integrand's own, in every entry point.

verl and OpenRLHF datasets carry only the ground truth, and a TRL dataset
may have no variable column: ``-\cos(t)`` for ``sin(t)`` must then be
CORRECT (it was WRONG, a silent zero, when every row was integrated in x).
"""
from __future__ import annotations

import http.client
import json
import logging

import pytest

from rewards import AntiderivativeReward, check_antiderivative
from rewards.check.prepare.variable import choose_variable

ANSWER = r"so \boxed{-\cos(t) + C}"
INTEGRAND = "sin(t)"


@pytest.mark.parametrize("names, default, chosen", [
    ({"t"}, "x", ("t", "integrand")),
    ({"x", "a"}, "x", ("x", "ambiguous")),
    ({"a", "t"}, "x", ("t", "ambiguous")),
    ({"a", "u"}, "u", ("u", "ambiguous")),
    (set(), "s", ("s", "default")),
])
def test_the_variable_chosen_among_the_integrands_symbols(names, default, chosen):
    assert choose_variable(names, default) == chosen


def test_check_antiderivative_infers_and_records_it():
    result = check_antiderivative(ANSWER, INTEGRAND, input_kind="response")
    assert result.correct, result.render()
    assert result.detail["variable"] == "t" and result.detail["variable_from"] == "integrand"
    given = check_antiderivative(ANSWER, INTEGRAND, input_kind="response", symbol="t")
    assert given.correct and "variable_from" not in given.detail
    # A variable given is used as given: in x, t is a parameter and -cos(t) a constant.
    assert check_antiderivative(ANSWER, INTEGRAND, input_kind="response",
                                symbol="x").verdict.value == "WRONG"


@pytest.mark.slow
def test_trl_reward_without_a_variable_column():
    with AntiderivativeReward(workers=1) as reward:
        logged = {}
        out = reward(prompts=["p"], completions=[ANSWER], integrand=[INTEGRAND],
                     log_extra=lambda key, values: logged.setdefault(key, values))
    assert out == [1.0]
    assert logged[f"{reward.__name__}/variable"] == ["t"]


@pytest.mark.slow
def test_offline_scoring_without_a_variable_column(tmp_path):
    from rewards.offline.scoring import ScoreOptions, run_score

    source, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"integrand": INTEGRAND, "completion": ANSWER}) + "\n")
    run_score(ScoreOptions(input=str(source), output=str(out), workers=1, progress=False))
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["verdict"] == "CORRECT" and row["reward"] == 1.0


@pytest.mark.slow
def test_verl_compute_score_without_extra_info():
    from rewards.integrations.verl import compute_score

    result = compute_score("integrals", ANSWER, INTEGRAND, None)
    assert result["verdict"] == "CORRECT" and result["score"] == 1.0


@pytest.mark.slow
def test_openrlhf_file_mode_with_a_bare_integrand_label():
    from rewards.integrations.openrlhf import reward_func

    prompt = "Integrate sin(t).<|im_start|>assistant\n"
    body = reward_func([prompt + ANSWER], [prompt], [INTEGRAND])
    assert [float(v) for v in body["rewards"]] == [1.0]


@pytest.mark.slow
def test_server_get_reward_with_a_bare_integrand_label():
    from rewards.serve.server import RewardServer
    from rewards.serve.settings import ServeConfig

    srv = RewardServer(AntiderivativeReward(workers=1), ServeConfig(port=0)).start()
    try:
        conn = http.client.HTTPConnection(*srv.address, timeout=120)
        prompt = "Integrate sin(t).<|im_start|>assistant\n"
        conn.request("POST", "/get_reward", body=json.dumps(
            {"query": [prompt + ANSWER], "prompts": [prompt], "labels": [INTEGRAND]}))
        response = conn.getresponse()
        body = json.loads(response.read())
        conn.close()
    finally:
        srv.drain()
    assert response.status == 200 and body["rewards"] == [1.0]
    assert body["extra_logs"]["acc"] == [1.0]


@pytest.mark.slow
def test_an_ambiguous_integrand_is_warned_about_once(caplog):
    with AntiderivativeReward(workers=1) as reward, caplog.at_level(logging.WARNING):
        for _ in range(2):
            outcomes = reward.score([r"\boxed{a t^2/2}", r"\boxed{a t^2/2 + 1}"], ["a*t"] * 2)
    assert [o.verdict for o in outcomes] == ["CORRECT", "CORRECT"]
    warnings = [r for r in caplog.records if "several free symbols" in r.getMessage()]
    assert len(warnings) == 1 and "'t'" in warnings[0].getMessage()
