"""``python -m rewards explain``: check one answer and print every stage."""
from __future__ import annotations

import argparse
import json

from ..reward.config import RewardConfig
from .help import DefaultsFormatter, positive_float

# The reward's own defaults: explain shows what training would decide.
_REWARD = RewardConfig


def _run(args: argparse.Namespace) -> int:
    from ..check import Verdict, check_antiderivative

    # The reward's request (answer policy included), with the flags on top.
    result = check_antiderivative(
        args.candidate, args.integrand, _REWARD().check_request(), symbol=args.symbol,
        timeout_s=args.timeout, input_kind=args.kind, integrand_kind=args.integrand_kind,
        math_fallback=args.answer_fallback, answer_syntax=args.answer_syntax,
        trace_accepted=True)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(result.render())
    return 0 if result.verdict is Verdict.CORRECT else 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``explain``."""
    parser = sub.add_parser(
        "explain", help="check one answer and print the stage trace (exit 0 only on CORRECT)",
        description="Check one answer against one integrand and print every stage the "
                    "checker ran: what it extracted, how it parsed and normalized the "
                    "answer, the numeric evidence and the proof. Exit 0 on CORRECT, "
                    "1 otherwise.",
        formatter_class=DefaultsFormatter)
    parser.add_argument("--candidate", required=True,
                        help="the answer, or a whole model response with --kind response")
    parser.add_argument("--integrand", required=True,
                        help="the integrand f (SymPy syntax, or LaTeX with "
                             "--integrand-kind latex)")
    parser.add_argument("--kind", default="response",
                        choices=["response", "latex", "sympy", "auto"],
                        help="what --candidate is: a whole response (the answer is extracted "
                             "first), LaTeX, SymPy syntax, or auto (SymPy syntax when it has "
                             "no backslash or brace)")
    parser.add_argument("--integrand-kind", default=_REWARD.integrand_kind,
                        choices=["latex", "sympy"],
                        help="syntax of --integrand")
    parser.add_argument("--answer-syntax", default=_REWARD.answer_syntax,
                        choices=["auto", "latex", "sympy"],
                        help="syntax of the extracted answer with --kind response")
    parser.add_argument("--answer-fallback", action="store_true",
                        help="with --kind response: use the last $...$ block if there is no "
                             "box or <answer> tag")
    parser.add_argument("--symbol", default=_REWARD.symbol,
                        help="the integration variable (default: as the reward infers it: the "
                             "integrand's only free symbol; with several, x)")
    parser.add_argument("--timeout", type=positive_float, default=_REWARD.timeout_s,
                        help="seconds for the whole check (default: the reward's, "
                             f"{_REWARD.timeout_s:g})")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=_run)
