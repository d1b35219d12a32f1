"""What the answers of one GRPO group share, and what an accepted answer's
trace leaves out: the speed paths of the hard batch, held to the results
they must not change."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from rewards import RewardConfig, Verdict, check_antiderivative
from rewards.check.prepare.derivative import differentiate
from rewards.reward.pool import CheckPool, Job

x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)


def _jobs(groups: int, per_group: int) -> list[Job]:
    return [Job(f"x^{k + 2}/{k + 2}", f"x**{g}", "x")
            for g in range(groups) for k in range(per_group)]


def _tasks(jobs: list[Job], workers: int = 2, chunk_size: int = 8) -> list[list[int]]:
    # _chunks only plans; no worker starts until a batch runs.
    return CheckPool(RewardConfig(workers=workers, chunk_size=chunk_size))._chunks(jobs)


def test_a_group_meets_in_one_task_and_every_job_is_planned_once():
    jobs = _jobs(groups=40, per_group=6)
    tasks = _tasks(jobs)
    assert sorted(i for task in tasks for i in task) == list(range(len(jobs)))
    whole = [task for task in tasks if len(task) > 1]
    assert whole
    for task in whole:
        integrands = [jobs[i].integrand for i in task]
        # Whole groups only: a task never holds part of a group that another
        # multi-job task holds too.
        for integrand in set(integrands):
            members = [i for i, job in enumerate(jobs) if job.integrand == integrand]
            others = [t for t in whole if t is not task and set(t) & set(members)]
            assert not others, (integrand, task, others)


def test_the_groups_of_a_batch_in_any_order_are_gathered():
    # Rows of one prompt need not be adjacent (a dataset scored offline).
    jobs = [Job(f"x^{k + 2}/{k + 2}", f"x**{k % 5}", "x") for k in range(100)]
    for task in _tasks(jobs):
        if len(task) > 1:
            assert len({jobs[i].integrand for i in task}) <= 2


def test_a_group_larger_than_a_task_is_cut_and_the_end_is_one_job_per_task():
    jobs = _jobs(groups=1, per_group=40)
    tasks = _tasks(jobs, workers=2, chunk_size=8)
    assert max(len(t) for t in tasks) <= 8
    assert [len(t) for t in tasks[-4:]] == [1, 1, 1, 1]


def test_groups_with_the_longest_answers_go_first_and_the_shortest_end_the_call():
    # Longest first: the call's last tasks (one job each) are the cheapest-
    # looking checks, not a heavy one that keeps a single worker busy alone.
    short = [Job("x", "1", "x") for _ in range(6)]
    long_ = [Job("x^2/2 + " + " + ".join(f"\\sin(x)^{{{k}}}" for k in range(40)), "x", "x")
             for _ in range(6)]
    middle = [Job("x^3/3 + \\log(x)", "x**2", "x") for _ in range(6)]
    jobs = short + middle + long_  # the batch's own order: short first
    tasks = _tasks(jobs, workers=2, chunk_size=8)
    planned = [i for task in tasks for i in task]
    assert sorted(planned) == list(range(len(jobs)))
    first_of = {name: min(planned.index(i) for i in range(lo, lo + 6))
                for name, lo in (("short", 0), ("middle", 6), ("long", 12))}
    assert first_of["long"] < first_of["middle"] < first_of["short"]
    assert all(i < 6 for task in tasks[-4:] for i in task)


def test_a_small_batch_is_still_spread_over_the_workers():
    # One group of 8 with two workers: latency wants both busy.
    tasks = _tasks(_jobs(groups=1, per_group=8), workers=2, chunk_size=8)
    assert len(tasks) >= 4


@pytest.mark.parametrize("answer", [
    sp.log(sp.Abs(x)) + x**3 / 3 + 7,
    2 * (sp.atan(x / 2) + sp.log(x**2 + 4)),
    -(sp.sqrt(x**2 + 1) * x / 2 + sp.asinh(x) / 2),
    sp.exp(a * x) / a + sp.sin(x) ** 2,
    sp.Piecewise((x**2 / 2, x >= 0), (-x**2 / 2, True)) + sp.Abs(x - 1),
    sp.floor(x) + x * sp.sign(x - 2),
    sp.Integer(5),
])
def test_f_prime_term_by_term_is_sympys_f_prime(answer):
    assert differentiate(answer, x) == sp.diff(answer, x)
    # Kept terms give the same result the second time.
    assert differentiate(answer, x) == sp.diff(answer, x)


def _outs(result) -> dict[str, str]:
    return {s.stage: s.data["out"] for s in result.stages if "out" in s.data}


def test_an_accepted_answer_keeps_no_printed_expressions_unless_asked():
    accepted = check_antiderivative(r"\frac{x^3}{3} + \ln|x|", "x**2 + 1/x")
    assert accepted.verdict is Verdict.CORRECT
    assert set(_outs(accepted)) == {"integrand_parse"}  # printed once per integrand
    kept = check_antiderivative(r"\frac{x^3}{3} + \ln|x|", "x**2 + 1/x", trace_accepted=True)
    assert kept.verdict is Verdict.CORRECT
    assert {"candidate_parse", "normalize", "differentiate"} <= set(_outs(kept))
    json.dumps(kept.to_dict())


def test_a_rejected_answer_keeps_its_printed_expressions():
    rejected = check_antiderivative(r"\frac{x^3}{3} + 2\ln|x|", "x**2 + 1/x")
    assert rejected.verdict is Verdict.WRONG
    outs = _outs(rejected)
    assert outs["differentiate"] in ("x**2 + 2/x", "2/x + x**2")
    assert "log" in outs["candidate_parse"]
    assert all(isinstance(v, str) for v in outs.values())
    json.dumps(rejected.to_dict())


def test_a_rejected_answer_prints_nothing_when_no_trace_is_written():
    rejected = check_antiderivative(r"\frac{x^3}{3} + 2\ln|x|", "x**2 + 1/x",
                                    trace_rejected=False)
    assert rejected.verdict is Verdict.WRONG
    assert set(_outs(rejected)) <= {"integrand_parse"}
    json.dumps(rejected.to_dict())


def test_a_numeric_only_accept_keeps_its_printed_expressions():
    # The reward traces numeric-only accepts too: why was there no proof?
    # (The exponent written two ways is beyond the normal form; no ladder.)
    result = check_antiderivative(r"e^{\sin(x/2)\cos(x/2)}", "cos(x)/2*exp(sin(x)/2)",
                                  timeout_s=20, proof_budget_s=0.0)
    assert (result.verdict, result.confidence.value) == (Verdict.CORRECT, "numeric_only")
    assert {"candidate_parse", "differentiate"} <= set(_outs(result))
