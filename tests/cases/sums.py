r"""Long sums (an expanded polynomial of 61 terms, a sum of 150 terms) and
finite sums with integer bounds (docs/domain.md, "How LaTeX is read": a
``\sum`` with integer bounds is its terms, each inspected by the size guards
before anything is computed; other sums are not answers). Next to each
accepted sum stands one wrong in a single coefficient or term."""
from __future__ import annotations

from math import comb

from rewards import Verdict
from tests.cases import boxed
from tests.support import VerdictCase as V

OK, WRONG, UNP = Verdict.CORRECT, Verdict.WRONG, Verdict.UNPARSEABLE


def poly_antiderivative(n: int, changed: int | None = None) -> str:
    """LaTeX for the expanded antiderivative of (x + 1)^n: n + 1 terms."""
    terms = []
    for k in range(n + 1):
        coefficient = comb(n, k) + (1 if k == changed else 0)
        terms.append(rf"\frac{{{coefficient} x^{{{k + 1}}}}}{{{k + 1}}}")
    return " + ".join(reversed(terms)) + " + C"


def harmonic(n: int, changed: int | None = None, syntax: str = "latex") -> str:
    """sum_{k=1}^{n} x^k / k (n terms), one denominator changed if asked."""
    terms = []
    for k in range(1, n + 1):
        d = k + 1 if k == changed else k
        terms.append(rf"\frac{{x^{{{k}}}}}{{{d}}}" if syntax == "latex" else f"x**{k}/{d}")
    return " + ".join(terms)


_BINOMIAL = r"\sum_{k=0}^{44}\binom{44}{k}(-1)^{44-k}\frac{x^{k+1}}{k+1}"

CASES = [
    # long sums written out
    V("poly61", poly_antiderivative(60), "(x + 1)**60", "latex", OK),
    V("poly61_coefficient", poly_antiderivative(60, changed=30), "(x + 1)**60", "latex", WRONG),
    V("sum150", harmonic(150), "(x**150 - 1)/(x - 1)", "latex", OK),
    V("sum150_coefficient", harmonic(150, changed=77), "(x**150 - 1)/(x - 1)", "latex", WRONG),
    # finite sums with integer bounds
    V("binomial_sum_of_degree_45", boxed(_BINOMIAL), "(x-1)**44", "latex", OK),
    V("binomial_sum_plus_e300", boxed(_BINOMIAL + r" + e^{-300}x"), "(x-1)**44", "latex", WRONG),
    V("cubic_as_a_sum", boxed(r"\sum_{k=0}^{3} \binom{3}{k} \frac{x^{k+1}}{k+1}"), "(1+x)**3", "latex", OK),
    V("cubic_sum_off_by_one", boxed(r"\sum_{k=0}^{3} \binom{3}{k} \frac{x^{k+1}}{k+2}"), "(1+x)**3", "latex",
      WRONG),
    V("symbolic_bound", boxed(r"\sum_{k=1}^{n} \frac{x^k}{k}"), "1", "latex", UNP, "not_an_expression"),
    V("a_billion_terms", boxed(r"\sum_{k=0}^{10^{9}} x^k"), "1", "latex", UNP, "not_an_expression"),
    V("huge_terms", boxed(r"\sum_{k=0}^{5} 10^{10^{k+6}} x"), "1", "latex", UNP),
]
