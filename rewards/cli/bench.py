"""``python -m rewards bench ...``: run the benchmarks of a source checkout.

The benchmarks (``benchmarks/`` at the repository root) measure the reward
against its peers on the shared corpora; they are not part of the installed
package. From a checkout this subcommand hands its arguments to
``python -m benchmarks``; elsewhere it says so in one line.
"""
from __future__ import annotations

import argparse
import importlib
import sys


def run(argv: list[str]) -> int:
    """Hand ``argv`` to ``python -m benchmarks`` (options included: argparse
    would otherwise claim ``--help`` for this alias)."""
    try:
        runner = importlib.import_module("benchmarks.__main__")
    except ImportError:
        print("bench: the benchmarks live in the source checkout (benchmarks/), not in the "
              "installed package; run `python -m benchmarks --help` from the repository root",
              file=sys.stderr)
        return 2
    return int(runner.main(list(argv)) or 0)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``bench`` (an alias of ``python -m benchmarks``)."""
    parser = sub.add_parser(
        "bench", help="benchmarks against the peers (from a source checkout: "
                      "python -m benchmarks)", add_help=False,
        description="Alias of `python -m benchmarks` in a source checkout.")
    parser.add_argument("bench_args", nargs=argparse.REMAINDER,
                        help="arguments of python -m benchmarks")
    parser.set_defaults(func=lambda args: run(args.bench_args))

