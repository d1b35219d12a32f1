r"""A finite sum with integer bounds is its terms (docs/domain.md, "How LaTeX
is read"): a polynomial written as ``\sum_{k=0}^{44}\binom{44}{k}\ldots`` is an
answer, each term inspected by the size guards before anything is computed;
other sums are not answers."""
from __future__ import annotations

import pytest

from rewards import check_antiderivative

_BINOMIAL = r"\sum_{k=0}^{44}\binom{44}{k}(-1)^{44-k}\frac{x^{k+1}}{k+1}"


@pytest.mark.parametrize(("answer", "integrand", "verdict", "reason"), [
    (_BINOMIAL, "(x-1)**44", "CORRECT", None),
    (_BINOMIAL + r" + e^{-300}x", "(x-1)**44", "WRONG", None),
    (r"\sum_{k=0}^{3} \binom{3}{k} \frac{x^{k+1}}{k+1}", "(1+x)**3", "CORRECT", None),
    (r"\sum_{k=0}^{3} \binom{3}{k} \frac{x^{k+1}}{k+2}", "(1+x)**3", "WRONG", None),
    (r"\sum_{k=1}^{n} \frac{x^k}{k}", "1", "UNPARSEABLE", "not_an_expression"),
    (r"\sum_{k=0}^{10^{9}} x^k", "1", "UNPARSEABLE", "not_an_expression"),
    (r"\sum_{k=0}^{5} 10^{10^{k+6}} x", "1", "UNPARSEABLE", None),
], ids=["binomial_sum_of_degree_45", "binomial_sum_plus_e300", "cubic_as_a_sum",
        "cubic_sum_off_by_one", "symbolic_bound", "a_billion_terms", "huge_terms"])
def test_finite_sums(answer, integrand, verdict, reason):
    result = check_antiderivative(rf"\boxed{{{answer}}}", integrand, symbol="x", timeout_s=20)
    assert result.verdict.name == verdict, (result.reason, result.detail)
    if reason is not None:
        assert result.reason == reason
