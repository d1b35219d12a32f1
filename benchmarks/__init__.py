"""Benchmarks of the antiderivative reward against the peers a user would
otherwise pick (``python -m benchmarks accuracy|throughput``).

Everything here is measurement code, not product code: the peers are
re-implemented faithfully *as baselines* (``peers.py``, ``seed_design.py``)
and run in the same worker pool, under the same per-sample deadline, as the
reward. The data sets are read by path from ``../shared/data`` (relative to
the repository root); no row is copied into the project.

Modules:
    corpora     loading the data sets, rendering answers, mutation operators,
                high-precision verification of rewrites and mutants
    peers       TRL accuracy_reward, reasoning-gym, RLVE numeric, LADDER-style,
                seed design: one worker-side entry point for all of them
    accuracy    ``bench accuracy``: verdicts per data set and method
    soundness   ``bench soundness``: the issue-17 case tables (tune, holdout, fresh)
                and issue 25's held-out set (fresh25), per class;
                ``soundness_label`` is their independent labeller
    throughput  ``bench throughput``: a GRPO-shaped batch, every method
    serve_faults  ``bench serve-faults``: the server under SIGTERM, dropped, slow and
                idle clients
    soak        a long run: RSS, determinism and pool health over 20k completions
    mitbee_parse  ``bench mitbee``: parse coverage on the MIT Bee LaTeX responses
    latex_parse   ``bench latex-parse``: where the time of parsing long LaTeX goes
    answer_keys   ``bench answer-keys``: the MIT Bee answer keys against their LaTeX
                integrands, with the hand adjudication of the keys that are not
                antiderivatives
    table       Markdown tables and the section writer for docs/benchmarks.md
"""
from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = REPO_ROOT.parent / "shared" / "data"
DEFAULT_DOC = REPO_ROOT / "docs" / "benchmarks.md"

# Method names, in table order.
OURS = "ours"
METHODS = ("ours", "trl_math_verify", "reasoning_gym", "rlve_numeric", "ladder_numeric",
           "seed_design")
METHOD_LABELS = {
    "ours": "this reward",
    "trl_math_verify": "TRL accuracy_reward (math-verify)",
    "reasoning_gym": "reasoning-gym scorer",
    "rlve_numeric": "RLVE numeric",
    "ladder_numeric": "LADDER-style quadrature",
    "seed_design": "seed design",
}

__all__ = ["DEFAULT_DATA_DIR", "DEFAULT_DOC", "METHODS", "METHOD_LABELS", "OURS", "REPO_ROOT"]
