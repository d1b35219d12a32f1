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


def command_at(s: str, i: int) -> tuple[str, int]:
    r"""The command at the backslash at ``i``: its name and where it ends.

    A control symbol (``\,``, ``\{``) has the name "" and two characters.

    >>> command_at(r"x\sin y", 1), command_at(r"\{x\}", 0)
    (('sin', 5), ('', 2))
    """
    m = CMD_AT.match(s, i)
    return (m.group(1), m.end()) if m else ("", i + 2)


def letters_start(s: str, i: int) -> int:
    """Where the run of letters that ends just before ``i`` starts (``i`` when none)."""
    while i and s[i - 1].isalpha():
        i -= 1
    return i


def command_before(s: str, i: int) -> str | None:
    r"""The name of the command whose letters end just before ``i``, or None
    where those letters follow no backslash.

    ``command_before(t, i + 1)`` says whether the letter at ``i`` is part of a
    command name (the ``e`` of ``\sec``, the ``d`` of ``\mod``).

    >>> command_before(r"\sin^2", 4), command_before(r"x\mod", 4), command_before("sin^2", 3)
    ('sin', 'mo', None)
    """
    k = letters_start(s, i)
    return s[k:i] if k and s[k - 1] == "\\" else None


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` edit made, in one join.

    The edits come in order and do not overlap; without any, ``text`` itself.

    >>> splice("a+b", [(0, 1, "x"), (2, 3, "y")]), splice("a+b", [])
    ('x+y', 'a+b')
    """
    if not edits:
        return text
    out, pos = [], 0
    for start, end, replacement in edits:
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def bracket_depth(depth: int, c: str) -> int | None:
    """The bracket depth after ``c``, or None where ``c`` is no bracket.

    A stray closing bracket leaves the depth at 0: what follows it is top
    level again.
    """
    if c in "([{":
        return depth + 1
    if c in ")]}":
        return max(0, depth - 1)
    return None


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
            name, end = command_at(s, i)
            if name:
                after_operand = name not in operator_commands
            elif i + 1 < n and s[i + 1] in "{}":
                # \, \; spacing keeps what came before; \} closes, \{ opens.
                after_operand = s[i + 1] == "}"
            i = end
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
            i = command_at(text, i)[1]
            continue
        nested = bracket_depth(depth, c)
        if nested is not None:
            depth = nested
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
        return command_at(s, i)[1]
    if c in "+-" and i + 1 < n and s[i + 1].isdigit():
        return i + 2
    return i + 1
