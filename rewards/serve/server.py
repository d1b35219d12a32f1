"""The reward server: the standard library's threading HTTP server over one reward.

Why the standard library: a request's cost is the check (milliseconds of
SymPy in a worker process), not the HTTP; one thread per connection costs
about as much as an event loop here (``python -m benchmarks serve`` measures
the server against the in-process reward on the same batch), and nothing has
to be installed. Concurrency comes from the reward itself: every handler
thread calls :meth:`~rewards.AntiderivativeReward.score`, whose batcher checks
the requests that arrive together as one batch over one worker pool.

Limits (:class:`~rewards.serve.settings.ServeConfig`): a body over
``max_body_bytes`` gets 413 (read and dropped up to four times the limit so
the client sees the answer, else the connection is closed unread), a body
without ``Content-Length`` 411, a malformed one 400 with a message; a request
not complete ``request_timeout_s`` after its first byte 408; a connection
waiting ``socket_timeout_s`` for its next request is closed; connections
beyond ``max_connections`` get 503 from the accepting thread; with a
``token``, a request without ``Authorization: Bearer <token>`` gets 401. A
client that goes away is one log line; a bug of ours answers 500 and is
logged; none of these stop the server.

SIGTERM (or SIGINT) drains, in this order (:meth:`RewardServer.drain`):

1. requests from now on carry ``Connection: close``; a further request on a
   keep-alive connection gets 503 (a connection's first request never does);
2. on Linux, a socket filter drops new SYNs on the listening socket, so no
   new connection completes while handshakes under way still do;
3. the accept loop stops and every connection waiting in the listen backlog
   is accepted (again after ``drain_grace_s``, for those handshakes) and
   served like any other;
4. the listening socket is closed: a client whose SYN was dropped gets
   "connection refused" on its retry, never a reset after connecting;
5. requests being read or checked finish (up to ``drain_timeout_s``), and
   the connections taken from the backlog get ``drain_grace_s`` to send
   their request;
6. connections still open (idle keep-alive, or silent) are closed, the
   checker workers are stopped, and the process exits 0 with no worker left.
"""
from __future__ import annotations

import contextlib
import hmac
import io
import ipaddress
import json
import logging
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..integrations.common import for_log, sample_scores
from ..integrations.openrlhf import response_body, score_queries
from ..reward import AntiderivativeReward
from .protocol import BadRequest, parse_get_reward, parse_json, parse_score
from .settings import ServeConfig

logger = logging.getLogger("rewards.serve")

ROUTES = ("/get_reward", "/score")
HEALTH = "/health"
_READ_CHUNK = 1 << 16
# Rejections over the connection cap are logged at most this often (a flood
# must not become a flood of log lines).
_REJECT_LOG_EVERY_S = 10.0


class RewardApp:
    """Routes, request and connection accounting, draining; the HTTP plumbing is below."""

    def __init__(self, reward: AntiderivativeReward, config: ServeConfig) -> None:
        self.reward = reward
        self.config = config
        self.draining = False
        self.served = 0
        self.errors = 0
        self.rejected = 0
        self._busy = 0  # requests whose first byte arrived and whose answer is not sent
        self._cond = threading.Condition()
        self._connections: set[socket.socket] = set()
        # Accepted, no byte of a first request yet: a drain owes them an answer.
        self._fresh: set[socket.socket] = set()
        self._last_reject_log = float("-inf")

    # -- accounting -------------------------------------------------------
    @contextlib.contextmanager
    def request(self, *, first: bool) -> Iterator[bool]:
        """Admit a request: always a connection's first one (it may have
        waited in the backlog when SIGTERM came), later ones unless draining."""
        with self._cond:
            admitted = first or not self.draining
        try:
            yield admitted
        finally:
            if admitted:
                with self._cond:
                    self.served += 1

    def request_started(self, conn: socket.socket) -> None:
        """Count a request being served."""
        with self._cond:
            self._busy += 1
            self._fresh.discard(conn)

    def request_finished(self) -> None:
        """Count a request done."""
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    def connection_opened(self, conn: socket.socket) -> bool:
        """Count a new connection; False (and nothing counted) at the cap."""
        with self._cond:
            if len(self._connections) >= self.config.max_connections:
                self.rejected += 1
                now = time.monotonic()
                if now - self._last_reject_log >= _REJECT_LOG_EVERY_S:
                    self._last_reject_log = now
                    logger.warning("%d connections open (max_connections): answering new "
                                   "ones 503 (%d so far)", len(self._connections), self.rejected)
                return False
            self._connections.add(conn)
            self._fresh.add(conn)
            return True

    def connection_closed(self, conn: socket.socket) -> None:
        """Forget a closed connection."""
        with self._cond:
            self._connections.discard(conn)
            self._fresh.discard(conn)
            self._cond.notify_all()

    def wait_idle(self, timeout_s: float, settle_s: float = 0.0) -> bool:
        """Wait until no request is being read or checked and, for up to
        ``settle_s``, until every accepted connection has sent its first
        request. False if requests were still running at ``timeout_s``."""
        now = time.monotonic()
        deadline, settle = now + timeout_s, now + min(settle_s, timeout_s)
        with self._cond:
            while self._busy or (self._fresh and time.monotonic() < settle):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, 0.05))
        return True

    def close_connections(self) -> None:
        """Close every idle connection (draining)."""
        with self._cond:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def authorized(self, header: str | None) -> bool:
        """No token configured, or ``Authorization: Bearer <token>`` with it
        (compared in constant time)."""
        token = self.config.token
        if token is None:
            return True
        scheme, _, given = (header or "").strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode())

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
            # The frames, and the message cut short: it may quote a request's
            # 40 KB integrand.
            message = for_log(f"{type(exc).__name__}: {exc}")
            logger.error("internal error on %s: %s\n%s", path, message,
                         "".join(traceback.format_tb(exc.__traceback__)).rstrip())
            with self._cond:
                self.errors += 1
            return 500, {"error": f"internal error: {message}"}

    def health(self) -> tuple[int, dict[str, Any]]:
        """(status, body) of ``/health``: 503 while draining."""
        with self._cond:
            state = {"status": "draining" if self.draining else "ok",
                     "inflight": self._busy, "served": self.served,
                     "connections": len(self._connections),
                     "rejected_connections": self.rejected, "internal_errors": self.errors}
        state.update(self.reward.runtime_stats())
        return (503 if self.draining else 200), state


class _RequestReader(io.RawIOBase):
    """A connection's reads, with a deadline per request.

    Waiting for a request takes the socket's timeout (``socket_timeout_s``)
    per read; from the request's first byte, the whole request must arrive
    by ``request_timeout_s``: each read gets only the time left, so a body
    sent a byte a minute is cut off at the deadline, not never.
    """

    def __init__(self, sock: socket.socket, idle_s: float, request_s: float,
                 on_start: Callable[[], None]) -> None:
        super().__init__()
        self._sock = sock
        self._idle_s = idle_s
        self._request_s = request_s
        self._on_start = on_start
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def expect_request(self) -> None:
        self.deadline = None
        self._sock.settimeout(self._idle_s)

    def request_read(self) -> None:
        """The request is in: writing the answer gets the idle timeout again."""
        self._sock.settimeout(self._idle_s)

    def readinto(self, buffer) -> int:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"request not complete after {self._request_s:g} s")
            self._sock.settimeout(left)
        n = self._sock.recv_into(buffer)
        if n and self.deadline is None:
            self.deadline = time.monotonic() + self._request_s
            self._on_start()
        return n


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: OpenRLHF's aiohttp session reuses connections
    server_version = "integral-rewards"
    sys_version = ""
    server: _Server

    def setup(self) -> None:
        config = self.server.app.config
        self.timeout = config.socket_timeout_s
        super().setup()
        self.rfile.close()  # replaced by a reader with a deadline per request
        self._requests = 0
        self._reader = _RequestReader(self.connection, config.socket_timeout_s,
                                      config.request_timeout_s,
                                      lambda: self.server.app.request_started(self.connection))
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        self._reader.expect_request()
        try:
            super().handle_one_request()
        finally:
            if self._reader.deadline is not None:  # a request began: it is over now
                self._requests += 1
                self.server.app.request_finished()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        logger.debug("%s %s", self.address_string(), for_log(format % args))

    def _send(self, status: int, payload: dict[str, Any], *, close: bool = False,
              headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if close or self.server.app.draining:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _authorized(self) -> bool:
        if self.server.app.authorized(self.headers.get("Authorization")):
            return True
        self._send(401, {"error": "missing or wrong bearer token (Authorization: Bearer ...)"},
                   close=True, headers={"WWW-Authenticate": "Bearer"})
        return False

    def do_GET(self) -> None:  # noqa: N802 - stdlib's name
        self._reader.request_read()
        if not self._authorized():
            return
        if self.path.split("?", 1)[0] == HEALTH:
            self._send(*self.server.app.health())
        else:
            self._send(404, {"error": f"no route GET {self.path}; GET {HEALTH}, "
                                      f"POST {' or '.join(ROUTES)}"})

    def do_POST(self) -> None:  # noqa: N802 - stdlib's name
        app = self.server.app
        path = self.path.split("?", 1)[0]
        if not self._authorized():
            return
        with app.request(first=self._requests == 0) as admitted:
            if not admitted:
                self._send(503, {"error": "server is shutting down"}, close=True,
                           headers={"Retry-After": "1"})
                return
            if path not in ROUTES:
                self._send(404, {"error": f"no route POST {path}; POST {' or '.join(ROUTES)}"},
                           close=True)
                return
            body = self._read_body(app.config.max_body_bytes)
            if body is not None:
                self._reader.request_read()
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
        try:
            if length > limit:
                message = {"error": f"body of {length} bytes is over the limit of {limit}"}
                if length <= 4 * limit and self._discard(length):
                    self._send(413, message)
                else:
                    self._send(413, message, close=True)
                return None
            body = self.rfile.read(length)
        except TimeoutError as exc:
            logger.warning("client %s: %s; answered 408 and closed", self.address_string(), exc)
            self._reader.request_read()
            self._send(408, {"error": str(exc)}, close=True)
            return None
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


def _busy_response(limit: int) -> bytes:
    body = json.dumps({"error": f"server busy: {limit} connections open (max_connections); "
                                "retry"}).encode()
    return (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
            ).encode() + body


# Linux's SO_ATTACH_FILTER, and a classic BPF program for a TCP listening
# socket (the filter sees the TCP header): load the flags byte, keep SYN|ACK,
# drop the packet if that is SYN alone (a new connection), else keep it (the
# last ACK of a handshake under way, and everything else).
_SO_ATTACH_FILTER = 26
_DROP_SYN = ((0x30, 0, 0, 13), (0x54, 0, 0, 0x12), (0x15, 0, 1, 0x02),
             (0x06, 0, 0, 0), (0x06, 0, 0, 0xFFFFFFFF))


def _drop_new_connections(sock: socket.socket) -> bool:
    """Stop new connections from completing on a listening socket without
    touching the backlog (Linux; False elsewhere). Closing the socket would
    reset every connection waiting in the backlog; with this, a new client's
    SYN goes unanswered and its retry, a second later, finds the socket
    closed: "connection refused", an error every client retries."""
    if not sys.platform.startswith("linux") or sock.family not in (socket.AF_INET,
                                                                   socket.AF_INET6):
        return False
    import ctypes

    program = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *op) for op in _DROP_SYN))
    fprog = struct.pack("HP", len(_DROP_SYN), ctypes.addressof(program))  # struct sock_fprog
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, fprog)
    except OSError:
        return False
    return True


class _Closer:
    """Closes rejected connections once their client stopped sending (or
    after ``linger_s``), on one daemon thread, so the accepting thread never
    waits; past ``backlog`` waiting sockets, new ones are closed at once."""

    def __init__(self, linger_s: float = 2.0, backlog: int = 1024) -> None:
        self.linger_s, self.backlog = linger_s, backlog
        self._waiting: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def hand_over(self, sock: socket.socket) -> None:
        with self._lock:
            if len(self._waiting) >= self.backlog:
                sock.close()
                return
            self._waiting[sock] = time.monotonic() + self.linger_s
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="reward-server-closer",
                                                daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._waiting:
                    self._thread = None
                    return
                socks = list(self._waiting)
            readable, _, _ = select.select(socks, [], [], 0.1)
            now = time.monotonic()
            for sock in socks:
                done = now > self._waiting[sock]
                if sock in readable:
                    try:
                        done = done or not sock.recv(_READ_CHUNK)
                    except OSError:
                        done = True
                if done:
                    with self._lock:
                        self._waiting.pop(sock, None)
                    sock.close()


_CLOSER = _Closer()


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # draining waits for requests, not for idle keep-alive threads
    allow_reuse_address = True
    app: RewardApp

    def process_request(self, request, client_address) -> None:
        if not self.app.connection_opened(request):
            # Over the cap: answer from this thread, without reading the
            # request (a fresh socket's send buffer takes these bytes at once),
            # then let the closer read what the client still sends: closing
            # with its request unread would reset the connection, and the
            # client would see the reset instead of the 503.
            with contextlib.suppress(OSError):
                request.settimeout(0)
                request.sendall(_busy_response(self.app.config.max_connections))
                request.shutdown(socket.SHUT_WR)
                _CLOSER.hand_over(request)
                return
            request.close()
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        self.app.connection_closed(request)
        super().shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        peer = f"{client_address[0]}:{client_address[1]}" if client_address else "?"
        if isinstance(exc, (ConnectionError, TimeoutError)):
            # A client that gave up (its own timeout, a killed trainer): one
            # line, no traceback.
            logger.warning("client %s went away: %s", peer, for_log(exc))
        else:
            logger.error("error on the connection from %s: %s\n%s", peer,
                         for_log(f"{type(exc).__name__}: {exc}"),
                         "".join(traceback.format_tb(exc.__traceback__ if exc else None)).rstrip())

    def accept_backlog(self) -> int:
        """Accept every connection waiting in the listen backlog now and hand
        each to a handler thread; how many there were."""
        n = 0
        while select.select([self.socket], [], [], 0)[0]:
            try:
                request, client_address = self.get_request()
            except OSError:
                break
            n += 1
            try:
                self.process_request(request, client_address)
            except Exception:  # noqa: BLE001 - as serve_forever's own loop does
                self.handle_error(request, client_address)
                self.shutdown_request(request)
        return n


class RewardServer:
    """An HTTP server bound to ``config.host:config.port`` (port 0: any free
    one; see :attr:`address`), serving ``reward`` until :meth:`drain`."""

    def __init__(self, reward: AntiderivativeReward, config: ServeConfig | None = None) -> None:
        self.config = config or ServeConfig()
        self.app = RewardApp(reward, self.config)
        self._httpd = _Server((self.config.host, self.config.port), _Handler,
                              bind_and_activate=False)
        self._httpd.request_queue_size = self.config.listen_backlog
        self._httpd.app = self.app
        try:
            self._httpd.server_bind()
            self._httpd.server_activate()
        except BaseException:
            self._httpd.server_close()
            raise
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) the server listens on."""
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        """The server's base URL."""
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> RewardServer:
        """Serve on a background thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="rewards-serve",
                                        kwargs={"poll_interval": 0.2}, daemon=True)
        self._thread.start()
        return self

    def drain(self) -> bool:
        """Shut down in the order the module docstring gives: nothing that
        reached the listen backlog is reset. False if requests were still
        running at ``drain_timeout_s`` (they are cut off)."""
        grace = self.config.drain_grace_s
        with self.app._cond:
            self.app.draining = True
        _drop_new_connections(self._httpd.socket)
        if self._thread is not None and self._thread.is_alive():
            self._httpd.shutdown()  # the accept loop ends
        self._httpd.accept_backlog()
        time.sleep(grace)  # handshakes under way complete into the backlog
        self._httpd.accept_backlog()
        self._httpd.server_close()
        finished = self.app.wait_idle(self.config.drain_timeout_s, settle_s=grace)
        self.app.close_connections()
        self.app.reward.close()
        return finished


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def serve(reward: AntiderivativeReward, config: ServeConfig, *, stream: Any = None) -> int:
    """Run until SIGTERM or SIGINT, then drain; the process's main loop."""
    stream = sys.stdout if stream is None else stream
    server = RewardServer(reward, config)
    if not is_loopback(config.host):
        logger.warning(
            "listening on %s, not loopback: anyone who can reach port %d can make this machine "
            "parse text of their choice%s (docs/security.md)", config.host, server.address[1],
            "; requests must carry the bearer token" if config.token else
            ", with no token required (set --token or REWARDS_SERVE_TOKEN)")
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
