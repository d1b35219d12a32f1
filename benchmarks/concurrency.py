"""``python -m benchmarks concurrency``: N concurrent one-sample callers vs one batch.

verl's reward loop calls the score function once per sample from a thread
pool; OpenRLHF's file mode once per sample from threads; async trainers from
an event loop. The reward's batcher checks concurrent calls together; this
measures what that recovers against the same samples scored as one batch.

The samples are one GRPO-shaped batch of real completions (64 prompts x 8,
reasoning-gym, as ``benchmarks throughput`` builds it). Each configuration
scores them with a fresh reward (cold cache; same workers and deadline),
after a warm-up of its pool; every concurrent run is paired with a one-batch
run just before it, for ``--repeats`` rounds (the machine is shared; the
median of the pairs' ratios is reported):

* ``one batch``: ``reward.score(all 512)``;
* ``N threads``: a thread pool of N threads, one ``reward.score([sample])``
  per sample (verl's naive reward loop with N executor threads);
* ``asyncio``: 512 concurrent ``await reward.ascore([sample])`` on one loop.
"""
from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import DEFAULT_DATA_DIR
from .table import markdown_table, write_section

THREADS = (8, 32, 128)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _one_batch(reward, rows) -> list:
    return reward.score([r["completion"] for r in rows], [r["integrand"] for r in rows],
                        [r["symbol"] for r in rows])


def _threads(n: int):
    def run(reward, rows) -> list:
        with ThreadPoolExecutor(n) as pool:
            return [o[0] for o in pool.map(
                lambda r: reward.score([r["completion"]], [r["integrand"]], [r["symbol"]]),
                rows)]
    return run


def _asyncio(reward, rows) -> list:
    async def main():
        return await asyncio.gather(*(reward.ascore([r["completion"]], [r["integrand"]],
                                                    [r["symbol"]]) for r in rows))
    return [o[0] for o in asyncio.run(main())]


def configurations() -> dict[str, Any]:
    configs = {"one batch": _one_batch}
    configs.update({f"{n} threads, one sample per call": _threads(n) for n in THREADS})
    configs["asyncio, one sample per call"] = _asyncio
    return configs


def _run_once(run, rows, workers: int, timeout_s: float) -> tuple[float, int, list]:
    from rewards import AntiderivativeReward

    with AntiderivativeReward(workers=workers, timeout_s=timeout_s) as reward:
        reward.score([r"\boxed{x^2/2}"] * 2, ["x", "x**2"])  # start and warm the pool
        before = reward.runtime_stats()["batches"]
        started = time.perf_counter()
        outcomes = run(reward, rows)
        wall = time.perf_counter() - started
        return wall, reward.runtime_stats()["batches"] - before, [o.verdict for o in outcomes]


def measure(rows: list[dict[str, Any]], *, workers: int, timeout_s: float,
            repeats: int) -> dict[str, dict[str, Any]]:
    """Every concurrent run is paired with a one-batch run just before it:
    the machine is shared, and the ratio within a pair is what its drifting
    load distorts least."""
    configs = configurations()
    batch = configs.pop("one batch")
    out: dict[str, dict[str, Any]] = {name: {"walls": [], "ratios": [], "batches": []}
                                      for name in ["one batch", *configs]}
    reference = None
    for round_ in range(repeats):
        for name, run in configs.items():
            ref_wall, _, ref_verdicts = _run_once(batch, rows, workers, timeout_s)
            reference = reference or ref_verdicts
            out["one batch"]["walls"].append(ref_wall)
            wall, batches, verdicts = _run_once(run, rows, workers, timeout_s)
            entry = out[name]
            entry["walls"].append(wall)
            entry["ratios"].append(ref_wall / wall)
            entry["batches"].append(batches)
            entry["same_verdicts"] = entry.get("same_verdicts", True) and verdicts == reference
            _log(f"  round {round_ + 1} {name}: {len(rows) / wall:.0f} completions/s, "
                 f"{100 * ref_wall / wall:.0f}% of its one-batch pair")
    out["one batch"].update(ratios=[1.0], batches=[1], same_verdicts=True)
    for entry in out.values():
        entry["cps"] = len(rows) / min(entry["walls"])
        entry["median_cps"] = len(rows) / statistics.median(entry["walls"])
        entry["ratio"] = statistics.median(entry["ratios"])
    return out


def make_report(results: dict[str, dict[str, Any]], n: int, args) -> str:
    rows = [[name, r["cps"], r["median_cps"], f"{100 * r['ratio']:.0f}%",
             " / ".join(f"{100 * x:.0f}%" for x in r["ratios"]) if name != "one batch" else "–",
             statistics.median(r["batches"]), "yes" if r["same_verdicts"] else "NO"]
            for name, r in results.items()]
    worst = min(r["ratio"] for name, r in results.items() if name != "one batch")
    return (
        "## Concurrent callers vs one batch\n\n"
        f"Command: `python -m benchmarks concurrency --workers {args.workers} --repeats "
        f"{args.repeats}`\n\n"
        f"{n} real completions (reasoning-gym, 64 prompts x 8), {args.workers} workers, "
        f"{args.timeout} s deadline, a fresh reward (cold cache) per run. Every concurrent run "
        f"is paired with a one-batch run just before it; *vs one batch* is the median of the "
        f"pairs' completions/s ratios over {args.repeats} rounds (a shared machine: 1-minute "
        f"load average at the end {os.getloadavg()[0]:.1f}). *batches*: how many batches "
        "the batcher formed from the calls (median).\n\n"
        + markdown_table(["callers", "completions/s (best)", "completions/s (median)",
                          "vs one batch (median of pairs)", "pairs", "batches",
                          "same verdicts"], rows)
        + f"\n\n- slowest concurrent configuration: **{100 * worst:.0f}%** of the batch "
          "call's completions/s (median of paired runs; target >= 80%)\n")


def add_arguments(parser) -> None:
    parser.add_argument("--corpus", default=str(DEFAULT_DATA_DIR),
                        help="data directory holding rgym_outputs.jsonl (or that file)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=5.0, help="per-sample deadline (s)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None,
                        help="Markdown file whose 'concurrency' section to (re)write")


def main(args) -> int:
    from .corpora import find_corpus
    from .throughput import build_batches

    found = find_corpus(args.corpus)
    if "rgym" not in found:
        raise SystemExit(f"no rgym data under {args.corpus}")
    rows = build_batches(found["rgym"], args.seed, n_batches=1)[0]
    results = measure(rows, workers=args.workers, timeout_s=args.timeout, repeats=args.repeats)
    body = make_report(results, len(rows), args)
    print(body)
    if args.out:
        write_section(args.out, "concurrency", body, title="Benchmarks")
    return 0
