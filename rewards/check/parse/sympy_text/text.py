"""Checks and rewrites on the raw text, before :func:`ast.parse` sees it:
Unicode operators and roots, bracket depth, implicit multiplication."""
from __future__ import annotations

import functools
import re

from ..names import (
    GREEK_VARIANTS,
    SUPERSCRIPT_RUN,
    superscript_text,
)

# A numeric literal immediately followed by an identifier character is implicit
# multiplication (``2x``, ``3sin(x)``). Python rejects it too, but only after
# printing a SyntaxWarning for cases like ``1if``, so we refuse it up front.
# The pattern matches a whole literal greedily; the caller looks at the next
# character (a lookahead here would let the regex backtrack into ``1e5``).
_NUMBER_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9_.])"
    r"(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)"
)
@functools.lru_cache(maxsize=8)
def _long_digit_run(limit: int) -> re.Pattern[str]:
    """A run of more than ``limit`` digits (a literal over the profile's bound)."""
    return re.compile(rf"\d{{{limit + 1},}}")
_FLOAT_LITERAL_RE = re.compile(r"(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\Z")

# Characters models commonly emit instead of ASCII operators. Padding pi with
# spaces keeps ``2π`` / ``xπ`` from silently turning into a name like ``xpi``.
_UNICODE_MAP = str.maketrans({
    "\u03c0": " pi ",   # π
    "\u2212": "-",      # minus sign
    "\u2013": "-",      # en dash
    "\u00d7": "*",      # multiplication sign
    "\u00b7": "*",      # middle dot
    "\u22c5": "*",      # dot operator
    "\u00a0": " ",      # no-break space
    "\u00f7": "/",      # division sign
})
# Unicode roots and superscripts: \u221a(x+1) and \u221ax are sqrt(...), \u221b cbrt;
# x\u00b2 is x**(2), x\u207b\u00b9 is x**(-1) (a run of superscripts at a time).
_ROOTS = {"\u221a": "sqrt", "\u221b": "cbrt"}
_ROOT_ARG = re.compile(r"([\u221a\u221b])\s*(\(|[A-Za-z_]\w*|\d+(?:\.\d+)?)")


# varphi is the letter phi (LaTeX's \\varphi spelled out).
_GREEK_VARIANT_NAME = re.compile(r"(?<![A-Za-z0-9_])var(" + "|".join(GREEK_VARIANTS)
                                 + r")(?![A-Za-z0-9_])")


def _plain_greek(text: str) -> str:
    return _GREEK_VARIANT_NAME.sub(r"\1", text)


def _unicode_math(text: str) -> str:
    text = SUPERSCRIPT_RUN.sub(lambda m: "**(" + superscript_text(m.group(0)) + ")", text)

    def root(m: re.Match[str]) -> str:
        name = _ROOTS[m.group(1)]
        return f"{name}(" if m.group(2) == "(" else f"{name}({m.group(2)})"

    return _ROOT_ARG.sub(root, text)


# --- text pre-checks ------------------------------------------------------
def _max_bracket_depth(text: str) -> int:
    """Linear scan, run before ast.parse: CPython's parser recurses per bracket."""
    depth = best = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            if depth > best:
                best = depth
        elif ch in ")]}":
            depth -= 1
    return best


def _has_implicit_multiplication(text: str) -> bool:
    for m in _NUMBER_TOKEN_RE.finditer(text):
        nxt = text[m.end():m.end() + 1]
        if nxt and (nxt.isalpha() or nxt == "_"):
            return True
    return False

