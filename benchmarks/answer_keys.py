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

_Q = "mit_bee_qualifier/"

# Keys that are not antiderivatives of their integrands (docs/domain.md),
# by (row id, form index): adjudicated by hand, each with why. They must be
# rejected.
NOT_ANTIDERIVATIVES: dict[tuple[str, int], str] = {
    (_Q + "2011/q08", 0): "f = |cos x|/sqrt(sin x) on (0, pi); F' = cos x/sqrt(sin x) = -f on "
                          "(pi/2, pi)",
    (_Q + "2012/q25", 0): "the same key and integrand as 2011/q08: F' = -f on (pi/2, pi)",
    (_Q + "2011/q13", 0): "the key lost its tan: (1/6) arctan(2 tan x / 3) is the antiderivative; "
                          "d/dx (1/6) arctan(2x/3) = 1/(9 + 4x^2)",
    (_Q + "2011/q23", 0): "d/dx e^{x^{x^2}} is not x e^{e^{x^2}+x^2}; the antiderivative is "
                          "e^{e^{x^2}}/2",
    (_Q + "2015/q04", 0): "d/dx sech^{-1}(cos x) = sec x sgn(sin x): -f on (-pi/2, 0), where F "
                          "is real",
    (_Q + "2015/q11", 0): "a number (a definite integral's value), not a function of x",
    (_Q + "2015/q18", 0): "the key of 2015/q19 (its derivative is tan^4 x, not sin x tan^2 x)",
    (_Q + "2015/q19", 0): "the key of 2015/q18 (its derivative is sin x tan^2 x, not tan^4 x)",
    (_Q + "2022/q17", 0): "the integrand itself (with a dx), not its antiderivative",
    (_Q + "2022/q20", 0): "arctan(tan x/sqrt 2)/sqrt 2 jumps by pi/sqrt 2 at pi/2, where "
                          "1/(1 + cos^2 x) is continuous (the Weierstrass case of docs/domain.md)",
}

# Keys whose text is not a finite formula as printed (an unbalanced bracket,
# an ellipsis, a sum over k): nothing can judge them as written. Mathematically
# right; they are reported apart, and any verdict but CORRECT is expected.
NOT_FORMULAS: dict[tuple[str, int], str] = {
    (_Q + "2011/q14", 0): "the integrand has an unclosed '(': x^2(\\left(x^4+1\\right)^{3/4}",
    (_Q + "2017/q20", 0): "both texts unbalanced: '\\right' without '\\left', a ')' missing",
    (_Q + "2018/q08", 0): "the answer misses a ')': \\cos (\\cos (\\sin (x))",
    (_Q + "2018/q02", 0): "an infinite nested radical (\\cdots)",
    (_Q + "2020/q06", 0): "an infinite nested radical (\\cdots)",
    (_Q + "2020/q14", 0): "sums \\sum_{k=0}^{2018} in the integrand (the reader has no \\sum)",
    (_Q + "2024/q17", 0): "an infinite series \\sum_{k=0}^{\\infty}",
}

# Antiderivatives rejected today for reasons that belong to the numeric
# evidence, not to reading (issue 25, items 4 and 5).
EVIDENCE_REJECTIONS: dict[tuple[str, int], str] = {
    (_Q + "2011/q18", 0): "another branch off the real domain (0, 1): the complex screen "
                          "disagrees, the real reading is not tried",
    (_Q + "2018/q18", 0): "another branch off the real domain (0, 1)",
    (_Q + "2016/q17", 0): "huge dynamic range: e^{e^{2016x}} leaves few usable points",
}


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
    def where(r: Judged) -> str:
        at = (r.key.row, r.key.form)
        return ("not" if at in NOT_ANTIDERIVATIVES else
                "unreadable" if at in NOT_FORMULAS else "yes")

    antiderivatives = [r for r in results if where(r) == "yes"]
    others = [r for r in results if where(r) == "not"]
    unreadable = [r for r in results if where(r) == "unreadable"]
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
    print(f"| not finite formulas as printed | {len(unreadable)} | "
          f"{sum(r.accepted for r in unreadable)} | {sum(not r.accepted for r in unreadable)} |")
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
        at = (r.key.row, r.key.form)
        why = NOT_ANTIDERIVATIVES.get(at) or NOT_FORMULAS.get(at)
        note = (f"expected: {why}" if why else
                f"evidence: {EVIDENCE_REJECTIONS[at]}" if at in EVIDENCE_REJECTIONS else
                "an antiderivative rejected")
        reason = f"{r.reason} ({note})"
        print(f"| {r.key.label} | {r.verdict} | {reason} | {r.seconds:.1f} | "
              f"`{r.key.answer}` | `{r.key.integrand}` |")
    for r in false_accepts:
        print(f"\nFALSE ACCEPT: {r.key.label} `{r.key.answer}` for `{r.key.integrand}`: "
              f"{NOT_ANTIDERIVATIVES[(r.key.row, r.key.form)]}")
    total = sum(r.seconds for r in results)
    print(f"\n{len(results)} keys in {total:.0f} s of checking")
    return 1 if false_accepts else 0
