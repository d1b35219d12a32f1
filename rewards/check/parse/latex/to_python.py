r"""A cheaper path for canonical LaTeX that is a plain expression.

Profiling the LaTeX parse stage (``python -m benchmarks latex-parse``) puts
over 90% of its time in the ANTLR grammar of latex2sympy2_extended, about
half a millisecond per character of ``sympy.latex`` output, in its
full-context prediction; no maintained LaTeX-to-SymPy library is faster
(SymPy's own ``lark`` backend is slower still). Most answers, though, are
plain expressions once canonicalized: numbers, letters, ``+ - \cdot /``,
juxtaposition, ``\frac``, ``\sqrt``, powers, ``|.|`` and function
applications that :func:`~.functions.delimit_arguments` already wrote
as ``\head{ARG}``. For those, :func:`to_python` writes the same expression
in Python syntax, which the safe SymPy-syntax parser
(:mod:`.sympy_text`: an AST allowlist, never ``eval``, with its own
resource guards) builds in a fraction of the time.

The reading is the grammar's, rule for rule: juxtaposition binds tighter
than ``\cdot`` and ``/`` (``a/b c`` is a/(bc)), a superscript applies to the
atom before it, ``\sin^{2}{x}`` is sin(x)^2 and ``\sin^{-1}{x}`` asin(x),
``\log_{b}{x}`` is log(x, b), ``e`` is Euler's number unless it is the
variable. Anything else (a relation, a subscripted symbol, a bare
multi-digit superscript, ``!``, an unknown command, a letter ``E``, ...)
makes :func:`to_python` return ``None`` and the grammar parses the text as
before; so does any refusal of the SymPy-syntax parser, whose guards differ
in detail from the grammar path's. ``tests/test_latex_forms.py`` checks on
every form, on ``sympy.latex`` round trips and on random grammar-generated
text that both paths give the same expression.
"""
from __future__ import annotations

import re

from ...function_facts import INVERSE_OF
from ...limits import ANSWER
from ..names import BY_CANONICAL_NAME
from .functions import FN_PREFIX, HEAD_FUNCTIONS, read_order_stand_in

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|\\([A-Za-z]+)|(\S))")

# Heads the canonical text applies as \head{ARG}, by Python name.
_HEADS = HEAD_FUNCTIONS
# f^{-1} is the inverse function for these (as the grammar reads it).
_INVERSE = {f.__name__: inverse.__name__ for f, inverse in INVERSE_OF.items()
            if f.__name__ in _HEADS}
# A power written on a function head, ``\sin^{2}`` or ``\sin^{\frac{5}{2}}``
# (sympy.latex writes both), read as a power of the application, as the
# grammar reads it; ``^{-1}`` is the inverse (above).
_POWER_OF_HEAD = re.compile(r"-?\d+(?:/\d+)?")


class _Bail(Exception):
    """The text is not a plain expression: let the grammar read it."""


_DERIVATIVE_HEADS = (("letter", "d"), ("cmd", "partial"), ("cmd", "mathrm"))


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]], symbol: str):
        self.tokens = tokens
        self.i = 0
        self.symbol = symbol
        self.bars = 0

    # -- tokens -------------------------------------------------------------
    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.i += 1
        return token

    def expect(self, kind: str, value: str) -> None:
        if self.take() != (kind, value):
            raise _Bail

    # -- grammar --------------------------------------------------------------
    def expr(self) -> str:
        parts = []
        kind, value = self.peek()
        sign = ""
        if (kind, value) in (("char", "-"), ("char", "+")):
            self.take()
            sign = "-" if value == "-" else ""
        parts.append(sign + self.term())
        while self.peek() in (("char", "+"), ("char", "-")):
            op = self.take()[1]
            parts.append(op + self.term())
        return "".join(parts)       # every consumer wraps it in parentheses

    def term(self) -> str:
        out = self.product()
        while True:
            token = self.peek()
            if token in (("cmd", "cdot"), ("cmd", "times"), ("char", "*")):
                self.take()
                out += "*" + self.product()
            elif token == ("char", "/"):
                self.take()
                out += "/" + self.product()
            else:
                return out

    def product(self) -> str:
        """Juxtaposed factors: ``2 x \\sqrt{y}`` (tighter than ``\\cdot``)."""
        factors = [self.power()]
        while self.starts_factor():
            factors.append(self.power())
        return factors[0] if len(factors) == 1 else "(" + "*".join(factors) + ")"

    def starts_factor(self) -> bool:
        kind, value = self.peek()
        if kind in ("num", "letter"):
            return True
        if kind == "cmd":
            return value in ("frac", "sqrt", "pi", "text") or value in _HEADS or value == "log"
        if kind == "char":
            return value in "({" or (value == "|" and self.bars == 0)
        return False

    def power(self) -> str:
        base = self.atom()
        if self.peek() == ("char", "^"):
            self.take()
            base = f"({base})**({self.script()})"
        if self.peek() in (("char", "^"), ("char", "_"), ("char", "!"), ("char", "'")):
            raise _Bail
        return base

    def script(self) -> str:
        """A superscript: one digit or letter, ``\\pi``, or a braced expression."""
        kind, value = self.take()
        if kind == "num":
            if len(value) != 1 or self.peek()[0] == "num":
                raise _Bail             # x^23: TeX raises only the 2
            return value
        if kind == "letter":
            return self.letter(value)
        if (kind, value) == ("cmd", "pi"):
            return "pi"
        if (kind, value) == ("char", "{"):
            inner = self.expr()
            self.expect("char", "}")
            return f"({inner})"
        raise _Bail

    def letter(self, value: str) -> str:
        """A letter is a symbol of that name (``e``: Euler's number), as in
        the grammar; ``E`` and ``I`` mean something else in Python."""
        if value == self.symbol:
            return value
        if value == "e":
            return "E"
        if value in ("E", "I"):
            raise _Bail
        return value

    def group(self, opening: str, closing: str) -> str:
        self.expect("char", opening)
        inner = self.expr()
        self.expect("char", closing)
        return f"({inner})"

    def atom(self) -> str:
        kind, value = self.take()
        if kind == "num":
            return value
        if kind == "letter":
            return self.letter(value)
        if kind == "char":
            if value in "({":
                inner = self.expr()
                self.expect("char", ")" if value == "(" else "}")
                return f"({inner})"
            if value == "|" and self.bars == 0:
                self.bars += 1
                inner = self.expr()
                self.expect("char", "|")
                self.bars -= 1
                return f"Abs({inner})"
            raise _Bail
        if kind != "cmd":
            raise _Bail
        if value == "pi":
            return "pi"
        if value == "frac":
            if self.peek(1) in _DERIVATIVE_HEADS and self.derivative_ahead():
                raise _Bail             # \frac{d}{dx} is the grammar's derivative
            top = self.group("{", "}")
            return f"({top}/{self.group('{', '}')})"      # both parts parenthesized
        if value == "sqrt":
            if self.peek() == ("char", "["):
                index = self.group("[", "]")
                return f"{self.group('{', '}')}**(1/{index})"
            return f"sqrt{self.group('{', '}')}"
        if value == "text":
            self.expect("char", "{")
            if self.take() != ("letter", "e"):
                raise _Bail
            self.expect("char", "}")
            return "E" if self.symbol != "e" else "e"
        if value in _HEADS or value == "log":
            return self.application(value)
        raise _Bail

    def derivative_ahead(self) -> bool:
        r"""Whether the fraction starting at the current ``{`` has a
        denominator that starts like a differential (``\frac{d}{dx}``,
        ``\frac{d y}{d x}``); ``\frac{d x^2}{2}`` is a parameter d times x^2."""
        depth, j = 0, self.i
        while j < len(self.tokens):
            if self.tokens[j] == ("char", "{"):
                depth += 1
            elif self.tokens[j] == ("char", "}"):
                depth -= 1
                if depth == 0:
                    break
            j += 1
        return self.peek(j + 1 - self.i) == ("char", "{") and \
            self.peek(j + 2 - self.i) in _DERIVATIVE_HEADS

    def application(self, head: str) -> str:
        r"""``\head{ARG}`` with an optional ``^{n}`` and, for ``\log``, a base."""
        name = _HEADS.get(head)
        base = None
        if head == "log":
            if self.take() != ("char", "_"):
                raise _Bail
            base = self.log_base()
            if base.startswith(FN_PREFIX):
                canonical = base[len(FN_PREFIX):]
                ordered = read_order_stand_in(canonical)
                if ordered is not None:
                    name, base = f"{ordered[0].__name__}({ordered[1]},", None
                elif canonical in BY_CANONICAL_NAME:
                    name, base = canonical, None
                else:
                    raise _Bail
            else:
                name = "log"
        exponent = None
        if self.peek() == ("char", "^"):
            self.take()
            exponent = self.script()
        bare = None if exponent is None else exponent.replace("(", "").replace(")", "")
        if bare == "-1" and head in _INVERSE:
            name, exponent = _INVERSE[head], None
        elif bare is not None and not _POWER_OF_HEAD.fullmatch(bare):
            raise _Bail             # \sin^{x}{y}: the grammar decides
        argument = self.group("{", "}")
        if name is None:
            raise _Bail
        call = (f"{name}{argument})" if name.endswith(",") else
                f"log({argument}, {base})" if base is not None else f"{name}{argument}")
        return f"({call})**({exponent})" if exponent is not None else call

    def log_base(self) -> str:
        kind, value = self.take()
        if kind == "num" and len(value) == 1:
            return value
        if (kind, value) != ("char", "{"):
            raise _Bail
        if self.peek() == ("cmd", "text"):
            self.take()
            self.expect("char", "{")
            words = []
            while self.peek()[0] in ("letter", "num"):
                words.append(self.take()[1])
            self.expect("char", "}")
            self.expect("char", "}")
            return "".join(words)
        inner = self.expr()
        self.expect("char", "}")
        return inner


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            break
        pos = m.end()
        if m.group(1) is not None:
            out.append(("num", m.group(1)))
        elif m.group(2) is not None:
            out.append(("cmd", m.group(2)))
        elif m.group(3) is not None:
            c = m.group(3)
            out.append(("letter", c) if c.isalpha() and c.isascii() else ("char", c))
        if len(out) > ANSWER.fast_tokens:
            raise _Bail
    return out


def to_python(canonical: str, symbol: str) -> str | None:
    r"""The canonical LaTeX ``canonical`` in Python syntax, or None.

    >>> to_python(r"\frac{x^2}{2} + 3 (\sin{x})", "x")
    '(((x)**(2))/(2))+(3*(sin(x)))'
    >>> to_python(r"x \le 1", "x") is None
    True
    """
    try:
        reader = _Reader(_tokens(canonical), symbol)
        out = reader.expr()
        if reader.peek()[0] != "end":
            return None
    except (_Bail, RecursionError):
        return None
    return out
