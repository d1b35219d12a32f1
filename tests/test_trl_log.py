"""Rescoring a finished TRL run from its completion log.

The parquet is written here exactly as TRL's ``GRPOTrainer.log`` writes
``output_dir/completions/completions_{step:05d}.parquet`` (trl 1.16: a pandas
frame of step, prompt, completion, one column per reward function, one per
``log_extra`` column, advantage; message lists for conversational data since
1.15, decoded text before), with the extra columns produced by calling the
reward as TRL does.
"""
from __future__ import annotations

import json

import pytest

from rewards import AntiderivativeReward, prompts
from rewards.cli import main as cli_main

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

PROBLEMS = [("x**2", "x"), ("cos(t)", "t"), ("exp(2*x)", "x")]
ANSWERS = [r"\boxed{\frac{x^{3}}{3}}", r"\boxed{x^3}", "I give up.", r"so \boxed{\sin t}",
           r"\boxed{\sin t + C}", r"\boxed{e^{2x}/2}", r"\boxed{e^{2x}}", "hmm"]
PLAN = [(0, 0), (0, 1), (0, 2), (1, 3), (1, 4), (1, 2), (2, 5), (2, 6)]  # (problem, answer)


def trl_log(path, step: int, conversational: bool) -> dict:
    rows = [(PROBLEMS[p], ANSWERS[a]) for p, a in PLAN]

    def prompt(integrand, variable):
        messages = [{"role": "system", "content": prompts.SYSTEM_PROMPT},
                    {"role": "user", "content": prompts.USER_TEMPLATE.format(
                        integrand=integrand, symbol=variable)}]
        return messages if conversational else "\n".join(m["content"] for m in messages)

    prompts_ = [prompt(*problem) for problem, _ in rows]
    completions = [[{"role": "assistant", "content": a}] if conversational else a
                   for _, a in rows]
    extra: dict[str, list] = {}
    with AntiderivativeReward(workers=1, symbol_column="variable") as reward:
        rewards = reward(prompts=prompts_, completions=completions,
                         integrand=[p[0] for p, _ in rows], variable=[p[1] for p, _ in rows],
                         log_extra=lambda column, values: extra.setdefault(column, []).extend(
                             values))
    table = {"step": [step] * len(rows), "prompt": prompts_, "completion": completions,
             reward.__name__: rewards, **extra, "advantage": [0.0] * len(rows)}
    pd.DataFrame(table).to_parquet(path)
    return table


@pytest.mark.slow
@pytest.mark.parametrize("conversational", [True, False], ids=["messages", "text"])
def test_score_reads_trls_completion_log(tmp_path, capsys, conversational):
    log = tmp_path / "completions_00003.parquet"
    table = trl_log(log, 3, conversational)
    assert "antiderivative_reward/integrand" in table
    out = tmp_path / "scored.jsonl"
    assert cli_main(["score", str(log), "--output", str(out), "--workers", "1",
                     "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["verdict"] for r in rows] == table["antiderivative_reward/verdict"]
    assert [r["reward"] for r in rows] == table["antiderivative_reward"]
    meta = json.loads((tmp_path / "scored.jsonl.meta.json").read_text())
    assert meta["columns"]["integrand"] == "antiderivative_reward/integrand"
    assert meta["columns"]["symbol"] == "antiderivative_reward/variable"
    assert meta["columns"]["group"] == "prompt"
    assert "groups by 'prompt': 3" in capsys.readouterr().out
    # ... and ablating it needs nothing more (the group column was recorded).
    assert cli_main(["ablate", str(out), "--presets", "default", "binary",
                     "--output-dir", str(tmp_path / "ablation")]) == 0
    assert "3 by `prompt`" in (tmp_path / "ablation" / "report.md").read_text()


@pytest.mark.slow
def test_score_reads_a_runs_folder_of_logs(tmp_path):
    pytest.importorskip("datasets")
    folder = tmp_path / "run" / "completions"
    folder.mkdir(parents=True)
    trl_log(folder / "completions_00001.parquet", 1, True)
    trl_log(folder / "completions_00002.parquet", 2, True)
    out = tmp_path / "scored.parquet"
    assert cli_main(["score", str(folder), "--output", str(out), "--workers", "1",
                     "--no-progress"]) == 0
    scored = pd.read_parquet(out)
    assert len(scored) == 2 * len(PLAN) and sorted(set(scored["step"])) == [1, 2]
    assert (scored["verdict"] == scored["antiderivative_reward/verdict"]).all()


@pytest.mark.slow
def test_explicit_integrand_column_is_not_guessed(tmp_path, capsys):
    log = tmp_path / "completions_00001.parquet"
    trl_log(log, 1, True)
    assert cli_main(["score", str(log), "--output", str(tmp_path / "o.jsonl"),
                     "--integrand-column", "integrand", "--no-progress"]) == 2
    assert "not an input column" in capsys.readouterr().err
