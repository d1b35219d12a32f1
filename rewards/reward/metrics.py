"""Statistics of rewards and checks: percentiles, GRPO group signal, batch metrics.

One home for each formula, so the trainer's logged metrics, the offline
summary, the ablation report and the benchmarks agree.

>>> percentile([1.0, 2.0, 3.0, 4.0], 50)
2.5
>>> group_has_signal([1.0, 0.0, None]), group_has_signal([0.0, 0.0]), group_has_signal([1.0])
(True, False, False)
>>> [None if a is None else round(a, 3) for a in group_advantages([1.0, 0.0, None])]
[0.707, -0.707, None]
"""
from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence

from ..check.result import Confidence
from .outcome import Outcome
from .shaping import OutcomeClass, classify

ADVANTAGE_EPS = 1e-4  # TRL's epsilon in (r - mean) / (std + eps)


def percentile(values: Iterable[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default); NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo))


def valid_rewards(rewards: Iterable[float | None]) -> list[float]:
    """The rewards that push a gradient (``None`` and NaN do not)."""
    return [float(r) for r in rewards if r is not None and not math.isnan(float(r))]


def group_has_signal(rewards: Sequence[float | None]) -> bool:
    """True when a group's (non-None) rewards are not all equal, i.e. at
    least one GRPO advantage is non-zero."""
    valid = valid_rewards(rewards)
    return len(valid) >= 2 and max(valid) > min(valid)


def group_advantages(rewards: Sequence[float | None]) -> list[float | None]:
    """GRPO advantages of one group, as TRL computes them; ``None`` where the
    reward is ``None``."""
    valid = valid_rewards(rewards)
    if len(valid) < 2:
        return [None if r is None else 0.0 for r in rewards]
    mean = statistics.fmean(valid)
    std = statistics.stdev(valid)
    return [None if r is None or math.isnan(float(r)) else (float(r) - mean) / (std + ADVANTAGE_EPS)
            for r in rewards]


# Disjoint shares of the judged completions: they sum to 1 every batch.
_SHARES = {
    "frac_correct": (OutcomeClass.CORRECT_SYMBOLIC, OutcomeClass.CORRECT_NUMERIC_ONLY),
    "frac_wrong": (OutcomeClass.WRONG,),
    "frac_unparseable": (OutcomeClass.UNPARSEABLE,),
    "frac_no_answer": (OutcomeClass.NO_ANSWER,),
    "frac_timeout": (OutcomeClass.TIMEOUT,),
    "frac_checker_error": (OutcomeClass.CHECKER_ERROR,),
}


def batch_metrics(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """Per-batch metrics, the same keys every batch: TRL averages each key
    over a logging step, so a key that comes and goes, or a NaN, would skew
    or poison that mean.

    ``frac_unparseable`` counts answers that were given but could not be
    read; ``frac_no_answer`` completions with no answer at all (the two never
    overlap). Timing percentiles cover fresh checks only (0.0 when every
    answer was a dedup or cache hit).
    """
    judged = [o for o in outcomes if o.judged]
    n = max(1, len(judged))
    classes = Counter(classify(o.result.verdict, o.result.confidence, o.result.reason)
                      for o in judged)
    metrics = {key: sum(classes[c] for c in members) / n for key, members in _SHARES.items()}
    metrics["numeric_only_share"] = sum(
        1 for o in judged if o.result.confidence is Confidence.NUMERIC_ONLY) / n
    checked = [o for o in judged if o.extracted is not None]
    metrics["cache_hit_rate"] = (sum(o.cached for o in checked) / len(checked)
                                 if checked else 0.0)
    times = [o.result.total_ms for o in checked if not o.cached]
    metrics["check_ms_p50"] = percentile(times, 50) if times else 0.0
    metrics["check_ms_p99"] = percentile(times, 99) if times else 0.0
    metrics["timeouts"] = float(classes[OutcomeClass.TIMEOUT])
    metrics["unjudged"] = float(len(outcomes) - len(judged))
    return metrics
