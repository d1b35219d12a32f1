r"""Function applications in LaTeX: one spelling per function, delimited arguments.

Two rewrites that run last in :func:`~rewards.check.parse.latex.canon.canonicalize_latex`:

* :func:`rename_functions` maps every spelling (``\operatorname{atan}``,
  ``\text{erf}``, bare ``arcsinh``, ``\sech``) onto a command the grammar
  reads correctly, or onto a stand-in ``\log_{\text{FN<name>}}`` -- a
  function token the grammar delimits like any other -- for functions it has
  no command for; :mod:`rewards.check.parse.latex` turns stand-ins back into
  SymPy functions.
* :func:`delimit_arguments` writes every application as ``(\head{ARG})``,
  because the grammar lets an unparenthesised argument run on through
  ``\cdot`` and ``/``.

Which names exist and what they mean comes from the function registry
(:data:`rewards.check.function_facts.SPELLINGS`), which the SymPy-text parser
reads too; so does which names take an integer order as a subscript
(:data:`~rewards.check.function_facts.ORDER_SUBSCRIPTS`: ``\operatorname{Li}_3``),
whose stand-in carries the order (``FNpolylog3``, see :func:`order_stand_in`).
"""
from __future__ import annotations

import re
from itertools import pairwise

import sympy as sp

from ...errors import ParseFailure
from ...function_facts import INVERSE_OF, ORDER_SUBSCRIPTS, ORDERS, TEXT_CALLS
from ..names import FUNCTIONS
from .scan import CMD_AT, bar_matches, bracket_matches, collapse_ws, command_at, script_end, splice

# Stand-in for a function the grammar does not know: \log_{\text{FN<name>}}.
FN_PREFIX = "FN"

# Commands the grammar reads as functions with a delimited argument, by the
# SymPy function they mean.
_NATIVE_COMMAND: dict[type[sp.Function], str] = {
    sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.csc: "csc", sp.sec: "sec", sp.cot: "cot",
    sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh",
    sp.asin: "arcsin", sp.acos: "arccos", sp.atan: "arctan", sp.acsc: "arccsc",
    sp.asec: "arcsec", sp.acot: "arccot",
    sp.asinh: "arcsinh", sp.acosh: "arccosh", sp.atanh: "arctanh",
}
_NATIVE = frozenset(_NATIVE_COMMAND.values()) | {"exp", "ln", "log"}
# Other spellings of the native commands.
_ALIASES = {name: _NATIVE_COMMAND[f] for name, f in FUNCTIONS.items()
            if f in _NATIVE_COMMAND and name != _NATIVE_COMMAND[f]}
# Spellings of functions the grammar does not know -> canonical SymPy name.
_SPECIAL_NAMES = {name: f.__name__ for name, f in FUNCTIONS.items() if f not in _NATIVE_COMMAND}
# f^{-1} for special names means the inverse function.
_SPECIAL_INVERSE = {f.__name__: inverse.__name__ for f, inverse in INVERSE_OF.items()
                    if f not in _NATIVE_COMMAND}
# Bare words (no backslash) we read as functions: only unambiguous ones.
_BARE_OK = frozenset(n for n in (*_NATIVE, *FUNCTIONS, *ORDER_SUBSCRIPTS) if len(n) >= 3) | {"ln"}
# Heads whose argument we delimit ourselves (after renaming, all functions
# are one of these; stand-ins are \log_{...}).
HEADS = _NATIVE | {"arsinh", "arcosh", "artanh"}
# Each head but \log (which may take a base) -> the SymPy function it applies, by name.
HEAD_FUNCTIONS = {h: (FUNCTIONS.get(h) or TEXT_CALLS[h][0]).__name__ for h in HEADS if h != "log"}
# Commands that end an unparenthesised function argument.
_ARG_STOP_CMDS = frozenset({
    "cdot", "times", "div", "pm", "mp", "quad", "qquad", "le", "leq", "ge", "geq",
    "ne", "neq", "approx", "to", "in", "int", "sum", "prod", "lim", "right",
    "rbrace", "rangle", "end", "text", "mathrm", "operatorname",
})
# Commands after which a | opens an absolute value (\ln|x|, \cdot|x|).
_BAR_OPENERS = ((HEADS | _ARG_STOP_CMDS | {"frac", "dfrac", "tfrac", "sqrt", "left", "middle"})
                - {"right", "rbrace", "rangle", "end"})


_FUNC_NAME = re.compile(
    r"(?P<wrap>\\(?:operatorname\*?|mathrm|text|textrm|textup|textnormal|mathit|rm|mathop)"
    r" ?\{ ?(?P<wname>[A-Za-z]+) ?\})"
    r"|\\(?P<cmd>[A-Za-z]+)"
    r"|(?P<bare>[A-Za-z]+)")
_SUBSCRIPT_ORDER = re.compile(r" ?_ ?(?:\{ ?(\d{1,3}) ?\}|(\d))")
_INV_POWER = re.compile(r" ?\^ ?(?:\{ ?-1 ?\}|-1)")
_LOG_SUB = re.compile(r" ?_")


def rename_functions(t: str, fired: set[str]) -> str:
    """Rename every function spelling to one the grammar reads correctly."""
    edits: list[tuple[int, int, str]] = []
    pos = 0
    for m in _FUNC_NAME.finditer(t):
        if m.start() < pos:
            continue
        kind = "wrap" if m.group("wrap") else "cmd" if m.group("cmd") else "bare"
        name = m.group("wname") or m.group("cmd") or m.group("bare")
        if kind == "bare" and name not in _BARE_OK:
            continue
        end = m.end()
        repl = None
        if name in _NATIVE or name in _ALIASES:
            target = _ALIASES.get(name, name)
            if target == "log" and _LOG_SUB.match(t, end):
                repl = r"\log"                  # explicit base: \log_2, \log_{10}
            elif target == "log":
                repl = r"\ln"
                fired.add("natural_log")
            else:
                repl = "\\" + target
            if target != name:
                fired.add("function_alias")
        elif name in _SPECIAL_NAMES or name in ORDER_SUBSCRIPTS:
            canon = _SPECIAL_NAMES.get(name)
            order = _SUBSCRIPT_ORDER.match(t, end) if name in ORDER_SUBSCRIPTS else None
            inv = _INV_POWER.match(t, end) if canon in _SPECIAL_INVERSE else None
            if order:
                canon = order_stand_in(ORDER_SUBSCRIPTS[name], order.group(1) or order.group(2))
                end = order.end()
            elif canon is None:
                continue                        # an order name without its order
            elif inv:
                canon = _SPECIAL_INVERSE[canon]
                end = inv.end()
            repl = r"\log_{\text{" + FN_PREFIX + canon + "}}"
            fired.add("special_function")
        if repl is None:
            continue
        if kind == "wrap":
            fired.add("operatorname")
        elif kind == "bare":
            fired.add("bare_function_name")
        edits.append((m.start(), end, repl + (" " if t[end:end + 1].isalnum() else "")))
        pos = end
    return collapse_ws(splice(t, edits))


_ORDERED = {f.__name__: f for f in ORDERS}
_STAND_IN_ORDER = re.compile(r"([A-Za-z_]+?)(\d+)")


def order_stand_in(func: type, order: str) -> str:
    """The stand-in name of ``func`` of integer order ``order`` (digits):
    ``polylog3`` for ``\\operatorname{Li}_3``, read back by :func:`read_order_stand_in`."""
    return func.__name__ + order


def read_order_stand_in(name: str) -> tuple[type, int] | None:
    """``(function, order)`` for a stand-in name of a function with an order, else None.

    >>> read_order_stand_in("polylog3"), read_order_stand_in("Li")
    ((polylog, 3), None)
    """
    m = _STAND_IN_ORDER.fullmatch(name)
    if m is None or m.group(1) not in _ORDERED:
        return None
    return _ORDERED[m.group(1)], int(m.group(2))


def check_order(func: type, order: sp.Basic) -> None:
    """Refuse a numeric order of ``func`` above the registry's bound for it
    (:class:`~rewards.check.function_facts.Order`); SymPy expands a large
    one into as many terms."""
    bound = ORDERS[func].bound
    if order.is_Number and abs(order) > bound:
        raise ParseFailure("number_too_large", f"{func.__name__} of order above {bound}")


# Commands whose arguments (braced groups) belong to the same factor.
_FACTOR_ARGUMENTS = {"frac": 2, "binom": 2, "sqrt": 1}
_TEXT_GROUP = re.compile(r"\\(?:text|mathrm|operatorname) ?\{[^{}]*\}")
_COMMAND_NAME = re.compile(r"\\[A-Za-z]+")


def holds_variable(factor: str, symbol: str) -> bool:
    r"""Whether LaTeX ``factor`` mentions the variable ``symbol``.

    >>> holds_variable(r"\frac{x}{2}", "x"), holds_variable(r"\pi", "x"), holds_variable("2", "x")
    (True, False, False)
    >>> holds_variable(r"\theta", "theta"), holds_variable(r"\exp{2}", "x")
    (True, False)
    """
    text = _TEXT_GROUP.sub(" ", factor)
    if len(symbol) == 1:
        return symbol in _COMMAND_NAME.sub(" ", text)
    return re.search(r"(?<![A-Za-z])" + re.escape(symbol) + r"(?![A-Za-z])", text) is not None


def _scan_bare_argument(s: str, k: int, match: dict[int, int], bars: dict[int, int],
                        apps: dict[int, tuple[int, int, str] | None],
                        symbol: str) -> int | None:
    r"""End of an unparenthesised function argument starting at ``k``.

    The argument is a run of factors (letters, numbers, groups, ``\frac``
    and ``\sqrt`` with their arguments, ``\pi``, each with its scripts) up to
    and including the first factor that holds the variable ``symbol``, as
    people read ``\sin 2x``, ``\sin \pi x``, ``\sin \frac{x}{2}`` and
    ``\log x(\log x - 1)`` (docs/domain.md, "How LaTeX is read"). It also
    stops at a top-level operator, closing bracket, ``\cdot``/``\times``,
    another function, or ``e^``. A function as the first factor
    (``\sin \cos x``) is taken whole, from ``apps``. Returns ``None`` when
    the argument should be left to the grammar.
    """
    n = len(s)
    i, consumed = k, 0
    factor = -1          # where the factor being read starts
    owed = 0             # braced arguments its command still takes
    number = False       # the factor is a run of digits so far

    def new_factor(at: int) -> bool:
        """Start a factor at ``at``; False when the argument ended before it."""
        nonlocal factor, owed, number
        if factor >= 0 and holds_variable(s[factor:at], symbol):
            return False
        factor, owed, number = at, 0, False
        return True

    while i < n:
        c = s[i]
        if c == " ":
            i += 1
        elif c in "{([":
            j = match.get(i)
            if j is None:
                return None
            if owed and c in "{[":
                owed -= c == "{"
            elif not new_factor(i):
                break
            i, consumed = j + 1, consumed + 1
        elif c == "\\":
            name, end = command_at(s, i)
            if not name:
                break
            if name in HEADS:
                if consumed:
                    break
                app = apps.get(i)
                if app is None:
                    return None
                new_factor(i)
                i, consumed = app[1], 1
                continue
            if name in _ARG_STOP_CMDS:
                break
            if not new_factor(i):
                break
            owed = _FACTOR_ARGUMENTS.get(name, 0)
            i, consumed = end, consumed + 1
        elif c in "^_":
            j = script_end(s, i + 1, match)
            if j is None:
                return None
            i, consumed = j, consumed + 1
        elif c == "|":
            if consumed:
                break
            j = bars.get(i)
            if j is None:
                return None
            new_factor(i)
            i, consumed = j + 1, 1
        elif c.isalnum() or c == ".":
            if c == "e" and consumed:
                rest = s[i + 1:i + 3].lstrip()
                if rest.startswith("^"):
                    break
            digit = c.isdigit() or c == "."
            if owed:
                owed -= 1            # \frac12, \sqrt2: a one-character argument
            elif not (digit and number and s[i - 1] in "0123456789."):
                if not new_factor(i):
                    break
                number = digit
            i, consumed = i + 1, consumed + 1
        elif c in "+-" and consumed == 0:
            i += 1
        elif c in "!'" and consumed:
            i += 1
        else:
            break
    if not consumed:
        return None
    while i > k and s[i - 1] == " ":
        i -= 1
    return i


def delimit_arguments(t: str, symbol: str | None = None) -> str:
    r"""Delimit every function application as ``(\head{ARG})``.

    The grammar lets an unparenthesised argument run on through ``\cdot``,
    ``*`` and ``/``, reads ``\ln{(x)}^{2}`` as ``ln(x**2)``, and is several
    times slower on ``\sin(x)`` than on ``(\sin{x})``. So:

    * ``\sin x \cdot \cos x`` -> ``(\sin{x}) \cdot (\cos{x})``
    * ``\ln{(x )}^{2}`` (SymPy's (log x)**2) -> ``(\ln{(x )})^{2}``
    * ``\sin(x+1)^2`` -> ``(\sin{x+1})^2``
    * ``\sin \cos x`` -> ``(\sin{(\cos{x})})``
    """
    if "\\" not in t:
        return t
    match = bracket_matches(t)
    n = len(t)
    bars = bar_matches(t, _BAR_OPENERS)
    heads = [m for m in CMD_AT.finditer(t) if m.group(1) in HEADS]
    # head start -> (argument start, application end, kind); right to left so
    # an inner application is known before the one whose argument it is.
    apps: dict[int, tuple[int, int, str] | None] = {}
    for m in reversed(heads):
        j = m.end()
        for _ in range(2):
            k = j + 1 if j < n and t[j] == " " else j
            if k < n and t[k] in "_^":
                end = script_end(t, k + 1, match)
                if end is None:
                    break
                j = end
            else:
                break
        k = j + 1 if j < n and t[j] == " " else j
        app: tuple[int, int, str] | None = None
        if k < n and t[k] in "({":
            close = match.get(k)
            if close is not None:
                app = (k, close + 1, t[k])
        elif k < n:
            end = _scan_bare_argument(t, k, match, bars, apps, symbol or "x")
            if end is not None and end > k:
                app = (k, end, "bare")
        apps[m.start()] = app
    # (position, order, replaced length, text): at one position, closings
    # (innermost first), then replacements, then openings (outermost first).
    edits: list[tuple[int, tuple[int, int], int, str]] = []
    for head_start, app in apps.items():
        if app is None:
            continue
        arg_start, app_end, kind = app
        edits.append((head_start, (2, head_start), 0, "("))
        if kind == "(":
            edits.append((arg_start, (1, 0), 1, "{"))
            edits.append((app_end - 1, (1, 0), 1, "}"))
            edits.append((app_end, (0, -head_start), 0, ")"))
        elif kind == "{":
            edits.append((app_end, (0, -head_start), 0, ")"))
        else:
            edits.append((arg_start, (2, head_start), 0, "{"))
            edits.append((app_end, (0, -head_start), 0, "})"))
    edits.sort(key=lambda e: (e[0], e[1]))
    spans = [(start, start + length, text) for start, _order, length, text in edits]
    if any(later[0] < earlier[1] for earlier, later in pairwise(spans)):
        return t                   # overlapping edits: give up, keep the text
    return splice(t, spans)
