"""The reward server's settings, with their defaults (the CLI flags read them here)."""
from __future__ import annotations

from dataclasses import dataclass, field

# The bearer token, when not given with --token (a flag shows in `ps`).
TOKEN_ENV = "REWARDS_SERVE_TOKEN"

EXTRA_LOGS = ("lists", "omit")


@dataclass(frozen=True)
class ServeConfig:
    """Everything ``python -m rewards serve`` takes besides the reward's own config."""

    # Loopback: the server runs model output through a parser, so it is not
    # for the open network (docs/security.md); bind wider on purpose only.
    host: str = "127.0.0.1"
    # OpenRLHF's reference reward server listens on 5000.
    port: int = 5000
    # A larger body is refused with 413 before it is read. 8 MiB holds a
    # GRPO batch of 512 completions of 16k characters.
    max_body_bytes: int = 8 * 2**20
    # Items per request (longer lists: 413).
    max_items: int = 4096
    # A connection waiting this long for its next request is closed (the
    # time allowed between keep-alive requests, and to write an answer).
    socket_timeout_s: float = 60.0
    # From its first byte, a request (line, headers, body) must be in within
    # this long, else 408 and the connection is closed: a per-read timeout
    # alone let a body trickling a byte a minute hold a thread forever.
    # 30 s moves an 8 MiB body at 2.2 Mbit/s.
    request_timeout_s: float = 30.0
    # Open connections (one thread each); a connection beyond gets 503 at
    # once from the accepting thread. OpenRLHF keeps up to 100 requests in
    # flight per client process.
    max_connections: int = 512
    # The kernel's queue of connections not yet accepted.
    listen_backlog: int = 256
    # SIGTERM: requests in flight get this long to finish.
    drain_timeout_s: float = 120.0
    # /get_reward's extra_logs (per-sample acc, no_answer, ...): "lists", or
    # "omit" for OpenRLHF 0.8.x, whose HTTP client torch.cat's them and
    # fails on lists on the first step.
    extra_logs: str = "lists"
    # SIGTERM: how long the drain waits for handshakes under way and for the
    # first request of the connections it took from the backlog (their
    # clients send at once; a silent one is closed after this).
    drain_grace_s: float = 1.0
    # Required as "Authorization: Bearer <token>" when set (--token or
    # REWARDS_SERVE_TOKEN); kept out of repr so it never reaches a log.
    token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.extra_logs not in EXTRA_LOGS:
            raise ValueError(f"extra_logs must be one of {EXTRA_LOGS}, not {self.extra_logs!r}")
        if not 0 <= int(self.port) < 65536:
            raise ValueError(f"port must be in 0..65535, not {self.port!r}")
        for key in ("max_body_bytes", "max_items", "socket_timeout_s", "request_timeout_s",
                    "max_connections", "listen_backlog", "drain_timeout_s", "drain_grace_s"):
            if not float(getattr(self, key)) > 0:
                raise ValueError(f"{key} must be positive, not {getattr(self, key)!r}")
        if self.token is not None and not self.token.strip():
            raise ValueError("token must not be empty (leave it unset for no token)")
