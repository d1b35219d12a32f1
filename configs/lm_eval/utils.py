"""Documents, prompt and scoring for the ``integrals_antiderivative`` lm-eval task.

lm-eval loads this file next to the task YAML (``!function utils.*``).
:func:`load_integrals` reads the documents with paths relative to this
folder, not to the working directory (lm-eval hands ``data_files`` to
``datasets``, which resolves them against the CWD), and gives each the
training system prompt under :data:`SYSTEM_PROMPT_FIELD`, which the YAML's
``description`` makes the system turn. The verdicts come from
:func:`rewards.check_antiderivative` on the whole response
(``input_kind="response"``) with the reward's defaults
(:class:`rewards.RewardConfig`: last box or ``<answer>`` tag, answer syntax
auto-detected, its deadline, the variable inferred from the integrand when
the document names none), so an eval score and a GRPO reward agree on every
completion.

Example (no lm-eval needed)::

    >>> doc = {"integrand": "x**2", "variable": "x"}
    >>> process_results(doc, [r"so \\boxed{x^3/3 + C}"])
    {'acc': 1.0, 'acc_symbolic': 1.0, 'answered': 1.0}
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rewards import Confidence, RewardConfig, Verdict, check_antiderivative, prompts
from rewards.check import infer_variable, is_no_answer
from rewards.check.extract import ExtractionStatus

try:  # only lm-eval loads the task class; the scoring hooks work without it
    from lm_eval.api.task import ConfigurableTask
except ImportError:  # pragma: no cover - exercised where lm-eval is absent
    ConfigurableTask = object

INTEGRAND_KEYS = ("integrand", "integrand_sympy")
SYMBOL_KEYS = ("variable", "symbol")

# Same wording as examples/train_grpo.py, so a model is evaluated on the
# prompt it was trained on.
USER_TEMPLATE = prompts.USER_TEMPLATE
# The document field holding the system prompt (the YAML's `description`).
SYSTEM_PROMPT_FIELD = "system_prompt"
# What separates the system prompt from the question in a plain-text prompt
# (a base model, no --apply_chat_template): lm-eval joins them with nothing.
PARAGRAPH = "\n\n"
TASK_DIR = Path(__file__).resolve().parent
_BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}


def _resolve(path: str) -> str:
    resolved = Path(path).expanduser()
    return str(resolved if resolved.is_absolute() else (TASK_DIR / resolved).resolve())


def load_integrals(data_files: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
    """lm-eval's ``custom_dataset``: ``{split: datasets.Dataset}`` from
    ``dataset_kwargs.data_files`` (a path or a list per split, relative to
    this folder), each document with the training system prompt. Other
    keyword arguments (the task's metadata) are lm-eval's, not ours."""
    import datasets

    if not data_files:
        raise ValueError("integrals_antiderivative: set dataset_kwargs.data_files")
    out = {}
    for split, paths in data_files.items():
        paths = [_resolve(p) for p in ([paths] if isinstance(paths, str) else paths)]
        suffixes = {Path(p).suffix.lower() for p in paths}
        builder = {_BUILDERS.get(s) for s in suffixes}
        if len(builder) != 1 or None in builder:
            raise ValueError(f"{split}: data files must be all .jsonl/.json, .parquet or .csv, "
                             f"not {sorted(suffixes)}")
        docs = datasets.load_dataset(builder.pop(), data_files={split: paths}, split=split)
        out[split] = docs.add_column(SYSTEM_PROMPT_FIELD, [prompts.SYSTEM_PROMPT] * len(docs))
    return out


def _first(doc: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = doc.get(key)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _request(doc: dict[str, Any]):
    """The reward's check request, with the document's variable and the
    environment's overrides."""
    request = RewardConfig().check_request()
    try:
        timeout_s = float(os.environ.get("REWARDS_EVAL_TIMEOUT_S", request.timeout_s))
    except ValueError:
        timeout_s = request.timeout_s
    return request.replace(symbol=_first(doc, SYMBOL_KEYS), timeout_s=timeout_s)


def doc_to_text(doc: dict[str, Any]) -> str:
    integrand = _first(doc, INTEGRAND_KEYS) or "?"
    symbol, _, _ = infer_variable(integrand, _request(doc))
    return USER_TEMPLATE.format(integrand=integrand, symbol=symbol)


def doc_to_target(doc: dict[str, Any]) -> str:
    # Only logged: the checker needs no reference answer.
    for key in ("antiderivative", "reference_answer_sympy", "answer"):
        if doc.get(key):
            return str(doc[key])
    return ""


def check(doc: dict[str, Any], response: str) -> Any:
    """The :class:`rewards.CheckResult` of one response to one document."""
    return check_antiderivative(
        response, _first(doc, INTEGRAND_KEYS) or "", _request(doc), input_kind="response",
        math_fallback=os.environ.get("REWARDS_EVAL_ANSWER_FALLBACK", "") == "1")


def is_complete_answer(result: Any) -> bool:
    """Whether the response holds a complete final answer, right or wrong: not
    "no answer" and not a box or tag cut open (a generation truncated at the
    length limit ends in ``\\boxed{x^3/`` and is no answer either)."""
    if result.verdict is not Verdict.UNPARSEABLE:
        return True
    return not (is_no_answer(result.reason)
                or (result.reason or "").partition(":")[0] == ExtractionStatus.UNBALANCED.value)


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """lm-eval's hook: one generation in, the task's metrics out."""
    result = check(doc, results[0] if results else "")
    return {
        "acc": float(result.verdict is Verdict.CORRECT),
        "acc_symbolic": float(result.verdict is Verdict.CORRECT
                              and result.confidence is Confidence.SYMBOLIC),
        "answered": float(is_complete_answer(result)),
    }


class IntegralsTask(ConfigurableTask):
    """The YAML's ``class``: lm-eval's configurable task, with the system
    prompt a paragraph of its own in a plain-text prompt. lm-eval renders the
    ``description`` (our system prompt) and the question back to back
    ("...the final answer.Find the..."); a chat template keeps them in their
    own turns, and there the system turn stays exactly the training one."""

    def __init__(self, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        # lm-eval hands the whole YAML over, its own routing key included.
        config = {k: v for k, v in (config or {}).items() if k != "class"}
        super().__init__(config=config, **kwargs)

    def fewshot_context(self, doc: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        context = super().fewshot_context(doc, *args, **kwargs)
        system = doc.get(SYSTEM_PROMPT_FIELD) or ""
        if (kwargs.get("apply_chat_template") or not system or not isinstance(context, str)
                or not context.startswith(system)):
            return context
        question = context[len(system):]
        return system + ("" if question[:1].isspace() else PARAGRAPH) + question
