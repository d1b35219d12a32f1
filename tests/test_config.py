"""RewardConfig: the one home of the reward's defaults, and what a YAML may say."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewards import AntiderivativeReward, RewardConfig, RewardShaping
from rewards.reward.shaping import available_presets

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_yaml_spells_out_exactly_the_defaults():
    assert RewardConfig.from_yaml(ROOT / "configs" / "reward" / "default.yaml") == RewardConfig()


def test_an_unknown_key_names_the_valid_ones(tmp_path):
    path = tmp_path / "reward.yaml"
    path.write_text("timeout: 3\n")
    with pytest.raises(ValueError, match=r"unknown reward config key\(s\) \['timeout'\]; "
                                         r"valid keys: .*timeout_s"):
        RewardConfig.from_yaml(path)
    with pytest.raises(ValueError, match="timeout_s"):
        AntiderivativeReward(timeout=3)


@pytest.mark.parametrize("change, message", [
    ({"answer_syntax": "python"}, "answer_syntax"),
    ({"box_policy": "middle"}, "box policy"),
    ({"workers": 0}, "workers"),
    ({"timeout_s": 0}, "timeout_s"),
    ({"hedge": "maybe"}, "hedge"),
    ({"integrand_kind": "mathematica"}, "integrand_kind"),
])
def test_bad_values_fail_at_construction(change, message):
    with pytest.raises(ValueError, match=message):
        RewardConfig().replace(**change)


def test_a_relative_shaping_path_is_read_next_to_the_config(tmp_path):
    (tmp_path / "mine.yaml").write_text("rewards:\n  correct_symbolic: 2.0\n")
    (tmp_path / "reward.yaml").write_text("shaping: mine.yaml\n")
    config = RewardConfig.from_yaml(tmp_path / "reward.yaml")
    assert RewardShaping.load(config.shaping).correct_symbolic == 2.0


def test_presets_ship_with_the_package():
    assert {"default", "binary", "strict_symbolic", "format_aware",
            "timeout_neutral"} <= set(available_presets())
    assert RewardShaping.preset("binary").correct_numeric_only is not None
