"""Size-capped JSONL trace of rejected and numeric-only samples.

One line per sample, written by the caller (never by workers), rotated like
``logging.handlers.RotatingFileHandler``: ``trace.jsonl`` -> ``trace.jsonl.1``
-> ... -> ``trace.jsonl.<backups>``, the oldest dropped.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any


class TraceWriter:
    def __init__(self, path: str | os.PathLike, max_bytes: int = 50_000_000,
                 backups: int = 3) -> None:
        self.path = Path(path)
        self.max_bytes = int(max_bytes)
        self.backups = int(backups)
        self._lock = threading.Lock()

    def write(self, records: list[dict[str, Any]]) -> None:
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
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
