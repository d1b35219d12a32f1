"""Checker workers never outlive their host, and never cross a fork.

Real processes: a host script (a subprocess) scores a batch with the reward
and is then killed the way torchrun, Ray and SLURM end a job (SIGTERM) or
the way the OOM killer does (SIGKILL); every process it had started (the
loky workers and both resource trackers) must be gone soon after. A forked
``multiprocessing`` child that used the reward without ``close()`` must
exit (it used to block joining the workers), with its own checks right
and its parent's pool untouched.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.slow  # real hosts, worker processes

REPO = Path(__file__).resolve().parents[1]
# The bound: nothing of ours alive 10 s after the host is killed.
GONE_WITHIN_S = 10.0

HOST = textwrap.dedent(r"""
    import time
    from rewards import AntiderivativeReward

    reward = AntiderivativeReward(workers=2)
    outcomes = reward.score([r"\boxed{x^3/3}", r"\boxed{\sin x}"], ["x**2", "cos(x)"])
    print("READY", [o.verdict for o in outcomes], flush=True)
    time.sleep(600)
""")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                out.append(proc)
        except psutil.NoSuchProcess:
            pass
    return out


def _wait_gone(procs: list[psutil.Process], within_s: float) -> list[psutil.Process]:
    deadline = time.monotonic() + within_s
    alive = _alive(procs)
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = _alive(procs)
    return alive


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_host_leaves_no_process_behind(sig):
    host = subprocess.Popen([sys.executable, "-c", HOST], env=_env(), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ours: list[psutil.Process] = []
    try:
        line = host.stdout.readline()
        assert line.startswith("READY") and "CORRECT" in line, line
        ours = psutil.Process(host.pid).children(recursive=True)
        names = [" ".join(p.cmdline()) for p in ours]
        assert sum("popen_loky_posix" in n for n in names) == 2, names
        assert any("resource_tracker" in n for n in names), names
        host.send_signal(sig)
        host.wait(timeout=30)
        left = _wait_gone(ours, GONE_WITHIN_S)
        assert not left, [" ".join(p.cmdline()) for p in left]
    finally:
        host.kill()
        host.wait()
        for proc in _alive(ours):
            proc.kill()


FORKED = textwrap.dedent(r"""
    import multiprocessing as mp
    import sys

    import psutil
    from rewards import AntiderivativeReward

    def workers():
        out = set()
        for c in psutil.Process().children():
            try:
                if "popen_loky_posix" in " ".join(c.cmdline()):
                    out.add(c.pid)
            except psutil.Error:
                pass
        return out

    reward = AntiderivativeReward(workers=1)
    parent_first = reward.score([r"\boxed{x^3/3}"], ["x**2"])[0].verdict
    parent_workers = workers()

    def child():
        # New answers, so that the child's checks reach its workers rather
        # than the reward's cache it inherited.
        outcomes = reward.score([r"\boxed{\sin x}", r"\boxed{e^x}"], ["cos(x)", "exp(x)"])
        sys.exit(0 if all(o.verdict == "CORRECT" for o in outcomes) else 1)

    proc = mp.get_context("fork").Process(target=child)
    proc.start()
    proc.join(30)
    stuck = proc.is_alive()
    if stuck:
        for c in psutil.Process(proc.pid).children(recursive=True):
            c.kill()
        proc.kill()
    after = reward.score([r"\boxed{x^4/4}"], ["x**3"])[0].verdict
    print("RESULT", parent_first, stuck, proc.exitcode, after, parent_workers <= workers(),
          reward.runtime_stats()["crashes"], flush=True)
    reward.close()
""")


def test_a_forked_child_that_used_the_reward_exits_and_spares_the_parent():
    # The parent has a warm pool when it forks: the child must start its own
    # (not submit to the parent's queues) and, without close(), still exit.
    out = subprocess.run([sys.executable, "-c", FORKED], env=_env(), cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    lines = [x for x in out.stdout.splitlines() if x.startswith("RESULT")]
    assert lines, out.stderr[-2000:]
    parent_first, stuck, exitcode, after, kept, crashes = lines[0].split()[1:]
    assert parent_first == "CORRECT"
    assert stuck == "False"
    assert exitcode == "0"  # the child's own checks were right
    assert after == "CORRECT" and kept == "True" and crashes == "0"


def test_workers_outlive_the_threads_that_started_them():
    # Linux's parent-death signal fires when the *thread* that forked a
    # worker exits; loky forks from whichever thread submits (here one
    # short-lived thread per call, like a server's handler threads). The
    # workers must notice only the death of the process.
    from rewards import AntiderivativeReward

    with AntiderivativeReward(workers=1) as reward:
        def call(k: int) -> None:
            reward.score([rf"\boxed{{x^{k + 1}}}"], [f"{k + 1}*x**{k}"])

        first = threading.Thread(target=call, args=(1,))
        first.start()
        first.join()
        pids = set(reward._pool.stats.worker_rss_mb)
        for k in range(2, 6):
            t = threading.Thread(target=call, args=(k,))
            t.start()
            t.join()
        outcomes = reward.score([r"\boxed{x^7}"], ["7*x**6"])
        assert outcomes[0].verdict == "CORRECT"
        assert set(reward._pool.stats.worker_rss_mb) == pids
        assert reward.runtime_stats()["crashes"] == 0
