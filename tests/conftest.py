"""Shared test settings and helpers.

Shared helpers (hang guards, process checks) are in ``tests/support.py``.
Strict mode (:mod:`rewards.check.errors`) is on for the whole suite and for
every worker process it starts (they inherit the environment): an exception
in our own code raises instead of becoming a CHECKER_ERROR verdict, so a bug
fails a test rather than hiding in a verdict. Tests that exercise the
CHECKER_ERROR path itself turn it off with the ``lenient`` fixture.
"""
from __future__ import annotations

import os
import signal
import sys

# Before anything of ours is imported. The suite starts hundreds of Python
# processes (xdist and loky workers, the CLIs, servers); with
# PYTHONDONTWRITEBYTECODE=1, which some CI images set, each of them compiles
# this package and the rewritten tests from source again (`-m "not slow"`:
# 80 s on a clean clone of 2 cores, 67 s with bytecode). The bytecode goes to
# the checkout's __pycache__ folders, which git ignores.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from rewards.check.errors import STRICT_ENV  # noqa: E402

os.environ[STRICT_ENV] = "1"

# Imported only by the test that uses it: importing it imports TRL's async
# GRPO package (about 7 s), which collection (doctests included) would make
# every xdist worker pay even when that slow test is deselected.
collect_ignore = ["async_grpo_loop.py"]



@pytest.fixture
def lenient(monkeypatch):
    """Strict mode off: a bug of ours is a CHECKER_ERROR verdict again."""
    monkeypatch.delenv(STRICT_ENV, raising=False)


# Doctests whose examples start a worker pool (a doctest item takes no marker
# of its own): slow, like every test that starts a pool or a server.
POOL_DOCTESTS = ("rewards.reward.antiderivative", "rewards.integrations.verl")


@pytest.fixture
def terminal_sigint():
    """Python's Ctrl-C handler on SIGINT for the test, as in a terminal (and so
    in the children it starts): a shell that runs pytest as a background job
    hands it SIGINT ignored, and then neither ``_thread.interrupt_main`` nor a
    SIGINT sent to a child interrupts anything."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


# The benchmark harness (its doctests and the tests of it) is measurement
# code, not the reward: out of the inner loop (`-m "not slow"`), still in
# README's full line and so in CI. Marked here by path, one rule for all.
BENCHMARK_TESTS = ("test_bench.py", "test_soundness_bench.py", "test_answer_keys.py",
                   "test_families.py")
BENCHMARKS_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


def _tests_the_benchmarks(item) -> bool:
    path = Path(str(item.path))
    return path.name in BENCHMARK_TESTS or BENCHMARKS_DIR in path.parents


def pytest_collection_modifyitems(items):
    for item in items:
        if type(item).__name__ == "DoctestItem" and item.name.startswith(POOL_DOCTESTS):
            item.add_marker(pytest.mark.slow)
        if _tests_the_benchmarks(item):
            item.add_marker(pytest.mark.bench)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _pools_and_servers_only_in_slow_tests(request, monkeypatch):
    # `-m "not slow"` is the fast inner loop: a test that starts worker
    # processes or a server must say so, or it fails here.
    if request.node.get_closest_marker("slow") is not None:
        return
    from rewards.reward import pool
    from rewards.serve import server

    def refuse(*args, **kwargs):
        pytest.fail(f"{request.node.nodeid} starts a worker pool or a server: mark it "
                    f"@pytest.mark.slow", pytrace=False)

    monkeypatch.setattr(pool.CheckPool, "_get_executor", refuse)
    monkeypatch.setattr(server.RewardServer, "start", refuse)
