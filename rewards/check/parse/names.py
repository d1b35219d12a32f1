"""Names shared by both answer parsers (LaTeX and SymPy text).

One table (a view of the registry in :mod:`rewards.check.function_facts`) says
which function names an answer may use and what SymPy function each spelling
means, so ``\\operatorname{arcsinh}``, ``asinh(x)`` and
``\\sinh^{-1}`` can never disagree between the two syntaxes. The size limits
of both parsers live in :mod:`rewards.check.limits`.
"""
from __future__ import annotations

import re

import sympy as sp

from ..function_facts import SPELLINGS

# --- one-argument functions, by every spelling a model uses ----------------
# A view of the function registry (rewards.check.function_facts), so both parsers
# read one table. The canonical SymPy class name (``FUNCTIONS[s].__name__``)
# is what the LaTeX parser writes into its stand-ins, so it must round-trip.
FUNCTIONS: dict[str, type[sp.Function]] = SPELLINGS
# Greek letters as names of a variable or a parameter (``theta``), in both
# syntaxes; those SymPy takes for functions or constants (gamma, zeta, pi)
# and Python's lambda are not among them.
GREEK_NAMES = frozenset({
    "alpha", "beta", "delta", "epsilon", "eta", "theta", "iota", "kappa", "mu", "nu", "xi",
    "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
})
# Variant letter forms are the same letter (``\varphi``, ``varphi``: phi), in
# both syntaxes: a model that names the variable phi may write either.
GREEK_VARIANTS = ("phi", "theta", "epsilon", "rho", "sigma", "kappa")
# Canonical name -> function, for rebuilding the LaTeX parser's stand-ins.
BY_CANONICAL_NAME: dict[str, type[sp.Function]] = {f.__name__: f for f in FUNCTIONS.values()}

# --- Unicode superscripts, read by both parsers ------------------------------
SUPERSCRIPTS = {"\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4",
                "\u2075": "5", "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9",
                "\u207b": "-", "\u207a": "+", "\u02e3": "x", "\u207f": "n"}
SUPERSCRIPT_RUN = re.compile("[" + "".join(SUPERSCRIPTS) + "]+")


def superscript_text(run: str) -> str:
    """``'\u207b\u00b9'`` -> ``'-1'``."""
    return "".join(SUPERSCRIPTS[c] for c in run)


# --- the integration variable ---------------------------------------------
_VARIABLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}\Z")


def valid_variable_name(name: object) -> bool:
    """Whether ``name`` can be the integration variable: a short identifier
    that is not a function name (a dataset's per-row symbol column is data,
    and a bad value must be a verdict, not a crash).

    >>> valid_variable_name("t"), valid_variable_name("x y"), valid_variable_name("sin")
    (True, False, False)
    """
    return (isinstance(name, str) and bool(_VARIABLE_NAME.match(name)) and "__" not in name
            and name not in FUNCTIONS)


# --- the constant of integration -------------------------------------------
# Only these names may appear besides the variable (and the integrand's own
# parameters), and only as additive terms: ``x**2/2 + C`` is fine, ``C*x`` and
# ``x**2/2 + y`` are not. Both parsers and the normalizer read this one rule.
_CONSTANT_NAME = re.compile(r"^(?:C|c|K)(?:_?\{?\d{1,2}\}?)?$|^const(?:ant)?$")


def is_constant_name(name: str) -> bool:
    """Whether a symbol name reads as an integration constant.

    >>> is_constant_name("C_1"), is_constant_name("K"), is_constant_name("y")
    (True, True, False)
    """
    return bool(_CONSTANT_NAME.match(name))
