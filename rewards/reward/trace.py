"""Size-capped JSONL trace of rejected and numeric-only samples.

One line per sample (:func:`trace_record`), for the samples
:func:`should_trace` selects, written by the caller (never by workers) and
rotated like ``logging.handlers.RotatingFileHandler``: ``trace.jsonl`` ->
``trace.jsonl.1`` -> ... -> ``trace.jsonl.<backups>``, the oldest dropped.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from ..check.result import CheckResult, Confidence, Verdict
from .outcome import Outcome, prompt_excerpt


def should_trace(result: CheckResult) -> bool:
    """Rejections and numeric-only accepts: what someone debugging the reward
    (or a reward hack) needs to read; symbolic accepts are not traced."""
    return not (result.verdict is Verdict.CORRECT
                and result.confidence is not Confidence.NUMERIC_ONLY)


def trace_record(o: Outcome, *, step: int | None, batch_index: int, row: int, prompt: Any,
                 shaping: str, reward_name: str) -> dict[str, Any]:
    """One trace line: the sample, its verdict, reward and full stage list."""
    return {
        "time": time.time(), "reward_name": reward_name, "step": step,
        "batch_index": batch_index, "row": row,
        "prompt_excerpt": None if prompt is None else prompt_excerpt(prompt),
        "integrand": o.integrand, "symbol": o.symbol, "extracted_answer": o.extracted,
        "verdict": o.result.verdict.value, "confidence": o.result.confidence.value,
        "reason": o.result.reason, "reward": o.reward, "shaping": shaping,
        "cached": o.cached, "verdict_stage": o.result.stage,
        "stages": [s.to_dict() for s in o.result.stages],
    }


class TraceWriter:
    """Appends trace records to a size-capped, rotated JSONL file."""
    def __init__(self, path: str | os.PathLike, max_bytes: int = 50_000_000,
                 backups: int = 3) -> None:
        self.path = Path(path)
        self.max_bytes = int(max_bytes)
        self.backups = int(backups)
        self._lock = threading.Lock()

    def write(self, records: list[dict[str, Any]]) -> None:
        """Append ``records`` (one JSON line each), rotating past the size cap."""
        if not records:
            return
        lines = [json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records]
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            for line in lines:
                data = line.encode("utf-8")
                if self.max_bytes and self._size() + len(data) > self.max_bytes:
                    self._rotate()
                with open(self.path, "ab") as handle:
                    handle.write(data)

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def _rotate(self) -> None:
        if self._size() == 0:
            return
        if self.backups <= 0:
            self.path.unlink(missing_ok=True)
            return
        for i in range(self.backups - 1, 0, -1):
            src = self.path.with_name(f"{self.path.name}.{i}")
            if src.exists():
                os.replace(src, self.path.with_name(f"{self.path.name}.{i + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))

    def files(self) -> list[Path]:
        """The current file first, then the backups, newest first."""
        names = [self.path] + [self.path.with_name(f"{self.path.name}.{i}")
                               for i in range(1, self.backups + 1)]
        return [p for p in names if p.exists()]


def read_trace(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Every record of a trace file (rotated backups not included)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
