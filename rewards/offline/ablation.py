"""Reward-shaping ablation on stored verdicts: no re-checking.

A scored file (``python -m rewards score``) holds each row's verdict,
confidence and reason; a shaping preset is a function of those three, so any
preset's rewards can be recomputed in milliseconds. For each preset this
reports the reward distribution and, given a group column (the prompt id of a
GRPO group), what GRPO would actually learn from:

* the share of groups whose rewards are all equal: their advantages are all
  zero, so they push no gradient (the "zero-variance" groups);
* the group-normalized advantages ``(r - mean_g) / (std_g + 1e-4)`` (TRL's
  default ``scale_rewards="group"``, unbiased std); rows whose reward is
  ``None`` are left out of their group, as the shaping presets intend;
* how far presets agree on the *order* of completions: Spearman's rank
  correlation over all rows, and the share of completion pairs (within a
  group when groups are known) that two presets order the same way
  (better / tie / worse). GRPO only sees order within a group, so that last
  number says whether two presets teach the same thing.

Group statistics and percentiles come from :mod:`rewards.reward.metrics`
(the same formulas the trainer's metrics use), outcome classes from
:func:`rewards.reward.shaping.classify`.
"""
from __future__ import annotations

import csv
import json
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check.result import Confidence, Verdict
from ..extras import MissingExtra, require
from ..reward.metrics import group_advantages, group_has_signal, percentile, valid_rewards
from ..reward.shaping import RewardShaping, available_presets, classify
from .io import open_input
from .scoring import meta_path

_VERDICTS = {v.value for v in Verdict}
_CONFIDENCES = {c.value for c in Confidence}


# -- input -------------------------------------------------------------------
@dataclass
class StoredOutcomes:
    """The columns of a scored file that shaping needs."""

    verdicts: list[str]
    confidences: list[str]
    reasons: list[str | None]
    groups: list[str] | None = None
    group_column: str | None = None
    invalid_rows: int = 0  # no usable verdict (not scored, hand-edited)
    source: str = ""

    def __len__(self) -> int:
        return len(self.verdicts)


def load_outcomes(path: str | Path, group_column: str | None = None) -> StoredOutcomes:
    """Read verdict/confidence/reason (and the group) from a scored file.

    Rows without a valid verdict are dropped and counted in ``invalid_rows``.
    """

    source = open_input(path)
    for column in ("verdict", "confidence", "reason"):
        if column not in source.columns:
            raise ValueError(f"{path} has no {column!r} column: is it the output of "
                             f"`python -m rewards score`?")
    if group_column is not None and group_column not in source.columns:
        raise ValueError(f"group column {group_column!r} is not in {path}; "
                         f"columns: {source.columns}")
    out = StoredOutcomes([], [], [], [] if group_column else None, group_column,
                         source=str(path))
    for rows in source.iter_batches(4096):
        for row in rows:
            verdict = row.get("verdict")
            if verdict not in _VERDICTS:
                out.invalid_rows += 1
                continue
            confidence = row.get("confidence")
            out.verdicts.append(verdict)
            out.confidences.append(confidence if confidence in _CONFIDENCES else "none")
            reason = row.get("reason")
            out.reasons.append(None if reason is None else str(reason))
            if out.groups is not None:
                out.groups.append(json.dumps(row.get(group_column), sort_keys=True,
                                             default=str))
    return out


# -- numbers -----------------------------------------------------------------
@dataclass
class PresetResult:
    """One preset's rewards over a scored dataset: their distribution and the groups' signal."""
    name: str
    values: dict[str, float | None]
    rewards: list[float | None]
    mean: float | None
    std: float | None
    no_gradient: int
    n_groups: int = 0
    zero_variance_groups: int = 0
    advantages: list[float] = field(default_factory=list)
    # The advantages of groups whose rewards differ (the rest are all zero).
    signal_advantages: list[float] = field(default_factory=list)

    @property
    def zero_variance_frac(self) -> float | None:
        """Share of groups whose rewards are all equal (no gradient)."""
        return self.zero_variance_groups / self.n_groups if self.n_groups else None

    def advantage_stats(self) -> dict[str, float | None]:
        """Mean, spread and extremes of the group-normalized advantages."""
        adv = self.advantages
        if not adv:
            return {k: None for k in ("adv_p05", "adv_p25", "adv_p50", "adv_p75", "adv_p95",
                                      "adv_abs_mean", "adv_zero_frac")}
        return {"adv_p05": percentile(adv, 5), "adv_p25": percentile(adv, 25),
                "adv_p50": percentile(adv, 50), "adv_p75": percentile(adv, 75),
                "adv_p95": percentile(adv, 95),
                "adv_abs_mean": statistics.fmean(abs(a) for a in adv),
                "adv_zero_frac": sum(1 for a in adv if a == 0.0) / len(adv)}

    def row(self) -> dict[str, Any]:
        """The preset's line of the report table."""
        return {"preset": self.name, "rows": len(self.rewards), "no_gradient": self.no_gradient,
                "reward_mean": self.mean, "reward_std": self.std, "groups": self.n_groups,
                "zero_variance_group_frac": self.zero_variance_frac, **self.advantage_stats()}


@dataclass
class PairAgreement:
    """How often two presets rank a group's completions the same way."""
    a: str
    b: str
    spearman: float | None
    pair_order_agreement: float | None
    pairs: int
    scope: str  # "within groups" | "all rows"

    def row(self) -> dict[str, Any]:
        return {"preset_a": self.a, "preset_b": self.b, "spearman": self.spearman,
                "pair_order_agreement": self.pair_order_agreement, "pairs": self.pairs,
                "scope": self.scope}


@dataclass
class AblationReport:
    """Every preset's result, their pairwise agreement and notes."""
    source: str
    rows: int
    invalid_rows: int
    group_column: str | None
    outcome_mix: Counter
    presets: list[PresetResult]
    pairs: list[PairAgreement]
    # Things the reader should know (a part of the report that was skipped).
    notes: list[str] = field(default_factory=list)


def preset_result(shaping: RewardShaping, outcomes: StoredOutcomes) -> PresetResult:
    """Rewards of one preset over the scored rows (from verdicts, no re-check)."""
    rewards = [shaping.reward(v, c, r) for v, c, r in
               zip(outcomes.verdicts, outcomes.confidences, outcomes.reasons, strict=True)]
    valid = valid_rewards(rewards)
    result = PresetResult(shaping.name, shaping.outcome_table(), rewards,
                          statistics.fmean(valid) if valid else None,
                          statistics.pstdev(valid) if valid else None,
                          len(rewards) - len(valid))
    if outcomes.groups is not None:
        by_group: dict[str, list[float | None]] = {}
        for key, reward in zip(outcomes.groups, rewards, strict=True):
            by_group.setdefault(key, []).append(reward)
        result.n_groups = len(by_group)
        for members in by_group.values():
            advantages = [a for a in group_advantages(members) if a is not None]
            result.advantages.extend(advantages)
            if group_has_signal(members):
                result.signal_advantages.extend(advantages)
            else:
                result.zero_variance_groups += 1
    return result


def _ranks(values: list[float]) -> list[float]:
    # Average ranks for ties (what Spearman's rho needs).
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(a: list[float], b: list[float]) -> float | None:
    """Spearman's rank correlation; ``None`` if either side is constant.

    >>> round(spearman([0.0, 1.0, 1.0], [-1.0, 1.0, 1.0]), 6)
    1.0
    """
    if len(a) < 2:
        return None
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    sa = math.sqrt(sum((x - ma) ** 2 for x in ra))
    sb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    if sa == 0 or sb == 0:
        return None
    return sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True)) / (sa * sb)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def pair_order_counts(a: list[float], b: list[float]) -> tuple[int, int]:
    """(agreeing pairs, all pairs): pairs of rows ordered alike (>, =, <)
    by both reward lists. Counts distinct (a, b) cells, so it is fast for
    the handful of reward values a preset has.

    >>> pair_order_counts([1.0, 0.0, 0.0], [1.0, 0.0, -0.2])
    (2, 3)
    """
    cells = Counter(zip(a, b, strict=True))
    items = list(cells.items())
    agree = total = 0
    for i, ((a1, b1), n1) in enumerate(items):
        same = n1 * (n1 - 1) // 2
        agree += same
        total += same
        for (a2, b2), n2 in items[i + 1:]:
            total += n1 * n2
            if _sign(a1 - a2) == _sign(b1 - b2):
                agree += n1 * n2
    return agree, total


def pair_agreement(x: PresetResult, y: PresetResult, groups: list[str] | None
                   ) -> PairAgreement:
    """How two presets agree: Spearman's rho over the rows both reward, and the
    share of completion pairs (within each group, when there are groups) they
    order the same way."""
    both = [i for i, (p, q) in enumerate(zip(x.rewards, y.rewards, strict=True))
            if p is not None and q is not None]
    a = [float(x.rewards[i]) for i in both]
    b = [float(y.rewards[i]) for i in both]
    rho = spearman(a, b)
    if groups is None:
        agree, total = pair_order_counts(a, b)
        scope = "all rows"
    else:
        members: dict[str, tuple[list[float], list[float]]] = {}
        for i, ai, bi in zip(both, a, b, strict=True):
            pa, pb = members.setdefault(groups[i], ([], []))
            pa.append(ai)
            pb.append(bi)
        agree = total = 0
        for pa, pb in members.values():
            g_agree, g_total = pair_order_counts(pa, pb)
            agree += g_agree
            total += g_total
        scope = "within groups"
    return PairAgreement(x.name, y.name, rho, agree / total if total else None, total, scope)


def ablate(outcomes: StoredOutcomes, shapings: Sequence[RewardShaping]) -> AblationReport:
    """Every preset's numbers on one set of stored outcomes."""
    presets = [preset_result(s, outcomes) for s in shapings]
    pairs = [pair_agreement(presets[i], presets[j], outcomes.groups)
             for i in range(len(presets)) for j in range(i + 1, len(presets))]
    mix = Counter(classify(v, c, r).value for v, c, r in
                  zip(outcomes.verdicts, outcomes.confidences, outcomes.reasons, strict=True))
    return AblationReport(outcomes.source, len(outcomes), outcomes.invalid_rows,
                          outcomes.group_column, mix, presets, pairs)


# -- report files ------------------------------------------------------------
def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_plots(report: AblationReport, out_dir: Path) -> list[Path]:
    """PNG plots (needs matplotlib: the ``data`` extra)."""
    require("matplotlib", "data", "ablation plots")
    import matplotlib

    matplotlib.use("Agg")  # files only; never a display
    import matplotlib.pyplot as plt

    written: list[Path] = []
    n = len(report.presets)
    fig, axes = plt.subplots(n, 1, figsize=(7, 1.9 * n + 0.6), squeeze=False, sharex=True)
    for ax, preset in zip(axes[:, 0], report.presets, strict=True):
        counts = Counter(r for r in preset.rewards if r is not None)
        values = sorted(counts)
        bars = ax.bar(values, [counts[v] for v in values], width=0.06, color="tab:blue")
        ax.bar_label(bars, fontsize=7)
        log = _log_scale_if_skewed(ax, list(counts.values()))
        # Panels choose their scale one by one: each says which it has.
        ax.set_ylabel("rows (log scale)" if log else "rows")
        ax.set_title(f"{preset.name}: mean {_fmt(preset.mean, 3)}, std {_fmt(preset.std, 3)}, "
                     f"no-gradient {preset.no_gradient}", fontsize=9)
    axes[-1, 0].set_xlabel("reward")
    written.append(_save(plt, fig, out_dir / "reward_hist.png"))

    if report.group_column:
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * n + 1), 3.2))
        names = [p.name for p in report.presets]
        fracs = [100 * (p.zero_variance_frac or 0.0) for p in report.presets]
        ax.bar(names, fracs, color="tab:orange")
        for i, frac in enumerate(fracs):
            ax.text(i, frac, f"{frac:.1f}%", ha="center", va="bottom", fontsize=8)
        ax.set_ylabel("% groups, all rewards equal")
        ax.set_title(f"zero-variance groups ({report.presets[0].n_groups} groups by "
                     f"{report.group_column!r})", fontsize=9)
        ax.set_ylim(0, max(100.0, max(fracs, default=0) * 1.1))
        plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
        written.append(_save(plt, fig, out_dir / "zero_variance_groups.png"))

        # Groups whose rewards are all equal contribute a spike of exact zeros
        # that would dwarf everything else; they are counted in the plot above,
        # so this one shows the advantages of the groups that teach something.
        fig, axes = plt.subplots(n, 1, figsize=(7, 1.9 * n + 0.6), squeeze=False, sharex=True)
        for ax, preset in zip(axes[:, 0], report.presets, strict=True):
            if preset.signal_advantages:
                ax.hist(preset.signal_advantages, bins=41, color="tab:green")
            ax.set_ylabel("rows")
            ax.set_title(f"{preset.name}: group-normalized advantages in the "
                         f"{preset.n_groups - preset.zero_variance_groups} groups with signal",
                         fontsize=9)
        axes[-1, 0].set_xlabel("advantage")
        written.append(_save(plt, fig, out_dir / "advantages.png"))
    return written


def _save(plt: Any, fig: Any, path: Path) -> Path:
    """Write ``fig`` to ``path`` and close it (pyplot holds every open figure)."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _log_scale_if_skewed(ax: Any, counts: list[int]) -> bool:
    # One dominant outcome (every answer wrong, say) would flatten the other
    # bars to nothing on a linear axis. Returns whether the axis is now log.
    if counts and max(counts) > 20 * max(1, min(counts)):
        ax.set_yscale("log")
        return True
    return False


def render_markdown(report: AblationReport, plots: list[Path]) -> str:
    """The report as Markdown."""
    lines = [f"# Reward-shaping ablation: {Path(report.source).name}", "",
             f"- source: `{report.source}`", f"- rows: {report.rows}"
             + (f" ({report.invalid_rows} rows without a verdict skipped)"
                if report.invalid_rows else ""),
             f"- groups: {report.presets[0].n_groups} by `{report.group_column}`"
             if report.group_column else "- groups: none (no group column; pass "
                                         "--group-column for GRPO group statistics)",
             "", "Rewards are recomputed from the stored verdicts; nothing is re-checked.", "",
             "## Outcome mix", "", "| outcome | rows | % |", "| --- | ---: | ---: |"]
    for key, count in report.outcome_mix.most_common():
        lines.append(f"| {key} | {count} | {100 * count / max(1, report.rows):.1f} |")

    keys = list(report.presets[0].values)
    lines += ["", "## Presets", "", "| preset | " + " | ".join(keys) + " |",
              "| --- |" + " ---: |" * len(keys)]
    for p in report.presets:
        lines.append(f"| {p.name} | " + " | ".join(_fmt(p.values[k], 2) for k in keys) + " |")

    lines += ["", "## Rewards per preset", "",
              "| preset | mean | std | no-gradient rows | zero-variance groups | "
              "adv p05 | adv p50 | adv p95 | mean abs adv |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for p in report.presets:
        adv = p.advantage_stats()
        zv = "n/a" if p.zero_variance_frac is None else f"{100 * p.zero_variance_frac:.1f}%"
        lines.append(f"| {p.name} | {_fmt(p.mean)} | {_fmt(p.std)} | {p.no_gradient} | {zv} | "
                     f"{_fmt(adv['adv_p05'], 3)} | {_fmt(adv['adv_p50'], 3)} | "
                     f"{_fmt(adv['adv_p95'], 3)} | {_fmt(adv['adv_abs_mean'], 3)} |")
    if report.pairs:
        scope = report.pairs[0].scope
        lines += ["", "## Rank agreement between presets", "",
                  f"Spearman's rho over all rows; pair order agreement = share of completion "
                  f"pairs ({scope}) that both presets order the same way (better/tie/worse).",
                  "", "| preset A | preset B | spearman | pair order agreement | pairs |",
                  "| --- | --- | ---: | ---: | ---: |"]
        for pair in report.pairs:
            lines.append(f"| {pair.a} | {pair.b} | {_fmt(pair.spearman)} | "
                         f"{_fmt(pair.pair_order_agreement)} | {pair.pairs} |")
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in report.notes]
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{p.stem}]({p.name})" for p in plots]
    return "\n".join(lines) + "\n"


def write_report(report: AblationReport, out_dir: str | Path) -> dict[str, Path]:
    """Write ``report.md``, ``ablation.csv`` (per preset),
    ``rank_agreement.csv`` (per pair) and the PNG plots into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "ablation.csv", "agreement_csv": out / "rank_agreement.csv"}
    _write_csv(files["csv"], [p.row() for p in report.presets])
    _write_csv(files["agreement_csv"], [p.row() for p in report.pairs])
    try:
        plots = write_plots(report, out)
    except MissingExtra as exc:
        # The numbers do not need matplotlib; say once what the plots need.
        report.notes.append(f"plots skipped: {exc}")
        plots = []
    for plot in plots:
        files[plot.stem] = plot
    files["report"] = out / "report.md"
    files["report"].write_text(render_markdown(report, plots), encoding="utf-8")
    return files


def recorded_group_column(scored: str | Path) -> str | None:
    """The ``--group-column`` that ``score`` recorded next to its output."""
    path = meta_path(scored)
    try:
        return json.loads(path.read_text(encoding="utf-8"))["columns"]["group"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def run_ablate(scored: str | Path, presets: Sequence[str] | None, out_dir: str | Path,
               group_column: str | None = None) -> tuple[AblationReport, dict[str, Path]]:
    """Load, compute, write. ``presets``: names or YAML paths (default: all
    shipped presets)."""
    if group_column is None:
        group_column = recorded_group_column(scored)
    shapings = [RewardShaping.load(p) for p in (presets or available_presets())]
    names = [s.name for s in shapings]
    if len(set(names)) != len(names):
        raise ValueError(f"preset names must be distinct, got {names}")
    report = ablate(load_outcomes(scored, group_column), shapings)
    return report, write_report(report, out_dir)
