"""verl: ``compute_score`` for its reward managers, and its dataset layout.

verl loads a custom reward function by path and name
(``custom_reward_function.path`` / ``.name``; under ``reward:`` since 0.7.1)
and calls it per sample, ``compute_score(data_source=, solution_str=,
ground_truth=, extra_info=)`` (naive and dapo managers; the reward loop of
0.7+ runs a sync function on a thread pool and awaits an ``async`` one), or
per batch with plural names (the legacy batch manager). Here the ground truth
is the integrand (SymPy syntax), the variable is ``extra_info["variable"]``
(default ``x``), and ``solution_str`` is the decoded response.

**Routing.** A verl run may mix datasets, and verl hands every row to the one
custom function. Rows whose ``data_source`` is one of ``integral_sources`` (default
``("integrals",)``, what :func:`make_row` writes; set it with
``+...reward_kwargs.integral_sources=[a,b]``) are judged here; every other row goes
to verl's own ``verl.utils.reward_score.default_compute_score``, as verl would
have scored it without a custom function. Where verl is not importable (or
its scorer fails on the row) the row is CHECKER_ERROR with the reason, logged:
an integral check never grades a row that is not an integral.

Every call returns a dict with the same keys (verl stacks each key over the
batch and fails on a key sample 0 lacks), all numbers or strings, never
``None``: ``score`` (the reward; ``RewardConfig.null_reward``, 0.0 by default,
where the shaping says null, i.e. CHECKER_ERROR, logged), ``acc`` (1.0 when
CORRECT: verl's validation metrics use it), ``verdict``, ``reason``,
``confidence``, ``extracted_answer``. A row verl scored has verdict
``DELEGATED``, its score, its ``acc`` (verl's own, or the score when verl
returned a bare number, as verl's reward loop does) and ``pred`` as
``extracted_answer`` when verl gave one. Extra keyword arguments verl adds
(``reward_router_address``, ...) are ignored; ``reward_config`` (a reward YAML,
via ``+reward.custom_reward_function.reward_kwargs.reward_config=...``) picks
the configuration. See docs/integrations.md for the exact settings per verl
version.

Imports are absolute: verl may execute this file by path as a top-level module.

>>> compute_score("integrals", r"so \\boxed{x^3/3}", "x**2", {"variable": "x"})["score"]
1.0
"""
from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rewards import prompts
from rewards.check.result import Confidence
from rewards.integrations.common import (
    SampleScore,
    iter_integrands,
    sample_scores,
    shared_reward,
)
from rewards.reward.values import key_text

logger = logging.getLogger("rewards.integrations")

# The data_source of the rows make_row writes, and so the sources judged by
# default (verl routes its own scorers by data_source; so do we).
DATA_SOURCE = "integrals"
DATA_SOURCES = (DATA_SOURCE,)
VARIABLE_KEY = "variable"
# The verdict of a row verl's default_compute_score scored (not an integral).
DELEGATED = "DELEGATED"


def _record(score: SampleScore) -> dict[str, Any]:
    # No None anywhere: verl <= 0.6 takes np.mean of every non-string extra
    # key in validation, so the shaping's raw (nullable) reward stays out.
    record = score.to_dict()
    del record["reward"]
    return record


def _variable(extra_info: Any) -> str | None:
    # extra_info may be None, or a dict whose variable is None, NaN or "" (a
    # parquet column with some rows empty): the reward's rule then applies.
    return key_text(extra_info.get(VARIABLE_KEY)) if isinstance(extra_info, dict) else None


def judged_sources(integral_sources: str | Iterable[Any] | None) -> frozenset[str]:
    """The ``data_source`` values judged here: ``integral_sources`` (one name,
    or a list such as Hydra's ``[a,b]``), else :data:`DATA_SOURCES`. (Not
    named ``data_sources``: verl merges ``reward_kwargs`` over the call's own
    keywords, and that is the batch manager's column.)

    >>> sorted(judged_sources(None)), sorted(judged_sources("mine")), sorted(judged_sources(["a", "b"]))
    (['integrals'], ['mine'], ['a', 'b'])
    """
    if integral_sources is None:
        return frozenset(DATA_SOURCES)
    if isinstance(integral_sources, str):
        return frozenset([integral_sources])
    return frozenset(str(s) for s in integral_sources)


# -- rows that are not integrals: verl's own scorer ------------------------------
@functools.lru_cache(maxsize=1)
def verl_default_scorer() -> tuple[Any, str]:
    """(verl's ``default_compute_score``, "") or (None, why not). Imported on
    the first row that needs it: a run with only integrals never imports verl."""
    try:
        from verl.utils.reward_score import default_compute_score
    except Exception as exc:  # noqa: BLE001 - absent, or a verl that does not import
        return None, f"{type(exc).__name__}: {exc}"
    return default_compute_score, ""


def _unscored(reason: str, null_reward: float, data_source: Any, detail: str) -> dict[str, Any]:
    score = SampleScore.unscored(reason, null_reward)
    logger.warning("CHECKER_ERROR (%s) for data_source %r: %s; reported as %s", reason,
                   data_source, detail, score.score)
    return _record(score)


def delegate(data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any,
             null_reward: float) -> dict[str, Any]:
    """A row that is not ours, scored by verl's ``default_compute_score`` (in
    our record's keys), or CHECKER_ERROR when verl cannot score it."""
    scorer, why = verl_default_scorer()
    if scorer is None:
        return _unscored("data_source_not_judged", null_reward, data_source,
                         f"not a configured integral source and verl's default_compute_score "
                         f"is not importable ({why})")
    try:
        result = scorer(data_source, solution_str, ground_truth, extra_info)
        if isinstance(result, dict):
            score = float(result["score"])
            acc = float(result.get("acc", score))
            pred = result.get("pred")
        else:
            score = acc = float(result)
            pred = None
    except Exception as exc:  # noqa: BLE001 - verl's scorer on a row: a verdict, not a crash
        return _unscored("verl_scorer_error", null_reward, data_source,
                         f"verl's default_compute_score raised {type(exc).__name__}: {exc}")
    return {"score": score, "acc": acc, "verdict": DELEGATED,
            "reason": "verl_default_compute_score", "confidence": Confidence.NONE.value,
            "extracted_answer": "" if pred is None else str(pred)}


# -- the entry points ----------------------------------------------------------
def compute_score(data_source: Any, solution_str: Any, ground_truth: Any,
                  extra_info: dict | None = None, *, reward_config: str | None = None,
                  integral_sources: str | Iterable[Any] | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    """One sample, as verl's naive / dapo / reward-loop managers call it."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info],
                               reward_config=reward_config,
                               integral_sources=integral_sources)[0]


async def compute_score_async(data_source: Any, solution_str: Any, ground_truth: Any,
                              extra_info: dict | None = None, *,
                              reward_config: str | None = None,
                              integral_sources: str | Iterable[Any] | None = None,
                              **kwargs: Any) -> dict[str, Any]:
    """:func:`compute_score` for verl's reward loop (0.7+), which awaits an
    ``async`` function on its event loop instead of giving it a thread."""
    reward = shared_reward(reward_config)
    if str(data_source) not in judged_sources(integral_sources):
        # verl's scorers are synchronous (math_verify, sympy): off the loop.
        return await asyncio.to_thread(delegate, data_source, solution_str, ground_truth,
                                       extra_info, reward.config.null_reward)
    integrands = [ground_truth]
    outcomes = await reward.ascore([solution_str], integrands, [_variable(extra_info)])
    return _record(sample_scores(outcomes, reward.config.null_reward, integrands)[0])


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[Any],
                        ground_truths: Sequence[Any],
                        extra_infos: Sequence[dict | None] | None = None, *,
                        reward_config: str | None = None,
                        integral_sources: str | Iterable[Any] | None = None,
                        **kwargs: Any) -> list[dict[str, Any]]:
    """A batch, as verl's batch manager calls it (plural keyword names)."""
    reward = shared_reward(reward_config)
    n = len(solution_strs)
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    sources = [str(s) for s in data_sources]
    ours = judged_sources(integral_sources)
    mine = [i for i in range(n) if sources[i] in ours]
    integrands = [ground_truths[i] for i in mine]
    outcomes = reward.score([solution_strs[i] for i in mine], integrands,
                            [_variable(infos[i]) for i in mine]) if mine else []
    records: list[dict[str, Any] | None] = [None] * n
    for i, score in zip(mine, sample_scores(outcomes, reward.config.null_reward, integrands),
                        strict=True):
        records[i] = _record(score)
    for i in range(n):
        if records[i] is None:
            records[i] = delegate(data_sources[i], solution_strs[i], ground_truths[i], infos[i],
                                  reward.config.null_reward)
    return records  # type: ignore[return-value]


# -- the dataset -----------------------------------------------------------------
def make_row(integrand: str, variable: str = "x", *, index: int, split: str,
             data_source: str = DATA_SOURCE, system_prompt: str | None = prompts.SYSTEM_PROMPT
             ) -> dict[str, Any]:
    """One row in verl's RL parquet layout (its ``examples/data_preprocess``):
    a chat ``prompt`` (the training prompt of :mod:`rewards.prompts`), the
    integrand as ``reward_model.ground_truth``, the variable in ``extra_info``;
    plus a ``label`` column (integrand and variable) that verl ignores and
    OpenRLHF reads with ``--data.label_key label``, so one file serves both.

    >>> row = make_row("cos(t)", "t", index=0, split="train")
    >>> row["reward_model"], row["extra_info"]["variable"], row["prompt"][-1]["role"]
    ({'style': 'rule', 'ground_truth': 'cos(t)'}, 't', 'user')
    """
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    messages.append({"role": "user",
                     "content": prompts.USER_TEMPLATE.format(integrand=integrand, symbol=variable)})
    return {"data_source": data_source, "prompt": messages, "ability": "math",
            "reward_model": {"style": "rule", "ground_truth": integrand},
            "extra_info": {"split": split, "index": index, VARIABLE_KEY: variable,
                           "integrand": integrand},
            "label": {"integrand": integrand, VARIABLE_KEY: variable}}


def write_dataset(source: str | Path, output_dir: str | Path, *,
                  integrand_column: str = "integrand", variable_column: str | None = "variable",
                  val_size: int = 0, seed: int = 0,
                  system_prompt: str | None = prompts.SYSTEM_PROMPT) -> dict[str, Path]:
    """Read integrands (any input ``python -m rewards score`` reads) and write
    ``train.parquet`` (and ``test.parquet`` with ``val_size`` rows drawn at
    random) for ``data.train_files`` / ``data.val_files``. Rows without an
    integrand are skipped. Returns the paths written."""
    import random

    from rewards.extras import require

    pa = require("pyarrow", "data", "writing verl's parquet dataset")
    pq = require("pyarrow.parquet", "data", "writing verl's parquet dataset")

    pairs = list(iter_integrands(source, integrand_column=integrand_column,
                                 variable_column=variable_column))
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    held_out = set(order[:max(0, min(val_size, len(pairs)))])
    splits = {"train": [i for i in range(len(pairs)) if i not in held_out],
              "test": sorted(held_out)}
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for split, indices in splits.items():
        if not indices:
            continue
        rows = [make_row(*pairs[i], index=k, split=split, system_prompt=system_prompt)
                for k, i in enumerate(indices)]
        path = out / f"{split}.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path)
        written[split] = path
    return written
