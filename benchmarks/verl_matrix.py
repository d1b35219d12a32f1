"""verl's releases through their own loaders: the version table of docs/integrations.md.

For each version: ``pip install --no-deps`` of the released wheel into a cache
directory, then :mod:`tests.verl_probe` in a subprocess (Hydra composes the
wheel's ``ppo_trainer.yaml`` with the documented command and with the other
generation's keys; ``get_custom_reward_fn`` loads our module by file path and
by ``pkg://``; the legacy managers or the reward-loop worker of that version
score a mixed batch). Prints one Markdown row per version.

    python -m benchmarks verl-matrix [--versions 0.6.1,0.9.1] [--cache-dir DIR]

Needs the ``verl-loader`` extra (the small packages verl's modules import) and
a reachable package index for wheels not yet in the cache.
"""
from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

_PROBE = Path(__file__).resolve().parents[1] / "tests" / "verl_probe.py"
_spec = importlib.util.spec_from_file_location("verl_probe", _PROBE)
verl_probe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(verl_probe)

DEFAULT_CACHE = Path.home() / ".cache" / "integral-rewards" / "verl-wheels"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--versions", default=",".join(verl_probe.VERSIONS),
                        help="comma-separated verl versions")
    parser.add_argument("--cache-dir", default=str(DEFAULT_CACHE),
                        help="where the wheels are installed (one folder per version)")


def _keys(outcome: dict) -> str:
    if not outcome.get("composes"):
        return "rejected by Hydra"
    return "loads the function" if outcome.get("loads") else "parsed, ignored"


def _check(checks: dict, prefix: str) -> str:
    found = {name: c for name, c in checks.items() if name.startswith(prefix)}
    if not found:
        return "n/a"
    return "ok" if all(c["ok"] for c in found.values()) else "FAIL"


def row(report: dict, seconds: float) -> list[str]:
    checks = report["checks"]
    pkg = checks["load: pkg://"]
    return [report["version"], report["generation"],
            "ok" if checks["config: the documented command loads the function"]["ok"]
            else "FAIL",
            _keys(checks["config: reward group keys (0.7.1+ command)"]["detail"]),
            _keys(checks["config: top-level keys (0.6 command)"]["detail"]),
            "FAIL" if not pkg["ok"] else ("yes" if pkg["detail"]["supported"] else "no"),
            _check(checks, "legacy: naive"), _check(checks, "legacy: batch"),
            _check(checks, "loop: naive manager, compute_score (thread"),
            _check(checks, "loop: naive manager, compute_score_async"),
            f"{seconds:.0f}"]


HEADER = ["verl", "docs command", "documented command", "reward.* keys", "top-level keys",
          "pkg://", "legacy naive", "legacy batch", "loop sync", "loop async", "s"]


def main(args: argparse.Namespace) -> int:
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    rows, failures = [], 0
    for version in versions:
        started = time.perf_counter()
        try:
            report = verl_probe.run_probe(verl_probe.install_verl(version, Path(args.cache_dir)))
        except RuntimeError as exc:
            rows.append([version, f"not run: {str(exc).splitlines()[0][:80]}"]
                        + [""] * (len(HEADER) - 2))
            failures += 1
            continue
        rows.append(row(report, time.perf_counter() - started))
        failures += any(c["ok"] is False for c in report["checks"].values())
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for cells in rows:
        print("| " + " | ".join(cells) + " |")
    return 1 if failures else 0
