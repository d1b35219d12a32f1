r"""An answer written as an equation: keep its right-hand side.

Models write ``F(x) = ...``, ``y = ...``, ``\int f\,dx = ...`` or a chain
``\int f\,dx = G(x) = F(x) + C``; the answer is what follows the last
top-level ``=``. Extraction, the LaTeX parser and the SymPy-text parser all
use this one rule, so the same answer reads the same whatever its syntax.
"""
from __future__ import annotations

import re

from .latex.scan import bracket_depth

# One match per character that matters; everything else is skipped unread.
_SPECIALS = re.compile(r"[\\()\[\]{},;=]")
# F(t) = ... names the function's variable; a different one than the
# integration variable means the answer is about something else.
_NAMED_LHS = re.compile(r"\s*[A-Za-z_]\w*\s*\(\s*([A-Za-z_]\w*)\s*\)\s*\Z")


def equation_rhs(text: str, symbol: str | None = None) -> str:
    r"""Text after the last top-level ``=`` (stripped), or ``text`` stripped.

    "Top level" means outside ``()``, ``[]``, ``{}`` and ``\{ \}``, so an
    ``=`` in ``\text{...}`` or a subscript does not count; other control
    symbols (``\,``, ``\;``) are text. Nothing is split when the ``=`` is not
    a definition: a comparison (``==``, ``<=``, ``>=``, ``!=``), a list (a
    top-level ``,`` or ``;``, as in ``x = 1, y = 2``), or, given the
    integration ``symbol``, a left-hand side ``F(t)`` of another variable;
    such text then fails to parse as an expression. An empty right-hand side
    keeps the left one. One forward pass.

    >>> equation_rhs(r"\int x\,dx = \frac{x^2}{2} + C")
    '\\frac{x^2}{2} + C'
    >>> equation_rhs("F(x) := x**2/2"), equation_rhs("F(x) = y = x^2")
    ('x**2/2', 'x^2')
    >>> equation_rhs("x**2 == 4"), equation_rhs("x = 1, y = 2"), equation_rhs("f_{n=1}(x)")
    ('x**2 == 4', 'x = 1, y = 2', 'f_{n=1}(x)')
    >>> equation_rhs("F(t) = t**2/2", symbol="x")
    'F(t) = t**2/2'
    """
    if "=" not in text:
        return text.strip()  # what the pass below returns without an ``=``
    depth, last_eq, first_eq = 0, -1, -1
    i = 0
    search = _SPECIALS.search
    while (m := search(text, i)) is not None:
        i = m.start()
        c = text[i]
        if c == "\\":
            following = text[i + 1:i + 2]
            if following == "{":
                depth += 1
            elif following == "}":
                depth = max(0, depth - 1)
            i += 2
            continue
        nested = bracket_depth(depth, c)
        if nested is not None:
            depth = nested
        elif depth == 0:
            if c in ",;":
                return text.strip()
            if c == "=":
                if (i and text[i - 1] in "<>!=") or text[i + 1:i + 2] == "=":
                    return text.strip()
                last_eq = i
                first_eq = i if first_eq < 0 else first_eq
        i += 1
    if last_eq < 0:
        return text.strip()
    named = _NAMED_LHS.match(text, 0, first_eq)
    if symbol is not None and named is not None and named.group(1) != symbol:
        return text.strip()
    rhs = text[last_eq + 1:].strip()
    if rhs:
        return rhs
    return text[:last_eq].rstrip(" =:").strip()
