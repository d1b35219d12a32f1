"""A memory cap for checks that run in the caller's own process.

In the reward's worker processes, ``RLIMIT_AS`` is set once, by the pool.
A direct caller of :func:`rewards.check_antiderivative` (a script, a
notebook, another library) has no such cap: one evaluation of
``Ei(li(Chi(Shi(x))))`` far out asks mpmath for a 10^11-bit integer, and
Python allocates it, for tens of seconds and gigabytes, where no signal can
interrupt it. So a check in-process lowers the soft ``RLIMIT_AS`` of the
process to its current size plus ``CheckRequest.memory_limit_mb`` for the
duration of the check, and restores it after: the runaway allocation fails
at once (MemoryError, a point without a value, or a verdict ``too_complex``).

The limit is process-wide: while a check runs, every thread of the host
shares it. A host that manages memory itself sets ``memory_limit_mb=None``
(no cap). Where ``resource`` or ``RLIMIT_AS`` is missing, nothing is capped.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]

_lock = threading.Lock()
_holders = 0
_saved: tuple[int, int] | None = None


def _address_space_bytes() -> int | None:
    """This process's current virtual size (Linux ``/proc``), or None."""
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def memory_cap(limit_mb: int | None) -> Iterator[bool]:
    """Cap the process's address space at its size now plus ``limit_mb``
    while the block runs (re-entrant across threads: the first holder sets
    it, the last restores it). Yields whether a cap is in place."""
    global _holders, _saved
    if not limit_mb or resource is None or not hasattr(resource, "RLIMIT_AS"):
        yield False
        return
    with _lock:
        if _holders == 0:
            size = _address_space_bytes()
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if size is not None:
                cap = size + int(limit_mb) * 2**20
                if hard != resource.RLIM_INFINITY:
                    cap = min(cap, hard)
                if soft == resource.RLIM_INFINITY or cap < soft:
                    try:
                        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
                        _saved = (soft, hard)
                    except (ValueError, OSError):
                        _saved = None
        _holders += 1
    try:
        yield _saved is not None
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _saved is not None:
                resource.setrlimit(resource.RLIMIT_AS, _saved)
                _saved = None
