r"""LaTeX for the special functions the grammar has no syntax for.

``sympy.latex`` prints elliptic integrals and hypergeometric functions with
notation latex2sympy2_extended cannot read: ``F\left(\phi\middle| m\right)``,
``E\left(m\right)``, ``\Pi\left(n; \phi\middle| m\right)``,
``{}_{2}F_{1}\left(\begin{matrix} a, b \\ c \end{matrix}\middle| z \right)``;
and the incomplete gamma functions, ``\Gamma\left(a, x\right)`` (upper) and
``\gamma\left(a, x\right)`` (lower), which the grammar reads as a gamma of a
tuple (``\Gamma(x)`` with one argument stays the gamma function).
A sixth of the Rubi antiderivatives contain them. Before the main parse each
such call is lifted out of the text: its arguments are parsed on their own
(recursively, with the same parser) and the call is replaced by a placeholder
symbol that the caller substitutes back.

>>> import sympy as sp
>>> text, calls = lift_special_calls(r"2 F\left(x\middle| \frac{1}{2}\right) + x")
>>> text
'2 \\Omega_{9000} + x'
>>> calls[0].name, calls[0].args
('elliptic_f', ['x', '\\frac{1}{2}'])

The notations models write by hand are read the same way: ``F(x \mid m)``
and ``F(x | m)`` (no ``\left``), ``\max(a, b)``/``\min``, Lambert's
``W(x)``, ``W_0(x)``, ``W_{-1}(x)``, ``E_1(x)`` (the exponential integral
E_n), ``H(x)`` (Heaviside), Fresnel's ``\operatorname{S}(x)`` and
``\operatorname{C}(x)``, and ``\operatorname{frac}(x)``.

>>> lift_special_calls(r"W_{0}(x) + \max(x, 0)")[1][1].name
'Max'
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from ...errors import ParseFailure
from ...function_facts import LATEX_CALLS, LATEX_LETTERS, ORDERS
from ...limits import ANSWER
from .functions import check_order
from .scan import splice, split_top

PLACEHOLDER = r"\Omega_{{{}}}"
_FIRST_PLACEHOLDER = 9000

# Elliptic: F, E, K and \Pi followed by \left( ; hypergeometric: {}_{p}F_{q}\left(
_HEAD = re.compile(
    r"(?P<hyper>\{\}_\{?(?P<p>\d)\}?F_\{?(?P<q>\d)\}?\s*\\left\s*\()"
    r"|(?<![A-Za-z\\])(?P<ell>[FEK]|\\Pi)\s*\\left\s*\(")
_TOKEN = re.compile(r"\\left\b|\\right\b|\\middle\s*\|")


@dataclass
class SpecialCall:
    """One special-function call lifted out of the text: its placeholder, kind and argument texts."""
    name: str  # hyper, or a canonical name in the registry's LATEX_CALLS
    args: list[str]  # LaTeX of each argument (hyper: "a1,a2", "b1", "z")
    placeholder: str  # symbol name the main parse produces for this call


def _close(text: str, start: int) -> tuple[int, list[int]]:
    r"""Index just past the ``\right)`` matching the ``\left(`` whose content
    starts at ``start``, and the positions of top-level ``\middle|``."""
    depth, middles = 1, []
    for m in _TOKEN.finditer(text, start):
        token = m.group(0)
        if token.startswith("\\left"):
            depth += 1
        elif token.startswith("\\right"):
            depth -= 1
            if depth == 0:
                rest = text[m.end():].lstrip()
                if not rest.startswith(")"):
                    raise ParseFailure("latex_error", "special function call not closed by )")
                return m.start(), middles
        elif depth == 1:
            middles.append(m.start())
    raise ParseFailure("latex_error", "unbalanced \\left( in a special function call")


_SEPARATORS = {",": re.compile(","), ";": re.compile(";")}


def _split_top(text: str, sep: str) -> list[str]:
    return [p.strip() for p in split_top(text, _SEPARATORS[sep])]


def _arguments(kind: str, inner: str, middles: list[int], offset: int) -> tuple[str, list[str]]:
    if middles:
        cut = middles[0] - offset
        before = inner[:cut]
        after = _TOKEN.sub("", inner[cut:], count=1).strip()
    else:
        before, after = inner, None
    if kind in ("hyper", "F") and after is None:
        # {}_2F_1(a, b; c; z) and F(a, b; c; z): the textbook notation
        parts = _split_top(before, ";")
        if len(parts) == 3 and all(parts):
            return "hyper", parts
    if kind == "hyper":
        matrix = re.fullmatch(r"\s*\\begin\{matrix\}(.*)\\\\(.*)\\end\{matrix\}\s*", before,
                              re.S)
        if matrix is None or after is None:
            raise ParseFailure("latex_error", "unreadable hypergeometric call")
        return "hyper", [matrix.group(1).strip(), matrix.group(2).strip(), after]
    if kind == "F" and after is not None:
        return "elliptic_f", [before.strip(), after]
    if kind == "E":
        return ("elliptic_e", [before.strip(), after]) if after is not None else \
            ("elliptic_e", [before.strip()])
    if kind == "K" and after is None:
        return "elliptic_k", [before.strip()]
    if kind == "\\Pi":
        head = _split_top(before, ";")
        if after is not None and len(head) == 2:
            return "elliptic_pi", [head[0], head[1], after]
        if after is not None and len(head) == 1:
            return "elliptic_pi", [head[0], after]
    raise ParseFailure("latex_error", f"unreadable special function call {kind}")


def _paren_close(text: str, start: int) -> int | None:
    """Index of the ``)`` closing the ``(`` just before ``start``."""
    depth = 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


# Calls written by hand, with ( or \left(: the head, then what it names.
_NAMED = re.compile(
    r"\\(?P<gamma>[Gg]amma)(?![A-Za-z])"
    r"|(?P<maxmin>\\(?:max|min)|\\operatorname\*? ?\{ ?(?:max|min) ?\})"
    r"|(?P<frac>\\(?:operatorname|mathrm|text) ?\{ ?frac ?\})"
    r"|(?P<fresnel>\\(?:operatorname|mathrm) ?\{ ?(?P<fresnel_letter>[SC]) ?\})"
    r"|(?<![A-Za-z\\_^])(?P<lambert>W)(?: ?_ ?(?:\{ ?(?P<branch>0|-1) ?\}|(?P<branch_bare>0)))?"
    r"|(?<![A-Za-z\\_^])E ?_ ?(?:\{ ?(?P<order>\d{1,2}) ?\}|(?P<order_bare>\d))"
    r"|(?<![A-Za-z\\_^])(?P<heaviside>H)"
    r"|(?P<heaviside_op>\\operatorname ?\{ ?H ?\})")
# Spacing commands may sit between a head and its parenthesis (\Gamma\,(a, x)).
_OPEN = re.compile(r"(?:\s*\\[,;:!])*\s*(\\left\s*)?\(")


def _named_call(m: re.Match[str], args: list[str]) -> tuple[str, list[str]] | None:
    """(function, argument texts) for a hand-written call, or None to leave it."""
    if m.group("gamma"):
        # \Gamma(a, x) upper, \gamma(a, x) lower; \Gamma(x) is the gamma function.
        if len(args) != 2 or not all(args):
            return None
        return ("uppergamma" if m.group("gamma") == "Gamma" else "lowergamma"), args
    if m.group("maxmin"):
        name = "Max" if "max" in m.group("maxmin") else "Min"
        return (name, args) if all(args) else None
    if len(args) != 1 or not args[0]:
        return None
    if m.group("frac"):
        return "frac", args
    if m.group("fresnel"):
        return LATEX_LETTERS[m.group("fresnel_letter")], args
    if m.group("lambert"):
        branch = m.group("branch") or m.group("branch_bare")
        return LATEX_LETTERS["W"], args + ([branch] if branch == "-1" else [])
    if m.group("order") or m.group("order_bare"):
        return "expint", [m.group("order") or m.group("order_bare"), *args]
    return "Heaviside", args


# \operatorname{W}(x), \operatorname{W_0}(x): Lambert W as an operator name,
# read as the bare W (a subscript inside the braces moves out of them).
_OPERATOR_LAMBERT = re.compile(r"\\(?:operatorname|mathrm) ?\{ ?W ?(_ ?(?:\{[^{}]*\}|\d))? ?\}")


# \operatorname{E}_{2}\left(x\right), as sympy.latex prints expint(2, x): the
# exponential integral E_n as an operator name, read as the bare E_n.
_OPERATOR_EXPINT = re.compile(r"\\(?:operatorname|mathrm) ?\{ ?E ?\}(?= ?_)")


def _lift_named(text: str, calls: list[SpecialCall]) -> str:
    """Hand-written calls (see the module docstring) -> placeholders."""
    text = _OPERATOR_LAMBERT.sub(lambda m: " W" + (m.group(1) or ""), text)
    text = _OPERATOR_EXPINT.sub(" E", text)
    edits: list[tuple[int, int, str]] = []
    pos = 0
    for m in _NAMED.finditer(text):
        if m.start() < pos:
            continue
        opened = _OPEN.match(text, m.end())
        if opened is None:
            continue
        if opened.group(1):                          # \left( ... \right)
            try:
                close, _middles = _close(text, opened.end())
            except ParseFailure:
                continue
            inner, after = text[opened.end():close], text.index(")", close) + 1
        else:
            close_paren = _paren_close(text, opened.end())
            if close_paren is None:
                continue
            inner, after = text[opened.end():close_paren], close_paren + 1
        named = _named_call(m, _split_top(inner, ","))
        if named is None:
            continue
        if len(calls) >= ANSWER.special_calls:
            raise ParseFailure("too_many_nodes", "too many special function calls")
        placeholder = PLACEHOLDER.format(_FIRST_PLACEHOLDER + len(calls))
        calls.append(SpecialCall(named[0], named[1], placeholder.replace("\\", "")))
        edits.append((m.start(), after, " " + placeholder + " "))
        pos = after
    return splice(text, edits)


# F(x | m), F(x \mid m): an elliptic call written without \left and \middle.
_ELLIPTIC_PLAIN = re.compile(r"(?<![A-Za-z\\])([FE]|\\Pi) ?(\\left ?)?\(")
_RIGHT_AT_END = re.compile(r"\\right\s*\Z")
_MID = re.compile(r"\\mid(?![A-Za-z])|\|")
_MID_COMMAND = re.compile(r"\\mid(?![A-Za-z])")


# \operatorname{F}(...) is the elliptic F written as an operator name.
_OPERATOR_ELLIPTIC = re.compile(
    r"\\(?:operatorname|mathrm) ?\{ ?([FEK]|Pi) ?\}(?= ?(?:\\left ?)?\()")


def _elliptic_notation(text: str) -> str:
    r"""Rewrite ``F(x | m)`` and ``F(x \mid m)`` (with or without \left) into the
    ``F\left(x\middle| m\right)`` that sympy.latex prints."""
    if "|" not in text and "mid" not in text:
        return text
    text = _OPERATOR_ELLIPTIC.sub(lambda m: "\\Pi" if m.group(1) == "Pi" else m.group(1), text)
    edits: list[tuple[int, int, str]] = []
    pos = 0
    for m in _ELLIPTIC_PLAIN.finditer(text):
        if m.start() < pos:
            continue
        close = _paren_close(text, m.end())
        if close is None:
            continue
        inner = text[m.end():close]
        if m.group(2):                               # F\left(x | m\right)
            if "\\middle" in inner:
                continue                             # already as sympy.latex prints it
            inner = _RIGHT_AT_END.sub("", inner)
        separators = [s for s in _MID.finditer(inner) if not _nested(inner, s.start())]
        if len(separators) != 1:
            continue
        sep = separators[0]
        edits.append((m.start(), close + 1, f"{m.group(1)}\\left({inner[:sep.start()]}"
                      f"\\middle| {inner[sep.end():]}\\right)"))
        pos = close + 1
    if not edits:
        return _MID_COMMAND.sub(r"\\middle|", text) if "\\left" in text else text
    return splice(text, edits)


def _nested(text: str, at: int) -> bool:
    depth = 0
    for ch in text[:at]:
        depth += {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}.get(ch, 0)
    return depth > 0


def _semicolons(text: str, start: int) -> bool:
    """Whether the ``\\left(`` call starting at ``start`` reads ``(a, b; c; z)``."""
    try:
        end, middles = _close(text, start)
    except ParseFailure:
        return False
    return not middles and len(_split_top(text[start:end], ";")) == 3


def lift_special_calls(text: str) -> tuple[str, list[SpecialCall]]:
    """Replace each special-function call by a placeholder symbol."""
    calls: list[SpecialCall] = []
    text = _lift_named(_elliptic_notation(text), calls)
    edits: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        m = _HEAD.search(text, pos)
        if m is None:
            break
        kind = "hyper" if m.group("hyper") else m.group("ell")
        if kind == "F" and "\\middle" not in text[m.end():] and not _semicolons(text, m.end()):
            # F\left(x\right) is how a model writes "F(x) = ...", not an
            # elliptic integral (which always has a \middle| in sympy.latex)
            # nor a hypergeometric F(a, b; c; z).
            pos = m.end()
            continue
        if len(calls) >= ANSWER.special_calls:
            raise ParseFailure("too_many_nodes", "too many special function calls")
        end, middles = _close(text, m.end())
        inner = text[m.end():end]
        name, args = _arguments(kind, inner, middles, m.end())
        placeholder = PLACEHOLDER.format(_FIRST_PLACEHOLDER + len(calls))
        calls.append(SpecialCall(name, args, placeholder.replace("\\", "")))
        # Drop "\right" and the ")" after it.
        close = text.index(")", end) + 1
        edits.append((m.start(), close, " " + placeholder + " " if kind != "hyper" else placeholder))
        pos = close
    if not calls:
        return text, []
    return splice(text, edits).strip().replace("  ", " "), calls


def build_call(call: SpecialCall, parse: Callable[[str], sp.Expr]) -> sp.Expr:
    """The SymPy expression for a lifted call, its arguments parsed by ``parse``."""
    if call.name == "hyper":
        upper = [parse(a) for a in _split_top(call.args[0], ",") if a]
        lower = [parse(b) for b in _split_top(call.args[1], ",") if b]
        return sp.hyper(upper, lower, parse(call.args[2]))
    args = [parse(a) for a in call.args]
    func = LATEX_CALLS[call.name]
    if func in ORDERS:
        check_order(func, args[0])
    return func(*args)
