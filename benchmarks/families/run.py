"""``python -m benchmarks families``: false accepts and false rejects of the
generated adversarial families (:mod:`benchmarks.families`) over many seeds.

Each case runs in-process through :func:`rewards.check_antiderivative` in the
main thread (where its signal timers work), one after another; the table has
one row per family and lists the first failing (family, seed, case) of each.
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

from ..table import markdown_table
from . import all_families, judge


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seeds", type=int, default=20, help="seeds per family (default 20)")
    parser.add_argument("--first-seed", type=int, default=1000,
                        help="first seed (default 1000: CI's fixed seeds are below it)")
    parser.add_argument("--timeout", type=float, default=10.0, help="per-check deadline, s")
    parser.add_argument("--family", action="append", default=None,
                        help="only this family (repeatable)")


def main(args: argparse.Namespace) -> int:
    families = [f for f in all_families() if not args.family or f.name in args.family]
    rows, failures = [], []
    for family in families:
        counts: dict[str, int] = defaultdict(int)
        worst_ms = 0.0
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for case in family.cases(seed):
                start = time.perf_counter()
                result = judge(case, args.timeout)
                worst_ms = max(worst_ms, (time.perf_counter() - start) * 1e3)
                counts[case.label] += 1
                accepted = result.verdict.value == "CORRECT"
                failed = accepted if case.label == "wrong" else not accepted
                if failed:
                    kind = "false_accept" if case.label == "wrong" else "false_reject"
                    counts[kind] += 1
                    failures.append((family.name, seed, kind, case.answer, case.integrand,
                                     f"{result.verdict.value} {result.reason}"))
        rows.append([family.name, counts["wrong"], counts["false_accept"], counts["correct"],
                     counts["false_reject"], round(worst_ms)])
    print(markdown_table(["family", "wrong", "false accepts", "correct", "false rejects",
                          "max ms"], rows))
    for name, seed, kind, answer, integrand, got in failures[:40]:
        print(f"- {name} seed {seed} {kind}: {answer!r} for {integrand!r}: {got}")
    return 1 if failures else 0
