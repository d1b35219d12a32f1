r"""The variable of integration is configurable, and a variable named like an
integration constant (``c``, ``C``, ``K``) is still the variable: its
trailing term is part of F, never dropped as ``+ C``."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    V("variable-t", r"\frac{t^3}{3} + C", "t**2", "latex", OK, symbol="t"),
    V("variable-capital-X", r"\sin X", "cos(X)", "latex", OK, symbol="X"),
    # a variable named like a constant
    V("variable-c-trailing-c-is-kept", r"\frac{c^3}{3} + c", "c**2", "answer", WRONG, symbol="c"),
    V("variable-c-trailing-c-is-a-term", r"\frac{c^3}{3} + c", "c**2 + 1", "answer", OK, symbol="c"),
    V("variable-c-sympy-text", "c**3/3 + c", "c**2 + 1", "answer", OK, symbol="c"),
    V("variable-capital-C-trailing-C-is-kept", r"\frac{C^3}{3} + C", "C**2", "answer", WRONG, symbol="C"),
    V("variable-K-trailing-K-is-a-term", r"\frac{K^3}{3} + K", "K**2 + 1", "answer", OK, symbol="K"),
    V("variable-c-capital-C-is-still-a-constant", r"\frac{c^3}{3} + C", "c**2", "answer", OK, symbol="c"),
]
