"""Markdown tables and the section writer for ``docs/benchmarks.md``.

>>> print(markdown_table(["a", "b"], [[1, 2.5]]))
| a | b |
| --- | --- |
| 1 | 2.5 |
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from rewards.reward.metrics import percentile


def fmt(value: Any, digits: int = 1) -> str:
    """Numbers for tables: ints as is, floats rounded, None/NaN as a dash.

    >>> fmt(3), fmt(2.345), fmt(None), fmt(float("nan"))
    ('3', '2.3', '–', '–')
    """
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:.{digits}f}"
    return str(value)


def pct(num: int, den: int, digits: int = 1) -> str:
    """``num/den`` as a percentage with the counts.

    >>> pct(1, 4)
    '25.0% (1/4)'
    >>> pct(0, 0)
    '–'
    """
    if not den:
        return "–"
    return f"{100 * num / den:.{digits}f}% ({num}/{den})"


def markdown_table(header: list[str], rows: list[list[Any]]) -> str:
    def cell(v: Any) -> str:
        text = v if isinstance(v, str) else fmt(v)
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_section(path: str | Path, name: str, body: str, title: str | None = None) -> None:
    """Replace the section ``name`` of a Markdown file (between
    ``<!-- bench:NAME:start -->`` and ``<!-- bench:NAME:end -->``), appending
    it when absent, so ``python -m benchmarks accuracy`` and ``... throughput`` each own
    their part of one document."""
    path = Path(path)
    start, end = f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    text = path.read_text() if path.exists() else (f"# {title}\n\n" if title else "")
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _m: block, text)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


__all__ = ["fmt", "markdown_table", "pct", "percentile", "write_section"]
