"""``python -m benchmarks mitbee``: parse coverage on real LaTeX responses.

Every indefinite row of ``mitbee_outputs.jsonl`` (real completions to MIT
Integration Bee problems, answers mostly in ``$...$``) is checked the way
the reward checks it in training: the whole response, the math-block
fallback on, the row's LaTeX integrand. The table counts the verdicts, the
responses whose answer was found but did not parse (UNPARSEABLE other than
``no_answer``), categorized, and the rows whose integrand did not parse
(CHECKER_ERROR). The labels are an LLM grader's and noisy, so no accuracy is
claimed here; ``bench accuracy`` has the agreement figures.

Checks run in a process pool (``--workers``), each under the checker's own
deadline (``--timeout``). Rows are read by path and never copied.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import DEFAULT_DATA_DIR
from .accuracy import categorize_parse_failure
from .corpora import MITBEE_FILE
from .table import markdown_table


def _check(row: tuple[str, str, str, str | None, float]) -> dict[str, Any]:
    from rewards.check.pipeline import check_antiderivative

    row_id, response, integrand, symbol, timeout_s = row
    result = check_antiderivative(response, integrand, symbol=symbol or "x",
                                  input_kind="response", integrand_kind="latex",
                                  math_fallback=True, timeout_s=timeout_s)
    extract = next((s for s in result.stages if s.stage == "candidate_extract"), None)
    chosen = extract.data.get("chosen") if extract else None
    return {"id": row_id, "verdict": result.verdict.value, "reason": result.reason,
            "extracted": chosen, "integrand": integrand, "ms": result.total_ms}


def load_rows(path: Path) -> list[dict[str, Any]]:
    with open(path) as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [r for r in rows if r.get("indefinite")]


def run(path: Path, workers: int, timeout_s: float) -> list[dict[str, Any]]:
    rows = load_rows(path)
    tasks = [(r["id"], r.get("response") or "", r["integrand_latex"], r.get("variable"),
              timeout_s) for r in rows]
    if workers <= 1:
        return [_check(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_check, tasks, chunksize=16))


def report(records: list[dict[str, Any]]) -> str:
    verdicts = Counter(r["verdict"] for r in records)
    answered = [r for r in records if r["reason"] != "no_answer"]
    failed = [r for r in answered if r["verdict"] == "UNPARSEABLE"]
    errors = [r for r in records if r["verdict"] == "CHECKER_ERROR"]
    ms = sorted(r["ms"] for r in records)
    summary = markdown_table(
        ["rows", "answer found", "CORRECT", "WRONG", "UNPARSEABLE (answer found)",
         "CHECKER_ERROR (integrand)", "TIMEOUT", "no answer", "median ms"],
        [[len(records), len(answered), verdicts["CORRECT"], verdicts["WRONG"], len(failed),
          len(errors), verdicts["TIMEOUT"], len(records) - len(answered),
          round(ms[len(ms) // 2], 1) if ms else "-"]])
    cats: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in failed:
        cats[categorize_parse_failure(r["reason"], r["extracted"])].append(r)
    rows = []
    for name, recs in sorted(cats.items(), key=lambda kv: -len(kv[1])):
        example = next((r["extracted"] for r in recs if r["extracted"]), "")
        rows.append([name, len(recs), ", ".join(sorted(Counter(r["reason"] for r in recs))),
                     f"`{example[:90]}`" if example else "-"])
    text = summary + "\n\nAnswer found but UNPARSEABLE, by category:\n\n" + markdown_table(
        ["category", "rows", "reasons", "example"], rows)
    if errors:
        integrands = Counter((r["integrand"], r["reason"]) for r in errors)
        text += "\n\nIntegrands that did not parse (CHECKER_ERROR):\n\n" + markdown_table(
            ["integrand", "reason", "rows"],
            [[f"`{latex[:80]}`", reason, n] for (latex, reason), n in integrands.most_common()])
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", default=str(DEFAULT_DATA_DIR / MITBEE_FILE),
                        help="mitbee_outputs.jsonl (or the data directory holding it)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=5.0, help="per-check deadline (s)")
    parser.add_argument("--json", default=None, help="write the per-row records here")


def main(args: argparse.Namespace) -> int:
    path = Path(args.corpus)
    if path.is_dir():
        path = path / MITBEE_FILE
    if not path.exists():
        print(f"no MIT Bee data at {path}", file=sys.stderr)
        return 1
    started = time.perf_counter()
    records = run(path, args.workers, args.timeout)
    print(report(records))
    print(f"\n({len(records)} rows in {time.perf_counter() - started:.1f} s, "
          f"{args.workers} workers)", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    cli = argparse.ArgumentParser(prog="python -m benchmarks.mitbee_parse",
                                  description=__doc__.splitlines()[0])
    add_arguments(cli)
    sys.exit(main(cli.parse_args()))
