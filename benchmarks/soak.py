r"""Soak benchmark: many GRPO-like batches through the reward, watching for leaks.

    python -m benchmarks soak [--n 20000 --batch 512 --workers 2]

Completions are generated the way a GRPO run produces them: prompts drawn
from a bank of integrals, ``--group`` completions per prompt, most of them
repeats of a few answer forms (correct in several notations, typical
mistakes, format slips, no answer) with a random additive constant, and a
small share of hostile output (code, huge exponents, deep nesting, 200 kB
of prose, control characters). Everything is seeded: the same command
produces the same completions.

Every ``--window`` batches one table row is printed: throughput
(completions/s and actual checks/s, i.e. cache misses), cache hit rate,
parent RSS, worker RSS (max and sum over live workers), worker processes
started so far after the first ones (pool restarts and recycling), verdict counts and a digest of the window's verdicts.

At the end, a determinism check re-scores a sample of the run with fresh
reward objects (no cache) at 1 worker and at ``--workers`` workers and
compares verdicts and confidences with the main run.

This is a measurement script, not a test: it asserts nothing and exits 0
unless ``--strict`` is given (then 1 on a determinism mismatch that does not
involve a TIMEOUT).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

import psutil
import sympy as sp

from rewards.check.parse.sympy_text import parse_sympy_text

# (integrand in SymPy syntax, an antiderivative)
_X = sp.Symbol("x")
_BANK: list[tuple[str, sp.Expr]] = [
    ("x**2", _X**3 / 3),
    ("3*x**2 + 2*x + 1", _X**3 + _X**2 + _X),
    ("sin(x)", -sp.cos(_X)),
    ("cos(3*x)", sp.sin(3 * _X) / 3),
    ("exp(2*x)", sp.exp(2 * _X) / 2),
    ("1/x", sp.log(_X)),
    ("x*exp(x)", (_X - 1) * sp.exp(_X)),
    ("x*sin(x)", sp.sin(_X) - _X * sp.cos(_X)),
    ("1/(1 + x**2)", sp.atan(_X)),
    ("1/sqrt(1 - x**2)", sp.asin(_X)),
    ("log(x)", _X * sp.log(_X) - _X),
    ("sec(x)**2", sp.tan(_X)),
    ("x/(x**2 + 1)", sp.log(_X**2 + 1) / 2),
    ("sqrt(x)", 2 * _X ** sp.Rational(3, 2) / 3),
    ("exp(x)*cos(x)", sp.exp(_X) * (sp.sin(_X) + sp.cos(_X)) / 2),
    ("sin(x)*cos(x)", sp.sin(_X) ** 2 / 2),
    ("1/(x**2 - 1)", sp.log(_X - 1) / 2 - sp.log(_X + 1) / 2),
    ("x**3*exp(x**2)", (_X**2 - 1) * sp.exp(_X**2) / 2),
    ("tan(x)", -sp.log(sp.cos(_X))),
    ("cosh(x)", sp.sinh(_X)),
    ("x*log(x)", _X**2 * sp.log(_X) / 2 - _X**2 / 4),
    ("exp(-x)*x**2", -(_X**2 + 2 * _X + 2) * sp.exp(-_X)),
    ("1/(x*log(x))", sp.log(sp.log(_X))),
    ("sin(x)**2", _X / 2 - sp.sin(2 * _X) / 4),
    ("x/sqrt(x**2 + 4)", sp.sqrt(_X**2 + 4)),
    ("atan(x)", _X * sp.atan(_X) - sp.log(_X**2 + 1) / 2),
    ("2*x*cos(x**2)", sp.sin(_X**2)),
    ("(x + 1)**5", (_X + 1) ** 6 / 6),
    ("exp(x)/(1 + exp(x))", sp.log(1 + sp.exp(_X))),
    ("1/(x**2 + 4*x + 5)", sp.atan(_X + 2)),
]

_HOSTILE = [
    r"\boxed{__import__('os').system('true')}",
    "<answer>x.__class__.__mro__</answer>",
    r"\boxed{x^{10^{10}}}",
    r"\boxed{(10^{10})!}",
    r"\boxed{2^{2^{2^{2^{2^{2}}}}}}",
    r"\boxed{" + "{" * 5000 + "x" + "}" * 5000 + "}",
    "<answer>" + "(" * 3000 + "x" + ")" * 3000 + "</answer>",
    "a" * 200_500 + r"\boxed{x}",
    r"\boxed{x} " * 2000,
    "<answer>x**2/2\x00\x1b[2J</answer>",
    r"\boxed{\int x\,dx}",
    r"\boxed{\frac{x^2}{2} + \infty}",
    r"\boxed{\sum_{n=1}^{10^{10}} x^n}",
    r"\input{/etc/passwd} \boxed{\def\x{1}\x}",
]

_PROSE = [
    "Integrating term by term, we obtain ",
    "Let u = x. Then the integral becomes ",
    "We use integration by parts.\n\nTherefore the answer is ",
    "",
]


@dataclass
class _Problem:
    integrand: str
    forms: list[tuple[str, float]]  # (answer template with {c}, weight)


def _forms(integrand: str, F: sp.Expr) -> list[tuple[str, float]]:
    f = parse_sympy_text(integrand)
    latex_F = sp.latex(F)
    return [
        (r"$\boxed{" + latex_F + " + {c}}$", 6.0),                 # correct, LaTeX
        (r"\boxed{" + sp.latex(sp.expand(F)) + " + {c}}", 2.0),     # correct, expanded
        ("<answer>" + str(F) + " + {c}</answer>", 2.0),              # correct, SymPy syntax
        (r"\boxed{" + sp.latex(2 * F) + " + {c}}", 2.0),            # wrong factor
        (r"\boxed{" + sp.latex(F + _X) + " + {c}}", 1.0),           # wrong extra term
        (r"\boxed{" + sp.latex(sp.diff(f, _X)) + " + {c}}", 1.0),   # differentiated instead
        (r"\boxed{" + sp.latex(f) + " + {c}}", 1.0),                # the integrand itself
        (r"\boxed{" + latex_F + " + {c}", 0.5),                     # unbalanced box
        ("So the answer is " + latex_F + " + {c}.", 1.0),            # no box
    ]


def _bank() -> list[_Problem]:
    return [_Problem(integrand, _forms(integrand, F)) for integrand, F in _BANK]


def generate(n: int, group: int, seed: int, hostile_share: float = 0.02):
    """Yield (completion, integrand) pairs, ``group`` per prompt."""
    rng = random.Random(seed)
    bank = _bank()
    produced = 0
    while produced < n:
        problem = rng.choice(bank)
        templates, weights = zip(*problem.forms, strict=True)
        # A GRPO group repeats itself: a few distinct answers per prompt.
        picks = rng.choices(range(len(templates)), weights=weights, k=rng.randint(2, 6))
        # Additive constants make answers distinct (real checks, not cache hits)
        # without changing their verdicts.
        constants = [rng.choice(["C", str(rng.randint(0, 999))]) for _ in picks]
        for _ in range(group):
            if produced >= n:
                return
            if rng.random() < hostile_share:
                yield rng.choice(_HOSTILE), problem.integrand
            else:
                k = rng.randrange(len(picks))
                answer = templates[picks[k]].replace("{c}", constants[k])
                yield rng.choice(_PROSE) + answer, problem.integrand
            produced += 1


def _rss_mb(proc: psutil.Process) -> float:
    try:
        return proc.memory_info().rss / 2**20
    except psutil.Error:
        return float("nan")


def _workers() -> list[psutil.Process]:
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(p.cmdline()) and \
                    p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.Error:
            pass
    return out


def _key(o) -> tuple[str, str]:
    return (str(o.verdict), o.result.confidence.value if o.result is not None else "-")


def _digest(keys) -> str:
    h = hashlib.sha1()
    for verdict, confidence in keys:
        h.update(f"{verdict}|{confidence}\n".encode())
    return h.hexdigest()[:10]


def main(argv: list[str] | None = None) -> int:
    from rewards import AntiderivativeReward

    ap = argparse.ArgumentParser(prog="python -m benchmarks soak", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000, help="completions in all")
    ap.add_argument("--batch", type=int, default=512, help="completions per reward call")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--group", type=int, default=8, help="completions per prompt (GRPO group)")
    ap.add_argument("--window", type=int, default=4, help="batches per table row")
    ap.add_argument("--timeout", type=float, default=5.0, help="per-check deadline (s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hostile-share", type=float, default=0.02)
    ap.add_argument("--cache-size", type=int, default=20_000)
    ap.add_argument("--max-tasks", type=int, default=5_000,
                    help="recycle the worker pool after this many checked samples")
    ap.add_argument("--max-worker-rss-mb", type=float, default=1024.0,
                    help="recycle the worker pool when a worker grows past this")
    ap.add_argument("--determinism-sample", type=int, default=512,
                    help="completions re-scored for the determinism check (0: skip)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 on a determinism mismatch not involving a TIMEOUT")
    args = ap.parse_args(argv)

    def make(workers: int, cache_size: int) -> AntiderivativeReward:
        return AntiderivativeReward(workers=workers, timeout_s=args.timeout,
                                    cache_size=cache_size,
                                    max_tasks_per_worker_pool=args.max_tasks,
                                    max_worker_rss_mb=args.max_worker_rss_mb)

    data = list(generate(args.n, args.group, args.seed, args.hostile_share))
    batches = [data[i:i + args.batch] for i in range(0, len(data), args.batch)]
    me = psutil.Process()
    print(f"soak: {len(data)} completions, {len(batches)} batches of {args.batch}, "
          f"{args.workers} workers, timeout {args.timeout}s, cache {args.cache_size}, "
          f"recycle after {args.max_tasks} samples or {args.max_worker_rss_mb:.0f} MB/worker, "
          f"{len({c for c, _ in data})} distinct completions", flush=True)
    header = (f"{'batches':>9} {'compl/s':>8} {'checks/s':>8} {'hit%':>5} {'parentMB':>8} "
              f"{'wkrMaxMB':>8} {'wkrSumMB':>8} {'newWkrs':>8} {'CORR':>5} {'WRNG':>5} "
              f"{'UNPR':>5} {'TOUT':>5} {'CERR':>5}  digest")
    print(header)
    # Only (verdict, confidence) per completion is kept: holding the outcomes
    # themselves would grow this script's RSS, not the reward's.
    rows, all_keys = [], []
    seen_pids: set[int] = set()
    spawned = 0  # worker processes started after the first ones (restarts, recycles)
    reward = make(args.workers, args.cache_size)
    started = time.perf_counter()
    try:
        for w0 in range(0, len(batches), args.window):
            window = batches[w0:w0 + args.window]
            t0 = time.perf_counter()
            outcomes = []
            for batch in window:
                outcomes += reward.score([c for c, _ in batch], [f for _, f in batch])
                pids = {p.pid for p in _workers()}
                if seen_pids:
                    spawned += len(pids - seen_pids)
                seen_pids |= pids
            elapsed = time.perf_counter() - t0
            all_keys += [_key(o) for o in outcomes]
            counts = Counter(o.verdict for o in outcomes)
            checked = [o for o in outcomes if o.extracted is not None]
            misses = sum(1 for o in checked if not o.cached)
            workers = _workers()
            rss = [_rss_mb(p) for p in workers]
            row = {
                "batches": f"{w0 + 1}-{w0 + len(window)}",
                "completions_per_s": len(outcomes) / elapsed,
                "checks_per_s": misses / elapsed,
                "cache_hit_rate": 1 - misses / max(1, len(checked)),
                "parent_rss_mb": _rss_mb(me),
                "worker_rss_max_mb": max(rss) if rss else 0.0,
                "worker_rss_sum_mb": sum(rss),
                "workers_spawned": spawned,
                "verdicts": dict(counts),
                "digest": _digest([_key(o) for o in outcomes]),
            }
            rows.append(row)
            print(f"{row['batches']:>9} {row['completions_per_s']:8.1f} "
                  f"{row['checks_per_s']:8.1f} {100 * row['cache_hit_rate']:5.1f} "
                  f"{row['parent_rss_mb']:8.1f} {row['worker_rss_max_mb']:8.1f} "
                  f"{row['worker_rss_sum_mb']:8.1f} {spawned:8d} "
                  f"{counts.get('CORRECT', 0):5d} {counts.get('WRONG', 0):5d} "
                  f"{counts.get('UNPARSEABLE', 0):5d} {counts.get('TIMEOUT', 0):5d} "
                  f"{counts.get('CHECKER_ERROR', 0):5d}  {row['digest']}", flush=True)
        total = time.perf_counter() - started
        stats = reward.runtime_stats()
    finally:
        reward.close()

    summary = {
        "completions": len(all_keys), "seconds": total,
        "completions_per_s": len(all_keys) / total,
        "verdicts": dict(Counter(k[0] for k in all_keys)),
        "run_digest": _digest(all_keys),
        "pool": {key: stats[key] for key in ("kills", "crashes", "watchdog_timeouts", "tasks")},
        "workers_spawned_after_start": spawned,
    }
    if len(rows) > 2:
        mid = rows[1:]  # the first window pays for worker start-up
        thr = [r["completions_per_s"] for r in mid]
        summary["throughput_min_max"] = [min(thr), max(thr)]
        summary["parent_rss_first_last_mb"] = [mid[0]["parent_rss_mb"], rows[-1]["parent_rss_mb"]]
        summary["worker_rss_max_mb"] = max(r["worker_rss_max_mb"] for r in rows)
    print(f"total: {len(all_keys)} completions in {total:.1f}s "
          f"({summary['completions_per_s']:.1f}/s); verdicts {summary['verdicts']}; "
          f"pool {summary['pool']}; run digest {summary['run_digest']}")

    mismatches = []
    if args.determinism_sample:
        rng = random.Random(args.seed + 1)
        indices = sorted(rng.sample(range(len(data)), min(args.determinism_sample, len(data))))
        sample = [data[i] for i in indices]
        reference = [all_keys[i] for i in indices]
        for workers in sorted({1, args.workers}):
            again = make(workers, 0)
            try:
                t0 = time.perf_counter()
                outcomes = again.score([c for c, _ in sample], [f for _, f in sample])
                elapsed = time.perf_counter() - t0
            finally:
                again.close()
            diff = [(indices[k], reference[k], _key(o)) for k, o in enumerate(outcomes)
                    if _key(o) != reference[k]]
            mismatches += [(workers, *d) for d in diff]
            print(f"determinism: {len(sample)} completions re-scored with {workers} worker(s), "
                  f"no cache, in {elapsed:.1f}s: {len(diff)} differ from the main run")
            for index, ref, got in diff[:10]:
                print(f"  #{index}: run {ref} vs {got}: {data[index][0][:100]!r}")
        summary["determinism_mismatches"] = len(mismatches)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"args": vars(args), "rows": rows, "summary": summary,
                       "mismatches": [list(map(str, m)) for m in mismatches]}, handle, indent=1)
    hard = [m for m in mismatches if "TIMEOUT" not in (m[2][0], m[3][0])]
    return 1 if args.strict and hard else 0


if __name__ == "__main__":
    sys.exit(main())
