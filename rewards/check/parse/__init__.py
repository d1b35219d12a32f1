"""Answer and integrand text -> SymPy expression (never ``eval``).

:func:`parse_answer` picks the parser (:mod:`.latex` or :mod:`.sympy_text`)
and records the stage; :func:`parse_integrand` reads dataset integrands with
roomier limits and a cache.
"""
from __future__ import annotations

from .latex.canon import without_integration_constant
from .read import looks_like_sympy_syntax, parse_answer, parse_integrand, parse_latex_text

__all__ = ["looks_like_sympy_syntax", "parse_answer", "parse_integrand", "parse_latex_text",
           "without_integration_constant"]
