"""Command line: ``python -m rewards {explain,score,ablate,serve} ...``
(also installed as ``integral-rewards``). The benchmarks are not a subcommand:
they need a source checkout, so they run as ``python -m benchmarks ...`` from it.

Each subcommand lives in its own module; this file only wires argparse, so
``explain`` does not import pandas or Ray. Exit codes: 0 done (``explain``:
CORRECT), 1 (``explain``: any other verdict), 2 bad setup or a missing
optional dependency, 130 interrupted, 141 output pipe closed.
"""
from __future__ import annotations

import argparse
import os
import sys

from ..extras import MissingExtra
from . import explain, score, serve
from .help import DefaultsFormatter

EXIT_SETUP = 2
EXIT_BROKEN_PIPE = 141


def _prog() -> str:
    # "python -m rewards" runs rewards/__main__.py; the console script has
    # its own name.
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m rewards" if name in ("", "__main__.py", "-c") else name


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m rewards`` parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=_prog(), description="Antiderivative reward: check answers, score datasets, "
                                  "compare reward shapings.",
        formatter_class=DefaultsFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    explain.add_parser(sub)
    score.add_parsers(sub)
    serve.add_parser(sub)
    return parser


def _dispatch(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except MissingExtra as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return EXIT_SETUP


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; the process's exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            return _dispatch(argv)
        finally:
            # Output to a pipe is block-buffered: a reader that is already
            # gone (`... | head`, `... | true`) would otherwise show up only
            # at interpreter exit, as "Exception ignored ... BrokenPipeError"
            # and exit status 120. Flushing here (after --help too) brings it
            # into the handler below.
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        # `... | head` closed our stdout: stop quietly, as Unix tools do.
        # Point stdout at /dev/null so the interpreter's final flush does not
        # raise the same error again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
