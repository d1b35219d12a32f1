"""Write a dataset of integrands in verl's RL parquet layout (train.parquet, test.parquet).

Like verl's own ``examples/data_preprocess/*.py``: each row holds the chat
prompt (the training prompt of rewards/prompts.py), ``reward_model.ground_truth``
= the integrand and ``extra_info.variable``, which
``rewards.integrations.verl.compute_score`` reads back.

    python examples/verl/prepare_data.py examples/data/integrals_sample.jsonl \\
        --output-dir ~/data/integrals --val-size 4

Then ``data.train_files=~/data/integrals/train.parquet data.val_files=~/data/integrals/test.parquet``
(docs/integrations.md has the rest of the verl command).
"""
from __future__ import annotations

import argparse
import sys

from rewards.integrations.verl import write_dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help=".jsonl, .parquet, .csv, a datasets folder or a hub name")
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--integrand-column", default="integrand",
                        help="integrand in SymPy syntax (chenpanli/integrals: integrand)")
    # --symbol-column as in `python -m rewards score`; --variable-column, the
    # name this script had first, still works.
    parser.add_argument("--symbol-column", "--variable-column", dest="variable_column", metavar="COLUMN",
                        default="variable",
                        help="integration variable per row, if the input has it (else the "
                             "integrand's own, as the reward infers it)")
    parser.add_argument("--val-size", type=int, default=0,
                        help="rows held out as test.parquet (drawn at random)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-system-prompt", action="store_true", help="user message only")
    args = parser.parse_args(argv)
    kwargs = {"system_prompt": None} if args.no_system_prompt else {}
    written = write_dataset(args.input, args.output_dir, integrand_column=args.integrand_column,
                            variable_column=args.variable_column, val_size=args.val_size,
                            seed=args.seed, **kwargs)
    for split, path in written.items():
        print(f"wrote {split}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
