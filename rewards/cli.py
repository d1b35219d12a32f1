"""Command line: ``python -m rewards {explain,score,ablate,bench} ...``.

Each subcommand lives in its own module; this file only wires argparse, so
``python -m rewards explain`` does not import pandas or Ray.
"""
from __future__ import annotations

import argparse
import json
import sys


def _explain(args: argparse.Namespace) -> int:
    from .checker import check_antiderivative
    from .verdict import Verdict

    result = check_antiderivative(
        args.candidate, args.integrand, symbol=args.symbol, timeout_s=args.timeout,
        input_kind=args.kind, integrand_kind=args.integrand_kind,
        math_fallback=args.answer_fallback, answer_syntax=args.answer_syntax)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(result.render())
    return 0 if result.verdict is Verdict.CORRECT else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rewards",
                                     description="Antiderivative reward tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    explain = sub.add_parser("explain", help="check one answer and print the stage trace "
                                             "(exit 0 only on CORRECT)")
    explain.add_argument("--candidate", required=True, help="the answer (or a whole response "
                                                            "with --kind response)")
    explain.add_argument("--integrand", required=True)
    explain.add_argument("--kind", default="latex",
                         choices=["response", "latex", "sympy", "auto"])
    explain.add_argument("--integrand-kind", default="sympy", choices=["latex", "sympy"])
    explain.add_argument("--answer-syntax", default="auto", choices=["auto", "latex", "sympy"],
                         help="syntax of the extracted answer with --kind response")
    explain.add_argument("--answer-fallback", action="store_true",
                         help="with --kind response: use the last $...$ block if no box/tag")
    explain.add_argument("--symbol", default="x")
    explain.add_argument("--timeout", type=float, default=10.0)
    explain.add_argument("--json", action="store_true", help="print the result as JSON")
    explain.set_defaults(func=_explain)

    # Subcommands of other modules register themselves; their heavy imports
    # (pandas, Ray, math-verify) happen only when the subcommand runs.
    from . import bench_cli, score_cli

    score_cli.add_parsers(sub)
    bench_cli.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
