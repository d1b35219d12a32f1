r"""Linear scans over LaTeX text shared by the canonicalization rules.

Every helper is a single pass (or a compiled regex without nested
quantifiers), so hostile answers stay linear in their length.
"""
from __future__ import annotations

import re

_WS = re.compile(r"\s+")


def collapse_ws(text: str) -> str:
    """Runs of whitespace as one space, stripped."""
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


def bar_matches(s: str, operator_commands: frozenset[str]) -> dict[int, int]:
    r"""Each opening ``|`` -> its closing ``|``, one linear pass.

    A bar can only close an operand, so it opens where no operand ends: at
    the start, after an operator, an opening bracket, an opening bar or a
    command in ``operator_commands`` (``\ln``, ``\cdot``); elsewhere it
    closes the innermost open bar. That reads ``|x-|a||`` as ``|x - |a||``
    where the next bar would close at ``|x-|``. Unmatched bars are absent.

    >>> bar_matches("|x-|a||", frozenset()), bar_matches(r"\ln|x||y|", frozenset({"ln"}))
    ({3: 5, 0: 6}, {3: 5, 6: 8})
    """
    match: dict[int, int] = {}
    stack: list[int] = []
    after_operand = False
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            m = CMD_AT.match(s, i)
            if m:
                after_operand = m.group(1) not in operator_commands
                i = m.end()
                continue
            # \, \; spacing keeps what came before; \} closes, \{ opens.
            if i + 1 < n and s[i + 1] in "{}":
                after_operand = s[i + 1] == "}"
            i += 2
            continue
        if c == "|":
            if stack and after_operand:
                match[stack.pop()] = i          # closed: an operand ends here
            else:
                stack.append(i)
                after_operand = False
        elif not c.isspace():
            after_operand = c.isalnum() or c in ")]}.!'"
        i += 1
    return match
# Environments that nest like brackets for split_top (cases inside cases).
CASES_ENV = re.compile(r"\\(begin|end)\s*\{\s*(d?cases\*?)\s*\}")


def split_top(text: str, sep: re.Pattern[str]) -> list[str]:
    r"""Split at matches of ``sep`` outside (), [], {} and nested ``cases``,
    in one pass; commands (``\,``, ``\quad``) are never split inside.

    >>> split_top(r"a, f(b, c), \{d, e\}", re.compile(","))
    ['a', ' f(b, c)', ' \\{d', ' e\\}']
    """
    parts, depth, last = [], 0, 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            m = sep.match(text, i) if depth == 0 else None
            if m and m.end() > i:
                parts.append(text[last:i])
                last = i = m.end()
                continue
            env = CASES_ENV.match(text, i)
            if env:
                depth += 1 if env.group(1) == "begin" else -1
                i = env.end()
                continue
            cmd = CMD_AT.match(text, i)
            i = cmd.end() if cmd else i + 2
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = sep.match(text, i)
            if m and m.end() > i:
                parts.append(text[last:i])
                last = i = m.end()
                continue
        i += 1
    parts.append(text[last:])
    return parts


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
