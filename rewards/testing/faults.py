"""Fault injection for tests of the worker pool (never used in production).

``faulty_check`` behaves like :func:`rewards.check_antiderivative` except for a
few magic candidate strings that simulate what a worker can suffer: a hang
in C code (no signal reaches it), a hard crash, runaway memory. Tests run it
in the workers (``CheckPool(check_fn=faulty_check)``, or
:func:`faulty_reward`) so the real pool machinery (watchdog, kill,
resubmission) is exercised end to end. It lives in the package, not in
``tests/``, because loky workers must be able to import it.
"""
from __future__ import annotations

import os
import signal
import time
from typing import Any

from ..check import CheckResult, check_antiderivative

HANG = "FAULT:HANG"  # sleeps with SIGALRM blocked: only the watchdog can end it
STUCK_IN_C = "FAULT:C_LOOP"  # a long big-integer power, uninterruptible C code
CRASH = "FAULT:CRASH"  # the worker dies (SIGKILL to itself) on every attempt
CRASH_ONCE = "FAULT:CRASH_ONCE:"  # dies unless a marker file (path follows) exists
OOM = "FAULT:OOM"  # allocates past the worker's RLIMIT_AS
# "FAULT:SLOW:<seconds>:<answer>": sleeps (interruptibly), then checks <answer>
# normally: a slow but legitimate sample, to have work in flight while a test
# kills a worker or shuts the executor down.
SLOW = "FAULT:SLOW:"
# "FAULT:LEAK:<MiB>": keeps <MiB> of memory alive in the worker (RSS grows and
# stays grown, like a cache leak), then checks x**2/2, so the pool's
# recycle-on-RSS-growth path can be tested.
LEAK = "FAULT:LEAK:"

_LEAKED: list[bytearray] = []


def faulty_check(candidate, integrand, request=None, **options) -> CheckResult:
    """``check_antiderivative`` except for the magic candidates above."""
    if candidate == HANG:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(3600)
    if candidate == STUCK_IN_C:
        _ = 7 ** (10**9)  # minutes of C, no bytecode boundary for a handler
    if candidate == CRASH:
        os.kill(os.getpid(), signal.SIGKILL)
    if candidate.startswith(CRASH_ONCE):
        marker = candidate[len(CRASH_ONCE):]
        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        candidate = r"\frac{x^{2}}{2}"
    if candidate.startswith(SLOW):
        seconds, _, candidate = candidate[len(SLOW):].partition(":")
        time.sleep(float(seconds))
    if candidate.startswith(LEAK):
        chunk = bytearray(int(candidate[len(LEAK):]) * 2**20)
        chunk[::4096] = b"\x01" * len(chunk[::4096])  # touch every page: real RSS
        _LEAKED.append(chunk)
        candidate = r"\frac{x^{2}}{2}"
    if candidate == OOM:
        try:
            hog = bytearray(64 * 2**30)  # past any sane RLIMIT_AS
            del hog
        except MemoryError:
            pass
        candidate = r"\frac{x^{2}}{2}"
    return check_antiderivative(candidate, integrand, request, **options)


def faulty_reward(**options: Any):
    """An :class:`~rewards.AntiderivativeReward` whose workers run
    :func:`faulty_check`."""
    from ..reward import AntiderivativeReward

    return AntiderivativeReward(**options)._use_check_fn(faulty_check)
