"""``python -m benchmarks {accuracy,soundness,families,throughput,concurrency,serve,serve-faults,
soak,mitbee,latex-parse,answer-keys,verl-matrix,trip}``
from the repository root."""
from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    from . import accuracy, concurrency, serve, soundness, throughput

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Verdict accuracy and speed of the reward, side by side with the peers "
                    "(TRL math-verify, reasoning-gym, RLVE, LADDER, seed design).")
    sub = parser.add_subparsers(dest="bench_command", required=True)
    acc = sub.add_parser(
        "accuracy", help="verdicts on Rubi pairs (rendered + mutated) and real completions",
        description="Judge known-correct Rubi pairs (as sympy.latex and SymPy text, plus "
                    "equivalent rewrites), verified-wrong mutants of them, and real "
                    "completions (reasoning-gym eval, MIT Bee) with every method under the "
                    "same per-sample deadline; print Markdown tables.")
    accuracy.add_arguments(acc)
    acc.set_defaults(func=accuracy.main)
    snd = sub.add_parser(
        "soundness", help="false accepts / rejects on the issue-17 case tables, per class",
        description="Judge the soundness case tables (localized terms, parameters, jumps, "
                    "continuous step forms, notation, heavy expressions) through the reward "
                    "as in training, and the heavy class in-process with its wall time; print "
                    "per-class Markdown tables (the holdout and fresh sets as aggregate counts "
                    "only).")
    soundness.add_arguments(snd)
    snd.set_defaults(func=soundness.main)
    from .families import run as families_run

    fam = sub.add_parser("families", help="generated adversarial families over many seeds",
                         description=families_run.__doc__.splitlines()[0])
    families_run.add_arguments(fam)
    fam.set_defaults(func=families_run.main)
    thr = sub.add_parser(
        "throughput", help="a GRPO-shaped batch: completions/s, p50/p99, peak RSS",
        description="Score the same GRPO-shaped batch with every configuration of this reward "
                    "(in-process sequential; 1 and 2 workers; with and without cache) and "
                    "with each peer; print a Markdown table. --source rubi-latex: hard Rubi "
                    "integrals with sympy.latex answers, the reward as trained vs TRL's "
                    "accuracy_reward, plus per-stage and per-rung proof tables.")
    throughput.add_arguments(thr)
    thr.set_defaults(func=throughput.main)
    con = sub.add_parser(
        "concurrency", help="N concurrent one-sample callers vs one batch call",
        description="Score one GRPO-shaped batch of real completions as one call, from N "
                    "threads one sample per call, and from asyncio; print a Markdown table.")
    concurrency.add_arguments(con)
    con.set_defaults(func=concurrency.main)
    srv = sub.add_parser(
        "serve", help="load test of python -m rewards serve on loopback vs the in-process reward",
        description="Concurrent clients post real completions to a fresh reward server for a "
                    "bounded time; print requests/s, completions/s, p50/p99 latency, errors "
                    "and worker RSS next to the in-process reward as a Markdown table.")
    serve.add_arguments(srv)
    srv.set_defaults(func=serve.main)
    from . import serve_faults

    flt = sub.add_parser(
        "serve-faults", help="the reward server under SIGTERM, dropped and slow clients",
        description=serve_faults.__doc__.splitlines()[0])
    serve_faults.add_arguments(flt)
    flt.set_defaults(func=serve_faults.main)
    sub.add_parser("soak", help="a long run: RSS, determinism, pool health (own flags: "
                                "python -m benchmarks soak --help)", add_help=False)
    from . import latex_parse, mitbee_parse

    mit = sub.add_parser("mitbee", help="parse coverage on the MIT Bee LaTeX responses",
                         description=mitbee_parse.__doc__.splitlines()[0])
    mitbee_parse.add_arguments(mit)
    mit.set_defaults(func=mitbee_parse.main)
    lp = sub.add_parser("latex-parse", help="where the time of parsing long LaTeX goes",
                        description=latex_parse.__doc__.splitlines()[0])
    latex_parse.add_arguments(lp)
    lp.set_defaults(func=latex_parse.main)
    from . import answer_keys

    keys = sub.add_parser("answer-keys", help="the MIT Bee answer keys against their integrands",
                          description=answer_keys.__doc__.splitlines()[0])
    answer_keys.add_arguments(keys)
    keys.set_defaults(func=answer_keys.main)
    from . import verl_matrix

    vm = sub.add_parser("verl-matrix", help="each verl release's own loader on our functions",
                        description=verl_matrix.__doc__.splitlines()[0])
    verl_matrix.add_arguments(vm)
    vm.set_defaults(func=verl_matrix.main)
    from . import trip

    tp = sub.add_parser("trip", help="one completion's trip: files, calls, bytes per crossing",
                        description=trip.__doc__.splitlines()[0])
    trip.add_arguments(tp)
    tp.set_defaults(func=trip.main)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["soak"]:
        from . import soak

        return soak.main(argv[1:])
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
