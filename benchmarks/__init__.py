"""Benchmarks of the antiderivative reward against the peers a user would
otherwise pick: ``python -m benchmarks <command>`` from the repository root.

Everything here is measurement code, not product code, and it is not part of
the installed package (a wheel has no ``benchmarks/``; no ``rewards``
command runs it): the peers are re-implemented faithfully *as baselines*
(``peers.py``, ``seed_design.py``) and run in the same worker pool, under the
same per-sample deadline, as the reward. The data sets are read by path from
``../shared/data`` (relative to the repository root); no row is copied into
the project. Commands that write ``docs/benchmarks.md`` (``--out``) replace
only their own section, between ``<!-- bench:NAME -->`` markers.

Modules (what each measures; its command):
    accuracy      verdicts per data set and method: Rubi pairs rendered and mutated,
                  real completions; ``accuracy``
    soundness     false accepts / rejects on the soundness case tables (tune, holdout,
                  fresh, fresh25, ...), per class; ``soundness``
    soundness_label  the independent labeller of those cases (none of the checker's
                  code); no command of its own
    families/     generated adversarial families (jumps, branches, ...) over many
                  seeds: false accepts and rejects per family; ``families``
    throughput    a GRPO-shaped batch, every method: completions/s, p50/p99, peak RSS;
                  ``throughput`` (``--source rgym|rubi|rubi-latex``)
    rubi_latex    the ``--source rubi-latex`` batch of ``throughput``: hard Rubi integrals
                  in ``sympy.latex``, per-stage and per-proof-rung tables
    concurrency   N concurrent one-sample callers vs one batch call; ``concurrency``
    serve         load test of the reward server on loopback vs the in-process reward;
                  ``serve``
    serve_faults  the server under SIGTERM, dropped, slow and half-open clients;
                  ``serve-faults``
    soak          a long run: RSS, determinism and pool health over many batches;
                  ``soak``
    mitbee_parse  parse coverage on the MIT Bee LaTeX responses; ``mitbee``
    latex_parse   where the time of parsing long LaTeX goes; ``latex-parse``
    answer_keys   the MIT Bee answer keys against their LaTeX integrands, with the hand
                  adjudication of the keys that are not antiderivatives; ``answer-keys``
    verl_matrix   verl's releases through their own loaders (the version table of
                  docs/integrations.md); ``verl-matrix``
    trip          one completion's trip through the reward: files and calls of rewards/
                  entered, parent and worker, bytes across the boundary; ``trip``
    corpora       loading the data sets, rendering answers, mutation operators,
                  high-precision verification of rewrites and mutants (shared)
    peers         TRL accuracy_reward, reasoning-gym, RLVE numeric, LADDER-style,
                  seed design: one worker-side entry point for all of them (shared)
    seed_design   the seed design, re-implemented as a baseline (shared)
    table         Markdown tables and the section writer for docs/benchmarks.md (shared)
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
