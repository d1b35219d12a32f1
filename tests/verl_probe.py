"""Our verl entry points, loaded and called by a real verl's own code.

Run in a process where ``import verl`` finds one released verl (installed
without its dependencies: tests/test_verl_wheels.py and ``python -m benchmarks
verl-matrix`` put a wheel's target directory on ``PYTHONPATH``, with the few
small packages its modules import: the ``verl-loader`` extra). Prints one JSON
object: the version and, per check, whether it held and what was seen.

What runs is verl's code, from the wheel, on our module:

* ``config``: Hydra composes ``verl/trainer/config/ppo_trainer.yaml`` (as
  ``main_ppo``'s ``@hydra.main`` does) with the overrides of the command
  docs/integrations.md gives for this version, and with the other
  generation's keys (which must fail, or be ignored, as the docs say);
  ``main_ppo``'s own ``migrate_legacy_reward_impl`` runs where it calls it.
* ``load``: ``get_custom_reward_fn(config)`` (``load_extern_object`` from
  0.7.0) loads ``rewards/integrations/verl.py`` by file path and, where verl
  supports it, as ``pkg://rewards.integrations.verl``.
* ``legacy``: the legacy ``naive`` and ``batch`` managers that
  ``main_ppo.load_reward_manager`` builds (versions whose ``main_ppo`` still
  builds them), called on a ``DataProto`` of tokenized prompts and responses.
* ``loop``: the reward loop's ``RewardLoopWorker`` (0.7.1+) built from the
  composed config in this process and awaited on a batch, with the sync and
  the async function; the per-sample results are assembled as
  ``RewardLoopManager.compute_rm_score`` does (its Ray fan-out aside).
* ``routing``: a batch mixing integrals with ``lighteval/MATH`` and
  ``openai/gsm8k`` rows: those rows get exactly what verl's own
  ``default_compute_score`` gives them.

verl's managers decode token ids with a Hugging Face tokenizer: the tiny
offline one of examples/tiny_model.py, built here (``--tokenizer DIR`` reuses one).

The helpers above ``Probe`` import nothing of verl: tests and the benchmark
use them to install a wheel (:func:`install_verl`) and read the docs.
"""
from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import re
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "integrations.md"
MODULE_FILE = ROOT / "rewards" / "integrations" / "verl.py"
PKG_PATH = "pkg://rewards.integrations.verl"
# The marker before each verl command block in docs/integrations.md.
COMMAND_MARKER = re.compile(r"<!-- verl-command: (\S+) -->")
OVERRIDE = re.compile(r"^\+?[A-Za-z_][\w.]*=")

# (data_source, response, ground truth, variable, expected score or None = verl's own)
ROWS = [
    ("integrals", r"So the answer is \boxed{\frac{x^{3}}{3} + C}", "x**2", "x", 1.0),
    ("integrals", r"\boxed{x^3}", "x**2", "x", 0.0),
    ("integrals", "I am not sure.", "x**2", "x", -0.2),
    ("integrals", r"<answer>sin(t)</answer>", "cos(t)", "t", 1.0),
    ("lighteval/MATH", r"The answer is \boxed{42}.", "42", None, None),
    ("lighteval/MATH", r"The answer is \boxed{41}.", "42", None, None),
    ("openai/gsm8k", "3 + 4 = 7\n#### 7", "7", None, None),
]
KEYS = {"score", "acc", "verdict", "reason", "confidence", "extracted_answer"}


VERSIONS = ("0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.1")
# What verl's modules import beyond this project's test extra (the
# verl-loader extra of pyproject.toml): the wheel itself is installed without
# its dependencies, which pin transformers, numpy and tensordict apart from ours.
LOADER_MODULES = ("tensordict", "omegaconf", "hydra", "codetiming", "orjson")


def install_verl(version: str, root: Path, *, timeout_s: float = 300) -> Path:
    """``pip install --no-deps --target root/verl-VERSION verl==VERSION`` (once:
    an existing target is reused). Raises ``RuntimeError`` with pip's words
    when it cannot (no package index, say)."""
    import shutil
    import subprocess
    import tempfile

    target = Path(root) / f"verl-{version}"
    if (target / "verl" / "__init__.py").is_file():
        return target
    Path(root).mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".verl-{version}-", dir=root))
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
             "--disable-pip-version-check", "--retries", "1", "--timeout", "20",
             "--target", str(staging), f"verl=={version}"],
            capture_output=True, text=True, timeout=timeout_s)
        if out.returncode != 0 or not (staging / "verl" / "__init__.py").is_file():
            raise RuntimeError(f"pip could not install verl=={version}: "
                               f"{(out.stderr or out.stdout).strip()[-500:]}")
        staging.rename(target)  # whole or not at all, for a concurrent or later run
        return target
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"pip install verl=={version} took over {timeout_s} s") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def run_probe(target: Path, *, timeout_s: float = 600) -> dict:
    """This file run with ``target`` (an :func:`install_verl` directory) first
    on the path; its JSON report."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(target), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve())], capture_output=True,
                         text=True, timeout=timeout_s, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"the probe failed ({out.returncode}): {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def command_generation(version: str) -> str:
    """The docs' command block for a verl version: 0.6 (< 0.7), 0.7.0, 0.7.1+."""
    key = version_key(version)
    if key < (0, 7, 0):
        return "0.6"
    return "0.7.0" if key == (0, 7, 0) else "0.7.1+"


def doc_overrides(generation: str, docs: Path = DOCS) -> list[str]:
    """The Hydra overrides of the docs' command for ``generation``, with the
    shell's substitutions made (``$(python -c ...)``: our module's file)."""
    lines = docs.read_text(encoding="utf-8").splitlines()
    marks = [i for i, line in enumerate(lines)
             if (m := COMMAND_MARKER.search(line)) and m.group(1) == generation]
    if not marks:
        raise LookupError(f"{docs}: no <!-- verl-command: {generation} --> block")
    start = next(j for j in range(marks[0] + 1, len(lines)) if lines[j].startswith("```"))
    overrides = []
    for line in lines[start + 1:]:
        if line.startswith("```"):
            break
        token = line.strip().rstrip("\\").strip()
        if not OVERRIDE.match(token):
            continue
        token = re.sub(r"\$\(python -c '[^']*'\)", str(MODULE_FILE), token)
        token = token.replace("$PWD", str(ROOT)).replace("$HOME", os.path.expanduser("~"))
        overrides.append(token)
    return overrides


class Probe:
    def __init__(self, tokenizer_dir: str | None) -> None:
        import verl

        self.verl = verl
        self.version = verl.__version__
        self.generation = command_generation(self.version)
        self.config_dir = Path(verl.__file__).parent / "trainer" / "config"
        if tokenizer_dir is None:
            import tempfile

            sys.path.insert(0, str(ROOT / "examples"))
            from tiny_model import build_tiny_model

            tokenizer_dir = str(build_tiny_model(tempfile.mkdtemp(prefix="verl-probe-"),
                                                 answer_format_steps=0))
        self.tokenizer_dir = tokenizer_dir
        self.checks: dict[str, dict] = {}

    # -- bookkeeping ----------------------------------------------------------
    def check(self, name: str, fn) -> object:
        try:
            detail = fn()
            self.checks[name] = {"ok": True, "detail": detail}
            return detail
        except Exception as exc:  # noqa: BLE001 - every check reports, none stops the probe
            self.checks[name] = {"ok": False, "detail": f"{type(exc).__name__}: {exc}",
                                 "traceback": traceback.format_exc(limit=6)}
            return None

    # -- config ---------------------------------------------------------------
    def compose(self, overrides: list[str]):
        from hydra import compose, initialize_config_dir
        from hydra.core.global_hydra import GlobalHydra

        GlobalHydra.instance().clear()
        with initialize_config_dir(config_dir=str(self.config_dir), version_base=None):
            return compose("ppo_trainer", overrides=overrides)

    def main_ppo_migrates(self) -> bool:
        # main_ppo calls migrate_legacy_reward_impl in 0.7.1 and 0.8 only.
        source = (self.config_dir.parent / "main_ppo.py").read_text(encoding="utf-8")
        return "migrate_legacy_reward_impl(config)" in source

    def as_main_ppo(self, config):
        """The config as main_ppo hands it on (migrated where it migrates)."""
        if self.main_ppo_migrates():
            from verl.experimental.reward_loop import migrate_legacy_reward_impl

            config = migrate_legacy_reward_impl(config)
        return config

    def model_override(self) -> str:
        # The tokenizer every manager and the reward loop worker load.
        return f"actor_rollout_ref.model.path={self.tokenizer_dir}"

    def keys_outcome(self, overrides: list[str]) -> dict:
        """What verl makes of a command's overrides: do they compose, and does
        get_custom_reward_fn then load our function from the config main_ppo
        hands on?"""
        from verl.trainer.ppo.reward import get_custom_reward_fn

        try:
            config = self.as_main_ppo(self.compose(overrides + [self.model_override()]))
        except Exception as exc:  # noqa: BLE001 - an outcome, reported
            return {"composes": False,
                    "error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
        sys.modules.pop("custom_module", None)  # <= 0.6 caches the first module loaded
        loaded = get_custom_reward_fn(config)
        return {"composes": True, "loads": loaded is not None}

    def config_checks(self) -> None:
        documented = doc_overrides(self.generation)

        def documented_composes():
            config = self.as_main_ppo(self.compose(documented + [self.model_override()]))
            section = config.reward if "reward" in config else config
            fn = section.custom_reward_function
            assert fn.path in (str(MODULE_FILE), PKG_PATH), fn.path
            outcome = self.keys_outcome(documented)
            assert outcome == {"composes": True, "loads": True}, outcome
            return {"overrides": documented, "custom_reward_function": {
                "path": fn.path, "name": fn.name, "reward_kwargs": dict(fn.reward_kwargs)}}

        self.check("config: the documented command loads the function", documented_composes)
        # Facts the docs state per version (tests/test_verl_wheels.py holds them).
        self.checks["config: reward group keys (0.7.1+ command)"] = {
            "ok": None, "detail": self.keys_outcome(doc_overrides("0.7.1+"))}
        self.checks["config: top-level keys (0.6 command)"] = {
            "ok": None, "detail": self.keys_outcome(doc_overrides("0.6"))}

    # -- loading --------------------------------------------------------------
    def load(self, path: str, name: str, **kwargs):
        from verl.trainer.ppo.reward import get_custom_reward_fn

        # The documented command with path, name and **kwargs replaced.
        prefix = "custom_reward_function" if self.generation != "0.7.1+" \
            else "reward.custom_reward_function"
        changes = {f"{prefix}.path": path, f"{prefix}.name": name, **kwargs}
        overrides = [o for o in doc_overrides(self.generation)
                     if o.split("=", 1)[0] not in changes]
        overrides += [f"{k}={v}" for k, v in changes.items()] + [self.model_override()]
        config = self.as_main_ppo(self.compose(overrides))
        return config, get_custom_reward_fn(config)

    def load_checks(self) -> None:
        def by_file():
            sys.modules.pop("custom_module", None)
            _, fn = self.load(str(MODULE_FILE), "compute_score")
            out = fn(data_source="integrals", solution_str=r"\boxed{x^3/3}",
                     ground_truth="x**2", extra_info={"variable": "x"})
            assert out["score"] == 1.0 and set(out) == KEYS, out
            return {"module": fn.args[0].__module__}

        def by_pkg():
            sys.modules.pop("custom_module", None)  # <= 0.6 caches the first module loaded
            if self.generation == "0.6":
                try:
                    self.load(PKG_PATH, "compute_score")
                except FileNotFoundError as exc:  # 0.6 loads paths as files only
                    return {"supported": False, "error": str(exc)}
                raise AssertionError("pkg:// loaded on a version documented as file-only")
            _, fn = self.load(PKG_PATH, "compute_score_async")
            raw = fn.args[0]
            assert inspect.iscoroutinefunction(raw), raw
            out = asyncio.run(fn(data_source="integrals", solution_str=r"\boxed{x^3/3}",
                                 ground_truth="x**2", extra_info={"variable": "x"}))
            assert out["score"] == 1.0, out
            return {"supported": True, "module": raw.__module__}

        self.check("load: file path", by_file)
        self.check("load: pkg://", by_pkg)

    # -- data -----------------------------------------------------------------
    def tokenizer(self):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(self.tokenizer_dir)

    def batch(self, rows=ROWS):
        """A DataProto as verl's rollout leaves it: left-padded prompts,
        right-padded responses, one attention mask over both."""
        import numpy as np
        import torch
        from verl import DataProto

        from rewards import prompts

        tok = self.tokenizer()
        pad = tok.pad_token_id
        prompt_ids, response_ids = [], []
        for _, response, truth, variable, _ in rows:
            user = prompts.USER_TEMPLATE.format(integrand=truth, symbol=variable or "x")
            text = tok.apply_chat_template([{"role": "user", "content": user}],
                                           add_generation_prompt=True, tokenize=False)
            prompt_ids.append(tok(text, add_special_tokens=False)["input_ids"])
            ids = tok(response, add_special_tokens=False)["input_ids"]
            assert tok.decode(ids, skip_special_tokens=True) == response, response
            response_ids.append(ids + [tok.eos_token_id])
        plen = max(map(len, prompt_ids))
        rlen = max(map(len, response_ids))
        prompts_t = torch.tensor([[pad] * (plen - len(p)) + p for p in prompt_ids])
        responses_t = torch.tensor([r + [pad] * (rlen - len(r)) for r in response_ids])
        mask = torch.tensor([[0] * (plen - len(p)) + [1] * len(p) + [1] * len(r)
                             + [0] * (rlen - len(r))
                             for p, r in zip(prompt_ids, response_ids, strict=True)])
        infos = [{"split": "test", "index": i, **({"variable": v} if v else {})}
                 for i, (_, _, _, v, _) in enumerate(rows)]
        return DataProto.from_dict(
            tensors={"prompts": prompts_t, "responses": responses_t, "attention_mask": mask,
                     "input_ids": torch.cat([prompts_t, responses_t], dim=1)},
            non_tensors={
                "data_source": np.array([r[0] for r in rows], dtype=object),
                "reward_model": np.array([{"style": "rule", "ground_truth": r[2]} for r in rows],
                                         dtype=object),
                "extra_info": np.array(infos, dtype=object)})

    def expected(self) -> list[float]:
        """Our scores for integrals; verl's default_compute_score's for the rest."""
        from verl.utils.reward_score import default_compute_score

        out = []
        for source, response, truth, _, expect in ROWS:
            if expect is None:
                result = default_compute_score(source, response, truth, {})
                expect = float(result["score"] if isinstance(result, dict) else result)
            out.append(expect)
        return out

    def assert_rows(self, scores, infos) -> dict:
        """Scores and extra infos of one batch: ours for integrals, verl's for the rest."""
        import numpy as np

        expected = self.expected()
        assert [round(float(s), 6) for s in scores] == [round(e, 6) for e in expected], \
            (list(scores), expected)
        verdicts = list(infos["verdict"])
        assert verdicts[:4] == ["CORRECT", "WRONG", "UNPARSEABLE", "CORRECT"], verdicts
        assert verdicts[4:] == ["DELEGATED"] * (len(ROWS) - 4), verdicts
        assert set(infos) == KEYS, sorted(infos)
        # verl <= 0.6 takes np.mean over every non-string key in validation.
        for key in ("score", "acc"):
            assert np.isfinite(np.mean(np.asarray(infos[key], dtype=float))), key
        return {"scores": [float(s) for s in scores], "verdicts": verdicts}

    # -- legacy managers --------------------------------------------------------
    def main_ppo_builds_legacy_managers(self) -> bool:
        source = (self.config_dir.parent / "main_ppo.py").read_text(encoding="utf-8")
        return "load_reward_manager(\n            config, tokenizer, num_examine=0" in source \
            or "load_reward_manager(config, tokenizer, num_examine=0" in source

    def legacy_checks(self) -> None:
        if not self.main_ppo_builds_legacy_managers():
            self.checks["legacy managers"] = {"ok": None,
                                              "detail": "main_ppo builds no legacy manager"}
            return
        from verl.trainer.ppo.reward import load_reward_manager

        def run(name: str, manager: str):
            config, _ = self.load(str(MODULE_FILE), name,
                                  **{"reward_model.reward_manager": manager})
            # main_ppo's own call.
            reward_fn = load_reward_manager(config, self.tokenizer(), num_examine=0,
                                            **config.reward_model.get("reward_kwargs", {}))
            out = reward_fn(self.batch(), return_dict=True)
            tensor, info = out["reward_tensor"], out["reward_extra_info"]
            scores = tensor.sum(dim=-1).tolist()
            return {"manager": type(reward_fn).__name__,
                    **self.assert_rows(scores, {k: list(v) for k, v in info.items()})}

        self.check("legacy: naive manager, compute_score", lambda: run("compute_score", "naive"))
        self.check("legacy: batch manager, compute_score_batch",
                   lambda: run("compute_score_batch", "batch"))

    # -- the reward loop --------------------------------------------------------
    def loop_checks(self) -> None:
        if self.generation != "0.7.1+":
            self.checks["reward loop"] = {"ok": None, "detail": (
                "0.7.0's reward loop imports transformers.AutoModelForVision2Seq (transformers "
                "< 5); not run here" if self.generation == "0.7.0" else "no reward loop")}
            return

        def run(name: str):
            import numpy as np
            from verl.experimental.reward_loop import RewardLoopWorker
            from verl.utils.ray_utils import get_event_loop

            config, _ = self.load(str(MODULE_FILE), name)
            worker = RewardLoopWorker(config, None)
            data = self.batch()
            outputs = get_event_loop().run_until_complete(worker.compute_score_batch(data))
            scores = [o["reward_score"] for o in outputs]
            manager = type(worker.reward_manager if hasattr(worker, "reward_manager")
                           else worker.reward_loop)
            if hasattr(manager, "assemble_rm_scores"):
                rm_scores = manager.assemble_rm_scores(data, scores)
                scores = rm_scores.sum(dim=-1).tolist()
            # RewardLoopManager.compute_rm_score: keys of the first sample, stacked.
            infos = [o.get("reward_extra_info", {}) for o in outputs]
            stacked = {k: np.array([info[k] for info in infos]) for k in infos[0]}
            return {"manager": manager.__name__, **self.assert_rows(scores, stacked)}

        self.check("loop: naive manager, compute_score (thread pool)",
                   lambda: run("compute_score"))
        self.check("loop: naive manager, compute_score_async (awaited)",
                   lambda: run("compute_score_async"))

    def run(self) -> dict:
        self.config_checks()
        self.load_checks()
        self.legacy_checks()
        self.loop_checks()
        return {"version": self.version, "generation": self.generation,
                "migrates_legacy_keys": self.main_ppo_migrates(), "checks": self.checks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", default=None,
                        help="a tokenizer directory (default: build the tiny one)")
    args = parser.parse_args(argv)
    # verl logs at import; keep stdout for the one JSON line.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        report = Probe(args.tokenizer).run()
    finally:
        sys.stdout = real_stdout
    print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
