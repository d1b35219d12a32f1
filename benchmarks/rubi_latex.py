"""``--source rubi-latex``: a GRPO-shaped batch of hard integrals in ``sympy.latex``.

The batch of issue 9: 64 elementary Rubi integrands (no special function in
the pair, antiderivative at most 200 characters of SymPy text, no parameter)
x 8 completions each, one per *form* of the answer, in a seeded order within
the group. Every answered completion is a short model-like response ending in
one ``\\boxed{}`` that holds ``sympy.latex`` output:

==================  ======  ==================================================
form                kind    the boxed answer
==================  ======  ==================================================
``with_c``          right   ``latex(F) + C``
``without_c``       right   ``latex(F)``
``expanded_plus_1`` right   ``latex(expand(F) + 1)``
``rewrite``         right   ``latex(G) + C``: G the first of ``simplify(F)``,
                            ``factor``, ``cancel``, ``horner`` (polynomials),
                            a log / trig / hyperbolic / inverse-trig identity
                            rewrite (:func:`benchmarks.corpora._rewrite`) whose
                            text differs from the others, else ``F + 7/3``
``twice``           wrong   ``latex(2 F) + C``
``negated``         wrong   ``latex(-F) + C``
``plus_x``          wrong   ``latex(F + x) + C``
``refusal``         none    no box at all
==================  ======  ==================================================

Each right form is kept only if its derivative agrees with the integrand to
35 digits, and each wrong one only if its derivative clearly differs, at
>= 4 points (complex and real) where the pair itself agrees to 35 digits
(:mod:`benchmarks.corpora`'s 50-digit verification); a pair where any form
fails is skipped. Pairs are taken in a seeded shuffle: timed batch A (64
pairs), batch B (the next 64, only for ``--batches`` >= 2), then a warm-up
batch (the next 8), which the reward and TRL score untimed before the timed
batches (a warm pool, warm SymPy caches, as after the first training step).
The same seed gives the same batch: the report prints its SHA-256.

Every expensive step of the construction runs under a generous time box
(``simplify`` 15 s): a step that hits it is skipped (the next rewrite is
tried, or the pair dropped), which on a very slow machine could in principle
change the batch; the SHA-256 in the report tells.

This module also holds the measurement parts only this source has: the
sequential per-stage pass (:func:`stage_pass`) and the tables
(:func:`make_report`). Heavy imports stay inside functions.
"""
from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

FORMS = ("with_c", "without_c", "expanded_plus_1", "rewrite", "twice", "negated", "plus_x",
         "refusal")
CORRECT_FORMS = ("with_c", "without_c", "expanded_plus_1", "rewrite")
WRONG_FORMS = ("twice", "negated", "plus_x")
MAX_ANTIDERIVATIVE_CHARS = 200
WARMUP_PROMPTS = 8
# Rewrites tried, in order, for the ``rewrite`` form.
REWRITE_ORDER = ("simplify", "factor", "cancel", "horner", "log_identity", "trig_identity",
                 "hyperbolic_exp", "inverse_trig_identity", "atanh_log", "constant_added")
_MAX_LATEX_CHARS = 1500

_TEMPLATES = (
    "Let me work this out step by step.\n\nI look for a substitution or a decomposition that "
    "makes the integrand easier, integrate each piece, and differentiate the result to check "
    "it.\n\nSo the antiderivative is $\\boxed{{{answer}}}$.",
    "We integrate term by term and simplify.\n\nDifferentiating back gives the integrand, "
    "as required.\n\n**Final answer:** $\\boxed{{{answer}}}$",
    "To find the antiderivative, rewrite the integrand, integrate, and collect the terms:\n"
    "\\[\n\\boxed{{{answer}}}\n\\]",
)
_REFUSALS = (
    "Let me think about this integral. None of the standard substitutions seem to work, and "
    "I could not find a closed form.",
    "This integral looks hard. I tried integration by parts twice without success, so I "
    "cannot give an antiderivative.",
)


def _elementary_rows(path: Path, max_chars: int) -> list[dict[str, Any]]:
    from .corpora import _read_jsonl, is_elementary_text

    return [r for r in _read_jsonl(path)
            if len(r["antiderivative"]) <= max_chars and is_elementary_text(r["antiderivative"])
            and is_elementary_text(r["integrand"])]


def _candidate_rewrite(name: str, F, x):
    import sympy as sp

    from .corpora import _rewrite

    if name == "simplify":
        return sp.simplify(F)
    if name == "factor":
        return sp.factor(F)
    if name == "cancel":
        return sp.cancel(F)
    if name == "horner":
        return sp.horner(F) if F.is_polynomial(x) else None
    return _rewrite(name, F, x)


def prepare_pair(row: dict[str, Any], seed: int = 0,
                 stats: Counter | None = None) -> dict[str, Any] | None:
    """The 8 verified forms of one Rubi pair, or None when the pair is not
    usable (unreadable, a parameter, too few valid points, a form that does
    not verify). Returns ``{"id", "integrand", "antiderivative",
    "reference_latex", "forms": {form: {"answer", "answer_sympy", "detail"}}}``."""
    import sympy as sp

    from .corpora import (
        _model_sized,
        _points,
        _timed,
        _valid_points,
        verify_equivalent,
        verify_wrong,
    )

    stats = stats if stats is not None else Counter()
    x = sp.Symbol("x")
    F = _timed(5, sp.sympify, row["antiderivative"], {"x": x})
    f = _timed(5, sp.sympify, row["integrand"], {"x": x})
    if F is None or f is None or not isinstance(F, sp.Expr) or not isinstance(f, sp.Expr):
        stats["skipped_unreadable"] += 1
        return None
    if F.free_symbols != {x} or not f.free_symbols <= {x}:
        stats["skipped_parameters_or_constant"] += 1
        return None
    pair_rng = random.Random(f"rubi-latex:{seed}:{row['id']}")
    points = _timed(20, _valid_points, F, f, x, _points(pair_rng))
    if not points or len(points) < 4:
        stats["skipped_unverifiable"] += 1
        return None
    base = sp.latex(F)
    if len(base) > _MAX_LATEX_CHARS:
        stats["skipped_latex_too_long"] += 1
        return None
    forms: dict[str, dict[str, Any]] = {}

    def add(name: str, expr, constant: bool, detail: str = "") -> None:
        forms[name] = {"answer": sp.latex(expr) + (" + C" if constant else ""),
                       "answer_sympy": sp.sstr(expr), "detail": detail}

    add("with_c", F, True)
    add("without_c", F, False)
    expanded = _timed(5, lambda: sp.expand(F) + 1)
    if expanded is None or len(sp.latex(expanded)) > _MAX_LATEX_CHARS:
        stats["skipped_expansion_too_long"] += 1
        return None
    add("expanded_plus_1", expanded, False)
    taken = {base, sp.latex(expanded)}
    for name in REWRITE_ORDER:
        if name == "constant_added":
            G = F + sp.Rational(7, 3)
        else:
            G = _timed(15 if name == "simplify" else 5, _candidate_rewrite, name, F, x)
        if G is None or not isinstance(G, sp.Expr) or sp.latex(G) in taken \
                or not _model_sized(G, F):
            continue
        if not _timed(20, verify_equivalent, G, f, x, points):
            stats[f"rewrite_not_equivalent_{name}"] += 1
            continue
        add("rewrite", G, True, name)
        break
    add("twice", 2 * F, True)
    add("negated", -F, True)
    add("plus_x", F + x, True)
    for name in CORRECT_FORMS:
        if name == "rewrite":
            continue  # verified above
        G = sp.sympify(forms[name]["answer_sympy"], {"x": x})
        if not _timed(20, verify_equivalent, G, f, x, points):
            stats[f"skipped_form_not_equivalent_{name}"] += 1
            return None
    for name in WRONG_FORMS:
        G = sp.sympify(forms[name]["answer_sympy"], {"x": x})
        if not _timed(20, verify_wrong, G, f, x, points):
            stats[f"skipped_form_not_wrong_{name}"] += 1
            return None
    if "rewrite" not in forms:
        stats["skipped_no_rewrite"] += 1
        return None
    # Seven different answers (F = x would make 2F and F + x one text).
    if len({spec["answer"] for spec in forms.values()}) < len(forms):
        stats["skipped_forms_coincide"] += 1
        return None
    stats[f"rewrite_{forms['rewrite']['detail']}"] += 1
    return {"id": row["id"], "integrand": row["integrand"], "antiderivative": row["antiderivative"],
            "reference_latex": base, "forms": forms}


def _group(pair: dict[str, Any], seed: int, source: str) -> list[dict[str, Any]]:
    rng = random.Random(f"rubi-latex-group:{seed}:{pair['id']}")
    order = list(FORMS)
    rng.shuffle(order)
    rows = []
    for form in order:
        if form == "refusal":
            completion, answer, answer_sympy = rng.choice(_REFUSALS), None, None
            kind = "no_answer"
        else:
            spec = pair["forms"][form]
            answer, answer_sympy = spec["answer"], spec["answer_sympy"]
            completion = rng.choice(_TEMPLATES).format(answer=answer)
            kind = "correct" if form in CORRECT_FORMS else "wrong"
        rows.append({"completion": completion, "chat": True, "integrand": pair["integrand"],
                     "symbol": "x", "reference": pair["antiderivative"],
                     "reference_latex": pair["reference_latex"], "answer": answer,
                     "answer_sympy": answer_sympy, "syntax": "latex", "form": form,
                     "kind": kind, "label": kind == "correct",
                     "detail": pair["forms"].get(form, {}).get("detail", ""),
                     "prompt_key": pair["id"], "source": source})
    return rows


def build_rubi_latex_batches(rubi_path: Path, seed: int = 0, prompts: int = 64,
                             n_batches: int = 1, warmup_prompts: int = WARMUP_PROMPTS,
                             max_chars: int = MAX_ANTIDERIVATIVE_CHARS,
                             stats: Counter | None = None
                             ) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
    """(timed batches, warm-up batch); see the module docstring. Batches
    are A, then B, then A again (``n_batches`` of them)."""
    stats = stats if stats is not None else Counter()
    rows = _elementary_rows(rubi_path, max_chars)
    stats["elementary_short_rows"] = len(rows)
    order = list(range(len(rows)))
    random.Random(f"rubi-latex:{seed}").shuffle(order)
    distinct_sets = 2 if n_batches >= 2 else 1
    needed = prompts * distinct_sets + warmup_prompts
    pairs: list[dict[str, Any]] = []
    seen_integrands: set[str] = set()
    for idx in order:
        if len(pairs) >= needed:
            break
        row = rows[idx]
        if row["integrand"] in seen_integrands:
            stats["skipped_duplicate_integrand"] += 1
            continue
        pair = prepare_pair(row, seed, stats)
        if pair is not None:
            seen_integrands.add(row["integrand"])
            pairs.append(pair)
    if len(pairs) < needed:
        raise SystemExit(f"only {len(pairs)} usable elementary Rubi pairs, {needed} needed")
    stats["pairs_used"] = len(pairs)
    set_a = pairs[:prompts]
    set_b = pairs[prompts:2 * prompts] if distinct_sets == 2 else set_a
    plan = [set_a, set_b, set_a][:n_batches]
    batches = [[r for pair in keyset for r in _group(pair, seed, "rubi-latex")] for keyset in plan]
    warmup = [r for pair in pairs[prompts * distinct_sets:]
              for r in _group(pair, seed + 1, "rubi-latex")]
    return batches, warmup


def batch_digest(batches: list[list[dict[str, Any]]], warmup: list[dict[str, Any]]) -> str:
    """SHA-256 of the batches (same command, same batch)."""
    text = json.dumps([batches, warmup], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


# ---------------------------------------------------------------------------
# The sequential per-stage pass (run in a child process by throughput)
# ---------------------------------------------------------------------------

def distinct_checks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per distinct (extracted answer, integrand, symbol), in batch
    order: what the reward sends to its workers (refusals have no answer)."""
    from rewards.check.extract import ExtractionStatus, extract_answer

    seen: set[tuple] = set()
    out = []
    for r in rows:
        extraction = extract_answer(r["completion"])
        if extraction.status is not ExtractionStatus.OK:
            continue
        key = (extraction.value, r["integrand"], r["symbol"])
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _proof_info(result) -> dict[str, Any]:
    """Which rung proved (``by``), the rungs tried, and the proof stages' ms."""
    tried: list[dict[str, Any]] = []
    by = None
    proof_ms = 0.0
    for stage in result.stages:
        data = stage.data if isinstance(stage.data, dict) else {}
        if isinstance(data.get("tried"), list):
            tried.extend(t for t in data["tried"] if isinstance(t, dict))
            proof_ms += stage.ms or 0.0
        if data.get("by"):
            by = data["by"]
    return {"by": by, "tried": tried, "proof_ms": proof_ms}


def stage_pass(batches: list[list[dict[str, Any]]], warmup: list[dict[str, Any]] | None,
               timeout_s: float) -> dict[str, Any]:
    """``check_antiderivative(completion, integrand, input_kind="response")``
    over the distinct checks of the timed batches, in this process, one after
    the other; the warm-up batch's checks first, untimed."""
    import time

    from rewards import check_antiderivative
    from rewards.reward.config import RewardConfig

    proof_budget_s = RewardConfig().proof_budget_s

    def check(r):
        return check_antiderivative(r["completion"], r["integrand"], symbol=r["symbol"],
                                    timeout_s=timeout_s, input_kind="response",
                                    proof_budget_s=proof_budget_s)

    # Warm as a worker is, then the warm-up batch.
    from rewards.check.pipeline import warm_up

    warm_up()
    for r in distinct_checks(warmup or []) or [{"completion": r"\boxed{x^2/2}",
                                                 "integrand": "x", "symbol": "x"}]:
        check(r)
    rows = distinct_checks([r for batch in batches for r in batch])
    records = []
    started = time.perf_counter()
    for r in rows:
        t0 = time.perf_counter()
        result = check(r)
        wall_ms = (time.perf_counter() - t0) * 1000
        proof = _proof_info(result)
        records.append({
            "prompt_key": r["prompt_key"], "integrand": r["integrand"], "form": r.get("form"),
            "kind": r.get("kind"), "answer": (r.get("answer") or "")[:200],
            "verdict": result.verdict.value, "confidence": result.confidence.value,
            "reason": result.reason, "stage": result.stage, "total_ms": result.total_ms,
            "wall_ms": wall_ms, "stages": [[s.stage, float(s.ms or 0.0)] for s in result.stages],
            **proof})
    return {"records": records, "wall_s": time.perf_counter() - started}


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def accuracy_counts(rows: list[dict[str, Any]], accepted: list[bool]) -> dict[str, int]:
    """Accepted correct forms, false accepts, accepted refusals."""
    out = Counter()
    for r, ok in zip(rows, accepted, strict=True):
        out[f"n_{r['kind']}"] += 1
        out[f"accepted_{r['kind']}"] += bool(ok)
    return dict(out)


def stage_table(records: list[dict[str, Any]]) -> tuple[list[list[Any]], float]:
    from .table import percentile

    per: dict[str, list[float]] = defaultdict(list)
    order: list[str] = []
    for rec in records:
        for name, ms in rec["stages"]:
            if name not in per:
                order.append(name)
            per[name].append(ms)
    total = sum(rec["total_ms"] for rec in records)
    try:
        from rewards.check.pipeline import STAGES

        rank = {name: i for i, name in enumerate(STAGES)}
        order.sort(key=lambda n: rank.get(n, len(rank)))
    except ImportError:  # the stage list moved: keep the order of appearance
        pass
    rows = []
    for name in order:
        values = per[name]
        s = sum(values)
        rows.append([f"`{name}`", len(values), s / 1000, f"{100 * s / total:.1f}%" if total else "–",
                     s / len(values), percentile(values, 50), max(values)])
    staged = sum(sum(v) for v in per.values())
    rows.append(["(outside the stages)", len(records), (total - staged) / 1000,
                 f"{100 * (total - staged) / total:.1f}%" if total else "–",
                 (total - staged) / max(1, len(records)), None, None])
    rows.append(["**total**", len(records), total / 1000, "100%", total / max(1, len(records)),
                 percentile([r["total_ms"] for r in records], 50),
                 max((r["total_ms"] for r in records), default=None)])
    return rows, total


def _decided_by(rec: dict[str, Any]) -> str:
    if rec["verdict"] != "CORRECT":
        return f"not accepted ({rec['verdict']})"
    if rec["confidence"] == "numeric_only":
        return "numeric-only (no rung proved)"
    if rec.get("by"):
        return rec["by"]
    return f"`{rec['stage']}` (before the ladder)"


def _is_error(result: Any) -> bool:
    """A rung that failed, as opposed to one that ran and did not prove."""
    return isinstance(result, str) and (
        result.startswith(("error", "interrupted")) or result.endswith("Error"))


def rung_table(records: list[dict[str, Any]]) -> list[list[Any]]:
    tried: dict[str, list[dict]] = defaultdict(list)
    order: list[str] = []
    for rec in records:
        for t in rec["tried"]:
            name = str(t.get("step") or t.get("rung") or t.get("name"))
            if name not in tried:
                order.append(name)
            tried[name].append(t)
    # The order they run in: the fast path (its rungs, then the normal-form
    # kinds it reports as the rung that proved), then the ladder.
    from rewards.check.proof.ladder import LADDER
    from rewards.check.proof.normal_form import RUNGS

    fast = [name for name, _ in RUNGS]
    ladder = [rung[0] for rung in LADDER]
    order.sort(key=lambda n: (1 + ladder.index(n), "") if n in ladder else
               (0, f"{fast.index(n):03d}" if n in fast else f"999{n}"))
    proved = Counter(_decided_by(rec) for rec in records)
    rows = []
    for name in order:
        values = tried[name]
        ms = [float(t.get("ms") or 0.0) for t in values]
        timeouts = sum(1 for t in values if t.get("result") == "timeout")
        errors = sum(1 for t in values if _is_error(t.get("result")))
        rows.append([f"`{name}`", proved.pop(name, 0), len(values), sum(ms) / 1000,
                     sum(ms) / len(values), max(ms), timeouts, errors])
    for label in sorted(proved, key=lambda k: (k.startswith("not accepted"),
                                                k.startswith("numeric"), k)):
        rows.append([label, proved[label], None, None, None, None, None, None])
    return rows


def _short(text: str | None, n: int = 70) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


SLOW_PROOF_MS = 500.0


def slow_proofs(records: list[dict[str, Any]], threshold_ms: float = SLOW_PROOF_MS
                ) -> list[list[Any]]:
    """Accepted checks whose proof stages took >= ``threshold_ms`` or that
    ended numeric-only, by integrand, slowest first: per form, the rung that
    proved it (``-`` for numeric-only) and the proof ms."""
    slow = [r for r in records if r["verdict"] == "CORRECT"
            and (r["confidence"] == "numeric_only" or r["proof_ms"] >= threshold_ms)]
    by_integrand: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in slow:
        by_integrand[r["integrand"]].append(r)
    rows = []
    for integrand, recs in sorted(by_integrand.items(),
                                  key=lambda kv: -max(r["proof_ms"] for r in kv[1])):
        recs.sort(key=lambda r: FORMS.index(r["form"]) if r["form"] in FORMS else 99)
        how = ", ".join(f"{r['form']}: {r['by'] if r['confidence'] != 'numeric_only' else 'numeric-only'}"
                        f" {r['proof_ms']:.0f}" for r in recs)
        rows.append([f"`{_short(integrand, 60)}`", len(recs),
                     sum(r["confidence"] == "numeric_only" for r in recs),
                     max(r["proof_ms"] for r in recs), how])
    return rows


def not_accepted(records: list[dict[str, Any]]) -> list[list[Any]]:
    return [[f"`{_short(r['integrand'], 50)}`", r["form"], r["verdict"], r["reason"],
             r["total_ms"]] for r in records if r["kind"] == "correct" and r["verdict"] != "CORRECT"]


def make_report(summaries: list[dict[str, Any]], stages: dict[str, Any] | None,
                batches: list[list[dict[str, Any]]], warmup: list[dict[str, Any]],
                build_stats: Counter, args: Any, cpus: int, labels: dict[str, str]) -> str:
    from .table import markdown_table, pct

    rows_all = [r for b in batches for r in b]
    n_groups = len({r["prompt_key"] for r in rows_all})
    kinds = Counter(r["kind"] for r in rows_all)
    rewrites = Counter(r["detail"] for r in rows_all if r["form"] == "rewrite")
    lines = [
        "## Throughput on a GRPO-shaped batch: hard Rubi integrals, `sympy.latex` answers",
        "",
        f"Command: `python -m benchmarks throughput --corpus ../shared/data --source rubi-latex "
        f"--seed {args.seed} --batches {args.batches} --timeout {args.timeout}"
        + (" --configs " + " ".join(args.configs) if args.configs_given else "")
        + (" --out docs/benchmarks.md" if args.out else "") + "`",
        "",
        f"{len(batches)} timed batch(es) of {n_groups} elementary Rubi integrands x "
        f"{len(FORMS)} completions (no special function, antiderivative <= "
        f"{MAX_ANTIDERIVATIVE_CHARS} characters; {build_stats.get('elementary_short_rows', '?')} "
        f"such pairs, taken in a seeded shuffle). Each group holds one completion per form, "
        f"a short response ending in `$\\boxed{{...}}$` with `sympy.latex` output: "
        f"{', '.join(FORMS[:-1])} and a refusal without a box. Correct forms "
        f"({', '.join(CORRECT_FORMS)}): {kinds['correct']}; wrong forms "
        f"({', '.join(WRONG_FORMS)}): {kinds['wrong']}; refusals: {kinds['no_answer']}. Each "
        f"form verified right or wrong at 50 digits before use. `rewrite` is "
        + ", ".join(f"{k} x{v}" for k, v in rewrites.most_common()) + ". "
        f"Warm-up batch (untimed, other integrands): {len(warmup)} completions. Batch SHA-256 "
        f"`{batch_digest(batches, warmup)[:16]}`.",
        "",
        f"Machine: {cpus} CPU(s) available, shared with other work (1-minute load average at "
        f"the end of each configuration). Per-sample deadline {args.timeout} s. Each "
        "configuration runs in a fresh process. The reward runs as trained: default workers "
        "(= available cores), `AntiderivativeReward.score` on chat-style completions, warm "
        "pool; p50/p99 are in-worker ms of the fresh checks (dedup and cache hits left out). "
        "TRL's `accuracy_reward` runs in-process, sequentially, one chat-style completion per "
        "call against the solution `$<sympy.latex(F)> + C$` (math-verify needs the `$`), with "
        "its own 10 s parse / 5 s verify alarms; p50/p99 are wall ms per completion. *cores "
        "busy* is CPU time over wall time: on a shared machine, below the available cores "
        "when other work took the rest.",
        "",
    ]
    header = ["configuration", "completions", "wall s", "completions/s", "fresh checks",
              "p50 ms", "p99 ms", "correct forms accepted", "false accepts (wrong forms)",
              "refusals accepted", "verdicts", "CPU s parent / workers", "cores busy",
              "peak RSS MB", "load avg"]
    table = []
    for s in summaries:
        acc = s.get("accuracy") or {}
        table.append([labels.get(s["config"], s["config"]), s["completions"], s["wall_s"],
                      s["cps"], len(s.get("fresh_ms", [])) or None, s["p50_ms"], s["p99_ms"],
                      pct(acc.get("accepted_correct", 0), acc.get("n_correct", 0)),
                      f"{acc.get('accepted_wrong', 0)} / {acc.get('n_wrong', 0)}",
                      f"{acc.get('accepted_no_answer', 0)} / {acc.get('n_no_answer', 0)}",
                      ", ".join(f"{k[:4].lower()} {v}" for k, v in sorted(s["verdicts"].items())),
                      f"{s.get('cpu_parent_s', 0):.1f} / {s.get('cpu_workers_s', 0):.1f}",
                      (s.get("cpu_parent_s", 0) + s.get("cpu_workers_s", 0)) / s["wall_s"]
                      if s["wall_s"] else None,
                      s["peak_rss_mb"], s.get("loadavg")])
    lines += [markdown_table(header, table), ""]
    by = {s["config"]: s for s in summaries}
    trl = by.get("trl_math_verify/chat")
    for cfg in ("ours/default", "ours/default+cache"):
        if cfg in by and trl and trl["cps"]:
            lines.append(f"- {labels.get(cfg, cfg)} / TRL `accuracy_reward`: "
                         f"**{by[cfg]['cps'] / trl['cps']:.2f}x** completions/s "
                         f"(target: >= 2x in issue 9, >= 3x in issue 17, >= 10x in issue 27)")
    one, default = by.get("ours/w1"), by.get("ours/default")
    if one and default and one["cps"]:
        lines.append(f"- {labels.get('ours/default', 'ours/default')} / 1 worker: "
                     f"**{default['cps'] / one['cps']:.2f}x** completions/s on {cpus} CPU(s) "
                     f"(target: >= 1.8x with 2 workers in issue 27)")
    scaling = (by.get("ours/scaling") or {}).get("scaling")
    if scaling and scaling["ratios"]:
        ratios = sorted(scaling["ratios"])
        from .throughput import SCALING_ORDER

        order = ", ".join(map(str, SCALING_ORDER))
        lines.append(f"- 2 workers / 1 worker, fresh pools alternating in one process "
                     f"({order}; each warmed, then timed on the batch): "
                     + ", ".join(f"{r:.2f}x" for r in scaling["ratios"])
                     + f" (median **{ratios[len(ratios) // 2]:.2f}x**; 1 worker "
                     + ", ".join(f"{w:.2f}" for w in scaling["w1_s"]) + " s, 2 workers "
                     + ", ".join(f"{w:.2f}" for w in scaling["w2_s"]) + " s)")
    floor = by.get("ours/sequential")
    if floor and default and default["wall_s"]:
        lines.append(f"- the sequential floor (every completion in-process, no pool, no dedup, "
                     f"no cache): {floor['wall_s']:.1f} s for {floor['completions']} completions; "
                     f"as trained: {default['wall_s']:.1f} s, "
                     f"{floor['wall_s'] / default['wall_s']:.2f}x faster")
    lines.append("")
    # Per form
    form_rows = []
    for form in FORMS:
        row: list[Any] = [f"`{form}`", next((r["kind"] for r in rows_all if r["form"] == form), "")]
        for s in summaries:
            per = (s.get("per_form") or {}).get(form)
            if per is not None:
                row.append(f"{per[0]} / {per[1]}")
        form_rows.append(row)
    if summaries:
        lines += ["Accepted, by form:", "",
                  markdown_table(["form", "kind"] + [labels.get(s["config"], s["config"])
                                                     for s in summaries if s.get("per_form")],
                                 form_rows), ""]
    if stages and stages.get("records"):
        records = stages["records"]
        verdicts = Counter(r["verdict"] for r in records)
        stage_rows, total = stage_table(records)
        lines += [
            f"### Where the time goes: {len(records)} distinct checks, sequential, in-process",
            "",
            "`check_antiderivative(completion, integrand, input_kind=\"response\")` over the "
            "distinct (answer, integrand) pairs of the timed batches (what the workers receive), "
            "one after the other, warm (the warm-up batch's checks first); ms from each "
            f"CheckResult's stages. Total {total / 1000:.1f} s; verdicts "
            + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) + ".",
            "",
            markdown_table(["stage", "checks", "sum s", "share", "mean ms", "p50 ms", "max ms"],
                           stage_rows),
            "",
            "### Proofs: which rung proved each accepted answer",
            "",
            "Rungs in the order they run (the fast normal-form path: `normal_form` when it "
            "did not prove, else the normal-form kind that proved; then the ladder); "
            "*proved* counts accepted answers (each distinct check once); *tried* counts checks that ran the rung; *rung time-outs* are the rung's "
            "own time box running out (the ladder then moves on). Rows below the rungs: "
            "accepted before the ladder, accepted numeric-only (no rung proved), not accepted.",
            "",
            markdown_table(["rung / outcome", "proved", "tried", "sum s", "mean ms", "max ms",
                            "rung time-outs", "rung errors"], rung_table(records)),
            "",
            f"Fell back to the slow rungs: accepted answers whose proof stages took >= "
            f"{SLOW_PROOF_MS:.0f} ms or that ended numeric-only, by integrand (per form: the "
            "rung that proved it or numeric-only, and the proof ms; the JSON output has "
            "every rung tried):",
            "",
            markdown_table(["integrand", "slow checks", "numeric-only", "max proof ms",
                            "form: rung ms"], slow_proofs(records)),
            "",
        ]
        missed = not_accepted(records)
        lines += ([f"Correct forms not accepted ({len(missed)}):", "",
                   markdown_table(["integrand", "form", "verdict", "reason", "ms"], missed), ""]
                  if missed else ["Every correct form was accepted.", ""])
    return "\n".join(lines)


__all__ = ["CORRECT_FORMS", "FORMS", "WRONG_FORMS", "batch_digest", "build_rubi_latex_batches",
           "distinct_checks", "make_report", "prepare_pair", "stage_pass"]
