"""rewards.check.timebox: signal time limits inside a worker, and deadlines.

Every assertion is about an exception raised (or not) and the signal state
left behind, never about how long something took. A limit that failed to
fire would let a ``time.sleep(5)`` finish, and the ``pytest.raises`` around
it fail.
"""
from __future__ import annotations

import math
import signal
import sys
import threading
import time

import pytest

from rewards.check.timebox import Deadline, StepTimeout, time_limit, within

LONG_SLEEP_S = 5.0  # what a limit must interrupt; never slept in full when it works


@pytest.fixture(autouse=True)
def clean_alarm_state():
    # Each test starts and must end with SIGALRM unowned and no timer armed:
    # a leaked timer would fire in some later test.
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    yield
    leaked_timer = signal.getitimer(signal.ITIMER_REAL)
    leaked_handler = signal.getsignal(signal.SIGALRM)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    assert leaked_timer == (0.0, 0.0)
    assert leaked_handler == signal.SIG_DFL


def test_limit_interrupts_the_block():
    with pytest.raises(StepTimeout), time_limit(0.05) as armed:
        assert armed is True
        time.sleep(LONG_SLEEP_S)


def test_no_time_left_raises_at_once():
    for seconds in (0, -1.0):
        with pytest.raises(StepTimeout), time_limit(seconds):
            pytest.fail("the block must not run")


def test_nested_limit_keeps_the_tighter_outer_one():
    # The inner block asks for 30 s but the outer has 0.1 s left: the outer's
    # limit wins (were it replaced, the sleep would finish and nothing raise).
    with pytest.raises(StepTimeout), time_limit(0.1), time_limit(30):
        time.sleep(LONG_SLEEP_S)


def test_nested_limit_keeps_the_tighter_inner_one():
    with time_limit(30):
        with pytest.raises(StepTimeout), time_limit(0.05):
            time.sleep(LONG_SLEEP_S)
        # Back in the outer block: its timer is armed again, for the 30 s.
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < remaining <= 30


def test_outer_limit_still_fires_after_an_inner_block_ends():
    with pytest.raises(StepTimeout), time_limit(0.3):
        with time_limit(10):
            pass  # the inner block disarms the timer on exit and must re-arm the outer
        time.sleep(LONG_SLEEP_S)


def test_a_step_does_not_swallow_the_checks_expired_limit():
    # A step's own limit is capped by the check's; when it fires, the step
    # gives up only if the check still has time. The two StepTimeouts cannot
    # be told apart (the check's re-armed alarm can land while the step's is
    # being handled), so the step asks the check's deadline, as within does.
    deadline = Deadline(0.05)
    with pytest.raises(StepTimeout), time_limit(0.1):
        within(10, deadline, time.sleep, LONG_SLEEP_S)
        time.sleep(LONG_SLEEP_S)


def test_a_step_that_runs_out_gives_up_and_the_check_goes_on():
    assert within(0.05, Deadline(10), time.sleep, LONG_SLEEP_S) is None
    assert within(1.0, Deadline(10), sum, [1, 2]) == 3


def test_previous_handler_restored_and_timer_disarmed():
    with time_limit(10) as armed:
        assert armed is True
        assert signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None)
    # The autouse fixture checks SIG_DFL and no timer after the test; check
    # here too, right after the block, and after a block that timed out.
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with pytest.raises(StepTimeout), time_limit(0.05):
        time.sleep(LONG_SLEEP_S)
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_nested_limits_leave_handler_and_hook_to_the_outermost():
    # An inner limit only re-arms the timer: the outer block installed the
    # handler and the unraisable hook, and only it puts them back.
    hook = sys.unraisablehook
    with time_limit(10):
        outer_hook = sys.unraisablehook
        assert outer_hook is not hook
        with pytest.raises(StepTimeout), time_limit(0.05):
            time.sleep(LONG_SLEEP_S)
        assert sys.unraisablehook is outer_hook
        assert signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None)
        assert 5 < signal.getitimer(signal.ITIMER_REAL)[0] <= 10
        with time_limit(1) as armed:
            assert armed is True
    assert sys.unraisablehook is hook
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_host_programs_alarm_handler_is_respected():
    # A host that owns SIGALRM (a test runner's timeout, say) keeps it: the
    # limit degrades to "not armed" and installs nothing.
    fired = []

    def host_handler(signum, frame):
        fired.append(signum)

    signal.signal(signal.SIGALRM, host_handler)
    try:
        with time_limit(0.05) as armed:
            assert armed is False
            assert signal.getsignal(signal.SIGALRM) is host_handler
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) is host_handler
    finally:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    assert fired == []


def test_off_the_main_thread_the_limit_is_not_armed():
    seen = []

    def body():
        with time_limit(0.05) as armed:
            seen.append(armed)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [False]


def test_deadline_without_a_limit_never_expires():
    deadline = Deadline(None)
    assert deadline.remaining() == math.inf
    assert not deadline.expired()
    deadline.check()  # does not raise


@pytest.mark.parametrize("seconds", [0, -3.0])
def test_deadline_of_no_time_is_expired(seconds):
    deadline = Deadline(seconds)
    assert deadline.remaining() == 0.0
    assert deadline.expired()
    with pytest.raises(StepTimeout):
        deadline.check()


def test_deadline_counts_down_and_expires():
    deadline = Deadline(60)
    assert 0 < deadline.remaining() <= 60
    assert not deadline.expired()
    deadline.check()
    short = Deadline(0.05)
    while not short.expired():  # ends: the deadline is 50 ms away
        time.sleep(0.01)
    assert short.remaining() == 0.0
    with pytest.raises(StepTimeout):
        short.check()


# --- no handler can swallow a time limit ---------------------------------------

PACKAGE = __import__("pathlib").Path(__file__).resolve().parents[1] / "rewards"
# The only handlers that may catch the limit without re-raising it, each
# because catching it is their job: within() gives up one step (and re-raises
# once the check's own deadline passed), the ladder gives up one rung the
# same way, the pipeline's outermost handler turns it into TIMEOUT, and the
# batcher hands whatever ended a batch to every caller of it, who raises it.
CATCHERS = {("check/timebox.py", "within"), ("check/proof/ladder.py", "symbolic_zero"),
            ("check/context.py", "guarded"), ("reward/batcher.py", "_serve")}


def _catches_time_limit(handler) -> bool:
    import ast

    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("BaseException", "StepTimeout")
               for n in names)


def _reraises(handler) -> bool:
    import ast

    return any(isinstance(node, ast.Raise) and node.exc is None for node in ast.walk(handler))


def test_step_timeout_is_not_an_exception():
    # Structural: every "except Exception" (ours and SymPy's) lets it through.
    assert issubclass(StepTimeout, BaseException)
    assert not issubclass(StepTimeout, Exception)
    with pytest.raises(StepTimeout):
        try:
            Deadline(0).check()
        except Exception:  # noqa: BLE001 - the point of the test
            pytest.fail("an except Exception caught the time limit")


def test_only_the_designated_handlers_catch_the_time_limit():
    import ast

    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ExceptHandler) and _catches_time_limit(node) \
                        and not _reraises(node):
                    found.add((path.relative_to(PACKAGE).as_posix(), func.name))
    assert found <= CATCHERS, sorted(found - CATCHERS)


class _Collected:
    pass


def _busy_callback(_ref) -> None:
    # A weakref callback (as WeakSet._remove is) that is still running when
    # the limit fires: Python cannot raise out of it.
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass


def test_a_limit_that_lands_in_a_gc_callback_is_delivered_after_it(capsys):
    import sys
    import weakref

    hook = sys.unraisablehook
    with pytest.raises(StepTimeout):
        with time_limit(0.05):
            obj = _Collected()
            ref = weakref.ref(obj, _busy_callback)
            del obj  # the callback runs here, and the limit fires inside it
            time.sleep(2.0)  # without re-delivery the block would run to its end
    assert ref() is None
    assert "Exception ignored" not in capsys.readouterr().err
    assert sys.unraisablehook is hook
