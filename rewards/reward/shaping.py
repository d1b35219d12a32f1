"""From (verdict, confidence, reason) to a scalar reward.

A check's outcome falls in one of seven classes (:class:`OutcomeClass`); a
shaping is one number (or ``None``) per class. The shipped presets are YAML
files installed with the package (``rewards/reward/presets/``), so ablations
are a diff of a few numbers and each preset documents why its values are what
they are.

>>> shaping = RewardShaping.preset("default")
>>> shaping.reward("CORRECT", "symbolic"), shaping.reward("CORRECT", "numeric_only")
(1.0, 0.8)
>>> RewardShaping.preset("strict_symbolic").reward("CORRECT", "numeric_only")
0.0
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..check.result import Confidence, Verdict, is_no_answer

# Package data: present in a wheel, an sdist and an editable install alike.
PRESET_DIR = resources.files(__package__) / "presets"


class OutcomeClass(str, Enum):
    """What a shaping preset tells apart; values are its field names."""

    CORRECT_SYMBOLIC = "correct_symbolic"
    CORRECT_NUMERIC_ONLY = "correct_numeric_only"
    WRONG = "wrong"
    UNPARSEABLE = "unparseable"
    NO_ANSWER = "no_answer"
    TIMEOUT = "timeout"
    CHECKER_ERROR = "checker_error"


def classify(verdict: Verdict | str, confidence: Confidence | str = Confidence.NONE,
             reason: str | None = None) -> OutcomeClass:
    """The outcome class of one check.

    >>> classify("UNPARSEABLE", "none", "no_answer").value
    'no_answer'
    """
    verdict = Verdict(verdict)
    if verdict is Verdict.CORRECT:
        if Confidence(confidence) is Confidence.NUMERIC_ONLY:
            return OutcomeClass.CORRECT_NUMERIC_ONLY
        return OutcomeClass.CORRECT_SYMBOLIC
    if verdict is Verdict.UNPARSEABLE:
        return OutcomeClass.NO_ANSWER if is_no_answer(reason) else OutcomeClass.UNPARSEABLE
    return OutcomeClass(verdict.value.lower())


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
        """The reward of one check's outcome (``None``: no gradient)."""
        return getattr(self, classify(verdict, confidence, reason).value)

    def outcome_table(self) -> dict[str, float | None]:
        """The reward of every outcome class."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "name"}

    def to_dict(self) -> dict[str, Any]:
        """The name and every reward, as the YAML spells them."""
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any], name: str | None = None) -> RewardShaping:
        """A shaping from a mapping (a ``rewards:`` block or flat); unknown keys
        and non-numbers are a ``ValueError``."""
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
        """A shaping YAML file, or the shaping part of a full reward config."""
        path = Path(path)
        raw = yaml.safe_load(path.read_text()) or {}
        if "shaping" in raw and isinstance(raw["shaping"], (dict, str)):
            # A full reward config: take its shaping part.
            return cls.load(raw["shaping"], base_dir=path.parent)
        return cls.from_dict(raw, name=raw.get("name") or path.stem)

    @classmethod
    def preset(cls, name: str) -> RewardShaping:
        """A shipped preset by name (see :func:`available_presets`)."""
        path = PRESET_DIR / f"{name}.yaml"
        if not path.is_file():
            raise ValueError(f"unknown shaping preset {name!r}; available: {available_presets()}")
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return cls.from_dict(raw, name=raw.get("name") or name)

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
    """The names of the shipped presets."""
    return sorted(p.name.removesuffix(".yaml") for p in PRESET_DIR.iterdir()
                  if p.name.endswith(".yaml"))
