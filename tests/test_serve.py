"""The reward server: routes, bad requests, batching, draining, SIGTERM.

In-process servers on a free loopback port for the request-level tests; a
real ``python -m rewards serve`` process for SIGTERM and orphaned workers.
Behaviour only: the clocks here are hang guards.
"""
from __future__ import annotations

import http.client
import json
import logging
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from rewards import AntiderivativeReward, prompts
from rewards.serve.server import RewardServer
from rewards.serve.settings import TOKEN_ENV, ServeConfig
from rewards.testing.faults import SLOW, faulty_reward
from tests.support import HANG_GUARD_S, eventually

ROOT = Path(__file__).resolve().parents[1]
RIGHT = r"We get \boxed{\frac{x^{3}}{3} + C}"


def request(address, method: str, path: str, body: bytes | dict | None = None,
            headers: dict | None = None, conn: http.client.HTTPConnection | None = None):
    """(status, decoded JSON) over a fresh connection, or over ``conn``."""
    own = conn is None
    conn = conn or http.client.HTTPConnection(*address, timeout=HANG_GUARD_S)
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    try:
        conn.request(method, path, body=data, headers=headers or {})
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        if own:
            conn.close()


def templated(response: str, integrand: str) -> tuple[str, str]:
    prompt = ("<|im_start|>system\n" + prompts.SYSTEM_PROMPT + "<|im_end|>\n<|im_start|>user\n"
              + prompts.USER_TEMPLATE.format(integrand=integrand, symbol="x")
              + "<|im_end|>\n<|im_start|>assistant\n")
    return prompt + response + "<|im_end|>", prompt


@pytest.fixture(scope="module")
def server():
    reward = AntiderivativeReward(workers=2, timeout_s=10)
    srv = RewardServer(reward, ServeConfig(port=0)).start()
    try:
        yield srv
    finally:
        srv.drain()


@pytest.mark.slow
def test_health(server):
    status, body = request(server.address, "GET", "/health")
    assert status == 200 and body["status"] == "ok" and body["workers"] == 2


@pytest.mark.slow
def test_openrlhf_route(server):
    cases = [(RIGHT, "x**2"), ("I am not sure.", "x**2"), (r"\boxed{x^3}", "x**2")]
    queries, prompts_ = zip(*(templated(r, f) for r, f in cases), strict=True)
    status, body = request(server.address, "POST", "/get_reward",
                           {"query": list(queries), "prompts": list(prompts_),
                            "labels": [f for _, f in cases]})
    assert status == 200
    assert body["rewards"] == [1.0, -0.2, 0.0]
    assert body["scores"] == [1.0, 0.0, 0.0]
    # The template's own \boxed{} was cut with the prompt: no_answer, not empty.
    assert body["extra_logs"]["no_answer"] == [0.0, 1.0, 0.0]
    assert set(body["extra_logs"]) == {"acc", "no_answer", "timeout", "checker_error"}


@pytest.mark.slow
def test_plain_route(server):
    status, body = request(server.address, "POST", "/score", {
        "completions": [RIGHT, [{"role": "assistant", "content": r"\boxed{\sin t}"}], "x"],
        "integrands": ["x**2", "cos(t)", None], "variables": [None, "t", None]})
    assert status == 200
    results = body["results"]
    assert [r["verdict"] for r in results] == ["CORRECT", "CORRECT", "CHECKER_ERROR"]
    assert results[2]["reward"] is None and results[2]["score"] == 0.0
    assert results[2]["reason"] == "integrand_missing"


BAD_REQUESTS = [
    # (what, path, raw body or dict, expected status, words in the message)
    ("truncated JSON", "/get_reward", b'{"query": ["a"], "labels": ["x"', 400, "JSON"),
    ("not an object", "/score", b"[1, 2]", 400, "object"),
    ("not UTF-8", "/score", b'{"completions": ["\xff"]}', 400, "UTF-8"),
    ("query not a list", "/get_reward", {"query": "q", "labels": ["x"]}, 400, "query"),
    ("label of a wrong type", "/get_reward", {"query": ["q"], "labels": [[1]]}, 400, "labels"),
    ("no labels", "/get_reward", {"query": ["q"]}, 400, "labels"),
    ("completion of a wrong type", "/score", {"completions": [3], "integrands": ["x"]}, 400,
     "completions"),
    ("lengths differ", "/get_reward", {"query": ["a", "b"], "prompts": ["a"], "labels": ["x"]},
     400, "lengths"),
    ("deep nesting", "/score", b"[" * 100_000 + b"]" * 100_000, 400, ""),
    ("too many items", "/score", {"completions": ["a"] * 5000, "integrands": ["x"] * 5000},
     413, "at most"),
    ("10 MB body", "/score", b"x" * (10 * 2**20), 413, "limit"),
]


@pytest.mark.slow
@pytest.mark.parametrize("what,path,body,status,words", BAD_REQUESTS,
                         ids=[b[0] for b in BAD_REQUESTS])
def test_bad_request_gets_a_status_and_the_server_keeps_serving(server, what, path, body,
                                                                 status, words):
    got, answer = request(server.address, "POST", path, body)
    assert got == status, answer
    assert words in answer["error"]
    ok, good = request(server.address, "POST", "/score",
                       {"completions": [RIGHT], "integrands": ["x**2"]})
    assert ok == 200 and good["results"][0]["verdict"] == "CORRECT"


@pytest.mark.slow
def test_protocol_errors_and_a_huge_completion(server):
    conn = http.client.HTTPConnection(*server.address, timeout=HANG_GUARD_S)
    conn.putrequest("POST", "/score")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    assert conn.getresponse().status == 411
    conn.close()
    assert request(server.address, "POST", "/nope", {})[0] == 404
    assert request(server.address, "GET", "/nope")[0] == 404
    # A 100k-character completion is model output like any other: a verdict.
    huge = "thinking " * 12_000 + r"\boxed{x^3/3}"
    status, body = request(server.address, "POST", "/score",
                           {"completions": [huge, RIGHT], "integrands": ["x**2", "x**2"]})
    assert status == 200 and len(huge) > 100_000
    assert all(r["verdict"] in ("CORRECT", "UNPARSEABLE") for r in body["results"])
    assert body["results"][1]["verdict"] == "CORRECT"


@pytest.mark.slow
def test_keep_alive_connection_serves_many_requests(server):
    conn = http.client.HTTPConnection(*server.address, timeout=HANG_GUARD_S)
    try:
        for _ in range(3):
            status, body = request(server.address, "POST", "/score",
                                   {"completions": [RIGHT], "integrands": ["x**2"]}, conn=conn)
            assert status == 200
        # A 413 that was read and dropped keeps the connection usable too.
        assert request(server.address, "POST", "/score", b"x" * (9 * 2**20), conn=conn)[0] == 413
        assert request(server.address, "POST", "/score",
                       {"completions": [RIGHT], "integrands": ["x**2"]}, conn=conn)[0] == 200
    finally:
        conn.close()


@pytest.mark.slow
def test_concurrent_requests_are_checked_together(server):
    batcher = server.app.reward._batcher
    gate = threading.Event()
    real = batcher._run_batch
    sizes: list[int] = []

    def gated(completions, integrands, symbols):
        sizes.append(len(completions))
        if len(sizes) == 1:
            gate.wait(HANG_GUARD_S)
        return real(completions, integrands, symbols)

    batcher._run_batch = gated
    results: dict[int, tuple] = {}
    answers = [rf"\boxed{{x^{k + 1}/{k + 1}}}" for k in range(6)]
    integrands = [f"x**{k}" for k in range(6)]

    def post(k: int) -> None:
        results[k] = request(server.address, "POST", "/get_reward",
                             {"query": [answers[k]], "labels": [integrands[k]]})

    try:
        threads = [threading.Thread(target=post, args=(0,))]
        threads[0].start()
        assert eventually(lambda: sizes)
        threads += [threading.Thread(target=post, args=(k,)) for k in range(1, 6)]
        for thread in threads[1:]:
            thread.start()
        assert eventually(lambda: batcher.queued == 5)
        gate.set()
        for thread in threads:
            thread.join(HANG_GUARD_S)
    finally:
        batcher._run_batch = real
    assert sizes == [1, 5]
    assert all(results[k] == (200, {"rewards": [1.0], "scores": [1.0], "extra_logs": {
        "acc": [1.0], "no_answer": [0.0], "timeout": [0.0], "checker_error": [0.0]}})
        for k in range(6))


def _workers_of(pid: int) -> list[psutil.Process]:
    return [p for p in psutil.Process(pid).children(recursive=True)
            if "resource_tracker" not in " ".join(p.cmdline())]


def _gone(procs: list[psutil.Process]) -> bool:
    return all(not p.is_running() or p.status() == psutil.STATUS_ZOMBIE for p in procs)


@pytest.mark.slow
def test_drain_finishes_requests_in_flight_then_stops_the_workers():
    before = {p.pid for p in _workers_of(os.getpid())}  # other servers' pools
    reward = faulty_reward(workers=2, timeout_s=10)
    srv = RewardServer(reward, ServeConfig(port=0)).start()
    slow = rf"\boxed{{{SLOW}2:x^3/3}}"
    result: dict[str, tuple] = {}
    thread = threading.Thread(target=lambda: result.setdefault("slow", request(
        srv.address, "POST", "/score", {"completions": [slow], "integrands": ["x**2"]})))
    thread.start()
    assert eventually(lambda: srv.app.health()[1]["inflight"] == 1)
    assert eventually(lambda: [p for p in _workers_of(os.getpid()) if p.pid not in before])
    workers = [p for p in _workers_of(os.getpid()) if p.pid not in before]
    assert srv.drain()
    thread.join(HANG_GUARD_S)
    assert result["slow"][0] == 200 and result["slow"][1]["results"][0]["verdict"] == "CORRECT"
    with pytest.raises(OSError):
        request(srv.address, "GET", "/health")
    assert eventually(lambda: _gone(workers))


@pytest.mark.slow
def test_sigterm_drains_and_leaves_no_worker(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "rewards", "serve", "--port", "0",
                             "--workers", "2"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving on http://127.0.0.1:"), (line, proc.stderr.read())
        port = int(line.split("http://127.0.0.1:", 1)[1].split()[0])
        address = ("127.0.0.1", port)
        status, body = request(address, "POST", "/score",
                               {"completions": [RIGHT], "integrands": ["x**2"]})
        assert status == 200 and body["results"][0]["score"] == 1.0
        workers = _workers_of(proc.pid)
        assert len(workers) >= 2
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(HANG_GUARD_S) == 0
        assert "stopped after" in proc.stdout.read()
        assert eventually(lambda: _gone(workers)), [p.pid for p in workers]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- faults of a real run: dropped, slow and excess clients, tokens, SIGTERM -------
def _raw_post(address, body: dict, *, headers: str = "") -> bytes:
    data = json.dumps(body).encode()
    return (f"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"{headers}Content-Length: {len(data)}\r\n\r\n").encode() + data


def _served(srv) -> int:
    return srv.app.health()[1]["served"]


@pytest.mark.slow
def test_a_client_that_goes_away_is_one_log_line(server, caplog, capfd):
    # Each client sends its request and resets the connection before the
    # answer (a trainer past its own timeout): the server logs a line for
    # it, no traceback, and keeps serving.
    caplog.set_level(logging.WARNING, logger="rewards")
    start = _served(server)
    for k in range(6):
        sock = socket.create_connection(server.address)
        sock.sendall(_raw_post(server.address, {"query": [rf"\boxed{{x^{k + 2}}}"],
                                                "labels": [f"{k + 2}*x**{k + 1}"]}))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    assert eventually(lambda: _served(server) >= start + 6)
    assert request(server.address, "POST", "/score",
                   {"completions": [RIGHT], "integrands": ["x**2"]})[0] == 200
    gone = [r for r in caplog.records if r.name == "rewards.serve"]
    assert len(gone) <= 6 and all("went away" in r.getMessage() for r in gone)
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in gone)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.slow
def test_a_long_label_is_cut_short_in_the_log(server, caplog):
    caplog.set_level(logging.WARNING, logger="rewards")
    label = "x**(" + "1+" * 20_000  # 40 KB, and unparseable: CHECKER_ERROR, logged
    status, body = request(server.address, "POST", "/get_reward",
                           {"query": [RIGHT], "labels": [label]})
    assert status == 200 and body["extra_logs"]["checker_error"] == [1.0]
    lines = [r.getMessage() for r in caplog.records if "CHECKER_ERROR" in r.getMessage()]
    assert lines and all(len(line) < 500 and f"{len(repr(label))} chars" in line for line in lines)


@pytest.mark.slow
def test_a_trickling_body_is_cut_off_at_the_request_deadline():
    # A byte every 0.2 s never trips a 30 s per-read timeout; the request
    # deadline (1 s from the first byte) cuts it off with 408 long before
    # its 100 bytes are in.
    reward = AntiderivativeReward(workers=1)
    srv = RewardServer(reward, ServeConfig(port=0, request_timeout_s=1.0,
                                           socket_timeout_s=30.0)).start()
    try:
        sock = socket.create_connection(srv.address, timeout=HANG_GUARD_S)
        sock.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
        sock.settimeout(0.2)
        sent, answer = 0, b""
        while sent < 100 and not answer:
            try:
                sock.sendall(b" ")
                sent += 1
                answer = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
        sock.close()
        assert answer.startswith(b"HTTP/1.1 408") and sent < 100
        assert request(srv.address, "POST", "/score",
                       {"completions": [RIGHT], "integrands": ["x**2"]})[0] == 200
    finally:
        srv.drain()


@pytest.mark.slow
def test_connections_over_the_cap_get_503_at_once():
    reward = AntiderivativeReward(workers=1)
    srv = RewardServer(reward, ServeConfig(port=0, max_connections=2)).start()
    idle = []
    try:
        idle = [socket.create_connection(srv.address) for _ in range(2)]
        assert eventually(lambda: srv.app.health()[1]["connections"] == 2)
        status, body = request(srv.address, "POST", "/score",
                               {"completions": [RIGHT], "integrands": ["x**2"]})
        assert status == 503 and "max_connections" in body["error"]
        for sock in idle:
            sock.close()
        assert eventually(lambda: srv.app.health()[1]["connections"] == 0)
        assert request(srv.address, "POST", "/score",
                       {"completions": [RIGHT], "integrands": ["x**2"]})[0] == 200
        assert srv.app.health()[1]["rejected_connections"] == 1
    finally:
        for sock in idle:
            sock.close()
        srv.drain()


@pytest.mark.slow
def test_a_token_is_required_when_set():
    reward = AntiderivativeReward(workers=1)
    config = ServeConfig(port=0, token="s3cret")
    assert "s3cret" not in repr(config)
    srv = RewardServer(reward, config).start()
    body = {"completions": [RIGHT], "integrands": ["x**2"]}
    try:
        conn = http.client.HTTPConnection(*srv.address, timeout=HANG_GUARD_S)
        conn.request("POST", "/score", body=json.dumps(body))
        response = conn.getresponse()
        assert response.status == 401 and response.getheader("WWW-Authenticate") == "Bearer"
        conn.close()
        for header in ("Bearer wrong", "Basic s3cret", "Bearer s3cret2", "s3cret"):
            assert request(srv.address, "POST", "/score", body,
                           headers={"Authorization": header})[0] == 401, header
        assert request(srv.address, "GET", "/health")[0] == 401
        assert request(srv.address, "POST", "/score", body,
                       headers={"Authorization": "Bearer s3cret"})[0] == 200
        assert request(srv.address, "GET", "/health",
                       headers={"Authorization": "bearer s3cret"})[0] == 200
    finally:
        srv.drain()


def test_the_token_comes_from_the_flag_else_the_environment():
    from rewards.cli import build_parser
    from rewards.cli.serve import serve_config

    args = build_parser().parse_args(["serve"])
    assert serve_config(args, {}).token is None
    assert serve_config(args, {TOKEN_ENV: "from-env"}).token == "from-env"
    args = build_parser().parse_args(["serve", "--token", "from-flag"])
    assert serve_config(args, {TOKEN_ENV: "from-env"}).token == "from-flag"


@pytest.mark.slow
def test_drain_answers_every_connection_waiting_in_the_backlog():
    # Never started: nothing accepts, so these connections sit in the kernel's
    # listen backlog with their requests sent, as when SIGTERM lands while
    # the accept loop is behind. Closing the listening socket would reset
    # them; the drain accepts and answers each one.
    reward = AntiderivativeReward(workers=1)
    srv = RewardServer(reward, ServeConfig(port=0, drain_grace_s=0.2))
    reward.score([RIGHT], ["x**2"])  # warm, so the answers do not wait for workers
    socks = []
    for k in range(5):
        sock = socket.create_connection(srv.address, timeout=HANG_GUARD_S)
        sock.sendall(_raw_post(srv.address, {"query": [rf"\boxed{{x^{k + 2}}}"],
                                             "labels": [f"{k + 2}*x**{k + 1}"]}))
        socks.append(sock)
    address = srv.address
    assert srv.drain()
    for sock in socks:
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 200 and json.loads(response.read())["rewards"] == [1.0]
        assert response.getheader("Connection") == "close"
        sock.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(address, timeout=HANG_GUARD_S)


@pytest.mark.slow
def test_drain_answers_a_keep_alive_connections_next_request_with_503():
    reward = faulty_reward(workers=2, timeout_s=10)
    srv = RewardServer(reward, ServeConfig(port=0, drain_grace_s=0.2)).start()
    body = {"completions": [RIGHT], "integrands": ["x**2"]}
    kept = http.client.HTTPConnection(*srv.address, timeout=HANG_GUARD_S)
    try:
        assert request(srv.address, "POST", "/score", body, conn=kept)[0] == 200
        slow = threading.Thread(target=request, args=(srv.address, "POST", "/score", {
            "completions": [rf"\boxed{{{SLOW}3:x^3/3}}"], "integrands": ["x**2"]}))
        slow.start()
        assert eventually(lambda: srv.app.health()[1]["inflight"] == 1)
        drained: dict[str, bool] = {}
        drainer = threading.Thread(target=lambda: drained.setdefault("ok", srv.drain()))
        drainer.start()
        assert eventually(lambda: srv.app.draining)
        kept.request("POST", "/score", body=json.dumps(body))
        response = kept.getresponse()
        assert response.status == 503 and response.getheader("Connection") == "close"
        drainer.join(HANG_GUARD_S)
        slow.join(HANG_GUARD_S)
        assert drained == {"ok": True}
    finally:
        kept.close()


@pytest.mark.slow
def test_sigterm_under_one_connection_per_request_clients_loses_nothing(tmp_path):
    # OpenRLHF >= 0.9.1's pattern: every request on a new connection, many in
    # flight. Each attempt ends answered or refused (the server had stopped
    # listening); none is reset after connecting.
    proc = subprocess.Popen([sys.executable, "-m", "rewards", "serve", "--port", "0",
                             "--workers", "1"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    outcomes: list[str] = []
    lock = threading.Lock()

    def client(k: int) -> None:
        n = 0
        while True:
            n += 1
            conn = http.client.HTTPConnection(*address, timeout=HANG_GUARD_S)
            try:
                conn.connect()
            except ConnectionRefusedError:
                with lock:
                    outcomes.append("refused")
                return
            try:
                body = {"query": [rf"\boxed{{{k} x^{n}}}"], "labels": [f"{k * n}*x**{n - 1}"]}
                conn.request("POST", "/get_reward", body=json.dumps(body))
                response = conn.getresponse()
                kind = str(response.status) if json.loads(response.read()).get(
                    "rewards") == [1.0] else f"{response.status} wrong"
            except (OSError, http.client.HTTPException) as exc:
                kind = f"reset {type(exc).__name__}"
            finally:
                conn.close()
            with lock:
                outcomes.append(kind)

    try:
        line = proc.stdout.readline()
        port = int(line.split("http://127.0.0.1:", 1)[1].split()[0])
        address = ("127.0.0.1", port)
        threads = [threading.Thread(target=client, args=(k,)) for k in range(2, 18)]
        for thread in threads:
            thread.start()
        assert eventually(lambda: len(outcomes) >= 32)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(HANG_GUARD_S) == 0
        for thread in threads:
            thread.join(HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert outcomes.count("refused") == 16
    assert set(outcomes) == {"200", "refused"}, sorted(set(outcomes))
