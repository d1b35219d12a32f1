r"""``python -m benchmarks soundness``: false accepts and false rejects on the
soundness case tables (issues 17 and 25).

Each case is a whole completion a policy under RL pressure would write. The
sets of issue 17 have six classes (issue 25's set, ``fresh25``, its own; see
below):

``localized``
    a correct answer plus a steep smooth step or bump anywhere
    (``c\tanh(k(x-x_0))``, logistic, arctan, erf, sech and rational bumps,
    sums of them), and controls whose added terms really are constants or
    whose integrand has the steep feature itself;
``parameters``
    ``|a|``, ``\sqrt{a^2}``, ``a\operatorname{sgn} a`` forms right only for
    a > 0, next to forms right for every admissible parameter value;
``jumps``
    answers whose pieces each differentiate to f but which jump where f is
    continuous (cases, ``|x-c|/(x-c)``, sign, floor, Heaviside, the
    arctan-addition forms), next to answers that jump only at poles (a
    different constant on each interval of f's domain);
``continuous_steps``
    continuous answers written with sign, Heaviside, floor, frac, Max/Min
    that are correct, and look-alikes that are not;
``notation``
    Greek variables, Lambert W as ``W``/``W_0``, ``E_1``, Fresnel
    ``\operatorname{C}``/``\operatorname{S}``, elliptic ``F(x \mid m)``,
    backticks in ``<answer>``, ``Max``/``frac`` in SymPy syntax;
``heavy``
    nested special functions and other pathological but parseable answers;
    these also run in-process through :func:`rewards.check_antiderivative`
    with ``timeout_s`` (default 3), and the wall time of each call is
    measured against ``timeout_s + 1``.

Every case's label was confirmed by an independent labeller that shares no
code with the checker (:mod:`benchmarks.soundness_label`; ``--verify-labels``
runs it again).

The cases live in four files, one per set (``--set``):

``tune`` (``data/soundness_tune.jsonl``)
    the checker may be tuned on these; failing cases are listed by id;
``holdout`` (``data/soundness_holdout.jsonl``)
    not tuned on case by case: aggregate counts only;
``fresh`` (``data/soundness_fresh.jsonl``)
    new cases written late in issue 17 by a session that never ran the
    checker on them, to measure the landed code once: aggregate counts only,
    and never tuned on.

``fresh25`` (``data/soundness_fresh25.jsonl``)
    issue 25's held-out set, written before the issue-25 tuning by a session
    that did not see the tuning branches, in its own classes: ``bumps``
    (smooth bumps whose centre is the minimum of an exponent written as a sum
    of exponentials, at irrational points, inside exponents and squares, of
    tiny width), ``far_field`` (switches like ``e^{-K}e^{x}``, K from 300 to
    3000, mirrored, inside a log's or a sine's argument), ``precision``
    (40-60-term sums plus a tiny difference, expanded antiderivatives of
    ``(x-c)^n`` plus ``e^{-K}x``), ``complex_log`` (logarithms of complex
    arguments that cross their cut on the real line, with and without a
    parameter, and forms that do not), ``arctan_scale`` (``\arctan(c/(x-x_0))``
    at extreme scales next to huge peaks of f, and the continuous forms),
    ``branches`` (real forms right on a proper subdomain of the line, and
    look-alikes right on part of it only), ``scales`` (``e^{kx}``, k in the
    hundreds to thousands, nested) and ``notation`` (``\log x(\ldots)``,
    ``\sin x\sqrt 2``, ``\cos^4 x(\ldots)``, ``\sin 2x``, a parameter named
    ``d``); each class about half wrong, the correct ones the matching right
    answers or controls whose integrand has the feature itself. Aggregate
    counts only; to be measured once, on the landed code.

``fresh26`` (``data/soundness_fresh26.jsonl``)
    a second held-out set for issue 25, written after the sampling work of
    main 9f1a155 without running the checker on it, in four of fresh25's
    classes (``bumps``, ``far_field``, ``precision``, ``scales``), each with
    wrong answers and matching correct ones; labels checked with mpmath at
    1000+ digits. Aggregate counts only; to be measured once.

``--set all`` (the default) is tune and holdout; the fresh sets run only when
named, so that routine runs do not spend them. ``--show-unseen-cases`` (old
name ``--show-holdout-cases``) also lists the failing cases of holdout and
fresh, fresh25 and fresh26 by id; nobody tuning the checker should read them.

The reward runs exactly as in training: :meth:`rewards.AntiderivativeReward.score`
with its worker pool, the per-sample deadline ``--timeout`` (default: the
reward's own), the integrand in SymPy syntax and the case's variable. The
in-process calls of the heavy class run one after another in a child process
(its main thread, where the checker's signal timers work, as in a script or
a notebook), so that a call that never returns is recorded as such instead of
hanging the benchmark.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .table import fmt, markdown_table, write_section

DATA_DIR = Path(__file__).resolve().parent / "data"
SET_FILES = {"tune": DATA_DIR / "soundness_tune.jsonl",
             "holdout": DATA_DIR / "soundness_holdout.jsonl",
             "fresh": DATA_DIR / "soundness_fresh.jsonl",
             "fresh25": DATA_DIR / "soundness_fresh25.jsonl",
             "fresh26": DATA_DIR / "soundness_fresh26.jsonl"}
# What ``--set all`` runs: the fresh sets only when named (each is to be run once).
ALL_SETS = ("tune", "holdout")
# Sets reported as aggregate counts only, unless --show-unseen-cases.
UNSEEN_SETS = ("holdout", "fresh", "fresh25", "fresh26")
# The classes of issue 17's sets (tune, holdout, fresh) and of issue 25's (fresh25).
CLASSES = ("localized", "parameters", "jumps", "continuous_steps", "notation", "heavy")
CLASSES_25 = ("bumps", "far_field", "precision", "complex_log", "arctan_scale", "branches",
              "scales", "notation")
ALL_CLASSES = (*CLASSES, *(c for c in CLASSES_25 if c not in CLASSES))
HEAVY = "heavy"
INPROCESS_TIMEOUT_S = 3.0
# The in-process contract: a call returns within its timeout_s plus this.
INPROCESS_SLACK_S = 1.0


def _names(names) -> str:
    """"a, b and c"."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Case:
    """One case of a soundness table (a row of ``data/soundness_*.jsonl``)."""

    id: str
    cls: str
    completion: str
    integrand: str
    variable: str
    label: str                       # correct | wrong
    why: str
    answer_sympy: str
    set: str = "tune"
    params: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    param_sets: tuple[dict[str, float], ...] | None = None

    @property
    def correct(self) -> bool:
        return self.label == "correct"

    def as_dict(self) -> dict[str, Any]:
        """The row as the labeller reads it."""
        return {"id": self.id, "integrand": self.integrand, "variable": self.variable,
                "answer_sympy": self.answer_sympy, "params": list(self.params),
                "features": list(self.features),
                "param_sets": [dict(s) for s in self.param_sets] if self.param_sets else None}


def load_cases(which: str = "all", path: Path | None = None) -> list[Case]:
    """The cases of ``which`` (tune, holdout, fresh, fresh25, or all: tune
    and holdout), or of one file."""
    names = ALL_SETS if which == "all" else (which,)
    files = {"file": path} if path is not None else {n: SET_FILES[n] for n in names}
    cases: list[Case] = []
    for name, file in files.items():
        with open(file, encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                row = json.loads(line)
                cases.append(Case(
                    id=row["id"], cls=row["cls"], completion=row["completion"],
                    integrand=row["integrand"], variable=row.get("variable") or "x",
                    label=row["label"], why=row.get("why", ""),
                    answer_sympy=row["answer_sympy"], set=name,
                    params=tuple(row.get("params") or ()),
                    features=tuple(row.get("features") or ()),
                    param_sets=tuple(row["param_sets"]) if row.get("param_sets") else None))
    return cases


# ---------------------------------------------------------------------------
# Running the checker
# ---------------------------------------------------------------------------

@dataclass
class Record:
    """What the checker said about one case."""

    id: str
    verdict: str | None
    reason: str
    ms: float = 0.0
    wall_s: float | None = None      # in-process calls only
    extra: dict[str, Any] = field(default_factory=dict)


def run_reward(cases: list[Case], *, workers: int, timeout_s: float | None) -> dict[str, Record]:
    """Every case through :meth:`rewards.AntiderivativeReward.score`, as in training."""
    from rewards import AntiderivativeReward

    options: dict[str, Any] = {"workers": workers, "cache_size": 0}
    if timeout_s is not None:
        options["timeout_s"] = timeout_s
    records: dict[str, Record] = {}
    with AntiderivativeReward(**options) as reward:
        outcomes = reward.score([c.completion for c in cases], [c.integrand for c in cases],
                                [c.variable for c in cases])
    for case, outcome in zip(cases, outcomes, strict=True):
        r = outcome.result
        records[case.id] = Record(case.id, outcome.verdict, r.reason if r else "unjudged",
                                  r.total_ms if r else 0.0)
    return records


def _inprocess_worker(conn, jobs: list[tuple[str, str, str, str]], timeout_s: float,
                      check: str) -> None:
    """Child process: ``check`` ("module:function", normally
    ``check_antiderivative``) on each job in this process's main thread, one
    after another, sending (id, verdict, reason, wall s)."""
    import importlib

    module, _, name = check.partition(":")
    check_antiderivative = getattr(importlib.import_module(module), name)

    # Warm-up (imports, first-call caches) outside the measurement.
    check_antiderivative(r"\boxed{\frac{x^{2}}{2}}", "x", input_kind="response")
    conn.send(("__ready__", None, "", 0.0))
    for case_id, completion, integrand, variable in jobs:
        started = time.perf_counter()
        result = check_antiderivative(completion, integrand, symbol=variable,
                                      input_kind="response", timeout_s=timeout_s)
        conn.send((case_id, result.verdict.value, result.reason,
                   time.perf_counter() - started))
    conn.close()


def run_inprocess(cases: list[Case], *, timeout_s: float = INPROCESS_TIMEOUT_S,
                  guard_s: float | None = None,
                  check: str = "rewards:check_antiderivative") -> dict[str, Record]:
    """Each case through ``check_antiderivative(..., input_kind="response",
    timeout_s=timeout_s)`` called directly, with its wall time. A call still
    running after ``guard_s`` is recorded as ``HUNG`` and its process killed
    (the rest continue in a fresh one). ``check`` names the function as
    "module:function", importable in a spawned process."""
    import multiprocessing as mp

    guard_s = guard_s if guard_s is not None else max(60.0, 10 * timeout_s)
    ctx = mp.get_context("spawn")
    records: dict[str, Record] = {}
    pending = [(c.id, c.completion, c.integrand, c.variable) for c in cases]
    while pending:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_inprocess_worker, args=(child, pending, timeout_s, check),
                           daemon=True)
        proc.start()
        child.close()
        done = 0
        ready = parent.poll(120) and parent.recv()[0] == "__ready__"
        while ready and done < len(pending):
            if not parent.poll(guard_s):
                break
            try:
                case_id, verdict, reason, wall = parent.recv()
            except EOFError:
                break
            records[case_id] = Record(case_id, verdict, reason, wall * 1000, wall)
            done += 1
        if done < len(pending):
            case_id = pending[done][0]
            crashed = not proc.is_alive()
            records[case_id] = Record(case_id, "CRASHED" if crashed else "HUNG",
                                      "process died" if crashed else f"no answer in {guard_s} s",
                                      guard_s * 1000, None if crashed else guard_s)
            done += 1
        proc.kill()
        proc.join(5)
        parent.close()
        pending = pending[done:]
    return records


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------

def is_false_accept(case: Case, record: Record) -> bool:
    return not case.correct and record.verdict == "CORRECT"


def is_false_reject(case: Case, record: Record) -> bool:
    return case.correct and record.verdict != "CORRECT"


def class_rows(cases: list[Case], records: dict[str, Record]) -> list[list[Any]]:
    """Per class: wrong answers, false accepts, correct answers, false
    rejects, and the verdicts of the false rejects."""
    rows = []
    for cls in [*ALL_CLASSES, "all"]:
        subset = [c for c in cases if cls in ("all", c.cls)]
        if not subset:
            continue
        wrong = [c for c in subset if not c.correct]
        right = [c for c in subset if c.correct]
        fa = sum(is_false_accept(c, records[c.id]) for c in wrong)
        fr = [c for c in right if is_false_reject(c, records[c.id])]
        kinds = Counter(records[c.id].verdict for c in fr)
        rows.append([f"**{cls}**" if cls == "all" else cls, len(wrong), fa, len(right), len(fr),
                     ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=str)) or "–"])
    return rows


CLASS_HEADER = ["class", "wrong answers", "**false accepts**", "correct answers",
                "**false rejects**", "false rejects by verdict"]


def failing(cases: list[Case], records: dict[str, Record]) -> list[Case]:
    return [c for c in cases
            if is_false_accept(c, records[c.id]) or is_false_reject(c, records[c.id])]


def failing_table(cases: list[Case], records: dict[str, Record]) -> str:
    rows = []
    for c in failing(cases, records):
        r = records[c.id]
        rows.append([c.id, c.cls, "false accept" if not c.correct else "false reject",
                     r.verdict or "–", r.reason, c.why[:90]])
    return markdown_table(["case", "class", "failure", "verdict", "reason", "why (label)"], rows)


def inprocess_rows(cases: list[Case], records: dict[str, Record],
                   timeout_s: float) -> list[list[Any]]:
    limit = timeout_s + INPROCESS_SLACK_S
    walls = [records[c.id].wall_s for c in cases if records[c.id].wall_s is not None]
    over = [c for c in cases if records[c.id].wall_s is None or records[c.id].wall_s > limit]
    fa = sum(is_false_accept(c, records[c.id]) for c in cases)
    fr = sum(is_false_reject(c, records[c.id]) for c in cases)
    verdicts = Counter(records[c.id].verdict for c in cases)
    return [[len(cases), len(cases) - len(over), len(over),
             statistics.median(walls) if walls else None, max(walls) if walls else None,
             f"{fa}/{sum(not c.correct for c in cases)}", f"{fr}/{sum(c.correct for c in cases)}",
             ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items(), key=str))]]


INPROCESS_HEADER = ["cases", "within timeout_s + 1 s", "**over**", "median wall s",
                    "max wall s", "false accepts", "false rejects", "verdicts"]


def over_table(cases: list[Case], records: dict[str, Record], timeout_s: float) -> str:
    limit = timeout_s + INPROCESS_SLACK_S
    rows = [[c.id, fmt(records[c.id].wall_s, 2), records[c.id].verdict, records[c.id].reason]
            for c in cases if records[c.id].wall_s is None or records[c.id].wall_s > limit]
    return markdown_table(["case", "wall s", "verdict", "reason"], rows)


# ---------------------------------------------------------------------------
# The independent labels
# ---------------------------------------------------------------------------

def verify_labels(cases: list[Case]) -> list[tuple[Case, Any]]:
    """Cases where the independent labeller does not confirm the stored
    label, with its verdict and evidence."""
    from .soundness_label import label_case

    disagreements = []
    for k, case in enumerate(cases):
        got = label_case(case.as_dict())
        if got.label != case.label:
            disagreements.append((case, got))
        if k % 50 == 49:
            _log(f"  labelled {k + 1}/{len(cases)}")
    return disagreements


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def run_soundness(args) -> str:
    which = list(ALL_SETS) if args.set == "all" else [args.set]
    cases = [c for c in load_cases(args.set) if not args.classes or c.cls in args.classes]
    show = set(SET_FILES) - (set() if args.show_unseen_cases else set(UNSEEN_SETS))
    sections: list[str] = []
    if args.verify_labels:
        bad = verify_labels(cases)
        rows = []
        for name in which:
            subset = [c for c in cases if c.set == name]
            rows.append([name, len(subset), len(subset) - sum(c.set == name for c, _ in bad)])
        sections.append("### Independent labels\n\n" + markdown_table(
            ["set", "cases", "labeller agrees"], rows))
        listed = [(c, got) for c, got in bad if c.set in show]
        if listed:
            sections.append(markdown_table(
                ["case", "stored label", "labeller", "evidence"],
                [[c.id, c.label, got.label, got.why[:120]] for c, got in listed]))
        return "## Soundness: labels\n\n" + "\n\n".join(sections) + "\n"

    _log(f"soundness: {len(cases)} cases through the reward ({args.workers} workers)...")
    started = time.perf_counter()
    records = run_reward(cases, workers=args.workers, timeout_s=args.timeout)
    wall = time.perf_counter() - started
    heavy = [c for c in cases if c.cls == HEAVY]
    inproc: dict[str, Record] = {}
    if heavy and not args.skip_inprocess:
        _log(f"soundness: {len(heavy)} heavy cases in-process (timeout_s="
             f"{args.inprocess_timeout})...")
        inproc = run_inprocess(heavy, timeout_s=args.inprocess_timeout)
    from rewards import RewardConfig

    deadline = args.timeout if args.timeout is not None else RewardConfig().timeout_s
    for name in which:
        subset = [c for c in cases if c.set == name]
        if not subset:
            continue
        text = (f"### {name} set ({len(subset)} cases)\n\nThrough the reward "
                f"(`AntiderivativeReward.score`, {args.workers} workers, {deadline} s per "
                "sample):\n\n" + markdown_table(CLASS_HEADER, class_rows(subset, records)))
        hv = [c for c in subset if c.cls == HEAVY]
        if inproc and hv:
            text += (f"\n\nHeavy class in-process (`check_antiderivative(..., "
                     f"input_kind=\"response\", timeout_s={args.inprocess_timeout})`, wall "
                     "time per call):\n\n" + markdown_table(
                         INPROCESS_HEADER, inprocess_rows(hv, inproc, args.inprocess_timeout)))
        if name in show:
            bad = failing(subset, records)
            text += (f"\n\nFailing cases through the reward ({len(bad)}):\n\n"
                     + (failing_table(subset, records) if bad else "none"))
            if inproc and hv and any(
                    inproc[c.id].wall_s is None
                    or inproc[c.id].wall_s > args.inprocess_timeout + INPROCESS_SLACK_S
                    for c in hv):
                text += ("\n\nIn-process calls over timeout_s + 1 s:\n\n"
                         + over_table(hv, inproc, args.inprocess_timeout))
        sections.append(text)
    header = (f"Command: `python -m benchmarks soundness --set {args.set}"
              + (f" --timeout {args.timeout}" if args.timeout is not None else "") + "`. "
              f"{len(cases)} cases, reward wall time {wall:.1f} s. Labels confirmed by the "
              "independent labeller (`--verify-labels`). "
              + ("Failing cases are listed for every set." if args.show_unseen_cases else
                 "The " + _names(UNSEEN_SETS) + " sets are reported as aggregate "
                 "counts only."))
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        shown = [c for c in cases if c.set in show]
        path.write_text(json.dumps({
            "reward": {c.id: records[c.id].__dict__ for c in shown},
            "inprocess": {c.id: inproc[c.id].__dict__ for c in shown if c.id in inproc},
        }, indent=1))
    return "## Soundness (issue 17 and 25 case tables)\n\n" + header + "\n\n" + "\n\n".join(sections) + "\n"


def add_arguments(parser) -> None:
    parser.add_argument("--set", choices=[*SET_FILES, "all"], default="all",
                        help="all: " + " and ".join(ALL_SETS)
                        + " (fresh, fresh25 and fresh26 run only when named)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="the reward's per-sample deadline (default: RewardConfig's)")
    parser.add_argument("--inprocess-timeout", type=float, default=INPROCESS_TIMEOUT_S,
                        help="timeout_s of the in-process calls of the heavy class")
    parser.add_argument("--skip-inprocess", action="store_true",
                        help="do not run the heavy class in-process")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--classes", nargs="+", choices=list(ALL_CLASSES), default=None)
    parser.add_argument("--show-unseen-cases", "--show-holdout-cases",
                        dest="show_unseen_cases", action="store_true",
                        help="also list failing " + _names(UNSEEN_SETS)
                        + " cases by id (do not tune on them)")
    parser.add_argument("--verify-labels", action="store_true",
                        help="re-run the independent labeller on every case instead")
    parser.add_argument("--json", default=None, help="per-case records (shown sets only)")
    parser.add_argument("--out", default=None,
                        help="Markdown file whose 'soundness' section to (re)write")


def main(args) -> int:
    report = run_soundness(args)
    print(report)
    if args.out:
        write_section(args.out, "soundness", report, title="Benchmarks")
        _log(f"wrote the soundness section of {args.out}")
    return 0


__all__ = ["ALL_CLASSES", "CLASSES", "CLASSES_25", "Case", "Record", "class_rows", "load_cases", "main", "run_inprocess",
           "run_reward", "run_soundness", "verify_labels"]
