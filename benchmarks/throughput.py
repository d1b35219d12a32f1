"""``python -m benchmarks throughput``: what the reward costs a GRPO step.

The batch is GRPO-shaped and real: 64 prompts x 8 completions drawn from the
reasoning-gym eval completions (prompts with >= 8 completions, 8 sampled per
prompt), so correct, wrong and repeated answers occur as they did; a few
completions (``--truncate-frac``) are cut before their answer, as at
``max_completion_length``, for the no-answer case. Three batches are scored in
sequence: prompts A, prompts B, then prompts A again with other completions
(a second epoch), which is where a cross-batch cache can matter.

Every configuration runs in a fresh Python process (so peak RSS is its own:
the sum over the process tree, sampled every 20 ms), on the same batches:

* ``ours/sequential``: extraction + ``check_antiderivative`` in a plain loop,
  in-process, no dedup, no cache (what a naive reward function does);
* ``ours/w1``, ``ours/w2`` (no cache, ``cache_size=0``; in-batch dedup is
  built in) and ``ours/w1+cache``, ``ours/w2+cache``: the reward as trained;
* ``trl_math_verify/in-process``: TRL's ``accuracy_reward`` in the trainer
  process, as TRL calls it;
* every peer in the bench's 2-worker pool under the same per-sample deadline.

Reported: completions/s over all batches, p50/p99 per-sample latency (in-worker
check time of the samples actually checked; cache and dedup hits cost ~0 and
are left out), peak RSS, seconds per 512 completions, and the slowest batch
against its deadline bound.

``--source rubi-latex`` (issue 9) is another batch and its own set of
configurations (:mod:`benchmarks.rubi_latex`): 64 hard elementary Rubi
integrands x 8 ``sympy.latex`` answer forms, scored by

* ``ours/sequential``: every completion checked in-process, one after the
  other, no pool, no dedup, no cache (the per-check floor);
* ``ours/w1``: the reward with one worker;
* ``ours/default``, ``ours/default+cache``: the reward as trained (default
  workers = the available cores), on chat-style completions, after an untimed
  warm-up batch of other integrands;
* ``trl_math_verify/chat``: TRL's ``accuracy_reward`` in-process, sequential,
  on the same chat-style completions, against ``$sympy.latex(F) + C$``;
* ``ours/stages``: ``check_antiderivative(..., input_kind="response")`` over the
  distinct checks, sequential, in-process: the per-stage and per-rung tables;
* ``ours/scaling``: fresh pools of 1 and 2 workers alternating in one process
  (:data:`SCALING_ORDER`), each warmed and timed on the first batch: 2 workers
  over 1 without the drift between two configurations' processes;

and reported as completions/s, the ratio ours/TRL, p50/p99 per fresh check,
accepted correct forms and false accepts, per form, per stage and per rung.
"""
from __future__ import annotations

import functools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from . import DEFAULT_DATA_DIR, METHOD_LABELS
from .table import markdown_table, percentile, write_section

PROMPTS = 64
PER_PROMPT = 8

SOURCES = {
    "rgym": "real reasoning-gym completions (cheap checks)",
    "rubi": "Rubi integrands, rendered and mutated answers (heavy checks)",
    "rubi-latex": "hard Rubi integrals, 8 sympy.latex answer forms each (issue 9)",
}
OURS_CONFIGS = ("ours/sequential", "ours/w1", "ours/w2", "ours/w1+cache", "ours/w2+cache")
PEER_CONFIGS = ("trl_math_verify/in-process", "trl_math_verify/w2", "reasoning_gym/w2",
                "rlve_numeric/w2", "ladder_numeric/w2", "seed_design/w2")
# The rubi-latex source's own: the sequential floor and one worker (the
# curve issue 27 asks for in one run), the reward as trained (default workers
# = the available cores), TRL's accuracy_reward on the chat-style
# completions, the sequential per-stage pass
# (:func:`benchmarks.rubi_latex.stage_pass`), and 2 workers over 1 with fresh
# pools alternating in one process (``ours/scaling``).
RUBI_LATEX_CONFIGS = ("ours/sequential", "ours/w1", "ours/default", "ours/default+cache",
                      "trl_math_verify/chat", "ours/stages", "ours/scaling")
# The pool sizes ``ours/scaling`` times, in this order: each size as often
# first as second, so a machine that speeds up or slows down over the run
# weighs on both alike.
SCALING_ORDER = (1, 2, 2, 1, 1, 2)
ALL_CONFIGS = OURS_CONFIGS + PEER_CONFIGS
DEFAULT_CONFIGS = {"rgym": ALL_CONFIGS, "rubi": ALL_CONFIGS, "rubi-latex": RUBI_LATEX_CONFIGS}
DEFAULT_BATCHES = {"rgym": 3, "rubi": 3, "rubi-latex": 1}


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# The batch
# ---------------------------------------------------------------------------

def _truncate(response: str, rng: random.Random) -> str:
    cut = response.find("<answer>")
    cut = len(response) if cut < 0 else cut
    return response[: max(1, int(cut * rng.uniform(0.3, 0.95)))]


def build_batches(rgym_path: Path, seed: int = 0, prompts: int = PROMPTS,
                  per_prompt: int = PER_PROMPT, truncate_frac: float = 0.04,
                  n_batches: int = 3) -> list[list[dict[str, Any]]]:
    """Batches of rows ``{completion, integrand, symbol, reference, answer,
    label, prompt_key}``; see the module docstring."""
    with open(rgym_path) as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        groups[(row.get("task"), row["integrand_sympy"], row.get("variable"))].append(row)
    keys = sorted(k for k, v in groups.items() if len(v) >= per_prompt)
    rng = random.Random(seed)
    rng.shuffle(keys)
    if len(keys) < prompts:
        raise SystemExit(f"only {len(keys)} prompts have >= {per_prompt} completions")
    set_a = keys[:prompts]
    set_b = keys[prompts:2 * prompts] if len(keys) >= 2 * prompts else keys[-prompts:]
    plan = [set_a, set_b, set_a][:n_batches]
    batches = []
    for b, keyset in enumerate(plan):
        batch_rng = random.Random(f"{seed}:{b}")
        batch = []
        for key in keyset:
            for row in batch_rng.sample(groups[key], per_prompt):
                completion = row["response"]
                truncated = batch_rng.random() < truncate_frac
                if truncated:
                    completion = _truncate(completion, batch_rng)
                batch.append({"completion": completion, "integrand": row["integrand_sympy"],
                              "symbol": row.get("variable") or "x",
                              "reference": row.get("reference_answer_sympy"),
                              "answer": None if truncated else row.get("extracted_answer"),
                              "label": row.get("label") == "correct" and not truncated,
                              "prompt_key": "|".join(map(str, key))})
        batches.append(batch)
    return batches


def build_rubi_batches(rubi_path: Path, seed: int = 0, prompts: int = PROMPTS,
                       per_prompt: int = PER_PROMPT, n_batches: int = 3,
                       no_answer_frac: float = 0.05) -> list[list[dict[str, Any]]]:
    """A harder GRPO-shaped batch: Rubi integrands as prompts; each group's 8
    completions drawn with replacement (so answers repeat) from that pair's
    renderings: correct (``sympy.latex`` or SymPy text, equivalent rewrites)
    and verified-wrong mutants in equal measure, plus a few without an
    answer. ``\\boxed{}`` for LaTeX, ``<answer>`` tags for SymPy text."""
    from .corpora import load_rubi

    correct, wrong = load_rubi(rubi_path, sample=2 * prompts, seed=seed, rewrites_per_pair=2,
                               mutants_per_pair=3)
    by_pair: dict[str, dict[str, list]] = defaultdict(lambda: {"ok": [], "bad": []})
    for it in correct:
        by_pair[it.meta["pair"]]["ok"].append(it)
    for it in wrong:
        by_pair[it.meta["pair"]]["bad"].append(it)
    pairs = [p for p in by_pair if by_pair[p]["ok"] and by_pair[p]["bad"]]
    set_a, set_b = pairs[:prompts], pairs[prompts:2 * prompts] or pairs[:prompts]
    plan = [set_a, set_b, set_a][:n_batches]
    batches = []
    for b, keyset in enumerate(plan):
        rng = random.Random(f"rubi:{seed}:{b}")
        batch = []
        for pair in keyset:
            for _ in range(per_prompt):
                roll = rng.random()
                pool = by_pair[pair]["ok"] if roll < (1 - no_answer_frac) / 2 else \
                    by_pair[pair]["bad"]
                it = rng.choice(pool)
                if roll > 1 - no_answer_frac:
                    completion, answer = "Let me think... the integral is hard.", None
                elif it.syntax == "latex":
                    completion, answer = f"Integrating...\n\\boxed{{{it.answer}}}", it.answer
                else:
                    completion, answer = f"Integrating...\n<answer>{it.answer}</answer>", \
                        it.answer
                batch.append({"completion": completion, "integrand": it.integrand,
                              "symbol": "x", "reference": it.reference,
                              "reference_latex": it.reference_latex, "answer": answer,
                              "syntax": it.syntax, "label": bool(it.expected) and answer is not None,
                              "prompt_key": pair, "source": "rubi"})
        batches.append(batch)
    return batches


def describe_batch(batch: list[dict[str, Any]]) -> dict[str, Any]:
    from rewards.check.extract import extract_answer

    answers = [extract_answer(r["completion"]).value for r in batch]
    per_prompt: dict[str, Counter] = defaultdict(Counter)
    for r, a in zip(batch, answers, strict=True):
        if a is not None:
            per_prompt[r["prompt_key"]][a] += 1
    repeated = sum(c - 1 for counter in per_prompt.values() for c in counter.values() if c > 1)
    return {"completions": len(batch), "labelled_correct": sum(r["label"] for r in batch),
            "no_answer": sum(a is None for a in answers),
            "repeated_in_group": repeated,
            "unique_jobs": len({(a, r["integrand"], r["symbol"]) for r, a in zip(batch, answers, strict=True)
                                if a is not None})}


# ---------------------------------------------------------------------------
# Child process: one configuration
# ---------------------------------------------------------------------------

class RssSampler:
    """Peak of the summed RSS of this process and all its descendants.

    Every 0.25 s: a sample walks the process table (psutil's children) and
    took 2.1 ms of CPU here, so at 50 Hz the sampler alone held a tenth of a
    core, taken from the reward's workers on a 2-core machine and from the
    GIL of an in-process peer."""

    def __init__(self, interval_s: float = 0.25) -> None:
        import psutil

        self._proc = psutil.Process()
        self.interval_s = interval_s
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        import psutil

        total = 0
        try:
            procs = [self._proc, *self._proc.children(recursive=True)]
        except psutil.Error:
            return
        for p in procs:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                continue
        self.peak_mb = max(self.peak_mb, total / 2**20)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval_s)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._sample()
        self._stop.set()
        self._thread.join()


def cpu_split(pid: int | None = None) -> tuple[float, float]:
    """(CPU seconds of a process, this one by default, and of its live
    descendants) so far."""
    import psutil

    me = psutil.Process(pid)
    own = me.cpu_times()
    kids = 0.0
    for child in me.children(recursive=True):
        try:
            t = child.cpu_times()
            kids += t.user + t.system
        except psutil.Error:
            continue
    return own.user + own.system, kids


def _pool_bound(n_jobs: int, workers: int, timeout_s: float, margin_s: float = 2.0) -> float:
    # rewards.pool.CheckPool.run's budget for one call (the batch's hard bound).
    waves = math.ceil(n_jobs / workers) + 2 if n_jobs else 0
    return margin_s * 4 + 3 * waves * (timeout_s + margin_s) if n_jobs else 0.0


def _items_for_peers(batch: list[dict[str, Any]]):
    from .corpora import Item

    # Real rgym completions: the peers extract from the response themselves.
    # Rubi batches: they get the bare answer (as in the accuracy bench).
    return [Item(id=str(i), dataset=r.get("source", "rgym"), group="batch", answer=r["answer"],
                 syntax=r.get("syntax", "sympy"), integrand=r["integrand"], symbol=r["symbol"],
                 response=r["completion"] if r.get("source", "rgym") == "rgym" else None,
                 reference=r["reference"], reference_latex=r.get("reference_latex"),
                 label=r["label"]) for i, r in enumerate(batch)]


def _cpu_delta(before: tuple[float, float]) -> tuple[float, float]:
    after = cpu_split()
    return after[0] - before[0], max(0.0, after[1] - before[1])


def _completion(row: dict[str, Any]) -> Any:
    # Conversational datasets: TRL passes a list of messages per completion.
    if row.get("chat"):
        return [{"role": "assistant", "content": row["completion"]}]
    return row["completion"]


def _trl_solution(row: dict[str, Any]) -> str:
    # The reference as the peer adapter gives it (peers._trl): sympy.latex of
    # the antiderivative, "+ C", in $...$ so that math-verify reads it.
    from .peers import _dollars, _sympy_to_latex, strip_constant

    if row.get("reference_latex"):
        return _dollars(strip_constant(row["reference_latex"]) + " + C")
    return _dollars(_sympy_to_latex(row["reference"], row["symbol"]))


def _warm(reward: Any, warmup: list[dict[str, Any]] | None) -> None:
    """The reward's untimed first call: the warm-up batch, or a few trivial
    checks (the pool started, its workers' imports and caches warm)."""
    if warmup:
        reward.score([_completion(r) for r in warmup], [r["integrand"] for r in warmup],
                     [r["symbol"] for r in warmup])
    else:
        reward.score([r"\boxed{x^2/2}"] * 4, ["x", "x**2", "x**3", "x**4"])


def _timed_score(reward: Any, batch: list[dict[str, Any]]
                 ) -> tuple[list[Any], float, tuple[float, float]]:
    """One timed reward call, as TRL's call costs: ``score()`` and the batch
    metrics (a trace is off here). The outcomes, the wall time, and the
    (parent, workers) CPU time, read while the workers are there to ask."""
    from rewards.reward.metrics import batch_metrics

    completions = [_completion(r) for r in batch]
    integrands, symbols = [r["integrand"] for r in batch], [r["symbol"] for r in batch]
    cpu0 = cpu_split()
    started = time.perf_counter()
    outcomes = reward.score(completions, integrands, symbols)
    batch_metrics(outcomes)
    return outcomes, time.perf_counter() - started, _cpu_delta(cpu0)


def _tally(outcomes: list[Any], workers: int, timeout_s: float, verdicts: Counter,
           accepted: list[bool], latencies: list[float]) -> float:
    """Count a timed call's outcomes into the configuration's verdicts,
    acceptances and fresh-check latencies; returns the call's hard bound."""
    checked = [o for o in outcomes if o.extracted is not None and not o.cached and o.result]
    for o in outcomes:
        verdicts[o.verdict or "UNJUDGED"] += 1
        accepted.append(o.verdict == "CORRECT")
    latencies.extend(o.result.total_ms for o in checked)
    return _pool_bound(len(checked), workers, timeout_s)


def run_config(config: str, batches: list[list[dict[str, Any]]], timeout_s: float,
               warmup: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Score every batch with one configuration, in this process (and its
    workers). Returns per-batch walls, per-sample latencies and verdicts.

    ``warmup``: a batch scored first, untimed (``ours/default*``,
    ``trl_math_verify/chat`` and ``ours/stages``; the others warm up on a
    few trivial checks). ``accepted`` holds, per timed completion in order,
    whether it was accepted (``ours/stages``: the per-check records instead).
    """
    method, _, mode = config.partition("/")
    walls: list[float] = []
    bounds: list[float] = []
    latencies: list[float] = []
    cpu: list[tuple[float, float]] = []
    verdicts: Counter = Counter()
    accepted: list[bool] = []
    extra: dict[str, Any] = {}
    with RssSampler() as rss:
        if config == "ours/stages":
            from .rubi_latex import stage_pass

            cpu0 = cpu_split()
            extra["stages"] = stage_pass(batches, warmup, timeout_s)
            records = extra["stages"]["records"]
            walls.append(extra["stages"]["wall_s"])
            cpu.append(_cpu_delta(cpu0))
            bounds.append(len(records) * (timeout_s + 0.5))
            verdicts.update(r["verdict"] for r in records)
            latencies.extend(r["total_ms"] for r in records)
        elif config == "trl_math_verify/chat":
            # TRL's accuracy_reward in the trainer process, sequential, on the
            # chat-style completions, against the sympy.latex reference; one
            # completion per call so each is timed (the function loops over
            # its batch doing the same per-completion work).
            from trl.rewards import accuracy_reward

            def score_one(row: dict[str, Any], solution: str) -> float | None:
                return accuracy_reward([_completion(row)], [solution])[0]

            for r in warmup or []:
                score_one(r, _trl_solution(r))
            if not warmup:
                score_one({"completion": r"\boxed{x^2}", "chat": True}, "$x^2$")
            for batch in batches:
                solutions = [_trl_solution(r) for r in batch]  # a dataset column
                cpu0 = cpu_split()
                started = time.perf_counter()
                for r, solution in zip(batch, solutions, strict=True):
                    t0 = time.perf_counter()
                    reward = score_one(r, solution)
                    latencies.append((time.perf_counter() - t0) * 1000)
                    verdicts["CORRECT" if reward == 1.0 else
                             "CHECKER_ERROR" if reward is None else "WRONG"] += 1
                    accepted.append(reward == 1.0)
                walls.append(time.perf_counter() - started)
                cpu.append(_cpu_delta(cpu0))
                bounds.append(len(batch) * 15.5)  # its own alarms: 10 s parse + 5 s verify
        elif config == "ours/sequential":
            from rewards import check_antiderivative
            from rewards.check.extract import ExtractionStatus, extract_answer

            check_antiderivative(r"\frac{x^{2}}{2}", "x", timeout_s=30)  # imports, caches
            for batch in batches:
                cpu0 = cpu_split()
                started = time.perf_counter()
                for r in batch:
                    t0 = time.perf_counter()
                    extraction = extract_answer(r["completion"])
                    if extraction.status is ExtractionStatus.OK:
                        # input_kind "auto", as the reward's workers run it.
                        result = check_antiderivative(extraction.value, r["integrand"],
                                                      symbol=r["symbol"], timeout_s=timeout_s,
                                                      input_kind="auto")
                        verdicts[result.verdict.value] += 1
                    else:
                        verdicts["UNPARSEABLE"] += 1
                    latencies.append((time.perf_counter() - t0) * 1000)
                walls.append(time.perf_counter() - started)
                cpu.append(_cpu_delta(cpu0))
                bounds.append(len(batch) * (timeout_s + 0.5))
        elif config == "ours/scaling":
            # The configurations above run one after the other, each in its own
            # process, and this machine's speed drifts between them (by a third
            # within an hour): their 1- and 2-worker walls compare two moments.
            # Here fresh pools of 1 and 2 workers alternate in one process, each
            # warmed on the warm-up batch and timed on the first batch.
            from rewards import AntiderivativeReward

            timed: dict[int, list[float]] = {1: [], 2: []}
            for workers in SCALING_ORDER:
                reward = AntiderivativeReward(workers=workers, timeout_s=timeout_s, cache_size=0)
                try:
                    _warm(reward, warmup)
                    outcomes, wall, used = _timed_score(reward, batches[0])
                finally:
                    reward.close()
                timed[workers].append(wall)
                if workers == 2 and not walls:
                    # The first 2-worker pass stands for the configuration's row.
                    walls.append(wall)
                    cpu.append(used)
                    bounds.append(_tally(outcomes, 2, timeout_s, verdicts, accepted, latencies))
            extra["scaling"] = {"w1_s": timed[1], "w2_s": timed[2],
                                "ratios": [a / b for a, b in zip(timed[1], timed[2],
                                                                 strict=True)]}
        elif method == "ours":
            from rewards import AntiderivativeReward

            # default: RewardConfig's workers (None = the available cores).
            workers = None if mode.startswith("default") else 2 if mode.startswith("w2") else 1
            cache = mode.endswith("+cache")
            reward = AntiderivativeReward(workers=workers, timeout_s=timeout_s,
                                          cache_size=20_000 if cache else 0)
            n_workers = reward.runtime_stats()["workers"]
            extra["workers"] = n_workers
            try:
                _warm(reward, warmup)
                for batch in batches:
                    outcomes, wall, used = _timed_score(reward, batch)
                    walls.append(wall)
                    cpu.append(used)
                    bounds.append(_tally(outcomes, n_workers, timeout_s, verdicts, accepted,
                                         latencies))
            finally:
                reward.close()
        elif mode == "in-process":
            # TRL calls reward functions in the trainer process: accuracy_reward
            # loops over the batch; the adapter adds only the LaTeX printing
            # math-verify needs for SymPy-syntax answers (see peers._trl).
            from .accuracy import inputs_for
            from .peers import _trl

            _trl("x**2/2", {"ref": "x**2/2", "syntax": "sympy"}, "x", timeout_s)  # warm-up
            for batch in batches:
                items = _items_for_peers(batch)
                cpu0 = cpu_split()
                started = time.perf_counter()
                for item in items:
                    text, data = inputs_for("trl_math_verify", item)
                    t0 = time.perf_counter()
                    verdict, _reason = _trl(text, json.loads(data), item.symbol, timeout_s)
                    latencies.append((time.perf_counter() - t0) * 1000)
                    verdicts[verdict.value] += 1
                walls.append(time.perf_counter() - started)
                cpu.append(_cpu_delta(cpu0))
                bounds.append(len(items) * 15.5)  # its own alarms: 10 s parse + 5 s verify
        else:
            from rewards import RewardConfig
            from rewards.reward.pool import CheckPool

            from .accuracy import inputs_for
            from .peers import bench_check, payload

            workers = 2
            pool = CheckPool(RewardConfig(workers=workers, timeout_s=timeout_s),
                             check_fn=functools.partial(bench_check, method=method))
            try:
                pool.run([("x**2/2", payload("x", ref="x**2/2", ref_latex="\\frac{x^2}{2}"),
                           "x")] * 4)
                for batch in batches:
                    items = _items_for_peers(batch)
                    jobs = [(*inputs_for(method, it), it.symbol) for it in items]
                    cpu0 = cpu_split()
                    started = time.perf_counter()
                    results = pool.run(jobs)
                    walls.append(time.perf_counter() - started)
                    cpu.append(_cpu_delta(cpu0))
                    bounds.append(_pool_bound(len(jobs), workers, timeout_s))
                    for res in results:
                        verdicts[res.verdict.value] += 1
                        latencies.append(res.total_ms)
            finally:
                pool.close()
    n = sum(len(b) for b in batches)
    return {"config": config, "completions": n, "walls": walls, "bounds": bounds,
            "latencies_ms": latencies, "verdicts": dict(verdicts), "peak_rss_mb": rss.peak_mb,
            "loadavg": os.getloadavg()[0], "cpu": cpu, "accepted": accepted, **extra}


def child_main(argv: list[str]) -> int:
    config, batch_file, timeout_s, out_file = argv[0], argv[1], float(argv[2]), argv[3]
    with open(batch_file) as handle:
        data = json.load(handle)
    # A list of batches, or {"batches": [...], "warmup": [...]}.
    batches, warmup = (data["batches"], data.get("warmup")) if isinstance(data, dict) \
        else (data, None)
    result = run_config(config, batches, timeout_s, warmup)
    with open(out_file, "w") as handle:
        json.dump(result, handle)
    return 0


# ---------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------

def _run_child(config: str, batch_file: str, timeout_s: float, limit_s: float
               ) -> dict[str, Any] | None:
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as out:
        out_path = out.name
    cmd = [sys.executable, "-m", "benchmarks.throughput", config, batch_file,
           str(timeout_s), out_path]
    # The child imports this checkout's benchmarks and rewards (not an
    # installed copy), whatever the working directory.
    from . import REPO_ROOT

    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONWARNINGS="ignore", PYTHONPATH=path)
    try:
        proc = subprocess.run(cmd, env=env, timeout=limit_s, capture_output=True, text=True,
                              cwd=REPO_ROOT)
    except subprocess.TimeoutExpired:
        _log(f"  {config}: gave up after {limit_s:.0f} s")
        return None
    try:
        if proc.returncode != 0:
            _log(f"  {config}: failed (rc={proc.returncode})\n{proc.stderr[-2000:]}")
            return None
        with open(out_path) as handle:
            return json.load(handle)
    finally:
        Path(out_path).unlink(missing_ok=True)


def summarize(result: dict[str, Any], batches: list[list[dict[str, Any]]] | None = None
              ) -> dict[str, Any]:
    total = sum(result["walls"])
    n = result["completions"]
    ratios = [w / b for w, b in zip(result["walls"], result["bounds"], strict=True) if b]
    extra: dict[str, Any] = {}
    rows = [r for b in batches for r in b] if batches else []
    accepted = result.get("accepted") or []
    if rows and len(accepted) == len(rows) and all("kind" in r for r in rows):
        from .rubi_latex import accuracy_counts

        extra["accuracy"] = accuracy_counts(rows, accepted)
        per_form: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r, ok in zip(rows, accepted, strict=True):
            per_form[r["form"]][0] += bool(ok)
            per_form[r["form"]][1] += 1
        extra["per_form"] = dict(per_form)
    if result.get("scaling"):
        extra["scaling"] = result["scaling"]
    if result.get("stages"):
        extra["stages"] = result["stages"]
        extra["accuracy"] = _stage_accuracy(result["stages"]["records"])
    return {**extra, "fresh_ms": result["latencies_ms"], "config": result["config"], "completions": n, "wall_s": total,
            "cps": n / total if total else float("nan"),
            "p50_ms": percentile(result["latencies_ms"], 50),
            "p99_ms": percentile(result["latencies_ms"], 99),
            "peak_rss_mb": result["peak_rss_mb"],
            "s_per_512": 512 * total / n if n else float("nan"),
            "batch_walls": result["walls"], "max_wall_over_bound": max(ratios) if ratios else None,
            "verdicts": result["verdicts"], "loadavg": result.get("loadavg"),
            "cpu_parent_s": sum(c[0] for c in result.get("cpu", [])),
            "cpu_workers_s": sum(c[1] for c in result.get("cpu", []))}


def _stage_accuracy(records: list[dict[str, Any]]) -> dict[str, int]:
    out: Counter = Counter()
    for r in records:
        out[f"n_{r['kind']}"] += 1
        out[f"accepted_{r['kind']}"] += r["verdict"] == "CORRECT"
    return dict(out)


def _label(config: str) -> str:
    method, _, mode = config.partition("/")
    names = {"sequential": "in-process sequential (no dedup, no cache)",
             "w1": "1 worker, no cache", "w2": "2 workers, no cache",
             "w1+cache": "1 worker + cache", "w2+cache": "2 workers + cache",
             "in-process": "in-process (as TRL calls it)",
             "default": "as trained (default workers), no cache",
             "default+cache": "as trained (default workers) + cache",
             "chat": "in-process, chat completions (as TRL calls it)",
             "stages": "sequential per-stage pass (distinct checks)",
             "scaling": "2 workers, first pass of the 1 / 2 alternation (see below)"}
    return f"{METHOD_LABELS.get(method, method)}: {names.get(mode, mode)}"


def make_report(summaries: list[dict[str, Any]], batches, args) -> str:
    rows = []
    for s in summaries:
        rows.append([_label(s["config"]), s["completions"], s["cps"], s["p50_ms"], s["p99_ms"],
                     s["peak_rss_mb"], s["s_per_512"],
                     " / ".join(f"{w:.1f}" for w in s["batch_walls"]),
                     f"{s['max_wall_over_bound']:.3f}" if s["max_wall_over_bound"] is not None
                     else "–",
                     ", ".join(f"{k[:4].lower()} {v}" for k, v in sorted(s["verdicts"].items())),
                     f"{s['cpu_parent_s']:.1f} / {s['cpu_workers_s']:.1f}", s.get("loadavg")])
    by = {s["config"]: s for s in summaries}
    notes = []

    def ratio(a: str, b: str) -> float | None:
        if a in by and b in by and by[b]["cps"]:
            return by[a]["cps"] / by[b]["cps"]
        return None

    r = ratio("ours/w2", "ours/w1")
    if r is not None:
        notes.append(f"2 workers vs 1 (no cache): **{r:.2f}x** (target >= 1.8x on 2 cores)")
    for cfg in ("ours/w1", "ours/w2"):
        if cfg in by and by[cfg]["wall_s"]:
            busy = (by[cfg]["cpu_parent_s"] + by[cfg]["cpu_workers_s"]) / by[cfg]["wall_s"]
            notes.append(f"{_label(cfg)}: {busy:.2f} CPU cores busy on average (parent + "
                         f"workers CPU time / wall time); the parent's share of the CPU time "
                         f"is {100 * by[cfg]['cpu_parent_s'] / max(1e-9, by[cfg]['cpu_parent_s'] + by[cfg]['cpu_workers_s']):.0f}%")
    r = ratio("ours/w2+cache", "ours/w1+cache")
    if r is not None:
        notes.append(f"2 workers vs 1 (with cache): {r:.2f}x")
    for ours_cfg in ("ours/w2", "ours/w2+cache"):
        for peer in ("trl_math_verify/in-process", "trl_math_verify/w2"):
            r = ratio(ours_cfg, peer)
            if r is not None:
                notes.append(f"{_label(ours_cfg)} vs {_label(peer)}: **{r:.2f}x** "
                             "completions/s (target >= 2x)")
    over = [s["config"] for s in summaries
            if s["max_wall_over_bound"] is not None and s["max_wall_over_bound"] > 1]
    notes.append("every batch within its deadline bound" if not over
                 else f"batches over their deadline bound: {', '.join(over)}")
    mix = [describe_batch(b) for b in batches]
    mix_text = "; ".join(
        f"batch {i + 1}: {m['completions']} completions, {m['labelled_correct']} labelled "
        f"correct, {m['no_answer']} without an answer, {m['repeated_in_group']} repeats of an "
        f"answer within their group, {m['unique_jobs']} distinct checks"
        for i, m in enumerate(mix))
    cpus = _cpus()
    body = (
        f"## Throughput on a GRPO-shaped batch: {SOURCES[args.source]}\n\n"
        f"Command: `python -m benchmarks throughput --source {args.source} --seed "
        f"{args.seed} --batches {args.batches} --timeout {args.timeout}`\n\n"
        f"{PROMPTS} prompts x {PER_PROMPT} completions, {args.batches} batches in sequence "
        f"(prompts A, B, then A again with other completions). {mix_text}. Machine: {cpus} "
        f"CPU(s) available to the bench, shared with other work (1-minute load average at the "
        f"end of each configuration in the table); "
        f"per-sample deadline {args.timeout} s. Each configuration runs in a fresh process; "
        "peak RSS is the whole process tree. p50/p99 are per checked sample (in-worker check "
        "time; in-process: wall per sample). *s/512* is the reward's share of a training step "
        "with 512 completions. *max wall/bound* is the slowest batch over its hard bound "
        "(the pool's per-call budget; sequential: n x deadline).\n\n"
        + markdown_table(["configuration", "completions", "completions/s", "p50 ms", "p99 ms",
                          "peak RSS MB", "s / 512", "batch walls s", "max wall/bound",
                          "verdicts", "CPU s parent / workers", "load avg"], rows)
        + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n")
    return body


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def add_arguments(parser) -> None:
    parser.add_argument("--corpus", default=str(DEFAULT_DATA_DIR),
                        help="data directory holding rgym_outputs.jsonl (or that file)")
    parser.add_argument("--source", default="rgym", choices=list(SOURCES),
                        help="rgym: real completions (cheap checks); rubi: Rubi integrands "
                             "with rendered and mutated answers (heavy checks); rubi-latex: "
                             "64 hard Rubi integrands x 8 sympy.latex answer forms, the reward "
                             "as trained vs TRL accuracy_reward, per-stage and per-rung tables")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batches", type=int, default=None, choices=[1, 2, 3],
                        help="timed batches (A, B, A again); default 3, rubi-latex 1")
    parser.add_argument("--timeout", type=float, default=5.0, help="per-sample deadline (s)")
    parser.add_argument("--truncate-frac", type=float, default=0.04,
                        help="share of completions cut before their answer")
    parser.add_argument("--configs", nargs="+", default=None, metavar="CONFIG",
                        choices=list(ALL_CONFIGS + RUBI_LATEX_CONFIGS),
                        help="any of " + ", ".join(ALL_CONFIGS + RUBI_LATEX_CONFIGS)
                             + "; default for rgym and rubi: " + ", ".join(ALL_CONFIGS)
                             + "; for rubi-latex: " + ", ".join(RUBI_LATEX_CONFIGS))
    parser.add_argument("--limit", type=float, default=1800.0,
                        help="seconds after which one configuration is abandoned")
    parser.add_argument("--out", default=None,
                        help="Markdown file whose 'throughput' section to (re)write")
    parser.add_argument("--json", default=None, help="write the raw measurements here")


def main(args) -> int:
    from .corpora import find_corpus

    args.configs_given = args.configs is not None
    if args.configs is None:
        args.configs = list(DEFAULT_CONFIGS[args.source])
    if args.batches is None:
        args.batches = DEFAULT_BATCHES[args.source]
    data_source = "rubi" if args.source == "rubi-latex" else args.source
    found = find_corpus(args.corpus)
    if data_source not in found:
        raise SystemExit(f"no {data_source} data under {args.corpus}")
    warmup: list[dict[str, Any]] | None = None
    build_stats: Counter = Counter()
    if args.source == "rgym":
        batches = build_batches(found["rgym"], args.seed, truncate_frac=args.truncate_frac,
                                n_batches=args.batches)
    elif args.source == "rubi":
        _log("building the Rubi batches...")
        batches = build_rubi_batches(found["rubi"], args.seed, n_batches=args.batches)
    else:
        from .rubi_latex import batch_digest, build_rubi_latex_batches

        _log("building the Rubi LaTeX batch (verifying every form at 50 digits)...")
        batches, warmup = build_rubi_latex_batches(found["rubi"], args.seed,
                                                   n_batches=args.batches, stats=build_stats)
        _log(f"  batch SHA-256 {batch_digest(batches, warmup)}; {dict(build_stats)}")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"batches": batches, "warmup": warmup} if warmup is not None else batches,
                  handle)
        batch_file = handle.name
    summaries = []
    try:
        for config in args.configs:
            _log(f"throughput: {config}")
            result = _run_child(config, batch_file, args.timeout, args.limit)
            if result is not None:
                s = summarize(result, batches)
                summaries.append(s)
                _log(f"  {s['cps']:.1f} completions/s, p50 {s['p50_ms']:.0f} ms, "
                     f"p99 {s['p99_ms']:.0f} ms, peak RSS {s['peak_rss_mb']:.0f} MB, walls "
                     f"{[round(w, 1) for w in s['batch_walls']]}")
    finally:
        Path(batch_file).unlink(missing_ok=True)
    if args.source == "rubi-latex":
        from .rubi_latex import make_report as rubi_latex_report

        stage_summary = next((s for s in summaries if s["config"] == "ours/stages"), None)
        labels = {s["config"]: _label(s["config"]) for s in summaries}
        body = rubi_latex_report([s for s in summaries if s["config"] != "ours/stages"],
                                 stage_summary["stages"] if stage_summary else None, batches,
                                 warmup or [], build_stats, args, _cpus(), labels)
    else:
        body = make_report(summaries, batches, args)
    print(body)
    if args.out:
        write_section(args.out, f"throughput-{args.source}", body, title="Benchmarks")
        _log(f"wrote the throughput section of {args.out}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as handle:
            if args.source == "rubi-latex":
                from .rubi_latex import batch_digest

                json.dump({"summaries": summaries, "build_stats": dict(build_stats),
                           "batch_sha256": batch_digest(batches, warmup or [])}, handle)
            else:
                json.dump(summaries, handle)
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))


__all__ = ["ALL_CONFIGS", "add_arguments", "build_batches", "describe_batch", "main",
           "run_config"]
