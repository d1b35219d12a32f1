"""The top-level terms of a LaTeX sum: a long sum is parsed in chunks of
terms, since the grammar builds a sum as a left-nested tree."""
from __future__ import annotations

import sympy as sp

from ...errors import ParseFailure
from ...limits import ANSWER
from .scan import command_at

_OPERAND_END = frozenset(")}]|!'.")


def split_terms(text: str) -> list[str]:
    r"""The top-level terms of a sum, each with its sign, in one linear pass.

    A ``+`` or ``-`` splits only outside every bracket and ``|...|`` (an even
    number of bars before it at bracket depth 0: inside an absolute value the
    count is odd whatever is nested in it) and only after an operand (a
    letter or digit that ends no command name, a closing bracket or bar,
    ``!``, ``'``): ``x^-1``, ``\cdot -x``, ``(-x)`` do not split. Not
    splitting is always safe (the chunk is just longer).

    >>> split_terms(r"x^{2} - \frac{1}{2}|x - 1| + 3")
    ['x^{2} ', '- \\frac{1}{2}|x - 1| ', '+ 3']
    """
    starts = [0]
    depth = bars = 0
    last = ""                       # the kind of the last non-space token
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            name, i = command_at(text, i)
            last = "cmd" if name else "sym"
            continue
        if c in "({[":
            depth += 1
            last = "open"
        elif c in ")}]":
            depth = max(0, depth - 1)
            last = "operand"
        elif c == "|":
            if depth == 0:
                bars += 1
            last = "operand" if depth or bars % 2 == 0 else "open"
        elif c in "+-":
            if depth == 0 and bars % 2 == 0 and last == "operand":
                starts.append(i)
            last = "op"
        elif c.isalnum() or c in _OPERAND_END:
            last = "operand"
        elif c != " ":
            last = "op"
        i += 1
    starts.append(n)
    return [text[a:b] for a, b in zip(starts, starts[1:], strict=False)
            if text[a:b].strip()]


def _chunks(text: str) -> list[str]:
    """The text in pieces of at most ``ANSWER.latex_chunk_terms`` top-level
    terms, and of at most the grammar's characters per call where the terms
    allow: sixteen
    terms with 150-digit exact coefficients are 2,800 characters, more than
    one call takes, while each of them alone is short."""
    terms = split_terms(text)
    if len(terms) > ANSWER.terms:
        raise ParseFailure("too_long", f"{len(terms)} terms (limit {ANSWER.terms})")
    if len(terms) <= ANSWER.latex_chunk_terms and len(text) <= ANSWER.latex_chunk_chars:
        return [text]
    out: list[str] = []
    group: list[str] = []
    size = 0
    for term in terms:
        if group and (len(group) == ANSWER.latex_chunk_terms
                      or size + len(term) > ANSWER.latex_chunk_chars):
            out.append(_joined(group))
            group, size = [], 0
        group.append(term)
        size += len(term)
    if group:
        out.append(_joined(group))
    return out


def _joined(terms: list[str]) -> str:
    chunk = "".join(terms).strip()
    return chunk[1:].lstrip() if chunk.startswith("+") else chunk


def _top_terms(raw: sp.Basic) -> list[sp.Basic]:
    """Terms of an unevaluated (possibly nested) Add, left to right."""
    out: list[sp.Basic] = []
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, sp.Add):
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


