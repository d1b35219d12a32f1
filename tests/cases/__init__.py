r"""Verdict tables, by theme: plain data modules, each a ``CASES`` list of
:class:`tests.support.VerdictCase` rows (a readable ``id`` saying what the
case is, the answer, the integrand, how the answer is read, the expected
verdict and reason). A test runs a table with ``tests.support.check_case``:

    @pytest.mark.parametrize("case", piecewise.CASES, ids=case_id)
    def test_piecewise_answers(case):
        check_case(case)

The rows are model-style cases written for these tests, none copied from a
data set. ``box`` and ``tag`` wrap an answer into a whole completion the way
a model writes one (read with ``kind="response"``); ``boxed`` is the box
alone, which the LaTeX reader reads as its content.
"""
from __future__ import annotations


def box(s: str) -> str:
    """A completion that ends in ``\\boxed{s}``."""
    return f"Integrating term by term, we get\n\n\\boxed{{{s}}}"


def tag(s: str) -> str:
    """A completion with a think block and ``<answer>s</answer>``."""
    return f"<think>integrate</think>\nThe antiderivative is\n<answer>{s}</answer>"


def boxed(s: str) -> str:
    """Only ``\\boxed{s}``, no completion around it (read as ``latex``)."""
    return rf"\boxed{{{s}}}"
