r"""The MIT Integration Bee answer keys (optional: needs ../shared/data).

Every usable indefinite key is judged against its LaTeX integrand, as
``python -m benchmarks answer-keys`` does: no key adjudicated as not an
antiderivative is accepted, the keys that needed human notation read as
humans mean it (issue 25) are accepted, and the antiderivatives still
rejected are only those whose evidence is another piece of work.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks import DEFAULT_DATA_DIR
from benchmarks.answer_keys import (
    EVIDENCE_REJECTIONS,
    KEYS_FILE,
    NOT_ANTIDERIVATIVES,
    NOT_FORMULAS,
    judge,
    load_keys,
)

DATA = Path(os.environ.get("SHARED_DATA_DIR", DEFAULT_DATA_DIR)) / KEYS_FILE
pytestmark = [pytest.mark.data,
              pytest.mark.skipif(not DATA.exists(), reason="../shared/data is absent")]

_Q = "mit_bee_qualifier/"
# Keys rejected before the reading fixes of issue 25: argument scope
# (\log x(...), \sin x \sqrt{...}, \sin^4 x \cos^4 x(...)) and the
# differential in the integrand's numerator, with a trailing comma.
READ_AS_HUMANS_MEAN = [_Q + "2015/q10", _Q + "2013/q07", _Q + "2020/q07", _Q + "2010/q09",
                       _Q + "2024/q04"]


@pytest.fixture(scope="module")
def judged():
    return {(k.row, k.form): judge(k, timeout_s=20.0) for k in load_keys(DATA)}


def test_no_key_that_is_not_an_antiderivative_is_accepted(judged):
    assert set(NOT_ANTIDERIVATIVES) <= set(judged)
    accepted = [at for at in NOT_ANTIDERIVATIVES if judged[at].accepted]
    assert accepted == []


@pytest.mark.parametrize("row", READ_AS_HUMANS_MEAN)
def test_human_notation_keys_are_accepted(judged, row):
    result = judged[(row, 0)]
    assert result.accepted, (result.verdict, result.reason, result.key.answer)


def test_only_evidence_cases_remain_rejected(judged):
    rejected = {at for at, r in judged.items() if not r.accepted
                and at not in NOT_ANTIDERIVATIVES and at not in NOT_FORMULAS}
    assert rejected <= set(EVIDENCE_REJECTIONS), sorted(rejected - set(EVIDENCE_REJECTIONS))
