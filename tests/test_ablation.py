"""Reward-shaping ablation (`python -m rewards ablate`) on stored verdicts."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from rewards import cli
from rewards.offline.ablation import (
    group_advantages,
    group_has_signal,
    load_outcomes,
    pair_order_counts,
    run_ablate,
)

# Five GRPO groups of four stored outcomes: (verdict, confidence, reason).
C_SYM = ("CORRECT", "symbolic", "structural")
C_NUM = ("CORRECT", "numeric_only", "numeric_accept")
WRONG = ("WRONG", "none", "numeric_mismatch")
BAD = ("UNPARSEABLE", "none", "latex_error")
NONE = ("UNPARSEABLE", "none", "no_answer")
TIMEOUT = ("TIMEOUT", "none", "timeout")
ERROR = ("CHECKER_ERROR", "none", "exception")
GROUPS = {
    "g1": [C_SYM, WRONG, BAD, NONE],  # default 1, 0, -.1, -.2; binary 1, 0, 0, 0
    "g2": [WRONG, WRONG, NONE, WRONG],  # default has signal, binary does not
    "g3": [C_NUM, C_NUM, C_SYM, C_SYM],  # default .8/1; binary all 1; strict 0/1
    "g4": [TIMEOUT, WRONG, ERROR, WRONG],  # zero variance everywhere
    "g5": [C_SYM, C_SYM, C_SYM, C_SYM],
}


def write_scored(path: Path, extra_rows: list[dict] | None = None) -> Path:
    # Only the stored verdict columns: no completion, no integrand, so the
    # ablation cannot possibly re-check anything.
    with open(path, "w", encoding="utf-8") as fh:
        for group, outcomes in GROUPS.items():
            for verdict, confidence, reason in outcomes:
                fh.write(json.dumps({"prompt_id": group, "verdict": verdict,
                                     "confidence": confidence, "reason": reason}) + "\n")
        for row in extra_rows or []:
            fh.write(json.dumps(row) + "\n")
    return path


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_helpers():
    assert group_has_signal([0.0, None, 1.0]) and not group_has_signal([0.5, 0.5, None])
    assert group_advantages([None]) == [None]
    adv = group_advantages([1.0, 0.0, 0.0, 0.0])
    assert adv[0] == pytest.approx(0.75 / (0.5 + 1e-4))
    assert adv[1] == pytest.approx(-0.25 / (0.5 + 1e-4))
    assert pair_order_counts([1.0, 1.0], [0.0, 0.0]) == (1, 1)
    assert pair_order_counts([1.0, 0.0], [0.0, 1.0]) == (0, 1)


def test_report_numbers(tmp_path):
    scored = write_scored(tmp_path / "scored.jsonl")
    report, files = run_ablate(scored, ["default", "binary", "strict_symbolic",
                                        "format_aware", "timeout_neutral"],
                               tmp_path / "out", group_column="prompt_id")
    by_name = {p.name: p for p in report.presets}
    assert by_name["default"].mean == pytest.approx(8.1 / 19)
    assert by_name["default"].no_gradient == 1  # CHECKER_ERROR
    assert by_name["timeout_neutral"].no_gradient == 2  # plus the TIMEOUT
    assert by_name["binary"].mean == pytest.approx(9 / 19)
    # Zero-variance groups: default g4 g5; binary g2 g3 g4 g5; strict g2 g4 g5.
    assert by_name["default"].zero_variance_frac == pytest.approx(0.4)
    assert by_name["binary"].zero_variance_frac == pytest.approx(0.8)
    assert by_name["strict_symbolic"].zero_variance_frac == pytest.approx(0.6)
    assert by_name["binary"].n_groups == 5
    # Advantages: binary g1 is (1, 0, 0, 0); the other binary groups are flat.
    binary_adv = sorted(by_name["binary"].advantages)
    assert binary_adv[-1] == pytest.approx(0.75 / (0.5 + 1e-4))
    assert sum(1 for a in binary_adv if a == 0.0) == 15

    pairs = {(p.a, p.b): p for p in report.pairs}
    assert pairs[("default", "format_aware")].pair_order_agreement == 1.0
    assert pairs[("default", "binary")].pair_order_agreement == pytest.approx(17 / 27)
    assert pairs[("default", "binary")].pairs == 27
    assert pairs[("default", "binary")].scope == "within groups"
    assert pairs[("binary", "strict_symbolic")].spearman < 1.0

    # The files carry the same numbers.
    rows = {r["preset"]: r for r in read_csv(files["csv"])}
    assert float(rows["binary"]["zero_variance_group_frac"]) == pytest.approx(0.8)
    assert float(rows["default"]["reward_mean"]) == pytest.approx(8.1 / 19)
    agreement = read_csv(files["agreement_csv"])
    assert len(agreement) == 10
    assert {"preset_a", "preset_b", "spearman", "pair_order_agreement"} <= set(agreement[0])
    text = files["report"].read_text()
    for needle in ("# Reward-shaping ablation", "## Rewards per preset", "zero-variance",
                   "## Rank agreement", "| binary |", "80.0%", "reward_hist.png",
                   "zero_variance_groups.png", "advantages.png", "5 by `prompt_id`"):
        assert needle in text, needle
    for name in ("reward_hist", "zero_variance_groups", "advantages"):
        data = files[name].read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_without_groups_uses_all_row_pairs_and_skips_group_plots(tmp_path):
    scored = write_scored(tmp_path / "scored.jsonl")
    report, files = run_ablate(scored, ["default", "binary"], tmp_path / "out")
    assert report.group_column is None
    assert report.presets[0].zero_variance_frac is None
    assert report.pairs[0].scope == "all rows"
    assert report.pairs[0].pairs == 19 * 18 // 2
    assert "zero_variance_groups" not in files and files["reward_hist"].exists()
    assert "no group column" in files["report"].read_text()


def test_invalid_rows_are_skipped_and_custom_preset_files_work(tmp_path):
    scored = write_scored(tmp_path / "scored.jsonl",
                          [{"prompt_id": "g9", "verdict": None, "confidence": None,
                            "reason": None},
                           {"prompt_id": "g9", "verdict": "MAYBE", "confidence": "none",
                            "reason": "x"}])
    preset = tmp_path / "lenient.yaml"
    preset.write_text("name: lenient\nrewards:\n  correct_symbolic: 1.0\n"
                      "  correct_numeric_only: 1.0\n  wrong: 0.1\n  unparseable: 0.0\n"
                      "  no_answer: 0.0\n  timeout: 0.1\n  checker_error: null\n")
    report, files = run_ablate(scored, ["default", str(preset)], tmp_path / "out",
                               group_column="prompt_id")
    assert report.invalid_rows == 2 and report.rows == 20
    assert [p.name for p in report.presets] == ["default", "lenient"]
    assert "2 rows without a verdict skipped" in files["report"].read_text()


def test_missing_columns_are_reported(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"completion": "x"}) + "\n")
    with pytest.raises(ValueError, match="verdict"):
        load_outcomes(path)
    assert cli.main(["ablate", str(path), "--output-dir", str(tmp_path / "o")]) == 2


@pytest.mark.slow
def test_score_then_ablate_from_the_command_line(tmp_path, capsys):
    # 50 self-written rows, 10 groups of 5: the group column recorded by
    # `score` is picked up by `ablate`.
    answers = [r"\boxed{x^3/3}", r"\boxed{x^3}", "no answer", r"\boxed{x^3/3 + 1}",
               r"\boxed{\frac{x}{}"]
    rows = [{"prompt_id": f"p{i // 5}", "integrand": "x**2",
             "completion": answers[(i + i // 5) % 5] if i // 5 % 2 else answers[i % 2 * 0]}
            for i in range(50)]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    scored = tmp_path / "scored.parquet"
    assert cli.main(["score", str(src), "-o", str(scored), "--workers", "1",
                     "--group-column", "prompt_id", "--no-progress"]) == 0
    capsys.readouterr()
    out_dir = tmp_path / "ablation"
    assert cli.main(["ablate", str(scored), "--presets", "default", "binary",
                     "format_aware", "--output-dir", str(out_dir)]) == 0
    printed = capsys.readouterr().out
    assert "zero-variance groups" in printed
    text = (out_dir / "report.md").read_text()
    assert "10 by `prompt_id`" in text
    rows_csv = {r["preset"]: r for r in read_csv(out_dir / "ablation.csv")}
    # Even groups answer identically (all correct): 5 of 10 groups are flat.
    assert float(rows_csv["default"]["zero_variance_group_frac"]) == pytest.approx(0.5)
    assert (out_dir / "zero_variance_groups.png").exists()


@pytest.mark.parametrize(("counts", "log"), [([500, 3, 1], True), ([40, 30, 12], False), ([], False)])
def test_a_reward_histogram_panel_says_when_its_axis_is_log(counts, log):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rewards.offline.ablation import _log_scale_if_skewed

    fig, ax = plt.subplots()
    try:
        assert _log_scale_if_skewed(ax, counts) is log
        assert ax.get_yscale() == ("log" if log else "linear")
    finally:
        plt.close(fig)
