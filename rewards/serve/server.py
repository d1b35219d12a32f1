"""The reward server: the standard library's threading HTTP server over one reward.

Why the standard library: a request's cost is the check (milliseconds of
SymPy in a worker process), not the HTTP; one thread per connection costs
about as much as an event loop here (``python -m benchmarks serve`` measures
the server against the in-process reward on the same batch), and nothing has
to be installed. Concurrency comes from the reward itself: every handler
thread calls :meth:`~rewards.AntiderivativeReward.score`, whose batcher checks
the requests that arrive together as one batch over one worker pool.

Limits: a body over ``max_body_bytes`` gets 413 (read and dropped up to four
times the limit so the client sees the answer, else the connection is closed
unread), a body without ``Content-Length`` 411, a malformed one 400 with a
message; an idle or trickling connection is closed after
``socket_timeout_s``. A bug of ours answers 500 and is logged; none of these
stop the server.

SIGTERM (or SIGINT) drains: new requests get 503, requests in flight finish
(up to ``drain_timeout_s``), idle connections are closed, the checker workers
are stopped, and the process exits 0 with no worker left behind.
"""
from __future__ import annotations

import contextlib
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..integrations.common import sample_scores
from ..integrations.openrlhf import response_body, score_queries
from ..reward import AntiderivativeReward
from .config import ServeConfig
from .protocol import BadRequest, parse_get_reward, parse_json, parse_score

logger = logging.getLogger("rewards.serve")

ROUTES = ("/get_reward", "/score")
HEALTH = "/health"
_READ_CHUNK = 1 << 16


class RewardApp:
    """Routes, request accounting and draining; the HTTP plumbing is below."""

    def __init__(self, reward: AntiderivativeReward, config: ServeConfig) -> None:
        self.reward = reward
        self.config = config
        self.draining = False
        self.served = 0
        self.errors = 0
        self._inflight = 0
        self._cond = threading.Condition()
        self._connections: set[socket.socket] = set()

    # -- accounting -------------------------------------------------------
    @contextlib.contextmanager
    def request(self) -> Iterator[bool]:
        """Admit a request unless draining; drain waits for admitted ones."""
        with self._cond:
            admitted = not self.draining
            if admitted:
                self._inflight += 1
        try:
            yield admitted
        finally:
            if admitted:
                with self._cond:
                    self._inflight -= 1
                    self.served += 1
                    self._cond.notify_all()

    def connection_opened(self, conn: socket.socket) -> None:
        with self._cond:
            self._connections.add(conn)

    def connection_closed(self, conn: socket.socket) -> None:
        with self._cond:
            self._connections.discard(conn)

    def wait_idle(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._inflight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def close_connections(self) -> None:
        with self._cond:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    # -- routes -----------------------------------------------------------
    def handle(self, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """(status, JSON body) for a POST; never raises."""
        try:
            data = parse_json(body)
            if path == "/get_reward":
                req = parse_get_reward(data, max_items=self.config.max_items)
                scores = score_queries(self.reward, req.queries, req.prompts, req.labels)
                return 200, response_body(scores,
                                          extra_logs=self.config.extra_logs != "omit")
            req = parse_score(data, max_items=self.config.max_items)
            outcomes = self.reward.score(req.completions, req.integrands, req.variables)
            scores = sample_scores(outcomes, self.reward.config.null_reward, req.integrands)
            return 200, {"results": [s.to_dict() for s in scores]}
        except BadRequest as exc:
            return exc.status, {"error": exc.message}
        except Exception as exc:  # noqa: BLE001 - our bug: answer it, keep serving
            logger.exception("internal error on %s", path)
            with self._cond:
                self.errors += 1
            return 500, {"error": f"internal error: {type(exc).__name__}: {exc}"}

    def health(self) -> tuple[int, dict[str, Any]]:
        with self._cond:
            state = {"status": "draining" if self.draining else "ok",
                     "inflight": self._inflight, "served": self.served,
                     "internal_errors": self.errors}
        state.update(self.reward.runtime_stats())
        return (503 if self.draining else 200), state


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: OpenRLHF's aiohttp session reuses connections
    server_version = "integral-rewards"
    sys_version = ""
    server: _Server

    def setup(self) -> None:
        self.timeout = self.server.app.config.socket_timeout_s
        super().setup()
        self.server.app.connection_opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.app.connection_closed(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        logger.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, payload: dict[str, Any], *, close: bool = False) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - stdlib's name
        if self.path.split("?", 1)[0] == HEALTH:
            self._send(*self.server.app.health())
        else:
            self._send(404, {"error": f"no route GET {self.path}; GET {HEALTH}, "
                                      f"POST {' or '.join(ROUTES)}"})

    def do_POST(self) -> None:  # noqa: N802 - stdlib's name
        app = self.server.app
        path = self.path.split("?", 1)[0]
        with app.request() as admitted:
            if not admitted:
                self._send(503, {"error": "server is shutting down"}, close=True)
                return
            if path not in ROUTES:
                self._send(404, {"error": f"no route POST {path}; POST {' or '.join(ROUTES)}"},
                           close=True)
                return
            body = self._read_body(app.config.max_body_bytes)
            if body is not None:
                self._send(*app.handle(path, body))

    def _read_body(self, limit: int) -> bytes | None:
        """The body, or None once an error was sent."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._send(411, {"error": "send a Content-Length (chunked bodies are not read)"},
                       close=True)
            return None
        try:
            length = int(self.headers.get("Content-Length", ""))
            if length < 0:
                raise ValueError
        except ValueError:
            self._send(411, {"error": "a POST needs a valid Content-Length"}, close=True)
            return None
        if length > limit:
            message = {"error": f"body of {length} bytes is over the limit of {limit}"}
            if length <= 4 * limit and self._discard(length):
                self._send(413, message)
            else:
                self._send(413, message, close=True)
            return None
        body = self.rfile.read(length)
        if len(body) < length:  # the client went away mid-body
            self.close_connection = True
            return None
        return body

    def _discard(self, length: int) -> bool:
        while length > 0:
            chunk = self.rfile.read(min(length, _READ_CHUNK))
            if not chunk:
                return False
            length -= len(chunk)
        return True


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # draining waits for requests, not for idle keep-alive threads
    allow_reuse_address = True
    request_queue_size = 256
    app: RewardApp


class RewardServer:
    """An HTTP server bound to ``config.host:config.port`` (port 0: any free
    one; see :attr:`address`), serving ``reward`` until :meth:`drain`."""

    def __init__(self, reward: AntiderivativeReward, config: ServeConfig | None = None) -> None:
        self.config = config or ServeConfig()
        self.app = RewardApp(reward, self.config)
        self._httpd = _Server((self.config.host, self.config.port), _Handler)
        self._httpd.app = self.app
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> RewardServer:
        """Serve on a background thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="rewards-serve",
                                        kwargs={"poll_interval": 0.2}, daemon=True)
        self._thread.start()
        return self

    def drain(self) -> bool:
        """Stop accepting, let requests in flight finish, close idle
        connections, stop the workers. False if requests were still running
        at ``drain_timeout_s`` (they are cut off)."""
        with self.app._cond:
            self.app.draining = True
        self._httpd.shutdown()
        finished = self.app.wait_idle(self.config.drain_timeout_s)
        self.app.close_connections()
        self._httpd.server_close()
        self.app.reward.close()
        return finished


def serve(reward: AntiderivativeReward, config: ServeConfig, *, stream: Any = None) -> int:
    """Run until SIGTERM or SIGINT, then drain; the process's main loop."""
    stream = sys.stdout if stream is None else stream
    server = RewardServer(reward, config)
    # Start the workers before announcing readiness: the first request
    # should not pay for their start-up and imports.
    reward.score([r"\boxed{x}"], ["1"])
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        print(f"serving on {server.url} (POST {', '.join(ROUTES)}; GET {HEALTH})",
              file=stream, flush=True)
        while not stop.wait(0.5):
            pass
        print("draining...", file=stream, flush=True)
        finished = server.drain()
        print(f"stopped after {server.app.served} requests"
              + ("" if finished else " (requests still running were cut off)"),
              file=stream, flush=True)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
