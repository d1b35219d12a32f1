"""From (verdict, confidence, reason) to a scalar reward.

The mapping lives in YAML presets under ``configs/shaping/`` so ablations are
a diff of a few numbers, and each preset documents why its values are what
they are.

>>> shaping = RewardShaping.preset("default")
>>> shaping.reward("CORRECT", "symbolic"), shaping.reward("CORRECT", "numeric_only")
(1.0, 0.8)
>>> RewardShaping.preset("strict_symbolic").reward("CORRECT", "numeric_only")
0.0
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from .verdict import NO_ANSWER_REASONS, Confidence, Verdict

# configs/ sits next to the package in a checkout and an editable install.
CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
PRESET_DIR = CONFIG_DIR / "shaping"


@dataclass(frozen=True)
class RewardShaping:
    """Reward per outcome. ``None`` means "this sample pushes no gradient"
    (TRL turns it into NaN and leaves it out of the group statistics)."""

    name: str = "default"
    correct_symbolic: float | None = 1.0
    correct_numeric_only: float | None = 0.8
    wrong: float | None = 0.0
    unparseable: float | None = -0.1
    no_answer: float | None = -0.2
    timeout: float | None = 0.0
    checker_error: float | None = None

    def reward(self, verdict: Verdict | str, confidence: Confidence | str = Confidence.NONE,
               reason: str | None = None) -> float | None:
        verdict = Verdict(verdict)
        if verdict is Verdict.CORRECT:
            if Confidence(confidence) is Confidence.NUMERIC_ONLY:
                return self.correct_numeric_only
            return self.correct_symbolic
        if verdict is Verdict.WRONG:
            return self.wrong
        if verdict is Verdict.UNPARSEABLE:
            return self.no_answer if reason in NO_ANSWER_REASONS else self.unparseable
        if verdict is Verdict.TIMEOUT:
            return self.timeout
        return self.checker_error

    def outcome_table(self) -> dict[str, float | None]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "name"}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any], name: str | None = None) -> RewardShaping:
        values = dict(raw.get("rewards", raw))
        values.pop("name", None)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown shaping keys: {unknown}; expected {sorted(known - {'name'})}")
        for key, value in values.items():
            if value is not None and not isinstance(value, (int, float)):
                raise ValueError(f"shaping value {key}={value!r} must be a number or null")
            values[key] = None if value is None else float(value)
        return cls(name=str(name or raw.get("name") or "custom"), **values)

    @classmethod
    def from_yaml(cls, path: str | Path) -> RewardShaping:
        path = Path(path)
        raw = yaml.safe_load(path.read_text()) or {}
        if "shaping" in raw and isinstance(raw["shaping"], (dict, str)):
            # A full reward config: take its shaping part.
            return cls.load(raw["shaping"], base_dir=path.parent)
        return cls.from_dict(raw, name=raw.get("name") or path.stem)

    @classmethod
    def preset(cls, name: str) -> RewardShaping:
        path = PRESET_DIR / f"{name}.yaml"
        if not path.is_file():
            raise ValueError(f"unknown shaping preset {name!r}; available: {available_presets()}")
        return cls.from_yaml(path)

    @classmethod
    def load(cls, spec: str | Path | dict | RewardShaping | None,
             base_dir: Path | None = None) -> RewardShaping:
        """A preset name, a YAML path, a mapping, or an instance."""
        if spec is None:
            return cls.preset("default")
        if isinstance(spec, RewardShaping):
            return spec
        if isinstance(spec, dict):
            return cls.from_dict(spec)
        text = str(spec)
        if text.endswith((".yaml", ".yml")):
            path = Path(text)
            if not path.is_absolute() and base_dir is not None and not path.exists():
                path = base_dir / path
            return cls.from_yaml(path)
        return cls.preset(text)


def available_presets() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))
