"""Helpers the tests share (imported as ``tests.support``): hang guards only,
never performance assertions."""
from __future__ import annotations

import time
from collections.abc import Callable

import psutil

# How long a test waits for something that should happen soon: a hang guard.
HANG_GUARD_S = 120.0


def eventually(predicate: Callable[[], bool], seconds: float = HANG_GUARD_S) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
