"""``python -m benchmarks serve``: a load test of the reward server on loopback.

The work is the reasoning-gym batches of ``benchmarks throughput`` (64 prompts
x 8 real completions, three batches: prompts A, B, then A again with other
completions). The reference is the in-process reward scoring them as three
calls (what a TRL step does). Then, for each client configuration, a fresh
``python -m rewards serve`` process (same workers and deadline, cold cache)
gets the same completions from concurrent clients on keep-alive loopback
connections, through OpenRLHF's route (``POST /get_reward``): a few clients
with 64 completions per request (OpenRLHF <= 0.8 posts micro-batches), GRPO
groups of 8, or 100 clients with one completion each (OpenRLHF >= 0.9.1 posts
every sample on its own), until the work is done or ``--duration`` runs out.
Each server run is paired with an in-process run just before it.

Reported per configuration: requests/s and completions/s over the wall time,
p50/p99 request latency, requests lost or answered with an error (anything
but a 200 with one reward per completion), rewards that differ from the
in-process ones, and the summed RSS of the server's worker processes before
and after the load.
"""
from __future__ import annotations

import http.client
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from . import DEFAULT_DATA_DIR, REPO_ROOT
from .table import markdown_table, percentile, write_section
from .throughput import cpu_split

# (clients, completions per request): OpenRLHF <= 0.8 posts a micro-batch per
# request from a few callers; GRPO groups of 8; OpenRLHF >= 0.9.1 posts every
# rollout sample on its own, all in flight at once (aiohttp's pool: 100).
CONFIGS = ((4, 64), (16, 8), (100, 1))


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _label(row: dict[str, Any]) -> Any:
    symbol = row.get("symbol") or "x"
    return row["integrand"] if symbol == "x" else {"integrand": row["integrand"],
                                                    "variable": symbol}


def in_process(batches, workers: int, timeout_s: float) -> dict[str, Any]:
    from rewards import AntiderivativeReward

    with AntiderivativeReward(workers=workers, timeout_s=timeout_s) as reward:
        reward.score([r"\boxed{x^2/2}"] * 2, ["x", "x**2"])  # start and warm the pool
        rewards: list[float | None] = []
        started = time.perf_counter()
        for batch in batches:
            outcomes = reward.score([r["completion"] for r in batch],
                                    [r["integrand"] for r in batch],
                                    [r["symbol"] for r in batch])
            rewards.extend(reward.config.null_reward if o.reward is None else o.reward
                           for o in outcomes)
        wall = time.perf_counter() - started
    n = len(rewards)
    return {"completions": n, "wall_s": wall, "cps": n / wall, "rewards": rewards}


def _workers_rss_mb(pid: int) -> float:
    import psutil

    total = 0.0
    for p in psutil.Process(pid).children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(p.cmdline()):
                total += p.memory_info().rss / 2**20
        except psutil.Error:
            continue
    return total


def start_server(workers: int, timeout_s: float) -> tuple[subprocess.Popen, tuple[str, int]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rewards", "serve", "--port", "0", "--workers", str(workers),
         "--timeout", str(timeout_s)], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    line = proc.stdout.readline()
    if not line.startswith("serving on http://"):
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    host, port = line.split("http://", 1)[1].split()[0].rsplit(":", 1)
    return proc, (host, int(port))


def load(address: tuple[str, int], rows: list[dict[str, Any]], *, clients: int, per_request: int,
         duration_s: float) -> dict[str, Any]:
    work: queue.Queue = queue.Queue()
    for start in range(0, len(rows), per_request):
        work.put(list(range(start, min(start + per_request, len(rows)))))
    sent = queue.Queue()
    latencies: list[float] = []
    rewards: dict[int, float] = {}
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + duration_s

    def client() -> None:
        conn = http.client.HTTPConnection(*address, timeout=600)
        try:
            while time.monotonic() < deadline:
                try:
                    indices = work.get_nowait()
                except queue.Empty:
                    return
                body = json.dumps({"query": [rows[i]["completion"] for i in indices],
                                   "labels": [_label(rows[i]) for i in indices]}).encode()
                sent.put(1)
                t0 = time.perf_counter()
                try:
                    conn.request("POST", "/get_reward", body=body,
                                 headers={"Content-Type": "application/json"})
                    response = conn.getresponse()
                    payload = json.loads(response.read())
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    with lock:
                        errors.append(f"{type(exc).__name__}: {exc}")
                    conn.close()
                    conn = http.client.HTTPConnection(*address, timeout=600)
                    continue
                elapsed = time.perf_counter() - t0
                with lock:
                    if response.status != 200 or len(payload.get("rewards", [])) != len(indices):
                        errors.append(f"{response.status}: {str(payload)[:200]}")
                        continue
                    latencies.append(elapsed * 1000)
                    rewards.update(zip(indices, payload["rewards"], strict=True))
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {"wall_s": wall, "requests": len(latencies), "sent": sent.qsize(),
            "completions": len(rewards), "latencies_ms": latencies, "rewards": rewards,
            "errors": errors}


def run(args) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from .corpora import find_corpus
    from .throughput import build_batches

    found = find_corpus(args.corpus)
    if "rgym" not in found:
        raise SystemExit(f"no rgym data under {args.corpus}")
    batches = build_batches(found["rgym"], args.seed, n_batches=3)
    rows = [r for b in batches for r in b]
    results = []
    references = []
    for round_ in range(args.repeats):
        for clients, per_request in CONFIGS:
            # Each server run is paired with an in-process run just before it:
            # on a shared machine the load drifts, and the ratio of a pair is
            # what it affects least.
            ref = in_process(batches, args.workers, args.timeout)
            references.append(ref)
            _log(f"round {round_ + 1}: in-process {ref['cps']:.0f} completions/s")
            proc, address = start_server(args.workers, args.timeout)
            try:
                rss_before = _workers_rss_mb(proc.pid)
                server_cpu, client_cpu = cpu_split(proc.pid), cpu_split(os.getpid())[0]
                out = load(address, rows, clients=clients, per_request=per_request,
                           duration_s=args.duration)
                rss_after = _workers_rss_mb(proc.pid)
                server_after = cpu_split(proc.pid)
                out["cpu"] = (server_after[0] - server_cpu[0], server_after[1] - server_cpu[1],
                              cpu_split(os.getpid())[0] - client_cpu)
            finally:
                proc.terminate()
                proc.wait(120)
            differ = sum(1 for i, r in out["rewards"].items()
                         if abs(r - ref["rewards"][i]) > 1e-9)
            out.update(clients=clients, per_request=per_request, rss_before=rss_before,
                       rss_after=rss_after, differ=differ, round=round_ + 1,
                       lost=out["sent"] - out["requests"] - len(out["errors"]),
                       cps=out["completions"] / out["wall_s"],
                       rps=out["requests"] / out["wall_s"], ref_cps=ref["cps"])
            out["ratio"] = out["cps"] / ref["cps"]
            _log(f"  {clients} clients x {per_request}/request: {out['cps']:.0f} completions/s "
                 f"({100 * out['ratio']:.0f}% of its pair), {len(out['errors'])} errors")
            results.append(out)
    return references, results


def make_report(references: list[dict[str, Any]], results: list[dict[str, Any]], args) -> str:
    ref_cps = [r["cps"] for r in references]
    rows = [["in-process reward, 3 calls of 512", "–", f"{references[0]['completions']}",
             max(ref_cps), statistics.median(ref_cps), "100%", "–", "–", "–", "–", "–", "–",
             "–"]]
    worst = None
    for clients, per_request in CONFIGS:
        runs = [x for x in results if (x["clients"], x["per_request"]) == (clients, per_request)]
        if not runs:
            continue
        best = max(runs, key=lambda x: x["cps"])
        ratio = statistics.median(x["ratio"] for x in runs)
        worst = ratio if worst is None else min(worst, ratio)
        latencies = [ms for x in runs for ms in x["latencies_ms"]]
        rows.append([f"server, {clients} clients x {per_request} completion(s)/request",
                     best["rps"], f"{min(x['completions'] for x in runs)}/{len(best['rewards'])}"
                     if runs else "–", best["cps"], statistics.median(x["cps"] for x in runs),
                     f"{100 * ratio:.0f}%", percentile(latencies, 50), percentile(latencies, 99),
                     sum(len(x["errors"]) + x["lost"] for x in runs),
                     max(x["differ"] for x in runs), best["rss_before"], best["rss_after"],
                     " / ".join(f"{c:.1f}" for c in best["cpu"])])
    return (
        "## Reward server under load (loopback)\n\n"
        f"Command: `python -m benchmarks serve --workers {args.workers} --repeats "
        f"{args.repeats} --duration {args.duration:g}`\n\n"
        f"The three reasoning-gym batches of `benchmarks throughput` ({references[0]['completions']} "
        f"real completions), {args.workers} workers, {args.timeout:g} s deadline, cold cache. "
        "Reference: the in-process reward, three `score` calls. Server: a fresh `python -m "
        "rewards serve` per run, concurrent keep-alive clients in one process on the same "
        "machine posting OpenRLHF's body to `/get_reward` until the work is done (or "
        f"{args.duration:g} s). {args.repeats} rounds; every server run is paired with an "
        "in-process run just before it, and *vs in-process* is the median of the pairs' ratios "
        "(the machine is shared: 1-minute load average at the end "
        f"{os.getloadavg()[0]:.1f}). Latencies over all rounds; *errors/lost* counts every "
        "round; *rewards differ*: against the paired in-process run (a check near its deadline "
        "can end either way under load); RSS and CPU: the best run's server workers before and "
        "after the load, CPU seconds of the server process, its workers and the clients.\n\n"
        + markdown_table(["configuration", "requests/s", "completions done",
                          "completions/s (best)", "completions/s (median)", "vs in-process",
                          "p50 ms", "p99 ms", "errors/lost", "rewards differ",
                          "worker RSS MB before", "after", "CPU s server / workers / clients"],
                         rows)
        + f"\n\n- slowest server configuration: **{100 * (worst or 0):.0f}%** of the in-process "
          "completions/s (median of paired runs; target >= 80%)\n")


def add_arguments(parser) -> None:
    parser.add_argument("--corpus", default=str(DEFAULT_DATA_DIR),
                        help="data directory holding rgym_outputs.jsonl (or that file)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=5.0, help="per-sample deadline (s)")
    parser.add_argument("--duration", type=float, default=120.0,
                        help="seconds after which the clients stop sending")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None,
                        help="Markdown file whose 'serve' section to (re)write")


def main(args) -> int:
    references, results = run(args)
    body = make_report(references, results, args)
    print(body)
    if args.out:
        write_section(args.out, "serve", body, title="Benchmarks")
    return 0
