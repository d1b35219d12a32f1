r"""Linear scans over LaTeX text shared by the canonicalization rules.

Every helper is a single pass (or a compiled regex without nested
quantifiers), so hostile answers stay linear in their length.
"""
from __future__ import annotations

import re

_WS = re.compile(r"\s+")


def collapse_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


def bracket_matches(s: str) -> dict[int, int]:
    r"""Positions of matching (), [], {} (both directions), one linear pass.

    Escaped ``\{``/``\}`` are not brackets. Unmatched brackets are absent.
    """
    pairs = {")": "(", "]": "[", "}": "{"}
    stacks: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    match: dict[int, int] = {}
    for i, c in enumerate(s):
        if c in stacks:
            if i and s[i - 1] == "\\":
                continue
            stacks[c].append(i)
        elif c in pairs:
            if i and s[i - 1] == "\\":
                continue
            st = stacks[pairs[c]]
            if st:
                j = st.pop()
                match[j] = i
                match[i] = j
    return match


CMD_AT = re.compile(r"\\([A-Za-z]+)")


def script_end(s: str, i: int, match: dict[int, int]) -> int | None:
    """End index of a TeX script argument starting at ``i`` (after ^ or _)."""
    n = len(s)
    if i < n and s[i] == " ":
        i += 1
    if i >= n:
        return None
    c = s[i]
    if c == "{":
        j = match.get(i)
        return None if j is None else j + 1
    if c == "\\":
        m = CMD_AT.match(s, i)
        return m.end() if m else i + 2
    if c in "+-" and i + 1 < n and s[i + 1].isdigit():
        return i + 2
    return i + 1
