"""Bounding the time of one step inside the process that runs it.

SymPy's ``simplify`` and mpmath's special functions can run for minutes on
an innocent-looking input. The reward's worker processes call the checker on
their main thread, where ``signal.setitimer`` can interrupt pure-Python loops
(measured here: slow ``simplify`` and ``sympify("9**9**9")``). Anywhere else
(a thread, or a host program that owns SIGALRM) the limit degrades to a
cooperative deadline checked between steps; the caller-side watchdog of the
reward executor is the hard bound in every case.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

try:
    import _signal
except ImportError:  # pragma: no cover - CPython has it
    _signal = signal


class StepTimeout(BaseException):
    """A time-boxed step ran past its limit.

    A ``BaseException``, like ``KeyboardInterrupt``: the signal timer raises
    it wherever SymPy or mpmath happens to be, and every ``except Exception``
    on the way (ours: "this point has no value"; SymPy's own, inside
    ``simplify``) would otherwise catch the check's time limit and carry on
    with the stage, as if that step had merely failed. Only
    :func:`within` and the pipeline's outermost handler catch it.
    """


class Deadline:
    """A point in monotonic time, shared by every stage of one check."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._end = None if seconds is None else time.monotonic() + max(0.0, seconds)

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit)."""
        if self._end is None:
            return float("inf")
        return max(0.0, self._end - time.monotonic())

    def expired(self) -> bool:
        """Whether no time is left."""
        return self.remaining() <= 0.0

    def check(self) -> None:
        """Raise :class:`StepTimeout` once the deadline passed."""
        if self.expired():
            raise StepTimeout("deadline passed")


def _on_main_thread() -> bool:
    return threading.get_ident() == threading.main_thread().ident


def _signals_usable() -> bool:
    if not _on_main_thread():
        return False
    if not hasattr(signal, "setitimer"):
        return False
    handler = _signal_handler(signal.SIGALRM)
    # Only take SIGALRM when nobody else does: a host program's own alarm
    # handler (a test runner's timeout, say) must keep working.
    return handler in (signal.SIG_DFL, signal.SIG_IGN, None, _raise_step_timeout)


def _raise_step_timeout(signum, frame):  # noqa: ARG001 - signal handler signature
    raise StepTimeout("time limit")


# Re-delivery of a time limit that landed where Python cannot raise: in a
# garbage-collection or weakref callback (``WeakSet._remove``) or a
# ``__del__``, the StepTimeout is printed as "Exception ignored" and dropped,
# and the step would run on unbounded. Python hands every such exception to
# ``sys.unraisablehook``; while a limit is armed, ours re-arms the timer, so
# the limit fires again as soon as the callback has returned.
_REDELIVER_S = 1e-4


def _redelivering(previous):
    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, StepTimeout):
            signal.setitimer(signal.ITIMER_REAL, _REDELIVER_S)
            return
        previous(unraisable)
    return hook


# The handler as the C module holds it: signal.getsignal's conversion to an
# enum raises and catches a ValueError for a function handler.
_signal_handler = getattr(_signal, "getsignal", signal.getsignal)


@contextmanager
def time_limit(seconds: float) -> Iterator[bool]:
    """Interrupt the block with :class:`StepTimeout` after ``seconds``.

    Yields whether a real (signal) interrupt is armed. Nested limits keep the
    tighter one and re-arm the outer timer on exit. An outer limit that
    passed while the inner block ran fires as soon as it is re-armed, which
    can be while the inner's StepTimeout is still being handled: a handler
    that swallows a StepTimeout inside an outer limit must ask its
    :class:`Deadline` whether the outer one passed too (as :func:`within`
    does), since the two exceptions cannot be told apart.

    >>> with time_limit(1.0):
    ...     total = sum(range(1000))
    >>> total
    499500
    """
    if seconds <= 0:
        raise StepTimeout("no time left")
    # Inside a limit of ours on the main thread, our handler and hook are in
    # place: only the timer changes (swapping the handler costs more than a
    # sample point's evaluation, and every point has its limit).
    nested = _on_main_thread() and _signal_handler(signal.SIGALRM) is _raise_step_timeout
    if not nested and not _signals_usable():
        yield False
        return
    if not nested:
        previous_handler = signal.signal(signal.SIGALRM, _raise_step_timeout)
        previous_hook = sys.unraisablehook
        sys.unraisablehook = _redelivering(previous_hook)
    # One call arms this limit and reads the outer one (a sample point has
    # its own limit: the timer calls are most of what a limit costs).
    started = time.monotonic()
    outer_remaining, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    if 0 < outer_remaining < seconds:
        signal.setitimer(signal.ITIMER_REAL, outer_remaining)
    try:
        yield True
    finally:
        if outer_remaining > 0:
            left = outer_remaining - (time.monotonic() - started)
            # Re-arms the outer limit in the same call that ends this one; one
            # that already passed fires at once.
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-4))
        else:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if not nested:
            sys.unraisablehook = previous_hook
            signal.signal(signal.SIGALRM, previous_handler)


def within(seconds: float, deadline: Deadline, fn, *args):
    """``fn(*args)``, or ``None`` if it runs past ``seconds``.

    For one step among many (one sample point: ``exp(cos(exp(z)))`` at
    ``|z| = 30`` builds a number with 10^12 digits): that step is given up,
    the others go on. The check's own ``deadline`` passing still raises.
    Off the main thread (no signal timer) the step runs unbounded and the
    check's cooperative deadline and the pool's watchdog remain the bounds.
    """
    try:
        with time_limit(min(seconds, max(deadline.remaining(), 1e-3))):
            return fn(*args)
    except StepTimeout:
        if deadline.expired():
            raise
        return None
