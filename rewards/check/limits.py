"""Every bound on the size of what a check reads: one home, two profiles.

Model output is untrusted: each bound keeps the cost of reading and
evaluating an input bounded by the input, never by what it makes SymPy
compute. An answer comes from the policy (:data:`ANSWER`); an integrand from a
dataset (:data:`INTEGRAND`), which may have steep features and long texts of
its own but is read by the same safe parsers. A parser or stage takes a
profile and reads its bounds from it; nothing else defines a size bound.

The guards bound what evaluating a parsed expression may cost, not how a
literal looks: ``x^{2024}`` and ``(1-x)^{2015}`` are cheap (SymPy never
expands a power of a sum by itself; d/dx and numeric evaluation are linear in
the exponent's digits), so a power of the variable may have a large
exponent; a power of a *number* is bounded by the size of the number it
makes; and a huge constant that is only an additive term of an answer
(``+ 10^{10^{10}}``) is dropped unevaluated, since it vanishes under d/dx.

Not here, because they are not bounds on an input but how much evidence a
check gathers or how far a proof goes: the sampling and precision parameters
of ``check/evidence/`` (``MAX_BREAKPOINTS``, ``MAX_FEATURES``,
``MAX_EXTRA_DIGITS``, ...) and the normal form's own caps
(``proof/normal_form/algebra.py``).

>>> ANSWER.exponent, INTEGRAND.exponent
(5000, 50000)
>>> LATEX_FAST_PATH.sympy_chars == 4 * ANSWER.latex_chars
True
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Limits:
    """Size bounds of one kind of input (see :data:`ANSWER`, :data:`INTEGRAND`)."""

    # --- text --------------------------------------------------------------
    # A whole response (characters; bytes are refused at 4x this before decoding).
    response_chars: int = 200_000
    # The extracted final answer.
    answer_chars: int = 5_000
    # Raw LaTeX before canonicalization (before any regex runs).
    latex_input_chars: int = 10_000
    # Canonical LaTeX: "too_long" (an extracted answer is at most 5,000 characters).
    latex_chars: int = 8000
    # Text handed to the LaTeX grammar in one call: "too_long" (its time grows
    # with the text: 1.3 s for one 2,500-character term, a fraction holding an
    # expanded polynomial over one denominator).
    latex_chunk_chars: int = 3000
    # Bracket nesting of LaTeX: "too_deep" (the ANTLR parser's time grows steeply).
    latex_depth: int = 20
    # x^{x^{x^{x^{...}}}}: "too_deep".
    script_depth: int = 4
    # Braced ^{...} / _{...} groups per grammar call: "too_deep".
    script_groups: int = 40
    # '|' characters per grammar call: "too_deep".
    bars: int = 40
    # Tokens the fast LaTeX-to-Python translation handles.
    fast_tokens: int = 4000
    # e^{e^{e^{...}}} nesting the canonicalizer rewrites.
    exp_nesting: int = 8
    # Wrappers (\boxed, \text, ...) peeled off one answer.
    unwrap_depth: int = 8
    # SymPy-syntax text: characters, nesting (brackets and tree levels; a flat
    # a+b+c+... is one level) and AST nodes.
    sympy_chars: int = 5000
    sympy_depth: int = 60
    sympy_nodes: int = 5000

    # --- numbers -----------------------------------------------------------
    # All exact constants of a LaTeX answer together (bits): "number_too_large"
    # (str() of an int over 4300 digits raises ValueError).
    const_bits: int = 12_000
    # Constant base of a non-integer power (sqrt of a huge integer makes SymPy
    # hunt for perfect powers: seconds).
    root_base_bits: int = 200
    # Significant digits of a decimal literal: "number_too_large".
    decimal_digits: int = 100
    # Integer literals of SymPy text: nobody writes a 100-digit constant in an
    # antiderivative, and huge literals only feed attacks.
    literal_digits: int = 100
    # Every number SymPy may produce while a SymPy-text answer is built (~10^1000).
    number_digits: int = 1000
    # Numeric radicals (2^(1/3), sqrt(p/q)) make SymPy trial-factor the radicand,
    # and products of radicals merge into one; >100 digits costs seconds
    # (sqrt of a 1000-digit rational: ~1.4 s).
    radicand_digits: int = 100

    # --- powers ------------------------------------------------------------
    # |numeric exponent| of a power whose base is a function of the variable
    # only (x^{2024}, (1-x)^{2015}, \tan^{2025} x), and every number inside a
    # symbolic exponent is bounded by exponent_coefficient (e^{6048x}).
    exponent: int = 5000
    exponent_coefficient: int = 100_000
    # A base holding any other symbol (an integration constant, a stray
    # letter, a parameter): SymPy asks assumption questions about such a base
    # that can expand the power (cost ~n^3 for a complex base: 0.3 s at 100).
    symbolic_exponent: int = 100
    # A constant exponent (2^{n}, e^{n}) is bounded by the number it makes;
    # the numbers *inside* a constant exponent stay below this (exp(c log a)
    # becomes a**c, so c and a must stay small for the result to stay cheap).
    constant_exponent: int = 1000
    # e^{c} with c a plain number (e^{-1500}, a far switch written
    # e^{-1500}e^{x}) stays an unexpanded exp node and costs nothing to read;
    # a constant smaller than the numeric confirmation resolves (its extra
    # digits, evidence/numeric.py MAX_EXTRA_DIGITS) gets no numeric-only
    # accept, only a proof.
    e_exponent: int = 20_000
    # A power of a base holding i, (x + i)^{n}: its real and imaginary parts
    # are dense polynomials that SymPy's realness queries expand (a query on
    # cosh(2^{(x+i)^{20}}) built a 600k-entry array, 6 s).
    complex_exponent: int = 10

    # --- functions ---------------------------------------------------------
    # n!, Gamma(n), binomial(n, k) with a constant n are computed exactly.
    factorial_arg: int = 1000
    # uppergamma/lowergamma/polylog/zeta with an integer order n expand into
    # O(n) terms with big coefficients (uppergamma(1000, x) takes seconds).
    special_order: int = 20
    # Special-function calls lifted out of one LaTeX answer.
    special_calls: int = 20
    # Functions of constants: towers of constants defeat SymPy's sign
    # decisions (sinh(sinh(sinh(sinh(sinh(2))))) hangs; erfi(10**999) makes
    # any later sign query hang): a function may take a constant that holds no
    # function itself (height 1), of modulus at most constant_arg unless the
    # function grows slowly (log, atan, Abs, ...).
    constant_height: int = 1
    constant_arg: int = 1000
    # Arguments of Max/Min (each a comparison SymPy may try to decide).
    minmax_args: int = 8

    # --- structure ---------------------------------------------------------
    # Top-level terms of a sum (an expanded polynomial of degree 300 has 301).
    terms: int = 600
    # Pieces of one piecewise answer (cases environment or Piecewise(...)),
    # cases environments in one answer, and the power of the variable a
    # piece's condition may hold.
    pieces: int = 12
    case_environments: int = 5
    condition_power: int = 4


# What the policy writes.
ANSWER = Limits()

# What a dataset holds: integrands may have steep features of their own
# (e^{-10^6 (x-1)^2}, x^{20000}) and long SymPy texts, but come from people,
# not from a policy learning to exploit the parser.
INTEGRAND = replace(ANSWER, exponent=50_000, exponent_coefficient=10**15,
                    sympy_chars=20_000, sympy_depth=200, sympy_nodes=20_000,
                    # e^{-300}, 10^{-700} x or a 1e-12-wide bump written out as exact
                    # integers in SymPy text: numbers of a few thousand digits are
                    # cheap to build and to evaluate.
                    literal_digits=2000, number_digits=5000,
                    # 10**(-1423) as a term: a power of a number is bounded by
                    # the number it makes (number_digits), not by its exponent.
                    constant_exponent=5000)

# SymPy text that the fast LaTeX path translated from LaTeX already bounded
# by latex_chars and latex_depth: the translation is up to 4x longer and
# nests brackets deeper than the LaTeX it came from.
LATEX_FAST_PATH = replace(ANSWER, sympy_chars=4 * ANSWER.latex_chars, sympy_depth=200,
                          sympy_nodes=20_000)

PROFILES = {"answer": ANSWER, "integrand": INTEGRAND, "latex_fast_path": LATEX_FAST_PATH}

__all__ = ["ANSWER", "INTEGRAND", "LATEX_FAST_PATH", "PROFILES", "Limits"]
