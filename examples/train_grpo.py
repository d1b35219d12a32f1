#!/usr/bin/env python
"""GRPO fine-tuning (TRL) of a causal LM on indefinite integrals.

Each dataset row holds an integrand (SymPy syntax such as ``x**2*exp(x)``). The
script turns it into a conversational prompt asking for the antiderivative in
``\\boxed{}``, keeps the integrand column next to the prompt so that TRL hands
it to the reward function as a keyword argument, and trains with
:class:`trl.GRPOTrainer` using :class:`rewards.AntiderivativeReward`.

Examples::

    # smoke test on CPU, offline: tiny model built on the spot, bundled sample
    # integrands (examples/data/integrals_sample.jsonl), 3 steps
    python examples/train_grpo.py --tiny

    # real run (GPUs)
    accelerate launch examples/train_grpo.py \\
        --model Qwen/Qwen2.5-Math-1.5B-Instruct \\
        --dataset chenpanli/integrals --split train \\
        --grpo-config configs/grpo/default.yaml \\
        --reward-config configs/reward/default.yaml

``--dataset`` is a Hugging Face Hub dataset name or a local ``.jsonl`` /
``.json`` / ``.parquet`` / ``.csv`` file (or a directory of them). The YAML
given to ``--grpo-config`` maps ``trl.GRPOConfig`` field names to values.

The functions (:func:`parse_args`, :func:`build_dataset`,
:func:`build_grpo_config`, :func:`build_reward_funcs`, :func:`build_trainer`,
:func:`main`) are importable so tests can drive the pipeline piece by piece.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

EXAMPLES_DIR = Path(__file__).resolve().parent
REPO_ROOT = EXAMPLES_DIR.parent
CONFIG_DIR = REPO_ROOT / "configs" / "grpo"
DEFAULT_DATASET = "chenpanli/integrals"
SAMPLE_DATASET = EXAMPLES_DIR / "data" / "integrals_sample.jsonl"
DEFAULT_MODEL = "Qwen/Qwen2.5-Math-1.5B-Instruct"

try:
    from rewards import prompts
except ImportError:  # run from a checkout without install
    sys.path.insert(0, str(REPO_ROOT))
    from rewards import prompts

# One wording for training and evaluation (configs/lm_eval uses it too).
SYSTEM_PROMPT = prompts.SYSTEM_PROMPT
USER_TEMPLATE = prompts.USER_TEMPLATE

_LOCAL_BUILDERS = {
    ".jsonl": "json",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
}

logger = logging.getLogger("train_grpo")


def _ensure_repo_on_path() -> None:
    """Make ``import rewards`` work when the script is run from a checkout without install."""
    try:
        import rewards  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(REPO_ROOT))


# ---------------------------------------------------------------------------------------
# dataset
# ---------------------------------------------------------------------------------------
def make_prompt(integrand: str, symbol: str = "x", *, system_prompt: str | None = SYSTEM_PROMPT) -> list[dict]:
    """Conversational prompt (list of ``{"role", "content"}`` messages) for one integrand."""
    messages = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    messages.append({"role": "user", "content": USER_TEMPLATE.format(integrand=integrand, symbol=symbol)})
    return messages


class DatasetUnavailable(RuntimeError):
    """The dataset could not be loaded; the message names the offline alternative."""


def load_raw_dataset(dataset: str | Path, split: str = "train"):
    """Load ``split`` of a Hub dataset or of a local file / directory with ``datasets.load_dataset``."""
    from datasets import load_dataset

    path = Path(dataset).expanduser()
    if path.is_file():
        name = path.name.lower().removesuffix(".gz")  # datasets decompresses .gz itself
        builder = _LOCAL_BUILDERS.get(Path(name).suffix)
        if builder is None:
            raise ValueError(
                f"unsupported local dataset file {path.name!r}; expected one of {sorted(_LOCAL_BUILDERS)}"
            )
        # Name the split after the one asked for, so --split works with local files too.
        return load_dataset(builder, data_files={split: str(path)}, split=split)
    if path.is_dir():
        return load_dataset(str(path), split=split)
    # Anything else is a Hub dataset name ("owner/name"); needs network access.
    try:
        return load_dataset(str(dataset), split=split)
    except Exception as exc:  # noqa: BLE001 - offline, unknown name, bad split: one message
        raise DatasetUnavailable(
            f"could not load {dataset!r} (split {split!r}) from the Hugging Face Hub: "
            f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}; "
            f"offline? pass a local file, e.g. --dataset {SAMPLE_DATASET.relative_to(REPO_ROOT)}"
        ) from exc


def build_dataset(
    dataset: str | Path = DEFAULT_DATASET,
    *,
    split: str = "train",
    integrand_column: str = "integrand",
    symbol_column: str | None = None,
    default_symbol: str = "x",
    system_prompt: str | None = SYSTEM_PROMPT,
    max_samples: int | None = None,
    tokenizer: Any = None,
    max_prompt_tokens: int | None = None,
    seed: int = 0,
    raw: Any = None,
):
    """Return a ``datasets.Dataset`` ready for ``GRPOTrainer``.

    Adds a conversational ``"prompt"`` column built from ``integrand_column`` (and
    ``symbol_column`` when given, else the variable the reward infers from the
    integrand, ``default_symbol`` for one with none) and keeps every other
    column, so the reward receives ``integrand`` (and the symbol column) as
    keyword arguments. Rows with an empty integrand are dropped. ``max_samples``
    takes a shuffled subset. If ``tokenizer`` and ``max_prompt_tokens`` are given,
    prompts longer than that after the chat template are dropped (trl 1.16's
    ``GRPOConfig`` has no ``max_prompt_length``; prompts are never truncated).
    ``raw``: ``dataset`` already loaded with :func:`load_raw_dataset`.
    """
    ds = raw if raw is not None else load_raw_dataset(dataset, split)
    missing = [c for c in (integrand_column, symbol_column) if c and c not in ds.column_names]
    if missing:
        raise ValueError(f"column(s) {missing} not in dataset {dataset!r}; columns are {ds.column_names}")

    ds = ds.filter(lambda row: row[integrand_column] is not None and str(row[integrand_column]).strip() != "")
    if max_samples is not None and max_samples < len(ds):
        ds = ds.shuffle(seed=seed).select(range(max_samples))

    from rewards import CheckRequest, infer_variable

    request = CheckRequest(default_symbol=default_symbol)

    def to_prompt(row: dict) -> dict:
        integrand = str(row[integrand_column]).strip()
        symbol = (str(row[symbol_column]).strip() if symbol_column and row[symbol_column]
                  else infer_variable(integrand, request)[0])
        return {
            integrand_column: integrand,
            "prompt": make_prompt(integrand, symbol, system_prompt=system_prompt),
        }

    ds = ds.map(to_prompt, desc="building prompts")

    if tokenizer is not None and max_prompt_tokens is not None:

        def short_enough(row: dict) -> bool:
            ids = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True)
            if isinstance(ids, dict) or hasattr(ids, "keys"):
                ids = ids["input_ids"]
            return len(ids) <= max_prompt_tokens

        before = len(ds)
        ds = ds.filter(short_enough, desc="dropping long prompts")
        if len(ds) < before:
            logger.info("dropped %d prompts longer than %d tokens", before - len(ds), max_prompt_tokens)
    if len(ds) == 0:
        raise ValueError(f"dataset {dataset!r} (split {split!r}) has no usable rows")
    return ds


# ---------------------------------------------------------------------------------------
# configs
# ---------------------------------------------------------------------------------------
def load_yaml(path: str | Path) -> dict:
    import yaml

    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of GRPOConfig fields, got {type(data).__name__}")
    return data


def build_grpo_config(
    path: str | Path | None = None,
    *,
    tiny: bool = False,
    overrides: dict[str, Any] | None = None,
):
    """``trl.GRPOConfig`` from a YAML file of field names, plus ``overrides`` (``None`` values ignored).

    Without ``path`` it uses ``configs/grpo/tiny.yaml`` when ``tiny`` else
    ``configs/grpo/default.yaml``. Keys that are not ``GRPOConfig`` fields raise
    ``ValueError`` naming the file and the keys.
    """
    from trl import GRPOConfig

    if path is None:
        path = CONFIG_DIR / ("tiny.yaml" if tiny else "default.yaml")
    values = load_yaml(path)
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    known = {f.name for f in dataclasses.fields(GRPOConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"{path}: not GRPOConfig fields: {unknown}")
    if "output_dir" in values:
        values["output_dir"] = str(values["output_dir"])
    return GRPOConfig(**values)


# ---------------------------------------------------------------------------------------
# reward and trainer
# ---------------------------------------------------------------------------------------
def build_reward_funcs(reward_config: str | Path | None = None, **reward_kwargs: Any) -> list[Callable]:
    """The reward functions: one ``rewards.AntiderivativeReward``.

    Built with ``AntiderivativeReward.from_config(reward_config, **reward_kwargs)``
    when a YAML (shaping preset or full reward config) is given, else
    ``AntiderivativeReward(**reward_kwargs)``. ``reward_kwargs`` with value
    ``None`` are dropped, so the YAML keeps the last word on anything unset.
    """
    _ensure_repo_on_path()
    from rewards import AntiderivativeReward

    kwargs = {k: v for k, v in reward_kwargs.items() if v is not None}
    if reward_config is not None:
        return [AntiderivativeReward.from_config(reward_config, **kwargs)]
    return [AntiderivativeReward(**kwargs)]


def build_trainer(
    *,
    model: Any,
    train_dataset: Any,
    args: Any,
    reward_config: str | Path | None = None,
    reward_kwargs: dict[str, Any] | None = None,
    reward_funcs: Sequence[Callable] | None = None,
    processing_class: Any = None,
    peft_config: Any = None,
):
    """Build a ``trl.GRPOTrainer``.

    ``model`` is a Hub name, a local directory or a model object. The rewards
    come from :func:`build_reward_funcs` (``AntiderivativeReward`` built from
    ``reward_config`` and ``reward_kwargs``) unless ``reward_funcs`` is passed,
    which replaces them (a hook for tests and custom rewards).
    """
    from trl import GRPOTrainer

    if reward_funcs is None:
        reward_funcs = build_reward_funcs(reward_config, **(reward_kwargs or {}))
    return GRPOTrainer(
        model=str(model) if isinstance(model, Path) else model,
        reward_funcs=list(reward_funcs),
        args=args,
        train_dataset=train_dataset,
        processing_class=processing_class,
        peft_config=peft_config,
    )


def prepare_tiny_model(out_dir: str | Path, *, seed: int = 0) -> Path:
    """Build the tiny offline model of ``examples/tiny_model.py`` into ``out_dir``."""
    if str(EXAMPLES_DIR) not in sys.path:  # loaded by path (tests), not run as a script
        sys.path.insert(0, str(EXAMPLES_DIR))
    from tiny_model import build_tiny_model

    return build_tiny_model(out_dir, seed=seed)


# ---------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    data = p.add_argument_group("data")
    data.add_argument(
        "--dataset",
        default=None,
        help=f"Hub dataset name or local .jsonl/.parquet/.csv path (default: {DEFAULT_DATASET}; "
        f"with --tiny, the bundled {SAMPLE_DATASET.relative_to(REPO_ROOT)})",
    )
    data.add_argument("--split", default="train")
    data.add_argument("--integrand-column", default="integrand")
    data.add_argument("--symbol-column", default=None,
                      help="column with the integration variable (default: the integrand's own)")
    data.add_argument("--default-symbol", default="x",
                      help="integration variable of an integrand with none, and the second "
                           "preference (after x) among several")
    data.add_argument("--max-samples", type=int, default=None, help="train on a random subset of this size")
    data.add_argument(
        "--max-prompt-tokens", type=int, default=None, help="drop prompts longer than this (after the chat template)"
    )
    data.add_argument("--no-system-prompt", action="store_true", help="user message only")

    mdl = p.add_argument_group("model")
    mdl.add_argument("--model", default=None, help=f"Hub name or local path (default: {DEFAULT_MODEL})")
    mdl.add_argument(
        "--tiny",
        action="store_true",
        help="build a tiny random model offline (examples/tiny_model.py) and use configs/grpo/tiny.yaml by default",
    )

    cfg = p.add_argument_group("configs")
    cfg.add_argument("--grpo-config", default=None, help="YAML of GRPOConfig fields (default: configs/grpo/default.yaml)")
    cfg.add_argument("--reward-config", default=None, help="shaping preset or full reward YAML for AntiderivativeReward")
    cfg.add_argument("--max-steps", type=int, default=None, help="overrides the YAML")
    cfg.add_argument("--output-dir", default=None, help="overrides the YAML")
    cfg.add_argument("--seed", type=int, default=None, help="overrides the YAML")
    cfg.add_argument("--no-save", action="store_true", help="do not save the final model")
    args = p.parse_args(argv)
    if args.tiny and args.model:
        p.error("--tiny and --model are mutually exclusive")
    if args.dataset is None:
        # The tiny run is a CPU smoke test: it must work offline.
        args.dataset = str(SAMPLE_DATASET) if args.tiny else DEFAULT_DATASET
    return args


def main(argv: Sequence[str] | None = None, *, reward_funcs: Sequence[Callable] | None = None):
    """Run the CLI; returns the trained ``GRPOTrainer``.

    ``reward_funcs`` (not a CLI option) replaces ``AntiderivativeReward``; it is a
    hook for tests.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    args = parse_args(argv)

    grpo_args = build_grpo_config(
        args.grpo_config,
        tiny=args.tiny,
        overrides={"max_steps": args.max_steps, "output_dir": args.output_dir, "seed": args.seed},
    )

    # Load the rows before building or loading any model: a Hub dataset
    # offline must fail at once, not after the model is built.
    try:
        raw = load_raw_dataset(args.dataset, args.split)
    except DatasetUnavailable as exc:
        raise SystemExit(f"train_grpo: {exc}") from None

    if args.tiny:
        model = prepare_tiny_model(Path(grpo_args.output_dir) / "tiny-model", seed=grpo_args.seed)
        logger.info("built tiny model in %s", model)
    else:
        model = args.model or DEFAULT_MODEL

    tokenizer = None
    if args.max_prompt_tokens is not None:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(model))

    try:
        train_dataset = build_dataset(
            args.dataset,
            split=args.split,
            integrand_column=args.integrand_column,
            symbol_column=args.symbol_column,
            default_symbol=args.default_symbol,
            system_prompt=None if args.no_system_prompt else SYSTEM_PROMPT,
            max_samples=args.max_samples,
            tokenizer=tokenizer,
            max_prompt_tokens=args.max_prompt_tokens,
            seed=grpo_args.seed,
            raw=raw,
        )
    except DatasetUnavailable as exc:
        raise SystemExit(f"train_grpo: {exc}") from None
    logger.info("training on %d prompts from %s (%s)", len(train_dataset), args.dataset, args.split)

    trainer = build_trainer(
        model=model,
        train_dataset=train_dataset,
        args=grpo_args,
        reward_config=args.reward_config,
        # The reward reads the same columns the prompts were built from.
        reward_kwargs={
            "integrand_column": args.integrand_column,
            "symbol_column": args.symbol_column,
            "default_symbol": args.default_symbol,
        },
        reward_funcs=reward_funcs,
    )
    try:
        trainer.train()
    finally:
        if reward_funcs is None:  # ours: stop AntiderivativeReward's checker worker processes
            for func in trainer.reward_funcs:
                close = getattr(func, "close", None)
                if callable(close):
                    close()
    if not args.no_save:
        trainer.save_model(grpo_args.output_dir)
        logger.info("saved model to %s", grpo_args.output_dir)
    return trainer


if __name__ == "__main__":
    main()
