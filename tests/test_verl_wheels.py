"""Our verl functions through released verl wheels' own code (not a replay).

Each version is ``pip install --no-deps``'d into pytest's cache directory (a
1-2 MB wheel, once) and :mod:`tests.verl_probe` runs in a subprocess with it
first on the path: Hydra composes the wheel's own ``ppo_trainer.yaml`` with
docs/integrations.md's command for that version, ``get_custom_reward_fn``
(``load_extern_object`` from 0.7.0) loads ``rewards/integrations/verl.py``,
and the wheel's legacy managers or reward-loop worker call it on a tokenized
batch that mixes integrals with rows for verl's own ``default_compute_score``.

verl's modules import a few small packages (the ``verl-loader`` extra, part of
``test``); its own dependency pins (transformers, numpy, tensordict) are not
installed. Skipped when those packages are missing or the package index is not
reachable. Each version costs ~10 s of CPU, so CI runs the oldest and the
newest (the two loader generations); ``INTEGRAL_REWARDS_VERL_VERSIONS=all``
(or a comma-separated list) runs more, and ``python -m benchmarks verl-matrix``
prints the table for all of them.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest


def _load_probe():
    # By path: a `tests` package elsewhere on sys.path must not shadow ours.
    path = Path(__file__).with_name("verl_probe.py")
    spec = importlib.util.spec_from_file_location("verl_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verl_probe = _load_probe()

DEFAULT_VERSIONS = ("0.6.1", "0.9.1")
VERSIONS_ENV = "INTEGRAL_REWARDS_VERL_VERSIONS"

# What each version does with each command's keys (docs/integrations.md's
# version table says the same): the reward-group command (0.7.1+), the
# top-level command (0.6), pkg:// paths, and which managers main_ppo uses.
EXPECTED = {
    "0.6.1": {"group": {"composes": False}, "top": {"composes": True, "loads": True},
              "pkg": False, "legacy": True, "loop": False},
    "0.7.0": {"group": {"composes": False}, "top": {"composes": True, "loads": True},
              "pkg": True, "legacy": True, "loop": False},
    "0.7.1": {"group": {"composes": True, "loads": True}, "top": {"composes": True, "loads": True},
              "pkg": True, "legacy": False, "loop": True},
    "0.8.0": {"group": {"composes": True, "loads": True}, "top": {"composes": True, "loads": True},
              "pkg": True, "legacy": False, "loop": True},
    "0.9.1": {"group": {"composes": True, "loads": True},
              "top": {"composes": True, "loads": False},  # parsed, never read: main_ppo
              "pkg": True, "legacy": False, "loop": True},  # no longer migrates them
}


def selected_versions() -> list[str]:
    raw = os.environ.get(VERSIONS_ENV, "").strip()
    if not raw:
        return list(DEFAULT_VERSIONS)
    if raw == "all":
        return list(verl_probe.VERSIONS)
    return [v.strip() for v in raw.split(",") if v.strip()]


@pytest.fixture(scope="session")
def verl_targets(request, tmp_path_factory):
    missing = [m for m in verl_probe.LOADER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"verl's modules need {missing}: pip install -e '.[verl-loader]'")
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    root = (Path(cache.mkdir("verl-wheels")) if cache is not None
            else tmp_path_factory.mktemp("verl-wheels"))
    return root


@pytest.mark.slow
@pytest.mark.parametrize("version", selected_versions())
def test_verl_wheel_loads_and_calls_our_functions(verl_targets, version):
    try:
        target = verl_probe.install_verl(version, verl_targets)
    except RuntimeError as exc:
        pytest.skip(str(exc))
    report = verl_probe.run_probe(target)
    assert report["version"] == version
    checks = report["checks"]
    failed = {name: c for name, c in checks.items() if c["ok"] is False}
    assert not failed, failed

    expected = EXPECTED[version]
    documented = checks["config: the documented command loads the function"]["detail"]
    assert documented["overrides"] == verl_probe.doc_overrides(
        verl_probe.command_generation(version))
    group = checks["config: reward group keys (0.7.1+ command)"]["detail"]
    top = checks["config: top-level keys (0.6 command)"]["detail"]
    assert {k: group[k] for k in expected["group"]} == expected["group"]
    assert {k: top[k] for k in expected["top"]} == expected["top"]
    assert checks["load: pkg://"]["detail"]["supported"] is expected["pkg"]
    assert checks["load: file path"]["ok"]
    # The managers main_ppo uses in this version ran our functions on the mixed batch.
    legacy = [name for name in checks if name.startswith("legacy: ")]
    loop = [name for name in checks if name.startswith("loop: ")]
    assert len(legacy) == (2 if expected["legacy"] else 0), sorted(checks)
    assert len(loop) == (2 if expected["loop"] else 0), sorted(checks)
    for name in legacy + loop:
        detail = checks[name]["detail"]
        assert detail["verdicts"][4:] == ["DELEGATED"] * 3  # verl's own scorer's rows
        assert detail["scores"][:4] == pytest.approx([1.0, 0.0, -0.2, 1.0])
