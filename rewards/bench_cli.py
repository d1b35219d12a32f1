"""``python -m rewards bench {accuracy,throughput}``: benchmarks against the peers.

Only argparse wiring lives here; the benchmark modules (SymPy, loky, TRL,
math-verify, SciPy) are imported when a subcommand runs.
"""
from __future__ import annotations

import argparse


def _accuracy(args: argparse.Namespace) -> int:
    from .bench import accuracy

    return accuracy.main(args)


def _throughput(args: argparse.Namespace) -> int:
    from .bench import throughput

    return throughput.main(args)


def add_parsers(sub) -> None:
    bench = sub.add_parser("bench", help="verdict accuracy and speed, side by side with the "
                                         "peers (TRL math-verify, reasoning-gym, RLVE, LADDER, "
                                         "seed design)")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True)

    accuracy = bench_sub.add_parser(
        "accuracy", help="verdicts on Rubi pairs (rendered + mutated) and real completions",
        description="Judge known-correct Rubi pairs (as sympy.latex and SymPy text, plus "
                    "equivalent rewrites), verified-wrong mutants of them, and real "
                    "completions (reasoning-gym eval, MIT Bee) with every method under the "
                    "same per-sample deadline; print Markdown tables.")
    # The argument definitions live with each benchmark; those modules import
    # nothing heavy at module level (checked by tests/test_bench.py).
    from .bench import accuracy as accuracy_module
    from .bench import throughput as throughput_module

    accuracy_module.add_arguments(accuracy)
    accuracy.set_defaults(func=_accuracy)

    throughput = bench_sub.add_parser(
        "throughput", help="a GRPO-shaped batch (64 prompts x 8 completions): completions/s, "
                           "p50/p99, peak RSS, seconds per 512 completions",
        description="Score the same GRPO-shaped batch with every configuration of this reward "
                    "(in-process sequential; 1 and 2 workers; with and without cache) and "
                    "with each peer; print a Markdown table.")
    throughput_module.add_arguments(throughput)
    throughput.set_defaults(func=_throughput)
