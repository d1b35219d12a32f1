"""What one final answer says besides its value: hedge codes (``or``,
``\\pm``) and qualifier words (``for x > 0``) outside ``cases``, and the key
two answers are compared by (see :mod:`rewards.check.extract`)."""
from __future__ import annotations

import re

# --- answer analysis tables -------------------------------------------------
# One token per match, left to right: a control word or symbol (so \\ eats
# both backslashes and \sin its letters), a maximal run of ASCII letters, or
# one special character. Each character is looked at once.
_TOKENS = re.compile("\\\\(?:[A-Za-z]+|.)|[A-Za-z]+|[<>\u00b1\u2213\u2260\u2264\u2265\u2208"
                     "\u2209\u2200]", re.DOTALL)
_HEDGE_WORDS = {"or": "or", "either": "either"}
_HEDGE_COMMANDS = {"lor": "or", "pm": "pm", "mp": "mp"}
_HEDGE_CHARS = {"\u00b1": "pm", "\u2213": "mp"}
_QUALIFIER_WORDS = frozenset({
    "where", "for", "if", "otherwise", "else", "when", "whenever", "with", "assuming",
    "provided", "unless", "except", "valid", "such", "here", "and",
})
_QUALIFIER_COMMANDS = {
    "neq": "neq", "ne": "neq", "lt": "lt", "gt": "gt", "leq": "leq", "le": "leq",
    "leqslant": "leq", "geq": "geq", "ge": "geq", "geqslant": "geq", "in": "in",
    "notin": "notin", "forall": "forall",
}
_QUALIFIER_CHARS = {"<": "lt", ">": "gt", "\u2260": "neq", "\u2264": "leq", "\u2265": "geq",
                    "\u2208": "in", "\u2209": "notin", "\u2200": "forall"}
_CASES = re.compile(r"\\(begin|end)\s*\{\s*[dr]?cases\*?\s*\}")

# Comparison key: spacing that never changes the value, then a trailing constant.
_KEY_NOISE = re.compile(r"\s+|\\[,;:! ]|\\(?:quad|qquad|displaystyle|textstyle|left|right)"
                        r"(?![A-Za-z])")
_KEY_CONSTANT = re.compile(r"\+(?:C|c|K|C_\{?\d{1,3}\}?|\\(?:mathrm|text|mathit)\{(?:C|const)\})$")



_PIECEWISE_CALL = re.compile(r"\bPiecewise\s*\(")


def _outside_piecewise(s: str) -> str:
    """``s`` without its SymPy-syntax ``Piecewise(...)`` calls (their
    conditions are read and checked piece by piece, like ``cases``)."""
    out, pos = [], 0
    for m in _PIECEWISE_CALL.finditer(s):
        if m.start() < pos:
            continue
        depth, i = 1, m.end()
        while i < len(s) and depth:
            depth += {"(": 1, ")": -1}.get(s[i], 0)
            i += 1
        if depth:
            break
        out.append(s[pos:m.start()])
        out.append(" ")
        pos = i
    out.append(s[pos:])
    return "".join(out)


def _outside_cases(s: str) -> str:
    """``s`` without its complete outermost ``cases`` environments (and
    ``Piecewise(...)`` calls)."""
    if "Piecewise" in s:
        s = _outside_piecewise(s)
    if "cases" not in s:
        return s
    parts: list[str] = []
    depth, last, begin = 0, 0, 0
    for m in _CASES.finditer(s):
        if m.group(1) == "begin":
            if depth == 0:
                begin = m.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                parts.append(s[last:begin])
                parts.append(" ")
                last = m.end()
    parts.append(s[last:])
    return "".join(parts)


def answer_flags(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Hedge codes and qualifier words inside one answer, in text order.

    >>> answer_flags(r"\\sin x \\text{ or } -\\sin x"), answer_flags(r"\\ln x \\text{ for } x>0")
    ((('or',), ()), ((), ('for', 'gt')))
    """
    hedges: list[str] = []
    qualifiers: list[str] = []

    def add(bucket: list[str], code: str) -> None:
        if code not in bucket:
            bucket.append(code)

    for m in _TOKENS.finditer(_outside_cases(raw)):
        tok = m.group()
        if tok[0] == "\\":
            word = tok[1:]
            if word in _HEDGE_COMMANDS:
                add(hedges, _HEDGE_COMMANDS[word])
            elif word in _QUALIFIER_COMMANDS:
                add(qualifiers, _QUALIFIER_COMMANDS[word])
        elif tok[0].isascii() and tok[0].isalpha():
            # Only short runs can be words of interest; skip long ones uncopied.
            if len(tok) <= 9:
                word = tok.lower()
                if word in _HEDGE_WORDS:
                    add(hedges, _HEDGE_WORDS[word])
                elif word in _QUALIFIER_WORDS:
                    add(qualifiers, word)
        elif tok in _HEDGE_CHARS:
            add(hedges, _HEDGE_CHARS[tok])
        elif tok in _QUALIFIER_CHARS:
            add(qualifiers, _QUALIFIER_CHARS[tok])
    return tuple(hedges), tuple(qualifiers)


def _comparison_key(s: str) -> str:
    key = _KEY_NOISE.sub("", s).rstrip(".,;")
    return _KEY_CONSTANT.sub("", key) or key

