"""``python -m benchmarks serve-faults``: the reward server under the faults of a real run.

Each scenario starts a fresh ``python -m rewards serve`` (``--repo`` picks the
checkout it runs from, to compare with an older version) and counts what a
client or the operator sees:

* **sigterm**: ``--clients`` threads post one completion per request, each on
  a new connection (OpenRLHF >= 0.9.1's pattern), and the server gets SIGTERM
  mid-load. Every attempt that started before the server exited is classed:
  answered 200, answered 503, *reset* (connected, then closed without an
  answer: a request lost, whether it was accepted or still in the listen
  backlog), or *refused* (no connection: the server had stopped listening).
* **drops**: ``--drops`` clients send a request and go away (RST) before the
  answer; the lines the server adds to its stderr.
* **slow-body**: a client sends headers and then one byte of the body every
  second; when the server cuts it off (seconds after the headers).
* **half-open**: ``--half-open`` connections that send nothing; the server's
  threads and the answer a normal request gets meanwhile.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from . import REPO_ROOT
from .table import markdown_table, write_section

SCENARIOS = ("sigterm", "drops", "slow-body", "half-open")


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def start_server(repo: Path, workers: int, stderr) -> tuple[subprocess.Popen, tuple[str, int]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rewards", "serve", "--port", "0", "--workers", str(workers)],
        cwd=repo, stdout=subprocess.PIPE, stderr=stderr, text=True,
        env={**os.environ, "PYTHONPATH": str(repo)})
    line = proc.stdout.readline()
    if "serving on http://" not in line:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    host, port = line.split("http://", 1)[1].split()[0].rsplit(":", 1)
    return proc, (host, int(port))


def _body(rng: random.Random) -> bytes:
    # A fresh answer per request: every request is a real check, no cache hit.
    a, n = rng.randint(2, 999), rng.randint(2, 9)
    return json.dumps({"query": [rf"so \boxed{{{a} x^{{{n}}}}}"],
                       "labels": [f"{a * n}*x**{n - 1}"]}).encode()


def _request_bytes(body: bytes, host: str) -> bytes:
    return (f"POST /get_reward HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def sigterm(repo: Path, workers: int, clients: int, warm_s: float) -> dict[str, Any]:
    proc, address = start_server(repo, workers, subprocess.DEVNULL)
    outcomes: Counter = Counter()
    lock = threading.Lock()
    sent_at: list[float] = []
    stop = threading.Event()

    def phase(started: float) -> str:
        # "at": in flight or queued when the signal came; "after": started later.
        if not sent_at:
            return "before"
        return "after" if started >= sent_at[0] else "at"

    def record(kind: str, started: float) -> None:
        with lock:
            if not (sent_at and started < sent_at[0] and time.monotonic() < sent_at[0]):
                outcomes[phase(started), kind] += 1
            else:
                outcomes["before", kind] += 1

    def client(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            started = time.monotonic()
            conn = http.client.HTTPConnection(*address, timeout=120)
            try:
                conn.connect()
            except OSError as exc:
                kind = "refused" if isinstance(exc, ConnectionRefusedError) else \
                    f"connect {type(exc).__name__}"
                record(kind, started)
                return  # the server stopped listening: done
            try:
                conn.request("POST", "/get_reward", body=_body(rng),
                             headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                kind = str(response.status)
            except (OSError, http.client.HTTPException):
                kind = "reset"
            finally:
                conn.close()
            record(kind, started)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(warm_s)
    with lock:
        sent_at.append(time.monotonic())
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=300)
    exited = time.monotonic() - sent_at[0]
    time.sleep(2.0)  # clients whose SYN was dropped retry once more, then are refused
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    by_phase: dict[str, dict[str, int]] = {}
    for (when, kind), count in outcomes.items():
        by_phase.setdefault(when, {})[kind] = count
    return {"exit_code": code, "exit_s": exited, **by_phase}


def drops(repo: Path, workers: int, n: int) -> dict[str, Any]:
    with tempfile.TemporaryFile("w+") as err:
        proc, address = start_server(repo, workers, err)
        try:
            rng = random.Random(0)
            time.sleep(0.5)
            err.flush()
            err.seek(0)
            lines_before = len(err.read().splitlines())
            for _ in range(n):
                sock = socket.create_connection(address)
                sock.sendall(_request_bytes(_body(rng), address[0]))
                # Gone before the answer, as a client past its own timeout.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
            _wait_served(address, n)
            time.sleep(1.0)
            err.seek(0)
            text = err.read()
        finally:
            proc.terminate()
            proc.wait(timeout=120)
    lines = text.splitlines()[lines_before:]
    return {"drops": n, "lines": len(lines), "sample": lines[:3]}


def _wait_served(address: tuple[str, int], n: int, limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(*address, timeout=10)
            conn.request("GET", "/health")
            state = json.loads(conn.getresponse().read())
            conn.close()
            if state.get("served", 0) >= n:
                return
        except (OSError, ValueError, http.client.HTTPException):
            pass
        time.sleep(0.2)


def slow_body(repo: Path, workers: int, window_s: float) -> dict[str, Any]:
    proc, address = start_server(repo, workers, subprocess.DEVNULL)
    try:
        sock = socket.create_connection(address)
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nContent-Length: 100000\r\n\r\n")
        started = time.monotonic()
        sock.settimeout(1.0)
        answer = b""
        cut = None
        while time.monotonic() - started < window_s:
            try:
                sock.sendall(b" ")
                data = sock.recv(4096)
                if not data:
                    cut = time.monotonic() - started
                    break
                answer += data
            except TimeoutError:
                continue
            except OSError:
                cut = time.monotonic() - started
                break
        sock.close()
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") if answer else None
    return {"window_s": window_s, "cut_s": cut, "status": status}


def half_open(repo: Path, workers: int, n: int) -> dict[str, Any]:
    import psutil

    proc, address = start_server(repo, workers, subprocess.DEVNULL)
    socks = []
    try:
        threads_before = psutil.Process(proc.pid).num_threads()
        for _ in range(n):
            socks.append(socket.create_connection(address))
        time.sleep(1.0)
        threads = psutil.Process(proc.pid).num_threads()
        started = time.monotonic()
        status: Any
        try:
            conn = http.client.HTTPConnection(*address, timeout=30)
            conn.request("POST", "/get_reward", body=_body(random.Random(1)),
                         headers={"Content-Type": "application/json"})
            status = conn.getresponse().status
            conn.close()
        except (OSError, http.client.HTTPException) as exc:
            status = type(exc).__name__
        latency = time.monotonic() - started
    finally:
        for sock in socks:
            sock.close()
        proc.terminate()
        proc.wait(timeout=120)
    return {"half_open": n, "threads_before": threads_before, "threads": threads,
            "status": status, "latency_s": latency}


def make_report(results: dict[str, Any], args) -> str:
    rows = []
    if "sigterm" in results:
        r = results["sigterm"]
        at, after = r.get("at", {}), r.get("after", {})
        rows.append(["sigterm", f"{args.clients} clients, one connection per request",
                     f"in flight or queued at SIGTERM: {at.get('200', 0)} answered 200, "
                     f"{at.get('503', 0)} answered 503, **{at.get('reset', 0)} reset**; "
                     f"started later: {after.get('200', 0)} answered 200, {after.get('503', 0)} "
                     f"503, **{after.get('reset', 0)} reset**, {after.get('refused', 0)} refused; "
                     f"before: {sum(r.get('before', {}).values())} requests; exit code "
                     f"{r['exit_code']} {r['exit_s']:.1f} s after SIGTERM"])
    if "drops" in results:
        r = results["drops"]
        rows.append(["drops", f"{r['drops']} clients gone before the answer",
                     f"**{r['lines']} stderr lines**"])
    if "slow-body" in results:
        r = results["slow-body"]
        cut = "not cut" if r["cut_s"] is None else f"cut after {r['cut_s']:.1f} s"
        rows.append(["slow-body", "1 byte/s of body after the headers",
                     f"**{cut}** (watched {r['window_s']:g} s); answer: {r['status'] or 'none'}"])
    if "half-open" in results:
        r = results["half-open"]
        rows.append(["half-open", f"{r['half_open']} connections sending nothing",
                     f"server threads {r['threads_before']} -> **{r['threads']}**; a normal "
                     f"request meanwhile: {r['status']} in {r['latency_s']:.2f} s"])
    where = "" if Path(args.repo).resolve() == REPO_ROOT else f" (server from `{args.repo}`)"
    return ("## Reward server faults\n\n"
            f"Command: `python -m benchmarks serve-faults --workers {args.workers} --clients "
            f"{args.clients} --drops {args.drops} --half-open {args.half_open} --slow-window "
            f"{args.slow_window:g}`{where}. Server defaults: 30 s request deadline, 512 "
            "connections at most.\n\n"
            + markdown_table(["scenario", "load", "what the clients / the operator saw"], rows)
            + "\n")


def add_arguments(parser) -> None:
    parser.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=64, help="sigterm: concurrent clients")
    parser.add_argument("--warm", type=float, default=5.0,
                        help="sigterm: seconds of load before the signal")
    parser.add_argument("--drops", type=int, default=400, help="drops: clients that go away")
    parser.add_argument("--half-open", type=int, default=400,
                        help="half-open: idle connections")
    parser.add_argument("--slow-window", type=float, default=75.0,
                        help="slow-body: seconds to watch for the cut-off")
    parser.add_argument("--repo", default=str(REPO_ROOT),
                        help="checkout the server runs from (default: this one)")
    parser.add_argument("--out", default=None,
                        help="Markdown file whose 'serve-faults' section to (re)write")


def main(args) -> int:
    repo = Path(args.repo)
    results: dict[str, Any] = {}
    for name in args.scenarios:
        _log(f"scenario {name}...")
        if name == "sigterm":
            results[name] = sigterm(repo, args.workers, args.clients, args.warm)
        elif name == "drops":
            results[name] = drops(repo, args.workers, args.drops)
        elif name == "slow-body":
            results[name] = slow_body(repo, args.workers, args.slow_window)
        else:
            results[name] = half_open(repo, args.workers, args.half_open)
        _log(f"  {results[name]}")
    body = make_report(results, args)
    print(body)
    if args.out:
        write_section(args.out, "serve-faults", body, title="Benchmarks")
    return 0
