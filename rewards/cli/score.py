"""``python -m rewards score`` and ``python -m rewards ablate``.

Only argparse wiring lives here; the work is in :mod:`rewards.offline.scoring`
and :mod:`rewards.offline.ablation`, imported when a subcommand runs (so
``explain`` never imports pandas, pyarrow, Ray or matplotlib).

Exit codes: 0 done, 2 bad setup (paths, columns, flags, a --resume under other
reward settings), 130 interrupted (the output is valid and holds every
finished batch; rerun with --resume).
"""
from __future__ import annotations

import argparse
import sys

from .help import DefaultsFormatter, non_negative_int, positive_float, positive_int

EXIT_SETUP = 2
EXIT_INTERRUPTED = 130


def _score(args: argparse.Namespace) -> int:
    from ..offline.scoring import ScoreOptions, ScoringError, run_score

    options = ScoreOptions(
        input=args.input, output=args.output, completion_column=args.completion_column,
        integrand_column=args.integrand_column, symbol_column=args.symbol_column,
        group_column=args.group_column, config=args.config, workers=args.workers,
        timeout_s=args.timeout, answer_fallback=args.answer_fallback,
        answer_syntax=args.answer_syntax, batch_size=args.batch_size, resume=args.resume,
        overwrite=args.overwrite, limit=args.limit, split=args.split, backend=args.backend,
        ray_address=args.ray_address, trace_path=args.trace, summary_json=args.summary_json,
        progress=not args.no_progress)
    try:
        summary = run_score(options)
    except (ScoringError, ValueError) as exc:
        print(f"score: {exc}", file=sys.stderr)
        return EXIT_SETUP
    except KeyboardInterrupt:  # before the first batch: nothing was written
        print("score: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_INTERRUPTED if summary.interrupted else 0


def _ablate(args: argparse.Namespace) -> int:
    from ..offline.ablation import run_ablate

    try:
        report, files = run_ablate(args.scored, args.presets, args.output_dir,
                                   args.group_column)
    except (ValueError, FileNotFoundError) as exc:
        print(f"ablate: {exc}", file=sys.stderr)
        return EXIT_SETUP
    for note in report.notes:
        print(f"ablate: {note}", file=sys.stderr)
    print(f"{report.rows} rows, presets: {', '.join(p.name for p in report.presets)}")
    for p in report.presets:
        zero = "" if p.zero_variance_frac is None else \
            f", zero-variance groups {100 * p.zero_variance_frac:.1f}%"
        mean = "n/a" if p.mean is None else f"{p.mean:.4f}"
        std = "n/a" if p.std is None else f"{p.std:.4f}"
        print(f"  {p.name:<18} mean {mean}  std {std}{zero}")
    for name, path in files.items():
        print(f"wrote {name}: {path}")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register ``score`` and ``ablate`` on the main parser's subcommands."""
    from ..reward.config import RewardConfig
    from ..reward.shaping import available_presets

    score = sub.add_parser(
        "score", formatter_class=DefaultsFormatter,
        help="score a dataset of completions offline (jsonl/parquet/csv/datasets)",
        description="Check every completion of a dataset and write the rows back with "
                    "reward, verdict, confidence, verdict_stage, reason, extracted_answer "
                    "and check_ms added.")
    score.add_argument("input", help=".jsonl, .parquet, .csv, a datasets save_to_disk folder, "
                                     "or a hub dataset name")
    score.add_argument("--output", "-o", required=True, help=".jsonl or .parquet")
    columns = score.add_argument_group("columns")
    columns.add_argument("--completion-column", default=None,
                         help="model output (default: completion, else response)")
    columns.add_argument("--integrand-column", default=None,
                         help="integrand f in SymPy syntax (default: the config's, integrand; "
                              "in TRL's completion log, the <reward name>/integrand column the "
                              "reward logged)")
    columns.add_argument("--symbol-column", default=None,
                         help="integration variable per row (default: x for every row; in "
                              "TRL's completion log, <reward name>/variable)")
    columns.add_argument("--group-column", default=None,
                         help="prompt id of GRPO groups: summary reports zero-variance groups "
                              "(default: prompt, when the input has that column)")
    checking = score.add_argument_group("checking")
    checking.add_argument("--config", default=None,
                          help="a reward YAML (like configs/reward/default.yaml), a shaping "
                               "YAML (like rewards/reward/presets/*.yaml) or a preset name: "
                               f"{', '.join(available_presets())} (default: default)")
    checking.add_argument("--workers", type=positive_int, default=None,
                          help="checker processes (local) or actors (ray); default: all CPUs")
    checking.add_argument("--timeout", type=positive_float, default=None,
                          help=f"seconds per check (default: the config's, "
                               f"{RewardConfig().timeout_s:g})")
    checking.add_argument("--answer-fallback", action="store_const", const=True, default=None,
                          help="take the last $...$ block when a completion has no box or "
                               "<answer> tag (for prompts that did not ask for a box)")
    checking.add_argument("--answer-syntax", default=None, choices=["auto", "latex", "sympy"],
                          help="syntax of the extracted answer (default: auto)")
    run = score.add_argument_group("run")
    run.add_argument("--batch-size", type=positive_int, default=256,
                     help="rows checked together and written at once")
    run.add_argument("--resume", action="store_true",
                     help="skip rows already in OUTPUT and append the rest; refused (exit 2) "
                          "if a setting that decides rewards differs from OUTPUT.meta.json")
    run.add_argument("--overwrite", action="store_true", help="replace an existing OUTPUT")
    run.add_argument("--limit", type=non_negative_int, default=None, help="score only the first N rows")
    run.add_argument("--split", default=None, help="split of a datasets folder / hub dataset")
    run.add_argument("--backend", default="local", choices=["local", "ray"],
                     help="where checks run: worker processes here, or Ray actors")
    run.add_argument("--ray-address", default=None,
                     help="Ray cluster address (default: RAY_ADDRESS, else local)")
    run.add_argument("--trace", default=None,
                     help="JSONL trace of rejected and numeric-only rows (stage by stage)")
    run.add_argument("--summary-json", default=None, help="also write the summary as JSON")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    score.set_defaults(func=_score)

    ablate = sub.add_parser(
        "ablate", formatter_class=DefaultsFormatter,
        help="compare shaping presets on a scored file (no re-checking)",
        description="Recompute rewards from stored verdicts under each preset and write "
                    "report.md, ablation.csv, rank_agreement.csv and PNG plots.")
    ablate.add_argument("scored", help="output of `python -m rewards score`")
    ablate.add_argument("--presets", nargs="+", default=None,
                        help="preset names or shaping YAML paths (default: all presets)")
    ablate.add_argument("--output-dir", required=True,
                        help="folder for report.md, the CSV files and the plots")
    ablate.add_argument("--group-column", default=None,
                        help="GRPO group id column (default: the one given to score)")
    ablate.set_defaults(func=_ablate)
