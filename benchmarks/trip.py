"""One completion's trip through the reward: the files and calls of ``rewards/``
it enters, in the parent and in the worker, and the bytes that cross.

The pool runs on an in-process executor that pickles what it sends and what
comes back (the boundary a loky worker puts there), so a profiler hook sees
both sides; the reward is warmed on other integrands first, so the trip
counts what a check runs, not imports or first-call caches.
"""
from __future__ import annotations

import argparse
import pickle
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

# (name, completion, integrand): a proved answer, a wrong one, no answer.
CASES = (
    ("correct", r"Integrating term by term: \boxed{\frac{x^{3}}{3} + \sin x + C}",
     "x**2 + cos(x)"),
    ("wrong", r"So the answer is \boxed{\frac{t^{4}}{4} - e^{t} + C}", "t**3 + exp(t)"),
    ("no answer", "I am not sure how to integrate this.", "log(y)"),
)


class InProcessExecutor:
    """``submit`` runs the task at once, its arguments and result through
    pickle, and counts the bytes each way."""

    def __init__(self) -> None:
        self.sent = self.received = self.tasks = 0
        self.trip: Trip | None = None

    def submit(self, fn: Any, *args: Any) -> Future:
        payload = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)
        self.sent += len(payload)
        self.tasks += 1
        future: Future = Future()
        if self.trip is not None:
            self.trip.side = "worker"
        try:
            out = pickle.dumps(fn(*pickle.loads(payload)), protocol=pickle.HIGHEST_PROTOCOL)
            self.received += len(out)
            future.set_result(pickle.loads(out))
        except BaseException as exc:  # noqa: BLE001 - handed to the pool like loky does
            future.set_exception(exc)
        finally:
            if self.trip is not None:
                self.trip.side = "parent"
        return future

    def shutdown(self, *args: Any, **kwargs: Any) -> None:
        pass


class Trip:
    """A profiler hook (every thread) noting the calls into ``rewards/``."""

    def __init__(self, root: Path) -> None:
        self.root = str(root) + "/"
        self.package = self.root + "rewards/"
        self.calls = self.crossings = self.depth = self.max_depth = 0
        self.files: set[str] = set()
        self.side = "parent"
        self.sides: dict[str, set[str]] = {"parent": set(), "worker": set()}
        self.functions: set[tuple[str, str]] = set()
        self.conversions = 0
        self.deepest: list[str] = []
        self.hops_to_stages: int | None = None

    def _chain(self, frame: Any) -> list[str]:
        chain = []
        while frame is not None:
            path = self._ours(frame)
            if path is not None:
                chain.append(f"{path[len('rewards/'):]}:{frame.f_code.co_qualname}")
            frame = frame.f_back
        return chain[::-1]

    def _ours(self, frame: Any) -> str | None:
        name = frame.f_code.co_filename
        return name[len(self.root):] if name.startswith(self.package) else None

    def hook(self, frame: Any, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        path = self._ours(frame)
        if path is None:
            return
        if event == "return":
            self.depth -= 1
            return
        self.depth += 1
        if self.depth > self.max_depth:
            self.max_depth = self.depth
            self.deepest = self._chain(frame)
        self.calls += 1
        self.files.add(path)
        self.sides[self.side].add(path)
        qualname = frame.f_code.co_qualname
        if self.hops_to_stages is None and qualname == "_stages" \
                and path == "rewards/check/pipeline.py":
            self.hops_to_stages = len(self._chain(frame))
        self.functions.add((path, qualname))
        if qualname in ("CheckResult.to_dict", "CheckResult.from_dict"):
            self.conversions += 1
        caller = frame.f_back and self._ours(frame.f_back)
        if caller is not None and caller != path:
            self.crossings += 1

    def __enter__(self) -> Trip:
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]


def measure(case: tuple[str, str, str]) -> dict[str, Any]:
    import rewards
    from rewards import AntiderivativeReward

    root = Path(rewards.__file__).resolve().parent.parent
    reward = AntiderivativeReward(workers=1)
    executor = InProcessExecutor()
    reward._pool._executor = executor
    reward._pool._last_used = time.monotonic()
    # Warm: imports, parser caches, the worker memo (other integrands).
    reward.score([r"\boxed{\frac{z^{2}}{2}}", r"\boxed{u}", "none"], ["z", "u", "1"])
    executor.sent = executor.received = executor.tasks = 0
    # The hook reaches threads started after it: let the batcher's runner end.
    while reward._batcher._runner is not None:
        time.sleep(0.01)
    _, completion, integrand = case
    with Trip(root) as trip:
        executor.trip = trip
        (outcome,) = reward.score([completion], [integrand])
    reward.close()
    return {"case": case[0], "verdict": outcome.verdict, "files": len(trip.files),
            "parent": len(trip.sides["parent"]), "worker": len(trip.sides["worker"]),
            "functions": len(trip.functions), "calls": trip.calls,
            "crossings": trip.crossings, "depth": trip.max_depth,
            "conversions": trip.conversions, "tasks": executor.tasks,
            "sent": executor.sent, "received": executor.received,
            "deepest": trip.deepest, "hops": trip.hops_to_stages, "file_list": {side: sorted(files) for side, files in trip.sides.items()}}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--files", action="store_true", help="list the files entered")


def main(args: argparse.Namespace) -> int:
    from .table import markdown_table

    rows, lists = [], []
    for case in CASES:
        m = measure(case)
        rows.append([m["case"], m["verdict"], m["files"], m["parent"], m["worker"],
                     m["functions"], m["calls"],
                     m["crossings"], m["hops"], m["depth"], m["conversions"], m["tasks"], m["sent"],
                     m["received"]])
        lists.append((m["case"], m["file_list"], m["deepest"]))
    print(markdown_table(["completion", "verdict", "files entered", "in the parent",
                          "in the worker", "functions", "calls",
                          "calls across files", "hops to the stages", "deepest stack", "CheckResult<->dict",
                          "tasks", "bytes sent", "bytes back"], rows))
    if args.files:
        for name, sides, deepest in lists:
            print(f"\n{name}, the deepest stack: " + " > ".join(deepest))
            for side, files in sides.items():
                print(f"\n{name}, {side}: {len(files)} files\n  " + "\n  ".join(files))
    return 0
