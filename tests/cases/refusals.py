r"""Answers refused before anything is computed, with the reason named: a
completion with no final answer, an empty or unclosed box, and an answer
that qualifies itself in words or with a condition (the word is named;
qualifiers are never silently dropped)."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

UNP = Verdict.UNPARSEABLE

CASES = [
    # extraction finds no answer to read
    V("no-box-in-the-response", "no box here", "x", "response", UNP, "no_answer"),
    V("empty-box", r"\boxed{}", "x", "response", UNP, "empty"),
    V("unclosed-box", r"\boxed{x^2", "x", "response", UNP, "unbalanced"),
    # qualified answers: refused, the qualifying word named
    V("qualified-where-C-in-R", r"\frac{x^2}{2} + C, \text{ where } C \in \mathbb{R}", "x", "latex", UNP,
      "qualified_answer:where"),
    V("qualified-C-in-R-in-parentheses", r"\frac{x^{2}}{2} + C \quad (C \in \mathbb{R})", "x", "latex", UNP,
      "qualified_answer:in"),
    V("qualified-x-neq-0", r"\ln|x| + C, x \neq 0", "1/x", "latex", UNP, "qualified_answer:neq"),
    V("qualified-for-all-x", r"\frac{x^3}{3} + C \text{ for all } x", "x**2", "latex", UNP,
      "qualified_answer:for"),
    V("qualified-where-C-is-minus-x", r"\sin x + C,\ \text{where } C = -x", "cos(x)", "latex", UNP,
      "qualified_answer:where"),
]

