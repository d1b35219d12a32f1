r"""Human answer keys: the MIT Integration Bee qualifiers' indefinite integrals, judged against their LaTeX integrands.

``../shared/data/latex_answer_keys.jsonl`` holds the keys as the Bee printed
them (``\log x(\log(1+\log x) - 1)``, ``\frac{dx}{x(x^5+1)}``,
``4\arcsin\sqrt[4]{x}``): human notation, not ``sympy.latex``. Every row with
``usable_for_antiderivative_check`` and ``indefinite`` is checked, each form of
a ``multiple_forms`` row on its own (``integrand_kind="latex"``, the row's
variable), in-process, one key after another.

A key that is not an antiderivative by docs/domain.md's definition is listed
in :data:`NOT_ANTIDERIVATIVES` with the reason, adjudicated by hand; it must
be rejected. The others must be accepted; every rejection is printed with its
reason. ``python -m benchmarks answer-keys [--data DIR] [--timeout S]``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from . import DEFAULT_DATA_DIR

KEYS_FILE = "latex_answer_keys.jsonl"

# Keys that are not antiderivatives of their integrands (docs/domain.md),
# by (row id, form index): adjudicated by hand, each with why.
NOT_ANTIDERIVATIVES: dict[tuple[str, int], str] = {}


@dataclass(frozen=True)
class Key:
    """One answer form of one row."""

    row: str
    form: int
    integrand: str
    answer: str
    variable: str

    @property
    def label(self) -> str:
        return f"{self.row}#{self.form}"


@dataclass(frozen=True)
class Judged:
    """A key's verdict."""

    key: Key
    verdict: str
    reason: str
    seconds: float

    @property
    def accepted(self) -> bool:
        return self.verdict == "CORRECT"


def load_keys(path: Path) -> list[Key]:
    """The usable indefinite keys of ``path``, one per answer form."""
    keys = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if not (row.get("usable_for_antiderivative_check") and row.get("indefinite")):
                continue
            forms = row.get("answer_forms_latex") or [row["answer_latex"]]
            for i, form in enumerate(forms):
                keys.append(Key(row["id"], i, row["integrand_latex"], form,
                                row.get("variable") or "x"))
    return keys


def judge(key: Key, timeout_s: float) -> Judged:
    """``key`` through the checker as a LaTeX answer for its LaTeX integrand."""
    from rewards import check_antiderivative

    start = time.perf_counter()
    result = check_antiderivative(key.answer, key.integrand, input_kind="latex",
                                  integrand_kind="latex", symbol=key.variable,
                                  timeout_s=timeout_s)
    return Judged(key, result.verdict.value, result.reason, time.perf_counter() - start)


def data_path(data: str) -> Path:
    path = Path(data)
    return path / KEYS_FILE if path.is_dir() else path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", default=str(DEFAULT_DATA_DIR),
                        help=f"the data directory holding {KEYS_FILE} (or the file)")
    parser.add_argument("--timeout", type=float, default=20.0, help="per-check deadline (s)")
    parser.add_argument("--only", default=None, help="judge only rows whose id contains this")


def main(args: argparse.Namespace) -> int:
    path = data_path(args.data)
    if not path.exists():
        print(f"{path} not found", file=sys.stderr)
        return 2
    keys = [k for k in load_keys(path) if args.only is None or args.only in k.row]
    results = [judge(k, args.timeout) for k in keys]
    bad = {(k.row, k.form) for k in keys} & set(NOT_ANTIDERIVATIVES)
    antiderivatives = [r for r in results if (r.key.row, r.key.form) not in bad]
    others = [r for r in results if (r.key.row, r.key.form) in bad]
    accepted = sum(r.accepted for r in antiderivatives)
    false_accepts = [r for r in others if r.accepted]
    print(f"# Answer keys ({path.name}): {len(keys)} usable keys of "
          f"{len({k.row for k in keys})} rows\n")
    print("| keys | n | accepted | rejected |")
    print("|---|---|---|---|")
    print(f"| antiderivatives | {len(antiderivatives)} | {accepted} | "
          f"{len(antiderivatives) - accepted} |")
    print(f"| not antiderivatives (hand-adjudicated) | {len(others)} | {len(false_accepts)} | "
          f"{len(others) - len(false_accepts)} |")
    verdicts = Counter(f"{r.verdict} {r.reason}" for r in antiderivatives if not r.accepted)
    if verdicts:
        print("\nRejections of antiderivatives by reason: "
              + ", ".join(f"{v} x{n}" for v, n in verdicts.most_common()))
    print("\n## Every rejection\n")
    print("| key | verdict | reason | s | answer | integrand |")
    print("|---|---|---|---|---|---|")
    for r in results:
        if r.accepted:
            continue
        why = NOT_ANTIDERIVATIVES.get((r.key.row, r.key.form))
        reason = r.reason + (f" (expected: {why})" if why else "")
        print(f"| {r.key.label} | {r.verdict} | {reason} | {r.seconds:.1f} | "
              f"`{r.key.answer}` | `{r.key.integrand}` |")
    for r in false_accepts:
        print(f"\nFALSE ACCEPT: {r.key.label} `{r.key.answer}` for `{r.key.integrand}`: "
              f"{NOT_ANTIDERIVATIVES[(r.key.row, r.key.form)]}")
    total = sum(r.seconds for r in results)
    print(f"\n{len(results)} keys in {total:.0f} s of checking")
    return 1 if false_accepts else 0
