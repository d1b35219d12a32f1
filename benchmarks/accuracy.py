"""``python -m benchmarks accuracy``: does each method judge right?

Every method sees the same candidates, one sample per task in worker
processes under the same per-sample deadline:

* this reward through :meth:`rewards.AntiderivativeReward.score` (extraction in the
  parent, dedup, checks in its loky pool), exactly as in training;
* each peer through :class:`rewards.reward.pool.CheckPool` with
  :func:`benchmarks.peers.bench_check` as the check function, so the same
  pool, watchdog and kill-on-timeout apply.

Data sets (by path; rows are never copied into the project):

``rubi_correct`` / ``rubi_wrong``
    known-correct Rubi pairs rendered as a model answers, and verified-wrong
    mutants of them (:mod:`benchmarks.corpora`);
``rgym``
    real completions with reasoning-gym's labels; disagreements are
    adjudicated by an independent 50-digit numeric judge and listed;
``mitbee``
    real LaTeX completions (indefinite integrals): parse coverage, every
    parse failure categorized; the labels are an LLM's and noisy.
"""
from __future__ import annotations

import functools
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from . import DEFAULT_DATA_DIR, METHOD_LABELS, METHODS, OURS
from .corpora import (
    Item,
    adjudicate,
    audit_jump,
    find_corpus,
    load_items,
    load_mitbee,
    load_rgym,
    load_rubi,
    save_items,
)
from .table import markdown_table, pct, percentile, write_section

CHUNK = 256


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# What each method is given
# ---------------------------------------------------------------------------

def completion_for_ours(item: Item) -> str:
    """The completion the reward sees: the real response, or the bare answer
    wrapped as a model would (``\\boxed{}`` for LaTeX, ``<answer>`` tags for
    SymPy syntax, as the reasoning-gym prompt asks)."""
    if item.response is not None:
        return item.response
    if item.syntax == "latex":
        return f"\\boxed{{{item.answer}}}"
    return f"<answer>{item.answer}</answer>"


def inputs_for(method: str, item: Item) -> tuple[str, str]:
    """(candidate text, payload) for a peer; see the module docstring of
    :mod:`benchmarks.peers` for what each peer expects."""
    from .peers import payload

    if method == "trl_math_verify":
        # TRL compares with a reference; bare answers are boxed by the adapter
        # (see peers._trl). MIT Bee responses are unboxed \[...\] blocks,
        # which accuracy_reward's extraction (try_extract_without_anchor=False)
        # never reads: it gets the data set's extracted answer, boxed.
        if item.answer is not None:
            text, syntax = item.answer, item.syntax
        else:
            text, syntax = item.response or "", "response"
        return text, payload(item.integrand, ref=item.reference, ref_latex=item.reference_latex,
                             syntax=syntax)
    if method in ("reasoning_gym", "rlve_numeric", "ladder_numeric"):
        if item.dataset == "rgym" and item.response is not None:
            return item.response, payload(item.integrand, ref=item.reference, syntax="response")
        return item.answer or "", payload(item.integrand, ref=item.reference, syntax=item.syntax)
    if method == "seed_design":
        return item.answer or "", payload(item.integrand, syntax=item.syntax)
    raise ValueError(method)


# ---------------------------------------------------------------------------
# Running the methods
# ---------------------------------------------------------------------------

def _record(item: Item, method: str, verdict: str | None, reason: str, ms: float,
            extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": item.id, "dataset": item.dataset, "group": item.group, "method": method,
            "verdict": verdict, "reason": reason, "ms": round(ms, 3), **(extra or {})}


def run_ours(items: list[Item], *, workers: int, timeout_s: float,
             tag: str = "") -> tuple[list[dict[str, Any]], float]:
    from rewards import AntiderivativeReward

    records: list[dict[str, Any] | None] = [None] * len(items)
    started = time.perf_counter()
    by_config: dict[tuple[str, bool], list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        latex_integrand = item.dataset == "mitbee"
        by_config[("latex" if latex_integrand else "sympy", latex_integrand)].append(i)
    for (integrand_kind, fallback), indices in by_config.items():
        reward = AntiderivativeReward(workers=workers, timeout_s=timeout_s,
                                      integrand_kind=integrand_kind, math_fallback=fallback,
                                      cache_size=0)
        try:
            for lo in range(0, len(indices), CHUNK * 2):
                chunk = indices[lo:lo + CHUNK * 2]
                completions = [completion_for_ours(items[i]) for i in chunk]
                integrands = [items[i].integrand_latex if integrand_kind == "latex"
                              else items[i].integrand for i in chunk]
                symbols = [items[i].symbol for i in chunk]
                outcomes = reward.score(completions, integrands, symbols)
                for i, o in zip(chunk, outcomes, strict=True):
                    r = o.result
                    records[i] = _record(items[i], OURS, o.verdict,
                                         r.reason if r else "unjudged",
                                         r.total_ms if r else 0.0,
                                         {"confidence": r.confidence.value if r else None,
                                          "extracted": o.extracted, "cached": o.cached,
                                          "jump_at": r.detail.get("at") if r else None})
                _log(f"  [{OURS}{tag}] {min(lo + len(chunk), len(indices))}/{len(indices)}")
        finally:
            reward.close()
    return records, time.perf_counter() - started  # type: ignore[return-value]


def run_peer(method: str, items: list[Item], *, workers: int, timeout_s: float,
             tag: str = "") -> tuple[list[dict[str, Any]], float, float]:
    """Records, wall seconds, peak worker RSS (MB)."""
    from rewards import RewardConfig
    from rewards.reward.pool import CheckPool

    from .peers import bench_check, payload

    pool = CheckPool(RewardConfig(workers=workers, timeout_s=timeout_s, chunk_size=4),
                     check_fn=functools.partial(bench_check, method=method))
    jobs = [(*inputs_for(method, item), item.symbol) for item in items]
    records: list[dict[str, Any]] = []
    hwm = 0.0
    try:
        # Warm-up (imports, first-call caches) outside the measurement.
        pool.run([("x**2/2", payload("x", ref="x**2/2", ref_latex="\\frac{x^2}{2}"), "x")]
                 * (2 * workers))
        started = time.perf_counter()
        for lo in range(0, len(jobs), CHUNK):
            results = pool.run(jobs[lo:lo + CHUNK])
            for item, r in zip(items[lo:lo + CHUNK], results, strict=True):
                hwm = max(hwm, float(r.detail.get("rss_hwm_mb", 0) or 0))
                records.append(_record(item, method, r.verdict.value, r.reason, r.total_ms))
            _log(f"  [{method}{tag}] {min(lo + CHUNK, len(jobs))}/{len(jobs)}")
        wall = time.perf_counter() - started
    finally:
        pool.close()
    return records, wall, hwm


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------

def _ms_stats(records: list[dict[str, Any]]) -> tuple[float, float]:
    times = [r["ms"] for r in records if r["verdict"] is not None]
    return percentile(times, 50), percentile(times, 90)


def _count(records, verdict: str) -> int:
    return sum(1 for r in records if r["verdict"] == verdict)


def summarize_constructed(records: list[dict[str, Any]], expected: bool) -> dict[str, Any]:
    n = len(records)
    p50, p90 = _ms_stats(records)
    return {"n": n, "accepted": _count(records, "CORRECT"),
            "unparseable": _count(records, "UNPARSEABLE"), "timeouts": _count(records, "TIMEOUT"),
            "errors": _count(records, "CHECKER_ERROR"), "p50_ms": p50, "p90_ms": p90,
            "expected": expected}


def _labels(items: list[Item], adjudicated: dict[str, str]) -> dict[str, bool | None]:
    out: dict[str, bool | None] = {}
    for item in items:
        verdict = adjudicated.get(item.id)
        out[item.id] = item.label if verdict not in ("correct", "incorrect") \
            else verdict == "correct"
    return out


def summarize_real(records: list[dict[str, Any]], truth: dict[str, bool | None],
                   raw_label: dict[str, bool | None]) -> dict[str, Any]:
    pos = [r for r in records if truth.get(r["id"]) is True]
    neg = [r for r in records if truth.get(r["id"]) is False]
    agree = sum(1 for r in records if (r["verdict"] == "CORRECT") == bool(raw_label.get(r["id"])))
    p50, p90 = _ms_stats(records)
    return {"n": len(records), "n_correct": len(pos), "n_incorrect": len(neg),
            "accepted_correct": _count(pos, "CORRECT"), "false_accepts": _count(neg, "CORRECT"),
            "agree_with_label": agree, "accepted": _count(records, "CORRECT"),
            "unparseable": _count(records, "UNPARSEABLE"), "timeouts": _count(records, "TIMEOUT"),
            "errors": _count(records, "CHECKER_ERROR"), "p50_ms": p50, "p90_ms": p90}


_LATEX_CATEGORIES = (
    ("integral on the left of '=' (answer on the right)", re.compile(r"\\int.*=")),
    ("integral sign left in the answer", re.compile(r"\\int|\\oint")),
    ("series / ellipsis, not a closed form", re.compile(r"\\sum|\\cdots|\\ldots|\\dots|\.\.\.")),
    ("special function outside the reward's list", re.compile(
        r"\\operatorname\{(?!arc|sgn|sign)[A-Za-z]+\}|\\mathrm\{(?:Li|Ei|Si|Ci|erf)|"
        r"\\(?:Gamma|zeta|beta)\b|\\text\{(?:erf|Li|Ei|Si|Ci|li|Elliptic)")),
    ("limits / definite-integral value", re.compile(r"\\Big\||\\bigg\||\\right\|_|\|_\{")),
    ("prose or units inside the math", re.compile(r"\\text\{[^}]*[a-z]{4,}|\\quad\s*\\text")),
    ("several expressions or an equation chain", re.compile(r"=.*=|\\\\|,\s*\\?[a-zA-Z]")),
)
_REASON_CATEGORIES = {
    "no_answer": "no answer found (no box, tag or math block)",
    "empty": "no answer found (no box, tag or math block)",
    "ambiguous": "several answers (ambiguous)",
    "exponent_too_large": "numeric exponent above the parser's guard (1000)",
    "number_too_large": "number above the parser's size guard",
    "too_long": "answer longer than the parser's length guard",
    "too_deep": "nesting deeper than the parser's guard",
}


def categorize_parse_failure(reason: str, extracted: str | None) -> str:
    """A human category for an UNPARSEABLE verdict on real LaTeX: what the
    text shows first (an integral sign, a series...), else the guard or
    parser reason.

    >>> categorize_parse_failure("no_answer", None)
    'no answer found (no box, tag or math block)'
    >>> categorize_parse_failure("latex_error", r"\\sum_{n=0}^{\\infty} x^n")
    'series / ellipsis, not a closed form'
    >>> categorize_parse_failure("echoed_integral", r"\\int x dx = \\frac{x^2}{2}")
    "integral on the left of '=' (answer on the right)"
    """
    text = extracted or ""
    for name, pattern in _LATEX_CATEGORIES:
        if pattern.search(text):
            return name
    if reason in _REASON_CATEGORIES:
        return _REASON_CATEGORIES[reason]
    if reason == "echoed_integral":
        return "integral sign left in the answer"
    return f"other LaTeX the parser rejects ({reason})"


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def _subset(items: list[Item], n: int | None, seed: int) -> list[Item]:
    if n is None or n >= len(items):
        return list(items)
    chosen = set(random.Random(f"peer:{seed}").sample(range(len(items)), n))
    return [it for i, it in enumerate(items) if i in chosen]


def build_corpora(args) -> tuple[dict[str, list[Item]], Counter]:
    found = find_corpus(args.corpus)
    if not found:
        raise SystemExit(f"no known data set under {args.corpus}")
    stats: Counter = Counter()
    data: dict[str, list[Item]] = {}
    wanted = set(args.datasets)
    if "rubi" in wanted and "rubi" in found:
        cache = None
        if args.cache_dir:
            key = f"rubi_s{args.sample}_seed{args.seed}_r{args.rewrites_per_pair}" \
                  f"_m{args.mutants_per_pair}_{found['rubi'].stat().st_size}"
            cache = Path(args.cache_dir) / f"{key}.jsonl"
        if cache is not None and cache.exists():
            items = load_items(cache)
            data["rubi_correct"] = [i for i in items if i.dataset == "rubi_correct"]
            data["rubi_wrong"] = [i for i in items if i.dataset == "rubi_wrong"]
            stats["rubi_pairs_used"] = len({i.meta.get("pair") for i in items})
            _log(f"rubi corpus from cache {cache}")
        else:
            _log(f"building the Rubi corpus ({args.sample} pairs)...")
            correct, wrong = load_rubi(found["rubi"], args.sample, args.seed,
                                       rewrites_per_pair=args.rewrites_per_pair,
                                       mutants_per_pair=args.mutants_per_pair, stats=stats)
            data["rubi_correct"], data["rubi_wrong"] = correct, wrong
            if cache is not None:
                save_items(correct + wrong, cache)
    if "rgym" in wanted and "rgym" in found:
        data["rgym"] = load_rgym(found["rgym"], args.rgym_sample, args.seed)
    if "mitbee" in wanted and "mitbee" in found:
        data["mitbee"] = load_mitbee(found["mitbee"], args.mitbee_sample, args.seed)
    return data, stats


_RUN_KEYS = ("sample", "seed", "rewrites_per_pair", "mutants_per_pair", "rgym_sample",
             "mitbee_sample", "peer_sample", "workers", "timeout", "datasets", "methods")


def run_accuracy(args) -> dict[str, Any]:
    if getattr(args, "from_json", None):
        with open(args.from_json) as handle:
            saved = json.load(handle)
        for key in _RUN_KEYS:  # the saved run's settings, to rebuild the same corpus
            if key in saved.get("args", {}):
                setattr(args, key, saved["args"][key])
        data, stats = build_corpora(args)
        return _report_from_json(args, saved, data, stats)
    data, stats = build_corpora(args)
    methods = [m for m in METHODS if m in args.methods]
    results: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
    walls: dict[str, dict[str, float]] = defaultdict(dict)
    subsets: dict[str, int] = {}
    for dataset, items in data.items():
        if not items:
            continue
        peer_items = _subset(items, args.peer_sample, args.seed)
        subsets[dataset] = len(peer_items)
        for method in methods:
            chosen = items if method == OURS else peer_items
            _log(f"{dataset}: {method} on {len(chosen)} candidates")
            if method == OURS:
                records, wall = run_ours(chosen, workers=args.workers, timeout_s=args.timeout,
                                         tag=f" {dataset}")
            else:
                records, wall, _hwm = run_peer(method, chosen, workers=args.workers,
                                               timeout_s=args.timeout, tag=f" {dataset}")
            results[dataset][method] = records
            walls[dataset][method] = wall

    return _finish(args, data, results, walls, subsets, stats)


def _report_from_json(args, saved, data, stats) -> dict[str, Any]:
    """Re-adjudicate and re-render a saved run (``--from-json``) without
    running any method again; the data sets are rebuilt (the Rubi corpus
    from its cache) to look the rows up."""
    results = saved["records"]
    ids = {d: {r["id"] for recs in per.values() for r in recs} for d, per in results.items()}
    data = {d: [it for it in items if it.id in ids.get(d, ())] for d, items in data.items()
            if d in results}
    stats = Counter(saved.get("stats") or stats)
    return _finish(args, data, results, saved.get("walls", {}), saved.get("subsets", {}), stats)


def _finish(args, data, results, walls, subsets, stats) -> dict[str, Any]:
    # Adjudicate every rgym row some method disputes with its label.
    adjudicated: dict[str, str] = {}
    if "rgym" in data:
        by_id = {it.id: it for it in data["rgym"]}
        disputed = sorted({r["id"] for recs in results["rgym"].values() for r in recs
                           if (r["verdict"] == "CORRECT") != bool(by_id[r["id"]].label)})
        _log(f"rgym: adjudicating {len(disputed)} disputed rows")
        for k, item_id in enumerate(disputed):
            item = by_id[item_id]
            from .peers import rgym_extract_answer

            answer = rgym_extract_answer(item.response) if item.response else item.answer
            adjudicated[item_id] = adjudicate(answer, item.integrand or "", item.symbol,
                                              seed=args.seed)
            if k % 200 == 199:
                _log(f"  adjudicated {k + 1}/{len(disputed)}")
    report = make_report(data, results, walls, subsets, adjudicated, stats, args)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as handle:
            json.dump({"args": {k: (v if isinstance(v, (int, float, str, list, type(None)))
                                    else str(v)) for k, v in vars(args).items()
                                if k != "func"},
                       "summary": report["summary"], "adjudicated": adjudicated,
                       "walls": walls, "subsets": subsets, "stats": dict(stats),
                       "records": {d: m for d, m in results.items()}}, handle)
    return report


def audit_jumps(items: list[Item], results: dict[str, list[dict[str, Any]]]
                ) -> dict[str, tuple[str, str]]:
    """``{id: (at, measured)}`` for the known-correct candidates this reward
    rejected as ``discontinuous`` whose jump an independent quadrature
    confirms (:func:`~benchmarks.corpora.audit_jump`), judged as SymPy text:
    the ``sympy`` twin of a ``latex`` candidate is the same expression."""
    by_id = {it.id: it for it in items}
    out: dict[str, tuple[str, str]] = {}
    for r in results.get(OURS, []):
        if r["reason"] != "discontinuous" or not r.get("jump_at") or r["id"] not in by_id:
            continue
        twin = by_id.get(r["id"].replace("|latex|", "|sympy|"))
        item = by_id[r["id"]]
        if twin is None or twin.answer is None or item.integrand is None:
            continue
        answer = re.sub(r"\s*\+\s*C$", "", twin.answer.strip())
        measured = audit_jump(answer, item.integrand, r["jump_at"], item.symbol)
        if measured:
            out[r["id"]] = (r["jump_at"], measured)
    return out


def make_report(data, results, walls, subsets, adjudicated, stats, args) -> dict[str, Any]:
    summary: dict[str, dict[str, Any]] = defaultdict(dict)
    sections: list[str] = []
    labels = lambda m: METHOD_LABELS.get(m, m)  # noqa: E731

    # -- Rubi correct, per rendering --------------------------------------
    if results.get("rubi_correct"):
        jumps = audit_jumps(data.get("rubi_correct", []), results["rubi_correct"])
        rows = []
        for method, records in results["rubi_correct"].items():
            for syntax in ("latex", "sympy"):
                subset = [r for r in records if r["group"].startswith(syntax + "/")]
                s = summarize_constructed(subset, True)
                # Pairs whose F jumps where f is continuous (audited independently)
                # are not antiderivatives by the definition: counted apart.
                s["discontinuous"] = sum(1 for r in subset if r["id"] in jumps)
                summary["rubi_correct"][f"{method}/{syntax}"] = s
                rows.append([labels(method), "`sympy.latex`" if syntax == "latex" else "SymPy text",
                             pct(s["accepted"], s["n"] - s["discontinuous"], 2),
                             s["discontinuous"], s["unparseable"], s["timeouts"],
                             s["errors"], s["p50_ms"], s["p90_ms"]])
        sections.append(
            "### Rubi pairs, known correct (elementary), as a model renders them\n\n"
            f"{stats.get('rubi_pairs_used', '?')} pairs sampled from the elementary Rubi pairs "
            f"(seed {args.seed}); each rendered as `sympy.latex` and as SymPy text with `+ C`, "
            f"plus {args.rewrites_per_pair} verified equivalent rewrite(s) per pair in both "
            "renderings. *accepted* is out of the candidates that are antiderivatives by the "
            "definition (docs/domain.md); *discontinuous* counts those this reward rejected "
            "as jumping where the integrand is continuous and an independent quadrature "
            "confirmed (listed below).\n\n" + markdown_table(
                ["method", "rendering", "accepted", "discontinuous", "unparseable", "timeouts",
                 "errors", "median ms", "p90 ms"], rows))
        if jumps:
            by_id = {it.id: it for it in data.get("rubi_correct", [])}
            sections.append("Known-correct candidates that jump (F(c + d) - F(c - d) against "
                            "the integral of f over [c - d, c + d]):\n\n" + markdown_table(
                                ["candidate", "integrand", "at", "measured"],
                                [[f"`{item_id}`", f"`{by_id[item_id].integrand}`", at, why]
                                 for item_id, (at, why) in sorted(jumps.items())]))
        groups = sorted({r["group"].split("/", 1)[1] for recs in results["rubi_correct"].values()
                         for r in recs})
        rows = []
        for method, records in results["rubi_correct"].items():
            row = [labels(method)]
            for g in groups:
                subset = [r for r in records if r["group"].endswith("/" + g)
                          and r["id"] not in jumps]
                row.append(pct(_count(subset, "CORRECT"), len(subset)))
            rows.append(row)
        sections.append("Accepted, by rewrite (both renderings; discontinuous ones left out):\n\n"
                        + markdown_table(["method", *groups], rows))

    # -- Rubi wrong ---------------------------------------------------------
    if results.get("rubi_wrong"):
        rows = []
        for method, records in results["rubi_wrong"].items():
            s = summarize_constructed(records, False)
            summary["rubi_wrong"][method] = s
            rows.append([labels(method), s["n"], s["accepted"], s["unparseable"], s["timeouts"],
                         s["errors"], s["p50_ms"], s["p90_ms"]])
        sections.append(
            "### Verified-wrong candidates (mutants of the same Rubi pairs)\n\n"
            "Each mutant's derivative differs from the integrand at 50 digits at >= 2 points "
            "where the original pair agrees to 35 digits.\n\n" + markdown_table(
                ["method", "wrong candidates", "**false accepts**", "unparseable", "timeouts",
                 "errors", "median ms", "p90 ms"], rows))
        ops = sorted({r["group"].split("/", 1)[1] for recs in results["rubi_wrong"].values()
                      for r in recs})
        rows = []
        for method, records in results["rubi_wrong"].items():
            row = [labels(method)]
            for op in ops:
                subset = [r for r in records if r["group"].endswith("/" + op)]
                row.append(f"{_count(subset, 'CORRECT')}/{len(subset)}")
            rows.append(row)
        sections.append("False accepts by mutation operator:\n\n"
                        + markdown_table(["method", *ops], rows))

    # -- rgym ------------------------------------------------------------------
    if results.get("rgym"):
        items = data["rgym"]
        raw = {it.id: it.label for it in items}
        truth = _labels(items, adjudicated)
        rows = []
        for method, records in results["rgym"].items():
            s = summarize_real(records, truth, raw)
            summary["rgym"][method] = s
            rows.append([labels(method), s["n"], pct(s["agree_with_label"], s["n"]),
                         pct(s["accepted_correct"], s["n_correct"], 2),
                         f"{s['false_accepts']}/{s['n_incorrect']}", s["unparseable"],
                         s["timeouts"], s["errors"], s["p50_ms"], s["p90_ms"]])
        flips = Counter((bool(it.label), adjudicated.get(it.id)) for it in items
                        if it.id in adjudicated)
        sections.append(
            "### Real completions: reasoning-gym eval (SymPy syntax in `<answer>` tags)\n\n"
            f"{len(items)} rows. Labels are reasoning-gym's own SymPy scorer; every row some "
            f"method disputes ({len(adjudicated)}) was re-judged by an independent 50-digit "
            "numeric judge (SymPy's parser with `^` as power and implicit multiplication, "
            "real points in the domain): "
            + ", ".join(f"label {'correct' if k[0] else 'incorrect'} -> {k[1]}: {v}"
                        for k, v in sorted(flips.items(), key=lambda kv: str(kv[0]))) + ".\n\n"
            + markdown_table(["method", "rows", "agrees with label", "adjudicated correct accepted",
                              "false accepts (adjudicated incorrect)", "unparseable", "timeouts",
                              "errors", "median ms", "p90 ms"], rows))
        sections.append(_rgym_disagreements(items, results["rgym"].get(OURS, []), adjudicated))

    # -- mitbee ------------------------------------------------------------------
    if results.get("mitbee"):
        items = data["mitbee"]
        raw = {it.id: it.label for it in items}
        rows = []
        for method, records in results["mitbee"].items():
            s = summarize_real(records, raw, raw)
            summary["mitbee"][method] = s
            with_answer = s["n"] - sum(1 for r in records if r["reason"] in (
                "no_answer", "empty"))
            rows.append([labels(method), s["n"], pct(s["n"] - s["unparseable"] - s["errors"],
                                                     s["n"]),
                         pct(s["accepted"], s["n"]), pct(s["agree_with_label"], s["n"]),
                         s["unparseable"], with_answer, s["timeouts"], s["errors"],
                         s["p50_ms"], s["p90_ms"]])
        sections.append(
            "### Real LaTeX completions: MIT Integration Bee (indefinite rows)\n\n"
            "Responses are mostly `$...$`/`\\[...\\]`, not boxed: the reward runs with "
            "`math_fallback=True` and a LaTeX integrand; every other method gets the data "
            "set's extracted answer, boxed for TRL (`accuracy_reward` extracts only boxed or "
            "anchored answers, not bare `\\[...\\]` blocks). "
            "Labels come from a lenient LLM grader (noisy, both directions), so agreement is "
            "not accuracy.\n\n" + markdown_table(
                ["method", "rows", "parsed", "accepted", "agrees with noisy label",
                 "unparseable", "rows with an answer", "timeouts", "errors", "median ms",
                 "p90 ms"], rows))
        sections.append(_parse_failures(results["mitbee"].get(OURS, []), items))

    # -- wall time -------------------------------------------------------------
    rows = []
    for dataset, per_method in walls.items():
        for method, wall in per_method.items():
            n = len(results[dataset][method])
            rows.append([dataset, labels(method), n, wall, n / wall if wall else None])
    sections.append("Wall time per method and data set (2 workers):\n\n" + markdown_table(
        ["data set", "method", "candidates", "wall s", "candidates/s"], rows))
    note = (f"Peers ran on a deterministic subset of at most {args.peer_sample} candidates per "
            f"data set ({', '.join(f'{k}: {v}' for k, v in subsets.items())}); this reward ran "
            "on every candidate." if args.peer_sample else "Every method ran on every candidate.")
    header = (f"Command: `{_command(args)}`\n\n"
              f"Per-sample deadline {args.timeout} s for every method, {args.workers} worker "
              "processes, one sample per check; times are in-worker milliseconds per sample. "
              + note)
    body = "## Verdict accuracy\n\n" + header + "\n\n" + "\n\n".join(sections) + "\n"
    return {"markdown": body, "summary": summary}


def _command(args) -> str:
    """The command line that reproduces this run (non-default options only)."""
    import os

    from . import REPO_ROOT

    corpus = str(args.corpus)
    try:
        corpus = os.path.relpath(corpus, REPO_ROOT)
    except ValueError:
        pass
    parts = ["python -m benchmarks accuracy", f"--corpus {corpus}", f"--sample {args.sample}",
             f"--seed {args.seed}"]
    defaults = {"rewrites_per_pair": 1, "mutants_per_pair": 3, "rgym_sample": None,
                "mitbee_sample": None, "peer_sample": None, "workers": 2, "timeout": 5.0}
    for key, default in defaults.items():
        value = getattr(args, key, default)
        if value != default:
            parts.append(f"--{key.replace('_', '-')} {value}")
    return " ".join(parts)


def _rgym_disagreements(items: list[Item], ours: list[dict[str, Any]],
                        adjudicated: dict[str, str]) -> str:
    by_id = {it.id: it for it in items}
    rows = []
    for r in ours:
        item = by_id[r["id"]]
        accepted = r["verdict"] == "CORRECT"
        judged = adjudicated.get(r["id"])
        truth = judged == "correct" if judged in ("correct", "incorrect") else bool(item.label)
        if accepted == bool(item.label) and accepted == truth:
            continue
        from .peers import rgym_extract_answer

        answer = rgym_extract_answer(item.response) if item.response else item.answer
        rows.append([r["id"].replace("rgym/", "")[-60:], f"`{(answer or '')[:70]}`",
                     f"`{(item.integrand or '')[:50]}`",
                     "correct" if item.label else "incorrect", r["verdict"], r["reason"],
                     adjudicated.get(r["id"], "–")])
    rows.sort(key=lambda row: (row[6], row[4]))
    return (f"Rows where this reward disagrees with the reasoning-gym label or with the "
            f"adjudication ({len(rows)}):\n\n"
            + markdown_table(["row", "answer", "integrand", "label", "this reward", "reason",
                              "adjudicated"], rows))


def _parse_failures(ours: list[dict[str, Any]], items: list[Item]) -> str:
    failures = [r for r in ours if r["verdict"] == "UNPARSEABLE"]
    cats: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in failures:
        cats[categorize_parse_failure(r["reason"], r.get("extracted"))].append(r)
    rows = []
    for name, recs in sorted(cats.items(), key=lambda kv: -len(kv[1])):
        example = next((r.get("extracted") for r in recs if r.get("extracted")), None)
        rows.append([name, len(recs), ", ".join(sorted(Counter(r["reason"] for r in recs))),
                     f"`{example[:90]}`" if example else "–"])
    text = (f"Every parse failure of this reward on the MIT Bee responses ({len(failures)}), "
            "categorized:\n\n" + markdown_table(["category", "rows", "reasons", "example"],
                                                   rows))
    by_id = {it.id: it for it in items}
    errors = [r for r in ours if r["verdict"] == "CHECKER_ERROR"]
    if errors:
        integrands = Counter((by_id[r["id"]].integrand_latex, r["reason"]) for r in errors)
        rows = [[f"`{latex[:80]}`", reason, n] for (latex, reason), n in integrands.most_common()]
        text += (f"\n\nRows not judged because the *integrand* (data, not model output) did "
                 f"not parse ({len(errors)} rows, CHECKER_ERROR: left out of the gradient):\n\n"
                 + markdown_table(["integrand", "reason", "rows"], rows))
    return text


def add_arguments(parser) -> None:
    parser.add_argument("--corpus", default=str(DEFAULT_DATA_DIR),
                        help="data directory (../shared/data) or one JSONL file")
    parser.add_argument("--sample", type=int, default=350, help="Rubi pairs to sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rewrites-per-pair", type=int, default=1)
    parser.add_argument("--mutants-per-pair", type=int, default=3)
    parser.add_argument("--rgym-sample", type=int, default=None, help="rgym rows (all if unset)")
    parser.add_argument("--mitbee-sample", type=int, default=None,
                        help="MIT Bee indefinite rows (all if unset)")
    parser.add_argument("--peer-sample", type=int, default=None,
                        help="cap per data set for the peers (this reward runs on all)")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--datasets", nargs="+", default=["rubi", "rgym", "mitbee"],
                        choices=["rubi", "rgym", "mitbee"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=5.0, help="per-sample deadline (s)")
    parser.add_argument("--out", default=None,
                        help="Markdown file whose 'accuracy' section to (re)write, e.g. "
                             "docs/benchmarks.md")
    parser.add_argument("--json", default=None, help="write summary + per-sample records here")
    parser.add_argument("--from-json", default=None,
                        help="re-adjudicate and re-render a run saved with --json, without "
                             "running the methods again")
    parser.add_argument("--cache-dir", default="outputs/bench",
                        help="where the generated Rubi corpus is cached ('' to disable)")


def main(args) -> int:
    report = run_accuracy(args)
    print(report["markdown"])
    if args.out:
        write_section(args.out, "accuracy", report["markdown"], title="Benchmarks")
        _log(f"wrote the accuracy section of {args.out}")
    return 0


__all__ = ["add_arguments", "categorize_parse_failure", "completion_for_ours", "inputs_for",
           "main", "run_accuracy", "run_ours", "run_peer"]
