"""The reward server's settings, with their defaults (the CLI flags read them here)."""
from __future__ import annotations

from dataclasses import dataclass

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
    # A connection idle (or a body trickling in) this long is closed.
    socket_timeout_s: float = 60.0
    # SIGTERM: requests in flight get this long to finish.
    drain_timeout_s: float = 120.0
    # /get_reward's extra_logs (per-sample acc, no_answer, ...): "lists", or
    # "omit" for OpenRLHF 0.8.x, whose HTTP client torch.cat's them and
    # fails on lists on the first step.
    extra_logs: str = "lists"

    def __post_init__(self) -> None:
        if self.extra_logs not in EXTRA_LOGS:
            raise ValueError(f"extra_logs must be one of {EXTRA_LOGS}, not {self.extra_logs!r}")
        if not 0 <= int(self.port) < 65536:
            raise ValueError(f"port must be in 0..65535, not {self.port!r}")
        for key in ("max_body_bytes", "max_items", "socket_timeout_s", "drain_timeout_s"):
            if not float(getattr(self, key)) > 0:
                raise ValueError(f"{key} must be positive, not {getattr(self, key)!r}")
