r"""An answer written as an equation: keep its right-hand side.

Models write ``F(x) = ...``, ``y = ...``, ``\int f\,dx = ...`` or a chain
``\int f\,dx = G(x) = F(x) + C``; the answer is what follows the last
top-level ``=``. Both parsers use this one rule, so the same answer reads the
same whatever its syntax.
"""
from __future__ import annotations

import re

# F(t) = ... names the function's variable; a different one than the
# integration variable means the answer is about something else.
_NAMED_LHS = re.compile(r"\s*[A-Za-z_]\w*\s*\(\s*([A-Za-z_]\w*)\s*\)\s*\Z")


def equation_rhs(text: str, symbol: str | None = None) -> str:
    r"""Text after the last top-level ``=``, or ``text`` unchanged.

    Unchanged when there is nothing to split or when the ``=`` is not a
    definition: a comparison (``==``, ``<=``, ``>=``, ``!=``) or a list
    (a top-level ``,`` or ``;``, as in ``x = 1, y = 2``), or, given the
    integration ``symbol``, a left-hand side ``F(t)`` of another variable;
    the text then fails to parse as an expression. An empty right-hand side
    keeps the left one.

    >>> equation_rhs(r"\int x\,dx = \frac{x^2}{2} + C")
    '\\frac{x^2}{2} + C'
    >>> equation_rhs("F(x) := x**2/2")
    'x**2/2'
    >>> equation_rhs("x**2 == 4")
    'x**2 == 4'
    >>> equation_rhs("x = 1, y = 2")
    'x = 1, y = 2'
    >>> equation_rhs("F(t) = t**2/2", symbol="x")
    'F(t) = t**2/2'
    """
    depth, last_eq, escaped = 0, -1, False
    for i, c in enumerate(text):
        if escaped:  # a TeX control symbol (\, \{ \;): text, not structure
            escaped = False
        elif c == "\\":
            escaped = True
        elif c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif depth == 0:
            if c in ",;":
                return text
            if c == "=":
                if (i and text[i - 1] in "<>!=") or text[i + 1:i + 2] == "=":
                    return text
                last_eq = i
    if last_eq < 0:
        return text
    named = _NAMED_LHS.match(text[:text.index("=")])
    if symbol is not None and named is not None and named.group(1) != symbol:
        return text
    rhs = text[last_eq + 1:].strip()
    if rhs:
        return rhs
    return text[:last_eq].rstrip(" =:").strip()
