r"""The definition of an antiderivative, part by part (docs/domain.md).

Answers a policy under RL pressure would write in each class the definition
rules on: jumps where the integrand is continuous, continuous answers written
with steps, parameters of either sign, terms localized between sample
points, and the notation models use. Each row: (answer, integrand, verdict,
reason or None), in ``tests/cases/`` (continuity, parameters, localized,
notation). The larger held-out tables are ``python -m benchmarks
soundness``.
"""
from __future__ import annotations

import resource

import pytest

from rewards import Verdict, check_antiderivative
from rewards.check.memory import memory_cap
from tests.cases import continuity, localized, notation, parameters
from tests.support import case_id, check_case

TIMEOUT_S = 30.0  # generous: load must not turn a verdict into TIMEOUT


def _check(answer: str, integrand: str):
    kind = "response" if answer.startswith("<answer>") else "latex"
    return check_antiderivative(answer, integrand, input_kind=kind, timeout_s=TIMEOUT_S)


@pytest.mark.parametrize("case", continuity.CASES + parameters.CASES + localized.CASES
                         + notation.CASES, ids=case_id)
def test_the_definition(case):
    check_case(case)


def test_a_parameter_refusal_names_the_values_and_the_stage():
    result = _check(r"\frac{e^{ax}}{|a|}", "exp(a*x)")
    assert result.stage == "parameters" == result.stages[-1].stage
    assert float(result.detail["values"]["a"]) < 0


def test_a_jump_names_where_it_is():
    result = _check(r"e^x + \frac{x - 3}{|x - 3|}", "exp(x)")
    assert result.stage == "continuity" and abs(float(result.detail["at"]) - 3) < 1e-6


def test_pathological_nested_special_functions_end_as_a_verdict_in_process():
    # Ei(li(Chi(Shi(x)))) far out asks for a 10^11-bit number: the in-process
    # memory cap turns that allocation into an error at once (no timing here:
    # benchmarks soundness measures the wall time of such calls).
    result = check_antiderivative("Ei(li(Chi(Shi(x)))) + Abs(x)", "sign(x)",
                                  input_kind="sympy", timeout_s=3.0)
    assert result.verdict in (Verdict.WRONG, Verdict.TIMEOUT), result.render()


def test_the_memory_cap_is_lifted_after_the_check():
    before = resource.getrlimit(resource.RLIMIT_AS)
    with memory_cap(256) as capped:
        during = resource.getrlimit(resource.RLIMIT_AS)
        with pytest.raises(MemoryError):
            bytearray(2 * 2**30)
    assert capped and during[0] != before[0]
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    with memory_cap(None) as capped:
        assert not capped and resource.getrlimit(resource.RLIMIT_AS) == before
